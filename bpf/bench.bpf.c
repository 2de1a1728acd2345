// SPDX-License-Identifier: GPL-2.0
/*
 * Probe-body cost benchmark (make bench, docs/performance.md). Program pairs on the tracepoints
 * around getppid(2); user/bench/main.c attaches one pair at a time and reads the kernel's BPF
 * run-time statistics of each.
 *
 * The kvmwalk pair calls the real kw_enter()/kw_exit()/kw_exit_done() of kw.bpf.h, never a copy,
 * so the benchmark follows the probe code as it changes. The breakdown pairs call the same
 * helpers one part at a time, to show where the time goes.
 */
#include "kw.bpf.h"

/* kw.bpf.h declares it; trigger.bpf.c defines it in kvmwalk's own object. */
const volatile __u32 kw_target_pid = 0;
/* The probe index whose statistics the kvmwalk pairs update: a timed probe with a size. */
const volatile __u32 bench_probe = KW_P_TDP_ZAP_LEAFS;
/* The size the kvmwalk pairs record on entry, as tdp_mmu_zap_leafs records its gfn range. */
const volatile __u64 bench_size = 512;

char LICENSE[] SEC("license") = "GPL";

#define ENTER SEC("tracepoint/syscalls/sys_enter_getppid")
#define EXIT SEC("tracepoint/syscalls/sys_exit_getppid")

/* (a) nothing: the cost of running a BPF program at all on this attach point. */
ENTER int empty_enter(void *ctx)
{
	return 0;
}

EXIT int empty_exit(void *ctx)
{
	return 0;
}

/* (b) the floor of any duration measurement: one clock read on each side. */
ENTER int clock_enter(void *ctx)
{
	bpf_ktime_get_ns();
	return 0;
}

EXIT int clock_exit(void *ctx)
{
	bpf_ktime_get_ns();
	return 0;
}

/* (c) kvmwalk's duration probe, exactly as tdp.bpf.c wraps it for tdp_mmu_zap_leafs. */
ENTER int kw_enter_prog(void *ctx)
{
	kw_enter(bench_probe, bench_size, true);
	return 0;
}

EXIT int kw_exit_prog(struct trace_event_raw_sys_exit *ctx)
{
	struct kw_task *t;

	kw_exit(bench_probe, ctx->ret, &t);
	kw_exit_done(t);
	return 0;
}

/*
 * Breakdown of (c), each on top of (b)'s clock reads, through the same kw.bpf.h helpers:
 * (t) the per-task state only: kw_task_get() creating the hash entry on entry, kw_task_put()
 *     deleting it on exit;
 * (h) the accounting only: the stats slot, both histogram updates and the trigger lookup, with
 *     the entry time kept in a per-CPU array (not safe across preemption; a measuring aid only).
 */
ENTER int task_enter(void *ctx)
{
	struct kw_task *t = kw_task_get(bpf_get_current_pid_tgid(), true);

	if (t) {
		t->start[0] = bpf_ktime_get_ns();
		t->busy |= 1;
	}
	return 0;
}

EXIT int task_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_task *t = kw_task_get(id, false);

	if (!t)
		return 0;
	t->busy &= ~1U;
	t->start[0] = bpf_ktime_get_ns() - t->start[0];
	kw_task_put(id, t);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} bench_start SEC(".maps");

ENTER int acct_enter(void *ctx)
{
	struct kw_probe_stats *s = kw_stats_of(bench_probe);
	__u32 zero = 0;
	__u64 *start;

	if (!s)
		return 0;
	s->calls++;
	kw_hist_add(&s->size, bench_size);
	start = bpf_map_lookup_elem(&bench_start, &zero);
	if (start)
		*start = bpf_ktime_get_ns();
	return 0;
}

EXIT int acct_exit(void *ctx)
{
	struct kw_probe_stats *s = kw_stats_of(bench_probe);
	__u64 id = bpf_get_current_pid_tgid(), ns;
	__u32 zero = 0;
	__u64 *start;

	start = bpf_map_lookup_elem(&bench_start, &zero);
	if (!s || !start)
		return 0;
	ns = bpf_ktime_get_ns() - *start;
	kw_hist_add(&s->dur, ns);
	kw_trig_add(bench_probe, NULL, id, ns);
	return 0;
}

/*
 * (e) PROTOTYPE, not kvmwalk code: kw_enter()/kw_exit() with the per-task state in task-local
 * storage (BPF_MAP_TYPE_TASK_STORAGE, created on a task's first probed call and freed with the
 * task) instead of a hash entry inserted and deleted around every call. Everything else is the
 * real kw.bpf.h code: kw_stats_of(), kw_hist_add(), kw_trig_add(). Task storage needs 5.11
 * (a10787e6d58c, tracing programs) and bpf_get_current_task_btf() (3ca1032ab7ab, 5.11).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kw_task);
} bench_task_ls SEC(".maps");

static __always_inline struct kw_task *ls_task(bool create)
{
	return bpf_task_storage_get(&bench_task_ls, bpf_get_current_task_btf(), NULL,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

ENTER int ls_enter(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 probe = bench_probe;
	struct kw_probe_stats *s;
	struct kw_task *t;

	if (kw_skip(id) || probe >= KW_NR_PROBES)
		return 0;
	s = kw_stats_of(probe);
	if (!s)
		return 0;
	s->calls++;
	kw_hist_add(&s->size, bench_size);
	t = ls_task(true);
	if (!t) {
		s->dropped++;
		return 0;
	}
	if (t->busy & (1U << probe))
		s->missed++;
	t->start[probe] = bpf_ktime_get_ns();
	t->busy |= 1U << probe;
	return 0;
}

EXIT int ls_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	__u32 probe = bench_probe;
	struct kw_probe_stats *s;
	struct kw_task *t;

	if (kw_skip(id) || probe >= KW_NR_PROBES)
		return 0;
	s = kw_stats_of(probe);
	if (!s)
		return 0;
	if (ctx->ret < 0)
		s->errors++;
	t = ls_task(false);
	if (!t || !(t->busy & (1U << probe))) {
		s->missed++;
		return 0;
	}
	ns = bpf_ktime_get_ns() - t->start[probe];
	t->busy &= ~(1U << probe);
	kw_hist_add(&s->dur, ns);
	kw_trig_add(probe, t, id, ns);
	return 0;
}
