/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "Findings" that open `kvmwalk report`: each waste a recording proves, with its count, time
 * and share, and the bundled change in patches/ that removes it. Computed from a kw_recording
 * only (plain C, no kernel), then printed as text (80 columns) or built as JSON.
 */
#ifndef KW_FINDINGS_H
#define KW_FINDINGS_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

enum kw_finding_kind {
	KW_F_EMPTY_FLUSHES, /* arm64: range TLB flushes of unmaps that cleared no leaf */
	KW_F_SPLIT_LEVEL3,  /* arm64: split-walker visits at level 3, which never split */
	KW_F_EMPTY_ZAPS,    /* x86: tdp_mmu_zap_leafs calls that zapped no leaf, and their visits */
	KW_F_TEARDOWN,	    /* arm64: VM teardown walking its IPA space in many large walks */
	KW_F_NESTED_EMPTY,  /* arm64 NV: flushes of nested unmaps' 1 GiB calls that cleared nothing */
	KW_NR_FINDING_KINDS,
};

enum kw_finding_status {
	KW_FS_NOT_CHECKED, /* a probe it needs was not attached: no numbers at all */
	KW_FS_NONE,	   /* checked, nothing wasted */
	KW_FS_FOUND,
};

/* A number of a finding, for JSON: exact counts as integers, ratios as reals. */
struct kw_finding_num {
	const char *name;
	__u64 u;
	double d;
	bool real;
	bool null; /* not measured (its probe was not attached): JSON null */
};

#define KW_FINDING_NUMS 10

struct kw_finding {
	enum kw_finding_kind kind;
	enum kw_finding_status status;
	const char *key;   /* JSON "kind": "empty_flushes", ... */
	const char *title; /* "Empty range TLB flushes" */
	const char *rule;  /* the threshold that makes it a waste, as the text names it */
	/* FOUND: the waste */
	__u64 count;	      /* events wasted, in unit */
	const char *unit;     /* "flushes", "visits", "zaps", "walks" */
	bool timed;	      /* ns is measured */
	__u64 ns;	      /* their time */
	double share;	      /* 0..1 */
	const char *share_of; /* "of unmap time" */
	char headline[160];   /* the count, time and share on the title line */
	char detail[768];     /* the facts that prove it, wrapped when printed */
	const char *patch;    /* the series under patches/ that removes it, NULL if none */
	const char *patch_does;
	/* NONE: what was checked; NOT_CHECKED: which probe was missing */
	char why[256];
	struct kw_finding_num nums[KW_FINDING_NUMS];
	int nnums;
};

struct kw_findings {
	struct kw_finding f[KW_NR_FINDING_KINDS]; /* the findings of the recording's arch */
	int n;
};

void kw_findings_compute(const struct kw_recording *r, struct kw_findings *out);
/* "Findings": the found ones numbered, then what was checked and found nothing, and what not. */
void kw_findings_print(FILE *f, const struct kw_findings *fs);
/* The "findings" array of report --json (jansson: the caller owns it). */
struct json_t *kw_findings_json(const struct kw_findings *fs);

#endif /* KW_FINDINGS_H */
