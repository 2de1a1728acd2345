// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 stage-2 page-table family (arch/arm64/kvm/hyp/pgtable.c): the generic walker, the split
 * and unmap operations, their per-entry callbacks and the deferred range TLB flush.
 *
 * Kernel differences handled here, all by CO-RE (each shim names its commit):
 * - 6.1: walker callbacks take (addr, end, level, ptep, flag, arg); from 6.2 they take
 *   (const struct kvm_pgtable_visit_ctx *, enum kvm_pgtable_walk_flags visit). Tested with
 *   bpf_core_type_exists(); the 6.1 branch reads fentry arguments 2..4, which the verifier never
 *   sees on newer kernels (dead branch).
 * - kvm_pgtable_visit_ctx.level is u32 until 6.8 and s8 from 6.9 (LPA2 brings level -1): read
 *   with BPF_CORE_READ_BITFIELD_PROBED, which relocates the size and sign of the field.
 * - stage2_split_walker and kvm_pgtable_stage2_split exist from 6.4 (8f5a3eb7513f "KVM: arm64:
 *   Add kvm_pgtable_stage2_split()"), kvm_tlb_flush_vmid_range and __kvm_tlb_flush_vmid_range
 *   from 6.6 (7657ea920c54 "KVM: arm64: Use TLBI range-based instructions for unmap"); before
 *   that the loader marks them unavailable and never loads these programs.
 * - kvm_nested_s2_unmap (arch/arm64/kvm/nested.c) exists only in kernels with nested stage-2
 *   MMUs (it arrived with them, 6.11); elsewhere the loader marks it unavailable.
 * - kvm_pgtable_stage2_test_clear_young and stage2_age_walker exist from 6.5 (df6556adf27b
 *   "KVM: arm64: Correctly handle page aging notifiers for unaligned memslot"; before, aging was
 *   kvm_pgtable_stage2_mkold / kvm_pgtable_stage2_is_young of one page, through
 *   stage2_attr_walker): the loader marks them unavailable there.
 */
#include "kw.bpf.h"

/* Which flush probe feeds the per-unmap derived counters (set by the loader). */
const volatile __u32 kw_flush_primary = KW_P_TLB_FLUSH_RANGE;

#define KVM_PTE_VALID 1ULL
#define KVM_PTE_LEAF_ATTR_LO_S2_AF (1ULL << 10)
#define KVM_PGTABLE_LAST_LEVEL 3
#define KVM_PGTABLE_WALK_LEAF 1
#define KVM_PGTABLE_WALK_TABLE_POST 4

/* ---- kvm_pgtable_walk: nests, so each task keeps a stack of entries -------------------------- */

static __always_inline void walk_enter(__u64 size, __u64 cb, __u32 flags)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct kw_probe_stats *s;
	struct kw_task *t;
	__u32 d;

	if (kw_skip(id))
		return;
	s = kw_stats_of(KW_P_PGT_WALK);
	if (!s)
		return;
	s->calls++;
	kw_hist_put(kw_hslots.size[KW_P_PGT_WALK], size);
	t = kw_task_get(true);
	if (!t) {
		s->dropped++;
		return;
	}
	/* visits of an earlier walk whose exit was missed: theirs, not this walk's */
	kw_visits_fold(t);
	d = t->walk_depth++;
	if (d >= KW_MAX_DEPTH) {
		/* Counted; the matching exit only pops the depth. */
		kw_count(KW_C_DEPTH_OVERFLOW, 1);
		return;
	}
	barrier_var(d);
	d &= KW_MAX_DEPTH - 1;
	t->walk_start[d] = bpf_ktime_get_ns();
	t->walk_cb[d] = cb;
	t->walk_size[d] = size;
	t->walk_flags[d] = flags;
}

