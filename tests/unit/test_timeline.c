// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk report --timeline` (text, --csv, --plot, the JSON intervals) and the interval
 * snapshots of `record --interval`, byte for byte against goldens, from a real recording:
 * fixtures/timeline/split-7.3-vhe.json is the rec.json of `scripts/vmtest --arch arm64 --kernel
 * 7.3 --mode vhe --case kw-timeline` (kvmwalk record --interval 1 around kvmwalk-load
 * --scenario split, 2 iterations; .load.json next to it is kvmwalk-load's own output of that
 * run: the dirty-log-enable phases are at 0.26 s and 1.39 s, the gets at 1.34 s and 2.60 s).
 * To refresh it, run that case and copy its rec.json and load.json here, then
 * KW_UPDATE_GOLDEN=1 and read the goldens.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "counters.h"
#include "test.h"
#include "timeline.h"

#define FIXTURE "fixtures/timeline/split-7.3-vhe.json"

static int text(FILE *f, const struct kw_recording *r)
{
	return kw_timeline_text(f, r, "split-7.3-vhe.json");
}

static int svg(FILE *f, const struct kw_recording *r)
{
	return kw_timeline_svg(f, r, "split-7.3-vhe.json");
}

/* Every member of the intervals sums to the recording's total: nothing lost between reads. */
static void sums(const struct kw_recording *r)
{
	__u64 calls[KW_NR_PROBES] = {}, ns[KW_NR_PROBES] = {}, c[KW_NR_COUNTERS] = {};
	__u64 v[KW_NR_VISITS] = {}, dlog = 0, measured = 0;

	for (size_t i = 0; i < r->nintervals; i++) {
		const struct kw_interval *iv = &r->intervals[i];

		ASSERT_TRUE(iv->full, "intervals with counters");
		for (int p = 0; p < KW_NR_PROBES; p++) {
			calls[p] += iv->calls[p];
			ns[p] += iv->ns[p];
		}
		for (int k = 0; k < KW_NR_COUNTERS; k++)
			c[k] += iv->counters[k];
		for (int k = 0; k < KW_NR_VISITS; k++)
			v[k] += iv->visits[k];
		dlog += iv->dirty_log_ioctls;
		measured += iv->measured_ns;
	}
	for (int p = 0; p < KW_NR_PROBES; p++) {
		ASSERT_EQ(calls[p], r->funcs[p].calls, kw_probes[p].name);
		ASSERT_EQ(ns[p], r->funcs[p].dur.sum, kw_probes[p].name);
	}
	for (int k = 0; k < KW_NR_COUNTERS; k++)
		ASSERT_EQ(c[k], r->counters[k], kw_counters[k].name);
	for (int k = 0; k < KW_NR_VISITS; k++)
		ASSERT_EQ(v[k], r->visits[k], "visits");
	/* the two KVM_GET_DIRTY_LOG calls of the two iterations (kvmwalk-load's get_ioctls) */
	ASSERT_EQ(kw_dirty_log_ioctls(r), 2, "dirty-log ioctls of the recording");
	ASSERT_EQ(dlog, 2, "dirty-log ioctls of the intervals");
	ASSERT_EQ(measured, r->overhead.measured_ns, "measured_ns");
	ASSERT_EQ(r->intervals[0].visits[KW_VISIT_IDX(KW_W_SPLIT, 3, KW_O_SPLIT)], 8,
		  "iteration 0's 8 blocks split in the first interval");
	ASSERT_EQ(r->intervals[1].dirty_log_ioctls, 1, "iteration 0's get in the second");
}

/* member by member: the padding after full is not compared */
static bool same(const struct kw_interval *x, const struct kw_interval *y)
{
	return x->t == y->t && x->full == y->full &&
	       !memcmp(x->calls, y->calls, sizeof(x->calls)) && !memcmp(x->ns, y->ns, sizeof(x->ns)) &&
	       !memcmp(x->counters, y->counters, sizeof(x->counters)) &&
	       !memcmp(x->visits, y->visits, sizeof(x->visits)) &&
	       x->dirty_log_ioctls == y->dirty_log_ioctls && x->measured_ns == y->measured_ns;
}

