/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmwalk-bench: the probe-body cost table (issue 6 part 1) and the user-space cost table (part
 * 4). The printers here are plain C on plain numbers, unit-tested in tests/unit/test_bench.c;
 * only probes.c touches libbpf.
 */
#ifndef KW_BENCH_H
#define KW_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define BENCH_MAX_ROUNDS 101

/* One program pair (or none), measured once per round. */
struct bench_variant {
	const char *key;	/* "a", "b", ...; "-" for the loop without probes */
	const char *name;	/* <= 34 characters */
	bool breakdown;		/* a part of (c), printed indented */
	bool on;		/* selected and attachable */
	int rounds;		/* rounds measured */
	double ev[BENCH_MAX_ROUNDS];	/* ns per event: both programs' run_time_ns/run_cnt summed */
	double loop[BENCH_MAX_ROUNDS];	/* ns per syscall of the timed loop */
	double over[BENCH_MAX_ROUNDS];	/* loop minus the no-probe loop of the same round */
};

struct bench_summary {
	double ev, ev_min, ev_max;	/* medians and extremes over rounds; NAN if not measured */
	double loop, over;
};

void bench_summarise(const struct bench_variant *v, struct bench_summary *s);

/*
 * "met" when ratio <= target, else "MISSED by D (P %)": how far above the target the ratio is,
 * absolute and relative to the target. "n/a" for a NAN ratio.
 */
const char *bench_verdict(char *buf, size_t size, double ratio, double target);

struct bench_header {
	const char *kernel;	/* uname -r */
	int rounds;
	long calls;		/* syscalls per variant per round */
	int cpu;		/* pinned CPU, -1 if not pinned */
	int ncpus;
	unsigned int probe;	/* kvmwalk probe index the (c) pair updates */
	/* /proc/loadavg's 1-minute figure before and after the rounds, printed if has_load */
	int has_load;
	double load_before, load_after;
};

/*
 * The table, <= 80 columns. variants[] in print order; the ratios c/b and c/d are computed from
 * the variants with those keys.
 */
void bench_print_table(FILE *f, const struct bench_header *h, const struct bench_variant *variants,
		       int n);

/* Per-round values, one line per variant and round, for docs and debugging. */
void bench_print_raw(FILE *f, const struct bench_variant *variants, int n);

/* User-space cost (part 4): the steps timed for each (per-CPU width, keyed rows). */
enum bench_user_step {
	BU_READ,	/* read every map into a kw_recording (simulated copy + the loader's merge) */
	BU_JSON,	/* kw_recording_write: the recording file */
	BU_PARSE,	/* kw_recording_parse: what `kvmwalk report FILE` reads first */
	BU_REPORT,	/* kw_report_text */
	BU_SCRAPE,	/* prom_render, log2 buckets */
	BU_SCRAPE_FINE, /* prom_render, fine buckets */
	BU_NR_STEPS,
};

struct bench_user_row {
	int ncpus, rows;
	size_t read_buf;	/* the reader's per-CPU buffer: ncpus x the largest value */
	size_t kernel_bytes;	/* what the maps hold for this width: copied on every read */
	double ms[BU_NR_STEPS];	/* medians */
	size_t bytes[BU_NR_STEPS]; /* heap held by the recording (BU_READ), output size (others) */
};

void bench_print_user(FILE *f, const struct bench_user_row *rows, int n, int reps);

#endif /* KW_BENCH_H */
