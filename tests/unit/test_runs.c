// SPDX-License-Identifier: GPL-2.0
/*
 * Runs of one command made with different probe sets (user/runs.c, user/workload.c and the
 * run selection of user/compare.c): the command's own phase times as the workloads print
 * them, the kind of each recording, what recording cost the command (report of several
 * files), and a comparison whose sides each hold bare, timing and full runs: which row comes
 * from which runs.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <jansson.h>

#include "test.h"
#include "compare.h"
#include "runs.h"
#include "workload.h"

/* ---- the command's own times ----------------------------------------------------------------- */

static const char dirty_log[] = "Random seed: 0x4305872f\n"
				"Test iterations: 3\n"
				"Testing guest mode: PA-bits:40,  VA-bits:48,  4K pages\n"
				"Populate memory time: 1.396243296s\n"
				"Enabling dirty logging time: 0.005486288s\n"
				"\n"
				"Iteration 1 dirty memory time: 0.010786752s\n"
				"Iteration 1 get dirty log time: 0.000960288s\n"
				"Iteration 1 clear dirty log time: 0.009144512s\n"
				"Iteration 2 dirty memory time: 1.907334304s\n"
				"Iteration 2 get dirty log time: 0.000179584s\n"
				"Iteration 2 clear dirty log time: 0.008287520s\n"
				"Disabling dirty logging time: 0.008572864s\n"
				"Get dirty log over 2 iterations took 0.001139872s. (Avg "
				"0.000569936s/iteration)\n";

static const char access_tracking[] = "Using lru_gen for aging\n"
				      "Populating memory             : 2.287599941s\n"
				      "Initial aging pass (lru_gen)\n"
				      "Re-populating memory          : 0.053755776s\n"
				      "Writing to populated memory   : 0.014687066s\n"
				      "Mark memory idle (lru_gen)    : 0.455489304s\n"
				      "Writing to idle memory        : 0.014193028s\n"
				      "Mark memory idle (lru_gen)    : 0.584209977s\n"
				      "Reading from idle memory      : 0.031194493s";

static void test_workload_parse(void)
{
	struct kw_workload w = {};
	char err[256] = "";
	int found;

	if (!ASSERT_EQ(kw_workload_parse(&w, dirty_log, err, sizeof(err)), 0, "dirty_log_perf_test"))
		return;
	ASSERT_STREQ(w.source, "dirty_log_perf_test", "recognised");
	ASSERT_EQ(w.nphases, 9, "populate, enable, 2 x 3 per iteration, disable; not the totals");
	ASSERT_STREQ(w.phases[1].phase, "dirty-log-enable", "kvmwalk-load's name");
	ASSERT_STREQ(w.phases[4].phase, "dirty-log-clear", "clear");
	ASSERT_EQ(w.phases[4].iteration, 1, "its iteration");
	ASSERT_EQ(w.phases[0].wall_ns, 1396243296, "nanoseconds exact");
	ASSERT_EQ(kw_workload_sum(&w, "dirty_log_perf_test", "dirty-log-clear", &found),
		  9144512 + 8287520, "summed over iterations");
	ASSERT_TRUE(found, "found");
	ASSERT_TRUE(kw_workload_first(&w, 2) && !kw_workload_first(&w, 5), "first of each");
	kw_workload_free(&w);

	if (!ASSERT_EQ(kw_workload_parse(&w, access_tracking, err, sizeof(err)), 0, "access"))
		return;
	ASSERT_STREQ(w.source, "access_tracking_perf_test", "recognised");
	ASSERT_EQ(w.nphases, 7, "seven times");
	ASSERT_STREQ(w.phases[3].phase, "mark-idle", "named");
	ASSERT_EQ(w.phases[3].iteration, 0, "the first pass");
	ASSERT_EQ(w.phases[5].iteration, 1, "the second pass: its repeat");
	ASSERT_EQ(w.phases[6].wall_ns, 31194493, "the last line without a newline");
	kw_workload_free(&w);

	ASSERT_EQ(kw_workload_parse(&w, "KVM_CREATE_MAPPINGS: total execution time: 1.5s\n"
					"Odd thing: 0.000000001s\n",
				    err, sizeof(err)),
		  0, "kvm_page_table_test, and an unknown label");
	ASSERT_STREQ(w.phases[0].phase, "create-mappings", "known");
	ASSERT_EQ(w.phases[0].wall_ns, 1500000000, "a short fraction");
	ASSERT_STREQ(w.phases[1].phase, "odd-thing", "an unknown label, made a name");
	ASSERT_STREQ(w.source, "selftest", "two tests' lines: a selftest");
	kw_workload_free(&w);

	ASSERT_EQ(kw_workload_parse(&w,
				    "{\"tool\": \"kvmwalk-load\", \"phases\": [{\"scenario\": "
				    "\"split\", \"phase\": \"touch\", \"iteration\": 0, "
				    "\"wall_ns\": 120}, {\"scenario\": \"split\", \"phase\": "
				    "\"dirty-log-enable\", \"iteration\": 1, \"wall_ns\": 7}]}",
				    err, sizeof(err)),
		  0, "kvmwalk-load --json");
	ASSERT_STREQ(w.source, "kvmwalk-load", "kvmwalk-load");
	ASSERT_EQ(w.nphases, 2, "its phases");
	ASSERT_STREQ(w.phases[1].scenario, "split", "scenario kept");
	kw_workload_free(&w);

	ASSERT_EQ(kw_workload_parse(&w, "time: 1.5 s\nTotal: 3s\nx: 1.1234567890s\n: 1.0s\n", err,
				    sizeof(err)),
		  -ENOENT, "nothing of the shape");
	ASSERT_TRUE(strstr(err, "no phase times"), "said");
	ASSERT_EQ(w.nphases, 0, "empty");
}

