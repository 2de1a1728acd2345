// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "compare.h"

#define RUNS 5

/*
 * An arm64 A/B of the deferred-flush change: run i of base makes 262144 empty unmaps whose time
 * the change cuts to 0.53x and whose flushes it removes; the walk itself is unchanged.
 */
static void fill(struct kw_recording *r, int run, bool patched)
{
	struct kw_func *unmap = &r->funcs[KW_P_S2_UNMAP], *walk = &r->funcs[KW_P_PGT_WALK];
	__u64 i, calls = 262144 + run * 3;

	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "%s",
		 patched ? "7.3.4-kw-deferred-flush" : "7.3.4+deb13-arm64");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "arm64");
	unmap->calls = calls;
	walk->calls = 1000 + run;
	for (i = 0; i < 2000; i++) {
		__u64 ns = 3000 + (i * 7919 + run * 101) % 1000;

		kw_hist_add(&unmap->dur, patched ? ns * 53 / 100 : ns);
		kw_hist_add(&walk->dur, 500 + (i * 31 + run * 7) % 100);
	}
	r->counters[KW_C_UNMAP_CALLS] = calls;
	/* every unmap clears nothing (an empty flush needs an unmap that cleared no leaf) */
	r->counters[KW_C_UNMAP_EMPTY] = calls;
	r->counters[KW_C_EMPTY_FLUSHES] = patched ? 0 : calls;
	r->counters[KW_C_UNMAP_FLUSHES] = patched ? 0 : calls;
}

static bool check_width(const char *buf, int cols, const char *what)
{
	int col = 0;

	for (; *buf; buf++) {
		if (!ASSERT_TRUE(*buf != '\t', what))
			return false;
		col = *buf == '\n' ? 0 : col + 1;
		if (!ASSERT_TRUE(col <= cols, what))
			return false;
	}
	return true;
}

/* A count or a time falls by at most 100 %: no interval reaches below (kvm_stats can be < 0). */
static void check_bounds(const struct kw_compare *c)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kw_change *ch = &c->rows[i].change;

		if (strcmp(c->rows[i].group, "kvm_stats") && ch->has_interval &&
		    !ASSERT_TRUE(ch->ci_low_pct >= -100 && ch->shift_pct >= -100,
				 c->rows[i].metric))
			return;
	}
	for (size_t i = 0; i < c->nsections; i++)
		for (size_t j = 0; j < c->sections[i].nlines; j++) {
			const struct kw_change *ch = &c->sections[i].lines[j].change;

			if (ch->has_interval &&
			    !ASSERT_TRUE(ch->ci_low_pct >= -100, c->sections[i].lines[j].what))
				return;
		}
}

/*
 * Every row of the text is named whole, once in its group: no two rows read alike however long
 * their names (nested_unmap_empty_flushes and nested_unmap_empty_flush_ns were both cut to
 * "nested_unmap_empty_fl").
 */
static void check_names(const struct kw_compare *c, const char *text)
{
	for (size_t i = 0; i < c->nrows; i++) {
		const char *m = c->rows[i].metric, *p = text;
		bool whole = false;

		/* the name, then the end of its line or a space: not the start of a longer one */
		while (!whole && (p = strstr(p, m))) {
			p += strlen(m);
			whole = *p == '\n' || *p == ' ';
		}
		if (!ASSERT_TRUE(whole, m))
			return;
		for (size_t j = i + 1; j < c->nrows && !strcmp(c->rows[j].group, c->rows[i].group);
		     j++)
			if (!ASSERT_TRUE(strcmp(c->rows[j].metric, m), "one row per name"))
				return;
	}
}

static void print_all(const struct kw_compare *c, const char *name)
{
	static const char *const ext[] = { "txt", "md", "json" };
	char golden[64];
	int fmt;

	check_bounds(c);

	for (fmt = KW_COMPARE_TEXT; fmt <= KW_COMPARE_JSON; fmt++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!ASSERT_TRUE(f, "open_memstream"))
			return;
		ASSERT_EQ(kw_compare_print(f, c, fmt), 0, "print");
		fclose(f);
		if (fmt == KW_COMPARE_TEXT) {
			check_width(out, 72, "text: 72 columns, no tabs");
			check_names(c, out);
		}
		snprintf(golden, sizeof(golden), "compare-%s.%s", name, ext[fmt]);
		ASSERT_GOLDEN(out, len, golden);
		free(out);
	}
}

static void compare_recordings(void);
static const char *warning_of(const struct kw_compare *c, const char *start);

