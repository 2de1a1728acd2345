// SPDX-License-Identifier: GPL-2.0
/*
 * Trigger family: what the task was doing when a walker ran. A KVM ioctl on a VM or vCPU fd, an
 * MMU-notifier invalidation or aging callback, a VM's teardown, or a vCPU fault; the innermost
 * of these wins (a fault inside KVM_RUN is a fault). Both arches.
 */
#include "kw.bpf.h"

const volatile bool kw_filter_pids = false;
const volatile bool kw_filter_vms = false;
/* Set by the loader (user/loader_load.c hist_slots()); as compiled, no histogram is kept. */
const volatile struct kw_hist_slots kw_hslots = {
	.dur = { [0 ... KW_NR_PROBES - 1] = KW_NO_HIST },
	.size = { [0 ... KW_NR_PROBES - 1] = KW_NO_HIST },
	.cleared = KW_NO_HIST,
};

#define KVMIO 0xAE

/*
 * Test knob, not a feature (KVMWALK_TEST_LOSE_EXIT=PROBE:N, user/loader_load.c): the exit of a
 * context probe acts as a run the kernel skipped on every call whose per-CPU count is a
 * multiple of N, so that a test can see attribution heal (tests/vm/cases/kw-heal). 0: off, and
 * the verifier removes the check (a frozen rodata constant).
 */
const volatile __u32 kw_test_lose_probe = 0; /* probe + 1 */
const volatile __u32 kw_test_lose_every = 0;

static __always_inline bool kw_test_lost(__u32 probe)
{
	struct kw_probe_stats *s;

	if (!kw_test_lose_every || kw_test_lose_probe != probe + 1)
		return false;
	s = kw_stats_of(probe);
	return s && s->calls % kw_test_lose_every == 0;
}

/*
 * Attribution that heals. A context (ioctl, fault, notifier, teardown) is a depth in the task's
 * state, raised at the entry and dropped at the exit of its probe; a run the kernel skipped (the
 * BPF recursion guard, a kretprobe without a free instance) would leave it raised, and every
 * later walk of the thread would go to it. Two boundaries prove such a context over:
 * - a KVM ioctl's entry: a KVM ioctl never runs inside another one, nor inside a vCPU fault
 *   (which runs inside KVM_RUN), an MMU-notifier callback (invalidation or aging) or a VM's
 *   teardown (exit_mmap, the last close): every context still open there is stale;
 * - a context's own entry while its previous call is still in flight (kw_enter() marks it in
 *   struct kw_task.stale): these contexts do not nest, so the previous exit was lost.
 * Each stale context ended is counted (KW_C_CTX_HEALED): the report and /metrics say so.
 */
static __always_inline void ioctl_enter(__u32 probe, __u32 cmd)
{
	struct kw_task *t = kw_enter(probe, 0, false);

	if (!t)
		return;
	kw_trig_fold(t); /* the rows of the context left */
	t->stale &= ~(1U << probe);
	if (t->ioctl_depth | t->fault_depth | t->notifier_depth | t->teardown_depth |
	    t->aging_depth) {
		kw_count(KW_C_CTX_HEALED, 1);
		t->fault_depth = t->notifier_depth = t->teardown_depth = t->aging_depth = 0;
	}
	t->ioctl_depth = 1;
	t->ioctl_cmd = cmd;
	t->memslot_op = KW_MS_NONE;
}

/*
 * kw_exit() of a probe that keeps a depth count: the task state even when the entry was not timed
 * (attached mid-call, or the start slot was busy), so that the count still drops.
 */
static __always_inline struct kw_task *depth_exit(__u32 probe, long ret)
{
	struct kw_task *t;

	kw_exit(probe, ret, &t);
	return t ?: kw_task_get(false);
}

