// SPDX-License-Identifier: GPL-2.0
/*
 * The loader's planning (user/loader_plan.c) on a made-up host: a kallsyms file, a fake tracefs
 * tree, an available_filter_functions text and a fake fentry attach test. Each plan and reason
 * the probes and the user functions get, and the new plan after a refusal (verifier, attach,
 * missing trampoline). The probes used are those of both arches, so the test runs on either.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "host.h"
#include "loader_plan.h"

/* What the fake attach test refuses with, as the kernel's ENOTSUPP on Debian's arm64 6.1. */
#define REFUSED "fentry attach refused: Unknown error 524"

struct fake_host {
	const char *fentry_ok[4]; /* the functions whose fentry attach test passes */
	int tests;		  /* attach tests asked for */
	char mods[64];		  /* the module of each function tested, space-separated */
};

static int fake_fentry_test(void *ctx, const char *func, const char *mod, char *why, size_t len)
{
	struct fake_host *h = ctx;
	size_t n = strlen(h->mods);

	h->tests++;
	snprintf(h->mods + n, sizeof(h->mods) - n, "%s%s", n ? " " : "", mod);
	for (int i = 0; i < 4 && h->fentry_ok[i]; i++)
		if (!strcmp(h->fentry_ok[i], func))
			return 0;
	snprintf(why, len, REFUSED);
	return -524;
}

struct fixture {
	char dir[32];
	struct ksyms ks;
	struct kw_tracefs tracefs;
	struct loader_opts opts;
	struct fake_host host;
	struct kw_planner p;
	struct kw_plan plan[KW_NR_PROBES], uplan[KW_MAX_UFUNCS];
};

/* The probes of both arches (the test runs on either): the ones --probe selects here. */
static const kw_probe_mask both = KW_PROBE_BIT(KW_P_VM_IOCTL) | KW_PROBE_BIT(KW_P_VCPU_IOCTL) |
				  KW_PROBE_BIT(KW_P_NOTIFIER) | KW_PROBE_BIT(KW_P_GUEST_FAULT) |
				  KW_PROBE_BIT(KW_P_MM_RELEASE) | KW_PROBE_BIT(KW_P_MMU_LOCK);

static void fixture_fini(struct fixture *f)
{
	char cmd[64];

	ksyms__free(&f->ks);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	ASSERT_EQ(system(cmd), 0, "cleanup");
}

static bool fixture_init(struct fixture *f)
{
	/* no guest-fault function: absent from this kernel */
	const char syms[] = "ffffffffc0a01000 t kvm_vm_ioctl\t[kvm]\n"
			    "ffffffffc0a02000 t kvm_vcpu_ioctl\t[kvm]\n"
			    "ffffffffc0a03000 t kvm_mmu_notifier_invalidate_range_start\t[kvm]\n"
			    "ffffffffc0a04000 t kvm_mmu_notifier_release\t[kvm]\n";
	char path[96];
	FILE *fp;

	memset(f, 0, sizeof(*f));
	snprintf(f->dir, sizeof(f->dir), "/tmp/kw-plan-XXXXXX");
	if (!ASSERT_TRUE(mkdtemp(f->dir), "mkdtemp"))
		return false;
	snprintf(path, sizeof(path), "%s/kallsyms", f->dir);
	fp = fopen(path, "w");
	if (!ASSERT_TRUE(fp, "kallsyms"))
		goto fail;
	fputs(syms, fp);
	fclose(fp);
	if (!ASSERT_EQ(ksyms__load(&f->ks, path), 0, "ksyms"))
		goto fail;
	/* tracefs with the two tracepoints of the catalogue's probes of both arches */
	snprintf(f->tracefs.root, sizeof(f->tracefs.root), "%s/tracing", f->dir);
	for (const char *d = "tracing\0tracing/events\0tracing/events/syscalls\0"
			     "tracing/events/syscalls/sys_enter_ioctl\0tracing/events/lock\0"
			     "tracing/events/lock/contention_begin\0";
	     *d; d += strlen(d) + 1) {
		snprintf(path, sizeof(path), "%s/%s", f->dir, d);
		mkdir(path, 0755);
	}
	f->opts.attach = KW_ATTACH_AUTO;
	f->opts.probes = both;
	f->opts.visits = true;
	f->host.fentry_ok[0] = "kvm_mmu_notifier_invalidate_range_start";
	f->host.fentry_ok[1] = "kvm_vcpu_ioctl";
	f->p = (struct kw_planner){
		.opts = &f->opts,
		.ksyms = &f->ks,
		.tracefs = &f->tracefs,
		/* kvm_vm_ioctl is notrace here */
		.traceable = "kvm_vcpu_ioctl [kvm]\n"
			     "kvm_mmu_notifier_invalidate_range_start [kvm]\n"
			     "kvm_mmu_notifier_release [kvm]\n",
		.kvm_mode = "",
		.fentry_test = fake_fentry_test,
		.ctx = &f->host,
	};
	return true;
fail:
	fixture_fini(f);
	return false;
}