/* ---- hand-made runs ------------------------------------------------------------------------- */

#define RUNS 3

/*
 * arm64 NV, kvmwalk-load --scenario nested-unmap: each run two nested unmaps of a 48-bit IPA
 * space. The base kernel flushes after each of its 262,144 empty unmaps, the new one does not.
 * The full set's probes run inside every unmap and flush, so its nested unmap takes about 3x as
 * long as the timing set's (which times it once); bare runs have only the command's times.
 */
static void fill(struct kw_recording *r, bool patched, enum kw_run_kind kind, int run)
{
	/* the nested unmap without probes inside: 4.5 s before, 0.9 s after (+ run jitter) */
	__u64 nested = (patched ? 900 : 4500) * 1000000ULL + run * 37000000ULL;
	__u64 jitter = run * 11000000ULL;
	/* what the probes add inside it (full set) */
	double inside = kind == KW_RUN_FULL ? 3.0 : 1.0;
	__u64 wall = (__u64)(2 * nested * inside) + 400000000ULL + jitter;

	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "%s",
		 patched ? "7.3.4-kvmwalk-patched" : "7.3.4-kvmwalk-base");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "arm64");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "nested");
	snprintf(r->meta.command, sizeof(r->meta.command),
		 "kvmwalk-load --scenario=nested-unmap --vcpus=1 --mem=2M --iterations=2");
	snprintf(r->meta.probe_set, sizeof(r->meta.probe_set), "%s",
		 kind == KW_RUN_BARE ? "none" : kind == KW_RUN_TIMING ? "timing" : "all");
	snprintf(r->meta.attach, sizeof(r->meta.attach), "%s", kind == KW_RUN_BARE ? "" : "auto");
	r->meta.visits = true;
	r->meta.wall_ns = wall;
	r->meta.exit_status = 0;
	for (int p = 0; p < KW_NR_PROBES; p++) {
		bool on = kind == KW_RUN_FULL ||
			  (kind == KW_RUN_TIMING && (kw_probes_timing & KW_PROBE_BIT(p)));

		if (!kw_probe_in_arch(p, "arm64"))
			continue;
		r->plan[p].mech = on ? KW_MECH_FENTRY : KW_MECH_OFF;
		snprintf(r->plan[p].func, sizeof(r->plan[p].func), "%s", kw_probes[p].name);
		if (!on)
			snprintf(r->plan[p].reason, sizeof(r->plan[p].reason), "%s",
				 kind == KW_RUN_BARE ? "not selected (--probe none)"
						     : "not in the timing set (--probe all attaches it)");
	}
	/* the command's own phases: el1-entry once, a madvise per nested unmap */
	r->workload.phases = calloc(3, sizeof(*r->workload.phases));
	if (r->workload.phases) {
		r->workload.nphases = 3;
		snprintf(r->workload.source, sizeof(r->workload.source), "kvmwalk-load");
		snprintf(r->workload.from, sizeof(r->workload.from), "file");
		for (int i = 0; i < 3; i++) {
			struct kw_wl_phase *ph = &r->workload.phases[i];

			snprintf(ph->scenario, sizeof(ph->scenario), "nested-unmap");
			snprintf(ph->phase, sizeof(ph->phase), "%s", i ? "nested-madvise" : "el1-entry");
			ph->iteration = i;
			ph->wall_ns = i ? (__u64)(nested * inside) + 2000000 + jitter
					: 150000000 + jitter / 4;
		}
	}
	if (kind == KW_RUN_BARE)
		return;
	r->overhead.stats_enabled = true;
	r->funcs[KW_P_NESTED_UNMAP].calls = 2;
	for (int i = 0; i < 2; i++)
		kw_hist_add(&r->funcs[KW_P_NESTED_UNMAP].dur,
			    (__u64)(nested * inside) + i * 5000000ULL);
	r->funcs[KW_P_VM_IOCTL].calls = 8;
	r->funcs[KW_P_NOTIFIER].calls = 6;
	r->funcs[KW_P_MM_RELEASE].calls = 1;
	for (int i = 0; i < 8; i++)
		kw_hist_add(&r->funcs[KW_P_VM_IOCTL].dur,
			    (__u64)((40000 + i * 1000 + run * 300) * (inside > 1 ? 1.2 : 1)));
	for (int i = 0; i < 6; i++)
		kw_hist_add(&r->funcs[KW_P_NOTIFIER].dur,
			    i < 2 ? (__u64)(nested * inside) + 1000000 : 9000 + i * 100ULL);
	kw_hist_add(&r->funcs[KW_P_MM_RELEASE].dur, (__u64)(300000000 * inside) + jitter);
	if (kind == KW_RUN_TIMING) {
		r->overhead.run_cnt = 17;
		r->overhead.run_ns = 17 * (900 + run * 10);
		return;
	}
	r->overhead.run_cnt = 2100000;
	r->overhead.run_ns = 2100000ULL * (3000 + run * 20);
	r->funcs[KW_P_S2_UNMAP].calls = 524290;
	for (int i = 0; i < 1000; i++)
		kw_hist_add(&r->funcs[KW_P_S2_UNMAP].dur,
			    (patched ? 5400 : 33000) + (i * 7919 + run * 101) % 1000);
	r->funcs[KW_P_PGT_WALK].calls = 1048580;
	for (int i = 0; i < 1000; i++)
		kw_hist_add(&r->funcs[KW_P_PGT_WALK].dur, 2500 + (i * 31 + run * 7) % 100);
	r->counters[KW_C_UNMAP_CALLS] = 524290;
	r->counters[KW_C_UNMAP_EMPTY] = 524289;
	r->counters[KW_C_UNMAP_FLUSHES] = patched ? 1 : 524290;
	r->counters[KW_C_EMPTY_FLUSHES] = patched ? 0 : 524289;
	r->counters[KW_C_NESTED_ACTIVE] = 2;
	r->counters[KW_C_NESTED_ACTIVE_NS] = (__u64)(2 * nested * inside);
	r->counters[KW_C_NESTED_UNMAPS] = 524288;
	r->counters[KW_C_NESTED_EMPTY] = 524287;
	r->counters[KW_C_NESTED_FLUSHES] = patched ? 1 : 524288;
	r->counters[KW_C_NESTED_EMPTY_FLUSHES] = patched ? 0 : 524287;
	r->overhead.measured_ns = r->counters[KW_C_NESTED_ACTIVE_NS] + 300000000;
}

