/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histogram maths for BPF programs; user/hist.c holds the same maths for user space.
 * Include after "vmlinux.h" and <bpf/bpf_helpers.h>.
 *
 * Verified: a tp_btf and a raw_tp program calling kw_hist_add() on a BPF_MAP_TYPE_PERCPU_ARRAY
 * value, built with clang 14 -O2 against vmlinux/x86 (7.3), load with `bpftool prog loadall` on a
 * 6.18 x86_64 kernel. Without the barrier_var() in kw_hist_add() the same kernel rejects them
 * ("R2 unbounded memory access").
 */
#ifndef KW_HIST_BPF_H
#define KW_HIST_BPF_H

#include "hist_abi.h"

#ifndef barrier_var /* <bpf/bpf_helpers.h> has it from libbpf 0.8 */
#define barrier_var(var) asm volatile("" : "=r"(var) : "0"(var))
#endif

/*
 * 1-based index of the most significant set bit, 0 for 0. A branchy binary search rather than a
 * loop: there is no clz instruction in BPF, and six straight-line steps need no bounded-loop
 * support (the 6.1 verifier is one of our targets).
 */
static __always_inline __u32 kw_fls64(__u64 v)
{
	__u32 n = 1;

	if (!v)
		return 0;
	if (v >> 32) {
		n += 32;
		v >>= 32;
	}
	if (v >> 16) {
		n += 16;
		v >>= 16;
	}
	if (v >> 8) {
		n += 8;
		v >>= 8;
	}
	if (v >> 4) {
		n += 4;
		v >>= 4;
	}
	if (v >> 2) {
		n += 2;
		v >>= 2;
	}
	if (v >> 1)
		n += 1;
	return n;
}

static __always_inline __u32 kw_hist_bucket(__u64 v)
{
	__u32 shift;

	if (v < KW_HIST_SUB)
		return v;
	/* v >= 8, so fls >= 4 and shift is in [0, 60]; (v >> shift) is in [8, 15]. */
	shift = kw_fls64(v) - 1 - KW_HIST_SUB_BITS;
	return (shift + 1) * KW_HIST_SUB + ((v >> shift) & (KW_HIST_SUB - 1));
}

/* Counts v, whose bucket b the caller has bounded, in h (count, sum, min and max exact). */
static __always_inline void kw_hist_count(struct kw_hist *h, __u32 b, __u64 v)
{
	h->buckets[b]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

/*
 * Not atomic, on purpose: every histogram lives in a per-CPU map, and a BPF program runs with
 * migration disabled, so only a program nesting on the same CPU (one run from NMI, for example)
 * can race with this, losing at most one update. Counting that would cost an atomic per event.
 */
static __always_inline void kw_hist_add(struct kw_hist *h, __u64 v)
{
	__u32 b = kw_hist_bucket(v);

	/*
	 * b is always below KW_HIST_NR_BUCKETS, but the verifier loses that through the shifts.
	 * Without barrier_var() clang tests a copy of b and indexes with the original, whose bounds
	 * the verifier then does not know; the barrier makes the tested register the one used as
	 * the index.
	 */
	barrier_var(b);
	if (b >= KW_HIST_NR_BUCKETS)
		return;
	kw_hist_count(h, b, v);
}

/*
 * The same in a log2 histogram (KW_HIST_LOG2_BUCKETS buckets, bpf/kvmwalk_abi.h): h points to a
 * map value of KW_HIST_VALUE_SIZE(KW_HIST_LOG2_BUCKETS) bytes, so buckets[] past 64 is not
 * there, and the bound below is what lets the verifier accept the index.
 */
static __always_inline void kw_hist_add_log2(struct kw_hist *h, __u64 v)
{
	__u32 b = kw_fls64(v);

	barrier_var(b);
	if (b >= KW_HIST_LOG2_BUCKETS)
		return;
	kw_hist_count(h, b, v);
}

#endif /* KW_HIST_BPF_H */
