/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers, under the loader and its private state (loader_state.h). What a command asks
 * of the loader (loader.h): filled by the commands and by the argp child of their probe options
 * (probe_opts.h), copied into the loader when it is opened.
 */
#ifndef KW_LOADER_OPTS_H
#define KW_LOADER_OPTS_H

#include <stdbool.h>

#include "probes.h"
#include "userfn_opts.h"
#include "kvmwalk_abi.h"

struct loader_opts {
	enum kw_attach attach;
	__u32 pids[KW_MAX_PIDS]; /* --pid: only these processes (tgids) */
	__u32 npids;		 /* 0: every task */
	bool visits;		 /* per-entry callback probes */
	kw_probe_mask probes;	 /* the probes to attach: KW_PROBES_ALL, cheap, or --probe's */
	kw_probe_mask required;	 /* named in --probe: each must attach (else KW_EXIT_NOFUNC) */
	bool cheap;		 /* probes is the cheap set (probes.c): the others are off for it */
	enum kw_probe_set set;	 /* the largest set named (all by default, serve's timing) */
	/* the parent's default set, before any --probe (probe_opts.h): all unless it says */
	enum kw_probe_set default_set;
	const char *probe_arg;	 /* --probe as given, NULL: the default set */
	bool none_ok;		 /* record: --probe none (nothing attached, no BPF) is allowed */
	/* --sample[=HZ], --probe sampled: the sampled mode at HZ per CPU (sampler.h), 0: off */
	unsigned int sample_hz;
	bool sample_ok; /* record and serve: --sample and --no-sample are allowed */
	bool sample_given; /* --sample or --probe sampled was given */
	bool no_sample;	   /* --no-sample was given */
	bool verbose;		 /* libbpf's messages */
	/*
	 * Log2 histograms in the kernel (struct kw_hist_slots.log2): 552 instead of 4000 bytes per
	 * histogram and CPU, exact for serve's default log2 export; the recording's histograms
	 * then hold each power of two in its first fine bucket (kw_hist_merge_log2()).
	 */
	bool hist_log2;
	/*
	 * record: a process that exits keeps its own trigger rows (user space holds them), up to
	 * KW_KEEP_EXITED processes, then they are folded into pid 0 and counted as a loss
	 * (meta.exited_folded). Off (serve, top): folded at once, so a long run stays bounded.
	 */
	bool keep_exited;
	/* --vm: only the processes with these VM names (identity.h), with those of --pid */
	char vms[KW_MAX_VMS][64];
	unsigned int nvms;
	/*
	 * record --count / --time: user-named functions (userfn_opts.h), planned like the probes.
	 * One that is not optional and cannot be attached fails loader__open() with KW_EXIT_USAGE.
	 */
	struct kw_ufunc_req ufuncs[KW_MAX_UFUNCS];
	unsigned int nufuncs;
};

#endif /* KW_LOADER_OPTS_H */
