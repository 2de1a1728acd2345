// SPDX-License-Identifier: GPL-2.0
/*
 * x86 TDP MMU family (arch/x86/kvm/mmu/tdp_mmu.c, mmu.c), all in the kvm module: libbpf finds the
 * functions in the module's BTF for fentry, kprobes take the plain symbol name.
 *
 * Signatures, unchanged from 6.1 to 7.3:
 *   static bool tdp_mmu_zap_leafs(struct kvm *, struct kvm_mmu_page *root, gfn_t start,
 *                                 gfn_t end, bool can_yield, bool flush)
 *   bool kvm_tdp_mmu_unmap_gfn_range(struct kvm *, struct kvm_gfn_range *, bool flush)
 *   bool kvm_tdp_mmu_zap_leafs(struct kvm *, gfn_t start, gfn_t end, bool flush)  (6.1 also
 *       takes as_id and can_yield; only the duration is read)
 *   static int fast_page_fault(struct kvm_vcpu *, struct kvm_page_fault *)
 *   bool kvm_tdp_mmu_age_gfn_range(struct kvm *, struct kvm_gfn_range *), and the same for
 *       kvm_tdp_mmu_test_age_gfn
 *
 * Debian's 6.1 inlines fast_page_fault (it is not in /proc/kallsyms); the loader then falls back
 * to the kvmmmu:fast_page_fault tracepoint, which fires only for faults past
 * page_fault_can_be_fast() (a present SPTE, or A/D bits off): not for first touches.
 */
#include "kw.bpf.h"

/* arch/x86/kvm/mmu/spte.h: SPTE_MMU_PRESENT_MASK (bit 11 since 5.13), PT_PAGE_SIZE_MASK. */
#define SPTE_MMU_PRESENT (1ULL << 11)
#define SPTE_PAGE_SIZE (1ULL << 7)
#define PG_LEVEL_4K 1

/* an aging call in flight: tdp_iter_next steps are its visits (kvm_tdp_mmu_age_gfn_range) */
#define KW_TDP_AGE_BUSY ((1U << KW_P_TDP_AGE) | (1U << KW_P_TDP_TEST_AGE))

/* ---- tdp_mmu_zap_leafs: duration, gfns in range, leaves zapped ------------------------------- */

static __always_inline void zap_leafs_enter(__u64 start, __u64 end)
{
	struct kw_task *t = kw_enter(KW_P_TDP_ZAP_LEAFS, end - start, true);

	if (!t)
		return;
	kw_count(KW_C_ZAP_GFNS, end - start);
	/* steps of an earlier zap whose exit was missed */
	kw_iter_fold(t);
	t->zap_4k = 0;
	t->zap_zapped = 0;
}

/*
 * Per zap, what the totals cannot say: a zap that made no present leaf non-present ("empty"),
 * with the 4 KiB entries it visited and its time (report's findings: the walks the
 * empty-leaf-table hint removes). Only zaps whose entry was seen count, so a zap in flight when
 * kvmwalk attached is not taken for an empty one. The leaves come from the spte_changed
 * tracepoint and the visits from tdp_iter_next: each is 0 when its probe is not attached, which
 * report checks before it says anything from these counters.
 */
static __always_inline void zap_leafs_exit(void)
{
	struct kw_task *t;
	__u64 ns = kw_exit(KW_P_TDP_ZAP_LEAFS, 0, &t);

	if (t)
		kw_iter_fold(t);
	if (ns) {
		kw_count(KW_C_ZAP_CALLS, 1);
		if (!t->zap_zapped) {
			kw_count(KW_C_ZAP_EMPTY, 1);
			kw_count(KW_C_ZAP_EMPTY_VISITS_4K, t->zap_4k);
			kw_count(KW_C_ZAP_EMPTY_NS, ns);
		}
	}
	kw_exit_done(t);
}

KW_PROBE(zap_leafs, tdp_mmu_zap_leafs, zap_leafs_enter(start, end), zap_leafs_exit(), void *kvm,
	 void *root, __u64 start, __u64 end)

