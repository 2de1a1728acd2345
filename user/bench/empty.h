/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KW_BENCH_EMPTY_H
#define KW_BENCH_EMPTY_H

#define BENCH_EMPTY_SLOTS 4

struct bench_bpf;

struct bench_empty_opts {
	const char *funcs[BENCH_EMPTY_SLOTS]; /* kernel functions (vmlinux or module BTF) */
	int nfuncs;
	char **argv; /* the command to run with the programs attached */
};

/* Leaves the empty fentry/fexit slots out of the load (the probe table does not use them). */
void bench_empty_slots_off(struct bench_bpf *skel);

/*
 * Attaches an empty fentry and an empty fexit program to each function, runs the command with
 * BPF run-time statistics on, and prints one line per program on stdout:
 *   FUNCTION fentry|fexit RUNS RUN_TIME_NS NS_PER_RUN
 * or "FUNCTION unavailable REASON". Returns the command's exit status (0..255), or -errno when
 * the programs could not be set up.
 */
int bench_empty(const struct bench_empty_opts *o);

#endif
