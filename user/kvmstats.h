/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's own per-VM statistics (the binary stats of Documentation/virt/kvm/api.rst, also in
 * debugfs), read at no probe cost: at the start and end of a recording and at each refresh of
 * serve. They count some of what kvmwalk counts (x86 pf_fast, pages_4k/2m/1g,
 * remote_tlb_flush_requests) and, on arm64, none of the range TLB flushes: report puts them
 * beside kvmwalk's counts. The types and their JSON (a recording's "kvm_stats",
 * docs/recording-format.md) and the parsers are here, unit-tested without a kernel; reading the
 * host (debugfs, pidfd_getfd() and KVM_GET_STATS_FD, /proc) is kvmstats_read.c. Layer: helpers.
 */
#ifndef KW_KVMSTATS_H
#define KW_KVMSTATS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

/* KVM_STATS_NAME_SIZE: a descriptor's name, NUL included */
#define KW_KVM_STAT_NAME 48

enum kw_kvm_stat_type {
	KW_KST_CUMULATIVE, /* only grows: a delta is what happened meanwhile */
	KW_KST_INSTANT,	   /* a level (pages_4k): the delta is signed */
	KW_KST_PEAK,	   /* a high-water mark: no delta */
	KW_NR_KST,
};

extern const char *const kw_kvm_stat_type_names[KW_NR_KST];

struct kw_kvm_stat {
	char name[KW_KVM_STAT_NAME];
	enum kw_kvm_stat_type type;
	__u64 start, end;
};

/* One VM: a KVM_CREATE_VM, as its debugfs folder PID-FD names it. */
struct kw_kvm_vm {
	__u32 pid; /* its process (tgid), 0 when it could not be told (its creating thread gone) */
	char id[32]; /* "TID-FD": KVM's debugfs folder, the creating thread and the VM's fd */
	/* "debugfs", "binary" or "debugfs+binary": how its last read was made */
	char source[16];
	/*
	 * Read at the start of the recording; else it was created during it, and its start
	 * values are 0, which they were at KVM_CREATE_VM.
	 */
	bool at_start;
	/* gone at the end read: its end values are its last read, at last_t */
	bool ended;
	double first_t, last_t; /* seconds since the start of the recording: first and last read */
	size_t nstats;
	struct kw_kvm_stat *stats;
	/* not in the JSON: what tells a new VM under an old id (the debugfs folder's inode, the
	 * process's start time), and the read that last saw it (kvmstats_read.c) */
	__u64 key;
	unsigned int gen;
};

struct kw_kvmstats {
	char source[16]; /* "debugfs", "binary", "debugfs+binary", "" when not read (see why) */
	char why[384];	 /* why none, or why some come from binary stats or are missing */
	/* /proc/meminfo SecPageTables (KVM's and the IOMMU's page tables, 6.0+), kB; -1 unknown */
	long long sec_pt_start_kb, sec_pt_end_kb;
	size_t nvms;
	struct kw_kvm_vm *vms;
};

/* Empty, SecPageTables unknown. */
void kw_kvmstats_init(struct kw_kvmstats *ks);
void kw_kvmstats_free(struct kw_kvmstats *ks);
/* A deep copy of src into dst (initialised by this); 0 or -ENOMEM. */
int kw_kvmstats_copy(struct kw_kvmstats *dst, const struct kw_kvmstats *src);
/* The VM of id and key, or a new one (zeroed but for id and key); NULL without memory. */
struct kw_kvm_vm *kw_kvmstats_vm(struct kw_kvmstats *ks, const char *id, __u64 key);
/* The statistic name of vm, or a new one of type; NULL without memory. */
struct kw_kvm_stat *kw_kvm_vm_stat(struct kw_kvm_vm *vm, const char *name,
				   enum kw_kvm_stat_type type);
const struct kw_kvm_stat *kw_kvm_vm_find(const struct kw_kvm_vm *vm, const char *name);
/* Keeps only the VMs whose pid is one of pids[n]. */
void kw_kvmstats_keep(struct kw_kvmstats *ks, const __u32 *pids, size_t n);
/* Orders the VMs by pid, then id: stable output. */
void kw_kvmstats_sort(struct kw_kvmstats *ks);