/*
 * kvmmmu:kvm_tdp_mmu_spte_changed(int as_id, gfn_t gfn, int level, u64 old_spte, u64 new_spte),
 * fired by handle_changed_spte() for every SPTE write, zaps included. Counted while the task is
 * inside tdp_mmu_zap_leafs: a present leaf that became non-present is one entry zapped.
 */
SEC("raw_tp/kvm_tdp_mmu_spte_changed")
int BPF_PROG(rt_spte_changed, int as_id, __u64 gfn, int level, __u64 old_spte, __u64 new_spte)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_probe_stats *s;
	struct kw_task *t;

	if (kw_skip(id))
		return 0;
	kw_count(KW_C_SPTE_CHANGES, 1);
	s = kw_stats_of(KW_P_SPTE_CHANGED);
	if (s)
		s->calls++;
	t = kw_task_get(false);
	if (!t)
		return 0;
	/* inside kvm_tdp_mmu_age_gfn_range: an entry made old (below) */
	if (t->busy & (1U << KW_P_TDP_AGE)) {
		t->age_old++;
		return 0;
	}
	if (!(t->busy & (1U << KW_P_TDP_ZAP_LEAFS)))
		return 0;
	if ((old_spte & SPTE_MMU_PRESENT) &&
	    (level == PG_LEVEL_4K || (old_spte & SPTE_PAGE_SIZE)) && !(new_spte & SPTE_MMU_PRESENT)) {
		kw_count(KW_C_ZAP_ZAPPED, 1);
		t->zap_zapped++;
	}
	return 0;
}

/*
 * tdp_iter_next(struct tdp_iter *iter) (arch/x86/kvm/mmu/tdp_iter.c, global, so never inlined into
 * tdp_mmu.c): every loop over TDP MMU entries, for_each_tdp_pte_min_level() included, ends each
 * iteration with it. Counted only while the task is inside tdp_mmu_zap_leafs, where each call
 * closes the visit of the entry iter points at:
 *   - calls: every step, at every level, restarts after a yield included;
 *   - KW_C_ZAP_VISITS_4K: visits of 4 KiB entries (iter->level == PG_LEVEL_4K) whose iteration did
 *     not yield. An iteration that yields mmu_lock sets iter->yielded and leaves its entry
 *     unprocessed; tdp_iter_next() then restarts from the root (iter->level is still the level
 *     of that entry) and the walk comes back to the same entry. Not counting the yielded visit
 *     makes the count exact under yields: one per 4 KiB entry the zap looked at, 512 for a 2 MiB
 *     range whose page table exists, 0 for a range a zap stepped over
 *     (patches/x86-tdp-zap-empty-hint);
 *   - KW_C_ZAP_YIELDS: iterations that yielded mmu_lock (iter->yielded, 5.16+).
 * Cost: one task-storage lookup per iterator step of every TDP MMU walk (faults included), which is
 * why this is a per-entry probe, off with --no-visits. A step only increments the task state's
 * iter_* fields; kw_iter_fold() adds them to kw_stats and kw_counters at the zap's exit.
 * @yielded, @level: read by the caller, directly (fentry) or through probe reads (kprobe).
 */
static __always_inline void iter_next(bool yielded, int level)
{
	struct kw_task *t;

	if (kw_skip_cur())
		return;
	t = kw_task_get(false);
	if (!t)
		return;
	/* an aging call's entries visited (below), not the zap's: an aging walk never zaps */
	if (t->busy & KW_TDP_AGE_BUSY) {
		t->age_visits++;
		return;
	}
	if (!(t->busy & (1U << KW_P_TDP_ZAP_LEAFS)))
		return;
	t->iter_calls++;
	if (yielded)
		t->iter_yields++;
	else if (level == PG_LEVEL_4K) {
		t->iter_4k++;
		t->zap_4k++;
	}
}

/* 3a0f64de479c "KVM: x86/mmu: Don't advance iterator after restart due to yielding" */
#define KW_ITER_YIELDED(read) (bpf_core_field_exists(iter->yielded) ? read(iter, yielded) : 0)

