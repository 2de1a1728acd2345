// SPDX-License-Identifier: GPL-2.0
/* `kvmwalk report` and `kvmwalk probes` output, byte for byte, and the 80-column rule. */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "fmt.h"
#include "plan_view.h"
#include "report.h"
#include "top.h"

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
				      "4194304      123M      -\n"),
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
				      "4194304      123M  1.50s\n"),
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
		ASSERT_TRUE(strstr(p, "\n  dirty_log_off             123M     1.50s      12ns\n"),
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

/* Runs the kernel skipped: a notice in the header, before the findings, bounds under the function, JSON. */
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
	ASSERT_TRUE(strstr(buf, "\n  lost      3 runs of kvmwalk's programs, skipped by the kernel "
				"(attach auto,\n            preempt lazy): the counts of "),
		    "the notice names the runs, the attach mode and the preemption model");
	ASSERT_TRUE(strstr(buf, "\n    3 runs lost: calls 9,402-9,405, and what they count can be "
				"short\n"),
		    "the function's calls as a bound");
	ASSERT_TRUE(strstr(buf, "\n  lost ") < strstr(buf, "Findings:"),
		    "in the header, before the findings");
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
/*
 * kvm_nested_s2_unmap without kvm_pgtable_stage2_unmap (the timing set): which calls unmapped a
 * nested MMU is not known, never "none" (that needs the unmap calls' probe).
 */
static void report_nested_timing(struct kw_recording *r)
{
	enum kw_mech was[2] = { r->plan[KW_P_NESTED_UNMAP].mech, r->plan[KW_P_S2_UNMAP].mech };
	__u64 calls = r->funcs[KW_P_NESTED_UNMAP].calls, active = r->counters[KW_C_NESTED_ACTIVE];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	r->plan[KW_P_NESTED_UNMAP].mech = KW_MECH_FENTRY;
	r->plan[KW_P_S2_UNMAP].mech = KW_MECH_OFF;
	r->funcs[KW_P_NESTED_UNMAP].calls = 5;
	r->counters[KW_C_NESTED_ACTIVE] = 0;
	kw_report_text(f, r, "split.json");
	fclose(f);
	ASSERT_TRUE(strstr(buf, "\nNested stage-2 unmaps (kvm_nested_s2_unmap)\n"
				"  not known: kvm_pgtable_stage2_unmap not attached (see Probes)\n"),
		    "timing set: not known");
	ASSERT_TRUE(!strstr(buf, "none with a valid nested MMU"), "timing set: never none");
	free(buf);
	r->plan[KW_P_NESTED_UNMAP].mech = was[0];
	r->plan[KW_P_S2_UNMAP].mech = was[1];
	r->funcs[KW_P_NESTED_UNMAP].calls = calls;
	r->counters[KW_C_NESTED_ACTIVE] = active;
}

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

/*
 * issue 36: the shape of a report. The findings come after a header of at most max_head lines
 * (its title line included);
 * no section heading stands with nothing under it (a line after an empty one is a heading: the
 * next line must be text); an arm64 report never says "x86". Shared with test_conditions.c.
 */
bool kw_test_report_shape(const char *buf, const char *arch, int max_head, const char *what)
{
	const char *findings = strstr(buf, "\nFindings:"), *p;
	bool ok = true;
	int lines = 0;

	if (!ASSERT_TRUE(findings, what))
		return false;
	for (p = buf; p < findings; p++)
		lines += *p == '\n';
	/* lines: the header's (the title line and its items); an empty line, then Findings */
	if (lines > max_head) {
		kw_test_report(false, __FILE__, __LINE__, what, "Findings at line %d, want <= %d",
			       lines + 2, max_head + 2);
		ok = false;
	}
	for (p = strstr(buf, "\n\n"); p; p = strstr(p + 1, "\n\n")) {
		const char *title = p + 2, *end = strchr(title, '\n');

		if (!*title || *title == '\n')
			continue;
		if (!end || !end[1] || end[1] == '\n') {
			kw_test_report(false, __FILE__, __LINE__, what,
				       "a heading with nothing under it: \"%.*s\"",
				       (int)(end ? end - title : (long)strlen(title)), title);
			ok = false;
		}
	}
	if (!strcmp(arch, "arm64") && strstr(buf, "x86")) {
		kw_test_report(false, __FILE__, __LINE__, what, "\"x86\" in an arm64 report: %.60s",
			       strstr(buf, "x86"));
		ok = false;
	}
	return ok;
}

static char *report_of(const struct kw_recording *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	kw_report_text(f, r, "host.json");
	fclose(f);
	return buf;
}

/*
 * A real host's recording: a kernel command line of 900 bytes, 80 KVM parameters and a long
 * command. The header stays short (the command cut to two lines), the findings come right after
 * it, and all of the rest is further down, in full.
 */
static void report_host_like(struct kw_recording *r)
{
	struct kw_meta was = r->meta;
	size_t nparams = r->meta.nparams, len = 0;
	char *buf, *findings, name[32], *p;

	r->meta.cmdline[0] = 0;
	for (int i = 0; strlen(r->meta.cmdline) < 900; i++)
		snprintf(r->meta.cmdline + strlen(r->meta.cmdline),
			 sizeof(r->meta.cmdline) - strlen(r->meta.cmdline), "%sopt%d=value%d",
			 i ? " " : "", i, i);
	snprintf(r->meta.cmdline + strlen(r->meta.cmdline),
		 sizeof(r->meta.cmdline) - strlen(r->meta.cmdline), " last-boot-option");
	for (int i = 0; i < 80; i++) {
		snprintf(name, sizeof(name), "kvm_intel.param%d", i);
		kw_recording_add_param(r, name, "Y");
	}
	snprintf(r->meta.hostname, sizeof(r->meta.hostname), "compute-17.rack4.example.org");
	r->meta.command[0] = 0;
	for (int i = 0; strlen(r->meta.command) < 400; i++)
		snprintf(r->meta.command + strlen(r->meta.command),
			 sizeof(r->meta.command) - strlen(r->meta.command), "%s--flag-%d", i ? " " : "",
			 i);
	snprintf(r->meta.command + strlen(r->meta.command),
		 sizeof(r->meta.command) - strlen(r->meta.command), " --the-end");
	buf = report_of(r, &len);
	if (!ASSERT_TRUE(buf, "report"))
		goto out;
	ASSERT_TRUE(kw_test_fits(buf, 80), "host-like: 80 columns");
	/* the title, kernel, host, recorded, the command on two lines */
	kw_test_report_shape(buf, "arm64", 6, "host-like: findings after a 6-line header");
	findings = strstr(buf, "\nFindings:");
	if (!findings)
		goto out;
	ASSERT_TRUE(strstr(buf, "\n  host      compute-17.rack4.example.org\n"), "the host's name");
	p = strstr(buf, "\n  command   --flag-0 --flag-1 ");
	ASSERT_TRUE(p && p < findings && strstr(p, " ...\n") < findings,
		    "the command in the header, cut");
	ASSERT_FALSE(strstr(buf, "opt0=value0") < findings, "no command line before the findings");
	ASSERT_FALSE(strstr(buf, "kvm_intel.param0") < findings, "no KVM parameter before them");
	p = strstr(findings, "\nRecording\n");
	ASSERT_TRUE(p && strstr(p, "\n  command   --flag-0 --flag-1 ") &&
			    strstr(p, " --the-end\n  options "),
		    "all of the command under Recording");
	p = strstr(findings, "\nTest conditions");
	ASSERT_TRUE(p && strstr(p, "\n  cmdline          opt0=value0 ") &&
			    strstr(p, " last-boot-option\n"),
		    "all of the kernel command line under Test conditions");
	ASSERT_TRUE(p && strstr(p, "kvm_intel.param0=Y") && strstr(p, "kvm_intel.param79=Y"),
		    "every KVM parameter under Test conditions");
out:
	free(buf);
	/* the parameters were reallocated: keep the new array, the fixture's count */
	was.params = r->meta.params;
	r->meta = was;
	r->meta.nparams = nparams;
}

/*
 * A recording in which nothing happened: no section heading stands alone (Sizes, the probe
 * table of Probe overhead, a process with no call in By VM).
 */
static void report_idle(struct kw_recording *r)
{
	struct kw_recording idle = *r;
	struct kw_vm vm = { .pid = 4242 };
	size_t len = 0;
	char *buf;

	memset(idle.funcs, 0, sizeof(idle.funcs));
	memset(idle.counters, 0, sizeof(idle.counters));
	memset(idle.visits, 0, sizeof(idle.visits));
	memset(&idle.unmap_cleared, 0, sizeof(idle.unmap_cleared));
	idle.ncbs = idle.ntrigs = idle.nintervals = 0;
	idle.overhead.run_cnt = idle.overhead.run_ns = 0;
	idle.vms = NULL;
	idle.nvms = 0;
	snprintf(vm.comm, sizeof(vm.comm), "qemu-system-aar");
	if (!ASSERT_EQ(kw_recording_add_vm(&idle, &vm), 0, "a VM process"))
		return;
	buf = report_of(&idle, &len);
	if (ASSERT_TRUE(buf, "report")) {
		kw_test_report_shape(buf, "arm64", 6, "idle");
		ASSERT_FALSE(strstr(buf, "\nSizes\n"), "no Sizes heading without a size");
		ASSERT_FALSE(strstr(buf, "per run      total\n  lost:"),
			     "no probe table heading without a probe run");
		ASSERT_FALSE(strstr(buf, "\n  - (pid 4242"), "no heading for a process with no call");
		ASSERT_TRUE(strstr(buf, "\n     4242 qemu-system-aar"), "but its row in the table");
	}
	free(buf);
	free(idle.vms);
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
	ASSERT_PRINTS(&r, text, "report-split.txt", 80);
	ASSERT_PRINTS(&r, kw_report_json, "report-split.json", 0);
	ASSERT_PRINTS(&r, plan, "probes-arm64.txt", 0);
	ASSERT_PRINTS(&r, plan_json, "probes-arm64.json", 0);
	ASSERT_PRINTS(&r, top, "top-split.txt", 80);

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
	report_nested_timing(&r);
	{
		size_t len = 0;
		char *buf = report_of(&r, &len);

		if (ASSERT_TRUE(buf, "report"))
			kw_test_report_shape(buf, "arm64", 6, "report-split.txt");
		free(buf);
	}
	report_host_like(&r);
	report_idle(&r);
	report_vm_unseen(&r);
	kw_recording_free(&r);
}
