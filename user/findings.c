// SPDX-License-Identifier: GPL-2.0
/*
 * Findings: each waste a recording proves, from its counters, visits, walk callbacks and trigger
 * rows only. A finding needs every probe its numbers come from to have been attached: a probe
 * that was off counts 0, and 0 would read as "nothing wasted" (or, for the unmap walker, as
 * "every unmap was empty"). Thresholds are fixed and said in the text.
 */
#include <string.h>

#include <jansson.h>

#include "findings.h"
#include "fmt.h"

#define GIB (1ULL << 30)

static bool attached(const struct kw_recording *r, int p)
{
	return kw_plan_attached(&r->plan[p]);
}

/* NOT_CHECKED when one of the probes of need was not attached; says which. */
static bool need(const struct kw_recording *r, struct kw_finding *fd, kw_probe_mask need)
{
	for (int p = 0; p < KW_NR_PROBES; p++) {
		if (!(need & KW_PROBE_BIT(p)) || attached(r, p))
			continue;
		fd->status = KW_FS_NOT_CHECKED;
		/* KW_MECH_NONE: a recording older than the probe */
		snprintf(fd->why, sizeof(fd->why), "%s %s", kw_probes[p].name,
			 r->plan[p].mech == KW_MECH_NONE ? "not in this recording" : "not attached");
		return false;
	}
	return true;
}

static void num(struct kw_finding *fd, const char *name, __u64 v)
{
	if (fd->nnums < KW_FINDING_NUMS)
		fd->nums[fd->nnums++] = (struct kw_finding_num){ .name = name, .u = v };
}

static void num_real(struct kw_finding *fd, const char *name, double v)
{
	if (fd->nnums < KW_FINDING_NUMS)
		fd->nums[fd->nnums++] =
			(struct kw_finding_num){ .name = name, .d = v, .real = true };
}

/* A number that a probe which was not attached would have given. */
static void num_null(struct kw_finding *fd, const char *name)
{
	if (fd->nnums < KW_FINDING_NUMS)
		fd->nums[fd->nnums++] = (struct kw_finding_num){ .name = name, .null = true };
}

/* The files of each bundled series under patches/, in the order they apply. */
static const char *const series_files[][3] = {
	{ "patches/arm64-unmap-tlbi-only-if-unmapped",
	  "0001-KVM-arm64-Only-invalidate-the-unmapped-range-when-a-.patch" },
	{ "patches/arm64-split-skip-level3",
	  "0001-KVM-arm64-Add-walk-flags-to-skip-a-level-and-everyth.patch",
	  "0002-KVM-arm64-Don-t-visit-level-3-entries-when-splitting.patch" },
	{ "patches/x86-tdp-zap-empty-hint",
	  "0001-KVM-x86-mmu-Let-a-TDP-iterator-step-over-the-childre.patch",
	  "0002-KVM-x86-mmu-Don-t-walk-4K-page-tables-a-full-range-z.patch" },
	{ "patches/arm64-teardown-skip-empty",
	  "0001-KVM-arm64-Don-t-walk-the-empty-top-level-entries-whe.patch" },
};

static const char *const *patch_files(const char *series)
{
	for (size_t i = 0; i < sizeof(series_files) / sizeof(series_files[0]); i++)
		if (series && !strcmp(series_files[i][0], series))
			return &series_files[i][1];
	return NULL;
}

/* The share as the text prints it; "-" when there is nothing to share. */
static void fmt_share(char *buf, size_t len, double share, __u64 whole)
{
	if (whole)
		snprintf(buf, len, "%.1f%%", 100 * share);
	else
		snprintf(buf, len, "-");
}

/* ---- arm64: range TLB flushes issued by unmaps that cleared nothing ------------------------- */

