/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KW_BENCH_USERSPACE_H
#define KW_BENCH_USERSPACE_H

/* Trigger rows beyond the map bound (KW_MAX_TRIGS) show how cost would grow with a larger one. */
#define KW_BENCH_MAX_ROWS 65536

struct bench_user_opts {
	const int *ncpus;	/* per-CPU widths to simulate */
	int ncpus_n;
	const int *rows;	/* keyed rows: walker callbacks (<= KW_MAX_CBS) and trigger rows */
	int rows_n;
	int reps;
};

/* Runs every (width, rows) configuration and prints the table on stdout; 0 or -errno. */
int bench_user(const struct bench_user_opts *o);

#endif