static __always_inline void ioctl_exit(__u32 probe, long ret)
{
	struct kw_task *t;

	if (kw_test_lost(probe))
		return;
	/*
	 * A KVM ioctl's exit proves the contexts inside it over too (a fault inside KVM_RUN, a
	 * notifier from reclaim inside an ioctl end before it returns): ended before the ioctl's
	 * own row is filed, so that it goes under the ioctl.
	 */
	t = kw_task_get(false);
	if (t && (t->fault_depth | t->notifier_depth | t->teardown_depth | t->aging_depth)) {
		kw_trig_fold(t);
		kw_count(KW_C_CTX_HEALED, 1);
		t->fault_depth = t->notifier_depth = t->teardown_depth = t->aging_depth = 0;
	}
	t = depth_exit(probe, ret);

	if (!t)
		return;
	kw_trig_fold(t);
	if (t->ioctl_depth)
		t->ioctl_depth--;
	kw_task_put(t);
}

/* The contexts a task can be in besides an ioctl, each with its depth in struct kw_task. */
enum { CTX_FAULT, CTX_NOTIFIER, CTX_TEARDOWN, CTX_AGING };

static __always_inline __u32 *ctx_depth(struct kw_task *t, int ctx)
{
	return ctx == CTX_NOTIFIER ? &t->notifier_depth
	       : ctx == CTX_TEARDOWN ? &t->teardown_depth
	       : ctx == CTX_AGING    ? &t->aging_depth
				     : &t->fault_depth;
}

static __always_inline struct kw_task *ctx_enter(__u32 probe, int ctx)
{
	struct kw_task *t = kw_enter(probe, 0, false);
	__u32 *d;

	if (!t)
		return NULL;
	kw_trig_fold(t);
	d = ctx_depth(t, ctx);
	/* the previous call of this context lost its exit: its context ends here (see above) */
	if (t->stale & (1U << probe)) {
		t->stale &= ~(1U << probe);
		if (*d) {
			kw_count(KW_C_CTX_HEALED, 1);
			*d = 0;
		}
	}
	(*d)++;
	return t;
}

static __always_inline void ctx_exit(__u32 probe, long ret, int ctx)
{
	struct kw_task *t;
	__u32 *d;

	if (kw_test_lost(probe))
		return;
	t = depth_exit(probe, ret);

	if (!t)
		return;
	kw_trig_fold(t);
	d = ctx_depth(t, ctx);
	if (*d)
		(*d)--;
	kw_task_put(t);
}

/* kvm_{vm,vcpu}_ioctl(struct file *, unsigned int ioctl, unsigned long arg), same in 6.1 .. 7.3 */
KW_PROBE(vm_ioctl, kvm_vm_ioctl, ioctl_enter(KW_P_VM_IOCTL, cmd), ioctl_exit(KW_P_VM_IOCTL, ret),
	 void *filp, unsigned int cmd)
KW_PROBE(vcpu_ioctl, kvm_vcpu_ioctl, ioctl_enter(KW_P_VCPU_IOCTL, cmd),
	 ioctl_exit(KW_P_VCPU_IOCTL, ret), void *filp, unsigned int cmd)

/*
 * Fallback where neither fentry nor kprobe is allowed: the ioctl syscall itself, filtered to the
 * KVM ioctl type (KVMIO in the command's type byte). VM and vCPU ioctls are not told apart.
 */
struct kw_sys_enter_ioctl {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 fd;
	__u64 cmd;
	__u64 arg;
};