/* Whether a range TLB flush probe was attached; if not, @fd is "not checked" with the reason. */
static bool flush_probe(const struct kw_recording *r, struct kw_finding *fd)
{
	if (attached(r, KW_P_TLB_FLUSH_RANGE) || attached(r, KW_P_HYP_FLUSH_RANGE))
		return true;
	fd->status = KW_FS_NOT_CHECKED;
	snprintf(fd->why, sizeof(fd->why), "no range TLB flush probe attached (%s, %s)",
		 kw_probes[KW_P_TLB_FLUSH_RANGE].name, kw_probes[KW_P_HYP_FLUSH_RANGE].name);
	return false;
}

static void empty_flushes(const struct kw_recording *r, struct kw_finding *fd)
{
	const __u64 *c = r->counters;
	__u64 unmap_ns = r->funcs[KW_P_S2_UNMAP].dur.sum;
	char t[16], s[16];

	/* the unmap walker's visits are what say a leaf was cleared */
	fd->count = c[KW_C_EMPTY_FLUSHES];
	fd->timed = true;
	fd->ns = c[KW_C_EMPTY_FLUSH_NS];
	fd->share = kw_ratio(fd->ns, unmap_ns);
	num(fd, "empty_flushes", fd->count);
	num(fd, "empty_flush_ns", fd->ns);
	num(fd, "unmap_ns", unmap_ns);
	num(fd, "unmap_calls", c[KW_C_UNMAP_CALLS]);
	num(fd, "empty_unmap_calls", c[KW_C_UNMAP_EMPTY]);
	num(fd, "flushes_in_unmaps", c[KW_C_UNMAP_FLUSHES]);
	if (!fd->count) {
		fd->status = KW_FS_NONE;
		snprintf(fd->why, sizeof(fd->why),
			 "0 of %s range %s in %s unmap %s came from an unmap that cleared no "
			 "leaf",
			 KW_EXACT(c[KW_C_UNMAP_FLUSHES]),
			 c[KW_C_UNMAP_FLUSHES] == 1 ? "flush" : "flushes",
			 KW_EXACT(c[KW_C_UNMAP_CALLS]),
			 c[KW_C_UNMAP_CALLS] == 1 ? "call" : "calls");
		return;
	}
	fd->status = KW_FS_FOUND;
	kw_fmt_ns(t, sizeof(t), fd->ns);
	fmt_share(s, sizeof(s), fd->share, unmap_ns);
	snprintf(fd->headline, sizeof(fd->headline), "%s flushes, %s, %s of unmap time",
		 KW_EXACT(fd->count), t, s);
	snprintf(fd->detail, sizeof(fd->detail),
		 "%s of %s unmap calls cleared none and issued %s of the %s range flushes "
		 "in unmaps.",
		 KW_EXACT(c[KW_C_UNMAP_EMPTY]), KW_EXACT(c[KW_C_UNMAP_CALLS]),
		 KW_EXACT(fd->count), KW_EXACT(c[KW_C_UNMAP_FLUSHES]));
}

/* ---- arm64 NV: nested unmaps flushing empty nested MMUs ------------------------------------ */

/*
 * kvm_nested_s2_unmap() unmaps [0, IPA limit) of every valid nested MMU in 1 GiB
 * kvm_pgtable_stage2_unmap calls, each ending in a range flush. Only where kvm_nested_s2_unmap
 * was attached: elsewhere (a kernel without it, an older recording) the finding is left out,
 * as it concerns only hosts in kvm-arm.mode=nested. Its flushes are also in the empty range
 * TLB flushes above: this one says how many of those the nested unmaps made.
 */
