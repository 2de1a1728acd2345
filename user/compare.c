// SPDX-License-Identifier: GPL-2.0
/* Before/after tables from recordings; the statistics are in stats.c. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define TEXT_COLS 72

enum metric_kind {
	M_CALLS,
	M_P50,
	M_P99,
	M_TOTAL,
	M_COUNTER,
};

static const char *const metric_names[] = {
	[M_CALLS] = "calls",
	[M_P50] = "p50 ns",
	[M_P99] = "p99 ns",
	[M_TOTAL] = "total ns",
};

static double metric_of(const struct kw_recording *r, enum metric_kind k, int idx)
{
	switch (k) {
	case M_CALLS:
		return (double)r->funcs[idx].calls;
	case M_P50:
		return kw_hist_quantile(&r->funcs[idx].dur, 0.5);
	case M_P99:
		return kw_hist_quantile(&r->funcs[idx].dur, 0.99);
	case M_TOTAL:
		return (double)r->funcs[idx].dur.sum;
	case M_COUNTER:
		return (double)r->counters[idx];
	}
	return 0;
}

static int add_row(struct kw_compare *c, const struct kw_recording *base,
		   const struct kw_recording *new, enum metric_kind k, int idx, double *bv,
		   double *nv)
{
	struct kw_compare_row *row, *rows;
	bool any = false;
	size_t i;
	int err;

	for (i = 0; i < c->n_base; i++)
		any |= (bv[i] = metric_of(&base[i], k, idx)) != 0;
	for (i = 0; i < c->n_new; i++)
		any |= (nv[i] = metric_of(&new[i], k, idx)) != 0;
	if (!any)
		return 0;
	rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	row = &rows[c->nrows];
	memset(row, 0, sizeof(*row));
	snprintf(row->group, sizeof(row->group), "%s",
		 k == M_COUNTER ? "counters" : kw_probe_descs[idx].name);
	snprintf(row->metric, sizeof(row->metric), "%s",
		 k == M_COUNTER ? kw_counter_names[idx] : metric_names[k]);
	err = kw_change(bv, c->n_base, nv, c->n_new, c->level, c->method, &row->change);
	if (err) {
		fprintf(stderr, "compare: %s %s: %s\n", row->group, row->metric, strerror(-err));
		return err;
	}
	c->nrows++;
	return 0;
}

int kw_compare_build(struct kw_compare *c, const struct kw_recording *base, size_t n_base,
		     const struct kw_recording *new, size_t n_new, double level,
		     enum kw_ci_method method)
{
	double *bv = NULL, *nv = NULL;
	int err = 0, p, k, i;

	memset(c, 0, sizeof(*c));
	if (!n_base || !n_new)
		return -EINVAL;
	c->n_base = n_base;
	c->n_new = n_new;
	c->level = level;
	c->method = method;
	snprintf(c->base_kernel, sizeof(c->base_kernel), "%s", base[0].meta.kernel);
	snprintf(c->new_kernel, sizeof(c->new_kernel), "%s", new[0].meta.kernel);
	snprintf(c->base_arch, sizeof(c->base_arch), "%s", base[0].meta.arch);
	snprintf(c->new_arch, sizeof(c->new_arch), "%s", new[0].meta.arch);
	bv = calloc(n_base, sizeof(*bv));
	nv = calloc(n_new, sizeof(*nv));
	if (!bv || !nv) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (p = 0; p < KW_NR_PROBES && !err; p++)
		for (k = M_CALLS; k <= M_TOTAL && !err; k++)
			if (k == M_CALLS || kw_probe_descs[p].timed)
				err = add_row(c, base, new, k, p, bv, nv);
	for (i = 0; i < KW_NR_COUNTERS && !err; i++)
		err = add_row(c, base, new, M_COUNTER, i, bv, nv);
cleanup:
	free(bv);
	free(nv);
	if (err)
		kw_compare_free(c);
	return err;
}

void kw_compare_free(struct kw_compare *c)
{
	if (!c)
		return;
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
}

/* At most 7 characters: 4 significant digits with an SI suffix. */
static const char *fmt_num(char *buf, size_t size, double v)
{
	static const char sfx[] = "kMGTPE";
	int i = -1;

	if (v < 1e4) {
		snprintf(buf, size, v == floor(v) ? "%.0f" : "%.1f", v);
		return buf;
	}
	while (v >= 1e3 && i < 5) {
		v /= 1e3;
		i++;
	}
	snprintf(buf, size, v < 100 ? "%.2f%c" : "%.1f%c", v, sfx[i]);
	return buf;
}

