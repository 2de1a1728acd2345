/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only libbpf user of kvmwalk: opens the BPF object of this arch, decides per probe how to
 * attach it (fentry/fexit after a real attach test, else kprobe/kretprobe, else a tracepoint,
 * else unavailable with a reason), loads, attaches, and reads the maps into a kw_recording.
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
	const char *attach; /* "auto", "fentry", "kprobe" */
	__u32 pids[KW_MAX_PIDS]; /* --pid: only these processes (tgids) */
	__u32 npids;		 /* 0: every task */
	bool visits;	    /* per-entry callback probes */
	const char *probes; /* comma-separated probe names to require and keep, NULL: all */
	bool verbose;	    /* libbpf's messages */
};

struct loader;

/*
 * Checks privileges, BTF and KVM, plans, loads and attaches. On failure returns NULL with
 * *exit_code set and the reason printed (one line).
 */
struct loader *loader__open(const struct loader_opts *opts, int *exit_code);
/* Turns BPF run-time statistics on for as long as the loader lives (restored on destroy). */
int loader__stats_start(struct loader *l);
/* Reads every map into r (which it resets), with the attach plan and the probes' cost. */
int loader__collect(struct loader *l, struct kw_recording *r);
/* Fills the host metadata of a recording (kernel, cmdline, CPU, KVM parameters, THP, ...). */
void loader__meta(struct loader *l, struct kw_meta *m);
const struct kw_plan *loader__plan(const struct loader *l);
/*
 * Adds a process to the --pid filter; while recording, it counts from its next event. Only with
 * a filter (opts->npids > 0 at open): without one every task is recorded and the map is never
 * read. 0 or -errno (-E2BIG: KW_MAX_PIDS processes already).
 */
int loader__add_pid(struct loader *l, __u32 pid);
/* Detaches everything and frees; accepts NULL. */
void loader__destroy(struct loader *l);

/* The arch this binary was built for: "arm64" or "x86". */
const char *loader__arch(void);

#endif /* KW_LOADER_H */