/* One side: RUNS bare, RUNS timing, RUNS full runs, interleaved as a measurement would be. */
static void fill_side(struct kw_recording *r, bool patched)
{
	for (int i = 0; i < 3 * RUNS; i++)
		fill(&r[i], patched, (enum kw_run_kind)(i % 3 == 0   ? KW_RUN_BARE
							: i % 3 == 1 ? KW_RUN_TIMING
								     : KW_RUN_FULL),
		     i / 3);
}

static const struct kw_compare_line *line_of(const struct kw_compare *c, const char *what)
{
	for (size_t i = 0; i < c->nsections; i++)
		for (size_t j = 0; j < c->sections[i].nlines; j++)
			if (!strcmp(c->sections[i].lines[j].what, what))
				return &c->sections[i].lines[j];
	return NULL;
}

/* the row comes from kind k on both sides, RUNS runs each, marked or not */
static void from(const struct kw_compare_runs *ru, enum kw_run_kind k, bool marked,
		 const char *what)
{
	ASSERT_EQ(ru->base, k, what);
	ASSERT_EQ(ru->new, k, what);
	ASSERT_EQ(ru->n_base, RUNS, what);
	ASSERT_EQ(ru->n_new, RUNS, what);
	ASSERT_EQ(ru->instrumented, marked, what);
}