/* A plan's mechanism, function and reason, each failure at the caller's line. */
#define plan_is(pl, m, fn, why, what)                                                              \
	({                                                                                         \
		ASSERT_STREQ(kw_mech_name((pl)->mech), kw_mech_name(m), what);                     \
		ASSERT_STREQ((pl)->func, fn, what);                                                \
		ASSERT_STREQ((pl)->reason, why, what);                                             \
	})

/* --attach auto: fentry, else kprobe, else the tracepoint; and the probes not asked for */
static void test_auto(void)
{
	struct fixture f;
	int other = -1;

	if (!fixture_init(&f))
		return;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_FENTRY, "kvm_mmu_notifier_invalidate_range_start",
		"", "fentry test passed");
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_KPROBE, "kvm_mmu_notifier_release", REFUSED,
		"fentry refused: kprobe, saying why");
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_TRACEPOINT, "sys_enter_ioctl",
		REFUSED "; not traceable", "notrace: its tracepoint");
	plan_is(&f.plan[KW_P_VCPU_IOCTL], KW_MECH_OFF, "kvm_vcpu_ioctl",
		"counted with kvm_vm_ioctl's ioctl tracepoint", "counted by the ioctl tracepoint");
	plan_is(&f.plan[KW_P_GUEST_FAULT], KW_MECH_UNAVAILABLE, kw_probes[KW_P_GUEST_FAULT].func,
		"not in this kernel (/proc/kallsyms): absent or inlined", "absent");
	plan_is(&f.plan[KW_P_MMU_LOCK], KW_MECH_TRACEPOINT, "contention_begin", "",
		"tracepoint-only");
	/* vCPU ioctls were not tested: the VM ioctl tracepoint counts them */
	ASSERT_EQ(f.host.tests, 3, "attach tests");
	ASSERT_STREQ(f.host.mods, "kvm kvm kvm", "each function's module");
	for (int p = 0; p < KW_NR_PROBES && other < 0; p++)
		if (kw_probe_in_arch(p, kw_host_arch()) && !(both & KW_PROBE_BIT(p)))
			other = p;
	if (!ASSERT_TRUE(other >= 0, "a probe of this arch only"))
		goto out;
	plan_is(&f.plan[other], KW_MECH_OFF, kw_probes[other].func ?: "", "not selected (--probe)",
		"not asked for");
	f.opts.cheap = true;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[other], KW_MECH_OFF, kw_probes[other].func ?: "",
		"not in the cheap set (--probe all attaches it)", "not in the cheap set");
out:
	fixture_fini(&f);
}