struct kw_sys_exit {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

SEC("tracepoint/syscalls/sys_enter_ioctl")
int tp_ioctl_enter(struct kw_sys_enter_ioctl *ctx)
{
	__u32 cmd = ctx->cmd;

	if (((cmd >> 8) & 0xff) == KVMIO)
		ioctl_enter(KW_P_VM_IOCTL, cmd);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int tp_ioctl_exit(struct kw_sys_exit *ctx)
{
	struct kw_task *t = kw_task_get(false);

	if (t && (t->busy & (1U << KW_P_VM_IOCTL)))
		ioctl_exit(KW_P_VM_IOCTL, ctx->ret);
	return 0;
}

/*
 * kvm_mmu_notifier_invalidate_range_start(struct mmu_notifier *, const struct mmu_notifier_range
 * *): the unmap itself (kvm_unmap_gfn_range) runs inside it; _end only drops the in-progress count.
 */
KW_PROBE(notifier, kvm_mmu_notifier_invalidate_range_start, ctx_enter(KW_P_NOTIFIER, CTX_NOTIFIER),
	 ctx_exit(KW_P_NOTIFIER, (int)ret, CTX_NOTIFIER))

/*
 * kvm_mmu_notifier_release(struct mmu_notifier *, struct mm_struct *), void: a VM's memory torn
 * down, the stage-2 / TDP tables freed inside it (kvm_flush_shadow_all). Both ways a VM goes:
 * its last fd closed (kvm_destroy_vm -> mmu_notifier_unregister -> release; QEMU's scratch VMs)
 * and its process exiting (exit_mmap -> mmu_notifier_release, before the fds are closed). On
 * 7.3 arm64 this is where 4,194,304 empty 1 GiB stage2_free_walker walks of a 52-bit VM run.
 */
KW_PROBE(mm_release, kvm_mmu_notifier_release, ctx_enter(KW_P_MM_RELEASE, CTX_TEARDOWN),
	 ctx_exit(KW_P_MM_RELEASE, 0, CTX_TEARDOWN))

/*
 * The MMU notifier's aging callbacks (virt/kvm/kvm_main.c), each one call of the arch's
 * kvm_age_gfn() / kvm_test_age_gfn() per memslot its range overlaps, where the aging walks run
 * (x86 kvm_tdp_mmu_age_gfn_range / kvm_tdp_mmu_test_age_gfn, arm64
 * kvm_pgtable_stage2_test_clear_young). Called by reclaim and MGLRU (folio_referenced(), the
 * lru_gen mm walk), page_idle, DAMON and khugepaged, in whatever task runs them (kswapd, a
 * debugfs write, a fault's direct reclaim): their walks are KW_T_AGING, not "other".
 *   clear_flush_young(mn, mm, unsigned long start, unsigned long end), clear_young(mn, mm,
 *   start, end), test_young(mn, mm, unsigned long address): int in 6.12, bool in 7.3, not read.
 */
KW_PROBE(clear_flush_young, kvm_mmu_notifier_clear_flush_young,
	 ctx_enter(KW_P_NOTIFIER_CLEAR_FLUSH_YOUNG, CTX_AGING),
	 ctx_exit(KW_P_NOTIFIER_CLEAR_FLUSH_YOUNG, 0, CTX_AGING))
KW_PROBE(clear_young, kvm_mmu_notifier_clear_young, ctx_enter(KW_P_NOTIFIER_CLEAR_YOUNG, CTX_AGING),
	 ctx_exit(KW_P_NOTIFIER_CLEAR_YOUNG, 0, CTX_AGING))
KW_PROBE(test_young, kvm_mmu_notifier_test_young, ctx_enter(KW_P_NOTIFIER_TEST_YOUNG, CTX_AGING),
	 ctx_exit(KW_P_NOTIFIER_TEST_YOUNG, 0, CTX_AGING))

/*
 * kvm_arch_prepare_memory_region(struct kvm *, const struct kvm_memory_slot *old, struct
 * kvm_memory_slot *new, enum kvm_mr_change change): the same on 6.1, 6.12 and 7.3, both arches
 * (since 537a17b31493 "KVM: Let/Force architectures to deal with arch specific memslot data").
 * Called once per memslot change (kvm_set_memslot), inside the ioctl, before
 * kvm_arch_commit_memory_region, where enabling dirty logging write-protects or splits the
 * slot; old is NULL for a create, new for a delete. It says what the ioctl in flight does
 * (enum kw_memslot_op): the ioctl's own trigger row, and those of the walks inside it from now
 * on, are keyed by it. x86 also changes its private slots (the APIC access page, VMX's TSS
 * and identity map) through it, inside other ioctls (KVM_CREATE_VCPU, KVM_RUN, ...), whose
 * rows are then keyed by that, and at a VM's destruction, outside any ioctl: not kept.
 */
#define KW_MEM_LOG_DIRTY_PAGES 1 /* uapi KVM_MEM_LOG_DIRTY_PAGES, (1UL << 0) */

static __always_inline __u32 memslot_flags(const struct kvm_memory_slot *s)
{
	return s ? BPF_CORE_READ(s, flags) : 0;
}

static __always_inline __u32 memslot_op(const struct kvm_memory_slot *old,
					const struct kvm_memory_slot *new, __u32 change)
{
	__u32 on_old, on_new;

	if (change == bpf_core_enum_value(enum kvm_mr_change, KVM_MR_CREATE))
		return KW_MS_CREATE;
	if (change == bpf_core_enum_value(enum kvm_mr_change, KVM_MR_DELETE))
		return KW_MS_DELETE;
	if (change == bpf_core_enum_value(enum kvm_mr_change, KVM_MR_MOVE))
		return KW_MS_MOVE;
	if (change != bpf_core_enum_value(enum kvm_mr_change, KVM_MR_FLAGS_ONLY))
		return KW_MS_NONE;
	on_old = memslot_flags(old) & KW_MEM_LOG_DIRTY_PAGES;
	on_new = memslot_flags(new) & KW_MEM_LOG_DIRTY_PAGES;
	return on_new && !on_old   ? KW_MS_DIRTY_LOG_ON
	       : on_old && !on_new ? KW_MS_DIRTY_LOG_OFF
				   : KW_MS_FLAGS;
}

static __always_inline void memslot_enter(const struct kvm_memory_slot *old,
					  const struct kvm_memory_slot *new, __u32 change)
{
	struct kw_task *t = kw_enter(KW_P_MEMSLOT, 0, false);

	if (!t || !t->ioctl_depth)
		return;
	kw_trig_fold(t); /* the rows made so far in the ioctl: before the key changes */
	t->memslot_op = memslot_op(old, new, change);
}

KW_PROBE(memslot, kvm_arch_prepare_memory_region, memslot_enter(old, new, change),
	 kw_exit_simple(KW_P_MEMSLOT, (int)ret), struct kvm *kvm,
	 const struct kvm_memory_slot *old, struct kvm_memory_slot *new, enum kvm_mr_change change)

/*
 * The vCPU fault handler; the loader points these at kvm_handle_guest_abort (arm64) or
 * kvm_mmu_page_fault (x86) with bpf_program__set_attach_target(). Both take the vCPU first; the
 * fault remembers its VM's mmu_lock (an rwlock on both arches) for the lock-wait probe. The
 * return value is not used.
 */
static __always_inline void fault_enter(struct kvm_vcpu *vcpu)
{
	struct kw_task *t = ctx_enter(KW_P_GUEST_FAULT, CTX_FAULT);
	struct kvm *kvm;

	if (!t)
		return;
	kvm = BPF_CORE_READ(vcpu, kvm);
	/* the task state outlives the fault: never leave the previous fault's lock behind */
	t->fault_lock = kvm ? (__u64)kvm + bpf_core_field_offset(struct kvm, mmu_lock) : 0;
}

KW_PROBE(fault, kvm_handle_guest_abort, fault_enter(vcpu), ctx_exit(KW_P_GUEST_FAULT, 0, CTX_FAULT),
	 struct kvm_vcpu *vcpu)

/*
 * Fault-side mmu_lock wait: lock:contention_begin(void *lock, unsigned int flags) and
 * contention_end(void *lock, int ret) (5.19+; queued rwlocks trace them in their slow paths),
 * counted only for a task inside a vCPU fault and only for that VM's mmu_lock.
 *
 * Exact, not a bound: every contended acquisition of a qrwlock goes through
 * queued_read_lock_slowpath() or queued_write_lock_slowpath(), which fire one begin and one end
 * with the qrwlock's address, and that is &kvm->mmu_lock (rwlock_t starts with its raw_lock).
 * The only slow path without the tracepoints is a reader's in_interrupt() spin, and no vCPU
 * fault runs in interrupt context. The qspinlock inside the qrwlock (wait_lock) traces its own
 * contention with another address: filtered out here, so a wait is one begin/end pair, never
 * two. raw_tp programs run with preemption off and take no rwlock, so the per-program
 * recursion guard (prog->active) never drops an mmu_lock event. A fault takes mmu_lock once
 * (x86 kvm_tdp_mmu_page_fault's read_lock, the shadow MMU's write_lock; arm64 user_mem_abort's
 * kvm_fault_lock(), handle_access_fault's read_lock): at most one wait per guest_fault call.
 * Not counted: waits outside a fault (x86 kvm_mmu_load() allocating roots, ioctls), which
 * are not fault-side. tests/vm/cases/kw-contend checks this under a concurrent invalidation.
 */
SEC("raw_tp/contention_begin")
int BPF_PROG(rt_lock_begin, void *lock)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_task *t;

	if (kw_skip(id))
		return 0;
	t = kw_task_get(false);
	if (!t || !t->fault_depth || t->fault_lock != (__u64)lock)
		return 0;
	kw_enter(KW_P_MMU_LOCK, 0, false);
	return 0;
}

SEC("raw_tp/contention_end")
int BPF_PROG(rt_lock_end, void *lock, int ret)
{
	struct kw_task *t = kw_task_get(false);

	if (!t || !(t->busy & (1U << KW_P_MMU_LOCK)) || t->fault_lock != (__u64)lock)
		return 0;
	kw_exit_simple(KW_P_MMU_LOCK, ret);
	return 0;
}

/*
 * --vm: the names wanted (zero-padded keys), filled by the loader before attach. rt_exec looks
 * the new program's -name up here and records a match at once, in the exec itself, before the
 * process can open /dev/kvm: no race with user space for QEMU's -name. user space still decides
 * everything else (libvirt's cgroup names, processes that were running before the start, execs
 * into something else) and overrides what rt_exec wrote; both parse -name the same way
 * (kw_vm_name_from_cmdline() in user/identity.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KW_MAX_VMS);
	__type(key, struct kw_vm_key);
	__type(value, __u8);
} kw_vm_names SEC(".maps");

/* the new program's arguments: libvirt's QEMU command lines run to several KiB, -name comes first */
#define KW_ARGS_MAX 4096
struct kw_exec_buf {
	char args[KW_ARGS_MAX];
	struct kw_vm_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kw_exec_buf);
} kw_exec_buf SEC(".maps");