static void golden(const char *out, size_t len, const char *name, int width)
{
	ASSERT_TRUE(kw_test_fits(out, width), name);
	ASSERT_GOLDEN(out, len, name);
}

static void test_kinds(void)
{
	struct kw_recording r[3 * RUNS] = {};
	double share;
	const char *of;

	fill_side(r, false);
	ASSERT_EQ(kw_run_kind(&r[0]), KW_RUN_BARE, "--probe none");
	ASSERT_EQ(kw_run_kind(&r[1]), KW_RUN_TIMING, "--probe timing");
	ASSERT_EQ(kw_run_kind(&r[2]), KW_RUN_FULL, "every probe");
	/* by what attached, not by the name: the timing set with a walk probe is cheap */
	r[1].plan[KW_P_S2_UNMAP].mech = KW_MECH_KPROBE;
	ASSERT_EQ(kw_run_kind(&r[1]), KW_RUN_CHEAP, "timing + an unmap probe: cheap");
	r[1].plan[KW_P_S2_UNMAP].mech = KW_MECH_OFF;
	/* a timing probe this kernel lacks leaves a timing run */
	r[1].plan[KW_P_NESTED_UNMAP].mech = KW_MECH_UNAVAILABLE;
	ASSERT_EQ(kw_run_kind(&r[1]), KW_RUN_TIMING, "unavailable is not attached");
	r[1].plan[KW_P_NESTED_UNMAP].mech = KW_MECH_FENTRY;
	/* a recording without plans (older, hand-made): everything it has, full */
	ASSERT_EQ(kw_run_kind(&(struct kw_recording){}), KW_RUN_FULL, "no plan: full");
	/* the probes' share: a timing run's is of the operations it times */
	share = kw_run_cost_share(&r[1], &of);
	ASSERT_STREQ(of, "VM ioctls, notifiers, teardowns", "what it is of");
	ASSERT_TRUE(share > 0 && share < 1e-5, "a few runs against seconds");
	share = kw_run_cost_share(&r[2], &of);
	/* issue 36: named for the arch, never "x86" on arm64 */
	ASSERT_STREQ(of, "outermost walks", "a full arm64 run's");
	ASSERT_TRUE(share > 0.1 && share < 1, "millions of runs: 23 %");
	snprintf(r[2].meta.arch, sizeof(r[2].meta.arch), "x86");
	kw_run_cost_share(&r[2], &of);
	ASSERT_STREQ(of, "TDP MMU zaps, fast page faults", "a full x86 run's");
	snprintf(r[2].meta.arch, sizeof(r[2].meta.arch), "arm64");
	ASSERT_TRUE(isnan(kw_run_cost_share(&r[0], &of)), "a bare run: none");
	kw_test_free_side(r, 3 * RUNS);
}