static void nested_empty(const struct kw_recording *r, struct kw_finding *fd)
{
	const __u64 *c = r->counters;
	__u64 n = c[KW_C_NESTED_ACTIVE], ns = c[KW_C_NESTED_ACTIVE_NS];
	char t[16], s[16], each[16];

	fd->count = c[KW_C_NESTED_EMPTY_FLUSHES];
	fd->timed = true;
	fd->ns = c[KW_C_NESTED_EMPTY_FLUSH_NS];
	fd->share = kw_ratio(fd->ns, ns);
	num(fd, "nested_empty_flushes", fd->count);
	num(fd, "nested_empty_flush_ns", fd->ns);
	num(fd, "nested_unmaps", n);
	num(fd, "nested_unmap_ns", ns);
	num(fd, "nested_unmap_calls", r->funcs[KW_P_NESTED_UNMAP].calls);
	num(fd, "unmap_calls", c[KW_C_NESTED_UNMAPS]);
	num(fd, "empty_unmap_calls", c[KW_C_NESTED_EMPTY]);
	num(fd, "flushes", c[KW_C_NESTED_FLUSHES]);
	num(fd, "leaves_cleared", c[KW_C_NESTED_CLEARED]);
	num_real(fd, "empty_flushes_per_nested_unmap", kw_ratio(fd->count, n));
	if (!fd->count) {
		fd->status = KW_FS_NONE;
		if (!n)
			snprintf(fd->why, sizeof(fd->why),
				 "%s kvm_nested_s2_unmap %s, none with a valid nested MMU",
				 KW_EXACT(r->funcs[KW_P_NESTED_UNMAP].calls),
				 r->funcs[KW_P_NESTED_UNMAP].calls == 1 ? "call" : "calls");
		else
			snprintf(fd->why, sizeof(fd->why),
				 "0 of %s range flushes in %s nested %s came from an unmap call "
				 "that cleared no leaf",
				 KW_EXACT(c[KW_C_NESTED_FLUSHES]), KW_EXACT(n),
				 n == 1 ? "unmap" : "unmaps");
		return;
	}
	fd->status = KW_FS_FOUND;
	kw_fmt_ns(t, sizeof(t), fd->ns);
	kw_fmt_ns(each, sizeof(each), kw_ratio(ns, n));
	fmt_share(s, sizeof(s), fd->share, ns);
	snprintf(fd->headline, sizeof(fd->headline),
		 "%s flushes in %s nested %s, %s, %s of nested unmap time",
		 KW_EXACT(fd->count), KW_EXACT(n), n == 1 ? "unmap" : "unmaps",
		 t, s);
	snprintf(fd->detail, sizeof(fd->detail),
		 "%s nested %s (of %s kvm_nested_s2_unmap %s; %s each) made %s "
		 "unmap calls, %s per nested unmap; %s of them cleared none and issued %s of "
		 "their %s range flushes, %s per nested unmap (%s %s cleared in all). "
		 "These flushes are among the empty range TLB flushes above.",
		 KW_EXACT(n), n == 1 ? "unmap" : "unmaps",
		 KW_EXACT(r->funcs[KW_P_NESTED_UNMAP].calls),
		 r->funcs[KW_P_NESTED_UNMAP].calls == 1 ? "call" : "calls", each,
		 KW_EXACT(c[KW_C_NESTED_UNMAPS]), KW_EXACT(kw_ratio(c[KW_C_NESTED_UNMAPS], n)),
		 KW_EXACT(c[KW_C_NESTED_EMPTY]), KW_EXACT(fd->count),
		 KW_EXACT(c[KW_C_NESTED_FLUSHES]), KW_EXACT(kw_ratio(fd->count, n)),
		 KW_EXACT(c[KW_C_NESTED_CLEARED]),
		 c[KW_C_NESTED_CLEARED] == 1 ? "leaf" : "leaves");
}

/* ---- arm64: split-walker visits at level 3 -------------------------------------------------- */

