/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every kvmwalk BPF file shares: the maps (declared __weak here so that `bpftool gen object`
 * merges the copies of each file into one), the rodata tunables, the per-task state and the
 * entry/exit bodies that time a call and account it to its trigger.
 */
#ifndef KW_BPF_H
#define KW_BPF_H

/*
 * bpftool 7.1 writes the kernel's anonymous members of a named struct type (7.3 builds with
 * -fms-extensions) as `struct ns_tree;`, which clang warns about. Those types are not used here,
 * and CO-RE relocates every field we read by name, so the shifted local layout does not matter.
 */
#pragma clang diagnostic ignored "-Wmissing-declarations"
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "hist.bpf.h"
#include "kvmwalk_abi.h"

/* Tunables, defined in trigger.bpf.c and set by the loader before load. */
extern const volatile bool kw_filter_pids; /* only the tgids in kw_pids, else every task */
extern const volatile bool kw_filter_vms;  /* --vm: count the runs of undecided tgids */
extern const volatile struct kw_hist_slots kw_hslots; /* which kw_hists slot holds what */

/*
 * --pid and --vm: the processes (tgids) to record (KW_PID_RECORD) or to leave out
 * (KW_PID_IGNORE) when kw_filter_pids is set. Filled by the loader after load and before attach;
 * a map rather than rodata so that processes can be added while recording (VMs found by name as
 * they start). A tgid that is in neither is left out too; with --vm its program runs are counted
 * in kw_undecided until user space has read its name and decided (loader__poll()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KW_PID_MAP_SIZE);
	__type(key, __u32);
	__type(value, __u8);
} kw_pids SEC(".maps") __weak;

/* --vm: tgid -> program runs skipped before the loader decided about it */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KW_UNDECIDED_SIZE);
	__type(key, __u32);
	__type(value, __u64);
} kw_undecided SEC(".maps") __weak;

/*
 * Processes for user space to name at once (struct kw_tgid_event): the first trigger row of each
 * (so that even a VM that lives 20 ms is named from its cmdline while it is alive; only a task's
 * first new row wakes user space, kw_trig_add_n()), and with --vm each exec. A full buffer loses
 * events, not counts: the 0.2 s sweep of loader__poll() names them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} kw_events SEC(".maps") __weak;

static __always_inline void kw_event_flags(__u32 tgid, __u32 kind, __u64 flags)
{
	struct kw_tgid_event e = { .tgid = tgid, .kind = kind };

	bpf_ringbuf_output(&kw_events, &e, sizeof(e), flags);
}

static __always_inline void kw_event(__u32 tgid, __u32 kind)
{
	kw_event_flags(tgid, kind, 0);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_NR_PROBES);
	__type(key, __u32);
	__type(value, struct kw_probe_stats);
} kw_stats SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} kw_counters SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_NR_VISITS);
	__type(key, __u32);
	__type(value, __u64);
} kw_visits SEC(".maps") __weak;

/*
 * The histograms: slot i is the one kw_hslots names by i (bpf/kvmwalk_abi.h). The loader sets
 * max_entries to the slots it numbered and value_size to the histogram kind: 4000 bytes
 * (struct kw_hist) or 552 (log2). No BTF value type, so that the size can change: the programs
 * only reach buckets[] through kw_hist_put(), whose bound follows kw_hslots.log2.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_MAX_HISTS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct kw_hist));
} kw_hists SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KW_MAX_CBS);
	__type(key, struct kw_cb_key);
	__type(value, struct kw_cb_val);
} kw_walk_cbs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KW_MAX_TRIGS);
	__type(key, struct kw_trig_key);
	__type(value, struct kw_trig_val);
} kw_triggers SEC(".maps") __weak;

/*
 * Per-task state: entry timestamps of calls in flight, the kvm_pgtable_walk stack and what the
 * task is doing (ioctl, notifier, fault). Kept in task-local storage, created on the task's first
 * probed call and freed with the task: nothing is inserted or deleted per call (a hash entry
 * inserted and deleted around every call cost 90 ns of a 216 ns probe, docs/performance.md).
 * Since the state outlives the calls, every field is either guarded by what says it is in flight
 * (start[] by busy, walk_*[] by walk_depth, ioctl_cmd and memslot_op by ioctl_depth, split_* by
 * busy, fault_lock by fault_depth), set on entry before it is read (unmap_*, flush_pages,
 * zap_*), or reset by kw_task_put() when nothing is in flight any more (last_op: it only means
 * something to a flush inside the same outer call).
 */