/* end - start; 0 for a peak statistic */
long long kw_kvm_stat_delta(const struct kw_kvm_stat *s);
/*
 * The sum over the VMs of name's delta; *have (may be NULL) is set when a VM has it. 0 when
 * none has it.
 */
long long kw_kvmstats_delta(const struct kw_kvmstats *ks, const char *name, bool *have);
/* The sum over the VMs of name's end value, and whether one has it. */
unsigned long long kw_kvmstats_end(const struct kw_kvmstats *ks, const char *name, bool *have);

/*
 * The statistics kvmwalk shows beyond the recording (report's section, compare's rows,
 * /metrics): those that count what kvmwalk counts, or the page-table memory it walks. Name,
 * arch ("" both) and what KVM counts, as KVM's source increments it (7.3).
 */
struct kw_kvm_stat_def {
	const char *name, *arch, *help;
};
extern const struct kw_kvm_stat_def kw_kvm_stat_defs[];
extern const size_t kw_nr_kvm_stat_defs;
/* The def of name, or NULL. */
const struct kw_kvm_stat_def *kw_kvm_stat_def(const char *name);

/*
 * Parsers, without a kernel. A debugfs file of a statistic holds "%llu\n" (simple_attr): 0 or
 * -EINVAL.
 */
int kw_kvmstats_parse_value(const char *text, __u64 *v);
/* SecPageTables of /proc/meminfo's text, kB, or -1 when it has none (before 6.0). */
long long kw_kvmstats_parse_meminfo(const char *text);
/*
 * The debugfs folder name of a VM, "TID-FD" (kvm_create_vm_debugfs(): the thread that called
 * KVM_CREATE_VM and the fd it returned): 0 or -EINVAL.
 */
int kw_kvmstats_parse_dirname(const char *name, __u32 *tid, __u32 *fd);
/*
 * Whether a debugfs file of the kvm folder is a statistic kvmwalk keeps, and its type. The
 * mode says instant (0444) from cumulative or peak (0644, kvm_stats_debugfs_mode()); KVM's peak
 * statistics are named max_* (x86's max_mmu_rmap_size and max_mmu_page_hash_collisions in 7.3).
 * Histograms (*_hist: halt_poll_success_hist, ...) are left out: their file holds the first
 * bucket only.
 */
bool kw_kvmstats_debugfs_stat(const char *name, unsigned int mode, enum kw_kvm_stat_type *type);

/* One statistic of a binary stats file, as kw_kvmstats_parse_binary() hands it over. */
typedef int (*kw_kvmstats_fn)(void *arg, const char *name, enum kw_kvm_stat_type type, __u64 v);
/*
 * Parses the whole content of a KVM_GET_STATS_FD file (buf, len bytes): the header, the id
 * (copied to id, idlen bytes, may be NULL), the descriptors and the data. Calls fn for each
 * single-value statistic (size 1; histograms are left out, as in debugfs). 0, -EINVAL for a
 * malformed image, or fn's error.
 */
int kw_kvmstats_parse_binary(const void *buf, size_t len, char *id, size_t idlen, kw_kvmstats_fn fn,
			     void *arg);
/*
 * The VM a binary stats id belongs to: "kvm-TID" of a VM, "kvm-TID/vcpu-N" of its vCPU. The TID
 * into *tid: 0 or -EINVAL.
 */
int kw_kvmstats_parse_id(const char *id, __u32 *tid, bool *vcpu);

struct json_t;
/* The recording's "kvm_stats" object (jansson: the caller owns it). */
struct json_t *kw_kvmstats_json(const struct kw_kvmstats *ks);
/* From a recording's "kvm_stats" (NULL: an older recording, ks left empty); 0 or -ENOMEM. */
int kw_kvmstats_from_json(struct kw_kvmstats *ks, const struct json_t *o);

#endif /* KW_KVMSTATS_H */
