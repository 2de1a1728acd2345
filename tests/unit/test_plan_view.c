// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk probes` (plan_view.c) on a host that refuses fentry and has no kprobes, as the plan
 * says it: each distinct reason once, the rows pointing at it; the missing config named (not
 * libbpf's "No such file or directory"); the verdict last: what attaches, why the rest does not
 * and what to do about it. Golden: probes-no-kprobes.txt; the arm64 plan of a healthy nVHE host
 * is test_report.c's probes-arm64.txt.
 */
#include <stdlib.h>

#include "test.h"
#include "plan_view.h"
#include "probes.h"

#define WHY                                                                                        \
	"fentry load refused: Operation not permitted; no kprobes: this kernel is built "          \
	"without CONFIG_KPROBES"

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

void test_plan_view(void)
{
	struct kw_plan plan[KW_NR_PROBES] = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int unavail = 0;

	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_probe_desc *p = &kw_probes[i];
		struct kw_plan *pl = &plan[i];

		if (!kw_probe_in_arch(i, "arm64"))
			continue;
		if (i == KW_P_VCPU_IOCTL) {
			pl->mech = KW_MECH_OFF;
			snprintf(pl->func, sizeof(pl->func), "%s", p->func);
			snprintf(pl->reason, sizeof(pl->reason),
				 "counted with kvm_vm_ioctl's ioctl tracepoint");
		} else if (p->tp_name) {
			/* the fallback: attached, saying why not fentry or kprobe */
			pl->mech = KW_MECH_TRACEPOINT;
			snprintf(pl->func, sizeof(pl->func), "%s", p->tp_name);
			snprintf(pl->reason, sizeof(pl->reason), "%s", p->func ? WHY : "");
		} else {
			pl->mech = KW_MECH_UNAVAILABLE;
			/* as the loader names arm64's guest fault function */
			snprintf(pl->func, sizeof(pl->func), "%s",
				 i == KW_P_GUEST_FAULT ? "kvm_handle_guest_abort" : p->func ?: "");
			snprintf(pl->reason, sizeof(pl->reason), WHY);
			unavail++;
		}
	}
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	ASSERT_EQ(kw_plan_print(f, plan, "arm64", false), 0, "printed");
	fclose(f);
	ASSERT_GOLDEN(buf, len, "probes-no-kprobes.txt");
	ASSERT_TRUE(unavail > 10, "most probes unavailable");
	ASSERT_EQ(count(buf, "Operation not permitted;"), 1, "the reason said once");
	ASSERT_EQ(count(buf, "unavailable [1]"), unavail, "each unavailable row points at it");
	ASSERT_EQ(count(buf, "No such file or directory"), 0, "no ENOENT");
	ASSERT_TRUE(strstr(buf, "\nVerdict: "), "a verdict");
	ASSERT_TRUE(strstr(buf, "CONFIG_KPROBES=y"), "what to do: the config named");
	ASSERT_TRUE(kw_test_fits(strstr(buf, "\n\n") ?: buf, 80), "notes and verdict: 80 columns");
	free(buf);
}
