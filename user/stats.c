// SPDX-License-Identifier: GPL-2.0
/*
 * Statistics for `kvmwalk compare`; the methods are described in stats.h. References:
 * Hollander, Wolfe, Chicken, "Nonparametric Statistical Methods", 3rd ed., section 4.3 (the
 * Hodges-Lehmann shift and its Mann-Whitney interval); Efron, Tibshirani, "An Introduction to the
 * Bootstrap", chapter 13 (percentile intervals).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double kw_quantile_sorted(const double *x, size_t n, double q)
{
	double h, f;
	size_t i;

	if (!n)
		return NAN;
	if (q <= 0)
		return x[0];
	if (q >= 1)
		return x[n - 1];
	h = (double)(n - 1) * q;
	f = floor(h);
	i = (size_t)f;
	if (i + 1 >= n)
		return x[n - 1];
	return x[i] + (h - f) * (x[i + 1] - x[i]);
}

double kw_quantile(const double *x, size_t n, double q)
{
	double *s, v;

	if (!n)
		return NAN;
	s = malloc(n * sizeof(*s));
	if (!s)
		return NAN;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	v = kw_quantile_sorted(s, n, q);
	free(s);
	return v;
}

double kw_median(const double *x, size_t n)
{
	return kw_quantile(x, n, 0.5);
}

static double norm_cdf(double z)
{
	return 0.5 * erfc(-z / sqrt(2));
}

/* z with norm_cdf(z) = p, by bisection: slow but exact to the last bit, and only called once. */
static double norm_quantile(double p)
{
	double lo = -40, hi = 40;
	int i;

	for (i = 0; i < 200; i++) {
		double mid = (lo + hi) / 2;

		if (norm_cdf(mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * C(m + n, m) if below 2^62, else 0. Then the exact distribution of U is affordable and its
 * counts, computed modulo 2^64, are exact.
 */
static uint64_t choose_small(size_t m, size_t n)
{
	unsigned __int128 c = 1;
	size_t i;

	for (i = 1; i <= m; i++) {
		c = c * (n + i) / i; /* exact: C(n + i, i) */
		if (c >> 62)
			return 0;
	}
	return (uint64_t)c;
}

/*
 * Counts of the Mann-Whitney U = 0 .. m*n among the C(m + n, m) equally likely orderings: the
 * coefficients of the Gaussian binomial prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), computed as a
 * power series truncated after q^(mn). Unsigned wrap-around in the intermediate steps cancels out.
 */
static uint64_t *u_counts(size_t m, size_t n)
{
	size_t mn = m * n, i, k;
	uint64_t *c = calloc(mn + 1, sizeof(*c));

	if (!c)
		return NULL;
	c[0] = 1;
	for (i = 1; i <= m; i++) {
		for (k = mn; k >= n + i && k <= mn; k--)
			c[k] -= c[k - n - i];
		for (k = i; k <= mn; k++)
			c[k] += c[k - i];
	}
	return c;
}

/*
 * The k of the interval [D(k), D(mn + 1 - k)] for the level, and the confidence it achieves: the
 * largest k with P(U <= k - 1) <= (1 - level) / 2, or 1 if even that is too wide.
 */
static int interval_rank(size_t m, size_t n, double level, size_t *k, double *confidence)
{
	double alpha2 = (1 - level) / 2, mn = (double)m * (double)n;
	uint64_t total = choose_small(m, n);

	if (total) {
		uint64_t *c = u_counts(m, n), cum = 0;
		size_t j;

		if (!c)
			return -ENOMEM;
		*k = 0;
		for (j = 0; j <= m * n / 2; j++) {
			if ((double)(cum + c[j]) / (double)total > alpha2)
				break;
			cum += c[j];
			*k = j + 1;
		}
		if (!*k) {
			*k = 1;
			cum = c[0];
		}
		*confidence = 1 - 2 * (double)cum / (double)total;
		free(c);
	} else {
		double sd = sqrt(mn * (double)(m + n + 1) / 12);
		double kk = floor(mn / 2 + 0.5 - norm_quantile(1 - alpha2) * sd);

		*k = kk < 1 ? 1 : (size_t)kk;
		/* continuity-corrected P(U <= k - 1) */
		*confidence = 1 - 2 * norm_cdf(((double)*k - 0.5 - mn / 2) / sd);
	}
	return 0;
}

static int check_args(const double *x, size_t m, const double *y, size_t n, double level,
		      struct kw_shift *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!m || !n || !(level > 0 && level < 1))
		return -EINVAL;
	for (i = 0; i < m; i++)
		if (isnan(x[i]))
			return -EINVAL;
	for (i = 0; i < n; i++)
		if (isnan(y[i]))
			return -EINVAL;
	return 0;
}

int kw_hodges_lehmann(const double *x, size_t m, const double *y, size_t n, double level,
		      struct kw_shift *out)
{
	size_t i, j, k, mn = m * n;
	double *d, conf;
	int err;

	err = check_args(x, m, y, n, level, out);
	if (err)
		return err;
	d = malloc(mn * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			d[i * n + j] = y[j] - x[i];
	qsort(d, mn, sizeof(*d), cmp_double);
	out->estimate = kw_quantile_sorted(d, mn, 0.5);
	if (m < 2 || n < 2)
		goto cleanup;
	err = interval_rank(m, n, level, &k, &conf);
	if (err || conf <= 0)
		goto cleanup;
	out->lo = d[k - 1];
	out->hi = d[mn - k];
	out->confidence = conf;
	out->has_interval = true;
cleanup:
	free(d);
	return err;
}

/* splitmix64 (Steele, Lea, Flood 2014): tiny, and the same sequence everywhere. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double resample_median(const double *x, size_t n, double *buf, uint64_t *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		buf[i] = x[(size_t)(((unsigned __int128)splitmix64(s) * n) >> 64)];
	qsort(buf, n, sizeof(*buf), cmp_double);
	return kw_quantile_sorted(buf, n, 0.5);
}

int kw_bootstrap_median_change(const double *x, size_t m, const double *y, size_t n, double level,
			       unsigned int resamples, uint64_t seed, struct kw_shift *out)
{
	double *bx = NULL, *by = NULL, *r = NULL, mx, alpha2 = (1 - level) / 2;
	size_t valid = 0;
	unsigned int i;
	int err;

	err = check_args(x, m, y, n, level, out);
	if (err)
		return err;
	mx = kw_median(x, m);
	out->estimate = mx ? 100 * (kw_median(y, n) / mx - 1) : NAN;
	if (m < 2 || n < 2 || !resamples)
		return 0;
	bx = malloc(m * sizeof(*bx));
	by = malloc(n * sizeof(*by));
	r = malloc(resamples * sizeof(*r));
	if (!bx || !by || !r) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < resamples; i++) {
		double a = resample_median(x, m, bx, &seed);
		double b = resample_median(y, n, by, &seed);

		if (a)
			r[valid++] = 100 * (b / a - 1);
	}
	if ((double)valid < level * resamples)
		goto cleanup;
	qsort(r, valid, sizeof(*r), cmp_double);
	out->lo = kw_quantile_sorted(r, valid, alpha2);
	out->hi = kw_quantile_sorted(r, valid, 1 - alpha2);
	out->confidence = level;
	out->has_interval = true;
cleanup:
	free(bx);
	free(by);
	free(r);
	return err;
}

static double pct_of_log(double d)
{
	return 100 * expm1(d);
}

int kw_change(const double *base, size_t n_base, const double *new, size_t n_new, double level,
	      enum kw_ci_method method, struct kw_change *out)
{
	double *lb = NULL, *ln = NULL, scale;
	struct kw_shift s;
	bool positive = true, nonneg = true;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	out->method = method;
	out->n_base = n_base;
	out->n_new = n_new;
	err = check_args(base, n_base, new, n_new, level, &s);
	if (err)
		return err;
	out->base_median = kw_median(base, n_base);
	out->new_median = kw_median(new, n_new);
	if (out->base_median)
		out->delta_pct = 100 * (out->new_median / out->base_median - 1);
	else
		out->delta_pct = out->new_median ? NAN : 0;
	out->shift_pct = out->delta_pct;

	if (method == KW_CI_BOOTSTRAP) {
		err = kw_bootstrap_median_change(base, n_base, new, n_new, level,
						 KW_BOOTSTRAP_RESAMPLES, KW_BOOTSTRAP_SEED, &s);
		if (err)
			return err;
		out->shift_pct = s.estimate;
		out->ci_low_pct = s.lo;
		out->ci_high_pct = s.hi;
		goto done;
	}

	for (i = 0; i < n_base; i++) {
		positive &= base[i] > 0;
		nonneg &= base[i] >= 0;
	}
	for (i = 0; i < n_new; i++) {
		positive &= new[i] > 0;
		nonneg &= new[i] >= 0;
	}
	if (positive) {
		lb = malloc(n_base * sizeof(*lb));
		ln = malloc(n_new * sizeof(*ln));
		if (!lb || !ln) {
			err = -ENOMEM;
			goto cleanup;
		}
		for (i = 0; i < n_base; i++)
			lb[i] = log(base[i]);
		for (i = 0; i < n_new; i++)
			ln[i] = log(new[i]);
		err = kw_hodges_lehmann(lb, n_base, ln, n_new, level, &s);
		if (err)
			goto cleanup;
		out->shift_pct = pct_of_log(s.estimate);
		out->ci_low_pct = pct_of_log(s.lo);
		out->ci_high_pct = pct_of_log(s.hi);
	} else {
		if (!out->base_median) {
			/* no scale for a percentage: say nothing rather than something wrong */
			out->shift_pct = NAN;
			goto cleanup;
		}
		err = kw_hodges_lehmann(base, n_base, new, n_new, level, &s);
		if (err)
			goto cleanup;
		scale = 100 / fabs(out->base_median);
		out->shift_pct = s.estimate * scale;
		out->ci_low_pct = s.lo * scale;
		out->ci_high_pct = s.hi * scale;
		/*
		 * A quantity that is never negative (a count, a time: every value of both sides
		 * >= 0) cannot fall by more than 100 %, but the raw shift over the base median
		 * can reach below -100 % when the base runs spread (base 17.2, 17.9, 18.0 s
		 * against 0: the widest difference is -18.0 / 17.9). The interval is cut to the
		 * quantity's range, [-100 %, +inf): the true change always lies in that range, so
		 * the part cut off never held it and the interval keeps its coverage (a
		 * confidence set intersected with the parameter space covers as often). The
		 * estimate is moved into the range the same way.
		 */
		if (nonneg) {
			out->shift_pct = fmax(out->shift_pct, -100);
			out->ci_low_pct = fmax(out->ci_low_pct, -100);
			out->ci_high_pct = fmax(out->ci_high_pct, -100);
		}
	}
done:
	out->has_interval = s.has_interval;
	out->confidence = s.has_interval ? s.confidence : 0;
	if (!s.has_interval)
		out->ci_low_pct = out->ci_high_pct = 0;
	out->significant = s.has_interval && s.confidence >= KW_MIN_CONFIDENCE &&
			   (out->ci_low_pct > 0 || out->ci_high_pct < 0);
cleanup:
	free(lb);
	free(ln);
	return err;
}