void test_compare(void)
{
	struct kw_recording *base = calloc(RUNS, sizeof(*base)), *new = calloc(RUNS, sizeof(*new));
	struct kw_compare_opts opts = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = { 0 };
	const struct kw_compare_row *r;
	size_t i;

	if (!ASSERT_TRUE(base && new, "calloc"))
		goto out;
	for (i = 0; i < RUNS; i++) {
		fill(&base[i], i, false);
		fill(&new[i], i, true);
	}
	if (!ASSERT_EQ(kw_compare_build(&c, base, RUNS, new, RUNS, &opts), 0, "build"))
		goto out;
	/*
	 * walk: calls, median, p90, p99, p99.9, mean; unmap: the same, flushes/unmap, empty
	 * unmaps/run, empty flushes/run
	 */
	if (!ASSERT_EQ(c.nrows, 15, "rows"))
		goto out;
	r = &c.rows[0];
	ASSERT_STREQ(r->group, "kvm_pgtable_walk", "first group");
	ASSERT_STREQ(r->metric, "calls/run", "first metric");
	ASSERT_FALSE(r->change.significant, "walk calls unchanged");
	for (i = 0; i < c.nrows; i++) {
		r = &c.rows[i];
		if (!strcmp(r->group, "kvm_pgtable_stage2_unmap") && !strcmp(r->metric, "median")) {
			ASSERT_NEAR(r->change.delta_pct, -47, 0.5, "unmap p50 -47 %");
			ASSERT_TRUE(r->change.significant, "unmap p50 significant");
		}
		if (!strcmp(r->metric, "empty flushes/run")) {
			ASSERT_NEAR(r->change.delta_pct, -100, 0, "empty flushes gone");
			ASSERT_TRUE(r->change.significant, "empty flushes significant");
		}
	}
	print_all(&c, "5v5");
	kw_compare_free(&c);

	/* one run a side: medians and delta, no interval */
	if (!ASSERT_EQ(kw_compare_build(&c, base, 1, new, 1, &opts), 0, "build 1 vs 1"))
		goto out;
	for (i = 0; i < c.nrows; i++)
		if (!ASSERT_FALSE(c.rows[i].change.has_interval, "1 vs 1: no interval"))
			break;
	print_all(&c, "1v1");
	kw_compare_free(&c);

	ASSERT_EQ(kw_compare_build(&c, base, 0, new, 1, &opts), -EINVAL, "no base runs");
out:
	kw_compare_free(&c);
	kw_compare_free(NULL);
	free(base);
	free(new);
	compare_recordings();
}

#define FIX "fixtures/compare/"

static size_t load_side(const char *dir, size_t n, struct kw_recording *r, const char **paths)
{
	static char names[16][96];
	static size_t next;
	char err[512];

	for (size_t i = 0; i < n; i++) {
		snprintf(names[next % 16], sizeof(names[0]), FIX "%s/run%zu.json", dir, i + 1);
		paths[i] = names[next++ % 16];
	}
	if (!ASSERT_EQ(kw_compare_load(paths, n, r, NULL, NULL, err, sizeof(err)), 0, err))
		return 0;
	return n;
}

void kw_test_free_side(struct kw_recording *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		kw_recording_free(&r[i]);
}

const struct kw_compare_row *kw_test_row_of(const struct kw_compare *c, const char *g,
					    const char *m)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].group, g) && !strcmp(c->rows[i].metric, m))
			return &c->rows[i];
	return NULL;
}

static const struct kw_compare_line *line_of(const struct kw_compare *c, int change,
					     const char *what)
{
	for (size_t i = 0; i < c->nsections; i++)
		for (size_t j = 0;
		     (int)c->sections[i].change == change && j < c->sections[i].nlines; j++)
			if (!strcmp(c->sections[i].lines[j].what, what))
				return &c->sections[i].lines[j];
	return NULL;
}

const char *kw_test_svg_problem(const char *svg);

/*
 * The plot read at a glance (test_svg.c): every text inside the page and apart, none over the
 * bars, a y axis per panel; with the fixtures' kernel releases and with long ones, which the
 * title used to run off the page with.
 */
static void plot_readable(struct kw_recording *base, struct kw_recording *new,
			  const char *functions)
{
	char kernel[2][sizeof(base->meta.kernel)], *buf = NULL;
	const char *p;
	size_t len = 0;
	FILE *f;

	memcpy(kernel[0], base[0].meta.kernel, sizeof(kernel[0]));
	memcpy(kernel[1], new[0].meta.kernel, sizeof(kernel[1]));
	for (int pass = 0; pass < 3; pass++) {
		f = open_memstream(&buf, &len);
		if (!ASSERT_TRUE(f, "open_memstream"))
			break;
		if (pass) {
			snprintf(base[0].meta.kernel, sizeof(base[0].meta.kernel), "%s",
				 "7.3.4-kvmwalk-base-with-a-long-local-version-string+deb13-arm64");
			snprintf(new[0].meta.kernel, sizeof(new[0].meta.kernel), "%s",
				 "7.3.4-kvmwalk-patched-with-a-long-local-version+deb13-arm64");
		}
		/* the last pass: every timed function, not only the split */
		ASSERT_EQ(kw_compare_plot(f, base, 3, new, 3, pass == 2 ? NULL : functions), 0,
			  "plot");
		fclose(f);
		p = kw_test_svg_problem(buf);
		ASSERT_FALSE(p, p ?: "compare plot readable");
		free(buf);
		buf = NULL;
	}
	memcpy(base[0].meta.kernel, kernel[0], sizeof(kernel[0]));
	memcpy(new[0].meta.kernel, kernel[1], sizeof(kernel[1]));
}

