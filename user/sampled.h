/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: recording model. The sampled section of a recording (`record --sample`,
 * bpf/sample_abi.h): the rate, the CPUs, the sample counts and the rows (process, what,
 * trigger, samples), with its JSON, and the estimate of a row's CPU time and its error:
 *
 *   time = n / rate; 95 % interval n / rate +- 1.96 sqrt(n) / rate (n samples, counted as
 *   Poisson: each period of 1/rate s on a CPU is in the row or not, independently), clamped at
 *   0; for n = 0, [0, 3 / rate] (the 95 % upper bound of a Poisson mean with none seen).
 *
 * The interval is conservative for one long operation: a clock that ticks every 1/rate s
 * samples a stretch of T seconds on one CPU floor or ceil(T x rate) times, an error of at most
 * one period; it is the right one for many short operations that the ticks fall on at random.
 */
#ifndef KW_SAMPLED_H
#define KW_SAMPLED_H

#include <stdbool.h>
#include <stddef.h>

#include "sample_abi.h"

struct json_t;

struct kw_sample_row {
	__u32 pid;	/* tgid: the VMM process (0: a kernel thread's samples are its own tgid) */
	char what[40];	/* a work function's label, "(other)": a trigger frame only */
	char trigger[24]; /* sample_funcs.c's trigger names, "(none)" */
	__u64 samples;
	/*
	 * A folded row's VM name (pid 0: the processes that exited, serve): kept from the
	 * process, so that a VM's series does not drop when its process ends. "" for a live
	 * process's row, whose name is looked up by its pid; not in the recording's JSON.
	 */
	char vm[64];
};

struct kw_sampled {
	unsigned int hz;    /* 0: not sampled */
	unsigned int ncpus; /* CPUs sampled (every online CPU) */
	double seconds;	    /* how long the sampler was attached */
	__u64 samples;	    /* all, user mode and idle too: about hz x ncpus x seconds */
	__u64 kernel;	    /* in kernel mode */
	__u64 no_kvm;	    /* in kernel mode, no work and no trigger frame */
	__u64 dropped;	    /* KVM samples not counted (the row map was full) */
	__u64 deep;	    /* stacks cut at KW_SAMPLE_MAX_FRAMES frames */
	unsigned int nfuncs;   /* functions in the table */
	unsigned int nmissing; /* catalogue functions this kernel lacks */
	/* the sample program's BPF run-time statistics: its own cost (0 when they were off) */
	__u64 run_ns, run_cnt;
	size_t nrows;
	struct kw_sample_row *rows;
};

struct kw_sample_est {
	double s;	  /* n / rate */
	double lo, hi; /* the 95 % interval */
};

void kw_sample_estimate(__u64 n, unsigned int hz, struct kw_sample_est *e);
int kw_sampled_add_row(struct kw_sampled *s, const struct kw_sample_row *row);
/*
 * Folds an exited process's row into s's folded rows: its samples added to the row of the same
 * what, trigger and VM name vm (a new one with pid 0 if none). 0 or -ENOMEM.
 */
int kw_sampled_fold(struct kw_sampled *s, const struct kw_sample_row *row, const char *vm);
/* rows by samples, most first, then by pid, what, trigger */
void kw_sampled_sort(struct kw_sampled *s);
void kw_sampled_free(struct kw_sampled *s);
/* the recording's "sampled" object (docs/recording-format.md), estimates included */
struct json_t *kw_sampled_json(const struct kw_sampled *s);
/* reads it back (the estimates are derived, not read); -EINVAL with err said, -ENOMEM */
int kw_sampled_from_json(struct kw_sampled *s, struct json_t *o, char *err, size_t errlen);

#endif /* KW_SAMPLED_H */