static void split_level3(const struct kw_recording *r, struct kw_finding *fd)
{
	__u64 l3 = r->visits[KW_VISIT_IDX(KW_W_SPLIT, 3 + 1, KW_O_NOTHING)], blocks = 0, all = 0;
	__u64 walks = 0, walk_ns = 0;
	char t[16], s[16], per[32];

	for (int l = 0; l < KW_NR_LEVELS; l++) {
		for (int o = 0; o < KW_NR_OUTCOMES; o++)
			all += r->visits[KW_VISIT_IDX(KW_W_SPLIT, l, o)];
		blocks += r->visits[KW_VISIT_IDX(KW_W_SPLIT, l, KW_O_SPLIT)];
	}
	for (size_t i = 0; i < r->ncbs; i++)
		if (!strcmp(r->cbs[i].sym, "stage2_split_walker") && !r->cbs[i].depth) {
			walks += r->cbs[i].calls;
			walk_ns += r->cbs[i].ns;
		}
	fd->count = l3;
	fd->share = kw_ratio(l3, all);
	num(fd, "level3_visits", l3);
	num(fd, "visits", all);
	num(fd, "blocks_split", blocks);
	num_real(fd, "level3_visits_per_block", kw_ratio(l3, blocks));
	num(fd, "split_walks", walks);
	num(fd, "split_walk_ns", walk_ns);
	if (!l3) {
		fd->status = KW_FS_NONE;
		snprintf(fd->why, sizeof(fd->why), "0 level-3 visits in %s split-walker visits",
			 KW_EXACT(all));
		return;
	}
	fd->status = KW_FS_FOUND;
	fmt_share(s, sizeof(s), fd->share, all);
	if (blocks)
		snprintf(per, sizeof(per), "%s per block split", KW_EXACT(kw_ratio(l3, blocks)));
	else
		snprintf(per, sizeof(per), "no block split");
	snprintf(fd->headline, sizeof(fd->headline), "%s visits, %s, %s of split-walker visits",
		 KW_EXACT(l3), per, s);
	kw_fmt_ns(t, sizeof(t), walk_ns);
	snprintf(fd->detail, sizeof(fd->detail),
		 "%s of the %s split-walker visits were at level 3, for %s blocks split; the "
		 "%s split walks took %s in all (visits are not timed one by one).",
		 KW_EXACT(l3), KW_EXACT(all), KW_EXACT(blocks),
		 KW_EXACT(walks), t);
}

/* ---- x86: zaps that zapped nothing but still walked 4K entries ------------------------------- */

static void empty_zaps(const struct kw_recording *r, struct kw_finding *fd)
{
	const __u64 *c = r->counters;
	const struct kw_func *z = &r->funcs[KW_P_TDP_ZAP_LEAFS];
	__u64 zaps = c[KW_C_ZAP_CALLS], empty = c[KW_C_ZAP_EMPTY];
	__u64 visits = c[KW_C_ZAP_EMPTY_VISITS_4K], ns = c[KW_C_ZAP_EMPTY_NS], zap_ns = z->dur.sum;
	const char *how = "";
	char t[16], s[16];

	if (!zaps && z->calls) {
		/*
		 * A recording from before the per-zap counters: only a total of 0 leaves zapped
		 * proves each zap empty (then every 4K visit was one of theirs).
		 */
		if (c[KW_C_ZAP_ZAPPED]) {
			fd->status = KW_FS_NOT_CHECKED;
			snprintf(fd->why, sizeof(fd->why),
				 "leaves zapped per zap not recorded (the recording predates "
				 "zap_empty_calls)");
			return;
		}
		zaps = empty = z->dur.count;
		visits = c[KW_C_ZAP_VISITS_4K];
		ns = zap_ns;
		how = " (from the totals: this recording predates the per-zap counters, and no zap "
		      "zapped a leaf)";
	}
	fd->count = empty;
	fd->timed = true;
	fd->ns = ns;
	fd->share = kw_ratio(ns, zap_ns);
	num(fd, "empty_zaps", empty);
	num(fd, "empty_zap_4k_visits", visits);
	num_real(fd, "visits_4k_per_empty_zap", kw_ratio(visits, empty));
	num(fd, "empty_zap_ns", ns);
	num(fd, "zap_ns", zap_ns);
	num(fd, "zaps", zaps);
	num(fd, "leaves_zapped", c[KW_C_ZAP_ZAPPED]);
	if (!empty || !visits) {
		fd->status = KW_FS_NONE;
		snprintf(fd->why, sizeof(fd->why),
			 "%s of %s zaps zapped no leaf, visiting %s 4K entries",
			 KW_EXACT(empty), KW_EXACT(zaps),
			 KW_EXACT(visits));
		return;
	}
	fd->status = KW_FS_FOUND;
	kw_fmt_ns(t, sizeof(t), ns);
	fmt_share(s, sizeof(s), fd->share, zap_ns);
	snprintf(fd->headline, sizeof(fd->headline),
		 "%s zaps, %s 4K visits, %s, %s of zap time", KW_EXACT(empty),
		 KW_EXACT(visits), t, s);
	snprintf(fd->detail, sizeof(fd->detail),
		 "%s of %s zaps were empty and still visited %s 4K entries (tdp_iter_next), "
		 "%s per empty zap%s.",
		 KW_EXACT(empty), KW_EXACT(zaps), KW_EXACT(visits),
		 KW_EXACT(kw_ratio(visits, empty)), how);
}