/* bpf_loop() state: the arguments are NUL-separated tokens */
struct kw_scan {
	struct kw_exec_buf *b;
	__u32 len, ts; /* bytes read, start of the current token */
	__u32 vs, ve;  /* the -name value, [vs, ve) */
	__u32 gs;      /* its "guest=" (KW_ARGS_MAX: none) */
	__u32 eq, comma; /* its first '=' and ',' */
	__u32 o;
	bool want, m1, m2, done;
};

static __always_inline char kw_arg(const struct kw_scan *c, __u64 i)
{
	return c->b->args[i & (KW_ARGS_MAX - 1)];
}

/* byte p of a literal packed little-endian into a u64 */
static __always_inline bool kw_lit(__u64 lit, __u32 n, __u32 p, char ch)
{
	return p < n && ch == (char)(lit >> (8 * p));
}

#define KW_LIT_NAME 0x656d616e2dULL	  /* "-name" */
#define KW_LIT_DNAME 0x3d656d616e2d2dULL  /* "--name=" */
#define KW_LIT_GUEST 0x3d7473657567ULL	  /* "guest=" */

/* one byte of the arguments: finds the token after "-name"/"--name", or "--name=VALUE" */
static long kw_scan_arg(__u64 i, struct kw_scan *c)
{
	char ch;
	__u32 p;

	if (i >= c->len)
		return 1;
	ch = kw_arg(c, i);
	p = i - c->ts;
	if (ch) {
		c->m1 = c->m1 && kw_lit(KW_LIT_NAME, 5, p, ch);
		c->m2 = c->m2 && (p >= 7 || kw_lit(KW_LIT_DNAME, 7, p, ch));
		return 0;
	}
	if (c->want && p) {
		c->vs = c->ts, c->ve = i, c->done = true;
		return 1;
	}
	if (c->m2 && p > 7) {
		c->vs = c->ts + 7, c->ve = i, c->done = true;
		return 1;
	}
	c->want = (c->m1 && p == 5) || (c->m2 && p == 6);
	c->ts = i + 1;
	c->m1 = c->m2 = true;
	return 0;
}

