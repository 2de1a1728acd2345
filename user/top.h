/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk top`: what changed between two snapshots, as a screen (the live view: sortable, per
 * VM, filtered, with a key line) or as log lines (one per probe per interval, when stdout is not
 * a terminal). Pure: recordings and a view in, text out; the terminal is top_cmd.c's.
 */
#ifndef KW_TOP_H
#define KW_TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

/* The columns `s` sorts by, in the order it cycles through them. */
enum kw_top_col {
	KW_TOP_RATE, /* calls/s over the interval (the default) */
	KW_TOP_TOTAL, /* calls since top started */
	KW_TOP_MEAN,
	KW_TOP_P50,
	KW_TOP_P99,
	KW_TOP_MAX,
	KW_TOP_NAME,
	KW_NR_TOP_COLS,
};

/* The column's heading ("calls/s", "total", ..., "function"). */
const char *kw_top_col_name(enum kw_top_col c);

#define KW_TOP_FILTER_LEN 64

/* What the screen shows; the keys change it (kw_top_key()). Zeroed: the default view. */
struct kw_top_view {
	enum kw_top_col sort;
	bool per_vm;			  /* rows grouped per VM (the trigger rows' processes) */
	char filter[KW_TOP_FILTER_LEN];	  /* only probes whose name contains it; "" all */
	bool prompt;			  /* `f` was pressed: the bottom line reads the filter */
	char input[KW_TOP_FILTER_LEN];	  /* what has been typed at the prompt */
	double interval;		  /* the interval asked for (header); 0: not shown */
	bool keys;			  /* interactive: the key line at the bottom */
	int rows;			  /* terminal height: cut and padded to it; 0: no limit */
};

/* The bounds of `+` and `-`, and the steps between them. */
#define KW_TOP_MIN_INTERVAL 0.1
#define KW_TOP_MAX_INTERVAL 60.0
/* The next interval up (dir > 0) or down from cur; cur itself at the bound. */
double kw_top_interval_step(double cur, int dir);

enum kw_top_action {
	KW_TOP_NONE,	 /* the key means nothing here */
	KW_TOP_REDRAW,	 /* the view changed */
	KW_TOP_INTERVAL, /* v->interval changed (and the view) */
	KW_TOP_QUIT,
};

/*
 * One key typed at the live view: q, s, v, f (then the filter's text, Enter applies it, empty
 * clears it, Esc cancels), + and -. The caller redraws or reschedules as the action says.
 */
enum kw_top_action kw_top_key(struct kw_top_view *v, int key);

/*
 * The screen: the change from prev to cur over secs seconds (prev NULL: since the start), as v
 * says (NULL: the default view). Fits 80 columns.
 */
int kw_top_render(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		  double secs, const struct kw_top_view *v);

/*
 * Log lines, as `kvm_stat -l`: the heading once, then for every interval one line per attached
 * probe (in the catalogue's order, v's filter applied): t, the seconds since the start at the
 * interval's end, then probe, calls/s, total calls, and the interval's mean, p50, p99 and the
 * maximum so far in ns ("-" without a timed call). Whole names and exact numbers, for awk: the
 * probe column is as wide as the longest attached name, so a line can pass 80 columns.
 */
int kw_top_lines_header(FILE *f, const struct kw_recording *cur);
int kw_top_lines(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		 double secs, double t, const struct kw_top_view *v);

#endif /* KW_TOP_H */