/* ---- arm64: VM teardown in many large walks ------------------------------------------------- */

static void teardown(const struct kw_recording *r, struct kw_finding *fd)
{
	const struct kw_func *w = &r->funcs[KW_P_PGT_WALK];
	__u64 walks = 0, bytes = 0, ns = 0, outer_ns = 0, td_walks = 0, td_ns = 0, vms = 0;
	bool have_vms = attached(r, KW_P_MM_RELEASE), each;
	char t[16], s[16], td[16], b[24], m[24], vm[112], trig[80] = "";

	for (size_t i = 0; i < r->ncbs; i++) {
		if (r->cbs[i].depth)
			continue;
		outer_ns += r->cbs[i].ns;
		if (strcmp(r->cbs[i].sym, "stage2_free_walker"))
			continue;
		walks += r->cbs[i].calls;
		bytes += r->cbs[i].bytes;
		ns += r->cbs[i].ns;
	}
	for (size_t i = 0; i < r->ntrigs; i++)
		if (r->trigs[i].probe == KW_P_PGT_WALK && r->trigs[i].trigger == KW_T_TEARDOWN) {
			td_walks += r->trigs[i].calls;
			td_ns += r->trigs[i].ns;
		}
	/* each VM's MMU notifier is released once: at its destruction or its process's exit */
	if (have_vms)
		vms = r->funcs[KW_P_MM_RELEASE].calls;
	fd->count = walks;
	fd->timed = true;
	fd->ns = ns;
	fd->share = kw_ratio(ns, outer_ns);
	num(fd, "walks", walks);
	num(fd, "bytes", bytes);
	num(fd, "walk_ns", ns);
	num(fd, "outermost_walk_ns", outer_ns);
	if (have_vms) {
		num(fd, "vms_torn_down", vms);
		num_real(fd, "walks_per_vm", kw_ratio(walks, vms));
	} else {
		num_null(fd, "vms_torn_down");
		num_null(fd, "walks_per_vm");
	}
	num(fd, "vm_teardown_walks", td_walks);
	num(fd, "vm_teardown_walk_ns", td_ns);
	kw_fmt_bytes(m, sizeof(m), walks ? bytes / walks : 0);
	if (!walks || bytes < walks * GIB || walks <= (have_vms ? vms : 1)) {
		fd->status = KW_FS_NONE;
		if (!walks)
			snprintf(fd->why, sizeof(fd->why), "no stage2_free_walker walk");
		else if (have_vms)
			snprintf(fd->why, sizeof(fd->why),
				 "%s stage2_free_walker %s of %s on average for %s %s torn "
				 "down",
				 KW_EXACT(walks), walks == 1 ? "walk" : "walks", m,
				 KW_EXACT(vms), vms == 1 ? "VM" : "VMs");
		else
			snprintf(fd->why, sizeof(fd->why),
				 "%s stage2_free_walker %s of %s on average",
				 KW_EXACT(walks), walks == 1 ? "walk" : "walks", m);
		return;
	}
	fd->status = KW_FS_FOUND;
	/* no walk is larger than kvm_pgtable_walk's largest: a mean equal to it is every walk */
	each = w->size.count && w->size.max == bytes / walks && !(bytes % walks);
	kw_fmt_ns(t, sizeof(t), ns);
	kw_fmt_ns(td, sizeof(td), td_ns);
	fmt_share(s, sizeof(s), fd->share, outer_ns);
	kw_fmt_bytes(b, sizeof(b), bytes);
	snprintf(fd->headline, sizeof(fd->headline), "%s walks, %s, %s, %s of walk time",
		 KW_EXACT(walks), b, t, s);
	if (have_vms)
		snprintf(vm, sizeof(vm), ", for %s %s torn down (kvm_mmu_notifier_release calls): "
			 "%s walks per VM",
			 KW_EXACT(vms), vms == 1 ? "VM" : "VMs", KW_EXACT(kw_ratio(walks, vms)));
	else
		snprintf(vm, sizeof(vm), "; VMs torn down not counted (%s %s)",
			 kw_probes[KW_P_MM_RELEASE].name,
			 r->plan[KW_P_MM_RELEASE].mech == KW_MECH_NONE ? "not in this recording"
								       : "not attached");
	/* the vm_teardown trigger is from December 2026; before, these walks were "other" */
	if (td_walks)
		snprintf(trig, sizeof(trig), " %s walks (%s) ran in the vm_teardown trigger.",
			 KW_EXACT(td_walks), td);
	snprintf(fd->detail, sizeof(fd->detail),
		 "%s outermost kvm_pgtable_walk calls with the stage2_free_walker callback "
		 "walked %s, %s %s%s.%s Whether a walk found a table to free is not recorded: "
		 "stage2_free_walker has no visit probe.",
		 KW_EXACT(walks), b, m, each ? "each" : "on average", vm, trig);
}

