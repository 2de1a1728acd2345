// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. `kvmwalk compare --plot`: per timed function, the duration histograms of both
 * sides (their runs merged) as densities over a log time axis, one panel each, medians as
 * dashed lines. Plain SVG written by hand: it opens in any browser and needs no service.
 *
 * Laid out by the width of its text (svg.h): the title, the legend and each panel's medians are
 * above the plot areas, cut to the page where they would run off it, never on the bars; each
 * panel has its y axis (the share of a side's calls in each bar, in %) and its time axis. A bar
 * is a histogram bucket: from 8 ns up every bucket is an eighth of its power of two
 * (bpf/hist_abi.h), bars of about one width on the log axis, so their heights compare as a
 * density's would and read as plain shares (at most 100 %).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_env.h"
#include "fmt.h"
#include "svg.h"

#define W 760
#define LEFT 64	 /* room for the y axis's labels, "500%" */
#define RIGHT 28 /* half of the widest time label, "100ms", past the last decade */
#define PW (W - LEFT - RIGHT)
#define LINE 14	      /* a line of 11 px text */
#define PANEL_HEAD 54 /* the function's name and the two medians above the plot */
#define PLOT_H 110
#define PANEL_FOOT 32 /* the time axis's labels and the gap to the next panel */
#define PANEL_H (PANEL_HEAD + PLOT_H + PANEL_FOOT)

static const char *const colour[2] = { "#1f77b4", "#d62728" }; /* base blue, new red */
static const char *const side_name[2] = { "base", "new" };

/* Median over runs of each run's median: the value the report's tables show. */
static double median_of_medians(const struct kw_recording *r, size_t n, int p)
{
	double v[n];

	for (size_t i = 0; i < n; i++)
		v[i] = kw_hist_quantile(&r[i].funcs[p].dur, 0.5);
	return kw_median(v, n);
}

static double x_of(double log_ns, double lo, double hi)
{
	return LEFT + (log_ns - lo) / (hi - lo) * PW;
}

/* A line of text at x, y of size px in colour, cut to maxw px. */
static void text_line(FILE *f, double x, double y, int size, const char *colour, double maxw,
		      const char *s)
{
	char buf[512];

	kw_svg_fit(buf, sizeof(buf), s, size, false, maxw);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"%d\" fill=\"%s\">", x, y, size, colour);
	kw_svg_text(f, buf);
	fprintf(f, "</text>\n");
}

/* The y axis of a panel: 0, half and the top of the scale, in % of a side's calls. */
static void y_axis(FILE *f, double top, double base_y, double ymax)
{
	fprintf(f, "<g class=\"y-axis\">\n");
	for (int k = 0; k <= 2; k++) {
		double y = base_y - k * PLOT_H / 2.0;
		char t[32];

		kw_fmt_tick(t, sizeof(t), 100 * ymax * k / 2, KW_UNIT_COUNT);
		fprintf(f,
			"<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#999\"/>"
			"<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\" "
			"font-size=\"11\">%s%%</text>\n",
			LEFT - 4, y, LEFT, y, LEFT - 7, y + 4, t);
		if (k)
			fprintf(f,
				"<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" "
				"stroke=\"#eee\"/>\n",
				LEFT, y, W - RIGHT, y);
	}
	fprintf(f, "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"#333\"/>\n</g>\n",
		LEFT, top, LEFT, base_y);
}

