/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: the loader's base. The loader's state, shared by its files: loader.c (the stages) and
 * the machinery it drives, loader_load.c and loader_attach.c (declared at the end), collect.c
 * (the map reader) and events.c (the kw_events reader, --vm), with what more than one of them
 * reads of it (loader_state.c). Planning (loader_plan.h) sees none of it, only struct
 * kw_planner. Nothing else includes this: the rest of kvmwalk sees struct loader only through
 * loader.h.
 */
#ifndef KW_LOADER_STATE_H
#define KW_LOADER_STATE_H

#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "ksyms.h"
#include "loader_opts.h"
#include "loader_plan.h"
#include "record.h"
#include "tracefs.h"
#include "kvmwalk.skel.h"

struct loader {
	struct loader_opts opts;
	struct kvmwalk_bpf *skel;
	struct ksyms ksyms;
	struct kw_plan plan[KW_NR_PROBES];
	struct bpf_link *links[KW_NR_PROBES][KW_NR_ENDS];
	/* --count / --time: the plan and links of each user-named function (userfn.bpf.c) */
	struct kw_plan uplan[KW_MAX_UFUNCS];
	struct bpf_link *ulinks[KW_MAX_UFUNCS][KW_NR_ENDS];
	struct kw_tracefs tracefs;
	char *traceable;	 /* available_filter_functions, NULL if unreadable */
	char kvm_mode[16];	 /* arm64: vhe, nvhe, protected; "" unknown (and on x86) */
	char preempt[16], preempt_src[16]; /* kw_host_preempt() */
	/* planning's view of the fields above, and its attach test (loader__new()) */
	struct kw_planner planner;
	int loads;		 /* loader__load() calls so far */
	int stats_fd;		 /* from bpf_enable_stats(), -1 if off */
	int stats_sysctl_old;	 /* fallback: previous kernel.bpf_stats_enabled, -1 if untouched */
	char failed_prog[64];	 /* the program libbpf reported as refused by the kernel */
	struct kw_hist_slots hslots; /* the kw_hists numbering of this load (hist_slots()) */
	__u32 nhists;		     /* slots numbered */
	struct btf *vmlinux_btf; /* cached: for the attach tests and the RET_PF_* names */
	struct btf *mod_btf;
	char mod_name[32];
	/*
	 * Trigger rows of exited processes, folded by (probe, trigger, cmd) with pid 0 and deleted
	 * from kw_triggers (see fold_exited() in collect.c). Only grows, so the rows stay
	 * monotonic.
	 */
	struct kw_trig *exited;
	size_t nexited;
	size_t nexited_pids; /* processes among them that kept their pid (opts.keep_exited) */
	__u64 exited_folded; /* rows folded into pid 0 past KW_KEEP_EXITED */
	struct kw_vm *ids;   /* every process seen in the trigger rows, by first sight */
	size_t nids;
	/* kw_events (events.c); --vm: the exec program, and the decisions taken about processes */
	struct ring_buffer *events;
	struct bpf_link *exec_link;
	bool test_no_decisions; /* KVMWALK_TEST_NO_DECISIONS (events.c) */
	struct kw_vmf_pid *vmf;
	size_t nvmf;
	double vmf_sweep_at;
	double identify_at; /* loader__poll(): next loader__identify(), CLOCK_MONOTONIC */
};

/* A process --vm decided about: recorded or ignored (kw_pids), and when its misses are read. */
struct kw_vmf_pid {
	__u32 pid;
	__u8 decision;	 /* enum kw_pid_decision */
	double settle_at; /* CLOCK_MONOTONIC; 0: nothing to read from kw_undecided */
};

/*
 * The kernel's BTF (mod "") or a module's, parsed once per loader (under emulation each parse
 * takes most of a second); NULL if there is none. One module is cached at a time.
 */
struct btf *loader__btf(struct loader *l, const char *mod);

/*
 * l->ids: the identity of pid or NULL; put adds @id or replaces pid's; identify_pid reads pid's
 * from /proc unless it has one.
 */
struct kw_vm *loader__ids_find(struct loader *l, __u32 pid);
struct kw_identity;
int loader__ids_put(struct loader *l, const struct kw_identity *id);
int loader__identify_pid(struct loader *l, __u32 pid);
/*
 * Reads the identity (identity.h: comm, VM name) of each process in the trigger rows that has
 * none yet, once per process, never per event; a process that exits before it is seen has
 * none. loader__collect() does it too, and loader__poll() every 0.2 s so that short-lived VMs are
 * named.
 */
int loader__identify(struct loader *l);

/* ---- the machinery of the stages, which loader.c drives ---- */

/*
 * loader_load.c: the opened object set up for the plan: rodata, the maps created and their
 * sizes, the programs to load. 0 or -errno, said.
 */
int loader__configure(struct loader *l);
/* loader_attach.c: struct kw_planner's fentry_test, @loader a struct loader. */
int loader__fentry_test(void *loader, const char *func, const char *mod, char *why, size_t len);
/*
 * The programs of @probe's plan (of user function @s's) attached, each exit program before its
 * entry. 0, or -errno with none of them attached (the plan is the caller's to change).
 */
int loader__attach_probe(struct loader *l, int probe);
int loader__attach_ufunc(struct loader *l, unsigned int s);
/*
 * Detaches each attached fentry whose trampoline is not on its function and changes its plan
 * (kw_plan_no_trampoline()). True when the object must be loaded again.
 */
bool loader__check_trampolines(struct loader *l);
/* Every program detached. */
void loader__detach(struct loader *l);

/*
 * The map syscalls (lookup, update, delete, batch) hold the kernel's per-CPU bpf_prog_active
 * raised with only migration disabled (bpf_disable_instrumentation(), kernel/bpf/syscall.c), and
 * every kprobe and tracepoint program that starts on that CPU meanwhile is skipped
 * (trace_call_bpf(): a recursion miss, the lost_runs of a recording). On a preemptible kernel
 * the reading thread can be preempted inside the syscall, and then the CPU runs KVM's work with
 * kvmwalk's kprobes blind for as long as another task has it: 904 runs of kvm_pgtable_walk's
 * programs lost during a migration's teardowns on arm64 7.3 (preempt full) while record read its
 * maps every second. So kvmwalk makes its map reads SCHED_FIFO (priority 1) where it may
 * (CAP_SYS_NICE, which root has): no task of the normal class preempts it there. Where it may
 * not, reads stay as they were and the lost runs are counted. The scope is the calling thread.
 */
struct kw_rt_scope {
	int policy;
	struct sched_param sp;
	bool set;
};
void kw_rt_enter(struct kw_rt_scope *s);
void kw_rt_leave(const struct kw_rt_scope *s);

#endif /* KW_LOADER_STATE_H */
