// SPDX-License-Identifier: GPL-2.0
/*
 * The aging counters (the walks of the MMU notifier's young callbacks) in the views: report's
 * "Aging" section in text and --json on both arches, and the compare rows that name them. The
 * recordings are hand-made, as an emulated host gives them for the kernel's
 * access_tracking_perf_test (2 vCPUs x 8 MiB, 4 KiB pages: 4096 pages; three MGLRU aging
 * passes, each one clear_young per page, 2560 of the 4096 pages touched again before each of
 * the last two): 12288 age calls of one page, 4096 + 2 x 2560 = 9216 of them young. The
 * test_prom.c recordings take the same (kw_test_aging_*()).
 */
#include <stdlib.h>

#include "test.h"
#include "compare.h"
#include "report.h"

#define PAGES 4096
#define CALLS (3 * PAGES)
#define YOUNG (PAGES + 2 * 2560)

/* What both arches share: the notifier calls and the trigger rows of the aging walks. */
static void aging_common(struct kw_recording *r, int age_probe, int visit_probe, __u64 age_ns)
{
	struct kw_func *f = &r->funcs[KW_P_NOTIFIER_CLEAR_YOUNG];

	for (int i = 0; i < CALLS; i++)
		kw_hist_add(&f->dur, age_ns + 1500);
	f->calls = CALLS;
	f = &r->funcs[age_probe];
	for (int i = 0; i < CALLS; i++)
		kw_hist_add(&f->dur, age_ns);
	f->calls = CALLS;
	r->counters[KW_C_AGE_CALLS] = CALLS;
	r->counters[KW_C_AGE_NS] = CALLS * age_ns;
	r->counters[KW_C_AGE_YOUNG_CALLS] = YOUNG;
	r->counters[KW_C_AGE_OLD] = YOUNG;
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_NOTIFIER_CLEAR_YOUNG, KW_T_AGING, 0, 300,
						    CALLS, CALLS * (age_ns + 1500), "", KW_MS_NONE });
	kw_recording_add_trig(
		r, &(struct kw_trig){ age_probe, KW_T_AGING, 0, 300, CALLS, CALLS * age_ns, "", KW_MS_NONE });
	if (visit_probe >= 0)
		kw_recording_add_trig(r, &(struct kw_trig){ visit_probe, KW_T_AGING, 0, 300,
							    r->funcs[visit_probe].calls, 0, "",
							    KW_MS_NONE });
}

/* arm64: one stage2_age_walker visit per call (a 4 KiB leaf), young as often as the call */
void kw_test_aging_arm64(struct kw_recording *r)
{
	for (int i = 0; i < CALLS; i++)
		kw_hist_add(&r->funcs[KW_P_S2_AGE].size, 4096);
	r->funcs[KW_P_AGE_WALKER].calls = CALLS;
	r->counters[KW_C_AGE_VISITS] = CALLS;
	r->counters[KW_C_AGE_YOUNG] = YOUNG;
	aging_common(r, KW_P_S2_AGE, KW_P_AGE_WALKER, 2500);
}

/*
 * x86: four iterator steps per call of one gfn (the PML4, PDPT, PD and PT entries); and one
 * khugepaged test_young of a page that was young: the test stops at its young leaf (7.3), three
 * steps.
 */
void kw_test_aging_x86(struct kw_recording *r)
{
	for (int i = 0; i < CALLS; i++)
		kw_hist_add(&r->funcs[KW_P_TDP_AGE].size, 1);
	r->counters[KW_C_AGE_VISITS] = 4 * CALLS;
	aging_common(r, KW_P_TDP_AGE, -1, 1800);
	kw_hist_add(&r->funcs[KW_P_TDP_TEST_AGE].dur, 900);
	kw_hist_add(&r->funcs[KW_P_TDP_TEST_AGE].size, 1);
	r->funcs[KW_P_TDP_TEST_AGE].calls = 1;
	r->funcs[KW_P_NOTIFIER_TEST_YOUNG].calls = 1;
	kw_hist_add(&r->funcs[KW_P_NOTIFIER_TEST_YOUNG].dur, 2000);
	r->counters[KW_C_TEST_AGE_CALLS] = 1;
	r->counters[KW_C_TEST_AGE_NS] = 900;
	r->counters[KW_C_TEST_AGE_YOUNG_CALLS] = 1;
	r->counters[KW_C_TEST_AGE_VISITS] = 3;
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_TDP_TEST_AGE, KW_T_AGING, 0, 41, 1, 900,
						    "", KW_MS_NONE });
}

static void recording(struct kw_recording *r, const char *arch, const char *mode)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "0.1");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "%s", arch);
	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "7.3.4+deb13-%s",
		 strcmp(arch, "x86") ? "arm64" : "amd64");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "%s", mode);
	snprintf(r->meta.started, sizeof(r->meta.started), "2026-12-07T10:00:00Z");
	r->meta.duration_s = 40;
	snprintf(r->meta.command, sizeof(r->meta.command),
		 "/kvmwalk/selftests/access_tracking_perf_test -v 2 -b 8M");
	r->meta.visits = true;
	snprintf(r->meta.attach, sizeof(r->meta.attach), "auto");
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, arch))
			continue;
		r->plan[i].mech = kw_probes[i].prog[KW_MECH_FENTRY][KW_ENTRY] ||
						  kw_probes[i].prog[KW_MECH_FENTRY][KW_EXIT]
					  ? KW_MECH_FENTRY
					  : KW_MECH_TRACEPOINT;
		snprintf(r->plan[i].func, sizeof(r->plan[i].func), "%s", kw_probes[i].name);
	}
	for (int i = 0; i < KW_NR_PF_RET; i++)
		snprintf(r->pf_ret_names[i], sizeof(r->pf_ret_names[i]), "%s",
			 i == KW_NR_PF_RET - 1 ? "other" : "");
}

static int text(FILE *f, const struct kw_recording *r)
{
	return kw_report_text(f, r, "aging.json");
}

void test_aging(void)
{
	struct kw_recording r;
	char err[256];

	recording(&r, "arm64", "vhe");
	kw_test_aging_arm64(&r);
	kw_recording_sort(&r);
	ASSERT_PRINTS(&r, text, "report-aging-arm64.txt", 80);
	ASSERT_PRINTS(&r, kw_report_json, "report-aging-arm64.json", 0);
	kw_recording_free(&r);

	recording(&r, "x86", "tdp");
	kw_test_aging_x86(&r);
	kw_recording_sort(&r);
	ASSERT_PRINTS(&r, text, "report-aging-x86.txt", 80);
	ASSERT_PRINTS(&r, kw_report_json, "report-aging-x86.json", 0);
	/* the tracepoint that counts what was made old is off: its line says so, the rest stays */
	r.plan[KW_P_SPTE_CHANGED].mech = KW_MECH_OFF;
	r.plan[KW_P_TDP_ITER_NEXT].mech = KW_MECH_OFF;
	ASSERT_PRINTS(&r, text, "report-aging-x86-novisits.txt", 80);
	kw_recording_free(&r);

	/* compare --metric takes the aging rows by name */
	ASSERT_EQ(kw_compare_check_names(NULL, "visits/age,made old/age,young/age", err,
					 sizeof(err)),
		  0, err);
}
