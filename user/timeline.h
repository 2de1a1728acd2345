/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk report --timeline`: the `record --interval` snapshots of a recording as rates, one
 * row per interval: a table (80 columns), CSV, JSON and an SVG plot. Plain C on a loaded
 * recording.
 */
#ifndef KW_TIMELINE_H
#define KW_TIMELINE_H

#include <stdio.h>

#include "record.h"

/* The columns: each a count per interval, shown per second of the interval's own length. */
enum kw_tl_col {
	KW_TL_WALKS,   /* kvm_pgtable_walk calls (x86: tdp_mmu_zap_leafs + fast_page_fault) */
	KW_TL_SPLIT,   /* stage2_split_walker visits */
	KW_TL_FLUSHES, /* range TLB flushes, every enclosing operation */
	KW_TL_EMPTY,   /* empty flushes: by unmaps that cleared no leaf */
	KW_TL_DLOG,    /* dirty-log ioctls (kw_dirty_log_ioctls) */
	KW_TL_WALK_NS, /* time in outermost walks (measured_ns), shown as ms per s */
	KW_TL_NR,
};

/* The tail columns: the 99th percentile of the durations of one timed operation's calls. */
enum kw_tl_tail {
	KW_TL_P99_WALK,	 /* the walks column's calls (kvm_pgtable_walk; x86 both together) */
	KW_TL_P99_FLUSH, /* range TLB flushes (kvm_tlb_flush_vmid_range, else the EL2 one) */
	KW_TL_P99_INVAL, /* MMU-notifier invalidations (kvm_mmu_notifier_invalidate_range_start) */
	KW_TL_NR_TAIL,
};

/*
 * One interval: its end, its length, and the count of each column (NAN: not measured); its end
 * on the wall clock (utc, s since the epoch, 0: not known; utc_exact false: to about a second,
 * from a recording without meta.start_realtime_ns); the mean duration of the walks column's calls
 * (walk_mean_ns, NAN: not measured or no call in the interval); the p99 of each tail column,
 * from the interval's duration histograms (NAN: not measured, no call, or a recording made
 * before intervals kept histograms).
 */
struct kw_tl_row {
	double t, len;
	double v[KW_TL_NR];
	double utc;
	bool utc_exact;
	double walk_mean_ns;
	double p99[KW_TL_NR_TAIL];
};

/*
 * The p99 of tail column c in interval iv of r, in ns, or of the whole recording (its full
 * histograms) when iv is NULL; NAN as in kw_tl_row.
 */
double kw_timeline_p99(const struct kw_recording *r, const struct kw_interval *iv, int c);

/* Row i of r's timeline (0 <= i < r->nintervals). */
void kw_timeline_row(const struct kw_recording *r, size_t i, struct kw_tl_row *row);

/* All return 0 or -errno; r must have intervals (the caller says what to do when not). */
int kw_timeline_text(FILE *f, const struct kw_recording *r, const char *name);
int kw_timeline_csv(FILE *f, const struct kw_recording *r);
int kw_timeline_svg(FILE *f, const struct kw_recording *r, const char *name);
/* report --json's "intervals": the recording's form plus length_s and the rates. */
struct json_t *kw_timeline_json(const struct kw_recording *r);

#endif /* KW_TIMELINE_H */
