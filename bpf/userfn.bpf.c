// SPDX-License-Identifier: GPL-2.0
/*
 * User-named functions: `kvmwalk record --count FUNC` counts the calls of any traceable kernel
 * function, `--time FUNC` also times them, per trigger (bpf/kw.bpf.h's attribution: ioctl,
 * mmu_notifier, mmu_notifier_age, vcpu_fault, vm_teardown, other) and per process. A slot per
 * function; each slot has its own programs, written once by the UFN() macro below: an
 * fentry/fexit pair, retargeted by the loader with bpf_program__set_attach_target() before load,
 * and a kprobe/kretprobe pair, attached by name. The loader turns off the programs of unused
 * slots and of the mechanism it did not choose, and the exit program of a slot that is only
 * counted.
 *
 * Why one program per slot rather than one kprobe with bpf_get_attach_cookie(): fentry programs
 * are verified against their target's BTF, so each target needs a program of its own anyway,
 * and with the slot a constant both mechanisms share one body and kw_ustat[] indexes need no
 * bounds check the verifier must follow.
 *
 * Nothing here touches struct kw_task: the trigger is read from it (kw_trigger_of(),
 * kw_memslot_op_of()), start times live in a task storage of their own (kw_utasks), so a user
 * function never disturbs the built-in probes' state, even when it is one of their functions
 * (--count tdp_mmu_zap_leafs attaches a second fentry program to the same trampoline).
 */
#include "kw.bpf.h"
#include "userfn_abi.h"

/* bit per slot: time it (--time), else only count its calls at entry */
const volatile __u32 kw_ufunc_timed = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_MAX_UFUNCS);
	__type(key, __u32);
	__type(value, struct kw_ufunc_stats);
} kw_ustats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, KW_MAX_UTRIGS);
	__type(key, struct kw_trig_key);
	__type(value, struct kw_trig_val);
} kw_utrigs SEC(".maps");

struct kw_utask {
	__u64 start[KW_MAX_UFUNCS];
	__u32 busy; /* bit per slot with a start[] set */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kw_utask);
} kw_utasks SEC(".maps");

static __always_inline void utrig_add(__u32 slot, __u64 id, __u64 ns)
{
	struct kw_trig_key k = { .probe = slot, .pid = id >> 32 };
	struct kw_task *t = kw_task_get(false);
	struct kw_trig_val *v, zero = {};
	bool inserted = false;

	k.trigger = kw_trigger_of(t, &k.cmd);
	k.memslot_op = kw_memslot_op_of(t, k.trigger);
	v = kw_map_lookup_or_init(&kw_utrigs, &k, &zero, KW_C_TRIG_FULL, 1, &inserted);
	if (inserted)
		kw_event(k.pid, KW_EV_NEW_ROW); /* user space names its process */
	if (!v)
		return;
	v->calls++;
	v->ns += ns;
}

/*
 * @slot is a constant in each program, and must stay one for the verifier: u->start[slot] is
 * only in bounds if it knows the value. Passing &slot to a helper makes clang spill it to the
 * stack as a u32, and the verifier (7.3 included) does not keep the value of a 32-bit spill:
 * "R3 unbounded memory access" at start[slot] in every slot but 0. So the map key is a copy.
 */
static __always_inline struct kw_ufunc_stats *ustats_of(__u32 slot)
{
	__u32 key = slot;

	return bpf_map_lookup_elem(&kw_ustats, &key);
}

static __always_inline void ufn_enter(const __u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_ufunc_stats *s;
	struct kw_utask *u;

	if (kw_skip(id))
		return;
	s = ustats_of(slot);
	if (!s)
		return;
	s->c.calls++;
	if (!(kw_ufunc_timed & (1U << slot))) {
		utrig_add(slot, id, 0);
		return;
	}
	u = bpf_task_storage_get(&kw_utasks, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!u) {
		s->c.dropped++;
		return;
	}
	/* a recursive call, or an exit never seen: the outer entry's time is lost */
	if (u->busy & (1U << slot))
		s->c.missed++;
	u->start[slot] = bpf_ktime_get_ns();
	u->busy |= 1U << slot;
}

static __always_inline void ufn_exit(const __u32 slot)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	struct kw_ufunc_stats *s;
	struct kw_utask *u;

	if (kw_skip(id))
		return;
	s = ustats_of(slot);
	if (!s)
		return;
	u = bpf_task_storage_get(&kw_utasks, bpf_get_current_task_btf(), NULL, 0);
	if (!u || !(u->busy & (1U << slot))) {
		s->c.missed++; /* attached mid-call */
		return;
	}
	ns = bpf_ktime_get_ns() - u->start[slot];
	u->busy &= ~(1U << slot);
	kw_hist_add(&s->dur, ns);
	utrig_add(slot, id, ns);
}

/*
 * "fentry" and "kprobe" without a target: libbpf's "fentry+" / "kprobe+" section forms, the
 * target set by the loader (bpf_program__set_attach_target(), bpf_program__attach_kprobe()).
 */
#define UFN(n)                                                                                     \
	KW_PROG("fentry", BPF_PROG, fe_ufn##n, ufn_enter(n))                                       \
	KW_PROG("fexit", BPF_PROG, fx_ufn##n, ufn_exit(n))                                         \
	KW_PROG("kprobe", BPF_KPROBE, kp_ufn##n, ufn_enter(n))                                     \
	KW_PROG("kretprobe", BPF_KRETPROBE, kr_ufn##n, ufn_exit(n))

UFN(0)
UFN(1)
UFN(2)
UFN(3)
UFN(4)
UFN(5)
UFN(6)
UFN(7)
_Static_assert(KW_MAX_UFUNCS == 8, "one UFN() per slot");
/* LICENSE: trigger.bpf.c's, in the same linked object */
