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

#include "record.h"
#include "stats.h"

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

enum kw_compare_unit {
	KW_U_COUNT, /* per run */
	KW_U_NS,    /* a duration */
	KW_U_RATIO, /* per call, per walk, per block */
};

struct kw_compare_row {
	char group[64];	 /* the probe's name, "work per call" or "counters" */
	char metric[32]; /* "calls", "p50", ..., "split L3 visits/walk", or a counter's name */
	enum kw_compare_unit unit;
	struct kw_change change;
};

/* One difference of the environment: the value of each side ("a | b" when runs differ). */
struct kw_compare_diff {
	char what[48];
	char base[384], new[384];
};

/* The known kernel changes of DESIGN.md. */
enum kw_known_change {
	KW_K_SKIP_LEVEL,  /* split skips level 3 */
	KW_K_EMPTY_LEAF,  /* empty-leaf-table hint for TDP zaps */
	KW_K_DEFER_FLUSH, /* TLB flush only when something was unmapped */
	KW_K_FAST_PF,	  /* lockless fast page fault */
	KW_K_NESTED_UNMAP, /* the same flush change, on the nested unmaps of arm64 NV */
	KW_NR_KNOWN,
};

#define KW_SECTION_LINES 12

struct kw_compare_line {
	char what[48];
	char per[24]; /* "per block", "per nested unmap", ... (the unit of the two values), "" for
		       * durations */
	enum kw_compare_unit unit;
	struct kw_change change;
};

struct kw_compare_section {
	enum kw_known_change change;
	const char *title, *where;
	size_t nlines;
	struct kw_compare_line lines[KW_SECTION_LINES];
};

struct kw_compare_side {
	size_t runs;
	char kernel[256]; /* uname -r of the runs ("a | b" if they differ) */
	char arch[16];
	char host[160];
	double overhead_share; /* median over runs of the probes' cost / measured time */
	bool overhead_known;
	size_t ncmds;
	char **cmds;	    /* the kvmwalk command of each run, as recorded or reconstructed */
	bool reconstructed; /* one of them was rebuilt from the metadata (older recording) */
};

struct kw_compare_opts {
	double level; /* 0.95 */
	enum kw_ci_method method;
	const char *functions; /* comma-separated row groups to keep, NULL: all */
	const char *metrics;   /* comma-separated metrics to keep, NULL: all */
	const char *const *base_paths, *const *new_paths; /* for reconstructed commands, or NULL */
};

struct kw_compare {
	size_t n_base, n_new;
	double level;
	enum kw_ci_method method;
	struct kw_compare_side base, new;
	size_t nrows;
	struct kw_compare_row *rows;
	size_t ndiffs;
	struct kw_compare_diff *diffs;
	size_t nwarnings;
	char (*warnings)[256];
	size_t nsections;
	struct kw_compare_section sections[KW_NR_KNOWN];
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

/* The whole subcommand: its own argp parser; argv[0] is "kvmwalk compare". Returns an exit code. */
int compare_main(int argc, char **argv);

#endif /* KW_COMPARE_H */