/* record's snapshots: differences of cumulative reads, the dirty-log rows by ioctl name */
static void delta(void)
{
	struct kw_recording cur = {};
	struct kw_interval last = {}, iv = {};
	struct kw_trig get = { .probe = KW_P_VM_IOCTL, .trigger = KW_T_IOCTL, .calls = 3 };
	struct kw_trig other = get;

	snprintf(get.ioctl, sizeof(get.ioctl), "KVM_CLEAR_DIRTY_LOG");
	snprintf(other.ioctl, sizeof(other.ioctl), "KVM_SET_USER_MEMORY_REGION");
	kw_recording_add_trig(&cur, &get);
	kw_recording_add_trig(&cur, &other);
	/* a walk inside the clear: not an ioctl of its own */
	get.probe = KW_P_PGT_WALK;
	kw_recording_add_trig(&cur, &get);
	cur.funcs[KW_P_PGT_WALK].calls = 10;
	cur.counters[KW_C_EMPTY_FLUSHES] = 4;
	cur.visits[5] = 7;
	kw_interval_delta(&iv, &cur, &last);
	ASSERT_EQ(iv.dirty_log_ioctls, 3, "dirty-log ioctls");
	ASSERT_EQ(iv.calls[KW_P_PGT_WALK], 10, "calls");
	cur.funcs[KW_P_PGT_WALK].calls = 15;
	cur.counters[KW_C_EMPTY_FLUSHES] = 4;
	cur.visits[5] = 9;
	cur.trigs[0].calls = 5;
	kw_interval_delta(&iv, &cur, &last);
	ASSERT_TRUE(iv.full, "full");
	ASSERT_EQ(iv.calls[KW_P_PGT_WALK], 5, "calls, second interval");
	ASSERT_EQ(iv.counters[KW_C_EMPTY_FLUSHES], 0, "counter, second interval");
	ASSERT_EQ(iv.visits[5], 2, "visits, second interval");
	ASSERT_EQ(iv.dirty_log_ioctls, 2, "dirty-log ioctls, second interval");
	kw_recording_free(&cur);
}

/* Intervals from before they carried counters: calls and ns only, "-" for the rest. */
static void old_intervals(void)
{
	struct kw_recording r;
	struct kw_tl_row row;
	size_t len;
	char *buf;

	kw_test_recording_fixture(&r);
	kw_timeline_row(&r, 1, &row);
	ASSERT_NEAR(row.len, 0.5, 1e-9, "length from the t differences");
	ASSERT_NEAR(row.v[KW_TL_WALKS], 5402, 0, "walks");
	ASSERT_TRUE(isnan(row.v[KW_TL_FLUSHES]) && isnan(row.v[KW_TL_WALK_NS]), "not measured");
	buf = kw_test_print(&r, text, &len);
	if (ASSERT_TRUE(buf, "old text"))
		ASSERT_TRUE(strstr(buf, "\n~11:36:55      1.00  10,804       0       -       -"
					"       -         -\n") &&
				    strstr(buf, "\n~11:36:55      1.00    11.8us         -         -"
						"         -\n"),
			    "old: - for what it cannot say, no p99 without histograms");
	free(buf);
	kw_recording_free(&r);
}

/* Adds n calls of ns each to probe p of the maps cur stands for. */
static void calls(struct kw_recording *cur, int p, int n, __u64 ns)
{
	for (int k = 0; k < n; k++)
		kw_hist_add(&cur->funcs[p].dur, ns);
	cur->funcs[p].calls += n;
}

/* p99 is in the bucket of ns: the interval keeps buckets, not values (12.5 %) */
static bool in_bucket(double p99, __u64 ns)
{
	__u32 b = kw_hist_bucket(ns);

	return p99 >= kw_hist_bucket_lower(b) && p99 <= kw_hist_bucket_upper(b) + 1;
}