/* one position of the value: its first '=' and ',' and where "guest=" starts (name_of_value()) */
static long kw_scan_value(__u64 i, struct kw_scan *c)
{
	__u64 q = c->vs + i;
	bool at = true;

	if (q >= c->ve || c->gs != KW_ARGS_MAX)
		return 1;
	if (kw_arg(c, q) == '=' && c->eq == KW_ARGS_MAX)
		c->eq = q;
	if (kw_arg(c, q) == ',' && c->comma == KW_ARGS_MAX)
		c->comma = q;
	/* "guest=" at the start or after a single comma */
	if (q > c->vs && (kw_arg(c, q - 1) != ',' || (q - 1 > c->vs && kw_arg(c, q - 2) == ',')))
		return 0;
	for (__u32 k = 0; k < 6; k++)
		at = at && q + k < c->ve && kw_lit(KW_LIT_GUEST, 6, k, kw_arg(c, q + k));
	if (at)
		c->gs = q + 6;
	return 0;
}

/* one byte of the name: up to a single ',' (",," is a comma), at most KW_VM_KEY_LEN - 1 */
static long kw_copy_name(__u64 i, struct kw_scan *c)
{
	__u64 q = c->vs + i;
	char ch;

	if (q >= c->ve || c->o >= KW_VM_KEY_LEN - 1)
		return 1;
	ch = kw_arg(c, q);
	if (ch == ',') {
		if (q + 1 >= c->ve || kw_arg(c, q + 1) != ',')
			return 1;
		c->vs++; /* the second comma of ",," is skipped */
	}
	c->b->key.name[c->o & (KW_VM_KEY_LEN - 1)] = ch;
	c->o++;
	return 0;
}

