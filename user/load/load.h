/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmwalk-load: drives a real KVM VM through known scenarios so that what kvmwalk's probes count
 * can be checked against exact ground truth. This header is shared by every file of user/load/.
 *
 * Files: opts.c (options, sizes: pure), plan.c (ranges, chunks, bitmaps, /proc parsers: pure),
 * output.c (results table and JSON: pure), kvm.c (VM, memslots, vCPU threads), guest_x86.c and
 * guest_arm64.c (guest code and registers), scenario.c (the scenarios), main.c.
 */
#ifndef KVMWALK_LOAD_H
#define KVMWALK_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define LOAD_VERSION "0.1.0"

#define SZ_4K UINT64_C(0x1000)
#define SZ_2M UINT64_C(0x200000)
#define SZ_1G UINT64_C(0x40000000)
#define PAGE_4K_SHIFT 12

/* Exit codes, also listed in --help. */
enum load_exit {
	EXIT_OK = 0,
	EXIT_ERROR = 1,	   /* an unexpected failure of a system call */
	EXIT_USAGE = 2,	   /* bad options */
	EXIT_NO_KVM = 3,   /* no usable /dev/kvm */
	EXIT_NO_CAP = 4,   /* a KVM capability or host feature (THP, huge pages) is missing */
	EXIT_GUEST = 5,	   /* the guest failed, exited unexpectedly or timed out */
	EXIT_MEMORY = 6,   /* memory or memslot setup failed */
	EXIT_MISMATCH = 7, /* a count did not match what the workload made certain */
};

enum load_scenario {
	SC_SPLIT,
	SC_CLEAR,
	SC_INVALIDATE,
	SC_WRPROTECT_FAULT,
	SC_EMPTY_UNMAP,
	SC_NR,
	SC_ALL = SC_NR,
};

enum load_backing { BACKING_ANON, BACKING_THP, BACKING_HUGETLB };
enum load_pattern { PATTERN_SAME, PATTERN_SWEEP };

struct load_opts {
	int scenario; /* enum load_scenario, SC_ALL for every one */
	unsigned int vcpus;
	uint64_t mem; /* bytes per vCPU */
	int backing;  /* enum load_backing */
	unsigned int iterations;
	uint64_t chunk_pages; /* KVM_CLEAR_DIRTY_LOG chunk, in 4 KiB pages */
	uint64_t range;	      /* bytes per madvise(MADV_DONTNEED) */
	int pattern;	      /* enum load_pattern */
	bool refault;	      /* invalidate: the vCPUs write the range again after the madvise */
	uint64_t eager_split; /* bytes, 0: leave KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE alone */
	uint64_t sparse;      /* bytes of the never-touched slot of empty-unmap */
	const char *json;     /* NULL: no JSON; "-": stdout */
	bool json_bare;	      /* --json had no =FILE: a following argument is the file */
	unsigned int timeout; /* seconds per guest run */
	bool quiet;
};

/* opts.c */
int parse_size(const char *s, uint64_t *out);
int parse_uint(const char *s, unsigned long long max, unsigned long long *out);
const char *scenario_name(int sc);
int scenario_parse(const char *s);
const char *backing_name(int b);
int backing_parse(const char *s);
const char *pattern_name(int p);
int pattern_parse(const char *s);
/* "yes" 1, "no" 0, else -EINVAL */
int yesno_parse(const char *s);
void load_opts_default(struct load_opts *o);
/* Returns NULL when the options are consistent, else a message for the user. */
const char *load_opts_check(const struct load_opts *o);
/* Parses argv; returns 0, or EXIT_USAGE after argp printed why. */
int load_opts_parse(int argc, char **argv, struct load_opts *o, unsigned int argp_flags);
void format_size(uint64_t bytes, char *buf, size_t len);

