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

#include "events.h" /* loader__poll() */
#include "loader_opts.h"
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

/* The libbpf kvmwalk runs with, as "1.1" (libbpf_version_string() without its 'v'). */
const char *loader__libbpf_version(void);
/* How each probe is attached. */
const struct kw_plan *loader__get_plan(const struct loader *l);
/*
 * Turns BPF run-time statistics on for as long as the loader lives. They time every BPF program
 * of the host, not only ours (one static key in the kernel). BPF_ENABLE_STATS (5.8+) ties them to
 * an fd the kernel drops when the process ends, even by SIGKILL; on older kernels, with
 * sysctl_ok, the kernel.bpf_stats_enabled sysctl is flipped instead and restored on destroy
 * (a SIGKILL leaves it on). Returns 0, -EOPNOTSUPP (no BPF_ENABLE_STATS and !sysctl_ok) or -errno.
 */
int loader__stats_start(struct loader *l, bool sysctl_ok);
/* Reads every map into r (which it resets), with the attach plan and the probes' cost. */
int loader__collect(struct loader *l, struct kw_recording *r);
/*
 * Fills the metadata of a recording: this host's (kw_host_meta()), the tool version, the
 * --attach mode (none without a loader), and the --vm names no process carried so far.
 */
void loader__meta(const struct loader *l, struct kw_meta *m);
/*
 * Adds a process to the --pid filter; while recording, it counts from its next event. Only with
 * a filter (opts->npids > 0 at open): without one every task is recorded and the map is never
 * read. 0 or -errno (-E2BIG: KW_MAX_PIDS processes already).
 */
int loader__add_pid(struct loader *l, __u32 pid);

#endif /* KW_LOADER_H */
