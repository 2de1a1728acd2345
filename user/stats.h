/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Statistics for `kvmwalk compare`: medians and percentiles of samples, the Hodges-Lehmann shift
 * between two samples with its distribution-free confidence interval, and a seeded percentile
 * bootstrap. A sample is one number per run (a run's median duration, a run's call count, ...).
 * Pure C, deterministic: the same input gives the same output on every machine.
 */
#ifndef KW_STATS_H
#define KW_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Sample quantile, 0 <= q <= 1, linear interpolation between order statistics (Hyndman-Fan type
 * 7, R's and numpy's default). NAN for n == 0. x is not modified.
 */
double kw_quantile(const double *x, size_t n, double q);
double kw_median(const double *x, size_t n);

/* The same on a sample already sorted ascending. */
double kw_quantile_sorted(const double *x, size_t n, double q);

struct kw_shift {
	double estimate;   /* median of all pairwise differences y_j - x_i */
	double lo, hi;	   /* confidence interval for the shift, when has_interval */
	double confidence; /* what the interval achieves, exactly (or by normal approximation) */
	bool has_interval;
};

/*
 * Hodges-Lehmann estimate of the shift d in y ~ x + d, with the distribution-free interval of
 * Moses/Bauer: with the m*n differences D(1) <= ... <= D(mn), [D(k), D(mn + 1 - k)] covers d with
 * probability 1 - 2 P(U <= k - 1), U the Mann-Whitney statistic under no shift. k is the largest
 * that reaches level (0.95); P comes from U's exact distribution while C(m + n, m) fits 63 bits
 * (about 33 runs per side), from the normal approximation beyond.
 *
 * Small samples cannot reach every level: 3 vs 3 runs give at most 90 % (1 - 2/20), 2 vs 2 at
 * most 67 %. Then the widest interval [D(1), D(mn)] is returned with the confidence it achieves.
 * No interval with fewer than two values on a side. Returns 0 or -errno.
 */
int kw_hodges_lehmann(const double *x, size_t m, const double *y, size_t n, double level,
		      struct kw_shift *out);

/*
 * Percentile bootstrap interval of the relative change of medians, 100 * (med(y*) / med(x*) - 1)
 * over resamples drawn with replacement, with a seeded PRNG (splitmix64) so that results and golden
 * files are reproducible. Resamples whose x median is 0 are dropped; if more than 1 - level of them
 * are, there is no interval. Coarse below about 10 runs per side: the median of a resample of 3
 * takes few values. lo/hi/estimate are in percent. Returns 0 or -errno.
 */
int kw_bootstrap_median_change(const double *x, size_t m, const double *y, size_t n, double level,
			       unsigned int resamples, uint64_t seed, struct kw_shift *out);

enum kw_ci_method {
	KW_CI_HODGES_LEHMANN, /* default: exact coverage at any sample size */
	KW_CI_BOOTSTRAP,
};

/* Below this achieved confidence an interval is shown but never called significant. */
#define KW_MIN_CONFIDENCE 0.895

#define KW_BOOTSTRAP_RESAMPLES 10000
#define KW_BOOTSTRAP_SEED 0x6b766d77616c6bULL /* "kvmwalk" */

/* One metric, base runs against new runs. */
struct kw_change {
	size_t n_base, n_new;
	double base_median, new_median;
	double delta_pct; /* 100 * (new_median / base_median - 1); NAN if base_median is 0 */
	double shift_pct; /* the method's own estimate of the change, in percent */
	double ci_low_pct, ci_high_pct; /* when has_interval */
	double confidence;		/* achieved (Hodges-Lehmann) or nominal (bootstrap) */
	bool has_interval;		/* false with one run on a side, or nothing to divide by */
	bool significant;		/* interval excludes 0 at confidence >= KW_MIN_CONFIDENCE */
	enum kw_ci_method method;
};

/*
 * The change of one metric from base to new runs. Hodges-Lehmann works on log values when every
 * value is positive, so the shift is a ratio (new = 0.53 * base gives exactly -47 %), and on raw
 * values divided by the base median otherwise (counters that can be 0): then, when no value is
 * negative, the interval and the estimate are cut to -100 % (a count or a time cannot fall
 * below 0; stats.c says why that keeps the coverage). level is the confidence
 * asked for (0.95). Returns 0 or -errno (-EINVAL for no runs on a side or a NAN value).
 */
int kw_change(const double *base, size_t n_base, const double *new, size_t n_new, double level,
	      enum kw_ci_method method, struct kw_change *out);

#endif /* KW_STATS_H */