static __always_inline bool kw_exec_name_wanted(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct kw_scan c = { .gs = KW_ARGS_MAX, .eq = KW_ARGS_MAX, .comma = KW_ARGS_MAX,
			     .m1 = true, .m2 = true };
	unsigned long start, end;
	__u32 zero = 0;

	c.b = bpf_map_lookup_elem(&kw_exec_buf, &zero);
	if (!c.b)
		return false;
	start = BPF_CORE_READ(task, mm, arg_start);
	end = BPF_CORE_READ(task, mm, arg_end);
	if (end <= start)
		return false;
	/* a longer command line is cut: its last token has no NUL and is not looked at */
	c.len = end - start > KW_ARGS_MAX - 1 ? KW_ARGS_MAX - 1 : end - start;
	if (bpf_probe_read_user(c.b->args, c.len & (KW_ARGS_MAX - 1), (void *)start))
		return false;
	bpf_loop(KW_ARGS_MAX, kw_scan_arg, &c, 0);
	if (!c.done)
		return false;
	bpf_loop(KW_ARGS_MAX, kw_scan_value, &c, 0);
	if (c.gs != KW_ARGS_MAX)
		c.vs = c.gs;
	else if (c.eq < c.comma)
		return false; /* only other keys (process=..., debug-threads=...) */
	__builtin_memset(&c.b->key, 0, sizeof(c.b->key));
	bpf_loop(KW_VM_KEY_LEN, kw_copy_name, &c, 0);
	return c.o && bpf_map_lookup_elem(&kw_vm_names, &c.b->key);
}

/*
 * --vm: sched:sched_process_exec(task, old_pid, bprm), in the new program's context. A -name
 * that is wanted is recorded here (kw_vm_names); every exec is told to user space (kw_events),
 * which reads the new identity and decides the rest: a process that runs a probe before a
 * decision is counted in kw_undecided, not lost silently. Loaded only with --vm.
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(rt_exec)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u8 v = KW_PID_RECORD;

	if (kw_exec_name_wanted())
		bpf_map_update_elem(&kw_pids, &tgid, &v, BPF_ANY);
	kw_event(tgid, KW_EV_EXEC);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
