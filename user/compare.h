/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk compare BASE... -- NEW...`: per metric, the median over base runs and over new runs,
 * the change and its confidence interval (stats.h). Text (72 columns, no tabs: it goes into
 * emails), markdown and JSON. Plain C on loaded recordings, no libbpf.
 */
#ifndef KW_COMPARE_H
#define KW_COMPARE_H

#include <stdio.h>

#include "record.h"
#include "stats.h"

struct kw_compare_row {
	char group[64];	 /* the probe's name, or "counters" */
	char metric[32]; /* "calls", "p50 ns", "p99 ns", "total ns", or a counter's name */
	struct kw_change change;
};

struct kw_compare {
	size_t n_base, n_new;
	double level;
	enum kw_ci_method method;
	char base_kernel[128], new_kernel[128];
	char base_arch[16], new_arch[16];
	size_t nrows;
	struct kw_compare_row *rows;
};

enum kw_compare_format {
	KW_COMPARE_TEXT,
	KW_COMPARE_MARKDOWN,
	KW_COMPARE_JSON,
};

/*
 * One row per metric that is non-zero in at least one run: per probe its calls and, if timed, the
 * per-run p50, p99 and total of its duration; then every non-zero counter. Each run contributes
 * one value per metric. level is the confidence asked for (0.95). Returns 0 or -errno.
 */
int kw_compare_build(struct kw_compare *c, const struct kw_recording *base, size_t n_base,
		     const struct kw_recording *new, size_t n_new, double level,
		     enum kw_ci_method method);
void kw_compare_free(struct kw_compare *c);

int kw_compare_print(FILE *f, const struct kw_compare *c, enum kw_compare_format fmt);

#endif /* KW_COMPARE_H */
