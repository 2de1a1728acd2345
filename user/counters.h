/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counter catalogue, and the layouts that show counters, as data (what kw_probes[] is for
 * probes): what each scalar counter of the BPF programs (enum kw_counter, bpf/kvmwalk_abi.h) is
 * called and counts, and where each view shows it: Prometheus families (prom.c), report
 * sections in text and --json (report.c), compare rows (compare.c), the totals line of top
 * (top.c). Those views are engines over the tables here; none names a counter itself.
 *
 * Layer: the recording model. Data only, about the BPF ABI (bpf/kvmwalk_abi.h) and the probe
 * catalogue: record.c names the counters of a recording from it, the views lay them out.
 *
 * Adding a counter: its enum value in bpf/kvmwalk_abi.h, its increment in a bpf/ program, and in
 * counters.c its kw_counters[] entry (its name in recordings and compare, its unit) plus the
 * layouts that should show it: a sample of a kw_prom_counter_families[] entry, an item of a
 * kw_report_sections[] line, a kw_compare_counter_rows[] row. docs/HACKING.md walks through it,
 * with the rules of each table.
 */
#ifndef KW_COUNTERS_H
#define KW_COUNTERS_H

#include <stdbool.h>

#include "probes.h"

/*
 * A counter as a layout refers to it: its enum kw_counter value plus one, so that a field left
 * out of a designated initializer (0) means "none".
 */
#define KW_CREF(c) ((c) + 1)
#define KW_CREF_NONE 0

/* A probe as a layout refers to it: its enum kw_probe value plus one (0: none). */
#define KW_PREF(p) ((p) + 1)

/* What a counter is. */
struct kw_counter_desc {
	const char *name; /* in the recording's "counters", and compare's "counters" rows */
	const char *help; /* one line: what one count is */
	bool ns;	  /* a time in nanoseconds, not a count */
	bool compare;	  /* a row of its own in compare's "counters" group */
	/* top: on recordings of this arch, "LABEL/s RATE (total N)" on the totals line */
	const char *top;
	const char *top_arch;
	/* report "Probe overhead": the label of an event kvmwalk lost ("no task memory") */
	const char *lost;
	bool lost_own_line; /* printed on a line of its own, and only when not 0 */
};

extern const struct kw_counter_desc kw_counters[KW_NR_COUNTERS];

/* The counter of a recording name, or -1. */
int kw_counter_by_name(const char *name);

/* ---- Prometheus (prom.c) ------------------------------------------------------------------ */

/* One series of a family: a label pair (or none) and its value. */
struct kw_prom_sample {
	const char *label, *value; /* {label="value"}, NULL: no label */
	int c;			   /* KW_CREF() of the counter */
	int minus;		   /* KW_CREF() of a counter subtracted (0 when it exceeds c) */
};

enum kw_prom_family_kind {
	KW_PF_SAMPLES,	  /* the samples listed */
	KW_PF_BY_ENCL,	  /* label "call": KW_NR_ENCL counters from base, by enclosing operation */
	KW_PF_BY_PF_RET,  /* label "outcome": the fast_page_fault return codes, named from BTF */
	KW_PF_HIST_LEAVES /* the histogram of valid leaves cleared per stage-2 unmap call */
};

#define KW_PROM_SAMPLES 4

struct kw_prom_counter_family {
	const char *name;
	const char *help;
	enum kw_prom_family_kind kind;
	bool seconds; /* the counters hold ns, the family is in seconds */
	/* exported where these probes of the recording's arch attached (kw_recording_attached()) */
	kw_probe_mask need, need_any;
	int base; /* KW_PF_BY_ENCL, KW_PF_BY_PF_RET: KW_CREF() of the first counter */
	struct kw_prom_sample s[KW_PROM_SAMPLES];
};

/* In exposition order; ends with an entry whose name is NULL. */
extern const struct kw_prom_counter_family kw_prom_counter_families[];

