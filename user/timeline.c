// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk report --timeline`: what an operator reads during a migration, one row per
 * `record --interval` snapshot, at its end in UTC and in s since the start: walks, split visits,
 * range TLB flushes, empty flushes, dirty-log ioctls and the time in walks, each per second of
 * the interval's own length (the last interval is partial: its length is the difference of its t
 * and the one before); then the durations: the mean walk, and the p99 of walks, range TLB
 * flushes and MMU-notifier invalidations, from the interval's own duration histograms.
 * Text (two tables of at most 80 columns, rates then durations), CSV (the rates, the
 * durations, the raw counts, then every probe, counter and visit of the interval), JSON
 * (report --json's "intervals") and an SVG with one panel per rate column.
 */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "counters.h"
#include "fmt.h"
#include "svg.h"
#include "timeline.h"

static const struct {
	const char *head; /* text column and SVG panel */
	const char *csv;  /* CSV: the raw count; the rate is csv_rate */
	const char *csv_rate;
	const char *what;   /* the header's line: what is counted */
	const char *colour; /* SVG */
} cols[KW_TL_NR] = {
	[KW_TL_WALKS] = { "walks/s", "walks", "walks_per_s",
			  "kvm_pgtable_walk calls (x86: tdp_mmu_zap_leafs, fast_page_fault)",
			  "#1f77b4" },
	[KW_TL_SPLIT] = { "split/s", "split_visits", "split_visits_per_s",
			  "stage2_split_walker visits", "#2ca02c" },
	[KW_TL_FLUSHES] = { "flush/s", "flushes", "flushes_per_s",
			    "range TLB flushes (every enclosing operation)", "#9467bd" },
	[KW_TL_EMPTY] = { "empty/s", "empty_flushes", "empty_flushes_per_s",
			  "range TLB flushes by unmaps that cleared no leaf", "#d62728" },
	[KW_TL_DLOG] = { "dlog/s", "dirty_log_ioctls", "dirty_log_ioctls_per_s",
			 "dirty-log ioctls: KVM_GET_DIRTY_LOG, KVM_CLEAR_DIRTY_LOG", "#ff7f0e" },
	[KW_TL_WALK_NS] = { "walk ms/s", "walk_ns", "walk_ms_per_s",
			    "ms in outermost walks per s (1000: one CPU busy)", "#8c564b" },
};

static const struct {
	const char *head, *csv, *what;
} tails[KW_TL_NR_TAIL] = {
	[KW_TL_P99_WALK] = { "walk p99", "walk_p99_ns", "the walks/s calls'" },
	[KW_TL_P99_FLUSH] = { "flush p99", "flush_p99_ns", "the range TLB flushes'" },
	[KW_TL_P99_INVAL] = { "inval p99", "inval_p99_ns", "the MMU-notifier invalidations'" },
};

static bool attached(const struct kw_recording *r, int p)
{
	return kw_plan_attached(&r->plan[p]);
}

/* The probes whose durations tail column c reads, attached ones only; how many. */
static int tail_probes(const struct kw_recording *r, int c, int ps[3])
{
	static const int walks[] = { KW_P_PGT_WALK, KW_P_TDP_ZAP_LEAFS, KW_P_FAST_PF };
	int n = 0;

	switch (c) {
	case KW_TL_P99_WALK:
		for (size_t k = 0; k < sizeof(walks) / sizeof(walks[0]); k++)
			if (attached(r, walks[k]))
				ps[n++] = walks[k];
		break;
	case KW_TL_P99_FLUSH:
		/* the EL2 flush runs inside the EL1 one in VHE: one of them, as the counters */
		if (attached(r, KW_P_TLB_FLUSH_RANGE))
			ps[n++] = KW_P_TLB_FLUSH_RANGE;
		else if (attached(r, KW_P_HYP_FLUSH_RANGE))
			ps[n++] = KW_P_HYP_FLUSH_RANGE;
		break;
	case KW_TL_P99_INVAL:
		if (attached(r, KW_P_NOTIFIER))
			ps[n++] = KW_P_NOTIFIER;
		break;
	}
	return n;
}

double kw_timeline_p99(const struct kw_recording *r, const struct kw_interval *iv, int c)
{
	struct kw_hist h = {};
	int ps[3], n = tail_probes(r, c, ps);

	for (int k = 0; k < n; k++) {
		if (iv)
			kw_interval_hist(iv, ps[k], &h);
		else
			kw_hist_merge(&h, &r->funcs[ps[k]].dur, 1);
	}
	return h.count ? kw_hist_quantile(&h, 0.99) : NAN;
}

/*
 * The recording's start on the wall clock, s since the epoch (0: not known). Exact from
 * meta.start_realtime_ns (taken with start_monotonic_ns, t = 0); a recording made before it has
 * only meta.started, the end of the recording to the second, so the start is that minus
 * duration_s: about a second off (*exact false).
 */
static double start_utc(const struct kw_recording *r, bool *exact)
{
	struct tm tm = {};
	const char *end;

	*exact = r->meta.start_realtime_ns != 0;
	if (*exact)
		return r->meta.start_realtime_ns / 1e9;
	end = strptime(r->meta.started, "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (!end || *end)
		return 0;
	return (double)timegm(&tm) - r->meta.duration_s;
}

/*
 * What the row counts, NAN where the recording cannot say: the probe was not attached, or the
 * interval was recorded before intervals carried counters (!full: only calls and ns).
 */
void kw_timeline_row(const struct kw_recording *r, size_t i, struct kw_tl_row *row)
{
	const struct kw_interval *iv = &r->intervals[i];
	bool flushes = attached(r, KW_P_TLB_FLUSH_RANGE) || attached(r, KW_P_HYP_FLUSH_RANGE);
	double n = 0, start = start_utc(r, &row->utc_exact);
	bool walks = attached(r, KW_P_PGT_WALK) || attached(r, KW_P_TDP_ZAP_LEAFS) ||
		     attached(r, KW_P_FAST_PF);

	row->t = iv->t;
	row->len = iv->t - (i ? r->intervals[i - 1].t : 0);
	row->utc = start > 0 ? start + iv->t : 0;
	/* not a time gmtime_r() can name (a damaged recording): not known */
	if (!(row->utc > 0 && row->utc < 253402300800.0)) /* 10000-01-01 */
		row->utc = 0;
	row->v[KW_TL_WALKS] = NAN;
	row->walk_mean_ns = NAN;
	if (walks)
		row->v[KW_TL_WALKS] = (double)iv->calls[KW_P_PGT_WALK] +
				      iv->calls[KW_P_TDP_ZAP_LEAFS] + iv->calls[KW_P_FAST_PF];
	/*
	 * The intervals carry each probe's calls and summed ns, no histogram: the mean is what
	 * they give (a per-interval p99 needs each interval's histogram, which record does not
	 * keep). Inclusive as the report's mean: a nested walk's time is in its parent's too.
	 */
	if (walks && row->v[KW_TL_WALKS] > 0)
		row->walk_mean_ns = ((double)iv->ns[KW_P_PGT_WALK] + iv->ns[KW_P_TDP_ZAP_LEAFS] +
				     iv->ns[KW_P_FAST_PF]) /
				    row->v[KW_TL_WALKS];
	row->v[KW_TL_SPLIT] = attached(r, KW_P_SPLIT_WALKER) ? iv->calls[KW_P_SPLIT_WALKER] : NAN;
	/* the flush counters count the primary flush probe only: no flush is counted twice */
	for (int e = 0; e < KW_NR_ENCL; e++)
		n += iv->counters[KW_C_FLUSH_ENCL + e];
	row->v[KW_TL_FLUSHES] = iv->full && flushes ? n : NAN;
	row->v[KW_TL_EMPTY] = iv->full && flushes ? iv->counters[KW_C_EMPTY_FLUSHES] : NAN;
	row->v[KW_TL_DLOG] = iv->full && attached(r, KW_P_VM_IOCTL) ? iv->dirty_log_ioctls : NAN;
	row->v[KW_TL_WALK_NS] = iv->full ? iv->measured_ns : NAN;
	for (int c = 0; c < KW_TL_NR_TAIL; c++)
		row->p99[c] = kw_timeline_p99(r, iv, c);
}

/* The rate shown for column c: per second, and ms per s for the walk time. */
static double rate(const struct kw_tl_row *row, int c)
{
	if (isnan(row->v[c]) || row->len <= 0)
		return NAN;
	return row->v[c] / row->len / (c == KW_TL_WALK_NS ? 1e6 : 1);
}

/* A count per second as every count (fmt.h), "-" for NAN: "0", "<0.01", "0.52", "4,096". */
static void fmt_rate(char *buf, size_t len, double v)
{
	kw_fmt_count(buf, len, v);
}

/* "11:36:57.3" (UTC), "~11:36:57" when only to about a second, "-" when not known */
static void fmt_utc(char *buf, size_t len, const struct kw_tl_row *row)
{
	time_t s = (time_t)floor(row->utc);
	struct tm tm;

	if (!(row->utc > 0) || !gmtime_r(&s, &tm)) {
		snprintf(buf, len, "-");
		return;
	}
	if (row->utc_exact)
		snprintf(buf, len, "%02d:%02d:%02d.%d", tm.tm_hour, tm.tm_min, tm.tm_sec,
			 (int)((row->utc - s) * 10) % 10);
	else
		snprintf(buf, len, "~%02d:%02d:%02d", tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/*
 * "2026-12-02T11:36:57.312Z" into buf, to the second when only about a second is known ("" when
 * not known)
 */
static void fmt_utc_iso(char *buf, size_t len, const struct kw_tl_row *row)
{
	time_t s = (time_t)floor(row->utc);
	struct tm tm;
	char ms[8] = "";

	buf[0] = 0;
	if (!(row->utc > 0) || !gmtime_r(&s, &tm))
		return;
	if (row->utc_exact)
		snprintf(ms, sizeof(ms), ".%03d", (int)((row->utc - s) * 1000) % 1000);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d%sZ", tm.tm_year + 1900, tm.tm_mon + 1,
		 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}

/*
 * The tables' widths: the wall clock (10) and t (8) first in each; the rates (69 columns): the
 * five counts (7: their heads are at most 7 wide and fmt_rate() prints at most 6) and walk
 * ms/s (9); the durations (59): walk mean and the three p99 (9).
 */
static int col_width(int c)
{
	return c == KW_TL_WALK_NS ? 9 : 7;
}

/* A duration as every duration (fmt.h), "-" for NAN */
static void fmt_dur(char *buf, size_t len, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		kw_fmt_ns(buf, len, ns);
}

/* The wall clock and t of a row, the start of each table's lines */
static void row_start(FILE *f, const struct kw_tl_row *row)
{
	char b[80];

	fmt_utc(b, sizeof(b), row);
	fprintf(f, "%-10s %8.2f", b, row->t);
}

static void text_header(FILE *f, const struct kw_recording *r, const char *name, bool dash,
			bool hists)
{
	struct kw_tl_row first;
	char iso[80];

	fprintf(f, "kvmwalk report --timeline: %s\n", name);
	fprintf(f, "  %-10s %s (%s%s%s)\n", "kernel", r->meta.kernel, r->meta.arch,
		r->meta.kvm_mode[0] ? ", " : "", r->meta.kvm_mode);
	fprintf(f, "  %-10s %zu over %.2f s, one row each: t its end (s since the start),\n"
		   "  %-10s then per second of the interval's own length (the last is partial)\n",
		"intervals", r->nintervals, r->nintervals ? r->intervals[r->nintervals - 1].t : 0.0,
		"");
	kw_timeline_row(r, 0, &first);
	fmt_utc_iso(iso, sizeof(iso), &first);
	if (!iso[0])
		fprintf(f, "  %-10s the interval's end on the wall clock: not known (-)\n", "UTC");
	else if (first.utc_exact)
		fprintf(f, "  %-10s the interval's end on the wall clock, UTC (the first: %.10s)\n",
			"UTC", iso);
	else
		fprintf(f, "  %-10s the interval's end on the wall clock, UTC, ~ to about a second\n"
			   "  %-10s (the recording has no start_realtime_ns; the first: %.10s)\n",
			"UTC", "", iso);
	for (int c = 0; c < KW_TL_NR; c++)
		fprintf(f, "  %-10s %s\n", cols[c].head, cols[c].what);
	fprintf(f, "  %-10s mean duration of the walks/s calls\n", "walk mean");
	for (int c = 0; c < KW_TL_NR_TAIL; c++)
		fprintf(f, "  %-10s 99th percentile of %s durations\n", tails[c].head,
			tails[c].what);
	if (hists)
		fprintf(f, "  %-10s from the interval's own histograms, to within 12.5 %%; - when\n"
			   "  %-10s it had no such call\n",
			"", "");
	else
		fprintf(f, "  %-10s - in every interval: an older kvmwalk recorded it, whose\n"
			   "  %-10s intervals keep no histograms; all: the whole recording's\n",
			"", "");
	fprintf(f, "  %-10s the whole recording: its totals per second, its durations\n", "all");
	if (dash)
		fprintf(f, "  %-10s not measured: the probe was not attached, or the recording's\n"
			   "  %-10s intervals predate counters (calls and time only)\n",
			"-", "");
}

int kw_timeline_text(FILE *f, const struct kw_recording *r, const char *name)
{
	double tot[KW_TL_NR] = {}, len = 0, all_ns = 0;
	bool dash = false, walks_measured = false, hists = false;
	struct kw_tl_row row;
	char b[80];

	for (size_t i = 0; i < r->nintervals; i++) {
		const struct kw_interval *iv = &r->intervals[i];

		kw_timeline_row(r, i, &row);
		for (int c = 0; c < KW_TL_NR; c++) {
			dash |= isnan(row.v[c]);
			tot[c] += row.v[c];
		}
		len += row.len;
		walks_measured |= !isnan(row.v[KW_TL_WALKS]);
		hists |= iv->ndur > 0;
		all_ns += (double)iv->ns[KW_P_PGT_WALK] + iv->ns[KW_P_TDP_ZAP_LEAFS] +
			  iv->ns[KW_P_FAST_PF];
	}
	text_header(f, r, name, dash, hists);
	fprintf(f, "\n%-10s %8s", "UTC", "t s");
	for (int c = 0; c < KW_TL_NR; c++)
		fprintf(f, " %*s", col_width(c), cols[c].head);
	fputc('\n', f);
	for (size_t i = 0; i < r->nintervals; i++) {
		kw_timeline_row(r, i, &row);
		row_start(f, &row);
		for (int c = 0; c < KW_TL_NR; c++) {
			fmt_rate(b, sizeof(b), rate(&row, c));
			fprintf(f, " %*s", col_width(c), b);
		}
		fputc('\n', f);
	}
	/* the whole recording, per second of its length: the report's totals / its duration */
	fprintf(f, "%-10s %8s", "", "all");
	for (int c = 0; c < KW_TL_NR; c++) {
		struct kw_tl_row all = { .len = len };

		all.v[c] = tot[c];
		fmt_rate(b, sizeof(b), rate(&all, c));
		fprintf(f, " %*s", col_width(c), b);
	}
	fprintf(f, "\n\n%-10s %8s %9s", "UTC", "t s", "walk mean");
	for (int c = 0; c < KW_TL_NR_TAIL; c++)
		fprintf(f, " %9s", tails[c].head);
	fputc('\n', f);
	for (size_t i = 0; i < r->nintervals; i++) {
		kw_timeline_row(r, i, &row);
		row_start(f, &row);
		fmt_dur(b, sizeof(b), row.walk_mean_ns);
		fprintf(f, " %9s", b);
		for (int c = 0; c < KW_TL_NR_TAIL; c++) {
			fmt_dur(b, sizeof(b), row.p99[c]);
			fprintf(f, " %9s", b);
		}
		fputc('\n', f);
	}
	/* the whole recording's mean, and its p99 from its full histograms */
	fmt_dur(b, sizeof(b),
		walks_measured && tot[KW_TL_WALKS] > 0 ? all_ns / tot[KW_TL_WALKS] : NAN);
	fprintf(f, "%-10s %8s %9s", "", "all", b);
	for (int c = 0; c < KW_TL_NR_TAIL; c++) {
		fmt_dur(b, sizeof(b), kw_timeline_p99(r, NULL, c));
		fprintf(f, " %9s", b);
	}
	fputc('\n', f);
	return ferror(f) ? -EIO : 0;
}

/* ---- CSV ------------------------------------------------------------------------------------- */

static void csv_num(FILE *f, double v)
{
	if (isnan(v))
		fputc(',', f);
	else
		fprintf(f, ",%.9g", v);
}

static void csv_u64(FILE *f, bool known, __u64 v)
{
	if (known)
		fprintf(f, ",%llu", (unsigned long long)v);
	else
		fputc(',', f);
}

/* visits are those of the arm64 walkers: x86 recordings leave them out */
static bool has_visits(const struct kw_recording *r)
{
	return !strcmp(r->meta.arch, "arm64");
}

static void csv_header(FILE *f, const struct kw_recording *r)
{
	fprintf(f, "t_s,length_s,utc,utc_exact");
	for (int c = 0; c < KW_TL_NR; c++)
		fprintf(f, ",%s", cols[c].csv_rate);
	fprintf(f, ",walk_mean_ns");
	for (int c = 0; c < KW_TL_NR_TAIL; c++)
		fprintf(f, ",%s", tails[c].csv);
	for (int c = 0; c < KW_TL_NR; c++)
		fprintf(f, ",%s", cols[c].csv);
	for (int p = 0; p < KW_NR_PROBES; p++)
		if (kw_probe_in_arch(p, r->meta.arch))
			fprintf(f, ",%s_calls,%s_ns", kw_probes[p].name, kw_probes[p].name);
	for (int k = 0; k < KW_NR_COUNTERS; k++)
		fprintf(f, ",%s", kw_counters[k].name);
	for (int w = 0; w < KW_NR_WALKERS && has_visits(r); w++)
		for (int l = 0; l < KW_NR_LEVELS; l++)
			for (int o = 0; o < KW_NR_OUTCOMES; o++)
				fprintf(f, ",%s_l%d_%s", kw_walker_names[w], l - 1,
					kw_outcome_name(w, o));
	fputc('\n', f);
}

int kw_timeline_csv(FILE *f, const struct kw_recording *r)
{
	char iso[80];

	csv_header(f, r);
	for (size_t i = 0; i < r->nintervals; i++) {
		const struct kw_interval *iv = &r->intervals[i];
		struct kw_tl_row row;

		kw_timeline_row(r, i, &row);
		fmt_utc_iso(iso, sizeof(iso), &row);
		fprintf(f, "%.9g,%.9g,%s,%s", row.t, row.len, iso,
			iso[0] ? (row.utc_exact ? "true" : "false") : "");
		for (int c = 0; c < KW_TL_NR; c++)
			csv_num(f, rate(&row, c));
		csv_num(f, row.walk_mean_ns);
		for (int c = 0; c < KW_TL_NR_TAIL; c++)
			csv_num(f, row.p99[c]);
		for (int c = 0; c < KW_TL_NR; c++)
			csv_num(f, row.v[c]);
		for (int p = 0; p < KW_NR_PROBES; p++)
			if (kw_probe_in_arch(p, r->meta.arch))
				fprintf(f, ",%llu,%llu", (unsigned long long)iv->calls[p],
					(unsigned long long)iv->ns[p]);
		for (int k = 0; k < KW_NR_COUNTERS; k++)
			csv_u64(f, iv->full, iv->counters[k]);
		for (int v = 0; v < KW_NR_VISITS && has_visits(r); v++)
			csv_u64(f, iv->full, iv->visits[v]);
		fputc('\n', f);
	}
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

json_t *kw_timeline_json(const struct kw_recording *r)
{
	json_t *a = json_array();
	char iso[80];

	for (size_t i = 0; i < r->nintervals; i++) {
		json_t *o = kw_interval_json(&r->intervals[i]), *rates = json_object();
		struct kw_tl_row row;

		kw_timeline_row(r, i, &row);
		json_object_set_new(o, "length_s", json_real(row.len));
		/* the interval's end on the wall clock; null when not known */
		fmt_utc_iso(iso, sizeof(iso), &row);
		json_object_set_new(o, "utc", iso[0] ? json_string(iso) : json_null());
		json_object_set_new(o, "utc_exact", json_boolean(iso[0] && row.utc_exact));
		json_object_set_new(o, "walk_mean_ns", isnan(row.walk_mean_ns)
							       ? json_null()
							       : json_real(row.walk_mean_ns));
		for (int c = 0; c < KW_TL_NR_TAIL; c++)
			json_object_set_new(o, tails[c].csv,
					    isnan(row.p99[c]) ? json_null() : json_real(row.p99[c]));
		/* null: not measured (as "-" in the text) */
		for (int c = 0; c < KW_TL_NR; c++)
			json_object_set_new(rates, cols[c].csv_rate,
					    isnan(rate(&row, c)) ? json_null()
								 : json_real(rate(&row, c)));
		json_object_set_new(o, "rates", rates);
		json_array_append_new(a, o);
	}
	return a;
}

/* ---- SVG: one panel per measured column, a step per interval, a shared time axis ------------- */

/*
 * Laid out by the width of its text (svg.h): the title cut to the page, the recording's line
 * wrapped, each panel's heading cut before its "max" on the right; every panel has its y axis
 * (its column's unit: per s, or ms per s) and the time axis.
 */
#define W 760
#define LEFT 70
#define RIGHT 24
#define PANEL_H 112
#define PLOT_Y 24 /* the plot box below the panel's title */
#define PLOT_H 64
#define PW (W - LEFT - RIGHT)
#define LINE 14 /* a line of 11 px text */

static double x_of(double t, double tmax)
{
	return LEFT + t / tmax * PW;
}

/* The panel's heading: its column in bold, what it counts cut to leave room for the max. */
static void svg_heading(FILE *f, int c, double y, double max)
{
	char b[32], what[160], m[48];
	double room;

	fmt_rate(b, sizeof(b), max);
	snprintf(m, sizeof(m), "max %s", b);
	room = PW - kw_svg_text_width(cols[c].head, KW_SVG_FONT, true) -
	       kw_svg_text_width(" ", KW_SVG_FONT, false) - kw_svg_text_width(m, 11, false) - 12;
	kw_svg_fit(what, sizeof(what), cols[c].what, KW_SVG_FONT, false, room);
	fprintf(f, "<text x=\"%d\" y=\"%.0f\"><tspan font-weight=\"bold\">%s</tspan> ", LEFT, y,
		cols[c].head);
	kw_svg_text(f, what);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" font-size=\"11\">%s"
		   "</text>\n",
		W - RIGHT, y, m);
}

static void svg_panel(FILE *f, const struct kw_recording *r, int c, double y0, double tmax)
{
	double top = y0 + PLOT_Y, base = top + PLOT_H, max = 0, ymax;
	double step = kw_svg_nice_ceil(tmax / 8);
	char b[32];

	for (size_t i = 0; i < r->nintervals; i++) {
		struct kw_tl_row row;

		kw_timeline_row(r, i, &row);
		if (!isnan(rate(&row, c)))
			max = fmax(max, rate(&row, c));
	}
	ymax = max > 0 ? kw_svg_nice_ceil(max) : 1;
	fprintf(f, "<g>\n");
	svg_heading(f, c, y0 + 16, max);
	fprintf(f,
		"<rect class=\"plot\" x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n",
		LEFT, top, PW, PLOT_H);
	/* the y axis, in the column's unit: 0, half and the top of the scale */
	fprintf(f, "<g class=\"y-axis\">\n");
	for (int k = 0; k <= 2; k++) {
		double y = base - k * PLOT_H / 2.0;

		/* the scale's round numbers: 2.5, not 2.50 */
		kw_fmt_tick(b, sizeof(b), ymax * k / 2, KW_UNIT_COUNT);
		if (k == 1)
			fprintf(f,
				"<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" "
				"stroke=\"#eee\"/>\n",
				LEFT, y, W - RIGHT, y);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#999\"/>"
			"<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" "
			"font-size=\"11\">%s</text>\n",
			LEFT - 4, y, LEFT, y, LEFT - 7, y + 4, b);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#333\"/>\n</g>\n",
		LEFT, top, LEFT, base);
	/* the time axis: a tick every 1, 2 or 5 x 10^n s, at most 8 of them */
	for (int k = 0; k * step <= tmax * (1 + 1e-9); k++) {
		double x = x_of(k * step, tmax);

		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" font-size=\"11\">%g"
			"</text>\n",
			x, top, x, base, x, base + 14, k * step);
	}
	/* one step per interval: its rate over its length */
	fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.3\" stroke=\"%s\" d=\"M%.1f %.1f",
		cols[c].colour, cols[c].colour, x_of(0, tmax), base);
	for (size_t i = 0; i < r->nintervals; i++) {
		struct kw_tl_row row;
		double v;

		kw_timeline_row(r, i, &row);
		v = rate(&row, c);
		fprintf(f, "V%.1fH%.1f", base - (isnan(v) ? 0 : v / ymax * PLOT_H),
			x_of(row.t, tmax));
	}
	fprintf(f, "V%.1fZ\"/>\n</g>\n", base);
}

int kw_timeline_svg(FILE *f, const struct kw_recording *r, const char *name)
{
	double tmax = r->nintervals ? r->intervals[r->nintervals - 1].t : 0, top;
	int np = 0, idx = 0, h, lines;
	bool measured[KW_TL_NR] = {};
	char title[512], sub[512], *lbuf = NULL;
	size_t llen = 0;
	FILE *lf;

	if (!(tmax > 0))
		tmax = 1;
	for (size_t i = 0; i < r->nintervals; i++) {
		struct kw_tl_row row;

		kw_timeline_row(r, i, &row);
		for (int c = 0; c < KW_TL_NR; c++)
			measured[c] |= !isnan(row.v[c]);
	}
	for (int c = 0; c < KW_TL_NR; c++)
		np += measured[c];
	/* the recording's line, wrapped to the page: the height depends on its lines */
	snprintf(sub, sizeof(sub),
		 "%s %s %s; %zu intervals, each a step: its count per second of its length; "
		 "t: s since the start",
		 r->meta.kernel, r->meta.arch, r->meta.kvm_mode, r->nintervals);
	lf = open_memstream(&lbuf, &llen);
	if (!lf)
		return -ENOMEM;
	lines = kw_svg_lines(lf, LEFT, 40, 11, LINE, PW, "font-size=\"11\"", sub);
	fclose(lf);
	top = 40 + (lines - 1) * LINE + 18;
	h = (int)top + np * PANEL_H + 18;
	kw_svg_begin(f, W, h);
	/* the file's name without its folders, cut to the page */
	snprintf(sub, sizeof(sub), "kvmwalk report --timeline: %s",
		 strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
	kw_svg_fit(title, sizeof(title), sub, 15, false, PW);
	fprintf(f, "<text x=\"%d\" y=\"22\" font-size=\"15\">", LEFT);
	kw_svg_text(f, title);
	fprintf(f, "</text>\n");
	fputs(lbuf, f);
	free(lbuf);
	for (int c = 0; c < KW_TL_NR; c++)
		if (measured[c])
			svg_panel(f, r, c, top + idx++ * PANEL_H, tmax);
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">t (s)</text>\n",
		LEFT + PW / 2, h - 4);
	kw_svg_end(f);
	return ferror(f) ? -EIO : 0;
}
