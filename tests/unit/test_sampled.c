// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled mode: the function table built from kallsyms and the classification of a stack
 * (user/sample_funcs.c, the same search and rules as bpf/sample.bpf.c), the estimate and its
 * interval, the recording's "sampled" section (user/sampled.c: written, read back, written again
 * byte for byte) and the report's section with its JSON twin (user/sampled_view.c, goldens).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "test.h"
#include "prom_sampled.h"
#include "record.h"
#include "sample_funcs.h"
#include "sampled_view.h"

void kw_test_recording_fixture(struct kw_recording *r);

/* a kallsyms of a few functions, by address as ksyms__load() leaves it */
static struct ksym syms[] = {
	{ 0x1000, "kvm_vcpu_ioctl", "" },
	{ 0x1400, "some_other_fn", "" },
	{ 0x2000, "kvm_pgtable_walk", "" },
	{ 0x2300, "__kvm_pgtable_walk", "" },
	{ 0x2800, "stage2_free_walker", "" },
	/* an alias at the same address: the function still ends at the next higher one */
	{ 0x2900, "foo", "" },
	{ 0x2900, "foo_alias", "" },
	{ 0x3000, "kvm_mmu_notifier_release", "" },
	{ 0x3100, "kvm_destroy_vm", "" },
	{ 0x3200, "bar", "" },
	{ 0x4000, "kvm_nested_s2_unmap", "" },
	{ 0x4100, "__kvm_tlb_flush_vmid_range", "" },
	{ 0x4180, "kvm_mmu_notifier_invalidate_range_start", "" },
	/* the last symbol: nothing after it says where it ends, so it is left out */
	{ 0x5000, "kvm_vm_ioctl", "" },
};

static void table(void)
{
	struct ksyms ks = { .syms = syms, .n = sizeof(syms) / sizeof(syms[0]) };
	struct kw_sample_table *t = calloc(1, sizeof(*t));
	unsigned int what, trig;
	int f;

	if (!ASSERT_TRUE(t, "calloc"))
		return;
	ASSERT_EQ(kw_sample_table_build(t, kw_sample_fdefs("arm64"), &ks), 0, "built");
	ASSERT_EQ(t->n, 9, "the nine catalogue functions with an end");
	ASSERT_EQ(t->missing, 30 - 10, "catalogue functions not in this kallsyms");
	/* kvm_pgtable_walk, stage2_free_walker, __kvm_tlb_flush_vmid_range, and (other) */
	ASSERT_EQ(t->nwhats, 4, "what labels");
	ASSERT_STREQ(t->whats[0], "(other)", "label 0");
	for (unsigned int i = 1; i < t->n; i++)
		ASSERT_TRUE(t->funcs[i - 1].end <= t->funcs[i].start, "sorted, not overlapping");
	f = kw_sample_lookup(t, 0x2300);
	if (ASSERT_TRUE(f >= 0, "__kvm_pgtable_walk found")) {
		ASSERT_EQ(t->funcs[f].end, 0x2800, "ends at the next symbol");
		ASSERT_STREQ(t->whats[t->funcs[f].what], "kvm_pgtable_walk", "the walk's label");
	}
	f = kw_sample_lookup(t, 0x28ff);
	ASSERT_TRUE(f >= 0 && t->funcs[f].start == 0x2800, "last byte of stage2_free_walker");
	ASSERT_EQ(kw_sample_lookup(t, 0x2900), -1, "its end is not in it");
	ASSERT_EQ(kw_sample_lookup(t, 0x0fff), -1, "below the table");
	ASSERT_EQ(kw_sample_lookup(t, 0x1400), -1, "a gap");
	ASSERT_EQ(kw_sample_lookup(t, 0x5000), -1, "the last symbol: no end, not in the table");
	f = kw_sample_lookup(t, 0x3100);
	ASSERT_TRUE(f >= 0 && t->funcs[f].end == 0x3200 && t->funcs[f].trigger == KW_ST_TEARDOWN,
		    "kvm_destroy_vm, a teardown trigger");

	{
		/* a teardown: the free walker inside the walk, under the notifier's release */
		unsigned long long st[] = { 0x2810, 0x2310, 0x2010, 0x2910, 0x3010, 0x3110, 0x1010 };

		ASSERT_TRUE(kw_sample_classify(t, st, 7, &what, &trig), "a KVM stack");
		ASSERT_STREQ(t->whats[what], "stage2_free_walker", "the innermost work frame");
		ASSERT_EQ(trig, KW_ST_TEARDOWN, "the innermost trigger, not the ioctl outside it");
	}
	{
		/* a flush in a nested unmap in a notifier: the flush, the nested unmap */
		unsigned long long st[] = { 0x4110, 0x2010, 0x4010, 0x4190 };

		ASSERT_TRUE(kw_sample_classify(t, st, 4, &what, &trig), "a KVM stack");
		ASSERT_STREQ(t->whats[what], "__kvm_tlb_flush_vmid_range", "the flush");
		ASSERT_EQ(trig, KW_ST_NESTED_UNMAP, "nested unmap");
	}
	{
		/* in the ioctl, outside any work function */
		unsigned long long st[] = { 0x1410, 0x1010 };

		ASSERT_TRUE(kw_sample_classify(t, st, 2, &what, &trig), "a trigger alone");
		ASSERT_EQ(what, 0, "(other)");
		ASSERT_EQ(trig, KW_ST_VCPU_IOCTL, "vcpu_ioctl");
	}
	{
		/* a work frame with no trigger (a kernel thread) */
		unsigned long long st[] = { 0x2010, 0x3210 };

		ASSERT_TRUE(kw_sample_classify(t, st, 2, &what, &trig), "work alone");
		ASSERT_STREQ(t->whats[what], "kvm_pgtable_walk", "the walk");
		ASSERT_EQ(trig, KW_ST_NONE, "no trigger");
	}
	{
		unsigned long long st[] = { 0x1410, 0x3210, 0x9000 };

		ASSERT_FALSE(kw_sample_classify(t, st, 3, &what, &trig), "no KVM frame");
	}
	ASSERT_TRUE(kw_sample_fdefs("x86") && !kw_sample_fdefs("riscv"), "catalogues");
	ASSERT_EQ(kw_sample_table_build(t, kw_sample_fdefs("x86"), &ks), 0, "x86: its triggers");
	ASSERT_EQ(t->n, 4, "x86: kvm_vcpu_ioctl, the notifier's, kvm_destroy_vm");
	free(t);
}

