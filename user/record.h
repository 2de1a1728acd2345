/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording as plain C: what the loader collected from the maps plus the host's metadata, and
 * its JSON form ("schema": "kvmwalk-recording/1", docs/recording-format.md). No libbpf here.
 */
#ifndef KW_RECORD_H
#define KW_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conditions.h"
#include "hist.h"
#include "kvmstats.h"
#include "probes.h"
#include "sampled.h"
#include "userfn_opts.h"
#include "workload.h"
#include "vmm.h"
#include "kvmwalk_abi.h"
#include "userfn_abi.h"

#define KW_SCHEMA "kvmwalk-recording/1"

_Static_assert(sizeof(struct kw_probe_stats) == 32, "kw_probe_stats");
_Static_assert(KW_MAX_HISTS < KW_NO_HIST, "kw_hists slots fit a __u8 below KW_NO_HIST");
_Static_assert(sizeof(struct kw_cb_key) == 16, "kw_cb_key");
_Static_assert(sizeof(struct kw_cb_val) == 24, "kw_cb_val");
_Static_assert(sizeof(struct kw_trig_key) == 20, "kw_trig_key");
_Static_assert(sizeof(struct kw_trig_val) == 16, "kw_trig_val");

extern const char *const kw_trigger_names[KW_NR_TRIGGERS];
/* "" for KW_MS_NONE, then "create", "delete", "move", "dirty_log_on", "dirty_log_off", "flags" */
extern const char *const kw_memslot_op_names[KW_NR_MEMSLOT_OPS];
extern const char *const kw_encl_names[KW_NR_ENCL];
extern const char *const kw_walker_names[KW_NR_WALKERS];
const char *kw_outcome_name(int walker, int outcome);

/* How one probe is attached (filled by the loader). */
struct kw_plan {
	enum kw_mech mech;
	char func[64];	  /* the kernel function or tracepoint actually used */
	char reason[384]; /* why unavailable / why this fallback */
};

/* The plan attached the probe: a mechanism, not "unavailable" or "off". */
bool kw_plan_attached(const struct kw_plan *pl);

struct kw_func {
	__u64 calls, missed, dropped, errors;
	struct kw_hist dur;
	struct kw_hist size;
	__u64 bpf_runs, bpf_ns;	/* run-time statistics of this probe's own programs */
	/*
	 * Runs of this probe's programs the kernel skipped (bpf_prog_info.recursion_misses: the
	 * recursion guard, a program preempted or interrupted on that CPU): each may be a call not
	 * counted, an exit not seen, a return code or a trigger row not recorded. 0: nothing lost.
	 */
	__u64 lost_runs;
};

struct kw_cb {
	char sym[64];
	__u64 addr;
	__u32 flags, depth;
	__u64 calls, ns, bytes;
};

/*
 * A process kvmwalk attributed work to, as it was when first seen (identity.c): its VM's name
 * from QEMU's -name or libvirt's cgroup, "" if none.
 */
/* record keeps the rows of at most this many exited processes under their own pid */
#define KW_KEEP_EXITED 4096

struct kw_vm {
	__u32 pid;
	char comm[16];
	char vm[64];
	char source[8]; /* "cmdline", "cgroup", "" */
	/* --vm: program runs of this process left out before kvmwalk had read its name */
	__u64 unseen;
	/* test conditions: what its command line and binary say (vmm.h), "" when not known */
	char cmdline[KW_VM_CMDLINE_LEN];
	bool cmdline_cut;
	char exe[128];
	char vmm[16];	      /* "qemu", "kvmwalk-load", "" */
	char vmm_version[96]; /* QEMU's, from its binary */
	char ipa_opt[16];     /* kvmwalk-load --ipa-bits */
	char eager_opt[16];   /* kvmwalk-load --eager-split, QEMU eager-split-size */
	char ipa_debugfs[32]; /* debugfs ipa_range of its VMs ("40", "40,48") */
};

struct kw_trig {
	int probe;
	int trigger;
	__u32 cmd;
	__u32 pid;
	__u64 calls, ns;
	/* the ioctl's name as the recording has it (the recording host's arch), "" if none */
	char ioctl[32];
	int memslot_op; /* enum kw_memslot_op: what the ioctl changed (bpf/kvmwalk_abi.h) */
};

struct kw_recording;

/*
 * The name of the ioctl of a trigger row of r (r->trigs or r->utrigs), or NULL: the name the
 * recording holds, else the name of its number on the recording's arch (ioctls.h: an arm64
 * recording read on x86 is named by arm64's table, one without an arch by this build's).
 */
const char *kw_trig_ioctl(const struct kw_recording *r, const struct kw_trig *t);