/* No tracefs: the tracepoint fallback says why not (and how to mount it) */
static void test_no_tracefs(void)
{
	struct fixture f;
	char want[512];

	if (!fixture_init(&f))
		return;
	f.tracefs.root[0] = 0;
	snprintf(f.tracefs.why, sizeof(f.tracefs.why), "not mounted (mount -t tracefs ...)");
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl",
		REFUSED "; not traceable; tracepoint syscalls:sys_enter_ioctl: not mounted (mount "
			"-t tracefs ...)",
		"no tracefs");
	plan_is(&f.plan[KW_P_VCPU_IOCTL], KW_MECH_FENTRY, "kvm_vcpu_ioctl", "",
		"vCPU ioctls planned");
	/* a tracepoint-only probe is left to the attach */
	plan_is(&f.plan[KW_P_MMU_LOCK], KW_MECH_TRACEPOINT, "contention_begin", "",
		"tracepoint-only");

	/* a kprobe refused at attach time: its tracepoint cannot be used either */
	f.plan[KW_P_VM_IOCTL].mech = KW_MECH_KPROBE;
	snprintf(f.plan[KW_P_VM_IOCTL].func, sizeof(f.plan[0].func), "kvm_vm_ioctl");
	snprintf(f.plan[KW_P_VM_IOCTL].reason, sizeof(f.plan[0].reason), "why");
	ASSERT_FALSE(kw_plan_attach_refused(&f.p, KW_P_VM_IOCTL, &f.plan[KW_P_VM_IOCTL], -ENOENT),
		     "nothing to load again");
	snprintf(want, sizeof(want),
		 "why; kprobe attach refused: %s; tracepoint syscalls:sys_enter_ioctl: not mounted "
		 "(mount -t tracefs ...)",
		 strerror(ENOENT));
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl", want,
		"kprobe refused, no tracefs");
	fixture_fini(&f);
}

/* --attach fentry and --attach kprobe: one mechanism, no fallback but tracepoint-only probes */
static void test_forced(void)
{
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.opts.attach = KW_ATTACH_FENTRY;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_UNAVAILABLE, "kvm_mmu_notifier_release", REFUSED,
		"fentry only");
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl", REFUSED,
		"fentry only: no tracepoint");
	plan_is(&f.plan[KW_P_VCPU_IOCTL], KW_MECH_FENTRY, "kvm_vcpu_ioctl", "", "fentry only");
	plan_is(&f.plan[KW_P_MMU_LOCK], KW_MECH_TRACEPOINT, "contention_begin", "",
		"a tracepoint-only probe under a forced mode");

	f.opts.attach = KW_ATTACH_KPROBE;
	f.host.tests = 0;
	kw_plan_all(&f.p, f.plan, f.uplan);
	ASSERT_EQ(f.host.tests, 0, "kprobe only: no attach test");
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_KPROBE, "kvm_mmu_notifier_invalidate_range_start",
		"", "kprobe only");
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl", "not traceable",
		"kprobe only, notrace");
	fixture_fini(&f);
}

/* --no-visits leaves out the per-entry callbacks, but for kvm_tdp_mmu_spte_changed */
static void test_visits(void)
{
	struct fixture f;
	int per_entry = -1;

	for (int p = 0; p < KW_NR_PROBES && per_entry < 0; p++)
		if (kw_probes[p].per_entry && p != KW_P_SPTE_CHANGED &&
		    kw_probe_in_arch(p, kw_host_arch()))
			per_entry = p;
	if (!ASSERT_TRUE(per_entry >= 0, "a per-entry probe of this arch") || !fixture_init(&f))
		return;
	f.opts.visits = false;
	f.opts.probes = KW_PROBES_ALL;
	ASSERT_TRUE(kw_plan_wanted(&f.opts, KW_P_VM_IOCTL), "not per-entry");
	ASSERT_FALSE(kw_plan_wanted(&f.opts, per_entry), "per-entry");
	ASSERT_TRUE(kw_plan_wanted(&f.opts, KW_P_SPTE_CHANGED), "the SPTE tracepoint stays");
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[per_entry], KW_MECH_OFF, kw_probes[per_entry].func ?: "",
		"per-entry callback left out (--no-visits)", "--no-visits");
	fixture_fini(&f);
}

