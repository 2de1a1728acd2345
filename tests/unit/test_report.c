// SPDX-License-Identifier: GPL-2.0
/* `kvmwalk report` and `kvmwalk probes` output, byte for byte, and the 80-column rule. */
#include <stdlib.h>

#include "test.h"
#include "fmt.h"
#include "plan_view.h"
#include "report.h"
#include "top.h"

void kw_test_recording_fixture(struct kw_recording *r);

typedef int (*printer)(FILE *f, const struct kw_recording *r);

static int text(FILE *f, const struct kw_recording *r)
{
	return kw_report_text(f, r, "split.json");
}

static int plan(FILE *f, const struct kw_recording *r)
{
	return kw_plan_print(f, r->plan, r->meta.arch, false);
}

static int plan_json(FILE *f, const struct kw_recording *r)
{
	return kw_plan_print(f, r->plan, r->meta.arch, true);
}

static int top(FILE *f, const struct kw_recording *r)
{
	return kw_top_render(f, NULL, r, 2, NULL);
}

static bool check(const struct kw_recording *r, printer fn, const char *golden, size_t width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool ok;

	if (!ASSERT_TRUE(f, golden))
		return false;
	ok = ASSERT_EQ(fn(f, r), 0, golden);
	fclose(f);
	ok = ok && ASSERT_GOLDEN(buf, len, golden);
	if (width)
		ok = ok && ASSERT_TRUE(kw_test_fits(buf, width), golden);
	free(buf);
	return ok;
}

/* --pid: the processes on the options line, wrapped within 80 columns however many there are */
static void report_pids(struct kw_recording *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	r->meta.pid_filter[0] = 116;
	r->meta.pid_filter[1] = 4242;
	r->meta.npid_filter = 2;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(
		strstr(buf, "\n  options   attach auto, pid 116, 4242, visits on, kvmwalk 0.1\n"),
		"two pids");
	free(buf);
	buf = NULL;
	for (__u32 i = 0; i < KW_MAX_PIDS; i++)
		r->meta.pid_filter[i] = 4194304 - i;
	r->meta.npid_filter = KW_MAX_PIDS;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(kw_test_fits(buf, 80), "64 pids: 80 columns");
	ASSERT_TRUE(strstr(buf, "pid 4194304, 4194303,") && strstr(buf, " 4194241, visits on,"),
		    "64 pids: all of them");
	free(buf);
	r->meta.npid_filter = 0;
}

/*
 * By trigger: each row's total time, "-" for a probe that times nothing (the split walker's
 * visits), long function names on a line of their own, within 80 columns with a 7-digit pid,
 * a 9-digit count and 7.3's KVM_SET_USER_MEMORY_REGION2.
 */
static void report_trigger_times(struct kw_recording *r)
{
	static const struct kw_trig rows[] = {
		{ KW_P_SPLIT_WALKER, KW_T_IOCTL, 0x40a0ae49, 4194304, 123456789, 0, "", KW_MS_NONE },
		{ KW_P_NOTIFIER, KW_T_NOTIFIER, 0, 4194304, 3, 1500000000, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x40a0ae49, 116, 2, 999, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x40a0ae49, 4194304, 123456789, 1500000000, "",
		  KW_MS_DIRTY_LOG_OFF },
		{ KW_P_MEMSLOT, KW_T_IOCTL, 0x40a0ae49, 4194304, 1, 1000, "", KW_MS_DIRTY_LOG_OFF },
	};
	char *buf = NULL, *p;
	size_t len = 0;
	size_t ntrigs = r->ntrigs;
	FILE *f;

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (!ASSERT_EQ(kw_recording_add_trig(r, &rows[i]), 0, "add a trigger row"))
			return;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(kw_test_fits(buf, 80), "by trigger: 80 columns");
	p = strstr(buf, "\nBy trigger\n");
	if (ASSERT_TRUE(p, "a By trigger section")) {
		ASSERT_TRUE(strstr(p, "\n  stage2_split_walker       KVM_SET_USER_MEMORY_REGION2 "
				      "4194304 123456789      -\n"),
			    "an untimed probe's row: -");
		ASSERT_TRUE(strstr(p, "\n  kvm_mmu_notifier_invalidate_range_start\n"
				      "                            mmu_notifier                "
				      "4194304         3  1.50s\n"),
			    "a long name on a line of its own, the total in seconds");
		ASSERT_TRUE(strstr(p, "\n  kvm_vm_ioctl              KVM_SET_USER_MEMORY_REGION2 "
				      "    116         2  999ns\n"),
			    "a timed row");
		ASSERT_TRUE(strstr(p, "\n  kvm_vm_ioctl              KVM_SET_USER_MEMORY_REGION2 "
				      "dirty_log_off\n"
				      "                                                        "
				      "4194304 123456789  1.50s\n"),
			    "a memslot operation after the ioctl, the numbers on the next line");
		ASSERT_TRUE(strstr(p, "\n  kvm_arch_prepare_memory_region\n"
				      "                            KVM_SET_USER_MEMORY_REGION2 "
				      "dirty_log_off\n"
				      "                                                        "
				      "4194304         1 1.00us\n"),
			    "a long name and a long trigger: three lines");
	}
	/* the memslot ioctls without an operation have a row of their own */
	p = strstr(buf, "\nMemslot operations");
	if (ASSERT_TRUE(p, "a Memslot operations section")) {
		ASSERT_TRUE(strstr(p, "\n  dirty_log_off        123456791     1.50s      12ns\n"),
			    "dirty_log_off: the fixture's 2 and 123456789 more");
		ASSERT_TRUE(strstr(p, "\n  none                         2     999ns     500ns\n"),
			    "none: 2 calls that changed nothing");
		ASSERT_TRUE(strstr(p, "included;\n  none: no change, or refused before "
				      "kvm_arch_prepare_memory_region\n"),
			    "what none means");
	}
	free(buf);
	r->ntrigs = ntrigs;
}