/* At most 7 characters plus the suffix. */
static const char *fmt_pct(char *buf, size_t size, double v, const char *suffix)
{
	if (fabs(v) < 0.05)
		v = 0; /* no "-0.0" */
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) < 999.95)
		snprintf(buf, size, "%+.1f%s", v, suffix);
	else if (fabs(v) < 999999.5)
		snprintf(buf, size, "%+.0f%s", v, suffix);
	else
		snprintf(buf, size, "%s%s", v < 0 ? "<-1e6" : ">1e6", suffix);
	return buf;
}

static const char *fmt_interval(char *buf, size_t size, const struct kw_change *ch)
{
	char lo[16], hi[16];

	if (!ch->has_interval)
		return "-";
	snprintf(buf, size, "[%s,%s]", fmt_pct(lo, sizeof(lo), ch->ci_low_pct, ""),
		 fmt_pct(hi, sizeof(hi), ch->ci_high_pct, ""));
	return buf;
}

static const char *method_name(enum kw_ci_method m)
{
	return m == KW_CI_BOOTSTRAP ? "bootstrap" : "hodges-lehmann";
}

/* The confidence the intervals reach (the same for every row with one). */
static double shown_confidence(const struct kw_compare *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].change.has_interval)
			return c->rows[i].change.confidence;
	return 0;
}

static void print_text(FILE *f, const struct kw_compare *c)
{
	double conf = shown_confidence(c);
	const char *group = NULL;
	size_t i;

	fprintf(f, "kvmwalk compare: %zu base run%s, %zu new run%s\n", c->n_base,
		c->n_base == 1 ? "" : "s", c->n_new, c->n_new == 1 ? "" : "s");
	fprintf(f, "  base: %.50s %.10s\n", c->base_kernel, c->base_arch);
	fprintf(f, "  new:  %.50s %.10s\n", c->new_kernel, c->new_arch);
	fprintf(f, "Values are medians over runs; delta is the change of the median.\n");
	if (!conf)
		fprintf(f, "No intervals: one run on a side.\n");
	else if (c->method == KW_CI_BOOTSTRAP)
		fprintf(f, "Intervals: %.1f %% percentile bootstrap of the ratio of medians.\n",
			100 * conf);
	else
		fprintf(f, "Intervals: %.1f %% Hodges-Lehmann (Mann-Whitney), for the ratio.\n",
			100 * conf);
	fprintf(f, "* marks an interval that excludes 0 at %.0f %% or more.\n",
		100 * KW_MIN_CONFIDENCE);
	/* 2 + 24 + 1 + 8 + 1 + 8 + 1 + 8 + 1 + 1 + 17 = 72 */
	fprintf(f, "\n  %-24s %8s %8s %8s  %s\n", "", "base", "new", "delta", "interval %");
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];
		const struct kw_change *ch = &r->change;
		char b[16], n[16], d[16], iv[40];

		if (!group || strcmp(group, r->group)) {
			group = r->group;
			fprintf(f, "%.*s\n", TEXT_COLS, group);
		}
		fprintf(f, "  %-24.24s %8s %8s %8s%c %s\n", r->metric,
			fmt_num(b, sizeof(b), ch->base_median),
			fmt_num(n, sizeof(n), ch->new_median),
			fmt_pct(d, sizeof(d), ch->delta_pct, "%"), ch->significant ? '*' : ' ',
			fmt_interval(iv, sizeof(iv), ch));
	}
}