static __always_inline void walk_exit(long ret)
{
	__u64 id = bpf_get_current_pid_tgid(), ns;
	struct kw_cb_val *v, zero = {};
	struct kw_cb_key k = {};
	struct kw_probe_stats *s;
	struct kw_task *t;
	__u32 d;

	if (kw_skip(id))
		return;
	/* the counts only when there is one to add, as in kw_exit() */
	if (ret < 0 && (s = kw_stats_of(KW_P_PGT_WALK)))
		s->errors++;
	t = kw_task_get(false);
	if (!t || !t->walk_depth) {
		if ((s = kw_stats_of(KW_P_PGT_WALK)))
			s->missed++;
		return;
	}
	d = --t->walk_depth;
	kw_visits_fold(t);
	if (d >= KW_MAX_DEPTH)
		return;
	barrier_var(d);
	d &= KW_MAX_DEPTH - 1;
	ns = bpf_ktime_get_ns() - t->walk_start[d];
	kw_hist_put(kw_hslots.dur[KW_P_PGT_WALK], ns);
	kw_trig_defer(KW_P_PGT_WALK, t, id, 1, ns);

	k.cb = t->walk_cb[d];
	k.flags = t->walk_flags[d];
	k.depth = d;
	/*
	 * An outermost walk inside an ioctl, notifier, fault or teardown: its row waits in the task
	 * state while the walks that follow have the same key (kw_cb_fold()), a hash lookup per run
	 * of walks instead of per walk. Others (nested walks, kernel threads) are added at once.
	 */
	if (!d && (t->ioctl_depth | t->notifier_depth | t->fault_depth | t->teardown_depth |
		   t->aging_depth)) {
		if (t->cb_val.calls &&
		    (t->cb_key.cb != k.cb || t->cb_key.flags != k.flags || t->cb_key.depth))
			kw_cb_fold(t);
		t->cb_key = k;
		t->cb_val.calls++;
		t->cb_val.ns += ns;
		t->cb_val.bytes += t->walk_size[d];
		/*
		 * A run of one key can last minutes (a 52-bit teardown: 4 million walks, 40 s under
		 * emulation): folded every KW_CB_FOLD_NS of walk time, so that each interval of
		 * record --interval gets its own share instead of the whole run at its end.
		 */
		if (t->cb_val.ns >= KW_CB_FOLD_NS)
			kw_cb_fold(t);
		kw_task_put(t);
		return;
	}
	v = kw_map_lookup_or_init(&kw_walk_cbs, &k, &zero, KW_C_CB_FULL, 1, NULL);
	if (v) {
		v->calls++;
		v->ns += ns;
		v->bytes += t->walk_size[d];
	}
	kw_task_put(t);
}

/* int kvm_pgtable_walk(struct kvm_pgtable *, u64 addr, u64 size, struct kvm_pgtable_walker *) */
KW_PROBE(walk, kvm_pgtable_walk,
	 walk_enter(size, (__u64)BPF_CORE_READ(w, cb), BPF_CORE_READ(w, flags)),
	 walk_exit((int)ret), void *pgt, __u64 addr, __u64 size, struct kvm_pgtable_walker *w)

/* ---- kvm_pgtable_stage2_{split,unmap,wrprotect}(pgt, addr, size, ...) ------------------------ */

static __always_inline void op_enter(__u32 probe, __u64 size)
{
	struct kw_task *t = kw_enter(probe, size, true);

	if (t && probe == KW_P_S2_UNMAP) {
		t->unmap_cleared = 0;
		t->unmap_flushes = 0;
		t->unmap_flush_ns = 0;
	}
}