/* plan.c */
uint64_t plan_range_offset(uint64_t total, uint64_t range, int pattern, unsigned int iter);
uint64_t plan_chunks(uint64_t pages, uint64_t chunk_pages);
uint64_t bitmap_bytes(uint64_t pages);
uint64_t bitmap_weight(const uint64_t *bm, uint64_t nbits);
void bitmap_set_range(uint64_t *bm, uint64_t start, uint64_t n);
uint64_t bitmap_weight_range(const uint64_t *bm, uint64_t start, uint64_t n);
/* Sums "KEY: N kB" of every smaps entry overlapping [start, end); returns bytes, or -1. */
long long smaps_sum_kb_bytes(const char *smaps, uint64_t start, uint64_t end, const char *key);
/* transparent_hugepage/enabled text: true unless "[never]" is selected. */
bool thp_enabled_parse(const char *text);

/* output.c: what each phase caused. Key names are stable: tests and kvmwalk key on them. */
enum load_count {
	LC_PAGES_TOUCHED,   /* 4 KiB pages the guest wrote with no stage-2/TDP mapping before */
	LC_PAGES_WRITTEN,   /* 4 KiB pages the guest wrote in the phase */
	LC_DIRTY_PAGES,	    /* bits set in the bitmap KVM_GET_DIRTY_LOG returned */
	LC_PAGES_REFAULTED, /* pages non-resident before the run, holding the new value after */
	LC_GET_IOCTLS,	    /* KVM_GET_DIRTY_LOG calls */
	LC_CLEAR_IOCTLS,    /* KVM_CLEAR_DIRTY_LOG calls */
	LC_PAGES_CLEARED,   /* bits passed to KVM_CLEAR_DIRTY_LOG that were set */
	LC_MADVISE_CALLS,   /* madvise(MADV_DONTNEED) calls (each one MMU-notifier invalidation) */
	LC_BYTES_INVALIDATED, /* bytes passed to those calls */
	LC_BLOCKS_2M,	      /* 2 MiB host blocks backing the data slot (AnonHugePages/Hugetlb) */
	LC_SLOT_PAGES,	      /* 4 KiB pages of the slot whose flags changed */
	LC_SLOTS_ADDED,	      /* KVM_SET_USER_MEMORY_REGION creating a slot */
	LC_SLOTS_DELETED,     /* KVM_SET_USER_MEMORY_REGION with memory_size 0 */
	LC_SLOT_BYTES,	      /* bytes of the slots added or deleted */
	LC_SPARSE_BYTES,      /* bytes of the never-touched sparse slot */
	LC_NR,
};
extern const char *const load_count_names[LC_NR];

struct load_counts {
	uint64_t v[LC_NR];
	uint32_t set; /* bit i: v[i] is reported */
};

static inline void counts_set(struct load_counts *c, int key, uint64_t v)
{
	c->v[key] = v;
	c->set |= 1U << key;
}

static inline void counts_add(struct load_counts *c, int key, uint64_t v)
{
	c->v[key] += v;
	c->set |= 1U << key;
}

struct load_phase {
	int scenario;
	const char *phase; /* a string literal */
	unsigned int iteration;
	uint64_t wall_ns;
	struct load_counts counts;
};

struct load_results {
	const char *arch;
	char kernel[65];
	const struct load_opts *opts;
	struct load_phase *phases;
	size_t nr, cap;
	int status; /* enum load_exit */
	char error[256];
};

int results_init(struct load_results *r, const struct load_opts *o);
void results_free(struct load_results *r);
/* Appends a phase; returns it (zeroed but for the names) or NULL when out of memory. */
struct load_phase *results_add(struct load_results *r, int scenario, const char *phase,
			       unsigned int iteration);
void results_text(const struct load_results *r, FILE *f);
void results_json(const struct load_results *r, FILE *f);

/* scenario.c: runs one scenario in a fresh VM, appending its phases to @r. */
int scenario_run(int sc, const struct load_opts *o, struct load_results *r);

/* main.c/kvm.c/scenario.c: one place records the first failure and its exit code. */
int load_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
extern int load_exit_code;
extern char load_error[256];

#endif
