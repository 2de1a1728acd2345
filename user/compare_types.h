/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. A comparison as data (struct kw_compare): its rows, the sections of the known
 * changes, its header (sides, environment differences, warnings, commands). compare.c fills
 * the rows and sections, compare_env.c the header, compare_print.c prints it; compare.h, the
 * functions, includes this. Types only: compare_env.c, which compare.c calls, fills a
 * struct kw_compare without depending on compare.c.
 */
#ifndef KW_COMPARE_TYPES_H
#define KW_COMPARE_TYPES_H

#include "record.h"
#include "runs.h"
#include "stats.h"

enum kw_compare_unit {
	KW_U_COUNT, /* per run */
	KW_U_NS,    /* a duration */
	KW_U_RATIO, /* per call, per walk, per block */
};

/*
 * The runs a row or a line comes from: of one kind on each side (compare.c, "which runs"), the
 * same kind on both unless no kind has runs that measure it on both sides.
 */
struct kw_compare_runs {
	enum kw_run_kind base, new;
	size_t n_base, n_new;
	bool instrumented; /* a time from cheap or full runs: kvmwalk's probes ran inside it */
};

struct kw_compare_row {
	char group[64];	 /* the probe's name, "counters", "command", "phases: SCENARIO" */
	char metric[48]; /* "calls", "p50", ..., "split L3 visits/walk", or a counter's name */
	enum kw_compare_unit unit;
	struct kw_change change;
	struct kw_compare_runs runs;
};

/* One difference of the environment: the value of each side ("a | b" when runs differ). */
struct kw_compare_diff {
	char what[48];
	char base[384], new[384];
};

/* The known kernel changes of DESIGN.md. */
enum kw_known_change {
	KW_K_SKIP_LEVEL,   /* split skips level 3 */
	KW_K_EMPTY_LEAF,   /* empty-leaf-table hint for TDP zaps */
	KW_K_DEFER_FLUSH,  /* TLB flush only when something was unmapped */
	KW_K_FAST_PF,	   /* lockless fast page fault */
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
	struct kw_compare_runs runs;
};

struct kw_compare_section {
	enum kw_known_change change;
	const char *title, *where;
	size_t nlines;
	struct kw_compare_line lines[KW_SECTION_LINES];
};

struct kw_compare_side {
	size_t runs;
	size_t kinds[KW_NR_RUN_KINDS]; /* its runs of each kind */
	/*
	 * What recording cost the command: the wall time of each kind against the side's least
	 * instrumented runs (ref), where both have runs with a wall time (runs.h).
	 */
	enum kw_run_kind ref;
	size_t n_ref, n_slow[KW_NR_RUN_KINDS];
	bool has_slow[KW_NR_RUN_KINDS];
	struct kw_change slow[KW_NR_RUN_KINDS];
	char slow_text[KW_NR_RUN_KINDS][384]; /* kw_cost_sentence() */
	enum kw_run_kind overhead_kind;	      /* the runs overhead_share is of */
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
	/* more than one kind of run: rows name the runs they come from */
	bool mixed;
};

#endif /* KW_COMPARE_TYPES_H */
