// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "test.h"
#include "hist.h"

/*
 * The BPF maths, compiled here under other names so both sides are checked against each other.
 * barrier_var() is plain GNU asm and builds for the host too.
 */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define kw_hist_bucket bpf_kw_hist_bucket
#define kw_hist_add bpf_kw_hist_add
#include "hist.bpf.h"
#undef kw_hist_bucket
#undef kw_hist_add

static bool check_bucket(__u64 v, __u32 want)
{
	char what[64];

	snprintf(what, sizeof(what), "bucket of %llu", (unsigned long long)v);
	return ASSERT_EQ(kw_hist_bucket(v), want, what) &&
	       ASSERT_EQ(bpf_kw_hist_bucket(v), want, what);
}

static void boundaries(void)
{
	__u64 v;

	for (v = 0; v < 16; v++)
		if (!check_bucket(v, v))
			return;
	if (!check_bucket(16, 16) || !check_bucket(17, 16) || !check_bucket(18, 17) ||
	    !check_bucket(31, 23) || !check_bucket(32, 24))
		return;
	/* 1000 = 0b1111101000: 2^9, sub-bucket 7, [960, 1023] */
	if (!check_bucket(1000, 63) || !ASSERT_EQ(kw_hist_bucket_lower(63), 960, "lower") ||
	    !ASSERT_EQ(kw_hist_bucket_upper(63), 1023, "upper"))
		return;
	if (!check_bucket(1ULL << 63, 488) || !check_bucket(UINT64_MAX, KW_HIST_NR_BUCKETS - 1))
		return;
	ASSERT_EQ(kw_hist_bucket_lower(488), 1ULL << 63, "lower of 2^63");
	ASSERT_TRUE(kw_hist_bucket_upper(KW_HIST_NR_BUCKETS - 1) == UINT64_MAX, "last upper");
}

/* Buckets tile u64 without gaps, each at most 12.5 % of its lower bound wide. */
static void tiling(void)
{
	__u64 prev_upper = 0;
	__u32 b;

	for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
		__u64 lo = kw_hist_bucket_lower(b), hi = kw_hist_bucket_upper(b);
		char what[64];

		snprintf(what, sizeof(what), "bucket %u [%llu, %llu]", b, (unsigned long long)lo,
			 (unsigned long long)hi);
		if (b && !ASSERT_TRUE(lo == prev_upper + 1, what))
			return;
		if (!ASSERT_TRUE(hi >= lo, what) ||
		    !ASSERT_TRUE((double)(hi - lo + 1) <= 0.125 * (double)lo || hi == lo, what))
			return;
		if (!check_bucket(lo, b) || !check_bucket(hi, b) ||
		    !check_bucket(lo + (hi - lo) / 2, b))
			return;
		prev_upper = hi;
	}
}

/* Monotonic on random values, and the BPF side agrees. */
static void monotonic(void)
{
	__u64 x = 0x9e3779b97f4a7c15ULL;
	int i;

	for (i = 0; i < 100000; i++) {
		__u64 a, c;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		a = x >> (x % 64);
		c = a + (x >> 40);
		if (c < a)
			c = UINT64_MAX;
		if (!ASSERT_TRUE(kw_hist_bucket(a) <= kw_hist_bucket(c), "monotonic") ||
		    !ASSERT_EQ(kw_hist_bucket(a), bpf_kw_hist_bucket(a), "BPF == user"))
			return;
	}
}