/* What recording cost the command: report of several files. */
static void test_cost(void)
{
	struct kw_recording r[3 * RUNS] = {};
	const char *paths[3 * RUNS];
	char name[3 * RUNS][24], buf[512];
	const struct kw_cost_row *wall;
	struct kw_cost c = {};
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	fill_side(r, false);
	for (int i = 0; i < 3 * RUNS; i++) {
		snprintf(name[i], sizeof(name[i]), "%s%d.json",
			 kw_run_kind_names[kw_run_kind(&r[i])], i / 3 + 1);
		paths[i] = name[i];
	}
	if (!ASSERT_EQ(kw_cost_build(&c, r, 3 * RUNS, 0.95, KW_CI_HODGES_LEHMANN), 0, "build"))
		goto out;
	ASSERT_EQ(c.ref, KW_RUN_BARE, "against the bare runs");
	ASSERT_EQ(c.runs[KW_RUN_TIMING], RUNS, "timing runs");
	ASSERT_EQ(c.nrows, 3, "wall time, el1-entry, nested-madvise");
	wall = kw_cost_wall(&c);
	if (ASSERT_TRUE(wall, "a wall-time row")) {
		ASSERT_TRUE(wall->has[KW_RUN_FULL] && wall->vs[KW_RUN_FULL].significant, "full");
		ASSERT_NEAR(wall->vs[KW_RUN_FULL].delta_pct, 191.3, 0.1, "full: 2.9x");
		ASSERT_FALSE(wall->has[KW_RUN_BARE], "not against itself");
		kw_cost_sentence(buf, sizeof(buf), &c, wall, KW_RUN_FULL);
		ASSERT_STREQ(buf,
			     "record with every probe slowed the command by 191.3 % (wall time, "
			     "medians of 3 runs against 3 bare runs, 90.0 % interval [+186.3,+196.4] "
			     "%)",
			     "the sentence");
	}
	f = open_memstream(&out, &len);
	if (!ASSERT_TRUE(f, "memstream"))
		goto out;
	ASSERT_EQ(kw_cost_print(f, &c, paths), 0, "print");
	fclose(f);
	golden(out, len, "report-runs.txt", 80);
	free(out);
	out = NULL;
	f = open_memstream(&out, &len);
	if (!ASSERT_TRUE(f, "memstream"))
		goto out;
	ASSERT_EQ(kw_cost_json(f, &c, r, paths), 0, "json");
	fclose(f);
	{
		json_t *j = json_loads(out, 0, NULL);

		ASSERT_TRUE(j, "JSON");
		json_decref(j);
	}
	golden(out, len, "report-runs.json", 1000);
out:
	free(out);
	kw_cost_free(&c);
	kw_test_free_side(r, 3 * RUNS);
}

static void print_golden(const struct kw_compare *c, const char *name)
{
	static const char *const ext[] = { "txt", "md", "json" };

	for (int fmt = KW_COMPARE_TEXT; fmt <= KW_COMPARE_JSON; fmt++) {
		char *out = NULL, g[64];
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		if (!ASSERT_TRUE(f, "open_memstream"))
			return;
		ASSERT_EQ(kw_compare_print(f, c, fmt), 0, "print");
		fclose(f);
		snprintf(g, sizeof(g), "%s.%s", name, ext[fmt]);
		golden(out, len, g, fmt == KW_COMPARE_TEXT ? 72 : 4000);
		free(out);
	}
}