/* --count / --time: the same rules in the user's terms */
static void test_ufuncs(void)
{
	static const char *const names[] = { "kvm_vcpu_ioctl", "kvm_mmu_notifier_release",
					     "no_such_function", "kvm_vm_ioctl" };
	struct fixture f;

	if (!fixture_init(&f))
		return;
	for (unsigned int s = 0; s < 4; s++)
		snprintf(f.opts.ufuncs[s].name, sizeof(f.opts.ufuncs[s].name), "%s", names[s]);
	f.opts.nufuncs = 4;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.uplan[0], KW_MECH_FENTRY, "kvm_vcpu_ioctl", "", "fentry");
	plan_is(&f.uplan[1], KW_MECH_KPROBE, "kvm_mmu_notifier_release", REFUSED, "kprobe");
	plan_is(&f.uplan[2], KW_MECH_UNAVAILABLE, "no_such_function",
		"not in this kernel: not in /proc/kallsyms (a misspelt name, a function of a "
		"module that is not loaded, or one inlined into every caller)",
		"not in kallsyms");
	plan_is(&f.uplan[3], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl",
		"not traceable: in /proc/kallsyms but not in tracing/available_filter_functions "
		"(notrace, or not patchable by ftrace)",
		"notrace");
	f.opts.attach = KW_ATTACH_FENTRY;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.uplan[1], KW_MECH_UNAVAILABLE, "kvm_mmu_notifier_release",
		REFUSED " (--attach fentry)", "fentry only");
	fixture_fini(&f);
}

/* The programs of a plan: the catalogue's for a probe, fe_ufnN ... for a user function */
static void test_progs(void)
{
	struct kw_plan pl = { .mech = KW_MECH_FENTRY };
	char names[KW_NR_ENDS][16];

	ASSERT_TRUE(kw_plan_progs(&pl, KW_P_VM_IOCTL) ==
			    kw_probes[KW_P_VM_IOCTL].prog[KW_MECH_FENTRY],
		    "fentry programs");
	pl.mech = KW_MECH_UNAVAILABLE;
	ASSERT_TRUE(!kw_plan_progs(&pl, KW_P_VM_IOCTL), "none");
	ASSERT_FALSE(kw_plan_ufunc_progs(&pl, 3, true, names), "unavailable: none");
	pl.mech = KW_MECH_KPROBE;
	if (ASSERT_TRUE(kw_plan_ufunc_progs(&pl, 3, false, names), "kprobe")) {
		ASSERT_STREQ(names[KW_ENTRY], "kp_ufn3", "--count: entry");
		ASSERT_STREQ(names[KW_EXIT], "", "--count: no exit");
	}
	pl.mech = KW_MECH_FENTRY;
	if (ASSERT_TRUE(kw_plan_ufunc_progs(&pl, 7, true, names), "fentry")) {
		ASSERT_STREQ(names[KW_ENTRY], "fe_ufn7", "--time: entry");
		ASSERT_STREQ(names[KW_EXIT], "fx_ufn7", "--time: exit");
	}
}

/* A tracefs list: the name as the first word of a line */
static void test_tramp_listed(void)
{
	/* as kernel/trace/ftrace.c t_show() prints them: the direct call on a line of its own */
	const char *text = "kvm_vcpu_ioctl [kvm] (1)  R   D   M \ttramp: 0xffffffffc0a01000 "
			   "(call_direct_funcs+0x0/0x20) ->call_direct_funcs+0x0/0x20\n"
			   "\tdirect-->bpf_trampoline_6442525360+0x0/0x1c0\n"
			   "kvm_vm_ioctl [kvm] (1)  R I    \ttramp: 0xffffffffc0a02000 "
			   "(kprobe_ftrace_handler+0x0/0x1f0) ->kprobe_ftrace_handler+0x0/0x1f0\n";

	ASSERT_TRUE(kw_plan_tramp_listed(text, "kvm_vcpu_ioctl"), "a BPF trampoline on it");
	ASSERT_FALSE(kw_plan_tramp_listed(text, "kvm_vm_ioctl"), "a kprobe event's ops only");
	ASSERT_FALSE(kw_plan_tramp_listed(text, "kvm_vcpu"), "a word, not a prefix");
	ASSERT_FALSE(kw_plan_tramp_listed(text, "fast_page_fault"), "absent");
	ASSERT_TRUE(kw_plan_tramp_listed("fast_page_fault [kvm] (1)  R   D \n"
					 "\tdirect(jmp)-->bpf_trampoline_1+0x0/0x1c0\n",
					 "fast_page_fault"),
		    "7.3's direct(jmp)");
}