/* a full table: every function is found in KW_SAMPLE_SEARCH_STEPS halvings, gaps are not */
static void full_table(void)
{
	struct kw_sample_table *t = calloc(1, sizeof(*t));
	int bad = 0;

	if (!ASSERT_TRUE(t, "calloc"))
		return;
	t->n = KW_SAMPLE_MAX_FUNCS;
	for (unsigned int i = 0; i < t->n; i++) {
		t->funcs[i].start = 0x10000 + 0x100 * i;
		t->funcs[i].end = t->funcs[i].start + 0x80;
	}
	for (unsigned int i = 0; i < t->n; i++) {
		bad += kw_sample_lookup(t, t->funcs[i].start) != (int)i;
		bad += kw_sample_lookup(t, t->funcs[i].end - 1) != (int)i;
		bad += kw_sample_lookup(t, t->funcs[i].end) != -1;
	}
	ASSERT_EQ(bad, 0, "256 functions, first and last byte, and the gap after each");
	free(t);
}

static void estimate(void)
{
	struct kw_sample_est e;

	kw_sample_estimate(0, 49, &e);
	ASSERT_NEAR(e.s, 0, 1e-12, "none: 0 s");
	ASSERT_NEAR(e.hi, 3.0 / 49, 1e-12, "none: at most 3 periods (95 %)");
	kw_sample_estimate(100, 49, &e);
	ASSERT_NEAR(e.s, 100.0 / 49, 1e-12, "n / rate");
	ASSERT_NEAR(e.lo, (100 - 19.6) / 49, 1e-9, "minus 1.96 sqrt(n) / rate");
	ASSERT_NEAR(e.hi, (100 + 19.6) / 49, 1e-9, "plus 1.96 sqrt(n) / rate");
	kw_sample_estimate(2, 49, &e);
	ASSERT_NEAR(e.lo, 0, 1e-12, "clamped at 0");
}

