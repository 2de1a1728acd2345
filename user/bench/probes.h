/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KW_BENCH_PROBES_H
#define KW_BENCH_PROBES_H

#include <stdbool.h>

struct bench_probe_opts {
	int rounds;
	long calls;		/* getppid() calls per variant per round */
	int cpu;		/* pin to this CPU, -1: do not pin */
	const char *variants;	/* keys to run ("abcd"), NULL: all */
	const char *bpftrace;	/* bpftrace binary, NULL: leave (d) out */
	unsigned int probe;	/* kvmwalk probe index the kvmwalk pairs update */
	bool raw;
	bool verbose;
};

/* Runs the rounds and prints the table on stdout; 0 or a negative errno. */
int bench_probes(const struct bench_probe_opts *o);

#endif
