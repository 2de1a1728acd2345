// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: probing. The loader's planning (loader_plan.h): per probe and per user function, the
 * mechanism (fentry/fexit after a real attach test, else kprobe/kretprobe, else a tracepoint,
 * else unavailable) and the reason, and the new plan after a refusal. Plain C on what the loader
 * read of the host; the attach test is the caller's: no libbpf here, unit-tested.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host.h"
#include "loader_plan.h"

static void set_plan(struct kw_plan *pl, enum kw_mech mech, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_plan(struct kw_plan *pl, enum kw_mech mech, const char *func, const char *fmt, ...)
{
	va_list ap;

	pl->mech = mech;
	snprintf(pl->func, sizeof(pl->func), "%s", func ? func : "");
	va_start(ap, fmt);
	vsnprintf(pl->reason, sizeof(pl->reason), fmt, ap);
	va_end(ap);
}

/* Appends "; what" (or "what" to an empty reason) to a reason being built. */
static void add_reason(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_reason(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n && n + 2 < len) {
		snprintf(why + n, len - n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

bool kw_plan_listed(const char *text, const char *func)
{
	size_t n = strlen(func);

	for (const char *p = text; (p = strstr(p, func)); p += n)
		if ((p == text || p[-1] == '\n') &&
		    (!p[n] || p[n] == '\n' || p[n] == ' ' || p[n] == '\t'))
			return true;
	return false;
}

bool kw_plan_tramp_listed(const char *text, const char *func)
{
	size_t n = strlen(func);

	for (const char *p = text; (p = strstr(p, func)); p += n) {
		const char *e = p;

		if (!(p == text || p[-1] == '\n') || !(p[n] == ' ' || p[n] == '\t'))
			continue;
		/* the function's line and the tab-indented lines ftrace prints under it */
		do {
			e += strcspn(e, "\n");
		} while (e[0] == '\n' && e[1] == '\t' && e++);
		/* 6.12 prints "direct-->", 7.3 "direct-->" or "direct(jmp)-->" */
		if (memmem(p, e - p, "\tdirect", 7))
			return true;
	}
	return false;
}

static bool is_traceable(const struct kw_planner *p, const char *func)
{
	/* tracefs not mounted: let the attach decide */
	return !p->traceable || kw_plan_listed(p->traceable, func);
}

static bool tracepoint_exists(const struct kw_planner *p, const char *cat, const char *name)
{
	char path[256];

	if (!*cat)
		return true; /* raw tracepoints need no tracefs: the attach decides */
	if (!p->tracefs->root[0])
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", p->tracefs->root, cat, name);
	return !access(path, F_OK);
}

bool kw_plan_wanted(const struct loader_opts *o, int probe)
{
	if (!o->visits && kw_probes[probe].per_entry && probe != KW_P_SPTE_CHANGED)
		return false;
	return o->probes & KW_PROBE_BIT(probe);
}

/*
 * --attach auto takes kprobes first where the kernel can preempt a task inside a BPF trampoline
 * program. fentry/fexit programs run with migration disabled but preemption on (__bpf_prog_enter
 * takes rcu_read_lock and migrate_disable); the per-program recursion guard (prog->active, per
 * CPU) then skips every run of the same program on that CPU until the preempted one resumes:
 * with more runnable threads than CPUs (the KVM selftests' vCPU threads and their main thread
 * on a 2-CPU host) a preemptible kernel lost 199 to 3,646 runs per dirty_log_perf_test run, and
 * counted 65,426 RET_PF_FIXED of 65,536. A kprobe's handler runs with preemption off (ftrace's
 * recursion lock, the kretprobe trampoline), so no task switch can make a run skip: the counts
 * are exact. Debian 7.3 x86 boots PREEMPT_DYNAMIC in lazy mode and 7.3 arm64 is built
 * CONFIG_PREEMPT; 6.12's are voluntary, where nothing preempts a BPF program and fentry stays
 * first (cheaper per call: docs/performance.md). An unknown model counts as preemptible.
 */
static bool kprobe_first(const struct kw_planner *p)
{
	return !p->no_kprobes && p->preempt && kw_host_preemptible(p->preempt);
}

/* Why no kprobe is planned on this kernel: its config, named, not libbpf's ENOENT. */
#define NO_KPROBES "no kprobes: this kernel is built without CONFIG_KPROBES"

static const char *preempt_reason(const struct kw_planner *p)
{
	return p->preempt[0] ? "preemptible kernel: fentry runs could be lost"
			     : "preemption model unknown: fentry runs could be lost";
}

static void vcpu_ioctl_off(struct kw_plan *pl)
{
	set_plan(pl, KW_MECH_OFF, kw_probes[KW_P_VCPU_IOCTL].func,
		 "counted with kvm_vm_ioctl's ioctl tracepoint");
}

/*
 * The plan of probe @i of this arch, the mechanisms in the order --attach allows them; plan[]
 * holds those of the probes before it.
 */
static void plan_probe(const struct kw_planner *p, int i, struct kw_plan plan[KW_NR_PROBES])
{
	const struct kw_probe_desc *pp = &kw_probes[i];
	const struct loader_opts *o = p->opts;
	struct kw_plan *pl = &plan[i];
	const struct ksym *ks = pp->func ? ksyms__find(p->ksyms, pp->func) : NULL;
	enum kw_attach attach = o->attach;
	bool try_fentry = attach != KW_ATTACH_KPROBE, try_kprobe = attach != KW_ATTACH_FENTRY;
	char why[384] = "";

	if (!kw_plan_wanted(o, i)) {
		set_plan(pl, KW_MECH_OFF, pp->func, "%s",
			 !(o->probes & KW_PROBE_BIT(i))
				 ? (o->cheap ? "not in the cheap set (--probe all attaches it)"
				    : o->set == KW_SET_TIMING
					    ? "not in the timing set (--probe all attaches it)"
				    : o->set == KW_SET_NOTIFIERS
					    ? "not in the notifiers set (--probe all attaches it)"
				    : o->set == KW_SET_NONE ? "not selected (--probe none)"
							    : "not selected (--probe)")
				 : "per-entry callback left out (--no-visits)");
		return;
	}
	if (i == KW_P_VCPU_IOCTL && plan[KW_P_VM_IOCTL].mech == KW_MECH_TRACEPOINT) {
		vcpu_ioctl_off(pl);
		return;
	}
	if (pp->func && !ks) {
		snprintf(why, sizeof(why),
			 "not in this kernel (/proc/kallsyms): absent or inlined");
	} else if (i == KW_P_HYP_FLUSH_RANGE && p->kvm_mode[0] && strcmp(p->kvm_mode, "vhe") &&
		   strcmp(p->kvm_mode, "nested")) {
		/* not for nested (VHE+NV2): a VHE host, where the EL2 side is a plain call */
		set_plan(pl, KW_MECH_UNAVAILABLE, pp->func,
			 "runs at EL2 (%s): never called at EL1; kvm_tlb_flush_vmid_range counts",
			 p->kvm_mode);
		return;
	} else if (pp->func) {
		const char *const *fe = pp->prog[KW_MECH_FENTRY];

		if (attach == KW_ATTACH_AUTO && kprobe_first(p) && pp->prog[KW_MECH_KPROBE][KW_ENTRY] &&
		    is_traceable(p, pp->func)) {
			set_plan(pl, KW_MECH_KPROBE, pp->func, "%s", preempt_reason(p));
			return;
		}
		if (try_fentry && (fe[KW_ENTRY] || fe[KW_EXIT]) &&
		    !p->fentry_test(p->ctx, pp->func, ks->mod, why, sizeof(why))) {
			set_plan(pl, KW_MECH_FENTRY, pp->func, "%s", "");
			return;
		}
		if (try_kprobe && pp->prog[KW_MECH_KPROBE][KW_ENTRY] && p->no_kprobes) {
			add_reason(why, sizeof(why), NO_KPROBES);
		} else if (try_kprobe && pp->prog[KW_MECH_KPROBE][KW_ENTRY]) {
			if (is_traceable(p, pp->func)) {
				set_plan(pl, KW_MECH_KPROBE, pp->func, "%s", why);
				return;
			}
			add_reason(why, sizeof(why), "not traceable");
		}
		if (!try_fentry && !pp->prog[KW_MECH_KPROBE][KW_ENTRY])
			snprintf(why, sizeof(why), "no kprobe program");
	}
	if (pp->tp_name && attach == KW_ATTACH_AUTO &&
	    tracepoint_exists(p, pp->tp_cat, pp->tp_name)) {
		set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", why);
		return;
	}
	if (pp->tp_name && !pp->func) { /* tracepoint-only probes under a forced mode */
		set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", "");
		return;
	}
	if (pp->tp_name && *pp->tp_cat && !p->tracefs->root[0] && attach == KW_ATTACH_AUTO)
		add_reason(why, sizeof(why), "tracepoint %s:%s: %s", pp->tp_cat, pp->tp_name,
			   p->tracefs->why);
	set_plan(pl, KW_MECH_UNAVAILABLE, pp->func, "%s", why[0] ? why : "no mechanism allowed");
}

/*
 * The plan of user function @s (--count / --time): the rules of the built-in probes, said in
 * the user's terms. A function must be in /proc/kallsyms (else it does not exist, or the
 * compiler inlined it into every caller: a `static inline` helper such as the hint patch's
 * tdp_iter_skip_children() has no symbol of its own), and in available_filter_functions (else
 * it is notrace, or ftrace cannot patch it: neither fentry nor kprobes can attach). Then
 * fentry/fexit after a real attach test (it needs the function in BTF: a function inlined at
 * some call sites and kept at others may lack it), else kprobe/kretprobe.
 */
static void plan_ufunc(const struct kw_planner *p, unsigned int s, struct kw_plan *pl)
{
	const struct kw_ufunc_req *q = &p->opts->ufuncs[s];
	const struct ksym *ks = ksyms__find(p->ksyms, q->name);
	enum kw_attach attach = p->opts->attach;
	char why[384] = "";

	if (!ks) {
		set_plan(pl, KW_MECH_UNAVAILABLE, q->name,
			 "not in this kernel: not in /proc/kallsyms (a misspelt name, a function of a "
			 "module that is not loaded, or one inlined into every caller)");
		return;
	}
	if (!is_traceable(p, q->name)) {
		set_plan(pl, KW_MECH_UNAVAILABLE, q->name,
			 "not traceable: in /proc/kallsyms but not in "
			 "tracing/available_filter_functions (notrace, or not patchable by ftrace)");
		return;
	}
	if (attach == KW_ATTACH_AUTO && kprobe_first(p)) {
		set_plan(pl, KW_MECH_KPROBE, q->name, "%s", preempt_reason(p));
		return;
	}
	if (attach != KW_ATTACH_KPROBE &&
	    !p->fentry_test(p->ctx, q->name, ks->mod, why, sizeof(why))) {
		set_plan(pl, KW_MECH_FENTRY, q->name, "%s", "");
		return;
	}
	if (attach != KW_ATTACH_FENTRY && p->no_kprobes) {
		set_plan(pl, KW_MECH_UNAVAILABLE, q->name, "%s%s" NO_KPROBES, why,
			 why[0] ? "; " : "");
		return;
	}
	if (attach != KW_ATTACH_FENTRY) {
		set_plan(pl, KW_MECH_KPROBE, q->name, "%s", why);
		return;
	}
	set_plan(pl, KW_MECH_UNAVAILABLE, q->name, "%s (--attach fentry)", why);
}

void kw_plan_all(const struct kw_planner *p, struct kw_plan plan[KW_NR_PROBES],
		 struct kw_plan uplan[KW_MAX_UFUNCS])
{
	for (int i = 0; i < KW_NR_PROBES; i++)
		if (kw_probe_in_arch(i, kw_host_arch()))
			plan_probe(p, i, plan);
	for (unsigned int s = 0; s < p->opts->nufuncs; s++)
		plan_ufunc(p, s, &uplan[s]);
}

/* ---- a plan's programs ---------------------------------------------------------------------- */

const char *const *kw_plan_progs(const struct kw_plan *pl, int probe)
{
	return kw_plan_attached(pl) ? kw_probes[probe].prog[pl->mech] : NULL;
}

bool kw_plan_ufunc_progs(const struct kw_plan *pl, unsigned int s, bool timed,
			 char names[KW_NR_ENDS][16])
{
	bool fe = pl->mech == KW_MECH_FENTRY;

	if (!fe && pl->mech != KW_MECH_KPROBE)
		return false;
	snprintf(names[KW_ENTRY], 16, "%s_ufn%u", fe ? "fe" : "kp", s);
	snprintf(names[KW_EXIT], 16, "%s_ufn%u", fe ? "fx" : "kr", s);
	if (!timed)
		names[KW_EXIT][0] = 0;
	return true;
}

/* The user function a program of userfn.bpf.c belongs to ("fe_ufn3": 3), or -1. */
static int ufunc_of_prog(const char *prog)
{
	unsigned int s;
	char end;

	if (strlen(prog) < 7 || strncmp(prog + 2, "_ufn", 4) ||
	    sscanf(prog + 6, "%u%c", &s, &end) != 1 || s >= KW_MAX_UFUNCS)
		return -1;
	return s;
}

/* ---- refusals: the new plan ----------------------------------------------------------------- */

void kw_plan_load_refused(const struct kw_planner *p, struct kw_plan plan[KW_NR_PROBES],
			  struct kw_plan uplan[KW_MAX_UFUNCS], const char *prog, int err)
{
	int i = kw_probe_of_prog(prog), s = ufunc_of_prog(prog);
	char why[sizeof(plan->reason)];

	snprintf(why, sizeof(why), "verifier refused %s: %s (run with -v)", prog, strerror(-err));
	if (i >= 0)
		set_plan(&plan[i], KW_MECH_UNAVAILABLE, kw_probes[i].func, "%s", why);
	if (s >= 0)
		set_plan(&uplan[s], KW_MECH_UNAVAILABLE, p->opts->ufuncs[s].name, "%s", why);
}

/* Unavailable: "MECH attach refused: ERROR" after the reason the plan had. */
static void unavailable_refused(struct kw_plan *pl, int err)
{
	char func[sizeof(pl->func)], why[sizeof(pl->reason)];

	/* copies: set_plan() writes the fields it would otherwise read */
	snprintf(func, sizeof(func), "%s", pl->func);
	snprintf(why, sizeof(why), "%s", pl->reason);
	set_plan(pl, KW_MECH_UNAVAILABLE, func, "%s%s%s attach refused: %s", why,
		 why[0] ? "; " : "", kw_mech_name(pl->mech), strerror(-err));
}

bool kw_plan_attach_refused(const struct kw_planner *p, int probe, struct kw_plan *pl, int err)
{
	const struct kw_probe_desc *pp = &kw_probes[probe];
	bool was_kprobe = pl->mech == KW_MECH_KPROBE;
	char why[sizeof(pl->reason)];

	unavailable_refused(pl, err);
	/* a kprobe taken first on a preemptible kernel: fentry, which may lose runs, not nothing */
	if (was_kprobe && p->opts->attach == KW_ATTACH_AUTO && kprobe_first(p) &&
	    (pp->prog[KW_MECH_FENTRY][KW_ENTRY] || pp->prog[KW_MECH_FENTRY][KW_EXIT])) {
		const struct ksym *ks = ksyms__find(p->ksyms, pp->func);
		char fwhy[128];

		snprintf(why, sizeof(why), "%s", pl->reason);
		if (ks && !p->fentry_test(p->ctx, pp->func, ks->mod, fwhy, sizeof(fwhy))) {
			set_plan(pl, KW_MECH_FENTRY, pp->func, "%s; runs can be lost (preemptible)",
				 why);
			return true;
		}
	}
	if (!was_kprobe || !pp->tp_name)
		return false;
	snprintf(why, sizeof(why), "%s", pl->reason);
	if (p->opts->attach == KW_ATTACH_AUTO && tracepoint_exists(p, pp->tp_cat, pp->tp_name)) {
		set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", why);
		return true;
	}
	if (*pp->tp_cat && !p->tracefs->root[0])
		/* the fallback exists but cannot be used: say why, and the fix */
		set_plan(pl, KW_MECH_UNAVAILABLE, pp->func, "%s; tracepoint %s:%s: %s", why,
			 pp->tp_cat, pp->tp_name, p->tracefs->why);
	return false;
}

bool kw_plan_ufunc_attach_refused(const struct kw_planner *p, unsigned int s, struct kw_plan *pl,
				  int err)
{
	const struct ksym *ks = ksyms__find(p->ksyms, p->opts->ufuncs[s].name);
	char why[128];

	if (pl->mech == KW_MECH_FENTRY && p->opts->attach == KW_ATTACH_AUTO && !kprobe_first(p)) {
		set_plan(pl, KW_MECH_KPROBE, p->opts->ufuncs[s].name, "fentry attach refused: %s",
			 strerror(-err));
		return true;
	}
	/* the kprobe taken first on a preemptible kernel was refused: fentry, if it attaches */
	if (pl->mech == KW_MECH_KPROBE && p->opts->attach == KW_ATTACH_AUTO && kprobe_first(p) &&
	    ks && !p->fentry_test(p->ctx, ks->name, ks->mod, why, sizeof(why))) {
		set_plan(pl, KW_MECH_FENTRY, p->opts->ufuncs[s].name,
			 "kprobe attach refused: %s; runs can be lost (preemptible)", strerror(-err));
		return true;
	}
	unavailable_refused(pl, err);
	return false;
}

static bool trampoline_missing(struct kw_plan *pl, const char *func, bool as_kprobe)
{
	set_plan(pl, as_kprobe ? KW_MECH_KPROBE : KW_MECH_UNAVAILABLE, func,
		 "fentry attached but its trampoline is not on %s (not in "
		 "tracing/enabled_functions)", func);
	return as_kprobe;
}

bool kw_plan_no_trampoline(const struct kw_planner *p, int probe, struct kw_plan *pl)
{
	char func[sizeof(pl->func)];

	snprintf(func, sizeof(func), "%s", pl->func);
	return trampoline_missing(pl, func,
				  p->opts->attach == KW_ATTACH_AUTO &&
					  kw_probes[probe].prog[KW_MECH_KPROBE][KW_ENTRY] &&
					  is_traceable(p, func));
}

bool kw_plan_ufunc_no_trampoline(const struct kw_planner *p, unsigned int s, struct kw_plan *pl)
{
	return trampoline_missing(pl, p->opts->ufuncs[s].name, p->opts->attach == KW_ATTACH_AUTO);
}

bool kw_plan_ioctl_tracepoint(struct kw_plan plan[KW_NR_PROBES])
{
	if (plan[KW_P_VM_IOCTL].mech != KW_MECH_TRACEPOINT ||
	    plan[KW_P_VCPU_IOCTL].mech == KW_MECH_OFF)
		return false;
	vcpu_ioctl_off(&plan[KW_P_VCPU_IOCTL]);
	return true;
}