/* ---- the findings, as a table ------------------------------------------------------------ */

#define BIT(p) KW_PROBE_BIT(KW_P_##p)

/*
 * Each finding: the waste it names and the rule that makes it one, what it needs to have been
 * attached (a probe that was off counts 0, which would read as "nothing wasted"), the bundled
 * series that removes it, and the function that computes it from the recording's counters,
 * visits, walk callbacks and trigger rows (status, count, time, share, text and numbers).
 * Adding a finding: its enum kw_finding_kind, an entry here and its function above.
 */
static const struct finding_def {
	enum kw_finding_kind kind;
	const char *arch;
	const char *key, *title, *rule, *unit, *share_of;
	kw_probe_mask need; /* each attached, else "not checked" */
	bool need_flush;    /* and a range TLB flush probe */
	int only_with;	    /* KW_PREF()-style probe + 1: the finding exists only where it attached */
	const char *patch, *patch_does; /* what removes it, or NULL */
	void (*compute)(const struct kw_recording *r, struct kw_finding *fd);
} finding_defs[] = {
	{
		.kind = KW_F_EMPTY_FLUSHES,
		.arch = "arm64",
		.key = "empty_flushes",
		.title = "Empty range TLB flushes",
		.rule = "A flush is empty when the kvm_pgtable_stage2_unmap call that issued it "
			"cleared 0 valid leaves (stage2_unmap_walker).",
		.unit = "flushes",
		.share_of = "of unmap time",
		/* the unmap walker's visits are what say a leaf was cleared */
		.need = BIT(S2_UNMAP) | BIT(UNMAP_WALKER),
		.need_flush = true,
		.patch = "patches/arm64-unmap-tlbi-only-if-unmapped",
		.patch_does = "kvm_pgtable_stage2_unmap issues its deferred range flush only when "
			      "its walk cleared a leaf",
		.compute = empty_flushes,
	},
	{
		.kind = KW_F_NESTED_EMPTY,
		.arch = "arm64",
		.key = "nested_empty_flushes",
		.title = "Nested unmaps flushing empty nested MMUs",
		.rule = "A flush inside kvm_nested_s2_unmap is empty when the "
			"kvm_pgtable_stage2_unmap call that issued it (one per 1GiB of a valid "
			"nested MMU) cleared 0 valid leaves; shown when there is at least one.",
		.unit = "flushes",
		.share_of = "of nested unmap time",
		.need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP) | BIT(UNMAP_WALKER),
		.need_flush = true,
		.only_with = KW_P_NESTED_UNMAP + 1,
		.patch = "patches/arm64-unmap-tlbi-only-if-unmapped",
		.patch_does = "kvm_pgtable_stage2_unmap, which the nested unmap calls for each "
			      "1GiB, issues its deferred range flush only when its walk cleared a "
			      "leaf",
		.compute = nested_empty,
	},
	{
		.kind = KW_F_SPLIT_LEVEL3,
		.arch = "arm64",
		.key = "split_level3_visits",
		.title = "Split visits that split nothing",
		.rule = "A level-3 visit never splits: stage2_split_walker returns at once there, "
			"no block exists at the last level.",
		.unit = "visits",
		.share_of = "of split-walker visits",
		.need = BIT(SPLIT_WALKER),
		.patch = "patches/arm64-split-skip-level3",
		.patch_does = "the split walk skips level 3 (KVM_PGTABLE_WALK_SKIP_L3), so these "
			      "visits are 0",
		.compute = split_level3,
	},
	{
		.kind = KW_F_TEARDOWN,
		.arch = "arm64",
		.key = "teardown_walks",
		.title = "VM teardown in many large walks",
		.rule = "A walk is large when it covers 1GiB or more; shown when the "
			"stage2_free_walker walks are large and more than one per VM torn down.",
		.unit = "walks",
		.share_of = "of walk time",
		.need = BIT(PGT_WALK),
		.patch = "patches/arm64-teardown-skip-empty",
		.patch_does = "the teardown steps over the empty top-level entries of the IPA "
			      "space instead of walking them 1GiB at a time, so a VM makes one "
			      "walk per populated 1GiB",
		.compute = teardown,
	},
	{
		.kind = KW_F_EMPTY_ZAPS,
		.arch = "x86",
		.key = "empty_zaps",
		.title = "TDP zaps that zapped nothing",
		.rule = "A zap is empty when tdp_mmu_zap_leafs made 0 present leaf SPTEs "
			"non-present (kvm_tdp_mmu_spte_changed).",
		.unit = "zaps",
		.share_of = "of zap time",
		.need = BIT(TDP_ZAP_LEAFS) | BIT(SPTE_CHANGED) | BIT(TDP_ITER_NEXT),
		.patch = "patches/x86-tdp-zap-empty-hint",
		.patch_does = "a zap steps over a 4K table that an earlier zap of its whole 2MiB "
			      "left empty; which of these visits were in such tables is not "
			      "recorded",
		.compute = empty_zaps,
	},
};