/*
 * issue 36: each interval's p99, from the duration histograms record keeps per interval (the
 * difference of two cumulative reads of kw_hists, as the calls): three synthetic snapshots. In
 * the second, 20 of 1,000 walks take 1 ms: its p99 is about 1 ms, where the whole recording's
 * (2,000 walks, 20 slow) is about 1 us. Flushes only in the first, notifier invalidations only
 * in the second, nothing in the third. Written and read back, the same p99s.
 */
static void tails_p99(void)
{
	static const int timed[] = { KW_P_PGT_WALK, KW_P_TLB_FLUSH_RANGE, KW_P_NOTIFIER };
	struct kw_recording cur = {}, back = {};
	struct kw_interval last = {}, iv = {}, peek = {};
	struct kw_tl_row row[3];
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(cur.meta.arch, sizeof(cur.meta.arch), "arm64");
	snprintf(cur.meta.kernel, sizeof(cur.meta.kernel), "7.3.4+deb13-arm64");
	snprintf(cur.meta.kvm_mode, sizeof(cur.meta.kvm_mode), "vhe");
	for (size_t k = 0; k < sizeof(timed) / sizeof(timed[0]); k++)
		cur.plan[timed[k]].mech = KW_MECH_FENTRY;
	calls(&cur, KW_P_PGT_WALK, 1000, 1000);
	calls(&cur, KW_P_TLB_FLUSH_RANGE, 100, 5000);
	iv.t = 1;
	ASSERT_EQ(kw_interval_delta(&iv, &cur, &last), 0, "first snapshot");
	kw_recording_add_interval(&cur, &iv);
	calls(&cur, KW_P_PGT_WALK, 980, 1000);
	calls(&cur, KW_P_PGT_WALK, 20, 1000000);
	calls(&cur, KW_P_NOTIFIER, 50, 200000);
	/* a checkpoint's partial interval leaves the cumulative counts as they were */
	ASSERT_EQ(kw_interval_diff(&peek, &cur, &last), 0, "peek");
	ASSERT_EQ(peek.calls[KW_P_PGT_WALK], 1000, "peek: the second's walks");
	ASSERT_EQ(last.calls[KW_P_PGT_WALK], 1000, "peek: last unchanged");
	kw_interval_free(&peek);
	iv = (struct kw_interval){ .t = 2 };
	ASSERT_EQ(kw_interval_delta(&iv, &cur, &last), 0, "second snapshot");
	kw_recording_add_interval(&cur, &iv);
	iv = (struct kw_interval){ .t = 3 };
	ASSERT_EQ(kw_interval_delta(&iv, &cur, &last), 0, "third snapshot");
	kw_recording_add_interval(&cur, &iv);
	kw_interval_free(&last);
	ASSERT_EQ(cur.intervals[2].ndur, 0, "nothing in the third");

	/* written and read back: the buckets travel in the recording */
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "memstream"))
		goto out;
	ASSERT_EQ(kw_recording_write(&cur, f), 0, "write");
	fclose(f);
	if (!ASSERT_EQ(kw_recording_parse(&back, buf, err, sizeof(err)), 0, err))
		goto out;
	/* the first: 1,000 walks of 1 us in bucket 63, 100 flushes of 5 us in bucket 81 */
	if (ASSERT_EQ(back.intervals[0].ndur, 2, "the first's buckets"))
		ASSERT_TRUE(back.intervals[0].dur[0].probe == KW_P_PGT_WALK &&
				    back.intervals[0].dur[0].bucket == 63 &&
				    back.intervals[0].dur[0].count == 1000 &&
				    back.intervals[0].dur[1].probe == KW_P_TLB_FLUSH_RANGE &&
				    back.intervals[0].dur[1].bucket == 81 &&
				    back.intervals[0].dur[1].count == 100,
			    "walks then flushes");
	for (int i = 0; i < 3; i++) {
		struct kw_tl_row a;

		kw_timeline_row(&back, i, &row[i]);
		kw_timeline_row(&cur, i, &a);
		for (int c = 0; c < KW_TL_NR_TAIL; c++)
			ASSERT_TRUE(isnan(a.p99[c]) ? isnan(row[i].p99[c]) : a.p99[c] == row[i].p99[c],
				    "the same p99 read back");
	}
	ASSERT_TRUE(in_bucket(row[0].p99[KW_TL_P99_WALK], 1000), "first: walks all 1 us");
	ASSERT_TRUE(in_bucket(row[1].p99[KW_TL_P99_WALK], 1000000), "second: the 20 slow ones");
	ASSERT_TRUE(in_bucket(kw_timeline_p99(&back, NULL, KW_TL_P99_WALK), 1000),
		    "the whole recording's p99 hides them");
	ASSERT_TRUE(in_bucket(row[0].p99[KW_TL_P99_FLUSH], 5000), "first: flushes 5 us");
	ASSERT_TRUE(isnan(row[1].p99[KW_TL_P99_FLUSH]), "second: no flush");
	ASSERT_TRUE(isnan(row[0].p99[KW_TL_P99_INVAL]), "first: no invalidation");
	ASSERT_TRUE(in_bucket(row[1].p99[KW_TL_P99_INVAL], 200000), "second: 200 us");
	for (int c = 0; c < KW_TL_NR_TAIL; c++)
		ASSERT_TRUE(isnan(row[2].p99[c]), "third: nothing");
	ASSERT_PRINTS(&back, text, "timeline-tails.txt", 80);
	ASSERT_PRINTS(&back, kw_timeline_csv, "timeline-tails.csv", 0);