static void quantiles(void)
{
	struct kw_hist *h = calloc(1, sizeof(*h));
	__u64 v;
	int i;

	if (!ASSERT_TRUE(h, "calloc"))
		return;
	for (v = 1; v <= 1000; v++)
		kw_hist_add(h, v);
	if (!ASSERT_EQ(h->count, 1000, "count") || !ASSERT_EQ(h->sum, 500500, "sum") ||
	    !ASSERT_EQ(h->min, 1, "min") || !ASSERT_EQ(h->max, 1000, "max"))
		goto out;
	ASSERT_NEAR(kw_hist_mean(h), 500.5, 1e-9, "mean");
	/* within one bucket width (32 around 500, 64 around 900) */
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 500, 32, "p50 of 1..1000");
	ASSERT_NEAR(kw_hist_quantile(h, 0.9), 900, 64, "p90 of 1..1000");
	ASSERT_NEAR(kw_hist_quantile(h, 0.99), 990, 64, "p99 of 1..1000");
	ASSERT_NEAR(kw_hist_quantile(h, 0), 1, 0, "p0 is min");
	ASSERT_NEAR(kw_hist_quantile(h, 1), 1000, 0, "p100 is max");
	/* exact region: 0..15 each once; a one-value bucket is never interpolated, so the
	 * median is the 8th of the 16 values */
	memset(h, 0, sizeof(*h));
	for (v = 0; v < 16; v++)
		kw_hist_add(h, v);
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 7, 0, "p50 of 0..15");

	/* "valid leaves cleared per unmap": 819 of 824 unmaps cleared 0, 5 cleared 1. Read as
	 * p50 0.50 / p90 0.91 / p99 1.00 while the bucket of 0 was interpolated. */
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 819; i++)
		kw_hist_add(h, 0);
	for (i = 0; i < 5; i++)
		kw_hist_add(h, 1);
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 0, 0, "p50 of 819 zeros, 5 ones");
	ASSERT_NEAR(kw_hist_quantile(h, 0.9), 0, 0, "p90 of 819 zeros, 5 ones");
	ASSERT_NEAR(kw_hist_quantile(h, 0.99), 0, 0, "p99 of 819 zeros, 5 ones");
	ASSERT_NEAR(kw_hist_quantile(h, 0.999), 1, 0, "p99.9 of 819 zeros, 5 ones");

	/* walk sizes: 89 % of walks exactly 1, the rest 4096 (read as p50 2) */
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 89; i++)
		kw_hist_add(h, 1);
	for (i = 0; i < 11; i++)
		kw_hist_add(h, 4096);
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 1, 0, "p50 of 89 ones, 11 x 4096");
	ASSERT_NEAR(kw_hist_quantile(h, 0.89), 1, 0, "p89 of 89 ones, 11 x 4096");
	ASSERT_NEAR(kw_hist_quantile(h, 0.99), 4096, 0, "p99 of 89 ones, 11 x 4096");

	/* one repeated value comes back exactly, in both the exact and the wide buckets */
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 77; i++)
		kw_hist_add(h, 5);
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 5, 0, "p50 of 5s");
	ASSERT_NEAR(kw_hist_quantile(h, 0.99), 5, 0, "p99 of 5s");
	memset(h, 0, sizeof(*h));
	for (i = 0; i < 77; i++)
		kw_hist_add(h, 1000);
	ASSERT_NEAR(kw_hist_quantile(h, 0.01), 1000, 0, "p1 of 1000s");
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 1000, 0, "p50 of 1000s");
	ASSERT_NEAR(kw_hist_quantile(h, 0.99), 1000, 0, "p99 of 1000s");
	memset(h, 0, sizeof(*h));
	kw_hist_add(h, UINT64_MAX);
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), (double)UINT64_MAX, 0, "p50 of UINT64_MAX");
	memset(h, 0, sizeof(*h));
	ASSERT_NEAR(kw_hist_quantile(h, 0.5), 0, 0, "empty");
	ASSERT_NEAR(kw_hist_mean(h), 0, 0, "empty mean");
out:
	free(h);
}

/* Per-CPU copies merged equal one histogram fed everything; BPF and user add agree. */
static void merge(void)
{
	struct kw_hist *cpu = calloc(4, sizeof(*cpu)), *all = calloc(1, sizeof(*all));
	struct kw_hist *sum = calloc(1, sizeof(*sum)), *bpf = calloc(1, sizeof(*bpf));
	__u64 v;

	if (!ASSERT_TRUE(cpu && all && sum && bpf, "calloc"))
		goto out;
	for (v = 3; v < 100000; v = v * 3 / 2 + 1) {
		kw_hist_add(&cpu[v % 3 + 1], v); /* cpu[0] stays empty: its min must not count */
		kw_hist_add(all, v);
		bpf_kw_hist_add(bpf, v);
	}
	kw_hist_merge(sum, cpu, 4);
	ASSERT_TRUE(!memcmp(sum, all, sizeof(*all)), "merged == all");
	ASSERT_TRUE(!memcmp(bpf, all, sizeof(*all)), "BPF add == user add");
	ASSERT_EQ(sum->min, 3, "merged min");
	/* merging into a non-empty histogram adds */
	kw_hist_merge(sum, all, 1);
	ASSERT_EQ(sum->count, 2 * all->count, "count after second merge");
	ASSERT_EQ(sum->buckets[kw_hist_bucket(3)], 2, "bucket after second merge");
out:
	free(cpu);
	free(all);
	free(sum);
	free(bpf);
}

