// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "bench/bench.h"

static void verdicts(void)
{
	char buf[48];

	ASSERT_STREQ(bench_verdict(buf, sizeof(buf), 1.5, 1.5), "met", "on the target");
	ASSERT_STREQ(bench_verdict(buf, sizeof(buf), 0.2, 0.5), "met", "below");
	ASSERT_STREQ(bench_verdict(buf, sizeof(buf), 2.25, 1.5), "MISSED by 0.75 (50 %)", "above");
	ASSERT_STREQ(bench_verdict(buf, sizeof(buf), NAN, 1.5), "n/a", "not measured");
}

static void fill(struct bench_variant *v, const double *ev, int n)
{
	int i;

	v->on = true;
	v->rounds = n;
	for (i = 0; i < n; i++) {
		v->ev[i] = ev[i];
		v->loop[i] = 100 + ev[i];
		v->over[i] = ev[i] / 2;
	}
}

static void summary_and_table(void)
{
	static const double none[] = { 0, 0, 0 }, a[] = { 57, 55, 60 }, b[] = { 101, 103, 100 },
			    c[] = { 219, 230, 210 }, d[] = { 216, 250, 212 };
	struct bench_variant v[] = {
		{ .key = "-", .name = "no probes (loop ns/call)" },
		{ .key = "a", .name = "empty pair" },
		{ .key = "b", .name = "clock pair (floor)" },
		{ .key = "c", .name = "kvmwalk kw_enter/kw_exit" },
		{ .key = "t", .name = "b + task-local storage lookups", .breakdown = true },
		{ .key = "d", .name = "bpftrace hist() one-liner" },
	};
	struct bench_header h = { .kernel = "6.18.0-test", .rounds = 3, .calls = 1000, .cpu = 1,
				  .ncpus = 2, .probe = 8 };
	struct bench_summary s;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	fill(&v[0], none, 3);
	fill(&v[1], a, 3);
	fill(&v[2], b, 3);
	fill(&v[3], c, 3);
	fill(&v[5], d, 3);
	bench_summarise(&v[3], &s);
	ASSERT_NEAR(s.ev, 219, 0, "median");
	ASSERT_NEAR(s.ev_min, 210, 0, "min");
	ASSERT_NEAR(s.ev_max, 230, 0, "max");
	ASSERT_NEAR(s.over, 109.5, 0, "over none");
	bench_summarise(&v[4], &s);
	ASSERT_TRUE(isnan(s.ev), "a variant not run has no median");

	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "memstream"))
		return;
	bench_print_table(f, &h, v, sizeof(v) / sizeof(v[0]));
	fclose(f);
	ASSERT_GOLDEN(buf, len, "bench.txt");
	{
		char *line = buf, *nl;
		int longest = 0;

		for (; (nl = strchr(line, '\n')); line = nl + 1)
			if (nl - line > longest)
				longest = nl - line;
		ASSERT_TRUE(longest <= 80, "80 columns");
	}
	free(buf);
}

void test_bench(void)
{
	verdicts();
	summary_and_table();
}