out:
	free(buf);
	kw_recording_free(&back);
	kw_recording_free(&cur);
}

const char *kw_test_svg_problem(const char *svg);

/*
 * The plot read at a glance (test_svg.c): every text inside the page and apart, a y axis per
 * panel; with the fixture's names and with a long file name and kernel release, which it fits.
 */
static void readable(struct kw_recording *r, const char *name)
{
	char kernel[sizeof(r->meta.kernel)], *buf = NULL;
	const char *p;
	size_t len = 0;
	FILE *f;

	memcpy(kernel, r->meta.kernel, sizeof(kernel));
	for (int pass = 0; pass < 2; pass++) {
		f = open_memstream(&buf, &len);
		if (!ASSERT_TRUE(f, "open_memstream"))
			break;
		if (pass)
			snprintf(r->meta.kernel, sizeof(r->meta.kernel), "%s",
				 "7.3.4-kvmwalk-patched-with-a-long-local-version+deb13-arm64");
		ASSERT_EQ(kw_timeline_svg(f, r,
					  pass ? "/var/tmp/migrations/2026-12-04/a-recording-with-"
						 "a-long-name-of-a-live-migration-of-vm-42.json"
					       : name),
			  0, "svg");
		fclose(f);
		p = kw_test_svg_problem(buf);
		ASSERT_FALSE(p, p ?: "timeline plot readable");
		free(buf);
		buf = NULL;
	}
	memcpy(r->meta.kernel, kernel, sizeof(kernel));
}

/*
 * issue 36: the wall clock of each interval (to line up with libvirt's logs) and the mean walk
 * duration of each interval. Exact from meta.start_realtime_ns; from meta.started minus
 * duration_s, to the second and marked ~, in a recording without it; "-" with neither.
 */