void kw_findings_compute(const struct kw_recording *r, struct kw_findings *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < sizeof(finding_defs) / sizeof(finding_defs[0]); i++) {
		const struct finding_def *d = &finding_defs[i];
		struct kw_finding *fd = &out->f[out->n];

		if (strcmp(r->meta.arch, d->arch) || (d->only_with && !attached(r, d->only_with - 1)))
			continue;
		out->n++;
		fd->kind = d->kind;
		fd->key = d->key;
		fd->title = d->title;
		fd->rule = d->rule;
		fd->unit = d->unit;
		if (!need(r, fd, d->need) || (d->need_flush && !flush_probe(r, fd)))
			continue;
		fd->share_of = d->share_of;
		d->compute(r, fd);
		if (fd->status == KW_FS_FOUND) {
			fd->patch = d->patch;
			fd->patch_does = d->patch_does;
		}
	}
}

/* ---- text ------------------------------------------------------------------------------------ */

/* Words of text from column col, continued at column indent, wrapped before column 79. */
static void wrap(FILE *f, int indent, int col, const char *text)
{
	bool first = true;

	while (*text) {
		int n = strcspn(text, " ");

		if (!first && col + n + 1 > 78) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		col += fprintf(f, "%s%.*s", first ? "" : " ", n, text);
		first = false;
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

void kw_findings_print(FILE *f, const struct kw_findings *fs)
{
	char line[2048];
	int found = 0, col;

	fprintf(f, "\nFindings: waste this recording proves, and the patches/ change that "
		   "removes it\n");
	for (int i = 0; i < fs->n; i++) {
		const struct kw_finding *fd = &fs->f[i];

		if (fd->status != KW_FS_FOUND)
			continue;
		found++;
		col = fprintf(f, "  %d. ", found);
		snprintf(line, sizeof(line), "%s: %s", fd->title, fd->headline);
		wrap(f, col, col, line);
		snprintf(line, sizeof(line), "%s %s", fd->rule, fd->detail);
		fprintf(f, "%*s", col, "");
		wrap(f, col, col, line);
		if (fd->patch) {
			const char *const *pf = patch_files(fd->patch);
			int n = pf ? 1 + (pf[1] != NULL) : 0;

			snprintf(line, sizeof(line), "Removed by %s/ (%d %s): %s.", fd->patch, n,
				 n == 1 ? "patch" : "patches", fd->patch_does);
		}
		else
			snprintf(line, sizeof(line), "No change in patches/ removes it.");
		fprintf(f, "%*s", col, "");
		wrap(f, col, col, line);
	}
	if (!found)
		fprintf(f, "  none found\n");
	/* what was checked and came out clean, with the rule it was checked against */
	for (int i = 0; i < fs->n; i++) {
		const struct kw_finding *fd = &fs->f[i];

		if (fd->status != KW_FS_NONE)
			continue;
		snprintf(line, sizeof(line), "- %s: none found: %s. %s", fd->title, fd->why,
			 fd->rule);
		fprintf(f, "  ");
		wrap(f, 4, 2, line);
	}
	for (int i = 0; i < fs->n; i++) {
		const struct kw_finding *fd = &fs->f[i];

		if (fd->status != KW_FS_NOT_CHECKED)
			continue;
		snprintf(line, sizeof(line), "- %s: not checked: %s.", fd->title, fd->why);
		fprintf(f, "  ");
		wrap(f, 4, 2, line);
	}
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static const char *const status_names[] = {
	[KW_FS_NOT_CHECKED] = "not_checked",
	[KW_FS_NONE] = "none",
	[KW_FS_FOUND] = "found",
};

json_t *kw_findings_json(const struct kw_findings *fs)
{
	json_t *a = json_array();

	for (int i = 0; i < fs->n; i++) {
		const struct kw_finding *fd = &fs->f[i];
		json_t *o = json_pack("{ssssssss}", "kind", fd->key, "status",
				      status_names[fd->status], "title", fd->title, "rule",
				      fd->rule);

		if (fd->status == KW_FS_NOT_CHECKED) {
			/* no numbers from a probe that was not attached */
			json_object_set_new(o, "reason", json_string(fd->why));
			json_array_append_new(a, o);
			continue;
		}
		json_object_set_new(o, "count", json_integer((json_int_t)fd->count));
		json_object_set_new(o, "unit", json_string(fd->unit));
		json_object_set_new(o, "ns",
				    fd->timed ? json_integer((json_int_t)fd->ns) : json_null());
		json_object_set_new(o, "share", json_real(fd->share));
		json_object_set_new(o, "share_of", json_string(fd->share_of));
		for (int k = 0; k < fd->nnums; k++) {
			const struct kw_finding_num *n = &fd->nums[k];

			json_object_set_new(o, n->name,
					    n->null   ? json_null()
					    : n->real ? json_real(n->d)
						      : json_integer((json_int_t)n->u));
		}
		if (fd->status == KW_FS_NONE)
			json_object_set_new(o, "checked", json_string(fd->why));
		else
			json_object_set_new(o, "text", json_string(fd->detail));
		json_object_set_new(o, "patch", fd->patch ? json_string(fd->patch) : json_null());
		if (fd->patch) {
			const char *const *pf = patch_files(fd->patch);
			json_t *files = json_array();

			for (int k = 0; pf && k < 2 && pf[k]; k++)
				json_array_append_new(files, json_string(pf[k]));
			json_object_set_new(o, "patch_files", files);
			json_object_set_new(o, "patch_does", json_string(fd->patch_does));
		}
		json_array_append_new(a, o);
	}
	return a;
}