/* Recordings of the compare-split vmtest case: 3 runs on 6.12 against 3 on 7.3 (arm64, VHE). */
static void test_compare_split(void)
{
	struct kw_recording base[3] = {}, new[3] = {};
	const char *bp[3], *np[3];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const struct kw_compare_row *r;
	const struct kw_compare_line *l;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!load_side("split-6.12", 3, base, bp) || !load_side("split-7.3", 3, new, np))
		goto out;
	o.base_paths = bp;
	o.new_paths = np;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build split"))
		goto out;
	r = kw_test_row_of(&c, "stage2_split_walker", "visits/block split");
	if (ASSERT_TRUE(r, "visits/block row")) {
		ASSERT_EQ(r->change.base_median, 513, "513 visits per block before");
		ASSERT_EQ(r->change.new_median, 513, "513 visits per block after");
	}
	r = kw_test_row_of(&c, "stage2_split_walker", "L3 visits/walk");
	if (ASSERT_TRUE(r, "L3 row"))
		ASSERT_EQ(r->change.base_median, 512, "512 level-3 visits per walk");
	r = kw_test_row_of(&c, "kvm_pgtable_stage2_split", "median");
	if (ASSERT_TRUE(r, "split median row"))
		ASSERT_NEAR(r->change.confidence, 0.9, 1e-9, "3 vs 3 reach 90 %");
	l = line_of(&c, KW_K_SKIP_LEVEL, "split visits that did nothing");
	if (ASSERT_TRUE(l, "did-nothing line"))
		ASSERT_EQ(l->change.base_median, 512, "512 did nothing per block");
	ASSERT_EQ(c.nsections, 1, "only the split section: no unmap, zap or fault");
	print_all(&c, "split");
	kw_compare_free(&c);

	/* --function and --metric, and the plot */
	o.functions = "kvm_pgtable_stage2_split,stage2_split_walker";
	o.metrics = "calls,p50,L3";
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build filtered"))
		goto out;
	ASSERT_EQ(c.nrows, 4, "split calls + median, walker calls + L3 visits/walk");
	ASSERT_TRUE(kw_test_row_of(&c, "kvm_pgtable_stage2_split", "median"), "p50 selects the median");
	kw_compare_free(&c);

	/* p99 and p99.9 select one row each; 3 runs a side give p99.9 its interval too */
	o.metrics = "p99.9";
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build p99.9"))
		goto out;
	ASSERT_EQ(c.nrows, 1, "only the split's p99.9 (the walker is not timed)");
	r = kw_test_row_of(&c, "kvm_pgtable_stage2_split", "p99.9");
	if (ASSERT_TRUE(r, "p99.9 row")) {
		ASSERT_TRUE(r->change.has_interval, "p99.9 interval");
		ASSERT_NEAR(r->change.confidence, 0.9, 1e-9, "p99.9: 3 vs 3 reach 90 %");
	}
	kw_compare_free(&c);
	o.metrics = "p99";
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build p99"))
		goto out;
	ASSERT_EQ(c.nrows, 1, "p99 is not p99.9");
	ASSERT_TRUE(kw_test_row_of(&c, "kvm_pgtable_stage2_split", "p99"), "p99 row");
	o.metrics = "calls,p50,L3";
	f = open_memstream(&out, &len);
	if (ASSERT_TRUE(f, "open_memstream")) {
		ASSERT_EQ(kw_compare_plot(f, base, 3, new, 3, o.functions), 0, "plot");
		fclose(f);
		ASSERT_GOLDEN(out, len, "compare-split.svg");
		plot_readable(base, new, o.functions);
	}
out:
	free(out);
	kw_compare_free(&c);
	kw_test_free_side(base, 3);
	kw_test_free_side(new, 3);
}

/* compare-empty-unmap: 3 runs in VHE against 3 in nVHE on 7.3. */
static void test_compare_empty_unmap(void)
{
	struct kw_recording base[3] = {}, new[3] = {};
	const char *bp[3], *np[3];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const struct kw_compare_line *l;
	bool mode = false, warned = false;

	if (!load_side("empty-unmap-vhe", 3, base, bp) ||
	    !load_side("empty-unmap-nvhe", 3, new, np))
		goto out;
	o.base_paths = bp;
	o.new_paths = np;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build empty-unmap"))
		goto out;
	l = line_of(&c, KW_K_DEFER_FLUSH, "flushes by unmaps that cleared nothing");
	if (ASSERT_TRUE(l, "empty-flush line")) {
		ASSERT_EQ(l->change.base_median, 265, "265 empty flushes in VHE");
		ASSERT_EQ(l->change.new_median, 265, "265 empty flushes in nVHE");
	}
	for (size_t i = 0; i < c.ndiffs; i++)
		mode |= !strcmp(c.diffs[i].what, "KVM mode") && !strcmp(c.diffs[i].base, "vhe") &&
			!strcmp(c.diffs[i].new, "nvhe");
	for (size_t i = 0; i < c.nwarnings; i++)
		warned |= !strcmp(c.warnings[i],
				  "measurement boundary changed: __kvm_tlb_flush_vmid_range: fentry "
				  "in base, unavailable (runs at EL2) in new: not measured in every "
				  "run: a count of 0 there means not measured");
	ASSERT_TRUE(mode, "KVM mode listed");
	ASSERT_TRUE(warned, "EL2 flush probe: measurement boundary changed");
	print_all(&c, "empty-unmap");
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 3);
	kw_test_free_side(new, 3);
}

/*
 * compare-nested-unmap: `make ab`'s nested-unmap recordings (docs/ab/nested-unmap.txt), 3 runs on
 * the base kernel against 3 on the patched one, nested host (kvm-arm.mode=nested, 48-bit IPA):
 * per run one valid nested MMU and 2 madvises, so 2 nested unmaps of 262,144 unmap calls; the
 * first clears the vEL1 code page's leaf. Base: a flush per call, 262,143.5 empty per nested unmap
 * (2 x 262,144 - 1 over 2); patched: only the call that cleared the leaf flushes.
 */
