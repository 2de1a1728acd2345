// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk compare --plot`: per timed function, the duration histograms of both sides (their runs
 * merged) as densities over a log time axis, one panel each, medians as dashed lines. Plain SVG
 * written by hand: it opens in any browser and needs no service.
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
#define LEFT 60
#define RIGHT 20
#define PANEL_H 170
#define PLOT_H 120
#define TOP 50

static const char *const colour[2] = { "#1f77b4", "#d62728" }; /* base blue, new red */

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
	return LEFT + (log_ns - lo) / (hi - lo) * (W - LEFT - RIGHT);
}

static void panel(FILE *f, int idx, int p, const struct kw_hist *h, const double *med,
		  const size_t *runs)
{
	double lo = INFINITY, hi = -INFINITY, dmax = 0, y0 = TOP + idx * PANEL_H;
	double base_y = y0 + 30 + PLOT_H;
	int s;
	unsigned int b;

	for (s = 0; s < 2; s++)
		for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
			double w;

			if (!h[s].buckets[b])
				continue;
			lo = fmin(lo, log10(fmax(1, kw_hist_bucket_lower(b))));
			hi = fmax(hi, log10((double)kw_hist_bucket_upper(b) + 1));
			w = log10((double)kw_hist_bucket_upper(b) + 1) -
			    log10(fmax(1, kw_hist_bucket_lower(b)));
			dmax = fmax(dmax, h[s].buckets[b] / (double)h[s].count / w);
		}
	/* a count without a bucket (a recording damaged, or read mid-update): one empty decade */
	if (lo > hi)
		lo = 0, hi = 1;
	lo = floor(lo);
	hi = ceil(hi);
	if (hi <= lo)
		hi = lo + 1;

	fprintf(f, "<g>\n<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">%s</text>\n", LEFT, y0 + 18,
		kw_probes[p].name);
	fprintf(f,
		"<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" "
		"stroke=\"#999\"/>\n",
		LEFT, y0 + 30, W - LEFT - RIGHT, PLOT_H);
	/* decades on the time axis */
	for (double d = lo; d <= hi; d++) {
		char t[16];

		kw_fmt_ns(t, sizeof(t), pow(10, d));
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\" "
			"font-size=\"11\">%s</text>\n",
			x_of(d, lo, hi), y0 + 30, x_of(d, lo, hi), base_y, x_of(d, lo, hi),
			base_y + 14, t);
	}
	for (s = 0; s < 2; s++) {
		char t[16];
		double xm;

		if (!h[s].count)
			continue;
		/* one rectangle per bucket; height = share of the calls per decade */
		fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.35\" stroke=\"%s\" d=\"", colour[s],
			colour[s]);
		for (b = 0; b < KW_HIST_NR_BUCKETS; b++) {
			double a, z, w, hgt;

			if (!h[s].buckets[b])
				continue;
			a = log10(fmax(1, kw_hist_bucket_lower(b)));
			z = log10((double)kw_hist_bucket_upper(b) + 1);
			w = z - a;
			hgt = h[s].buckets[b] / (double)h[s].count / w / dmax * (PLOT_H - 10);
			fprintf(f, "M%.1f %.1fV%.1fH%.1fV%.1fZ", x_of(a, lo, hi), base_y,
				base_y - hgt, x_of(z, lo, hi), base_y);
		}
		fprintf(f, "\"/>\n");
		xm = x_of(log10(fmax(1, med[s])), lo, hi);
		kw_fmt_ns(t, sizeof(t), med[s]);
		fprintf(f,
			"<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"%s\" "
			"stroke-width=\"2\" stroke-dasharray=\"5,3\"/>"
			"<text x=\"%.1f\" y=\"%.0f\" fill=\"%s\" font-size=\"11\">%s median %s"
			" (%zu run%s, %llu calls)</text>\n",
			xm, y0 + 30, xm, base_y, colour[s], xm + 4, y0 + 44 + 13 * s, colour[s],
			s ? "new" : "base", t, runs[s], runs[s] == 1 ? "" : "s",
			(unsigned long long)h[s].count);
	}
	fprintf(f, "</g>\n");
}

int kw_compare_plot(FILE *f, const struct kw_recording *base, size_t n_base,
		    const struct kw_recording *new, size_t n_new, const char *functions)
{
	const struct kw_recording *side[2] = { base, new };
	size_t runs[2] = { n_base, n_new };
	struct kw_hist *h;
	int p, np = 0, idx = 0;

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
	kw_svg_begin(f, W, TOP + np * PANEL_H + 10);
	fprintf(f,
		"<text x=\"%d\" y=\"22\" font-size=\"15\">kvmwalk compare: duration per call, "
		"<tspan fill=\"%s\">base ",
		LEFT, colour[0]);
	kw_svg_text(f, base[0].meta.kernel);
	fprintf(f, "</tspan> vs <tspan fill=\"%s\">new ", colour[1]);
	kw_svg_text(f, new[0].meta.kernel);
	fprintf(f,
		"</tspan></text>\n<text x=\"%d\" y=\"40\" font-size=\"11\">log time axis; height: "
		"share of the calls per decade; dashed: median over runs</text>\n",
		LEFT);
	for (p = 0; p < KW_NR_PROBES; p++) {
		double med[2];

		if (!kw_probes[p].timed ||
		    !kw_compare_listed(functions, kw_probes[p].name, false) ||
		    !(h[2 * p].count || h[2 * p + 1].count))
			continue;
		med[0] = median_of_medians(base, n_base, p);
		med[1] = median_of_medians(new, n_new, p);
		panel(f, idx++, p, &h[2 * p], med, runs);
	}
	kw_svg_end(f);
	free(h);
	return ferror(f) ? -EIO : 0;
}