static void fill(struct kw_recording *r)
{
	static const struct kw_sample_row rows[] = {
		{ 4242, "stage2_free_walker", "vm_teardown", 21, "" },
		{ 4242, "kvm_pgtable_walk", "vm_teardown", 12, "" },
		{ 4242, "(other)", "vm_teardown", 1, "" },
		{ 4242, "__kvm_tlb_flush_vmid_range", "mmu_notifier", 3, "" },
		{ 4243, "kvm_flush_remote_tlbs_memslot", "vm_ioctl", 1, "" },
		{ 88, "kvm_pgtable_walk", "(none)", 2, "" },
	};
	struct kw_vm v = { .pid = 4243, .comm = "qemu-system-aar", .vm = "web01" };

	kw_test_recording_fixture(r);
	r->sampled = (struct kw_sampled){ .hz = 49, .ncpus = 2, .seconds = 3.5, .samples = 343,
					  .kernel = 120, .no_kvm = 80, .nfuncs = 27,
					  .nmissing = 3, .run_ns = 1715000, .run_cnt = 343 };
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		kw_sampled_add_row(&r->sampled, &rows[i]);
	kw_sampled_sort(&r->sampled);
	if (!kw_recording_vm(r, v.pid))
		kw_recording_add_vm(r, &v);
}

static char *render(const struct kw_recording *r, bool json, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (json) {
		json_t *o = kw_sampled_report_json(r);

		json_dumpf(o, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
		fputc('\n', f);
		json_decref(o);
	} else {
		kw_sampled_print(f, r);
	}
	fclose(f);
	return buf;
}

static void section(void)
{
	struct kw_recording r = {}, back = {};
	char *a = NULL, *b = NULL, err[160];
	size_t alen = 0, blen = 0, len;
	FILE *f;

	fill(&r);
	a = render(&r, false, &len);
	if (ASSERT_TRUE(a, "text")) {
		ASSERT_GOLDEN(a, len, "sampled-report.txt");
		ASSERT_TRUE(kw_test_fits(a, 80), "80 columns");
	}
	free(a);
	a = render(&r, true, &len);
	if (ASSERT_TRUE(a, "json"))
		ASSERT_GOLDEN(a, len, "sampled-report.json");
	free(a);
	a = NULL;

	/* the whole recording: parsed and written again, not a byte changes */
	f = open_memstream(&a, &alen);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	kw_recording_write(&r, f);
	fclose(f);
	if (!ASSERT_EQ(kw_recording_parse(&back, a, err, sizeof(err)), 0, err))
		goto out;
	ASSERT_EQ(back.sampled.nrows, 6, "rows read back");
	f = open_memstream(&b, &blen);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	kw_recording_write(&back, f);
	fclose(f);
	ASSERT_TRUE(alen == blen && !memcmp(a, b, alen), "written again byte for byte");

	/* a recording without the section: none in the report */
	kw_recording_free(&r);
	kw_test_recording_fixture(&r);
	free(a);
	a = render(&r, false, &len);
	ASSERT_EQ(len, 0, "not sampled: no section");
	ASSERT_TRUE(!kw_sampled_report_json(&r), "not sampled: no JSON");

	/* a bad section is refused, saying where */
	{
		static const char *bad =
			"{\"hz\":0,\"cpus\":2,\"seconds\":1,\"samples\":1,\"kernel_samples\":1,"
			"\"no_kvm_samples\":0,\"dropped\":0,\"deep_stacks\":0,\"functions\":1,"
			"\"functions_missing\":0,\"bpf_run_ns\":0,\"bpf_run_count\":0,\"rows\":[]}";
		json_t *o = json_loads(bad, 0, NULL);
		struct kw_sampled s;

		ASSERT_EQ(kw_sampled_from_json(&s, o, err, sizeof(err)), -EINVAL, "hz 0");
		ASSERT_STREQ(err, "sampled.hz: 0, not 1 to 999", "says which");
		json_decref(o);
	}
out:
	kw_recording_free(&r);
	kw_recording_free(&back);
	free(a);
	free(b);
}

/* serve --sample's families: one series per (what, trigger), or per process with --per-vm */
/* The sampled families of r as serve writes them (NULL: failed, said), *len its length. */
static char *exposition(const struct kw_recording *r, bool per_vm, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!ASSERT_TRUE(f, "open_memstream"))
		return NULL;
	ASSERT_EQ(prom_put_sampled(f, r, per_vm), 0, "written");
	fclose(f);
	return buf;
}