static void test_compare_nested_unmap(void)
{
	struct kw_recording base[3] = {}, new[3] = {};
	const char *bp[3], *np[3];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const struct kw_compare_line *l;

	if (!load_side("nested-unmap-base", 3, base, bp) ||
	    !load_side("nested-unmap-patched", 3, new, np))
		goto out;
	o.base_paths = bp;
	o.new_paths = np;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build nested-unmap"))
		goto out;
	l = line_of(&c, KW_K_NESTED_UNMAP, "nested unmaps");
	if (ASSERT_TRUE(l, "nested unmaps line")) {
		ASSERT_EQ(l->change.base_median, 2, "2 nested unmaps per base run");
		ASSERT_EQ(l->change.new_median, 2, "2 nested unmaps per patched run");
	}
	l = line_of(&c, KW_K_NESTED_UNMAP, "unmap calls");
	if (ASSERT_TRUE(l, "unmap calls line")) {
		ASSERT_EQ(l->change.base_median, 262144, "2^18 unmap calls per nested unmap");
		ASSERT_EQ(l->change.new_median, 262144, "unchanged by the series");
	}
	l = line_of(&c, KW_K_NESTED_UNMAP, "empty flushes");
	if (ASSERT_TRUE(l, "empty flushes line")) {
		ASSERT_EQ(l->change.base_median, 262143.5, "(2 x 262,144 - 1) / 2 empty flushes");
		ASSERT_EQ(l->change.new_median, 0, "none with the series");
	}
	l = line_of(&c, KW_K_NESTED_UNMAP, "flushes by unmaps that cleared a leaf");
	if (ASSERT_TRUE(l, "kept flushes line")) {
		ASSERT_EQ(l->change.base_median, 1, "the code page's flush, base");
		ASSERT_EQ(l->change.new_median, 1, "the code page's flush, kept");
	}
	l = line_of(&c, KW_K_NESTED_UNMAP, "time per nested unmap");
	if (ASSERT_TRUE(l, "time line"))
		ASSERT_TRUE(l->change.new_median < l->change.base_median, "nested unmaps faster");
	print_all(&c, "nested-unmap");
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 3);
	kw_test_free_side(new, 3);
}

/* Hand-made x86 A/B (fixtures/compare/make-x86.py): zap and fast-fault sections, mitigations. */
static void test_compare_x86(void)
{
	struct kw_recording base[2] = {}, new[2] = {};
	const char *bp[2], *np[2];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const struct kw_compare_line *l;

	if (!load_side("x86-base", 2, base, bp) || !load_side("x86-new", 2, new, np))
		goto out;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 2, new, 2, &o), 0, "build x86"))
		goto out;
	ASSERT_EQ(c.nsections, 2, "zap and fast-fault sections");
	l = line_of(&c, KW_K_EMPTY_LEAF, "4K entries visited");
	if (ASSERT_TRUE(l, "visited per zap")) {
		ASSERT_EQ(l->change.base_median, 512, "512 4K entries visited per zap before");
		ASSERT_EQ(l->change.new_median, 0, "none after: the emptied table is stepped over");
	}
	l = line_of(&c, KW_K_EMPTY_LEAF, "gfns in range");
	if (ASSERT_TRUE(l, "range per zap"))
		ASSERT_EQ(l->change.new_median, 512, "the range stays 512 gfns");
	l = line_of(&c, KW_K_FAST_PF, "outcome RET_PF_RETRY");
	if (ASSERT_TRUE(l, "retry outcome"))
		ASSERT_EQ(l->change.new_median, 40, "40 retries after");
	ASSERT_STREQ(c.diffs[1].what, "command line, mitigations (only here)", "mitigations diff");
	ASSERT_STREQ(c.diffs[1].new, "mitigations=off", "mitigations=off only in new");
	ASSERT_FALSE(kw_test_row_of(&c, "fast_page_fault", "median")->change.significant,
		     "2 vs 2 reach 67 %: never significant");
	print_all(&c, "x86");
	/*
	 * one run without tdp_iter_next (--no-visits): with what else it attached, a run of the
	 * cheap set, and the counts come from the full runs, which have the visits
	 */
	kw_compare_free(&c);
	memset(&c, 0, sizeof(c));
	new[1].plan[KW_P_TDP_ITER_NEXT].mech = KW_MECH_OFF;
	ASSERT_EQ(kw_run_kind(&new[1]), KW_RUN_CHEAP, "a run without tdp_iter_next: cheap");
	if (ASSERT_EQ(kw_compare_build(&c, base, 2, new, 2, &o), 0, "build x86, one without")) {
		l = line_of(&c, KW_K_EMPTY_LEAF, "4K entries visited");
		if (ASSERT_TRUE(l, "4K visits line from the full runs")) {
			ASSERT_EQ(l->runs.new, KW_RUN_FULL, "new: full runs");
			ASSERT_EQ(l->runs.n_new, 1, "new: the one full run");
			ASSERT_EQ(l->change.new_median, 0, "its visits");
		}
		ASSERT_TRUE(c.mixed, "two kinds: the rows say which runs");
	}
	/* every new run without it: no visits line rather than a wrong one */
	kw_compare_free(&c);
	memset(&c, 0, sizeof(c));
	new[0].plan[KW_P_TDP_ITER_NEXT].mech = KW_MECH_OFF;
	if (ASSERT_EQ(kw_compare_build(&c, base, 2, new, 2, &o), 0, "build x86 without visits")) {
		ASSERT_FALSE(line_of(&c, KW_K_EMPTY_LEAF, "4K entries visited"),
			     "no 4K visits line when no run did measure them");
		ASSERT_TRUE(line_of(&c, KW_K_EMPTY_LEAF, "gfns in range"), "the range line stays");
		ASSERT_FALSE(kw_test_row_of(&c, "tdp_mmu_zap_leafs", "4K visits/zap"), "nor its row");
		ASSERT_TRUE(warning_of(&c, "tdp_mmu_zap_leafs calls/run: base from full runs, new "
					   "from cheap runs"),
			    "sides of different kinds: said");
	}
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 2);
	kw_test_free_side(new, 2);
}