static __always_inline void op_exit(__u32 probe, long ret)
{
	struct kw_task *t;

	if (!kw_exit(probe, ret, &t))
		return;
	if (probe == KW_P_S2_UNMAP) {
		t->last_op = KW_E_UNMAP + 1;
		kw_count(KW_C_UNMAP_CALLS, 1);
		kw_count(KW_C_UNMAP_CLEARED, t->unmap_cleared);
		kw_count(KW_C_UNMAP_FLUSHES, t->unmap_flushes);
		kw_count(KW_C_UNMAP_FLUSH_NS, t->unmap_flush_ns);
		if (!t->unmap_cleared) {
			kw_count(KW_C_UNMAP_EMPTY, 1);
			kw_count(KW_C_EMPTY_FLUSHES, t->unmap_flushes);
			kw_count(KW_C_EMPTY_FLUSH_NS, t->unmap_flush_ns);
		}
		kw_hist_put(kw_hslots.cleared, t->unmap_cleared);
		/* one 1 GiB chunk of a nested MMU's whole IPA space (stage2_apply_range) */
		if (t->busy & (1U << KW_P_NESTED_UNMAP)) {
			t->nested_unmaps++;
			kw_count(KW_C_NESTED_UNMAPS, 1);
			kw_count(KW_C_NESTED_CLEARED, t->unmap_cleared);
			kw_count(KW_C_NESTED_FLUSHES, t->unmap_flushes);
			kw_count(KW_C_NESTED_FLUSH_NS, t->unmap_flush_ns);
			if (!t->unmap_cleared) {
				kw_count(KW_C_NESTED_EMPTY, 1);
				kw_count(KW_C_NESTED_EMPTY_FLUSHES, t->unmap_flushes);
				kw_count(KW_C_NESTED_EMPTY_FLUSH_NS, t->unmap_flush_ns);
			}
		}
	} else if (probe == KW_P_S2_WRPROTECT) {
		t->last_op = KW_E_WRPROTECT + 1;
	} else if (probe == KW_P_S2_SPLIT) {
		t->last_op = KW_E_SPLIT + 1;
	}
	kw_exit_done(t);
}

/* int kvm_pgtable_stage2_OP(struct kvm_pgtable *, u64 addr, u64 size, ...) */
KW_PROBE(kvm_pgtable_stage2_split, kvm_pgtable_stage2_split, op_enter(KW_P_S2_SPLIT, size),
	 op_exit(KW_P_S2_SPLIT, (int)ret), void *pgt, __u64 addr, __u64 size)
KW_PROBE(kvm_pgtable_stage2_unmap, kvm_pgtable_stage2_unmap, op_enter(KW_P_S2_UNMAP, size),
	 op_exit(KW_P_S2_UNMAP, (int)ret), void *pgt, __u64 addr, __u64 size)
KW_PROBE(kvm_pgtable_stage2_wrprotect, kvm_pgtable_stage2_wrprotect,
	 op_enter(KW_P_S2_WRPROTECT, size), op_exit(KW_P_S2_WRPROTECT, (int)ret), void *pgt,
	 __u64 addr, __u64 size)

/*
 * void kvm_nested_s2_unmap(struct kvm *, bool may_block): with mmu_lock held for write, unmaps
 * [0, kvm_phys_size(mmu)) of every valid nested stage-2 MMU, whatever range the caller
 * invalidated (an MMU notifier, a memslot deletion, stage2_unmap_vm). kvm_unmap_gfn_range()
 * calls it for every VM, so most calls return at once (no nested MMU): the calls that made
 * unmap calls (counted by op_exit() while it is in flight) are counted apart, with their time.
 */
static __always_inline void nested_enter(void)
{
	struct kw_task *t = kw_enter(KW_P_NESTED_UNMAP, 0, false);

	if (t)
		t->nested_unmaps = 0;
}

static __always_inline void nested_exit(void)
{
	struct kw_task *t;
	__u64 ns = kw_exit(KW_P_NESTED_UNMAP, 0, &t);

	if (ns && t->nested_unmaps) {
		kw_count(KW_C_NESTED_ACTIVE, 1);
		kw_count(KW_C_NESTED_ACTIVE_NS, ns);
	}
	kw_exit_done(t);
}

KW_PROBE(nested_unmap, kvm_nested_s2_unmap, nested_enter(), nested_exit(), void *kvm)

/* ---- per-entry callbacks --------------------------------------------------------------------- */

/* A visit counted at once: no enclosing walk is tracked (walk probe off, attached mid-walk). */
static __always_inline void visit_add(__u32 idx)
{
	__u64 *v = bpf_map_lookup_elem(&kw_visits, &idx);

	if (v)
		(*v)++;
}

