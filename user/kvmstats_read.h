/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading KVM's per-VM statistics of this host into a struct kw_kvmstats (kvmstats.h): from
 * debugfs, and from the binary stats files the VMMs hold (pidfd_getfd()). Why debugfs first, and
 * why binary stats only through a VMM's own stats fds, is in kvmstats_read.c. Layer: helpers (no
 * libbpf; the debugfs part is unit-tested on a fake tree).
 */
#ifndef KW_KVMSTATS_READ_H
#define KW_KVMSTATS_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "kvmstats.h"

enum kw_kvmstats_mode {
	KW_KSM_AUTO,	/* debugfs; binary stats for what debugfs cannot give */
	KW_KSM_DEBUGFS, /* debugfs only */
	KW_KSM_BINARY,	/* binary stats only */
	KW_KSM_OFF,	/* not read */
};

/* Parses "auto", "debugfs", "binary" or "off": 0 or -EINVAL. */
int kw_kvmstats_mode_parse(const char *s, enum kw_kvmstats_mode *m);

/* When a read is made: what it means for a VM seen, or not seen, then. */
enum kw_kvmstats_when {
	KW_KSR_START, /* a VM seen has its start values; a VM seen later was created after */
	KW_KSR_TICK,  /* during the recording: the last read a VM that ends keeps */
	KW_KSR_END,   /* a VM not seen any more ended before: it keeps its last read */
};

/* Reads during a recording (kw_kvmstats_tick()) at most this often, seconds. */
#define KW_KVMSTATS_TICK 0.5

struct kw_ks_name {
	char name[KW_KVM_STAT_NAME];
	enum kw_kvm_stat_type type;
	bool refused; /* debugfs refused to open it (lockdown): never asked again */
};

struct kw_kvmstats_reader {
	enum kw_kvmstats_mode mode;
	char sys[128]; /* prefix of /sys and /proc: "" on a host, a fake tree in the tests */
	int dirfd;     /* SYS/sys/kernel/debug/kvm, -1 */
	bool mounted;  /* kvmwalk mounted debugfs (left mounted, as tracefs.c does) */
	size_t nnames; /* the statistics debugfs has (its kvm folder's files) */
	struct kw_ks_name *names;
	size_t nrefused;   /* of them, refused */
	char why[384];	   /* why not debugfs (or not all of it), or why nothing */
	char bin_why[128]; /* the last binary read's failure, "" */
	double next_tick;
};

/*
 * Finds SYS/sys/kernel/debug/kvm (mounting debugfs there when may_mount and it is not mounted)
 * unless mode is binary. Returns 0, or -ENOENT with rd->why set when nothing can be read (mode
 * off, KVM not loaded, no debugfs with mode debugfs): reads then do nothing. The debugfs folder
 * stays open, so that reads work after serve drops its privileges.
 */
int kw_kvmstats_open(struct kw_kvmstats_reader *rd, enum kw_kvmstats_mode mode, const char *sys,
		     bool may_mount);
void kw_kvmstats_close(struct kw_kvmstats_reader *rd);

/*
 * Reads every VM of the host into ks at t seconds since the start (see enum kw_kvmstats_when),
 * and SecPageTables at the start and the end. Sets ks->source and ks->why. A VM that cannot be
 * read now (it is being destroyed) keeps its last read. 0, or -errno when nothing was read.
 */
int kw_kvmstats_read(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t,
		     enum kw_kvmstats_when when);
/* A KW_KSR_TICK read when KW_KVMSTATS_TICK seconds have passed since the last one. */
void kw_kvmstats_tick(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t);

#endif /* KW_KVMSTATS_READ_H */
