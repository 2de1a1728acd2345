// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

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

static void print_all(const struct kw_compare *c, const char *name)
{
	static const char *const ext[] = { "txt", "md", "json" };
	char golden[64];
	int fmt;

	for (fmt = KW_COMPARE_TEXT; fmt <= KW_COMPARE_JSON; fmt++) {
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!ASSERT_TRUE(f, "open_memstream"))
			return;
		ASSERT_EQ(kw_compare_print(f, c, fmt), 0, "print");
		fclose(f);
		if (fmt == KW_COMPARE_TEXT)
			check_width(out, 72, "text: 72 columns, no tabs");
		snprintf(golden, sizeof(golden), "compare-%s.%s", name, ext[fmt]);
		ASSERT_GOLDEN(out, len, golden);
		free(out);
	}
}

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
	/* walk: calls, median, p90, p99, mean; unmap: the same, flushes/unmap, empty flushes/run */
	if (!ASSERT_EQ(c.nrows, 12, "rows"))
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
}