/* fentry: the iterator is a typed argument, read directly (no probe-read helper calls) */
SEC("fentry/tdp_iter_next")
int BPF_PROG(fe_iter_next, struct tdp_iter *iter)
{
	iter_next(KW_ITER_YIELDED(BPF_CORE_READ_BITFIELD), BPF_CORE_READ_BITFIELD(iter, level));
	return 0;
}

SEC("kprobe/tdp_iter_next")
int BPF_KPROBE(kp_iter_next, struct tdp_iter *iter)
{
	iter_next(KW_ITER_YIELDED(BPF_CORE_READ_BITFIELD_PROBED),
		  BPF_CORE_READ_BITFIELD_PROBED(iter, level));
	return 0;
}

/* ---- kvm_tdp_mmu_unmap_gfn_range: the MMU-notifier path -------------------------------------- */

static __always_inline void unmap_gfn_enter(struct kvm_gfn_range *r)
{
	__u64 n = BPF_CORE_READ(r, end) - BPF_CORE_READ(r, start);

	kw_enter(KW_P_TDP_UNMAP_GFN, n, true);
}

KW_PROBE(unmap_gfn, kvm_tdp_mmu_unmap_gfn_range, unmap_gfn_enter(r),
	 kw_exit_simple(KW_P_TDP_UNMAP_GFN, 0), void *kvm, struct kvm_gfn_range *r)

/*
 * ---- kvm_tdp_mmu_clear_dirty_pt_masked: dirty logging, one 64-page bitmap word ----------------
 * void kvm_tdp_mmu_clear_dirty_pt_masked(struct kvm *, struct kvm_memory_slot *, gfn_t gfn,
 *					   unsigned long mask, bool wrprot)
 * kvm_arch_mmu_enable_log_dirty_pt_masked() calls it once per non-zero word of a
 * KVM_CLEAR_DIRTY_LOG bitmap (or of KVM_GET_DIRTY_LOG's without manual protect): it
 * write-protects (wrprot, no PML) or clears the dirty bit of the word's pages in every root.
 * Size: the pages of the word (bits set in mask).
 */
static __always_inline __u64 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

KW_PROBE(clear_dirty, kvm_tdp_mmu_clear_dirty_pt_masked,
	 kw_enter(KW_P_TDP_CLEAR_DIRTY, popcount64(mask), true),
	 kw_exit_simple(KW_P_TDP_CLEAR_DIRTY, 0), void *kvm, void *slot, __u64 gfn, __u64 mask)

/* ---- kvm_tdp_mmu_zap_leafs: MTRR / CR0.CD / APICv changes through kvm_zap_gfn_range ---------- */

KW_PROBE(zap_all, kvm_tdp_mmu_zap_leafs, kw_enter(KW_P_TDP_ZAP_LEAFS_ALL, 0, false),
	 kw_exit_simple(KW_P_TDP_ZAP_LEAFS_ALL, 0))

/* ---- fast_page_fault: duration and return code ----------------------------------------------- */

static __always_inline void pf_ret(long ret)
{
	__u32 slot = ret < 0 || ret >= KW_NR_PF_RET - 1 ? KW_NR_PF_RET - 1 : ret;

	kw_count(KW_C_PF_RET + slot, 1);
}

/*
 * The return code is counted at every exit, also one whose entry run was lost (kw_exit() counts
 * it missed): the outcome is known at the exit alone.
 */
static __always_inline void fast_pf_exit(int ret)
{
	struct kw_task *t;

	if (kw_skip(bpf_get_current_pid_tgid()))
		return;
	kw_exit(KW_P_FAST_PF, 0, &t);
	pf_ret(ret);
	kw_exit_done(t);
}

/* static int fast_page_fault(struct kvm_vcpu *, struct kvm_page_fault *) */
KW_PROBE(fast_pf, fast_page_fault, kw_enter(KW_P_FAST_PF, 0, false), fast_pf_exit((int)ret))