static __always_inline __u32 visit_idx(__u32 walker, int level, __u32 outcome)
{
	__u32 lvl1 = level + 1;

	if (lvl1 >= KW_NR_LEVELS)
		lvl1 = KW_NR_LEVELS - 1;
	return KW_VISIT_IDX(walker, lvl1, outcome);
}

/*
 * Counts visit @idx in the task state @t (NULL: none) if a kvm_pgtable_walk of the task is in
 * flight, for kw_visits_fold() to add at its exit: one task-storage lookup (the caller's) and an
 * increment per visit. Returns false when the caller must count the visit itself.
 */
static __always_inline bool visit_pend(struct kw_task *t, __u32 idx)
{
	if (!t || !t->walk_depth)
		return false;
	barrier_var(idx);
	if (idx >= KW_NR_VISITS)
		return true;
	t->vis[idx]++;
	t->vis_mask |= 1U << idx;
	return true;
}

/* Direct reads in fentry/fexit (typed, trusted arguments): no probe-read helper calls. */
static __always_inline int vctx_level(const struct kvm_pgtable_visit_ctx *c)
{
	/* u32, s8 since 419edf48d79f "KVM: arm64: Convert translation level parameter to s8" */
	return BPF_CORE_READ_BITFIELD(c, level);
}

/* kprobe mode: the context is an untyped pointer, read through bpf_probe_read_kernel() */
static __always_inline int vctx_level_probed(const struct kvm_pgtable_visit_ctx *c)
{
	return BPF_CORE_READ_BITFIELD_PROBED(c, level);
}

/* dfc7a7769ab7 "KVM: arm64: Combine visitor arguments into a context structure" (6.2) */
#define KW_HAS_VISIT_CTX bpf_core_type_exists(struct kvm_pgtable_visit_ctx)

/*
 * stage2_split_walker (6.4+, always the ctx signature), walker flags LEAF only, so it is called
 * for every non-table entry in range: valid blocks, invalid entries and level-3 pages. The rule
 * for "did it split" follows the function: level 3 returns 0 at once ("No huge-pages exist at the
 * last level"), an invalid entry returns 0 ("We only split valid block mappings"); any other visit
 * is a valid block at level <= 2, which is split exactly when the walker returns 0 (it returns
 * -ENOMEM when the cache is short, -EAGAIN when the break-before-make cmpxchg lost). A walk then
 * descends into the new table, so a split 2 MiB block costs 1 level-2 visit + 512 level-3 ones.
 * @t: the task state, NULL if it has none.
 */
static __always_inline void split_visit(struct kw_task *t, int level, __u64 old, long ret)
{
	struct kw_probe_stats *s;
	__u32 outcome;

	if (level >= KVM_PGTABLE_LAST_LEVEL || !(old & KVM_PTE_VALID))
		outcome = KW_O_NOTHING;
	else
		outcome = ret ? KW_O_FAILED : KW_O_SPLIT;
	if (visit_pend(t, visit_idx(KW_W_SPLIT, level, outcome))) {
		if (ret < 0)
			t->vis_split_errors++;
		return;
	}
	visit_add(visit_idx(KW_W_SPLIT, level, outcome));
	s = kw_stats_of(KW_P_SPLIT_WALKER);
	if (s) {
		s->calls++;
		if (ret < 0)
			s->errors++;
	}
	kw_trig_defer(KW_P_SPLIT_WALKER, t, bpf_get_current_pid_tgid(), 1, 0);
}

SEC("fexit/stage2_split_walker")
int BPF_PROG(fx_split_walker, const struct kvm_pgtable_visit_ctx *c, int visit, int ret)
{
	if (kw_skip_cur())
		return 0;
	split_visit(kw_task_get(false), vctx_level(c), c->old, ret);
	return 0;
}