/* A side with bare, timing and full runs: which rows come from which. */
static void test_mixed(void)
{
	struct kw_recording base[3 * RUNS] = {}, new[3 * RUNS] = {};
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	const struct kw_compare_row *row;
	const struct kw_compare_line *l;
	struct kw_compare c = {};

	fill_side(base, false);
	fill_side(new, true);
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3 * RUNS, new, 3 * RUNS, &o), 0, "build"))
		goto out;
	ASSERT_TRUE(c.mixed, "three kinds");
	ASSERT_EQ(c.base.kinds[KW_RUN_BARE], RUNS, "base: bare runs");
	ASSERT_EQ(c.new.kinds[KW_RUN_FULL], RUNS, "new: full runs");
	/* the command's own times: bare runs */
	row = kw_test_row_of(&c, "command", "wall time");
	if (ASSERT_TRUE(row, "wall time row"))
		from(&row->runs, KW_RUN_BARE, false, "wall time: bare");
	row = kw_test_row_of(&c, "phases: nested-unmap", "nested-madvise");
	if (ASSERT_TRUE(row, "phase row")) {
		from(&row->runs, KW_RUN_BARE, false, "phase: bare");
		ASSERT_NEAR(row->change.delta_pct, -79.1, 0.1, "the phase without kvmwalk");
	}
	/* an operation the timing set times: its times from timing runs, its calls from full */
	row = kw_test_row_of(&c, "kvm_nested_s2_unmap", "mean");
	if (ASSERT_TRUE(row, "nested unmap mean"))
		from(&row->runs, KW_RUN_TIMING, false, "nested unmap time: timing");
	row = kw_test_row_of(&c, "kvm_nested_s2_unmap", "calls/run");
	if (ASSERT_TRUE(row, "nested unmap calls"))
		from(&row->runs, KW_RUN_FULL, false, "nested unmap calls: full");
	row = kw_test_row_of(&c, "kvm_vm_ioctl", "median");
	if (ASSERT_TRUE(row, "ioctl median"))
		from(&row->runs, KW_RUN_TIMING, false, "an ioctl's time: timing");
	/* a walk's time: only the full runs have it, marked */
	row = kw_test_row_of(&c, "kvm_pgtable_stage2_unmap", "median");
	if (ASSERT_TRUE(row, "unmap median"))
		from(&row->runs, KW_RUN_FULL, true, "a walk's time: full, marked");
	row = kw_test_row_of(&c, "counters", "nested_unmaps");
	if (ASSERT_TRUE(row, "counter"))
		from(&row->runs, KW_RUN_FULL, false, "counters: full");
	/* the section's headline: per valid nested MMU needs the unmap probe, so full runs */
	l = line_of(&c, "time per nested unmap");
	if (ASSERT_TRUE(l, "time per nested unmap"))
		from(&l->runs, KW_RUN_FULL, true, "per nested unmap: full, marked");
	l = line_of(&c, "nested unmap time, mean");
	if (ASSERT_TRUE(l, "the timing runs' line")) {
		from(&l->runs, KW_RUN_TIMING, false, "its mean: timing");
		ASSERT_NEAR(l->change.delta_pct, -79.3, 0.1, "the change without the probes inside");
	}
	l = line_of(&c, "flushes");
	if (ASSERT_TRUE(l, "flushes per nested unmap"))
		from(&l->runs, KW_RUN_FULL, false, "counts: full");
	/* what recording cost each side's command */
	ASSERT_TRUE(c.base.has_slow[KW_RUN_FULL] && c.base.has_slow[KW_RUN_TIMING], "base: both");
	ASSERT_FALSE(c.base.slow[KW_RUN_TIMING].significant, "timing: no slowdown");
	ASSERT_TRUE(c.base.slow[KW_RUN_FULL].significant, "full: slowed");
	ASSERT_EQ(c.base.overhead_kind, KW_RUN_FULL, "the overhead of the full runs");
	print_golden(&c, "compare-mixed");
	kw_compare_free(&c);
	memset(&c, 0, sizeof(c));

	/*
	 * The VM processes the timing and full runs saw: a bare run saw none and has no say, so
	 * each side's VMM is one value and no environment difference (ab-teardown's report listed
	 * "VMM base: kvmwalk-load | (no VM process)" with the same on both sides)
	 */
	for (int i = 0; i < 3 * RUNS; i++) {
		struct kw_vm vm = { .pid = 100 + i };

		snprintf(vm.comm, sizeof(vm.comm), "kvmwalk-load");
		snprintf(vm.vmm, sizeof(vm.vmm), "kvmwalk-load");
		base[i].meta.cond.recorded = new[i].meta.cond.recorded = true; /* compared */
		if (kw_run_kind(&base[i]) != KW_RUN_BARE)
			kw_recording_add_vm(&base[i], &vm);
		if (kw_run_kind(&new[i]) != KW_RUN_BARE)
			kw_recording_add_vm(&new[i], &vm);
	}
	if (ASSERT_EQ(kw_compare_build(&c, base, 3 * RUNS, new, 3 * RUNS, &o), 0, "build, VMs")) {
		for (size_t i = 0; i < c.ndiffs; i++)
			ASSERT_TRUE(strcmp(c.diffs[i].what, "VMM"), "no VMM difference: bare runs say none");
		kw_compare_free(&c);
		memset(&c, 0, sizeof(c));
	}

	/*
	 * new has no timing runs: the ioctl's times come from the kind both sides have, full, and
	 * the nested unmap's too; the wall time still from bare runs
	 */
	for (int i = 1; i < 3 * RUNS; i += 3)
		kw_recording_free(&new[i]);
	for (int i = 1; i < 3 * RUNS; i += 3)
		fill(&new[i], true, KW_RUN_FULL, i / 3);
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3 * RUNS, new, 3 * RUNS, &o), 0, "build 2"))
		goto out;
	row = kw_test_row_of(&c, "kvm_vm_ioctl", "median");
	if (ASSERT_TRUE(row, "ioctl median")) {
		ASSERT_EQ(row->runs.base, KW_RUN_FULL, "full on both sides");
		ASSERT_EQ(row->runs.n_new, 2 * RUNS, "every full run of new");
		ASSERT_TRUE(row->runs.instrumented, "marked");
	}
	ASSERT_FALSE(line_of(&c, "nested unmap time, mean"), "no timing runs on a side: no line");
	row = kw_test_row_of(&c, "command", "wall time");
	if (ASSERT_TRUE(row, "wall time"))
		from(&row->runs, KW_RUN_BARE, false, "still bare");

	/* the bare runs of new gone too: the wall time from the kinds each side has, said */
	kw_compare_free(&c);
	memset(&c, 0, sizeof(c));
	if (!ASSERT_EQ(kw_compare_build(&c, base, 3 * RUNS, new + 1, 2, &o), 0, "build 3"))
		goto out;
	row = kw_test_row_of(&c, "command", "wall time");
	if (ASSERT_TRUE(row, "wall time")) {
		ASSERT_EQ(row->runs.base, KW_RUN_FULL, "the kind both have: full");
		ASSERT_TRUE(row->runs.instrumented, "marked");
	}