static void test_listed(void)
{
	const char *enabled = "kvm_vcpu_ioctl [kvm] (1) R   D   tramp: 0xffffffffc0c05000 "
			      "(bpf_trampoline_6442470843+0x0) ->direct-->bpf_trampoline\n"
			      "xkvm_vm_ioctl\nkvm_vm_ioctl_x [kvm]\n"
			      "kvm_mmu_notifier_release\tx\ntdp_iter_next";

	ASSERT_TRUE(kw_plan_listed(enabled, "kvm_vcpu_ioctl"), "enabled_functions line");
	ASSERT_FALSE(kw_plan_listed(enabled, "kvm_vm_ioctl"), "a word's prefix or suffix");
	ASSERT_TRUE(kw_plan_listed(enabled, "kvm_mmu_notifier_release"), "a tab after the name");
	ASSERT_TRUE(kw_plan_listed(enabled, "tdp_iter_next"), "the last line, no newline");
	ASSERT_FALSE(kw_plan_listed("", "tdp_iter_next"), "empty");
}

/* The new plan after the kernel refused: at load, at attach, and a missing trampoline */
static void test_refused(void)
{
	struct fixture f;
	char want[384];
	const char *prog = kw_probes[KW_P_NOTIFIER].prog[KW_MECH_FENTRY][KW_ENTRY];

	if (!fixture_init(&f))
		return;
	snprintf(f.opts.ufuncs[0].name, sizeof(f.opts.ufuncs[0].name), "kvm_vcpu_ioctl");
	snprintf(f.opts.ufuncs[1].name, sizeof(f.opts.ufuncs[1].name), "kvm_vm_ioctl");
	f.opts.nufuncs = 2;
	kw_plan_all(&f.p, f.plan, f.uplan);

	/* the verifier */
	kw_plan_load_refused(&f.p, f.plan, f.uplan, prog, -EACCES);
	snprintf(want, sizeof(want), "verifier refused %s: %s (run with -v)", prog,
		 strerror(EACCES));
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_UNAVAILABLE,
		"kvm_mmu_notifier_invalidate_range_start", want, "verifier: a probe's program");
	kw_plan_load_refused(&f.p, f.plan, f.uplan, "fe_ufn0", -EINVAL);
	snprintf(want, sizeof(want), "verifier refused fe_ufn0: %s (run with -v)",
		 strerror(EINVAL));
	plan_is(&f.uplan[0], KW_MECH_UNAVAILABLE, "kvm_vcpu_ioctl", want,
		"verifier: a user function's");
	kw_plan_load_refused(&f.p, f.plan, f.uplan, "fe_ufn", -EINVAL);
	kw_plan_load_refused(&f.p, f.plan, f.uplan, "fe_ufn9", -EINVAL);
	plan_is(&f.uplan[1], KW_MECH_UNAVAILABLE, "kvm_vm_ioctl",
		"not traceable: in /proc/kallsyms but not in tracing/available_filter_functions "
		"(notrace, or not patchable by ftrace)",
		"no such user function's program: no change");

	/* attaching: an fentry refused is unavailable; a kprobe moves to its tracepoint */
	kw_plan_all(&f.p, f.plan, f.uplan);
	ASSERT_FALSE(kw_plan_attach_refused(&f.p, KW_P_NOTIFIER, &f.plan[KW_P_NOTIFIER], -EBUSY),
		     "fentry refused");
	snprintf(want, sizeof(want), "fentry attach refused: %s", strerror(EBUSY));
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_UNAVAILABLE,
		"kvm_mmu_notifier_invalidate_range_start", want, "fentry refused: unavailable");
	ASSERT_FALSE(
		kw_plan_attach_refused(&f.p, KW_P_MM_RELEASE, &f.plan[KW_P_MM_RELEASE], -ENOENT),
		"a kprobe without a tracepoint");
	snprintf(want, sizeof(want), REFUSED "; kprobe attach refused: %s", strerror(ENOENT));
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_UNAVAILABLE, "kvm_mmu_notifier_release", want,
		"kprobe refused: unavailable");
	f.plan[KW_P_VM_IOCTL].mech = KW_MECH_KPROBE;
	snprintf(f.plan[KW_P_VM_IOCTL].func, sizeof(f.plan[0].func), "kvm_vm_ioctl");
	f.plan[KW_P_VM_IOCTL].reason[0] = 0;
	f.plan[KW_P_VCPU_IOCTL].mech = KW_MECH_KPROBE;
	ASSERT_TRUE(kw_plan_attach_refused(&f.p, KW_P_VM_IOCTL, &f.plan[KW_P_VM_IOCTL], -ENOENT),
		    "to the tracepoint: load again");
	snprintf(want, sizeof(want), "kprobe attach refused: %s", strerror(ENOENT));
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_TRACEPOINT, "sys_enter_ioctl", want,
		"kprobe refused: its tracepoint");
	ASSERT_TRUE(kw_plan_ioctl_tracepoint(f.plan), "vCPU ioctls: off now");
	plan_is(&f.plan[KW_P_VCPU_IOCTL], KW_MECH_OFF, "kvm_vcpu_ioctl",
		"counted with kvm_vm_ioctl's ioctl tracepoint", "counted by the ioctl tracepoint");
	ASSERT_FALSE(kw_plan_ioctl_tracepoint(f.plan), "already off");

	/* user functions: a refused fentry tries kprobes (auto), a refused kprobe is unavailable */
	f.uplan[0].mech = KW_MECH_FENTRY;
	ASSERT_TRUE(kw_plan_ufunc_attach_refused(&f.p, 0, &f.uplan[0], -EBUSY), "to kprobes");
	snprintf(want, sizeof(want), "fentry attach refused: %s", strerror(EBUSY));
	plan_is(&f.uplan[0], KW_MECH_KPROBE, "kvm_vcpu_ioctl", want, "fentry refused: kprobe");
	ASSERT_FALSE(kw_plan_ufunc_attach_refused(&f.p, 0, &f.uplan[0], -ENOENT), "unavailable");
	snprintf(want, sizeof(want), "fentry attach refused: %s; kprobe attach refused: %s",
		 strerror(EBUSY), strerror(ENOENT));
	plan_is(&f.uplan[0], KW_MECH_UNAVAILABLE, "kvm_vcpu_ioctl", want, "kprobe refused");

	/* fentry attached without its trampoline: a kprobe where one can be */
	f.plan[KW_P_MM_RELEASE].mech = KW_MECH_FENTRY;
	ASSERT_TRUE(kw_plan_no_trampoline(&f.p, KW_P_MM_RELEASE, &f.plan[KW_P_MM_RELEASE]),
		    "to kprobes");
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_KPROBE, "kvm_mmu_notifier_release",
		"fentry attached but its trampoline is not on kvm_mmu_notifier_release (not in "
		"tracing/enabled_functions)",
		"no trampoline: kprobe");
	snprintf(f.plan[KW_P_VM_IOCTL].func, sizeof(f.plan[0].func), "kvm_vm_ioctl");
	ASSERT_FALSE(kw_plan_no_trampoline(&f.p, KW_P_VM_IOCTL, &f.plan[KW_P_VM_IOCTL]),
		     "notrace: no kprobe");
	ASSERT_EQ(f.plan[KW_P_VM_IOCTL].mech, KW_MECH_UNAVAILABLE, "notrace: unavailable");
	f.opts.attach = KW_ATTACH_FENTRY;
	ASSERT_FALSE(kw_plan_ufunc_no_trampoline(&f.p, 0, &f.uplan[0]), "--attach fentry");
	plan_is(&f.uplan[0], KW_MECH_UNAVAILABLE, "kvm_vcpu_ioctl",
		"fentry attached but its trampoline is not on kvm_vcpu_ioctl (not in "
		"tracing/enabled_functions)",
		"no trampoline, --attach fentry: unavailable");
	fixture_fini(&f);
}

