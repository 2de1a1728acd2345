// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void quantiles(void)
{
	double x[] = { 5, 1, 4, 2, 3 }, e[] = { 4, 1, 3, 2 };

	ASSERT_NEAR(kw_median(x, 5), 3, 0, "median odd");
	ASSERT_NEAR(kw_median(e, 4), 2.5, 0, "median even");
	ASSERT_NEAR(kw_quantile(x, 5, 0.9), 4.6, 1e-12, "p90 (type 7)");
	ASSERT_NEAR(kw_quantile(x, 5, 0), 1, 0, "p0");
	ASSERT_NEAR(kw_quantile(x, 5, 1), 5, 0, "p100");
	ASSERT_NEAR(kw_quantile(x, 1, 0.3), 5, 0, "one value");
	ASSERT_TRUE(isnan(kw_median(x, 0)), "empty is NAN");
	ASSERT_NEAR(x[0], 5, 0, "input untouched");
}

static void hodges_lehmann(void)
{
	double a[] = { 1, 2, 3, 4, 5 }, b[] = { 6, 7, 8, 9, 10 };
	double *x = NULL, *y = NULL;
	struct kw_shift s;
	int i;

	/* R: wilcox.test(6:10, 1:5, conf.int = TRUE) -> estimate 5, 95 % CI [2, 8] */
	if (!ASSERT_EQ(kw_hodges_lehmann(a, 5, b, 5, 0.95, &s), 0, "5 vs 5"))
		return;
	ASSERT_NEAR(s.estimate, 5, 0, "estimate");
	ASSERT_TRUE(s.has_interval, "interval");
	ASSERT_NEAR(s.lo, 2, 0, "lo");
	ASSERT_NEAR(s.hi, 8, 0, "hi");
	ASSERT_NEAR(s.confidence, 1 - 8.0 / 252, 1e-12, "achieved 96.8 %");

	/* 3 vs 3 cannot reach 95 %: the full range at 1 - 2/20 = 90 % */
	kw_hodges_lehmann(a, 3, b, 3, 0.95, &s);
	ASSERT_NEAR(s.estimate, 5, 0, "3 vs 3 estimate");
	ASSERT_NEAR(s.lo, 3, 0, "3 vs 3 lo = min difference");
	ASSERT_NEAR(s.hi, 7, 0, "3 vs 3 hi = max difference");
	ASSERT_NEAR(s.confidence, 0.9, 1e-12, "3 vs 3 confidence");
	kw_hodges_lehmann(a, 2, b, 2, 0.95, &s);
	ASSERT_NEAR(s.confidence, 2.0 / 3, 1e-12, "2 vs 2 confidence");
	kw_hodges_lehmann(a, 1, b, 5, 0.95, &s);
	ASSERT_FALSE(s.has_interval, "1 vs 5: no interval");
	ASSERT_NEAR(s.estimate, 7, 0, "1 vs 5 estimate");
	ASSERT_EQ(kw_hodges_lehmann(a, 0, b, 5, 0.95, &s), -EINVAL, "no base");
	ASSERT_EQ(kw_hodges_lehmann(a, 5, b, 5, 1, &s), -EINVAL, "level 1");

	/* exact (30 vs 30) and normal-approximated (40 vs 40) ranks both land just above 95 % */
	x = calloc(40, sizeof(*x));
	y = calloc(40, sizeof(*y));
	if (!ASSERT_TRUE(x && y, "calloc"))
		goto out;
	for (i = 0; i < 40; i++) {
		x[i] = (i * 17) % 40;
		y[i] = (i * 23) % 40 + 0.5;
	}
	kw_hodges_lehmann(x, 30, y, 30, 0.95, &s);
	ASSERT_TRUE(s.confidence >= 0.95 && s.confidence < 0.953, "30 vs 30 exact");
	ASSERT_TRUE(s.lo < s.estimate && s.estimate < s.hi, "30 vs 30 interval");
	kw_hodges_lehmann(x, 40, y, 40, 0.95, &s);
	ASSERT_TRUE(s.confidence >= 0.949 && s.confidence < 0.953, "40 vs 40 normal");
	ASSERT_NEAR(s.estimate, 0.5, 0, "40 vs 40 estimate");
	ASSERT_TRUE(s.lo < 0.5 && s.hi > 0.5, "40 vs 40 interval");
out:
	free(x);
	free(y);
}