static void prom(void)
{
	struct kw_recording r = {};
	char *buf = NULL;
	size_t len = 0;

	fill(&r);
	/* prom-*.txt: tests/prom/check-names reads the families the rules may use from these */
	for (int per_vm = 0; per_vm < 2; per_vm++) {
		buf = exposition(&r, per_vm, &len);
		if (!buf)
			goto out;
		ASSERT_GOLDEN(buf, len, per_vm ? "prom-sampled-per-vm.txt" : "prom-sampled.txt");
		free(buf);
		buf = NULL;
	}
out:
	free(buf);
	kw_recording_free(&r);
}

/*
 * serve's folding: an exited process's rows merge by (what, trigger, VM name) into pid 0 rows
 * that keep the name, so that the series without a pid label goes on unchanged.
 */
static void fold(void)
{
	static const struct kw_sample_row dead[] = {
		{ 4243, "kvm_pgtable_walk", "vm_teardown", 30, "" },
		{ 4250, "kvm_pgtable_walk", "vm_teardown", 5, "" },
		{ 4251, "kvm_pgtable_walk", "vm_teardown", 7, "" },
		{ 4251, "kvm_pgtable_walk", "mmu_notifier", 2, "" },
	};
	static const char *const names[] = { "web01", "web01", "db", "db" };
	struct kw_sampled folded = {};
	struct kw_recording r = {};
	char *buf = NULL;
	size_t len = 0;

	for (size_t i = 0; i < sizeof(dead) / sizeof(dead[0]); i++)
		if (!ASSERT_EQ(kw_sampled_fold(&folded, &dead[i], names[i]), 0, "fold"))
			goto out;
	if (!ASSERT_EQ(folded.nrows, 3, "web01's two processes in one row, db's triggers apart"))
		goto out;
	ASSERT_EQ(folded.rows[0].pid, 0, "pid 0");
	ASSERT_STREQ(folded.rows[0].vm, "web01", "the name kept");
	ASSERT_EQ(folded.rows[0].samples, 35, "30 + 5");
	ASSERT_STREQ(folded.rows[1].vm, "db", "db");
	ASSERT_EQ(folded.rows[1].samples, 7, "db's teardown");
	ASSERT_STREQ(folded.rows[2].trigger, "mmu_notifier", "db's notifier apart");
	/* the exposition: the folded rows' names, with and without a pid label */
	fill(&r);
	for (size_t i = 0; i < folded.nrows; i++)
		if (!ASSERT_EQ(kw_sampled_add_row(&r.sampled, &folded.rows[i]), 0, "add"))
			goto out;
	for (int per_vm = 0; per_vm < 2; per_vm++) {
		buf = exposition(&r, per_vm, &len);
		if (!buf)
			goto out;
		/* web01's two exited processes: 35, under its name */
		ASSERT_TRUE(strstr(buf, per_vm
			? "kvmwalk_sampled_samples_total{what=\"kvm_pgtable_walk\",trigger=\"vm_teardown\",pid=\"0\",vm=\"web01\"} 35\n"
			: "kvmwalk_sampled_samples_total{what=\"kvm_pgtable_walk\",trigger=\"vm_teardown\",vm=\"web01\"} 35\n"),
			per_vm ? "folded web01 under pid 0" : "folded web01 by name");
		ASSERT_TRUE(strstr(buf, "trigger=\"mmu_notifier\",") &&
			    strstr(buf, "vm=\"db\"} 2\n"), "db's notifier row");
		free(buf);
		buf = NULL;
	}
out:
	free(buf);
	kw_sampled_free(&folded);
	kw_recording_free(&r);
}

void test_sampled(void)
{
	table();
	full_table();
	estimate();
	section();
	prom();
	fold();
}