/* kprobe mode: the entry stashes the visit, the return classifies it. */
SEC("kprobe/stage2_split_walker")
int BPF_KPROBE(kp_split_walker, const struct kvm_pgtable_visit_ctx *c)
{
	struct kw_task *t;

	if (kw_skip_cur())
		return 0;
	t = kw_task_get(true);
	if (!t) {
		struct kw_probe_stats *s = kw_stats_of(KW_P_SPLIT_WALKER);

		if (s)
			s->dropped++;
		return 0;
	}
	t->split_level = vctx_level_probed(c);
	t->split_block = BPF_CORE_READ(c, old) & KVM_PTE_VALID;
	t->busy |= 1U << KW_P_SPLIT_WALKER;
	return 0;
}

/*
 * No kw_task_put() here: it would add the pending visits at every visit. The enclosing walk's
 * exit (or the next probed exit) does it.
 */
SEC("kretprobe/stage2_split_walker")
int BPF_KRETPROBE(kr_split_walker, int ret)
{
	struct kw_task *t;

	if (kw_skip_cur())
		return 0;
	t = kw_task_get(false);
	if (!t || !(t->busy & (1U << KW_P_SPLIT_WALKER))) {
		struct kw_probe_stats *s = kw_stats_of(KW_P_SPLIT_WALKER);

		if (s)
			s->missed++;
		return 0;
	}
	t->busy &= ~(1U << KW_P_SPLIT_WALKER);
	split_visit(t, t->split_level, t->split_block, ret);
	return 0;
}

/*
 * stage2_unmap_walker, flags LEAF | TABLE_POST. A leaf visit of a valid entry always clears it
 * (stage2_unmap_put_pte); a leaf visit of an invalid entry clears nothing (at most it drops a
 * counted annotation); table visits free the table when its last entry went.
 */
static __always_inline void unmap_visit(int level, __u64 old, __u32 visit)
{
	struct kw_probe_stats *s;
	struct kw_task *t;
	__u32 outcome;

	if (kw_skip_cur())
		return;
	if (visit & KVM_PGTABLE_WALK_TABLE_POST)
		outcome = KW_O_TABLE;
	else if (old & KVM_PTE_VALID)
		outcome = KW_O_CLEARED;
	else
		outcome = KW_O_INVALID;
	t = kw_task_get(false);
	if (t && outcome == KW_O_CLEARED)
		t->unmap_cleared++;
	if (visit_pend(t, visit_idx(KW_W_UNMAP, level, outcome)))
		return;
	visit_add(visit_idx(KW_W_UNMAP, level, outcome));
	s = kw_stats_of(KW_P_UNMAP_WALKER);
	if (s)
		s->calls++;
}

SEC("fentry/stage2_unmap_walker")
int fe_unmap_walker(unsigned long long *ctx)
{
	if (KW_HAS_VISIT_CTX) {
		/* a typed (BTF) pointer: the verifier types ctx[0] from the function's BTF */
		const struct kvm_pgtable_visit_ctx *c = (void *)ctx[0];

		unmap_visit(vctx_level(c), c->old, ctx[1]);
	} else {
		/* 6.1: (u64 addr, u64 end, u32 level, kvm_pte_t *ptep, flag, arg) */
		__u64 old = 0;

		bpf_probe_read_kernel(&old, sizeof(old), (void *)ctx[3]);
		unmap_visit((int)ctx[2], old, ctx[4]);
	}
	return 0;
}

SEC("kprobe/stage2_unmap_walker")
int kp_unmap_walker(struct pt_regs *regs)
{
	if (KW_HAS_VISIT_CTX) {
		const struct kvm_pgtable_visit_ctx *c = (void *)PT_REGS_PARM1_CORE(regs);

		unmap_visit(vctx_level_probed(c), BPF_CORE_READ(c, old), PT_REGS_PARM2_CORE(regs));
	} else {
		__u64 old = 0;

		bpf_probe_read_kernel(&old, sizeof(old), (void *)PT_REGS_PARM4_CORE(regs));
		unmap_visit((int)PT_REGS_PARM3_CORE(regs), old, PT_REGS_PARM5_CORE(regs));
	}
	return 0;
}

/* ---- range TLB flushes ----------------------------------------------------------------------- */