/*
 * A user-named function (--count / --time, userfn_opts.h) in a recording: what was asked, how it was
 * attached (mech KW_MECH_UNAVAILABLE with the reason for an optional one that could not be),
 * and its statistics (dur only with --time). Its trigger rows are kw_recording.utrigs, whose
 * probe field is the index into kw_recording.ufuncs.
 */
struct kw_ufunc {
	struct kw_ufunc_req req;
	struct kw_plan plan;
	struct kw_func f;
};

struct kw_param {
	char name[96]; /* module/parameter */
	char value[64];
};

/* A non-empty bucket of a probe's duration histogram in one interval (bpf/hist_abi.h's buckets) */
struct kw_iv_bucket {
	__u16 probe;  /* enum kw_probe */
	__u16 bucket; /* 0 .. KW_HIST_NR_BUCKETS - 1 */
	__u64 count;
};

/*
 * One `record --interval` snapshot: what happened in the interval, every member the difference
 * of two cumulative reads of the maps, so the intervals of a recording sum to its totals exactly
 * (the last one runs to the final read). Dense arrays, about 850 bytes: an hour at 1 s is 3 MB;
 * the duration histograms sparse (dur), a few hundred bytes more where probes ran.
 */
struct kw_interval {
	double t; /* seconds since the start of the recording, end of the interval */
	__u64 calls[KW_NR_PROBES];
	__u64 ns[KW_NR_PROBES]; /* duration_ns sum, inclusive as in the probe's histogram */
	/* false: a recording made before intervals carried the members below (calls, ns only) */
	bool full;
	__u64 counters[KW_NR_COUNTERS];
	__u64 visits[KW_NR_VISITS];
	__u64 dirty_log_ioctls; /* kw_dirty_log_ioctls(): KVM_{GET,CLEAR}_DIRTY_LOG returned */
	__u64 measured_ns;	/* kw_recording_measured_ns(): outermost walks, x86 ops */
	/*
	 * The interval's part of each probe's duration histogram: its non-empty buckets, ordered
	 * by probe then bucket, so that a per-interval percentile can be read (kw_interval_hist()).
	 * None in recordings made before 7 December 2026. Owned by the interval (the recording's
	 * intervals by the recording): kw_interval_free().
	 */
	struct kw_iv_bucket *dur;
	size_t ndur;
};

/*
 * Dirty-log ioctls in r: KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG calls that returned (the
 * kvm_vm_ioctl trigger rows of those commands, all processes). Exact: kvm_vm_ioctl's own row is
 * counted once per call at its exit, keyed by its command. Only the ioctls a migration repeats
 * per pass, so that the timeline's rate is the sync rate: the KVM_SET_USER_MEMORY_REGION(2)
 * calls that turn dirty logging on or off (once per slot, at a migration's start and end) are
 * kw_memslot_ops()' dirty_log_on and dirty_log_off, and not in it. Recordings keep this count per
 * interval, so its meaning stays what it was when they were made.
 */
__u64 kw_dirty_log_ioctls(const struct kw_recording *r);
/*
 * The memslot operation (enum kw_memslot_op) of a kvm_vm_ioctl row of KVM_SET_USER_MEMORY_REGION
 * or KVM_SET_USER_MEMORY_REGION2 (by name, as kw_trig_ioctl() gives it), KW_MS_NONE for one
 * without (no change, refused before kvm_arch_prepare_memory_region, or recorded without that
 * probe); -1 for any other row. The operations of other ioctls (x86's private slots, inside
 * KVM_CREATE_VCPU or KVM_RUN) are not memslot ioctls' and time something else.
 */
int kw_trig_memslot_op(const struct kw_recording *r, const struct kw_trig *t);
struct kw_memslot_stat {
	__u64 calls, ns; /* of the ioctls, ns from entry to exit */
};
/* The memslot ioctls of r (kw_trig_memslot_op()) summed by operation, all processes. */
void kw_memslot_ops(const struct kw_recording *r, struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS]);
/* The operation named name (kw_memslot_op_names[]); KW_MS_NONE for "", NULL or an unknown one. */
int kw_memslot_op_by_name(const char *name);
/* The trigger row is one of the dirty-log ioctls kw_dirty_log_ioctls() counts. */
bool kw_trig_is_dirty_log(const struct kw_recording *r, const struct kw_trig *t);
/*
 * iv = cur - last, all but iv->t (last: the cumulative counts of the previous snapshot, as
 * kw_interval_delta() keeps them; zeroed before the first). 0 or -ENOMEM (iv then unchanged).
 */
int kw_interval_diff(struct kw_interval *iv, const struct kw_recording *cur,
		     const struct kw_interval *last);