/*
 * A preemptible kernel: kprobes first under --attach auto (a preempted fentry program makes the
 * same program's runs on that CPU skip), fentry when no kprobe attaches; --attach fentry and a
 * voluntary kernel keep fentry first.
 */
static void test_preemptible(void)
{
	const char *why = "preemptible kernel: fentry runs could be lost";
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.p.preempt = "lazy";
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_KPROBE, "kvm_mmu_notifier_invalidate_range_start",
		why, "lazy: kprobe though fentry attaches");
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_KPROBE, "kvm_mmu_notifier_release", why,
		"lazy: kprobe");
	/* only kvm_vm_ioctl, notrace here: no kprobe can attach, fentry is tested */
	ASSERT_EQ(f.host.tests, 1, "no fentry attach test where kprobes come first");
	/* the kernel refuses the kprobe (no CONFIG_KPROBES): fentry, saying runs can be lost */
	ASSERT_TRUE(kw_plan_attach_refused(&f.p, KW_P_NOTIFIER, &f.plan[KW_P_NOTIFIER], -ENOENT),
		    "refused kprobe: load again");
	ASSERT_EQ(f.plan[KW_P_NOTIFIER].mech, KW_MECH_FENTRY, "refused kprobe: fentry");
	ASSERT_TRUE(strstr(f.plan[KW_P_NOTIFIER].reason, "runs can be lost"), "and says so");
	f.p.preempt = "";
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_KPROBE, "kvm_mmu_notifier_invalidate_range_start",
		"preemption model unknown: fentry runs could be lost", "unknown: as preemptible");
	f.p.preempt = "voluntary";
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_FENTRY, "kvm_mmu_notifier_invalidate_range_start",
		"", "voluntary: fentry first");
	f.p.preempt = "full";
	f.opts.attach = KW_ATTACH_FENTRY;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_FENTRY, "kvm_mmu_notifier_invalidate_range_start",
		"", "--attach fentry: fentry, whatever the kernel");
	fixture_fini(&f);
}