/*
 * kvm_tlb_flush_vmid_range(struct kvm_s2_mmu *, phys_addr_t addr, size_t size) runs at EL1 in
 * every mode and is what kvm_pgtable_stage2_unmap calls for its deferred flush;
 * __kvm_tlb_flush_vmid_range(mmu, phys_addr_t start, unsigned long pages) is the EL2 side, a
 * plain call in VHE, a hypercall in nVHE/protected mode (where the probe never fires).
 */
static __always_inline void flush_enter(__u32 probe, __u64 pages)
{
	struct kw_task *t = kw_enter(probe, pages, true);

	if (t && probe == kw_flush_primary)
		t->flush_pages = pages;
}

static __always_inline void flush_exit(__u32 probe)
{
	struct kw_task *t;
	__u32 encl;
	__u64 ns;

	ns = kw_exit(probe, 0, &t);
	if (!ns)
		return;
	if (probe != kw_flush_primary)
		goto out;
	if (t->busy & (1U << KW_P_S2_UNMAP)) {
		encl = KW_E_UNMAP;
		t->unmap_flushes++;
		t->unmap_flush_ns += ns;
	} else if (t->busy & (1U << KW_P_S2_WRPROTECT)) {
		encl = KW_E_WRPROTECT;
	} else if (t->busy & (1U << KW_P_S2_SPLIT)) {
		encl = KW_E_SPLIT;
	} else if (t->last_op == KW_E_WRPROTECT + 1) {
		/* kvm_mmu_wp_memory_region flushes after the write-protect walk returned */
		encl = KW_E_WRPROTECT;
	} else {
		encl = KW_E_OTHER;
	}
	kw_count(KW_C_FLUSH_ENCL + encl, 1);
	kw_count(KW_C_FLUSH_ENCL_PAGES + encl, t->flush_pages);
out:
	kw_exit_done(t);
}

KW_PROBE(flush, kvm_tlb_flush_vmid_range, flush_enter(KW_P_TLB_FLUSH_RANGE, size >> 12),
	 flush_exit(KW_P_TLB_FLUSH_RANGE), void *mmu, __u64 addr, __u64 size)
KW_PROBE(hyp_flush, __kvm_tlb_flush_vmid_range, flush_enter(KW_P_HYP_FLUSH_RANGE, pages),
	 flush_exit(KW_P_HYP_FLUSH_RANGE), void *mmu, __u64 start, __u64 pages)

/* ---- aging: kvm_pgtable_stage2_test_clear_young and stage2_age_walker ----------------------- */

/*
 * bool kvm_pgtable_stage2_test_clear_young(struct kvm_pgtable *, u64 addr, u64 size, bool mkold):
 * kvm_age_gfn() (mkold: the MMU notifier's clear_flush_young / clear_young) and
 * kvm_test_age_gfn() (test_young) call it once per memslot range; it is one kvm_pgtable_walk
 * with stage2_age_walker, KVM_PGTABLE_WALK_LEAF, and returns whether a visit found a young
 * leaf. Per call, seen from entry to exit (kw_age_done()): its calls, time, bytes, the calls
 * that returned true, and its walker's visits, young leaves and leaves made old, split by mkold
 * into age and test-age counters. @mkold is a bool in a 64-bit argument slot whose upper bits
 * the caller need not clear: only its low byte is read.
 */
static __always_inline void s2_age_enter(__u64 size, bool mkold)
{
	struct kw_task *t = kw_enter(KW_P_S2_AGE, size, true);

	if (t)
		kw_age_start(t, mkold);
}

/*
 * Its walker's visits were counted in the task (age_visit()); they go to stage2_age_walker's own
 * calls and trigger row here, once per call.
 */