static void changes(void)
{
	double base[] = { 100, 104, 97, 101, 99 }, same[] = { 100, 104, 97, 101, 99 };
	double faster[5], overlap[] = { 100, 103, 96, 105, 98 };
	double flushes[] = { 262144, 262144, 262150, 262144, 262160 }, none[] = { 0, 0, 0, 0, 0 };
	double spread[] = { 16.5, 17.24, 18.0 }, below[] = { -1, -2, -1.5 };
	struct kw_change c;
	int i;

	for (i = 0; i < 5; i++)
		faster[i] = base[i] * 0.53;

	kw_change(base, 5, same, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, 0, 0, "identical: delta");
	ASSERT_NEAR(c.shift_pct, 0, 1e-12, "identical: shift");
	ASSERT_TRUE(c.has_interval && c.ci_low_pct < 0 && c.ci_high_pct > 0, "identical: CI");
	ASSERT_FALSE(c.significant, "identical: not significant");

	kw_change(base, 5, faster, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.base_median, 100, 0, "base median");
	ASSERT_NEAR(c.new_median, 53, 1e-12, "new median");
	ASSERT_NEAR(c.delta_pct, -47, 1e-9, "x0.53: delta");
	ASSERT_NEAR(c.shift_pct, -47, 1e-9, "x0.53: HL shift");
	ASSERT_TRUE(c.ci_low_pct < -47 && c.ci_high_pct > -47 && c.ci_high_pct < 0, "x0.53: CI");
	ASSERT_NEAR(c.confidence, 1 - 8.0 / 252, 1e-12, "x0.53: confidence");
	ASSERT_TRUE(c.significant, "x0.53: significant");

	kw_change(base, 3, faster, 3, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.confidence, 0.9, 1e-12, "3 vs 3: 90 %");
	ASSERT_TRUE(c.significant, "3 vs 3 disjoint: significant at 90 %");
	kw_change(base, 2, faster, 2, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_TRUE(c.has_interval && !c.significant, "2 vs 2: 67 % is never significant");

	kw_change(base, 5, overlap, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, 0, 0, "overlap: same median");
	ASSERT_FALSE(c.significant, "overlap: not significant");

	kw_change(base, 1, faster, 1, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, -47, 1e-9, "1 vs 1: delta");
	ASSERT_FALSE(c.has_interval, "1 vs 1: no interval");
	ASSERT_FALSE(c.significant, "1 vs 1: not significant");

	/* counters that reach 0 cannot go through logs: raw shift over the base median */
	kw_change(flushes, 5, none, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, -100, 0, "to zero: delta");
	ASSERT_NEAR(c.shift_pct, -100, 0.01, "to zero: shift");
	ASSERT_TRUE(c.significant, "to zero: significant");
	/*
	 * a time that falls to 0 from runs that spread: the raw interval reached -104.4 %
	 * (-18.0 / 17.24); a time cannot fall by more than all of it
	 */
	kw_change(spread, 3, none, 3, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, -100, 0, "spread to zero: delta");
	ASSERT_TRUE(c.ci_low_pct >= -100 && c.ci_high_pct >= -100, "no interval below -100 %");
	ASSERT_TRUE(c.shift_pct >= -100, "no estimate below -100 %");
	ASSERT_TRUE(c.significant, "spread to zero: significant");
	/* a value that can be negative (a level's delta) has no such bound */
	kw_change(spread, 3, below, 3, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_TRUE(c.ci_low_pct < -100, "negative values: not cut");
	kw_change(none, 5, flushes, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_TRUE(isnan(c.delta_pct), "from zero: no percentage");
	ASSERT_FALSE(c.has_interval || c.significant, "from zero: no interval");
	kw_change(none, 5, none, 5, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_NEAR(c.delta_pct, 0, 0, "zero to zero");
	ASSERT_FALSE(c.significant, "zero to zero: not significant");

	ASSERT_EQ(kw_change(base, 0, faster, 5, 0.95, KW_CI_HODGES_LEHMANN, &c), -EINVAL,
		  "no runs");
	same[2] = NAN;
	ASSERT_EQ(kw_change(base, 5, same, 5, 0.95, KW_CI_HODGES_LEHMANN, &c), -EINVAL, "NAN");
}

static int print_change(FILE *f, const char *name, const struct kw_change *c)
{
	return fprintf(f,
		       "%-10s %zu/%zu base %.3f new %.3f delta %+.3f%% shift %+.3f%% "
		       "ci %s[%+.3f, %+.3f] conf %.4f%s\n",
		       name, c->n_base, c->n_new, c->base_median, c->new_median, c->delta_pct,
		       c->shift_pct, c->has_interval ? "" : "none ", c->ci_low_pct, c->ci_high_pct,
		       c->confidence, c->significant ? " significant" : "");
}

/* The bootstrap is seeded: its intervals are the same on every run and every machine. */
static void bootstrap(void)
{
	double base[12], faster[12], noisy[12];
	struct kw_change c, again;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int i;

	if (!ASSERT_TRUE(f, "open_memstream"))
		return;
	for (i = 0; i < 12; i++) {
		base[i] = 1000 + (i * 37) % 50;
		faster[i] = base[i] * 0.53;
		noisy[i] = 1000 + (i * 53) % 61 - 5;
	}
	kw_change(base, 12, faster, 12, 0.95, KW_CI_BOOTSTRAP, &c);
	ASSERT_NEAR(c.shift_pct, -47, 1e-9, "bootstrap x0.53: estimate");
	ASSERT_TRUE(c.ci_low_pct <= -47 && c.ci_high_pct >= -47, "bootstrap x0.53: CI");
	ASSERT_TRUE(c.significant, "bootstrap x0.53: significant");
	print_change(f, "x0.53", &c);
	kw_change(base, 12, faster, 12, 0.95, KW_CI_BOOTSTRAP, &again);
	ASSERT_TRUE(!memcmp(&c, &again, sizeof(c)), "bootstrap is deterministic");

	kw_change(base, 12, noisy, 12, 0.95, KW_CI_BOOTSTRAP, &c);
	ASSERT_FALSE(c.significant, "bootstrap overlap: not significant");
	print_change(f, "overlap", &c);
	kw_change(base, 12, noisy, 12, 0.95, KW_CI_HODGES_LEHMANN, &c);
	ASSERT_FALSE(c.significant, "HL overlap: not significant");
	print_change(f, "overlap-hl", &c);
	kw_change(base, 3, faster, 3, 0.95, KW_CI_BOOTSTRAP, &c);
	print_change(f, "3v3", &c);
	kw_change(base, 1, faster, 1, 0.95, KW_CI_BOOTSTRAP, &c);
	ASSERT_FALSE(c.has_interval, "bootstrap 1 vs 1: no interval");
	print_change(f, "1v1", &c);
	fclose(f);
	ASSERT_GOLDEN(out, len, "stats.txt");
	free(out);
}

void test_stats(void)
{
	quantiles();
	hodges_lehmann();
	changes();
	bootstrap();
}