/*
 * The log2 kind (serve's default in the kernel): BPF adds, per-CPU copies merged into a fine
 * histogram, give the same count, sum, min, max and the same cumulative count at every
 * 2^k - 1 (the le of serve's log2 export) as the fine histogram fed the same values.
 */
static void log2_kind(void)
{
	/* the BPF side's 552-byte values, in full-size ones here (only the first 552 bytes used) */
	struct kw_hist *cpu = calloc(3, sizeof(*cpu));
	struct kw_hist *fine = calloc(1, sizeof(*fine)), *got = calloc(1, sizeof(*got));
	__u64 v, cf = 0, cg = 0;
	unsigned int k, b = 0;

	if (!ASSERT_TRUE(cpu && fine && got, "calloc"))
		goto out;
	ASSERT_EQ(KW_HIST_VALUE_SIZE(KW_HIST_LOG2_BUCKETS), 552, "log2 value size");
	ASSERT_EQ(KW_HIST_VALUE_SIZE(KW_HIST_NR_BUCKETS), sizeof(*cpu), "fine value size");
	for (v = 0; v < 5000000; v = v * 5 / 4 + 1) {
		kw_hist_add_log2(&cpu[1 + v % 2], v); /* cpu[0] empty */
		kw_hist_add(fine, v);
	}
	kw_hist_add_log2(&cpu[1], UINT64_MAX);
	kw_hist_add(fine, UINT64_MAX);
	ASSERT_EQ(cpu[1].buckets[64], 1, "UINT64_MAX in bucket 64");
	ASSERT_EQ(cpu[1].buckets[0] + cpu[2].buckets[0], 1, "0 in bucket 0");
	for (int c = 0; c < 3; c++)
		kw_hist_merge_log2(got, (const __u64 *)&cpu[c]);
	ASSERT_EQ(got->count, fine->count, "count");
	ASSERT_EQ(got->sum, fine->sum, "sum");
	ASSERT_EQ(got->min, 0, "min");
	ASSERT_EQ(got->max, UINT64_MAX, "max");
	for (k = 0; k <= 64; k++) {
		__u32 end = k < 64 ? kw_hist_bucket((1ULL << k) - 1) : KW_HIST_NR_BUCKETS - 1;
		char what[48];

		for (; b <= end; b++) {
			cf += fine->buckets[b];
			cg += got->buckets[b];
		}
		snprintf(what, sizeof(what), "count <= 2^%u - 1", k);
		if (!ASSERT_EQ(cg, cf, what))
			break;
	}
out:
	free(cpu);
	free(fine);
	free(got);
}

static void text(void)
{
	struct kw_hist *h = calloc(1, sizeof(*h));
	char *out = NULL, *buf = NULL;
	size_t len = 0, olen = 0;
	FILE *f = open_memstream(&out, &olen);
	__u64 v;
	int i;

	if (!ASSERT_TRUE(h && f, "alloc"))
		goto out;
	/* a latency-like shape: a body near 2 us and a tail up to 1 ms */
	for (i = 0; i < 5000; i++)
		kw_hist_add(h, 1500 + (i * 7919) % 1000);
	for (v = 4000; v < 1000000; v = v * 5 / 4)
		kw_hist_add(h, v);
	kw_hist_add(h, 7);
	fputs("-- latency\n", f);
	kw_hist_fprint(f, h, "nsecs");

	/* the widest possible rows still fit 80 columns */
	memset(h, 0, sizeof(*h));
	kw_hist_add(h, 0);
	for (i = 0; i < 123456; i++)
		kw_hist_add(h, UINT64_MAX - i);
	fputs("-- extremes\n", f);
	kw_hist_fprint(f, h, "entries");

	memset(h, 0, sizeof(*h));
	fputs("-- empty\n", f);
	kw_hist_fprint(f, h, "nsecs");
	fclose(f);
	f = NULL;

	for (i = 0, v = 0; out && out[v]; v++) {
		i = out[v] == '\n' ? 0 : i + 1;
		if (!ASSERT_TRUE(i <= 80, "80 columns"))
			goto out;
	}
	ASSERT_GOLDEN(out, olen, "hist.txt");

	memset(h, 0, sizeof(*h));
	kw_hist_add(h, 42);
	buf = kw_hist_asprint(h, "nsecs", &len);
	if (ASSERT_TRUE(buf, "asprint"))
		ASSERT_EQ(len, strlen(buf), "asprint length");
out:
	if (f)
		fclose(f);
	free(out);
	free(buf);
	free(h);
}

void test_hist(void)
{
	boundaries();
	tiling();
	monotonic();
	quantiles();
	merge();
	log2_kind();
	text();
}