/*
 * Fallback: kvmmmu:fast_page_fault(vcpu, fault, u64 *sptep, u64 old_spte, int ret) fires once at
 * the end of every fast_page_fault(): a count and the return code, no duration.
 */
SEC("raw_tp/fast_page_fault")
int BPF_PROG(rt_fast_pf, void *vcpu, void *fault, void *sptep, __u64 old, int ret)
{
	struct kw_probe_stats *s;

	if (kw_skip(bpf_get_current_pid_tgid()))
		return 0;
	s = kw_stats_of(KW_P_FAST_PF);
	if (!s)
		return 0;
	s->calls++;
	pf_ret(ret);
	return 0;
}

/* ---- aging: kvm_tdp_mmu_age_gfn_range and kvm_tdp_mmu_test_age_gfn -------------------------- */

/*
 * kvm_age_gfn() / kvm_test_age_gfn() (mmu.c) call these once per memslot range of an MMU
 * notifier's clear_flush_young / clear_young (age) or test_young (test). Both walk the leaf SPTEs
 * of the range in each valid root (tdp_root_for_each_leaf_pte, a for_each_tdp_pte loop that
 * never yields). An age call clears the Accessed bit of each leaf that has it; a test call only
 * looks. Per call, seen from entry to exit (kw_age_done()):
 *   - calls, time, gfns of the range (the size), calls that returned true (found a young leaf):
 *     the probe itself, exact;
 *   - entries visited: tdp_iter_next calls while the call is in flight (iter_next() above): each
 *     iteration of the loop, at every level, present or not, ends with one, and nothing else
 *     steps an iterator inside the call. Since the walk never yields, each step is one entry
 *     visited, exactly. One entry is not stepped past: the young leaf at which a test call
 *     returns at once, as __kvm_tdp_mmu_age_gfn_range() does after 6.12 (6.1 and 6.12 test
 *     every leaf of the range);
 *   - entries made old (age calls): kvmmmu:kvm_tdp_mmu_spte_changed events while the call is in
 *     flight (rt_spte_changed()). It fires once per leaf whose Accessed bit the call cleared
 *     (6.1 through tdp_mmu_set_spte_no_acc_track()'s handle_changed_spte(), 6.12 in
 *     age_gfn_range(), 7.3 in kvm_tdp_mmu_age_spte() when its cmpxchg won), and no other SPTE
 *     write happens inside an age call: exact.
 * Not counted on x86: how many leaves a call found young. 7.3 ages without mmu_lock and inlines
 * kvm_tdp_mmu_age_spte(); a young leaf whose cmpxchg lost to a concurrent writer is neither
 * made old nor traced, and the lost cmpxchg overwrites iter->old_spte, so no probe at the
 * entry of tdp_iter_next can see the value the call tested. The calls that found one are
 * counted (above); per entry only what was made old.
 */
static __always_inline void age_enter(__u32 probe, struct kvm_gfn_range *r)
{
	__u64 n = BPF_CORE_READ(r, end) - BPF_CORE_READ(r, start);
	struct kw_task *t = kw_enter(probe, n, true);

	if (t)
		kw_age_start(t, false);
}

static __always_inline void age_exit(__u32 probe, bool young)
{
	struct kw_task *t;
	__u64 ns = kw_exit(probe, 0, &t);

	if (ns)
		kw_age_done(t, probe == KW_P_TDP_AGE, ns, young);
	kw_exit_done(t);
}

KW_PROBE(tdp_age, kvm_tdp_mmu_age_gfn_range, age_enter(KW_P_TDP_AGE, range),
	 age_exit(KW_P_TDP_AGE, (__u8)ret), void *kvm, struct kvm_gfn_range *range)
KW_PROBE(tdp_test_age, kvm_tdp_mmu_test_age_gfn, age_enter(KW_P_TDP_TEST_AGE, range),
	 age_exit(KW_P_TDP_TEST_AGE, (__u8)ret), void *kvm, struct kvm_gfn_range *range)