/* iv = cur - last, then last = cur (last starts zeroed): record's snapshots. 0 or -ENOMEM. */
int kw_interval_delta(struct kw_interval *iv, const struct kw_recording *cur,
		      struct kw_interval *last);
void kw_interval_free(struct kw_interval *iv);
/*
 * Adds the interval's duration histogram of probe p to h (its count, its buckets, and iv->ns[p]
 * as its sum). An interval keeps no min or max: h's are the bounds of its first and last
 * non-empty bucket, so a quantile read from h is known to within a sub-bucket (12.5 %).
 */
void kw_interval_hist(const struct kw_interval *iv, int p, struct kw_hist *h);
/* One interval as the recording's "intervals" element (jansson: the caller owns it). */
struct json_t *kw_interval_json(const struct kw_interval *iv);

struct kw_meta {
	char tool_version[32];
	char arch[16];
	char kernel[128];	/* uname -r */
	char kernel_build[160]; /* uname -v */
	char hostname[64];
	char cmdline[1024];
	char cpu[128];
	char kvm_mode[16]; /* arm64: vhe, nvhe, protected; x86: tdp, shadow; "" unknown */
	char thp[64];	   /* the selected value of transparent_hugepage/enabled */
	char thp_defrag[64];
	char started[32]; /* UTC, ISO 8601 */
	double duration_s;
	/*
	 * CLOCK_MONOTONIC at the start, ns: t = 0 of the intervals, and the clock kvmwalk-load's
	 * phases carry (start_ns), so a phase can be placed on the timeline. 0: not recorded.
	 */
	__u64 start_monotonic_ns;
	/* CLOCK_REALTIME at that moment, ns since the epoch (report --timeline's UTC). 0: not recorded */
	__u64 start_realtime_ns;
	char command[512];	    /* the recorded command, "" for -d / Ctrl-C */
	char kvmwalk_command[1024]; /* kvmwalk's own command line, shell-quoted; "" before 0.1 */
	int exit_status;	    /* the command's, -1 if none */
	/* record: trigger rows of exited processes folded into pid 0 past KW_KEEP_EXITED (a loss) */
	__u64 exited_folded;
	__u32 pid_filter[KW_MAX_PIDS]; /* --pid: the processes recorded */
	__u32 npid_filter;	       /* 0: every task */
	char vm_filter[KW_MAX_VMS][64]; /* --vm: the VM names recorded (with the --pid ones) */
	__u32 nvm_filter;
	/*
	 * --vm names no process carried while recording (a misspelt name, a VM not running); known
	 * since December 2026 (vm_unseen_known), not in older recordings
	 */
	char vm_unseen[KW_MAX_VMS][64];
	__u32 nvm_unseen;
	bool vm_unseen_known;
	bool visits;	 /* per-entry callback probes enabled */
	char attach[16]; /* --attach: auto, fentry, kprobe */
	/* the preemption model (kw_host_preempt()) and where it was read, "" if not known */
	char preempt[16];
	char preempt_src[16];
	/*
	 * record's --probe as given ("all" when not given, "none": nothing attached, no BPF), and
	 * the recorded command's wall time, CLOCK_MONOTONIC from its fork to its exit (0: none).
	 * Both "" / 0 in recordings made before they existed.
	 */
	char probe_set[128];
	__u64 wall_ns;
	/*
	 * A checkpoint: the recording so far, which record writes to its -o FILE while it records
	 * (--checkpoint SECS), replaced by the whole recording when it ends. A file that is still
	 * one is of a record that was killed (or is still running).
	 */
	bool checkpoint;
	struct kw_conditions cond; /* the test conditions (conditions.h) */
	size_t nparams;
	struct kw_param *params;
};

struct kw_overhead {
	bool stats_enabled; /* BPF run-time statistics were on while recording */
	__u64 run_ns;	    /* sum over the attached programs */
	__u64 run_cnt;
	__u64 measured_ns;	/* total time of the timed outermost probes (see record.c) */
	__u64 recursion_misses; /* program runs the kernel skipped (bpf_prog_info) */
	/*
	 * record: run_ns against the time its probe set measured (runs.h kw_run_cost_share()), a
	 * lower bound, and what that time is of; share_of "" when not known (not read back: the
	 * views derive it)
	 */
	double share;
	char share_of[64];
};

