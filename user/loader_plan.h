/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: probing. The loader's planning (loader_plan.c): which mechanism each probe and each
 * --count / --time function gets, with the reason, and how a refusal at load or attach time
 * changes a plan. Decided from what the loader read of the host (kallsyms, tracefs, the arm64 KVM
 * mode) and from the fentry attach test, which the caller supplies (loader_attach.c's). No libbpf
 * here: unit-tested (tests/unit/test_loader_plan.c).
 */
#ifndef KW_LOADER_PLAN_H
#define KW_LOADER_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "ksyms.h"
#include "loader_opts.h"
#include "record.h"
#include "tracefs.h"

/* What planning knows of the host and asks of it. */
struct kw_planner {
	const struct loader_opts *opts;
	const struct ksyms *ksyms;	  /* /proc/kallsyms */
	const struct kw_tracefs *tracefs; /* root "" if none, with why */
	const char *traceable;		  /* available_filter_functions, NULL if unreadable */
	const char *kvm_mode;		  /* arm64: vhe, nvhe, protected; "" unknown (and on x86) */
	/*
	 * The preemption model (kw_host_preempt(): none, voluntary, full, lazy, rt; "" unknown).
	 * Where the kernel can preempt a task inside a BPF trampoline program, --attach auto
	 * takes kprobes first: see kprobe_first() in loader_plan.c.
	 */
	const char *preempt;
	/* the kernel has no kprobes (built without CONFIG_KPROBES): none is planned */
	bool no_kprobes;
	/*
	 * The fentry attach test: 0 if an fentry program attaches to @func (of module @mod, "" for
	 * the kernel's own), else -errno with why in @why.
	 */
	int (*fentry_test)(void *ctx, const char *func, const char *mod, char *why, size_t len);
	void *ctx;
};

/* The plans of every probe of this arch into plan[] and of every user function into uplan[]. */
void kw_plan_all(const struct kw_planner *p, struct kw_plan plan[KW_NR_PROBES],
		 struct kw_plan uplan[KW_MAX_UFUNCS]);
/* The options ask for @probe (--probe, --no-visits). */
bool kw_plan_wanted(const struct loader_opts *o, int probe);
/*
 * Whether a line of a tracefs list starts with the word func: available_filter_functions'
 * "name" or "name [module]", enabled_functions' "name [module] (1) R ... tramp: ...".
 */
bool kw_plan_listed(const char *text, const char *func);
/*
 * func's entry in tracing/enabled_functions has a direct call ("\tdirect-->bpf_trampoline_...",
 * on a line of its own under the function's, as kernel/trace/ftrace.c t_show() prints it): an
 * fentry program is on it. An entry without one (a kprobe event's ftrace_ops on the same
 * function) is not kvmwalk's trampoline.
 */
bool kw_plan_tramp_listed(const char *text, const char *func);

/* The programs of a probe's plan, by enum kw_prog_end; NULL if the plan has none. */
const char *const *kw_plan_progs(const struct kw_plan *pl, int probe);
/*
 * The programs of user function @s's plan @pl (userfn.bpf.c: fe_ufnN, fx_ufnN, kp_ufnN, kr_ufnN)
 * into names[enum kw_prog_end], "" for none: only the entry one unless @timed (--time). False if
 * the plan has none.
 */
bool kw_plan_ufunc_progs(const struct kw_plan *pl, unsigned int s, bool timed,
			 char names[KW_NR_ENDS][16]);

/*
 * The verifier refused program @prog with @err: its probe or user function is unavailable.
 * Load again.
 */
void kw_plan_load_refused(const struct kw_planner *p, struct kw_plan plan[KW_NR_PROBES],
			  struct kw_plan uplan[KW_MAX_UFUNCS], const char *prog, int err);
/*
 * The kernel refused to attach a program of @probe's plan @pl with @err: unavailable with the
 * reason, or moved to the probe's tracepoint (a refused kprobe, under --attach auto). True when
 * the object must be loaded again.
 */
bool kw_plan_attach_refused(const struct kw_planner *p, int probe, struct kw_plan *pl, int err);
/* The same for user function @s: a refused fentry moves to kprobes under --attach auto. */
bool kw_plan_ufunc_attach_refused(const struct kw_planner *p, unsigned int s, struct kw_plan *pl,
				  int err);
/*
 * An fentry attached, but its trampoline is not on the function (loader_attach.c says where
 * that happens): a kprobe where one can be, else unavailable. True when it is a kprobe now (load
 * again). For @probe's plan @pl, and for user function @s's.
 */
bool kw_plan_no_trampoline(const struct kw_planner *p, int probe, struct kw_plan *pl);
bool kw_plan_ufunc_no_trampoline(const struct kw_planner *p, unsigned int s, struct kw_plan *pl);
/*
 * kvm_vm_ioctl on its ioctl tracepoint counts the vCPU ioctls too: kvm_vcpu_ioctl off. True if
 * that changed its plan (load again).
 */
bool kw_plan_ioctl_tracepoint(struct kw_plan plan[KW_NR_PROBES]);

#endif /* KW_LOADER_PLAN_H */