struct kw_task {
	__u64 start[KW_NR_PROBES];
	__u64 walk_start[KW_MAX_DEPTH];
	__u64 walk_cb[KW_MAX_DEPTH];
	__u64 walk_size[KW_MAX_DEPTH];
	__u32 walk_flags[KW_MAX_DEPTH];
	__u32 walk_depth; /* walks in flight, may exceed KW_MAX_DEPTH (then untracked) */
	__u32 busy;	  /* bit per probe with a start[] set (KW_NR_PROBES <= 32, asserted below) */
	__u32 ioctl_cmd;  /* innermost KVM ioctl in flight */
	__u32 ioctl_depth;
	__u32 notifier_depth;
	__u32 fault_depth;
	__u32 teardown_depth;
	__u32 last_op;	     /* enum kw_encl + 1 of the last stage-2 op finished, 0: none */
	__u32 unmap_cleared; /* valid leaves cleared by the unmap call in flight */
	__u32 unmap_flushes;
	__u64 unmap_flush_ns;
	__u32 nested_unmaps; /* unmap calls inside the kvm_nested_s2_unmap in flight */
	/*
	 * bit per probe whose entry found the previous call still in flight (busy): that call's
	 * exit was lost. A context's entry (trigger.bpf.c) reads it to end the stale context.
	 */
	__u32 stale;
	__u32 memslot_op;    /* enum kw_memslot_op of the ioctl in flight, reset at its entry */
	__u32 pad;
	__s32 split_level; /* kprobe mode: the split-walker visit in flight */
	__u32 split_block;
	__u64 flush_pages; /* pages of the range flush in flight */
	__u64 fault_lock;  /* &vcpu->kvm->mmu_lock of the fault in flight */
	__u64 zap_4k;	   /* 4 KiB entries visited by the tdp_mmu_zap_leafs in flight */
	__u32 zap_zapped;  /* present leaves it zapped */
	__u32 row_told;	   /* a new trigger row of this task was sent to user space */
	/*
	 * Aging: the MMU notifier's young callbacks in flight (KW_T_AGING), and what the aging
	 * call in flight (x86 kvm_tdp_mmu_{,test_}age_gfn*, arm64 test_clear_young) did so far:
	 * set on its entry, added to the counters at its exit (tdp.bpf.c, pgtable.bpf.c).
	 */
	__u32 aging_depth;
	__u32 age_mkold;    /* arm64: the test_clear_young in flight clears the Access Flag */
	__u32 age_visits;   /* entries its walk visited */
	__u32 age_young;    /* arm64: of them, valid leaves with the Access Flag set */
	__u32 age_old;	    /* entries it made old */
	__u32 age_errors;   /* arm64: visits that returned an error (-EAGAIN: a lost cmpxchg) */
	__u32 age_kp_young; /* arm64, kprobe mode: the stage2_age_walker visit in flight */
	__u32 age_pad;
	/*
	 * Visits of the per-entry callbacks (stage2_split_walker, stage2_unmap_walker) made inside
	 * a kvm_pgtable_walk the task is in, not yet added to kw_visits, kw_stats and kw_triggers:
	 * a visit only increments vis[] here, kw_visits_fold() adds them up at the walk's exit.
	 * vis_mask has a bit per vis[] slot that is not 0, so nothing is pending when it is 0.
	 */
	__u32 vis[KW_NR_VISITS];
	__u32 vis_mask;
	__u32 vis_split_errors; /* split-walker visits that returned an error */
	/* the same for tdp_iter_next inside tdp_mmu_zap_leafs (tdp.bpf.c): kw_iter_fold() */
	__u32 iter_calls;
	__u32 iter_4k;
	__u32 iter_yields;
	/*
	 * Trigger rows (kw_triggers) of calls that returned while the task was in an ioctl,
	 * notifier, fault or teardown, per probe, not yet added: a timed call adds here, and
	 * kw_trig_fold() adds them to the hash before the task's context changes (and so under the
	 * key they were made under), one hash lookup per probe and context instead of per call.
	 */
	__u32 trig_mask; /* bit per probe with trig_calls[] pending */
	__u32 trig_calls[KW_NR_PROBES];
	__u64 trig_ns[KW_NR_PROBES];
	/*
	 * The walk-callback row (kw_walk_cbs) of the task's last outermost walks inside a context,
	 * while they have the same key: added to the hash when a walk with another key returns and
	 * by kw_trig_fold() (a VM's teardown runs millions of walks of one callback).
	 */
	struct kw_cb_key cb_key;
	struct kw_cb_val cb_val; /* cb_val.calls == 0: nothing pending */
};
_Static_assert(KW_NR_PROBES <= 32, "kw_task.busy holds a bit per probe");
_Static_assert(KW_NR_VISITS <= 32, "kw_task.vis_mask holds a bit per visit slot");