static void expect_load_error(const char *path, const char *arch, int code, const char *msg)
{
	struct kw_recording r[1] = {};
	const char *paths[1] = { path };
	char err[512] = "";

	ASSERT_EQ(kw_compare_load(paths, 1, r, arch, arch ? FIX "split-6.12/run1.json" : NULL, err,
				  sizeof(err)),
		  code, path);
	ASSERT_TRUE(!strncmp(err, path, strlen(path)), "the message names the file first");
	ASSERT_TRUE(strstr(err, msg), msg);
	ASSERT_FALSE(strchr(err, '\n'), "one line");
}

static void test_compare_errors(void)
{
	expect_load_error(FIX "errors/missing.json", NULL, KW_CMP_EXIT_UNREADABLE,
			  "No such file or directory");
	expect_load_error(FIX "errors/truncated.json", NULL, KW_CMP_EXIT_CORRUPT,
			  "truncated or corrupt recording: not JSON");
	expect_load_error(FIX "errors/empty.json", NULL, KW_CMP_EXIT_CORRUPT,
			  "truncated or corrupt recording");
	expect_load_error(FIX "errors/no-meta.json", NULL, KW_CMP_EXIT_CORRUPT, "no meta.arch");
	expect_load_error(
		FIX "errors/schema2.json", NULL, KW_CMP_EXIT_SCHEMA,
		"schema is 'kvmwalk-recording/2', this kvmwalk reads 'kvmwalk-recording/1'");
	expect_load_error(FIX "x86-new/run1.json", "arm64", KW_CMP_EXIT_ARCH,
			  "a recording of x86, but " FIX "split-6.12/run1.json is of arm64");
}

/* --function and --metric name what exists: a typo is a usage error, not an empty report */
static void test_compare_names(void)
{
	char err[3072];

	ASSERT_EQ(kw_compare_check_names(NULL, NULL, err, sizeof(err)), 0, "no lists");
	ASSERT_EQ(kw_compare_check_names("kvm_pgtable_walk,counters",
					 "calls,p50,median,p99,p99.9,L-1,L0 visits/walk,RET_PF_FIXED,"
					 "ret 7/run,trigger_map_full,cleared,dirty_log_on,"
					 "dirty_log_off mean",
					 err, sizeof(err)),
		  0, "valid names");
	ASSERT_EQ(kw_compare_check_names(NULL, "p50,nonsense", err, sizeof(err)), -EINVAL,
		  "unknown metric");
	ASSERT_TRUE(strstr(err, "unknown --metric 'nonsense'") && strstr(err, "p99,") &&
			    strstr(err, "p99.9,") && strstr(err, "dirty_log_on,"),
		    err);
	ASSERT_EQ(kw_compare_check_names(NULL, "p99.", err, sizeof(err)), -EINVAL, "p99.");
	ASSERT_FALSE(strchr(err, '\n'), "one line");
	ASSERT_EQ(kw_compare_check_names("fast_page_faults", NULL, err, sizeof(err)), -EINVAL,
		  "unknown function");
	ASSERT_TRUE(strstr(err, "unknown --function 'fast_page_faults'") &&
			    strstr(err, "fast_page_fault,"),
		    err);
	/* a counter that is a row of its probe is not a metric of its own */
	ASSERT_EQ(kw_compare_check_names(NULL, "unmap_calls", err, sizeof(err)), -EINVAL,
		  "unmap_calls");
}

static const char *warning_of(const struct kw_compare *c, const char *start)
{
	for (size_t i = 0; i < c->nwarnings; i++)
		if (!strncmp(c->warnings[i], start, strlen(start)))
			return c->warnings[i];
	return NULL;
}

/* The warning w in every format (text unwrapped for the search), the text within 72 columns. */
static void printed_everywhere(const struct kw_compare *c, const char *w)
{
	for (int fmt = KW_COMPARE_TEXT; fmt <= KW_COMPARE_JSON; fmt++) {
		char *out = NULL, *d;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!ASSERT_TRUE(f, "open_memstream"))
			return;
		ASSERT_EQ(kw_compare_print(f, c, fmt), 0, "print");
		fclose(f);
		if (fmt == KW_COMPARE_TEXT) {
			check_width(out, 72, "warnings: 72 columns, no tabs");
			/* "\n" and the indent of a wrapped line back into one space */
			d = out;
			for (const char *p = out; *p; p++) {
				if (*p == '\n' && !strncmp(p + 1, "         ", 9) && p[10] != ' ') {
					*d++ = ' ';
					p += 9;
				} else {
					*d++ = *p;
				}
			}
			*d = 0;
			ASSERT_TRUE(strstr(out, "WARNING: ") && strstr(out, w),
				    "text: the warning");
		} else {
			ASSERT_TRUE(strstr(out, w), fmt == KW_COMPARE_JSON ? "json" : "markdown");
		}
		free(out);
	}
}

/*
 * The header's warnings: a recording on both sides (the same file, or identical content), and
 * recorded commands that differ (x86-other-cmd/run1.json is x86-new/run1.json with another
 * command).
 */
