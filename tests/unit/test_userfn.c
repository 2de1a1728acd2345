// SPDX-License-Identifier: GPL-2.0
/*
 * User-named functions: --count / --time parsing (user/userfn_opts.c), the recording's
 * "user_functions" (user/record.c: written, read back, written again byte for byte), the report
 * section and its JSON twin (user/userfn.c), and compare's rows (goldens).
 */
#include <errno.h>
#include <stdlib.h>

#include <jansson.h>

#include "test.h"
#include "compare.h"
#include "report.h"
#include "userfn.h"

static void parse(void)
{
	struct kw_ufunc_req q[KW_MAX_UFUNCS + 1] = {};
	unsigned int n = 0;
	char err[160] = "";

	ASSERT_EQ(kw_ufunc_parse("tdp_mmu_zap_leafs,tdp_iter_next", false, false, q, &n, err,
				 sizeof(err)),
		  0, "two names");
	ASSERT_EQ(n, 2, "two slots");
	ASSERT_STREQ(q[0].name, "tdp_mmu_zap_leafs", "first");
	ASSERT_FALSE(q[0].timed || q[0].optional, "--count: counted, required");
	/* again with --time: the same slot, now timed; -optional does not relax a required one */
	ASSERT_EQ(kw_ufunc_parse("tdp_iter_next", true, true, q, &n, err, sizeof(err)), 0, "again");
	ASSERT_EQ(n, 2, "no new slot");
	ASSERT_TRUE(q[1].timed, "timed by --time");
	ASSERT_FALSE(q[1].optional, "required by --count");
	ASSERT_EQ(kw_ufunc_parse("stage2_split_walker.isra.0", false, true, q, &n, err,
				 sizeof(err)),
		  0, "a compiler clone's name");
	ASSERT_TRUE(q[2].optional, "--count-optional");
	ASSERT_STREQ(kw_ufunc_option(&q[2]), "--count-optional", "option name");
	q[2].timed = true;
	ASSERT_STREQ(kw_ufunc_option(&q[2]), "--time-optional", "option name, timed");

	ASSERT_EQ(kw_ufunc_parse("a,,b", false, false, q, &n, err, sizeof(err)), -EINVAL, "empty");
	ASSERT_STREQ(err, "--count: an empty function name in 'a,,b'", "empty: message");
	ASSERT_EQ(kw_ufunc_parse("kvm_vm_ioctl,", true, false, q, &n, err, sizeof(err)), -EINVAL,
		  "trailing comma");
	ASSERT_EQ(kw_ufunc_parse("foo bar", true, false, q, &n, err, sizeof(err)), -EINVAL,
		  "a space");
	ASSERT_STREQ(err,
		     "--time: 'foo bar' is not a kernel function name (letters, digits, '_' and '.')",
		     "a space: message");
	ASSERT_EQ(kw_ufunc_parse("9lives", false, false, q, &n, err, sizeof(err)), -EINVAL,
		  "a leading digit");
	ASSERT_EQ(kw_ufunc_parse("a123456789012345678901234567890123456789012345678901234567890123",
				 false, false, q, &n, err, sizeof(err)),
		  -EINVAL, "64 characters");
	n = 3;
	ASSERT_EQ(kw_ufunc_parse("f4,f5,f6,f7,f8", false, false, q, &n, err, sizeof(err)), 0,
		  "up to 8");
	ASSERT_EQ(n, KW_MAX_UFUNCS, "8 slots");
	ASSERT_EQ(kw_ufunc_parse("f4,f9", false, false, q, &n, err, sizeof(err)), -EINVAL,
		  "a 9th");
	ASSERT_STREQ(err, "--count f9: at most 8 functions with --count and --time together",
		     "a 9th: message");
	ASSERT_EQ(n, KW_MAX_UFUNCS, "still 8");
}

/*
 * An x86 run of kvmwalk-load --scenario invalidate --refault=no (3 zaps) recorded with
 * --time tdp_mmu_zap_leafs --count tdp_iter_next --count-optional tdp_iter_skip_children:
 * @skips zaps stepped over the table (the patched kernel: 2, the base: the helper is absent).
 */