static void print_markdown(FILE *f, const struct kw_compare *c)
{
	double conf = shown_confidence(c);
	size_t i;

	fprintf(f, "**kvmwalk compare**: %zu base runs (`%s` %s), %zu new runs (`%s` %s). ",
		c->n_base, c->base_kernel, c->base_arch, c->n_new, c->new_kernel, c->new_arch);
	if (conf)
		fprintf(f, "Medians over runs; %.1f %% intervals (%s); * excludes 0.\n\n",
			100 * conf, method_name(c->method));
	else
		fprintf(f, "Medians over runs; no intervals with one run on a side.\n\n");
	fprintf(f, "| probe | metric | base | new | delta | interval %% |\n");
	fprintf(f, "|---|---|---:|---:|---:|---|\n");
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];
		const struct kw_change *ch = &r->change;
		char b[16], n[16], d[16], iv[40];

		fprintf(f, "| `%s` | %s | %s | %s | %s%s | %s |\n", r->group, r->metric,
			fmt_num(b, sizeof(b), ch->base_median),
			fmt_num(n, sizeof(n), ch->new_median),
			fmt_pct(d, sizeof(d), ch->delta_pct, "%"), ch->significant ? " *" : "",
			fmt_interval(iv, sizeof(iv), ch));
	}
}

/* JSON has no NAN: null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static int print_json(FILE *f, const struct kw_compare *c)
{
	json_t *root = json_object(), *rows = json_array();
	size_t i;
	int err;

	if (!root || !rows) {
		json_decref(root);
		json_decref(rows);
		return -ENOMEM;
	}
	json_object_set_new(root, "schema", json_string("kvmwalk-compare/1"));
	json_object_set_new(root, "level", json_real(c->level));
	json_object_set_new(root, "method", json_string(method_name(c->method)));
	json_object_set_new(root, "base",
			    json_pack("{sIssss}", "runs", (json_int_t)c->n_base, "kernel",
				      c->base_kernel, "arch", c->base_arch));
	json_object_set_new(root, "new",
			    json_pack("{sIssss}", "runs", (json_int_t)c->n_new, "kernel",
				      c->new_kernel, "arch", c->new_arch));
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];
		const struct kw_change *ch = &r->change;
		json_t *o = json_object();

		json_object_set_new(o, "group", json_string(r->group));
		json_object_set_new(o, "metric", json_string(r->metric));
		json_object_set_new(o, "base_median", num(ch->base_median));
		json_object_set_new(o, "new_median", num(ch->new_median));
		json_object_set_new(o, "delta_pct", num(ch->delta_pct));
		json_object_set_new(o, "shift_pct", num(ch->shift_pct));
		json_object_set_new(o, "interval_pct",
				    ch->has_interval ? json_pack("[oo]", num(ch->ci_low_pct),
								 num(ch->ci_high_pct))
						     : json_null());
		json_object_set_new(o, "confidence",
				    ch->has_interval ? json_real(ch->confidence) : json_null());
		json_object_set_new(o, "significant", json_boolean(ch->significant));
		json_array_append_new(rows, o);
	}
	json_object_set_new(root, "rows", rows);
	err = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', f);
	json_decref(root);
	return err ? -EIO : 0;
}

int kw_compare_print(FILE *f, const struct kw_compare *c, enum kw_compare_format fmt)
{
	int err = 0;

	switch (fmt) {
	case KW_COMPARE_TEXT:
		print_text(f, c);
		break;
	case KW_COMPARE_MARKDOWN:
		print_markdown(f, c);
		break;
	case KW_COMPARE_JSON:
		err = print_json(f, c);
		break;
	}
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