/*
 * BPF_MAP_TYPE_TASK_STORAGE: bpf_task_storage_get() and bpf_get_current_task_btf() are allowed
 * in every tracing program kind kvmwalk uses (fentry/fexit, kprobe, raw_tp) since 5.11
 * (a10787e6d58c "bpf: Enable task local storage for tracing programs", 3ca1032ab7ab "bpf:
 * Implement get_current_task_btf and RET_PTR_TO_BTF_ID"); from 6.2 fentry/fexit programs get a
 * variant that does not take the storage lock when it could deadlock (e8b02296a6b8 "bpf: Avoid
 * taking spinlock in bpf_task_storage_get if potential deadlock is detected"). The map needs
 * BPF_F_NO_PREALLOC.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kw_task);
} kw_tasks SEC(".maps") __weak;

static __always_inline void kw_count(__u32 idx, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&kw_counters, &idx);

	if (v)
		*v += n;
}

static __always_inline struct kw_probe_stats *kw_stats_of(__u32 probe)
{
	return bpf_map_lookup_elem(&kw_stats, &probe);
}

/*
 * Adds v to the histogram in kw_hists slot @slot, a kw_hslots entry: a constant where the probe
 * is, so the verifier removes the call of a probe without that histogram as dead code.
 */
static __always_inline void kw_hist_put(__u32 slot, __u64 v)
{
	struct kw_hist *h;

	if (slot == KW_NO_HIST)
		return;
	h = bpf_map_lookup_elem(&kw_hists, &slot);
	if (!h)
		return;
	if (kw_hslots.log2)
		kw_hist_add_log2(h, v);
	else
		kw_hist_add(h, v);
}

static __always_inline bool kw_skip(__u64 pid_tgid)
{
	__u32 tgid = pid_tgid >> 32;
	__u64 one = 1, *n;
	__u8 *d;

	/* rodata: without --pid / --vm the verifier removes the lookups as dead code */
	if (!kw_filter_pids)
		return false;
	d = bpf_map_lookup_elem(&kw_pids, &tgid);
	if (d)
		return *d != KW_PID_RECORD;
	if (!kw_filter_vms)
		return true;
	n = bpf_map_lookup_elem(&kw_undecided, &tgid);
	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(&kw_undecided, &tgid, &one, BPF_NOEXIST))
		kw_count(KW_C_UNDECIDED_FULL, 1);
	return true;
}

/*
 * kw_skip() of the current task, for the per-entry probes: without --pid / --vm not even the
 * pid is read (the verifier drops the rest as dead code, but not a helper call made before it).
 */
static __always_inline bool kw_skip_cur(void)
{
	if (!kw_filter_pids)
		return false;
	return kw_skip(bpf_get_current_pid_tgid());
}

/*
 * The current task's state, created if @create. NULL when it does not exist yet, or could not be
 * created: -ENOMEM, or on 6.1 another program on this CPU holding the task-storage lock
 * (bpf_task_storage_trylock()); a failed creation is counted in KW_C_TASK_FULL.
 */
