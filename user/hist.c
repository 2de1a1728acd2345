// SPDX-License-Identifier: GPL-2.0
/* Histogram maths for user space; the layout is documented in bpf/hist_abi.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#define ROWS 65 /* row 0 holds 0, row r holds [2^(r-1), 2^r - 1] */
#define COLS 80
#define MAX_STARS 40

static unsigned int fls64(__u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

__u32 kw_hist_bucket(__u64 v)
{
	unsigned int shift;

	if (v < KW_HIST_SUB)
		return v;
	shift = fls64(v) - 1 - KW_HIST_SUB_BITS;
	return (shift + 1) * KW_HIST_SUB + ((v >> shift) & (KW_HIST_SUB - 1));
}

__u64 kw_hist_bucket_lower(__u32 b)
{
	unsigned int shift;

	if (b < KW_HIST_SUB)
		return b;
	shift = b / KW_HIST_SUB - 1;
	return (__u64)(KW_HIST_SUB + b % KW_HIST_SUB) << shift;
}

__u64 kw_hist_bucket_upper(__u32 b)
{
	if (b < KW_HIST_SUB)
		return b;
	return kw_hist_bucket_lower(b) + ((1ULL << (b / KW_HIST_SUB - 1)) - 1);
}

void kw_hist_add(struct kw_hist *h, __u64 v)
{
	h->buckets[kw_hist_bucket(v)]++;
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
}

void kw_hist_merge(struct kw_hist *dst, const struct kw_hist *src, size_t n)
{
	size_t i, b;

	for (i = 0; i < n; i++) {
		const struct kw_hist *s = &src[i];

		if (!s->count)
			continue;
		if (!dst->count || s->min < dst->min)
			dst->min = s->min;
		if (s->max > dst->max)
			dst->max = s->max;
		dst->count += s->count;
		dst->sum += s->sum;
		for (b = 0; b < KW_HIST_NR_BUCKETS; b++)
			dst->buckets[b] += s->buckets[b];
	}
}

void kw_hist_merge_log2(struct kw_hist *dst, const __u64 *src)
{
	const __u64 *buckets = src + 4;

	if (!src[0])
		return;
	if (!dst->count || src[2] < dst->min)
		dst->min = src[2];
	if (src[3] > dst->max)
		dst->max = src[3];
	dst->count += src[0];
	dst->sum += src[1];
	dst->buckets[0] += buckets[0];
	for (unsigned int k = 1; k < KW_HIST_LOG2_BUCKETS; k++)
		dst->buckets[kw_hist_bucket(1ULL << (k - 1))] += buckets[k];
}

static __u64 bucket_total(const struct kw_hist *h)
{
	__u64 n = 0;
	size_t b;

	for (b = 0; b < KW_HIST_NR_BUCKETS; b++)
		n += h->buckets[b];
	return n;
}

double kw_hist_quantile(const struct kw_hist *h, double q)
{
	__u64 n = bucket_total(h), cum = 0;
	double target, v = 0;
	size_t b;

	if (!n)
		return 0;
	if (q < 0)
		q = 0;
	if (q > 1)
		q = 1;
	target = q * (double)n;
	for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
		__u64 c = h->buckets[b];
		double lo, width;

		if (!c || (double)(cum + c) < target) {
			cum += c;
			continue;
		}
		lo = (double)kw_hist_bucket_lower(b);
		width = (double)kw_hist_bucket_upper(b) - lo + 1;
		/*
		 * A bucket that holds one integer value (0..15 have one each) is that value:
		 * interpolating inside it made "valid leaves cleared per unmap" read p50 0.50
		 * when 819 of 824 unmaps cleared exactly 0. Only wider buckets interpolate.
		 */
		if (width <= 1)
			v = lo;
		else
			v = lo + width * (target - (double)cum) / (double)c;
		break;
	}
	if (h->count && v < (double)h->min)
		v = (double)h->min;
	if (v > (double)h->max)
		v = (double)h->max;
	return v;
}

double kw_hist_mean(const struct kw_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0;
}

static int digits(__u64 v)
{
	int n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

/* Three significant digits for small values, integers up to 10^12, then exponent notation. */
static const char *fmt_val(char *buf, size_t size, double v)
{
	if (v < 10)
		snprintf(buf, size, "%.2f", v);
	else if (v < 100)
		snprintf(buf, size, "%.1f", v);
	else if (v < 1e12)
		snprintf(buf, size, "%.0f", v);
	else
		snprintf(buf, size, "%.6g", v);
	return buf;
}

int kw_hist_fprint(FILE *f, const struct kw_hist *h, const char *unit)
{
	char mean[32], p50[32], p90[32], p99[32], p999[32], stars[MAX_STARS + 1];
	__u64 rows[ROWS] = { 0 }, top = 0;
	int first = -1, last = -1, r, w, cw, nstars;
	size_t b;

	for (b = 0; b < KW_HIST_NR_BUCKETS; b++)
		rows[fls64(kw_hist_bucket_lower(b))] += h->buckets[b];
	for (r = 0; r < ROWS; r++) {
		if (!rows[r])
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > top)
			top = rows[r];
	}
	/*
	 * Five values of up to 12 characters (fmt_val) do not fit one 80-column line: the mean goes
	 * with count, min and max (63 columns at the test's extremes), the four quantiles have a line
	 * of their own (72 at most).
	 */
	fprintf(f, "count %llu  min %llu  max %llu  mean %s\n", (unsigned long long)h->count,
		(unsigned long long)(h->count ? h->min : 0), (unsigned long long)h->max,
		fmt_val(mean, sizeof(mean), kw_hist_mean(h)));
	fprintf(f, "p50 %s  p90 %s  p99 %s  p99.9 %s\n",
		fmt_val(p50, sizeof(p50), kw_hist_quantile(h, 0.50)),
		fmt_val(p90, sizeof(p90), kw_hist_quantile(h, 0.90)),
		fmt_val(p99, sizeof(p99), kw_hist_quantile(h, 0.99)),
		fmt_val(p999, sizeof(p999), kw_hist_quantile(h, 0.999)));
	if (first < 0)
		return ferror(f) ? -EIO : 0;

	/* "LO -> HI : COUNT |STARS|": 2w + 4 + 3 + cw + 2 + stars + 1 columns. */
	w = digits(last ? (last == 64 ? ~0ULL : (1ULL << last) - 1) : 0);
	cw = digits(top) > 5 ? digits(top) : 5;
	nstars = COLS - 10 - 2 * w - cw;
	if (nstars > MAX_STARS)
		nstars = MAX_STARS;
	fprintf(f, "%*s : %-*s %s\n", 2 * w + 4, unit ? unit : "value", cw, "count",
		"distribution");
	for (r = first; r <= last; r++) {
		__u64 lo = r ? 1ULL << (r - 1) : 0;
		__u64 hi = r ? (r == 64 ? ~0ULL : (1ULL << r) - 1) : 0;
		int n = (int)((double)rows[r] * nstars / (double)top + 0.5);

		if (rows[r] && !n)
			n = 1; /* a non-empty row always shows */
		memset(stars, ' ', nstars);
		memset(stars, '*', n);
		stars[nstars] = '\0';
		fprintf(f, "%*llu -> %-*llu : %-*llu |%s|\n", w, (unsigned long long)lo, w,
			(unsigned long long)hi, cw, (unsigned long long)rows[r], stars);
	}
	return ferror(f) ? -EIO : 0;
}

char *kw_hist_asprint(const struct kw_hist *h, const char *unit, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int err;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	err = kw_hist_fprint(f, h, unit);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = size;
	return buf;
}