static void panel(FILE *f, double y0, int p, const struct kw_hist *h, const double *med,
		  const size_t *runs)
{
	double lo = INFINITY, hi = -INFINITY, dmax = 0, ymax, top = y0 + PANEL_HEAD;
	double base_y = top + PLOT_H;
	int s;
	unsigned int b;

	for (s = 0; s < 2; s++)
		for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
			if (!h[s].buckets[b])
				continue;
			lo = fmin(lo, log10(fmax(1, kw_hist_bucket_lower(b))));
			hi = fmax(hi, log10((double)kw_hist_bucket_upper(b) + 1));
			dmax = fmax(dmax, h[s].buckets[b] / (double)h[s].count);
		}
	/* a count without a bucket (a recording damaged, or read mid-update): one empty decade */
	if (lo > hi)
		lo = 0, hi = 1;
	lo = floor(lo);
	hi = ceil(hi);
	if (hi <= lo)
		hi = lo + 1;
	ymax = dmax > 0 ? kw_svg_nice_ceil(dmax) : 1;

	fprintf(f, "<g>\n<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">", LEFT, y0 + 14);
	kw_svg_text(f, kw_probes[p].name);
	fprintf(f, "</text>\n");
	/* the medians, one line a side, above the plot: never over the bars */
	for (s = 0; s < 2; s++) {
		char t[16], line[160];

		kw_fmt_ns(t, sizeof(t), med[s]);
		if (h[s].count)
			snprintf(line, sizeof(line),
				 "%s: median %s (dashed), %s calls in %zu run%s", side_name[s], t,
				 KW_COUNT(h[s].count), runs[s], runs[s] == 1 ? "" : "s");
		else
			snprintf(line, sizeof(line), "%s: no call in %zu run%s", side_name[s],
				 runs[s], runs[s] == 1 ? "" : "s");
		text_line(f, LEFT, y0 + 30 + LINE * s, 11, colour[s], PW, line);
	}
	fprintf(f,
		"<rect class=\"plot\" x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n",
		LEFT, top, PW, PLOT_H);
	y_axis(f, top, base_y, ymax);
	/* decades on the time axis */
	for (double d = lo; d <= hi; d++) {
		char t[16];

		kw_fmt_tick(t, sizeof(t), pow(10, d), KW_UNIT_NS);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
			"font-size=\"11\">%s</text>\n",
			x_of(d, lo, hi), top, x_of(d, lo, hi), base_y, x_of(d, lo, hi), base_y + 16,
			t);
	}
	for (s = 0; s < 2; s++) {
		double xm;

		if (!h[s].count)
			continue;
		/* one rectangle per bucket; height = the share of the side's calls in it */
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" d=\"", colour[s],
			colour[s]);
		for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
			double a, z, hgt;

			if (!h[s].buckets[b])
				continue;
			a = log10(fmax(1, kw_hist_bucket_lower(b)));
			z = log10((double)kw_hist_bucket_upper(b) + 1);
			hgt = h[s].buckets[b] / (double)h[s].count / ymax * PLOT_H;
			fprintf(f, "M%.1f %.1fV%.1fH%.1fV%.1fZ", x_of(a, lo, hi), base_y,
				base_y - hgt, x_of(z, lo, hi), base_y);
		}
		fprintf(f, "\"/>\n");
		xm = x_of(log10(fmax(1, med[s])), lo, hi);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"5,3\"/>\n",
			xm, top, xm, base_y, colour[s]);
	}
	fprintf(f, "</g>\n");
}

int kw_compare_plot(FILE *f, const struct kw_recording *base, size_t n_base,
		    const struct kw_recording *new, size_t n_new, const char *functions)
{
	static const char caption[] =
		"x: duration per call, log scale. y: % of a side's calls in each bar (a bar: "
		"durations within 12.5 % of each other). Dashed: each side's median over runs of "
		"each run's median, the value compare's tables show.";
	const struct kw_recording *side[2] = { base, new };
	size_t runs[2] = { n_base, n_new };
	double y0, top;
	struct kw_hist *h;
	int p, np = 0, lines;
	char *cap = NULL;
	size_t caplen = 0;
	FILE *c;

	h = calloc(2 * KW_NR_PROBES, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (p = 0; p < KW_NR_PROBES; p++) {
		for (int s = 0; s < 2; s++)
			for (size_t i = 0; i < runs[s]; i++)
				kw_hist_merge(&h[2 * p + s], &side[s][i].funcs[p].dur, 1);
		if (kw_probes[p].timed && kw_compare_listed(functions, kw_probes[p].name, false) &&
		    (h[2 * p].count || h[2 * p + 1].count))
			np++;
	}
	/* the caption's lines first: the page's height depends on them */
	c = open_memstream(&cap, &caplen);
	if (!c) {
		free(h);
		return -ENOMEM;
	}
	lines = kw_svg_lines(c, LEFT, 98, 11, LINE, PW, "font-size=\"11\"", caption);
	fclose(c);
	top = 98 + (lines - 1) * LINE + 22;

	kw_svg_begin(f, W, (int)top + np * PANEL_H);
	fprintf(f,
		"<text x=\"%d\" y=\"24\" font-size=\"15\">kvmwalk compare: duration per call"
		"</text>\n",
		LEFT);
	/* the legend: a swatch and the side's kernel, one line each, cut to the page */
	for (int s = 0; s < 2; s++) {
		char line[400];

		snprintf(line, sizeof(line), "%s: %s, %zu run%s", side_name[s],
			 side[s][0].meta.kernel, runs[s], runs[s] == 1 ? "" : "s");
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" fill=\"%s\" "
			"fill-opacity=\"0.6\"/>\n",
			LEFT, 39 + 18 * s, colour[s]);
		text_line(f, LEFT + 18, 48 + 18 * s, 13, colour[s], PW - 18, line);
	}
	fputs(cap, f);
	free(cap);
	y0 = top;
	for (p = 0; p < KW_NR_PROBES; p++) {
		double med[2];

		if (!kw_probes[p].timed ||
		    !kw_compare_listed(functions, kw_probes[p].name, false) ||
		    !(h[2 * p].count || h[2 * p + 1].count))
			continue;
		med[0] = median_of_medians(base, n_base, p);
		med[1] = median_of_medians(new, n_new, p);
		panel(f, y0, p, &h[2 * p], med, runs);
		y0 += PANEL_H;
	}
	kw_svg_end(f);
	free(h);
	return ferror(f) ? -EIO : 0;
}