static __always_inline struct kw_task *kw_task_get(bool create)
{
	struct kw_task *t;

	t = bpf_task_storage_get(&kw_tasks, bpf_get_current_task_btf(), NULL,
				 create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!t && create)
		kw_count(KW_C_TASK_FULL, 1);
	return t;
}

/* The memslot operation of a row of @trigger (struct kw_trig_key.memslot_op). */
static __always_inline __u32 kw_memslot_op_of(struct kw_task *t, __u32 trigger)
{
	return t && trigger == KW_T_IOCTL ? t->memslot_op : KW_MS_NONE;
}

static __always_inline __u32 kw_trigger_of(struct kw_task *t, __u32 *cmd)
{
	*cmd = 0;
	if (!t)
		return KW_T_OTHER;
	/* a teardown is never inside the others: it runs at the fd's last close or at exit */
	if (t->teardown_depth)
		return KW_T_TEARDOWN;
	if (t->notifier_depth)
		return KW_T_NOTIFIER;
	/* innermost: reclaim can age a page's KVM mappings inside a fault or an ioctl */
	if (t->aging_depth)
		return KW_T_AGING;
	if (t->fault_depth)
		return KW_T_FAULT;
	if (t->ioctl_depth) {
		*cmd = t->ioctl_cmd;
		return KW_T_IOCTL;
	}
	return KW_T_OTHER;
}

/*
 * The value of @key in the hash @map, inserted as @init if missing (bcc libbpf-tools'
 * bpf_map_lookup_or_try_init()). NULL when the map is full; counted in counter @full, by @lost
 * (the calls the caller meant to add: a folded row holds many). A failed
 * BPF_NOEXIST insert is not enough to say so: another CPU may have inserted the key meanwhile.
 * *@inserted (if not NULL) says whether this call inserted it.
 */
static __always_inline void *kw_map_lookup_or_init(void *map, const void *key, const void *init,
						   __u32 full, __u64 lost, bool *inserted)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	if (bpf_map_update_elem(map, key, init, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(map, key);
		if (!v)
			kw_count(full, lost);
		return v;
	}
	if (inserted)
		*inserted = true;
	return bpf_map_lookup_elem(map, key);
}

static __always_inline void kw_trig_add_n(__u32 probe, struct kw_task *t, __u64 id, __u64 calls,
					  __u64 ns)
{
	struct kw_trig_key k = { .probe = probe, .pid = id >> 32 };
	struct kw_trig_val *v, zero = {};
	bool inserted = false;

	k.trigger = kw_trigger_of(t, &k.cmd);
	k.memslot_op = kw_memslot_op_of(t, k.trigger);
	v = kw_map_lookup_or_init(&kw_triggers, &k, &zero, KW_C_TRIG_FULL, calls, &inserted);
	/*
	 * A new row: its process may be new too (user space reads each pid once). Only the task's
	 * first one wakes user space, which reads the others at its 0.2 s sweep: a wakeup at an
	 * ioctl's exit can take the VMM's CPU away for milliseconds under emulation, after the end
	 * of the kvm_vm_ioctl time kvmwalk took but within the VMM's own timing of its call (15 ms
	 * after the first KVM_GET_DIRTY_LOG of the dirty_log_perf_test selftest, seen on x86 7.3;
	 * the memslot operations make a new row at each first enable and disable of dirty logging).
	 */
	if (inserted) {
		kw_event_flags(k.pid, KW_EV_NEW_ROW, t && t->row_told ? BPF_RB_NO_WAKEUP : 0);
		if (t)
			t->row_told = 1;
	}
	if (!v)
		return;
	v->calls += calls;
	v->ns += ns;
}

static __always_inline void kw_trig_add(__u32 probe, struct kw_task *t, __u64 id, __u64 ns)
{
	kw_trig_add_n(probe, t, id, 1, ns);
}

/*
 * @calls calls of @probe, @ns in all, for the trigger row of the task's context: kept in @t while
 * the task is inside an ioctl, notifier, fault or teardown (kw_trig_fold() adds them when that
 * changes), added at once otherwise (a kernel thread may never change its context).
 */
