/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk compare BASE... -- NEW...`: per metric, the median over base runs and over new runs,
 * the change and its confidence interval (stats.h); a header naming both sides and every
 * difference of their environments, one section per known kernel change (DESIGN.md) whose
 * quantity the recordings hold, and the commands that made the recordings. Text (72 columns, no
 * tabs: it goes into emails), markdown and JSON; an SVG plot. Plain C on loaded recordings.
 */
#ifndef KW_COMPARE_H
#define KW_COMPARE_H

#include <stdio.h>

#include "compare_types.h"

/* Exit codes of `kvmwalk compare`, one per condition (--help lists them). */
enum kw_compare_exit {
	KW_CMP_EXIT_OK = 0,
	KW_CMP_EXIT_ERROR = 1,	    /* anything else: out of memory, cannot write the output */
	KW_CMP_EXIT_USAGE = 2,	    /* bad options, no file on a side */
	KW_CMP_EXIT_UNREADABLE = 7, /* a file cannot be opened or read */
	KW_CMP_EXIT_CORRUPT = 8,    /* not JSON (truncated, damaged) or not a recording */
	KW_CMP_EXIT_SCHEMA = 9,	    /* a recording of another schema version */
	KW_CMP_EXIT_ARCH = 10,	    /* recordings of different arches */
};

enum kw_compare_format {
	KW_COMPARE_TEXT,
	KW_COMPARE_MARKDOWN,
	KW_COMPARE_JSON,
};

/*
 * Per probe present on either side: calls per run and, if timed, the per-run median, p90, p99,
 * p99.9 and mean duration; the work per call (visits per walk by level, leaves cleared and flushes per
 * unmap, entries zapped per zap); every non-zero counter. Each run contributes one value per
 * metric. Then the header, the differences, the warnings, the sections and the commands.
 * Returns 0 or -errno.
 */
int kw_compare_build(struct kw_compare *c, const struct kw_recording *base, size_t n_base,
		     const struct kw_recording *new, size_t n_new, const struct kw_compare_opts *o);
void kw_compare_free(struct kw_compare *c);

int kw_compare_print(FILE *f, const struct kw_compare *c, enum kw_compare_format fmt);

/*
 * Before and after duration histograms of each timed function (runs of a side merged), overlaid
 * on a log time axis, medians marked: a plain SVG document. functions as in kw_compare_opts.
 */
int kw_compare_plot(FILE *f, const struct kw_recording *base, size_t n_base,
		    const struct kw_recording *new, size_t n_new, const char *functions);

/*
 * Loads recordings for a comparison: every file must be a recording of schema
 * kvmwalk-recording/1, all of one arch. On failure returns a kw_compare_exit code and a one-line
 * message naming the file in err; the recordings loaded so far are freed.
 */
int kw_compare_load(const char *const *paths, size_t n, struct kw_recording *out,
		    const char *arch_of, const char *arch_path, char *err, size_t errlen);

/*
 * Checks the names of --function (probe names, "counters") and --metric (as add_row matches
 * them: a metric or its first word). 0, or -EINVAL with a one-line message naming the unknown
 * one and the valid names in err.
 */
int kw_compare_check_names(const char *functions, const char *metrics, char *err, size_t errlen);


#endif /* KW_COMPARE_H */