out:
	kw_compare_free(&c);
	kw_test_free_side(base, 3 * RUNS);
	kw_test_free_side(new, 3 * RUNS);
}

/* A recording's new parts survive its JSON. */
static void test_roundtrip(void)
{
	struct kw_recording r = {}, back = {};
	char *out = NULL, err[256];
	size_t len = 0;
	FILE *f;

	fill(&r, false, KW_RUN_TIMING, 1);
	f = open_memstream(&out, &len);
	if (!ASSERT_TRUE(f, "memstream"))
		goto out;
	ASSERT_EQ(kw_recording_write(&r, f), 0, "write");
	fclose(f);
	if (!ASSERT_EQ(kw_recording_parse(&back, out, err, sizeof(err)), 0, "parse"))
		goto out;
	ASSERT_STREQ(back.meta.probe_set, "timing", "probe_set");
	ASSERT_EQ(back.meta.wall_ns, r.meta.wall_ns, "wall_ns");
	ASSERT_EQ(back.workload.nphases, 3, "phases");
	ASSERT_STREQ(back.workload.source, "kvmwalk-load", "source");
	ASSERT_STREQ(back.workload.from, "file", "from");
	ASSERT_STREQ(back.workload.phases[2].phase, "nested-madvise", "a phase");
	ASSERT_EQ(back.workload.phases[2].wall_ns, r.workload.phases[2].wall_ns, "its time");
	ASSERT_EQ(kw_run_kind(&back), KW_RUN_TIMING, "the kind read back");
out:
	free(out);
	kw_recording_free(&r);
	kw_recording_free(&back);
}

void test_runs(void)
{
	test_workload_parse();
	test_kinds();
	test_cost();
	test_mixed();
	test_roundtrip();
}