/*
 * A kernel without CONFIG_KPROBES: no kprobe is planned, even first on a preemptible kernel, and
 * the reason names the config instead of libbpf's "No such file or directory".
 */
static void test_no_kprobes(void)
{
	struct fixture f;

	if (!fixture_init(&f))
		return;
	f.p.no_kprobes = true;
	f.p.preempt = "full";
	snprintf(f.opts.ufuncs[0].name, sizeof(f.opts.ufuncs[0].name), "kvm_mmu_notifier_release");
	f.opts.nufuncs = 1;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_FENTRY, "kvm_mmu_notifier_invalidate_range_start",
		"", "fentry, though preemptible: no kprobe to take first");
	plan_is(&f.plan[KW_P_MM_RELEASE], KW_MECH_UNAVAILABLE, "kvm_mmu_notifier_release",
		REFUSED "; no kprobes: this kernel is built without CONFIG_KPROBES",
		"fentry refused, no kprobes: the config named");
	plan_is(&f.plan[KW_P_VM_IOCTL], KW_MECH_TRACEPOINT, "sys_enter_ioctl",
		REFUSED "; no kprobes: this kernel is built without CONFIG_KPROBES",
		"its tracepoint, saying why");
	plan_is(&f.uplan[0], KW_MECH_UNAVAILABLE, "kvm_mmu_notifier_release",
		REFUSED "; no kprobes: this kernel is built without CONFIG_KPROBES",
		"a user function: the config named");
	f.opts.attach = KW_ATTACH_KPROBE;
	kw_plan_all(&f.p, f.plan, f.uplan);
	plan_is(&f.plan[KW_P_NOTIFIER], KW_MECH_UNAVAILABLE,
		"kvm_mmu_notifier_invalidate_range_start",
		"no kprobes: this kernel is built without CONFIG_KPROBES", "--attach kprobe");
	fixture_fini(&f);
}

void test_loader_plan(void)
{
	test_preemptible();
	test_auto();
	test_no_tracefs();
	test_forced();
	test_no_kprobes();
	test_visits();
	test_ufuncs();
	test_progs();
	test_listed();
	test_tramp_listed();
	test_refused();
}