/* ---- report sections (report.c: text and --json) -------------------------------------------- */

/*
 * One number of a report line: "LABEL VALUE (PARENTHESIS)", where the parenthesis holds, in
 * this order and when set: "of N calls" (a probe's calls), the value per another counter
 * ("0.50 per unmap", or for a time "1.2ms each"), a note, and a time counter.
 */
struct kw_report_item {
	int c; /* KW_CREF() */
	const char *label;
	const char *key;       /* its key in the section's --json object */
	int of_calls;	       /* KW_PREF() of a probe whose calls are "of N calls" */
	const char *of_key;    /* --json key of those calls, before key */
	int per;	       /* KW_CREF() of the divisor */
	const char *per_label; /* "per unmap", "each" */
	const char *per_key;   /* --json key of the ratio (a real), NULL: text only */
	const char *note;
	int time; /* KW_CREF() of a time; --json: its own key after every line's items */
	const char *time_key;
};

#define KW_REPORT_ITEMS 3

/* A line of a section: items joined by ", ", or the table of flushes by enclosing operation. */
struct kw_report_line {
	const char *prefix; /* before the first item ("tdp_mmu_zap_leafs: ") */
	/* one of these probes attached, else the line is `missing` and the section ends there */
	kw_probe_mask need_any;
	const char *missing;
	struct kw_report_item items[KW_REPORT_ITEMS];
	/* a table: rows by enclosing operation (kw_encl_names), a column per counter array */
	const char *table; /* its heading, NULL: not a table */
	int table_cols[2]; /* KW_CREF() of each column's first counter */
	const char *table_heads[2];
	/* --json: the first column, keyed by each counter's recording name */
};

#define KW_REPORT_LINES 6

/*
 * A section's part that is not made of counters, printed by report.c around the lines:
 * KW_RX_TDP, the x86 MMU in use (under the heading) and fast_page_fault's return codes by
 * their BTF names (after the lines, and as --json "fast_page_fault" after the section's own).
 */
enum kw_report_extra {
	KW_RX_NONE,
	KW_RX_TDP,
};

struct kw_report_section {
	const char *title; /* the text heading */
	const char *json;  /* its key in report --json */
	const char *arch;  /* text: shown on recordings of this arch only (NULL: of every arch) */
	/*
	 * Shown when probe (KW_PREF()) attached, or when nonzero is not 0 (a counter, KW_CREF(),
	 * or with nonzero_calls that probe's calls). Otherwise the text prints absent
	 * under the heading (NULL: neither heading nor lines), and with json_null the JSON is null.
	 */
	int probe;
	int nonzero;
	bool nonzero_calls;
	const char *absent;
	bool json_null;
	/* when this counter (KW_CREF()) is 0: "N NONE_TEXT" with the probe's calls, and no lines */
	int none;
	const char *none_text;
	struct kw_report_line lines[KW_REPORT_LINES];
	/* what the section shows besides its counters: report.c's code for it */
	enum kw_report_extra extra;
};

/* In report order; ends with an entry whose json is NULL. */
extern const struct kw_report_section kw_report_sections[];

/* ---- compare rows (compare.c) ---------------------------------------------------------------- */

/* A counter as a row of a probe's group in compare: "METRIC" under the probe's name. */
struct kw_compare_counter_row {
	int probe;	    /* the group */
	const char *metric; /* "cleared/unmap" */
	int c;		    /* KW_CREF() */
	int per_counter;    /* KW_CREF() of the divisor, or */
	int per_calls;	    /* KW_PREF() of the probe whose calls divide; neither: per run */
	/* KW_PREF() of a probe attached in every run of both sides, or no row */
	int needs_everywhere;
};

/* In compare order within each probe's group; ends with an entry whose metric is NULL. */
extern const struct kw_compare_counter_row kw_compare_counter_rows[];

#endif /* KW_COUNTERS_H */