static __always_inline void kw_trig_defer(__u32 probe, struct kw_task *t, __u64 id, __u64 calls,
					  __u64 ns)
{
	__u32 p = probe;

	if (!t || !(t->ioctl_depth | t->notifier_depth | t->fault_depth | t->teardown_depth |
		    t->aging_depth)) {
		kw_trig_add_n(probe, t, id, calls, ns);
		return;
	}
	barrier_var(p);
	if (p >= KW_NR_PROBES)
		return;
	t->trig_calls[p] += calls;
	t->trig_ns[p] += ns;
	t->trig_mask |= 1U << p;
}

/* A task's pending walk row is added once it holds this much walk time (pgtable.bpf.c). */
#define KW_CB_FOLD_NS (10 * 1000 * 1000ULL)

/* Adds the walk-callback row pending in @t (struct kw_task.cb_key) to kw_walk_cbs. */
static __always_inline void kw_cb_fold(struct kw_task *t)
{
	struct kw_cb_val *v, zero = {};

	if (!t->cb_val.calls)
		return;
	v = kw_map_lookup_or_init(&kw_walk_cbs, &t->cb_key, &zero, KW_C_CB_FULL, t->cb_val.calls,
				  NULL);
	if (v) {
		v->calls += t->cb_val.calls;
		v->ns += t->cb_val.ns;
		v->bytes += t->cb_val.bytes;
	}
	t->cb_val.calls = 0;
	t->cb_val.ns = 0;
	t->cb_val.bytes = 0;
}

/*
 * Adds the trigger rows pending in @t. Must run before anything that kw_trigger_of() reads
 * changes (trigger.bpf.c: every ioctl and context entry and exit), so that the rows go under the
 * key they were made under. A context exit that was missed (a kretprobe out of instances) leaves
 * them pending until the task's next context entry or exit.
 */
static __always_inline void kw_trig_fold(struct kw_task *t)
{
	__u32 mask = t->trig_mask;
	__u64 id;

	kw_cb_fold(t);
	if (!mask)
		return;
	t->trig_mask = 0;
	id = bpf_get_current_pid_tgid();
	for (__u32 p = 0; p < KW_NR_PROBES; p++) {
		if (!(mask & (1U << p)))
			continue;
		kw_trig_add_n(p, t, id, t->trig_calls[p], t->trig_ns[p]);
		t->trig_calls[p] = 0;
		t->trig_ns[p] = 0;
	}
}

/*
 * Adds the visits pending in @t (struct kw_task.vis[]) to kw_visits, the walkers' kw_stats slots
 * and the split walker's trigger row, once per walk instead of once per visit (issue 18: the
 * per-visit map updates made the visit probe 3.1x an empty fexit). Called at every
 * kvm_pgtable_walk exit and entry and from kw_task_put(), so visits whose walk exit was missed
 * (a kretprobe that ran out of instances, a walk nested deeper than KW_MAX_DEPTH) are added at
 * the task's next walk or probed exit; the trigger is the one in force then, which is the
 * visits' own as long as the task is still inside the same ioctl, notifier or fault.
 */
static __always_inline void kw_visits_fold(struct kw_task *t)
{
	__u32 mask = t->vis_mask, per_walker = KW_NR_LEVELS * KW_NR_OUTCOMES;
	__u64 n[KW_NR_WALKERS] = {};
	struct kw_probe_stats *s;

	if (!mask)
		return;
	t->vis_mask = 0;
	for (__u32 i = 0; i < KW_NR_VISITS; i++) {
		__u32 c, idx = i;
		__u64 *v;

		if (!(mask & (1U << i)))
			continue;
		c = t->vis[i];
		t->vis[i] = 0;
		v = bpf_map_lookup_elem(&kw_visits, &idx);
		if (v)
			*v += c;
		if (i < per_walker)
			n[KW_W_SPLIT] += c;
		else
			n[KW_W_UNMAP] += c;
	}
	_Static_assert(KW_NR_WALKERS == 2, "kw_visits_fold() knows two walkers");
	if (n[KW_W_SPLIT]) {
		s = kw_stats_of(KW_P_SPLIT_WALKER);
		if (s) {
			s->calls += n[KW_W_SPLIT];
			s->errors += t->vis_split_errors;
		}
		t->vis_split_errors = 0;
		/* which ioctl (or notifier) the visits belong to */
		kw_trig_defer(KW_P_SPLIT_WALKER, t, bpf_get_current_pid_tgid(), n[KW_W_SPLIT], 0);
	}
	if (n[KW_W_UNMAP]) {
		s = kw_stats_of(KW_P_UNMAP_WALKER);
		if (s)
			s->calls += n[KW_W_UNMAP];
	}
}

