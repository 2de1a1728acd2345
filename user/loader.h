/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loader: opens the BPF object of this arch, decides per probe how to attach it
 * (fentry/fexit after a real attach test, else kprobe/kretprobe, else a tracepoint, else
 * unavailable with a reason), loads, attaches, and reads the maps into a kw_recording. Stages:
 * loader__new() (checks) -> loader__plan() -> loader__load() -> loader__attach(), driven by
 * loader__open(); loader__collect() reads (collect.c); loader__destroy() ends it.
 */
#ifndef KW_LOADER_H
#define KW_LOADER_H

#include <stdbool.h>

#include "record.h"

/* Exit codes of kvmwalk, one per condition a person can act on. */
enum kw_exit {
	KW_EXIT_OK = 0,
	KW_EXIT_ERROR = 1, /* anything else (the message says what) */
	KW_EXIT_USAGE = 2,
	KW_EXIT_PERM = 3,   /* not root / missing CAP_BPF, CAP_PERFMON */
	KW_EXIT_NOBTF = 4,  /* no /sys/kernel/btf/vmlinux */
	KW_EXIT_NOKVM = 5,  /* not a KVM host */
	KW_EXIT_NOFUNC = 6, /* a probe asked for with --probe cannot be attached */
};

struct loader_opts {
	enum kw_attach attach;
	__u32 pids[KW_MAX_PIDS]; /* --pid: only these processes (tgids) */
	__u32 npids;		 /* 0: every task */
	bool visits;		 /* per-entry callback probes */
	kw_probe_mask probes;	 /* the probes to attach: KW_PROBES_ALL, cheap, or --probe's */
	kw_probe_mask required;	 /* named in --probe: each must attach (else KW_EXIT_NOFUNC) */
	bool cheap;		 /* probes is the cheap set (probes.c): the others are off for it */
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


struct loader;

/*
 * The whole sequence: new, plan, then load and attach, again with the new plan while the kernel
 * refuses programs (a few times). On failure returns NULL with *exit_code set and the reason
 * printed (one line).
 */
struct loader *loader__open(const struct loader_opts *opts, int *exit_code);

/*
 * The stages. loader__new: checks the options, privileges, BTF and KVM, and reads what planning
 * needs (kallsyms, tracefs); NULL with *exit_code set and the reason printed.
 */
struct loader *loader__new(const struct loader_opts *opts, int *exit_code);
/* Decides how to attach every probe of this arch. */
void loader__plan(struct loader *l);
/*
 * Opens the BPF object, sets its rodata and the programs of the plan, loads it and fills the
 * --pid map. 0; -EAGAIN when the kernel refused a program (its probe is unavailable now: load
 * again); else -errno, said.
 */
int loader__load(struct loader *l);
/*
 * Attaches the planned probes, each exit program before its entry. A refused attach makes its
 * probe unavailable, with the reason; -EAGAIN when the plan changed so that the object must be
 * loaded again (a refused kprobe moved to its tracepoint), else 0.
 */
int loader__attach(struct loader *l);
/* Detaches everything and frees; accepts NULL. */
void loader__destroy(struct loader *l);

/* How each probe is attached. */
const struct kw_plan *loader__get_plan(const struct loader *l);
/* Turns BPF run-time statistics on for as long as the loader lives (restored on destroy). */
int loader__stats_start(struct loader *l);
/* Reads every map into r (which it resets), with the attach plan and the probes' cost. */
int loader__collect(struct loader *l, struct kw_recording *r);
/*
 * Fills the metadata of a recording: this host's (kw_host_meta()), the tool version, and the
 * --attach mode (none without a loader).
 */
void loader__meta(const struct loader *l, struct kw_meta *m);
/*
 * Adds a process to the --pid filter; while recording, it counts from its next event. Only with
 * a filter (opts->npids > 0 at open): without one every task is recorded and the map is never
 * read. 0 or -errno (-E2BIG: KW_MAX_PIDS processes already).
 */
int loader__add_pid(struct loader *l, __u32 pid);
/*
 * Reads the identity (identity.h: comm, VM name) of each process in the trigger rows that has
 * none yet, once per process, never per event; a process that exits before it is seen has
 * none. loader__collect() does it too, and loader__poll() every 0.2 s so that short-lived VMs are
 * named.
 */
int loader__identify(struct loader *l);
/*
 * Waits up to timeout_ms, then names the processes of new trigger rows (loader__identify(), every
 * 0.2 s). With --vm it wakes at each exec to read the new process's name, and decides about the
 * processes that ran probes before a decision (events.c). The loops of record, top and serve
 * call it instead of sleeping.
 */
void loader__poll(struct loader *l, int timeout_ms);

#endif /* KW_LOADER_H */