/* Runs the kernel skipped: a notice before the findings, bounds under the function, JSON. */
static void report_lost_runs(struct kw_recording *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	r->funcs[KW_P_PGT_WALK].lost_runs = 3;
	snprintf(r->meta.preempt, sizeof(r->meta.preempt), "lazy");
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(kw_test_fits(buf, 80), "lost runs: 80 columns");
	ASSERT_TRUE(strstr(buf, "\nLost runs: the kernel skipped 3 runs of kvmwalk's programs\n"
				"  (attach auto, preempt lazy). "),
		    "the notice names the runs, the attach mode and the preemption model");
	ASSERT_TRUE(strstr(buf, "\n    3 runs lost: calls 9402-9405, and what they count can be "
				"short\n"),
		    "the function's calls as a bound");
	ASSERT_TRUE(strstr(buf, "Lost runs:") < strstr(buf, "Findings:"), "before the findings");
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	kw_report_json(f, r);
	fclose(f);
	ASSERT_TRUE(strstr(buf, "\"lost_runs\": 3"), "--json: lost_runs");
	free(buf);
	r->funcs[KW_P_PGT_WALK].lost_runs = 0;
	r->meta.preempt[0] = 0;
}

/* Memslot operations without the probes that make them: one line, no table of zeros. */
static void report_memslot_missing(struct kw_recording *r)
{
	static const struct {
		int probe;
		enum kw_mech mech;
		const char *want;
	} cases[] = {
		{ KW_P_MEMSLOT, KW_MECH_UNAVAILABLE,
		  "\n  not known: kvm_arch_prepare_memory_region not attached (see Probes)\n" },
		{ KW_P_VM_IOCTL, KW_MECH_OFF,
		  "\n  not known: kvm_vm_ioctl not attached (see Probes)\n" },
		/* a recording made before the probe: no section at all */
		{ KW_P_MEMSLOT, KW_MECH_NONE, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum kw_mech was = r->plan[cases[i].probe].mech;
		char *buf = NULL, *p;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		if (!ASSERT_TRUE(f, "open_memstream"))
			return;
		r->plan[cases[i].probe].mech = cases[i].mech;
		kw_report_text(f, r, "split.json");
		fclose(f);
		r->plan[cases[i].probe].mech = was;
		p = strstr(buf, "\nMemslot operations");
		if (p && strstr(p + 1, "\n\n"))
			strstr(p + 1, "\n\n")[1] = 0; /* the section only */
		if (cases[i].want)
			ASSERT_TRUE(p && strstr(p, cases[i].want) && !strstr(p, "create"),
				    cases[i].want);
		else
			ASSERT_FALSE(p, "no section in an older recording");
		free(buf);
	}
}

/* --vm: a name no process carried is said on the vm filter line, within 80 columns */
static void report_vm_unseen(struct kw_recording *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	snprintf(r->meta.vm_filter[0], sizeof(r->meta.vm_filter[0]), "web01");
	snprintf(r->meta.vm_filter[1], sizeof(r->meta.vm_filter[1]), "nosuchvm");
	r->meta.nvm_filter = 2;
	snprintf(r->meta.vm_unseen[0], sizeof(r->meta.vm_unseen[0]), "nosuchvm");
	r->meta.nvm_unseen = 1;
	r->meta.vm_unseen_known = true;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(strstr(buf, "\n  vm filter web01, nosuchvm (no VM of that name was seen)\n"),
		    "the unseen name said");
	ASSERT_TRUE(kw_test_fits(buf, 80), "80 columns");
	free(buf);
	r->meta.nvm_filter = r->meta.nvm_unseen = 0;
	r->meta.vm_unseen_known = false;
}

void test_report(void)
{
	struct kw_recording r;
	char b[16];

	kw_test_recording_fixture(&r);
	check(&r, text, "report-split.txt", 80);
	check(&r, kw_report_json, "report-split.json", 0);
	check(&r, plan, "probes-arm64.txt", 0);
	check(&r, plan_json, "probes-arm64.json", 0);
	check(&r, top, "top-split.txt", 80);

	kw_fmt_ns(b, sizeof(b), 950);
	ASSERT_STREQ(b, "950ns", "fmt ns");
	kw_fmt_ns(b, sizeof(b), 12345);
	ASSERT_STREQ(b, "12.3us", "fmt us");
	kw_fmt_ns(b, sizeof(b), 1.2e9);
	ASSERT_STREQ(b, "1.20s", "fmt s");
	/* the rounded value picks the precision: never "10.00ms" (7 characters, seen in kw-all) */
	kw_fmt_ns(b, sizeof(b), 9.996e6);
	ASSERT_STREQ(b, "10.0ms", "fmt ms at a decade");
	kw_fmt_ns(b, sizeof(b), 999.7);
	ASSERT_STREQ(b, "1.00us", "fmt ns at the unit");
	kw_fmt_ns(b, sizeof(b), 99.96e3);
	ASSERT_STREQ(b, "100us", "fmt us at a decade");
	ASSERT_NEAR(kw_overhead_ns_per_run(&r), 30700000.0 / 47949, 1e-6, "ns per run");
	report_pids(&r);
	report_trigger_times(&r);
	report_lost_runs(&r);
	report_memslot_missing(&r);
	report_vm_unseen(&r);
	kw_recording_free(&r);
}
