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

/* kw.bpf.h declares them; trigger.bpf.c defines them in kvmwalk's own object. */
const volatile bool kw_filter_pids = false;
const volatile bool kw_filter_vms = false;
/* user/bench/probes.c numbers bench_probe's two histograms 0 (duration) and 1 (size). */
const volatile struct kw_hist_slots kw_hslots = {
	.dur = { [0 ... KW_NR_PROBES - 1] = KW_NO_HIST },
	.size = { [0 ... KW_NR_PROBES - 1] = KW_NO_HIST },
	.cleared = KW_NO_HIST,
};
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
 * (i) (c) as a walk inside a KVM ioctl runs it (issue 18): the task is in an ioctl, so the
 * trigger row is kept in the task state (kw_trig_defer()) and added to the hash once, at the
 * ioctl's exit (kw_trig_fold()), which this pair never reaches; the fold's one lookup per probe
 * and ioctl is not in the figure. The ioctl depth is set around the call only, so that (c) on the
 * same task still takes the direct path.
 */
ENTER int kw_ioctl_enter_prog(void *ctx)
{
	kw_enter(bench_probe, bench_size, true);
	return 0;
}

EXIT int kw_ioctl_exit_prog(struct trace_event_raw_sys_exit *ctx)
{
	struct kw_task *t = kw_task_get(false);

	if (t)
		t->ioctl_depth = 1;
	kw_exit(bench_probe, ctx->ret, &t);
	if (t)
		t->ioctl_depth = 0;
	kw_exit_done(t);
	return 0;
}

/*
 * Breakdown of (c), each on top of (b)'s clock reads, through the same kw.bpf.h helpers:
 * (t) the per-task state only: kw_task_get() (task-local storage, created on the task's first
 *     call) on entry and on exit, kw_task_put() on exit;
 * (h) the accounting only: the stats slot, both histogram updates and the trigger lookup, with
 *     the entry time kept in a per-CPU array (not safe across preemption; a measuring aid only).
 */
ENTER int task_enter(void *ctx)
{
	struct kw_task *t = kw_task_get(true);

	if (t) {
		t->start[0] = bpf_ktime_get_ns();
		t->busy |= 1;
	}
	return 0;
}

EXIT int task_exit(void *ctx)
{
	struct kw_task *t = kw_task_get(false);

	if (!t)
		return 0;
	t->busy &= ~1U;
	t->start[0] = bpf_ktime_get_ns() - t->start[0];
	kw_task_put(t);
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
	kw_hist_put(kw_hslots.size[bench_probe], bench_size);
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
	kw_hist_put(kw_hslots.dur[bench_probe], ns);
	kw_trig_add(bench_probe, NULL, id, ns);
	return 0;
}

/*
 * Empty fentry/fexit programs for `kvmwalk-bench empty` (issue 6 part 2): what running any
 * program on a kernel function costs, to set kvmwalk's real probes on the same functions
 * against. user/bench/empty.c sets each slot's target before load
 * (bpf_program__set_attach_target()) and loads only the slots it uses; the probe table never
 * loads them.
 */
#define EMPTY_SLOT(n)                                                                              \
	SEC("fentry") int empty_fe##n(void *ctx)                                                   \
	{                                                                                          \
		return 0;                                                                          \
	}                                                                                          \
	SEC("fexit") int empty_fx##n(void *ctx)                                                    \
	{                                                                                          \
		return 0;                                                                          \
	}

EMPTY_SLOT(0)
EMPTY_SLOT(1)
EMPTY_SLOT(2)
EMPTY_SLOT(3)