/*
 * Adds the tdp_iter_next steps pending in @t to their counters: once per tdp_mmu_zap_leafs exit
 * (and entry, and kw_task_put(), for a missed exit) instead of once per step.
 */
static __always_inline void kw_iter_fold(struct kw_task *t)
{
	struct kw_probe_stats *s;

	if (!t->iter_calls)
		return;
	s = kw_stats_of(KW_P_TDP_ITER_NEXT);
	if (s)
		s->calls += t->iter_calls;
	if (t->iter_4k)
		kw_count(KW_C_ZAP_VISITS_4K, t->iter_4k);
	if (t->iter_yields)
		kw_count(KW_C_ZAP_YIELDS, t->iter_yields);
	t->iter_calls = t->iter_4k = t->iter_yields = 0;
}

/*
 * When nothing is in flight any more, forget the last op: it tells a flush issued right after a
 * stage-2 op inside the same outer call (kvm_mmu_wp_memory_region flushes after its write-protect
 * walk returned) what it belongs to; a flush in a later call must not inherit it. Visits still
 * pending are added first (kw_visits_fold()).
 */
static __always_inline void kw_task_put(struct kw_task *t)
{
	kw_visits_fold(t);
	kw_iter_fold(t);
	if (t->last_op && !t->busy && !t->walk_depth && !t->ioctl_depth && !t->notifier_depth &&
	    !t->fault_depth && !t->teardown_depth && !t->aging_depth)
		t->last_op = 0;
}

/* An aging call's entry (tdp.bpf.c, pgtable.bpf.c): nothing of it visited yet. */
static __always_inline void kw_age_start(struct kw_task *t, bool mkold)
{
	t->age_mkold = mkold;
	t->age_visits = 0;
	t->age_young = 0;
	t->age_old = 0;
}

/*
 * An aging call's exit, seen from its entry (@ns not 0): its counters, by kind (@age: it clears
 * what it finds young; else it only tests), with what its walk did (struct kw_task.age_*).
 */
static __always_inline void kw_age_done(struct kw_task *t, bool age, __u64 ns, bool young)
{
	kw_count(age ? KW_C_AGE_CALLS : KW_C_TEST_AGE_CALLS, 1);
	kw_count(age ? KW_C_AGE_NS : KW_C_TEST_AGE_NS, ns);
	if (young)
		kw_count(age ? KW_C_AGE_YOUNG_CALLS : KW_C_TEST_AGE_YOUNG_CALLS, 1);
	kw_count(age ? KW_C_AGE_VISITS : KW_C_TEST_AGE_VISITS, t->age_visits);
	kw_count(age ? KW_C_AGE_YOUNG : KW_C_TEST_AGE_YOUNG, t->age_young);
	if (age)
		kw_count(KW_C_AGE_OLD, t->age_old);
}

/*
 * Entry of a non-nesting probe: counts the call, its size and remembers the start time. Returns
 * the task state (NULL if it could not be tracked).
 */
static __always_inline struct kw_task *kw_enter(__u32 probe, __u64 size, bool has_size)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_probe_stats *s;
	struct kw_task *t;

	if (kw_skip(id) || probe >= KW_NR_PROBES)
		return NULL;
	s = kw_stats_of(probe);
	if (!s)
		return NULL;
	s->calls++;
	if (has_size)
		kw_hist_put(kw_hslots.size[probe], size);
	t = kw_task_get(true);
	if (!t) {
		s->dropped++;
		return NULL;
	}
	if (t->busy & (1U << probe)) {
		s->missed++; /* the previous entry never saw its exit */
		t->stale |= 1U << probe;
	}
	t->start[probe] = bpf_ktime_get_ns();
	t->busy |= 1U << probe;
	return t;
}