static void test_compare_warnings(void)
{
	struct kw_recording base[2] = {}, new[2] = {}, other[1] = {}, copy[1] = {}, four[4];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	const char *bp[2], *np[2], *op[1], *same[1] = { FIX "x86-base/../x86-base/run1.json" };
	char tmp[] = "/tmp/kvmwalk-unit-compare.XXXXXX", err[512];
	struct kw_compare c = {};
	const char *w, *cp[1] = { tmp };
	FILE *f;
	int fd;

	if (!load_side("x86-base", 2, base, bp) || !load_side("x86-new", 2, new, np) ||
	    !load_side("x86-other-cmd", 1, other, op))
		goto out;

	/* the same commands (run for run) and different recordings: neither warning */
	o.base_paths = bp;
	o.new_paths = np;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 2, new, 2, &o), 0, "build x86"))
		goto out;
	ASSERT_FALSE(warning_of(&c, "the recorded commands"), "same commands: no warning");
	ASSERT_FALSE(warning_of(&c, "base run"), "different recordings: no warning");
	kw_compare_free(&c);

	o.new_paths = op;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 2, other, 1, &o), 0, "build other command"))
		goto out;
	w = warning_of(&c, "the recorded commands differ");
	ASSERT_STREQ(w,
		     "the recorded commands differ, so the runs may not have measured the same "
		     "workload: base ran kvmwalk-load ... --iterations=4; new ran kvmwalk-load ... "
		     "--iterations=16 --pattern=sweep",
		     "the words both begin with are left out");
	if (w)
		printed_everywhere(&c, w);
	kw_compare_free(&c);

	/* nothing in common to leave out: each cut to at most 56 characters around " ... " */
	snprintf(other[0].meta.command, sizeof(other[0].meta.command),
		 "qemu-system-x86_64 -machine q35,accel=kvm -m 16G -smp 8 -drive "
		 "file=/var/lib/images/guest.qcow2");
	if (ASSERT_EQ(kw_compare_build(&c, base, 2, other, 1, &o), 0, "build qemu")) {
		ASSERT_STREQ(warning_of(&c, "the recorded commands differ"),
			     "the recorded commands differ, so the runs may not have measured the "
			     "same workload: base ran kvmwalk-load --scenario=invalidate ... "
			     "--iterations=4; new ran qemu-system-x86_64 -machine ... "
			     "mages/guest.qcow2",
			     "cut around ..., between words where it can");
		printed_everywhere(&c, "the recorded commands differ");
	}
	kw_compare_free(&c);

	/* one file on both sides, named two ways */
	o.new_paths = same;
	if (!ASSERT_EQ(kw_compare_load(same, 1, copy, NULL, NULL, err, sizeof(err)), 0, err))
		goto out;
	if (ASSERT_EQ(kw_compare_build(&c, base, 1, copy, 1, &o), 0, "build same file")) {
		w = warning_of(&c, "base run 1");
		ASSERT_STREQ(w,
			     "base run 1 (" FIX "x86-base/run1.json) and new run 1 (" FIX
			     "x86-base/../x86-base/run1.json) are the same file: the report "
			     "compares a recording with itself",
			     "same file");
		ASSERT_FALSE(warning_of(&c, "the recorded commands"), "and no command warning");
		if (w)
			printed_everywhere(&c, "are the same file");
	}
	kw_compare_free(&c);
	kw_recording_free(&copy[0]);

	/* a copy of it: another file, the same content */
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!ASSERT_TRUE(f, "temporary file"))
		goto out;
	ASSERT_EQ(kw_recording_write(&base[0], f), 0, "write the copy");
	fclose(f);
	o.new_paths = cp;
	if (ASSERT_EQ(kw_compare_load(cp, 1, copy, NULL, NULL, err, sizeof(err)), 0, err) &&
	    ASSERT_EQ(kw_compare_build(&c, base, 2, copy, 1, &o), 0, "build copy")) {
		snprintf(err, sizeof(err),
			 "base run 1 (" FIX "x86-base/run1.json) and new run 1 (%s) are the same "
			 "recording (identical content): the report compares it with itself",
			 tmp);
		ASSERT_STREQ(warning_of(&c, "base run"), err, "a copy: identical content");
		ASSERT_FALSE(warning_of(&c, "base run 2"), "base run 2 is another recording");
	}
	unlink(tmp);
	kw_compare_free(&c);
	kw_recording_free(&copy[0]);

	/* without paths, by content; at most 3 pairs named */
	o.base_paths = o.new_paths = NULL;
	for (int i = 0; i < 4; i++)
		four[i] = base[0];
	if (ASSERT_EQ(kw_compare_build(&c, four, 4, base, 1, &o), 0, "build four")) {
		ASSERT_STREQ(c.warnings[0],
			     "base run 1 and new run 1 are the same recording (identical content): "
			     "the report compares it with itself",
			     "no paths: runs by number");
		ASSERT_TRUE(warning_of(&c, "base run 3 and new run 1"), "the third pair");
		ASSERT_FALSE(warning_of(&c, "base run 4"), "not the fourth");
		ASSERT_STREQ(warning_of(&c, "and 1 more"),
			     "and 1 more pair of base and new runs that are the same recording",
			     "the rest counted");
	}
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 2);
	kw_test_free_side(new, 2);
	kw_test_free_side(other, 1);
}

/*
 * The probe overhead warning says a number that differs: split-7.3 against copies of itself
 * whose overhead share is 0.02 points higher, every duration unchanged (0.0 %). It printed
 * "probe overhead differs by 0.0 points", which nobody can act on; 1 point more is warned.
 */
static void test_compare_overhead(void)
{
	struct kw_recording base[3] = {}, new[3] = {};
	const char *bp[3], *np[3];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const char *w;

	if (!load_side("split-7.3", 3, base, bp) || !load_side("split-7.3", 3, new, np))
		goto out;
	for (int k = 0; k < 2; k++) {
		double more = k ? 0.01 : 0.0002;


		for (int i = 0; i < 3; i++) {
			struct kw_overhead *oh = &new[i].overhead;

			oh->run_ns = (__u64)((kw_run_cost_share(&base[i], NULL) + more) *
					     (double)oh->measured_ns);
		}
		if (!ASSERT_EQ(kw_compare_build(&c, base, 3, new, 3, &o), 0, "build overhead"))
			goto out;
		if (!ASSERT_TRUE(c.base.overhead_known && c.new.overhead_known, "shares known"))
			goto out;
		w = warning_of(&c, "probe overhead differs");
		if (!k)
			ASSERT_FALSE(w, w ?: "0.02 points: no warning");
		else
			ASSERT_TRUE(w && strstr(w, "differs by 1.0 points"),
				    w ?: "1 point: warned");
		kw_compare_free(&c);
	}
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 3);
	kw_test_free_side(new, 3);
}

