/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space side of the histogram of bpf/hist_abi.h: the same bucket maths as bpf/hist.bpf.h,
 * merging of per-CPU copies, quantiles and a text printer. Pure functions, no libbpf.
 */
#ifndef KW_USER_HIST_H
#define KW_USER_HIST_H

#include <stddef.h>
#include <stdio.h>

#include "hist_abi.h"

_Static_assert(sizeof(struct kw_hist) == 8 * (4 + KW_HIST_NR_BUCKETS), "kw_hist ABI changed");
_Static_assert(KW_HIST_NR_BUCKETS == 496, "kw_hist bucket count changed");

/* Bucket of a value, and the inclusive bounds of a bucket (b < KW_HIST_NR_BUCKETS). */
__u32 kw_hist_bucket(__u64 v);
__u64 kw_hist_bucket_lower(__u32 b);
__u64 kw_hist_bucket_upper(__u32 b);

/* Records one value, as the BPF side does (for tests and user-space aggregation). */
void kw_hist_add(struct kw_hist *h, __u64 v);

/*
 * Adds n histograms (for example the per-CPU copies of one map value, as bpf_map_lookup_elem()
 * returns them) into dst, which may already hold data.
 */
void kw_hist_merge(struct kw_hist *dst, const struct kw_hist *src, size_t n);

/*
 * Adds a log2 histogram as the BPF side keeps it (struct kw_hist_slots.log2: count, sum, min,
 * max, then KW_HIST_LOG2_BUCKETS buckets, bucket k >= 1 holding [2^(k-1), 2^k - 1]) into dst:
 * each power of two into the fine bucket that starts it, so that every count at or below
 * 2^k - 1 (serve's log2 export), count, sum, min and max stay exact; quantiles read from dst
 * are then exact only to the power of two.
 */
void kw_hist_merge_log2(struct kw_hist *dst, const __u64 *src);

/*
 * The q-quantile (0 <= q <= 1) with linear interpolation inside the bucket holding it, clamped to
 * [min, max], so that a histogram of one repeated value returns that value exactly. The rank is
 * taken from the buckets, not from count (they can differ by a lost per-CPU update). 0 if empty.
 *
 * How coarse a tail is: a sub-bucket is at most 12.5 % of its lower bound wide (bpf/hist_abi.h), so
 * a quantile is known to within one sub-bucket, 12.5 %, whatever q. p99.9 (q = 0.999) needs
 * 1000 samples before it differs from the largest one: with n < 1000 the rank 0.999 * n is past
 * the n - 1th sample, so it falls in the bucket of the max and, interpolated there and clamped, is
 * the max to within that bucket. Only from about 10000 samples do ten samples lie above it.
 */
double kw_hist_quantile(const struct kw_hist *h, double q);

/* sum / count, 0 if empty. */
double kw_hist_mean(const struct kw_hist *h);

/*
 * A summary (count, min, max, mean, p50, p90, p99, p99.9) and a log2 table like bcc's print_log2_hist,
 * rows merged from the fine buckets, from the first to the last non-empty row; at most 80
 * columns. unit names the values ("nsecs"). Returns 0 or -errno.
 */
int kw_hist_fprint(FILE *f, const struct kw_hist *h, const char *unit);

/* The same into a malloc()ed, NUL-terminated buffer; *len (if not NULL) gets its length. */
char *kw_hist_asprint(const struct kw_hist *h, const char *unit, size_t *len);

#endif /* KW_USER_HIST_H */