static __always_inline void s2_age_exit(bool young)
{
	struct kw_probe_stats *s;
	struct kw_task *t;
	__u64 ns = kw_exit(KW_P_S2_AGE, 0, &t);

	if (!t)
		return;
	kw_age_done(t, t->age_mkold, ns, young);
	if (t->age_visits && (s = kw_stats_of(KW_P_AGE_WALKER))) {
		s->calls += t->age_visits;
		s->errors += t->age_errors;
		kw_trig_defer(KW_P_AGE_WALKER, t, bpf_get_current_pid_tgid(), t->age_visits, 0);
	}
	t->age_visits = 0;
	t->age_errors = 0;
	kw_exit_done(t);
}

KW_PROBE(s2_age, kvm_pgtable_stage2_test_clear_young, s2_age_enter(size, (__u8)mkold),
	 s2_age_exit((__u8)ret), void *pgt, __u64 addr, __u64 size, __u64 mkold)

/*
 * stage2_age_walker(const struct kvm_pgtable_visit_ctx *, enum kvm_pgtable_walk_flags), always
 * with the visit context (it arrived after dfc7a7769ab7), called for every leaf entry of the
 * range, valid or not. It finds a leaf young when it is valid and its Access Flag
 * (KVM_PTE_LEAF_ATTR_LO_S2_AF) is set, and with mkold clears the flag with stage2_try_set_pte():
 * it returns 0 when that succeeded (always, while mmu_lock is held for write), -EAGAIN when a
 * concurrent update won. So, exactly: a visit is one call; young is decided on ctx->old, which
 * the walker never changes; made old is young, mkold and a return of 0. A visit outside a
 * tracked test_clear_young (the probe off, attached mid-call) counts in the walker's calls only.
 */
static __always_inline void age_visit(struct kw_task *t, bool young, long ret)
{
	struct kw_probe_stats *s;

	if (t && (t->busy & (1U << KW_P_S2_AGE))) {
		t->age_visits++;
		if (young) {
			t->age_young++;
			if (t->age_mkold && !ret)
				t->age_old++;
		}
		if (ret < 0)
			t->age_errors++;
		return;
	}
	s = kw_stats_of(KW_P_AGE_WALKER);
	if (s) {
		s->calls++;
		if (ret < 0)
			s->errors++;
	}
	kw_trig_defer(KW_P_AGE_WALKER, t, bpf_get_current_pid_tgid(), 1, 0);
}

static __always_inline bool age_young(__u64 old)
{
	return (old & KVM_PTE_VALID) && (old & KVM_PTE_LEAF_ATTR_LO_S2_AF);
}

SEC("fexit/stage2_age_walker")
int BPF_PROG(fx_age_walker, const struct kvm_pgtable_visit_ctx *c, int visit, int ret)
{
	if (kw_skip_cur())
		return 0;
	age_visit(kw_task_get(false), age_young(c->old), ret);
	return 0;
}

/* kprobe mode: the entry reads the visit, the return classifies it (as stage2_split_walker). */
SEC("kprobe/stage2_age_walker")
int BPF_KPROBE(kp_age_walker, const struct kvm_pgtable_visit_ctx *c)
{
	struct kw_task *t;

	if (kw_skip_cur())
		return 0;
	t = kw_task_get(true);
	if (!t) {
		struct kw_probe_stats *s = kw_stats_of(KW_P_AGE_WALKER);

		if (s)
			s->dropped++;
		return 0;
	}
	t->age_kp_young = age_young(BPF_CORE_READ(c, old));
	t->busy |= 1U << KW_P_AGE_WALKER;
	return 0;
}

/* No kw_task_put() here, as for stage2_split_walker: the enclosing call's exit does it. */
SEC("kretprobe/stage2_age_walker")
int BPF_KRETPROBE(kr_age_walker, int ret)
{
	struct kw_task *t;

	if (kw_skip_cur())
		return 0;
	t = kw_task_get(false);
	if (!t || !(t->busy & (1U << KW_P_AGE_WALKER))) {
		struct kw_probe_stats *s = kw_stats_of(KW_P_AGE_WALKER);

		if (s)
			s->missed++;
		return 0;
	}
	t->busy &= ~(1U << KW_P_AGE_WALKER);
	age_visit(t, t->age_kp_young, ret);
	return 0;
}