/*
 * An arm64 A/B of the skip-level split series, hand-made: each run creates two memslots,
 * enables dirty logging on the 16 MiB one (8 eager splits of 2 MiB), reads the log once and
 * disables logging. The change removes the 4096 level-3 split visits and cuts the enable's time
 * by 47.8 % (the series' headline); creating and disabling are unchanged.
 */
static void fill_memslot(struct kw_recording *r, int run, bool patched)
{
	static const struct {
		int op;
		__u32 cmd;
		__u64 calls, ns;
	} ioctls[] = {
		{ KW_MS_CREATE, 0x40a0ae49, 2, 80000 },
		{ KW_MS_DIRTY_LOG_ON, 0x40a0ae49, 1, 9000000 },
		{ KW_MS_DIRTY_LOG_OFF, 0x40a0ae49, 1, 30000 },
		{ KW_MS_NONE, 0x4010ae42, 1, 500000 },
	};
	struct kw_func *split = &r->funcs[KW_P_S2_SPLIT], *ioctl = &r->funcs[KW_P_VM_IOCTL];

	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "%s",
		 patched ? "7.3.4-kw-skip-level3" : "7.3.4+deb13-arm64");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "arm64");
	r->meta.visits = true;
	for (int p = 0; p < KW_NR_PROBES; p++)
		if (kw_probe_in_arch(p, "arm64"))
			r->plan[p].mech = KW_MECH_FENTRY;
	for (int i = 0; i < 8; i++)
		kw_hist_add(&split->dur, (patched ? 522000 : 1000000) + run * 1000 + i * 100);
	split->calls = 8;
	r->funcs[KW_P_SPLIT_WALKER].calls = patched ? 8 : 8 + 4096;
	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 3, KW_O_SPLIT)] = 8;
	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 4, KW_O_NOTHING)] = patched ? 0 : 4096;
	r->funcs[KW_P_MEMSLOT].calls = 4;
	for (size_t i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		struct kw_trig t = { .probe = KW_P_VM_IOCTL, .trigger = KW_T_IOCTL,
				     .cmd = ioctls[i].cmd, .pid = 100 + run, .calls = ioctls[i].calls,
				     .memslot_op = ioctls[i].op };

		/* -47.8 % for the enable, a few us of noise per run for all */
		t.ns = ioctls[i].ns + run * 2000;
		if (ioctls[i].op == KW_MS_DIRTY_LOG_ON && patched)
			t.ns = t.ns * 522 / 1000;
		for (__u64 k = 0; k < t.calls; k++)
			kw_hist_add(&ioctl->dur, t.ns / t.calls);
		ioctl->calls += t.calls;
		kw_recording_add_trig(r, &t);
	}
}

static void test_compare_memslot(void)
{
	struct kw_recording base[RUNS] = {}, new[RUNS] = {};
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};
	const struct kw_compare_row *r;
	const struct kw_compare_line *l;

	for (int i = 0; i < RUNS; i++) {
		fill_memslot(&base[i], i, false);
		fill_memslot(&new[i], i, true);
	}
	if (!ASSERT_EQ(kw_compare_build(&c, base, RUNS, new, RUNS, &o), 0, "build memslot"))
		goto out;
	r = kw_test_row_of(&c, "kvm_vm_ioctl", "dirty_log_on mean");
	if (ASSERT_TRUE(r, "a row for the enable")) {
		ASSERT_EQ(r->change.base_median, 9004000, "base: the run's mean");
		ASSERT_NEAR(r->change.delta_pct, -47.8, 0.05, "the series' -47.8 %");
		ASSERT_TRUE(r->change.significant, "significant");
	}
	r = kw_test_row_of(&c, "kvm_vm_ioctl", "create mean");
	if (ASSERT_TRUE(r, "a row for the creates"))
		ASSERT_EQ(r->change.base_median, 42000, "two creates, 84 us in all");
	ASSERT_TRUE(kw_test_row_of(&c, "kvm_vm_ioctl", "dirty_log_off mean"), "a row for the disable");
	ASSERT_FALSE(kw_test_row_of(&c, "kvm_vm_ioctl", "move mean"), "none for what no run did");
	l = line_of(&c, KW_K_SKIP_LEVEL, "dirty-logging enable ioctl, mean");
	if (ASSERT_TRUE(l, "the section's line"))
		ASSERT_NEAR(l->change.delta_pct, -47.8, 0.05, "the headline");
	print_all(&c, "memslot");
	kw_compare_free(&c);
	/* --metric takes an operation */
	o.metrics = "dirty_log_on";
	if (ASSERT_EQ(kw_compare_build(&c, base, RUNS, new, RUNS, &o), 0, "--metric dirty_log_on"))
		ASSERT_TRUE(c.nrows == 1 && !strcmp(c.rows[0].metric, "dirty_log_on mean"),
			    "one row");
out:
	kw_compare_free(&c);
	kw_test_free_side(base, RUNS);
	kw_test_free_side(new, RUNS);
}

static const struct kw_compare_diff *diff_of(const struct kw_compare *c, const char *what)
{
	for (size_t i = 0; i < c->ndiffs; i++)
		if (!strcmp(c->diffs[i].what, what))
			return &c->diffs[i];
	return NULL;
}