struct kw_recording {
	struct kw_meta meta;
	struct kw_plan plan[KW_NR_PROBES];
	struct kw_func funcs[KW_NR_PROBES];
	__u64 counters[KW_NR_COUNTERS];
	__u64 visits[KW_NR_VISITS];
	struct kw_hist unmap_cleared;
	char pf_ret_names[KW_NR_PF_RET][32];
	struct kw_overhead overhead;
	size_t ncbs, ntrigs, nintervals, nvms;
	struct kw_cb *cbs;
	struct kw_trig *trigs;
	struct kw_interval *intervals;
	struct kw_vm *vms; /* the processes of the trigger rows, by pid */
	/* --count / --time: the user-named functions, and their trigger rows (probe = slot) */
	struct kw_ufunc ufuncs[KW_MAX_UFUNCS];
	size_t nufuncs, nutrigs;
	struct kw_trig *utrigs;
	/* KVM's own statistics of the recorded VMs (record, serve): source "" and why "" if none */
	struct kw_kvmstats kvmstats;
	/* record --workload-times: the command's own phase times (nphases 0: none) */
	struct kw_workload workload;
	/* --sample: the sampled mode's section (sampled.h; hz 0: not sampled) */
	struct kw_sampled sampled;
};

/*
 * Every probe of need attached and, when need_any is not 0, at least one of need_any: probes
 * of r's arch only (a probe of the other arch never counts as attached).
 */
bool kw_recording_attached(const struct kw_recording *r, kw_probe_mask need,
			   kw_probe_mask need_any);

/* The program runs of every probe the kernel skipped (kw_func.lost_runs summed). */
__u64 kw_recording_lost_runs(const struct kw_recording *r);

/* Total of the timed probes that are the outermost measured work (walks at depth 0, x86 ops). */
__u64 kw_recording_measured_ns(const struct kw_recording *r);

void kw_recording_free(struct kw_recording *r);
/* Adds a probe's per-CPU counts (n CPUs) to f; its histograms come from kw_hists (collect.c). */
void kw_func_add_percpu(struct kw_func *f, const struct kw_probe_stats *s, int n);
int kw_recording_add_cb(struct kw_recording *r, const struct kw_cb *cb);
int kw_recording_add_trig(struct kw_recording *r, const struct kw_trig *tr);
/* A trigger row of user function tr->probe (an index into r->ufuncs). */
int kw_recording_add_utrig(struct kw_recording *r, const struct kw_trig *tr);
int kw_recording_add_vm(struct kw_recording *r, const struct kw_vm *vm);
/* The identity of pid in r, NULL if the recording has none. */
const struct kw_vm *kw_recording_vm(const struct kw_recording *r, __u32 pid);
/* The "vms" array of a recording and of report --json (jansson: the caller owns it). */
struct json_t *kw_vms_json(const struct kw_recording *r);
/* The recording's "user_functions" array (jansson: the caller owns it). */
struct json_t *kw_ufuncs_json(const struct kw_recording *r);
int kw_recording_add_param(struct kw_recording *r, const char *name, const char *value);
int kw_recording_add_interval(struct kw_recording *r, const struct kw_interval *iv);
/* The --pid filter as "1,2" (sep between the ids) into buf, "" for none; returns their number. */
int kw_meta_pids(const struct kw_meta *m, char *buf, size_t len, const char *sep);
/* Sets meta.kvmwalk_command from argv (argv[0] "kvmwalk record"), quoted for a POSIX shell. */
void kw_meta_set_command(struct kw_meta *m, int argc, char **argv);
/*
 * Orders triggers (probe, trigger, cmd, pid, memslot_op) and callbacks (symbol, depth, flags):
 * stable output.
 */
void kw_recording_sort(struct kw_recording *r);

/* JSON out and in. Return 0 or -errno; read fails with -EPROTO on another schema. */
int kw_recording_write(const struct kw_recording *r, FILE *f);
struct kw_outfile;
/*
 * path "-": stdout. Otherwise through of (kw_outfile_open() of path, done before recording
 * began): a temporary file renamed over path, a previous file kept as path.old, both said on
 * stderr; on failure path is left as it was (outfile.h). @checkpointed: path is a checkpoint of
 * this recording (kw_recording_checkpoint()), replaced without keeping it as path.old, which is
 * the file that was there before the recording began.
 */
int kw_recording_save(const struct kw_recording *r, const char *path, struct kw_outfile *of,
		      bool checkpointed);
/*
 * A checkpoint (meta.checkpoint set) to path through of, as kw_recording_save() but quiet unless
 * it fails: the first one (@first) keeps a previous file as path.old (and says so), each later
 * one replaces the one before. Returns 0 or -errno; a failure leaves path as it was and no
 * temporary file.
 */
int kw_recording_checkpoint(const struct kw_recording *r, const char *path, struct kw_outfile *of,
			    bool first);
int kw_recording_load(struct kw_recording *r, const char *path, char *err, size_t errlen);
int kw_recording_parse(struct kw_recording *r, const char *text, char *err, size_t errlen);

#endif /* KW_RECORD_H */
