/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one histogram type of kvmwalk, shared by BPF programs and user space.
 *
 * Log-linear buckets: values below 2^KW_HIST_SUB_BITS have a bucket each; above that, every power
 * of two [2^e, 2^(e+1)) is split into 2^KW_HIST_SUB_BITS equal sub-buckets, so a sub-bucket is at
 * most 1/2^KW_HIST_SUB_BITS (12.5 %) of its lower bound wide. With exact count and sum next to
 * them, a 5 % change in a median or a tail can be read. The buckets cover the whole u64 range.
 *
 * Bucket b holds:
 *   b <  8:  exactly the value b
 *   b >= 8:  e = b / 8 + 2, s = b % 8, values [(8 + s) << (e - 3), (9 + s) << (e - 3) - 1]
 * so 8..15 are still exact and bucket 495 ends at UINT64_MAX.
 *
 * The bucket maths lives in bpf/hist.bpf.h (BPF) and user/hist.c (user space), tested against
 * each other in tests/unit/test_hist.c.
 */
#ifndef KW_HIST_ABI_H
#define KW_HIST_ABI_H

/* vmlinux.h already defines __u64; including <linux/types.h> after it would redefine it. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KW_HIST_SUB_BITS 3
#define KW_HIST_SUB (1U << KW_HIST_SUB_BITS)
/* 8 exact buckets, then 8 sub-buckets for each of the powers 2^3 .. 2^63 (61 of them). */
#define KW_HIST_NR_BUCKETS (KW_HIST_SUB + (64 - KW_HIST_SUB_BITS) * KW_HIST_SUB)

/*
 * Zero-initialised (as map values are) it is an empty histogram. min is meaningful only when
 * count != 0. sum wraps after 2^64 (584 years of nanoseconds); user space checks nothing about it.
 */
struct kw_hist {
	__u64 count;
	__u64 sum;
	__u64 min;
	__u64 max;
	__u64 buckets[KW_HIST_NR_BUCKETS];
};

/*
 * The log2 kind (struct kw_hist_slots.log2): the same header, then 65 buckets, bucket 0 holding 0
 * and bucket k holding [2^(k-1), 2^k - 1]. A map value of it is KW_HIST_VALUE_SIZE(65) bytes.
 */
#define KW_HIST_LOG2_BUCKETS 65
#define KW_HIST_VALUE_SIZE(nbuckets) (8 * (4 + (nbuckets)))

#endif /* KW_HIST_ABI_H */