static void expect_diff(const struct kw_compare *c, const char *what, const char *base,
			const char *new)
{
	const struct kw_compare_diff *d = diff_of(c, what);

	if (!ASSERT_TRUE(d, what))
		return;
	ASSERT_STREQ(d->base, base, what);
	ASSERT_STREQ(d->new, new, what);
}

/*
 * The test conditions in compare's header (issue 35): conditions-base is a real recording of the
 * arm64 emulated host (kw-cli), conditions-new the same run with other conditions and four
 * probes attached otherwise (fixtures/compare/make-conditions.py).
 */
static void test_compare_conditions(void)
{
	struct kw_recording base[1] = {}, new[1] = {}, old[1] = {};
	const char *bp[1], *np[1], *op[1];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c = {};

	if (!load_side("conditions-base", 1, base, bp) || !load_side("conditions-new", 1, new, np) ||
	    !load_side("split-7.3", 1, old, op))
		goto out;
	o.base_paths = bp;
	o.new_paths = np;
	if (!ASSERT_EQ(kw_compare_build(&c, base, 1, new, 1, &o), 0, "build conditions"))
		goto out;
	expect_diff(&c, "host", "emulated (QEMU TCG)", "a VM (KVM)");
	expect_diff(&c, "machine", "linux,dummy-virt", "QEMU KVM Virtual Machine");
	expect_diff(&c, "online CPUs", "2 (0-1)", "4 (0-3)");
	expect_diff(&c, "SMT", "notsupported", "on");
	expect_diff(&c, "NUMA nodes", "1 (0)", "2 (0-1)");
	expect_diff(&c, "NUMA balancing", "0 (off)", "1 (on)");
	expect_diff(&c, "hugetlb pages", "64K:0 2M:64 32M:0 1G:0, nr_hugepages 64",
		    "64K:0 2M:0 32M:0 1G:2, nr_hugepages 0");
	expect_diff(&c, "mitigations (command line)", "(none)", "mitigations=off");
	expect_diff(&c, "CPU bug spectre_v2", "Mitigation: CSV2, but not BHB", "Vulnerable");
	expect_diff(&c, "KVM kvm-arm.mode", "not set (not on the command line)",
		    "nvhe (command line)");
	expect_diff(&c, "IPA size limit", "52 bits", "48 bits");
	expect_diff(&c, "VMM", "kvmwalk-load",
		    "QEMU 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)");
	expect_diff(&c, "VM IPA size", "40 bits", "unknown");
	expect_diff(&c, "VM eager split", "0", "2M");
	ASSERT_TRUE(diff_of(&c, "VM command lines (only here)"), "the VMs' command lines");
	ASSERT_FALSE(diff_of(&c, "CPU bug meltdown"), "only the vulnerabilities that differ");
	ASSERT_FALSE(diff_of(&c, "KVM eager split"), "per VM on both sides: no line");
	ASSERT_FALSE(diff_of(&c, "test conditions"), "both recorded them");
	/* each function shown whose plan differs, and why it matters */
	ASSERT_TRUE(warning_of(&c, "measurement boundary changed: kvm_pgtable_stage2_unmap: kprobe "
				   "in base, fentry in new: its numbers include different probe "
				   "costs"),
		    "another mechanism");
	ASSERT_TRUE(warning_of(&c, "measurement boundary changed: kvm_tlb_flush_vmid_range: kprobe "
				   "in base, kprobe on kvm_tlb_flush_vmid_range.isra.0 in new: "
				   "another function or tracepoint is measured"),
		    "a suffixed symbol");
	ASSERT_TRUE(warning_of(&c, "measurement boundary changed: __kvm_tlb_flush_vmid_range: "
				   "kprobe in base, unavailable (runs at EL2) in new: not measured "
				   "in every run"),
		    "EL2 only");
	ASSERT_TRUE(warning_of(&c, "measurement boundary changed: kvm_nested_s2_unmap: kprobe in "
				   "base, unavailable (absent or inlined) in new"),
		    "inlined");
	ASSERT_FALSE(warning_of(&c, "measurement boundary changed: kvm_pgtable_walk"),
		     "the same plan: no warning");
	print_all(&c, "conditions");
	kw_compare_free(&c);

	/*
	 * --function: a function not shown (no row, in no section) has no boundary line, its
	 * attach line stays; the unmap is still shown by the deferred-flush section
	 */
	o.functions = "kvm_pgtable_walk";
	if (ASSERT_EQ(kw_compare_build(&c, base, 1, new, 1, &o), 0, "build --function")) {
		ASSERT_FALSE(warning_of(&c, "measurement boundary changed: kvm_nested_s2_unmap"),
			     "not shown, not warned");
		ASSERT_TRUE(diff_of(&c, "attach kvm_nested_s2_unmap"), "still a difference");
		ASSERT_TRUE(warning_of(&c, "measurement boundary changed: kvm_pgtable_stage2_unmap"),
			    "in a section's functions");
	}
	kw_compare_free(&c);
	o.functions = NULL;

	/* against a recording made before conditions: one line, no condition compared */
	o.base_paths = op;
	if (ASSERT_EQ(kw_compare_build(&c, old, 1, base, 1, &o), 0, "build old against new")) {
		expect_diff(&c, "test conditions", "not recorded (a recording older than them)",
			    "recorded");
		ASSERT_FALSE(diff_of(&c, "host"), "nothing compared");
	}
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 1);
	kw_test_free_side(new, 1);
	kw_test_free_side(old, 1);
}

static void compare_recordings(void)
{
	test_compare_conditions();
	test_compare_warnings();
	test_compare_overhead();
	test_compare_names();
	test_compare_memslot();
	test_compare_split();
	test_compare_empty_unmap();
	test_compare_nested_unmap();
	test_compare_x86();
	test_compare_errors();
}
