/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. Runs of one command made with different probe sets, and what recording cost the
 * command (runs.c): each recording's kind (bare, timing, cheap, full: the probes it ran with),
 * and the command's wall time and its own phase times of each kind against the least
 * instrumented runs, "record slowed the command by X %". `kvmwalk report` of several files
 * prints it; compare's header says it per side and takes each row from the runs of one kind.
 */
#ifndef KW_RUNS_H
#define KW_RUNS_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"
#include "stats.h"

/* Fewest probes first: the order in which a time is looked for. */
enum kw_run_kind {
	KW_RUN_BARE,   /* --probe none: nothing attached, no BPF */
	KW_RUN_TIMING, /* only probes of the timing set (probes.c) */
	KW_RUN_CHEAP,  /* only probes of the cheap set: walks, visits, flushes included */
	KW_RUN_FULL,   /* more: every probe, or a recording that does not say (older ones) */
	KW_NR_RUN_KINDS,
};

extern const char *const kw_run_kind_names[KW_NR_RUN_KINDS]; /* "bare", ... "full" */

/*
 * The kind of a run, from what it attached: none (or --probe none) bare, a subset of the timing
 * set timing, of the cheap set cheap, else full. A recording whose probes have no plan (made
 * before plans were recorded, or by hand) is full; one with a user function (--count, --time)
 * attached is full too: what such a function runs inside is unknown.
 */
enum kw_run_kind kw_run_kind(const struct kw_recording *r);

/*
 * The run measured probe p: attached, or a recording without plans (older, hand-made), whose
 * numbers are all it has.
 */
bool kw_run_measures(const struct kw_recording *r, int p);

/* Its times have kvmwalk's probes inside them (walk, visit, flush, fault probes). */
static inline bool kw_run_kind_heavy(enum kw_run_kind k)
{
	return k >= KW_RUN_CHEAP;
}

/* How a kind was recorded, for a sentence: "--probe none", ..., "every probe". */
const char *kw_run_kind_how(enum kw_run_kind k);

/*
 * The probes' own cost of a run (BPF run-time statistics: the programs' bodies, a lower bound
 * that leaves out the fentry trampoline and kprobe dispatch) against the time it measured:
 * full and cheap runs the outermost walks on arm64, the TDP MMU zaps and fast page faults on x86
 * (overhead.measured_ns), timing runs the operations the set times (VM ioctls, notifier
 * invalidations, VM teardowns). 0 when unknown; *what says what the time is of, for r's arch.
 */
double kw_run_cost_share(const struct kw_recording *r, const char **what);

/* One time the command itself knows: its wall time, or one of its phases (summed). */
struct kw_cost_row {
	char scenario[KW_WL_NAME_LEN], phase[KW_WL_NAME_LEN]; /* "": the wall time */
	size_t n[KW_NR_RUN_KINDS];			     /* runs of each kind that have it */
	double median[KW_NR_RUN_KINDS];			     /* ns */
	/* each kind against the reference kind (has[k]: both have runs, k is not it) */
	bool has[KW_NR_RUN_KINDS];
	struct kw_change vs[KW_NR_RUN_KINDS];
};

struct kw_cost {
	size_t runs[KW_NR_RUN_KINDS];
	enum kw_run_kind ref; /* the least instrumented kind present: bare, else timing, ... */
	double share[KW_NR_RUN_KINDS]; /* median kw_run_cost_share() of each kind */
	bool share_known[KW_NR_RUN_KINDS];
	const char *share_of[KW_NR_RUN_KINDS];
	size_t nrows;
	struct kw_cost_row *rows; /* the wall time first (when the runs have one), then phases */
	bool commands_differ;
	char command[512]; /* the first run's */
	size_t n;
	enum kw_run_kind *kinds; /* of each run */
	double level;
	enum kw_ci_method method;
};

/* Of n runs: 0 or -errno. kw_cost_free() frees it (on failure too). */
int kw_cost_build(struct kw_cost *c, const struct kw_recording *r, size_t n, double level,
		  enum kw_ci_method method);
void kw_cost_free(struct kw_cost *c);

/* The wall-time row, NULL if no run has a wall time. */
const struct kw_cost_row *kw_cost_wall(const struct kw_cost *c);

/*
 * "record with every probe slowed the command by 90.2 % (wall time, medians of 5 runs against 5
 * bare runs, [+80.1,+99.0] %)", or that no slowdown was measured: into buf, for kind k of row
 * (row->has[k]).
 */
void kw_cost_sentence(char *buf, size_t len, const struct kw_cost *c, const struct kw_cost_row *row,
		      enum kw_run_kind k);

/* `kvmwalk report` of several recordings: text (80 columns) and its JSON twin. */
int kw_cost_print(FILE *f, const struct kw_cost *c, const char *const *paths);
int kw_cost_json(FILE *f, const struct kw_cost *c, const struct kw_recording *r,
		 const char *const *paths);

#endif /* KW_RUNS_H */