/* Exit of a non-nesting probe: returns the duration, 0 if the entry was not seen. */
static __always_inline __u64 kw_exit(__u32 probe, long ret, struct kw_task **tp)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	struct kw_probe_stats *s;
	struct kw_task *t;

	*tp = NULL;
	if (kw_skip(id) || probe >= KW_NR_PROBES)
		return 0;
	/* the counts only when there is one to add: an exit's one map lookup is its histogram's */
	if (ret < 0 && (s = kw_stats_of(probe)))
		s->errors++;
	t = kw_task_get(false);
	if (!t || !(t->busy & (1U << probe))) {
		if ((s = kw_stats_of(probe)))
			s->missed++;
		return 0;
	}
	ns = bpf_ktime_get_ns() - t->start[probe];
	t->busy &= ~(1U << probe);
	kw_hist_put(kw_hslots.dur[probe], ns);
	kw_trig_defer(probe, t, id, 1, ns);
	*tp = t;
	return ns ?: 1;
}

/* Must follow kw_exit() once the caller is done with the task state. */
static __always_inline void kw_exit_done(struct kw_task *t)
{
	if (t)
		kw_task_put(t);
}

/* The exit of a probe that needs nothing more than kw_exit() records. */
static __always_inline void kw_exit_simple(__u32 probe, long ret)
{
	struct kw_task *t;

	kw_exit(probe, ret, &t);
	kw_exit_done(t);
}

/*
 * The return value in an fexit program: bpf_get_func_ret() (inlined by the verifier) rather than
 * the argument after the last one, because the argument count differs between kernels
 * (kvm_pgtable_stage2_split gained flags in 6.5, kvm_tdp_mmu_zap_leafs takes two more in 6.1).
 */
static __always_inline long kw_fexit_ret(unsigned long long *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return ret;
}

/*
 * The programs of a probe on kernel function @func, named as the loader's progs_table names them
 * (fe_, fx_, kp_, kr_ + @name): fentry/fexit where the kernel allows them, kprobe/kretprobe as the
 * fallback; the loader keeps one pair and turns the others off (bpf_program__set_autoload()).
 *
 * @enter runs with @func's leading arguments @args in scope, declared as for BPF_PROG() (the same
 * names for fentry and kprobe). @exit runs with `long ret`, the raw return value: cast it to
 * @func's return type (the upper 32 bits of an int return are undefined).
 */
#define KW_PROBE(name, func, enter, exit, args...)                                                 \
	KW_PROG("fentry/" #func, BPF_PROG, fe_##name, enter, ##args)                               \
	KW_PROG("fexit/" #func, KW_FEXIT_DECL, fx_##name, KW_EXIT_BODY(kw_fexit_ret(ctx), exit))   \
	KW_PROG("kprobe/" #func, BPF_KPROBE, kp_##name, enter, ##args)                             \
	KW_PROG("kretprobe/" #func, BPF_KRETPROBE, kr_##name, KW_EXIT_BODY(PT_REGS_RC(ctx), exit))

/* A probe on the entry only (per-entry counters): fe_, kp_ + @name. */
#define KW_PROBE_ENTRY(name, func, enter, args...)                                                 \
	KW_PROG("fentry/" #func, BPF_PROG, fe_##name, enter, ##args)                               \
	KW_PROG("kprobe/" #func, BPF_KPROBE, kp_##name, enter, ##args)

/* One program: SEC(@sec) int @decl(@name, @args) { @body; return 0; }, @decl as BPF_PROG. */
#define KW_PROG(sec, decl, name, body, args...)                                                    \
	SEC(sec)                                                                                   \
	int decl(name, ##args)                                                                     \
	{                                                                                          \
		body;                                                                              \
		return 0;                                                                          \
	}

#define KW_FEXIT_DECL(name) name(unsigned long long *ctx)
#define KW_EXIT_BODY(val, exit)                                                                    \
	long ret = (val);                                                                          \
	(void)ret;                                                                                 \
	exit

#endif /* KW_BPF_H */