static void wall_clock(void)
{
	struct kw_recording r, back;
	struct kw_tl_row row;
	char err[256], *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!ASSERT_EQ(kw_recording_load(&r, FIXTURE, err, sizeof(err)), 0, FIXTURE))
		return;
	kw_timeline_row(&r, 0, &row);
	ASSERT_FALSE(row.utc_exact, "no start_realtime_ns in the fixture: about a second");
	ASSERT_NEAR(row.walk_mean_ns,
		    (double)r.intervals[0].ns[KW_P_PGT_WALK] / r.intervals[0].calls[KW_P_PGT_WALK],
		    1e-6, "walk mean: the interval's walk ns over its walk calls");
	/* 2026-12-03T08:42:06.500Z */
	r.meta.start_realtime_ns = 1796287326500000000ULL;
	kw_timeline_row(&r, 0, &row);
	ASSERT_TRUE(row.utc_exact, "exact with start_realtime_ns");
	ASSERT_NEAR(row.utc, 1796287326.5 + r.intervals[0].t, 1e-6, "start + t");
	buf = kw_test_print(&r, text, &len);
	if (ASSERT_TRUE(buf, "text")) {
		ASSERT_TRUE(kw_test_fits(buf, 80), "80 columns");
		ASSERT_TRUE(strstr(buf, "\nUTC             t s walks/s split/s flush/s empty/s  dlog/s "
					"walk ms/s\n08:42:07.5     1.02   2,979 "),
			    "the first row: 06.5 + 1.02 s");
		ASSERT_TRUE(strstr(buf, "\nUTC             t s walk mean  walk p99 flush p99 inval p99"
					"\n08:42:07.5     1.02    27.1us "),
			    "the durations' first row");
		ASSERT_TRUE(strstr(buf, "\n08:42:09.2     2.74 "), "the last: 06.5 + 2.74 s");
		ASSERT_TRUE(strstr(buf, "UTC (the first: 2026-12-03)"), "the date in the header");
	}
	free(buf);
	buf = kw_test_print(&r, kw_timeline_csv, &len);
	ASSERT_TRUE(buf && strstr(buf, "\n1.02056189,1.02056189,2026-12-03T08:42:07.520Z,true,"),
		    "CSV: the ISO time, to the ms");
	free(buf);
	/* written when known, and read back */
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (ASSERT_TRUE(f, "memstream")) {
		kw_recording_write(&r, f);
		fclose(f);
		ASSERT_TRUE(strstr(buf, "\"start_realtime_ns\": 1796287326500000000"), "written");
		if (ASSERT_EQ(kw_recording_parse(&back, buf, err, sizeof(err)), 0, "parse")) {
			ASSERT_EQ(back.meta.start_realtime_ns, 1796287326500000000ULL, "read back");
			kw_recording_free(&back);
		}
	}
	free(buf);
	/* neither start_realtime_ns nor a readable started: not known */
	r.meta.start_realtime_ns = 0;
	r.meta.started[0] = 0;
	buf = kw_test_print(&r, text, &len);
	ASSERT_TRUE(buf && strstr(buf, "\n-              1.02 "), "not known: -");
	free(buf);
	kw_recording_free(&r);
}

void test_timeline(void)
{
	struct kw_recording r, back;
	char err[256], *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *f;

	if (!ASSERT_EQ(kw_recording_load(&r, FIXTURE, err, sizeof(err)), 0, FIXTURE))
		return;
	ASSERT_EQ(r.nintervals, 3, "intervals of the fixture");
	sums(&r);
	ASSERT_PRINTS(&r, text, "timeline-split.txt", 80);
	ASSERT_PRINTS(&r, kw_timeline_csv, "timeline-split.csv", 0);
	ASSERT_PRINTS(&r, svg, "timeline-split.svg", 0);
	readable(&r, "split-7.3-vhe.json");

	/* written and read back, the intervals are the same, byte for byte */
	f = open_memstream(&a, &alen);
	if (ASSERT_TRUE(f, "memstream")) {
		ASSERT_EQ(kw_recording_write(&r, f), 0, "write");
		fclose(f);
		if (ASSERT_EQ(kw_recording_parse(&back, a, err, sizeof(err)), 0, "parse")) {
			ASSERT_EQ(back.nintervals, r.nintervals, "intervals back");
			for (size_t i = 0; i < r.nintervals && i < back.nintervals; i++)
				ASSERT_TRUE(same(&back.intervals[i], &r.intervals[i]),
					    "interval back");
			ASSERT_EQ(back.meta.start_monotonic_ns, 20576006288ULL, "start");
			f = open_memstream(&b, &blen);
			if (ASSERT_TRUE(f, "memstream"))
				kw_recording_write(&back, f), fclose(f);
			ASSERT_TRUE(alen == blen && !memcmp(a, b, alen), "the same JSON again");
			kw_recording_free(&back);
		}
	}
	free(a);
	free(b);
	kw_recording_free(&r);
	delta();
	old_intervals();
	wall_clock();
	tails_p99();
}
