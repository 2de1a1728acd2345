// SPDX-License-Identifier: GPL-2.0
/*
 * Trigger family: what the task was doing when a walker ran. A KVM ioctl on a VM or vCPU fd, an
 * MMU-notifier invalidation, or a vCPU fault; the innermost of these wins (a fault inside
 * KVM_RUN is a fault). Both arches.
 */
#include "kw.bpf.h"

const volatile bool kw_filter_pids = false;
const volatile bool kw_filter_vms = false;

#define KVMIO 0xAE

static __always_inline void ioctl_enter(__u32 probe, __u32 cmd)
{
	struct kw_task *t = kw_enter(probe, 0, false);

	if (!t)
		return;
	/* Outermost wins: kvm_vm_ioctl does not nest, but the tracepoint fallback runs around it */
	if (!t->ioctl_depth++)
		t->ioctl_cmd = cmd;
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
	struct kw_task *t = depth_exit(probe, ret);

	if (!t)
		return;
	if (t->ioctl_depth)
		t->ioctl_depth--;
	kw_task_put(t);
}

/* The contexts a task can be in besides an ioctl, each with its depth in struct kw_task. */
enum { CTX_FAULT, CTX_NOTIFIER, CTX_TEARDOWN };

static __always_inline __u32 *ctx_depth(struct kw_task *t, int ctx)
{
	return ctx == CTX_NOTIFIER ? &t->notifier_depth
	       : ctx == CTX_TEARDOWN ? &t->teardown_depth
				     : &t->fault_depth;
}

static __always_inline struct kw_task *ctx_enter(__u32 probe, int ctx)
{
	struct kw_task *t = kw_enter(probe, 0, false);

	if (!t)
		return NULL;
	(*ctx_depth(t, ctx))++;
	return t;
}

static __always_inline void ctx_exit(__u32 probe, long ret, int ctx)
{
	struct kw_task *t = depth_exit(probe, ret);
	__u32 *d;

	if (!t)
		return;
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
 * --vm: sched:sched_process_exec(task, old_pid, bprm), in the new program's context. Tells user
 * space the tgid right away (kw_events), so that it reads the new cmdline (a QEMU's -name) and decides
 * before the process opens /dev/kvm; a run of the process before that is counted in
 * kw_undecided, not lost silently. Loaded only with --vm.
 */
SEC("raw_tp/sched_process_exec")
int BPF_PROG(rt_exec)
{
	kw_event(bpf_get_current_pid_tgid() >> 32, KW_EV_EXEC);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