static void fill(struct kw_recording *r, int run, bool patched)
{
	static const char *const names[] = { "tdp_mmu_zap_leafs", "tdp_iter_next",
					     "tdp_iter_skip_children" };
	__u64 skips = patched ? 2 : 0;
	struct kw_trig t = { .trigger = KW_T_NOTIFIER, .pid = 4242 };

	memset(r, 0, sizeof(*r));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "x86");
	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "%s",
		 patched ? "7.3.4-kvmwalk-patched" : "7.3.4-kvmwalk-base");
	r->nufuncs = 3;
	for (int i = 0; i < 3; i++) {
		struct kw_ufunc *u = &r->ufuncs[i];

		snprintf(u->req.name, sizeof(u->req.name), "%s", names[i]);
		snprintf(u->plan.func, sizeof(u->plan.func), "%s", names[i]);
	}
	r->ufuncs[0].req.timed = true;
	r->ufuncs[0].plan.mech = KW_MECH_FENTRY;
	r->ufuncs[0].f.calls = 3;
	for (int i = 0; i < 3; i++)
		kw_hist_add(&r->ufuncs[0].f.dur, i ? 9000 + run * 100 - patched * 8000 : 60000 + run);
	r->ufuncs[0].f.bpf_runs = 6;
	r->ufuncs[0].f.bpf_ns = 3000;
	r->ufuncs[1].plan.mech = KW_MECH_KPROBE;
	snprintf(r->ufuncs[1].plan.reason, sizeof(r->ufuncs[1].plan.reason),
		 "fentry attach refused: Operation not supported");
	r->ufuncs[1].f.calls = 3 * 3 + 512 * (3 - skips) + 700 + run;
	r->ufuncs[2].req.optional = true;
	r->ufuncs[2].plan.mech = patched ? KW_MECH_FENTRY : KW_MECH_UNAVAILABLE;
	if (!patched)
		snprintf(r->ufuncs[2].plan.reason, sizeof(r->ufuncs[2].plan.reason),
			 "not in this kernel: not in /proc/kallsyms (a misspelt name, a function "
			 "of a module that is not loaded, or one inlined into every caller)");
	r->ufuncs[2].f.calls = skips;
	t.probe = 0;
	t.calls = 3;
	t.ns = r->ufuncs[0].f.dur.sum;
	kw_recording_add_utrig(r, &t);
	t.probe = 1;
	t.ns = 0;
	t.calls = 3 * 3 + 512 * (3 - skips);
	kw_recording_add_utrig(r, &t);
	t.trigger = KW_T_FAULT;
	t.calls = 700 + run;
	kw_recording_add_utrig(r, &t);
	if (skips) {
		t.probe = 2;
		t.trigger = KW_T_NOTIFIER;
		t.calls = skips;
		kw_recording_add_utrig(r, &t);
	}
}

static int section(FILE *f, const struct kw_recording *r)
{
	kw_ufuncs_print(f, r);
	return 0;
}

static int dump(FILE *f, json_t *j)
{
	int err = json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));

	json_decref(j);
	fputc('\n', f);
	return err;
}

static int report_json(FILE *f, const struct kw_recording *r)
{
	return dump(f, kw_ufuncs_report_json(r));
}

static int recording_json(FILE *f, const struct kw_recording *r)
{
	return dump(f, kw_ufuncs_json(r));
}

static void recording(void)
{
	struct kw_recording r, back;
	char *a = NULL, *b = NULL, err[128];
	size_t alen = 0, blen = 0;
	FILE *f;

	fill(&r, 0, false);
	ASSERT_PRINTS(&r, section, "userfn-report-base.txt", 80);
	ASSERT_PRINTS(&r, report_json, "userfn-report-base.json", 0);
	ASSERT_PRINTS(&r, recording_json, "userfn-recording-base.json", 0);
	kw_recording_free(&r);
	fill(&r, 0, true);
	ASSERT_PRINTS(&r, section, "userfn-report-patched.txt", 80);

	/* the whole recording: parsed and written again, not a byte changes */
	f = open_memstream(&a, &alen);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	ASSERT_EQ(kw_recording_write(&r, f), 0, "write");
	fclose(f);
	if (!ASSERT_EQ(kw_recording_parse(&back, a, err, sizeof(err)), 0, "parse"))
		goto out;
	ASSERT_EQ(back.nufuncs, 3, "functions read back");
	ASSERT_EQ(back.nutrigs, 4, "trigger rows read back");
	ASSERT_EQ(back.ufuncs[1].f.calls, 3 * 3 + 512 + 700, "calls read back");
	ASSERT_TRUE(back.ufuncs[0].req.timed && back.ufuncs[2].req.optional, "modes read back");
	f = open_memstream(&b, &blen);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	kw_recording_write(&back, f);
	fclose(f);
	ASSERT_TRUE(alen == blen && !memcmp(a, b, alen), "round trip byte for byte");
	kw_recording_free(&back);
out:
	free(a);
	free(b);
	kw_recording_free(&r);
}

#define RUNS 3

static void compare(void)
{
	struct kw_recording base[RUNS], new[RUNS];
	struct kw_compare_opts o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN };
	struct kw_compare c;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < RUNS; i++) {
		fill(&base[i], i, false);
		fill(&new[i], i, true);
	}
	if (!ASSERT_EQ(kw_compare_build(&c, base, RUNS, new, RUNS, &o), 0, "build"))
		goto out;
	f = open_memstream(&out, &len);
	if (ASSERT_TRUE(f, "open_memstream")) {
		ASSERT_EQ(kw_compare_print(f, &c, KW_COMPARE_TEXT), 0, "print");
		fclose(f);
		ASSERT_GOLDEN(out, len, "userfn-compare.txt");
		ASSERT_TRUE(kw_test_fits(out, 72), "72 columns");
	}
	kw_compare_free(&c);
out:
	free(out);
	for (int i = 0; i < RUNS; i++) {
		kw_recording_free(&base[i]);
		kw_recording_free(&new[i]);
	}
}

void test_userfn(void)
{
	parse();
	recording();
	compare();
}
