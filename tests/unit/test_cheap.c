// SPDX-License-Identifier: GPL-2.0
/*
 * The cheap probe set (user/probes.c), serve's default: --probe's set names, what the set holds,
 * and, read from the files themselves, that with only its probes attached the exposition still
 * has every family dashboards/kvmwalk.json and kvmwalk.rules.yml read and every function they
 * name, while each probe left out is served as off with the reason.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "probes.h"
#include "prom.h"

static const char *const dash_files[] = { "../../dashboards/kvmwalk.json",
					  "../../dashboards/kvmwalk.rules.yml" };

/* What the set leaves out, and why (probes.c): each is checked to be out, the rest in. */
static const int left_out[] = { KW_P_VCPU_IOCTL, KW_P_GUEST_FAULT, KW_P_MMU_LOCK,
				KW_P_TDP_ITER_NEXT, KW_P_TDP_CLEAR_DIRTY };

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		buf = calloc(1, n + 1);
		if (buf)
			len = fread(buf, 1, n, f);
		if (buf && len != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	}
	fclose(f);
	return buf;
}

static void test_parse(void)
{
	struct kw_probe_sel s = { 42, 42, false, KW_SET_LIST };
	char err[200] = "";

	ASSERT_EQ(kw_probe_sel_parse("cheap", &s, err, sizeof(err)), 0, "cheap");
	ASSERT_EQ(s.probes, kw_probes_cheap, "cheap: the set");
	ASSERT_EQ(s.named, 0, "cheap: nothing required");
	ASSERT_TRUE(s.cheap, "cheap: said");
	ASSERT_EQ(kw_probe_sel_parse("cheap,tdp_iter_next", &s, err, sizeof(err)), 0, "plus one");
	ASSERT_EQ(s.probes, kw_probes_cheap | KW_PROBE_BIT(KW_P_TDP_ITER_NEXT), "plus one: set");
	ASSERT_EQ(s.named, KW_PROBE_BIT(KW_P_TDP_ITER_NEXT), "plus one: only it required");
	ASSERT_TRUE(s.cheap, "plus one: still the cheap set");
	/* the fault-side lock wait counts only inside guest_fault: naming it brings that along */
	ASSERT_EQ(kw_probe_sel_parse("cheap,mmu_lock_wait", &s, err, sizeof(err)), 0, "lock wait");
	ASSERT_EQ(s.probes,
		  kw_probes_cheap | KW_PROBE_BIT(KW_P_MMU_LOCK) | KW_PROBE_BIT(KW_P_GUEST_FAULT),
		  "lock wait: with guest_fault");
	ASSERT_EQ(s.named, KW_PROBE_BIT(KW_P_MMU_LOCK) | KW_PROBE_BIT(KW_P_GUEST_FAULT),
		  "lock wait: both required");
	ASSERT_TRUE(s.cheap, "lock wait: still the cheap set");
	ASSERT_EQ(kw_probe_sel_parse("all", &s, err, sizeof(err)), 0, "all");
	ASSERT_EQ(s.probes, KW_PROBES_ALL, "all: every probe");
	ASSERT_EQ(s.named, 0, "all: nothing required");
	ASSERT_FALSE(s.cheap, "all: not cheap");
	ASSERT_EQ(kw_probe_sel_parse("cheap,all", &s, err, sizeof(err)), 0, "both");
	ASSERT_EQ(s.probes, KW_PROBES_ALL, "both: every probe");
	ASSERT_FALSE(s.cheap, "both: nothing is off for the cheap set");
	s = (struct kw_probe_sel){ 42, 42, false, KW_SET_LIST };
	ASSERT_EQ(kw_probe_sel_parse("cheap,chea", &s, err, sizeof(err)), -EINVAL, "a prefix");
	ASSERT_STREQ(err,
		     "--probe: no probe or set named 'chea' (see `kvmwalk probes`; sets: cheap, "
		     "all, timing, notifiers, none)",
		     "message");
	ASSERT_EQ(s.probes, 42, "unchanged on error");
	/* a set's name is never a probe's */
	ASSERT_EQ(kw_probe_by_name(KW_PROBE_SET_CHEAP), -1, "cheap is no probe");
	ASSERT_EQ(kw_probe_by_name(KW_PROBE_SET_ALL), -1, "all is no probe");
}

static void test_content(void)
{
	kw_probe_mask out = 0;
	int nin = 0;

	for (size_t i = 0; i < sizeof(left_out) / sizeof(left_out[0]); i++)
		out |= KW_PROBE_BIT(left_out[i]);
	for (int p = 0; p < KW_NR_PROBES; p++) {
		bool in = kw_probes_cheap & KW_PROBE_BIT(p);

		ASSERT_EQ(in, !(out & KW_PROBE_BIT(p)), kw_probes[p].name);
		nin += in;
	}
	ASSERT_EQ(nin, KW_NR_PROBES - 5, "five left out");
	ASSERT_FALSE(kw_probes_cheap & ~KW_PROBES_ALL, "no bit past the probes");
	/* the per-entry visit probes that feed kvmwalk_visits_total stay */
	ASSERT_TRUE(kw_probes_cheap & KW_PROBE_BIT(KW_P_SPLIT_WALKER), "split visits");
	ASSERT_TRUE(kw_probes_cheap & KW_PROBE_BIT(KW_P_UNMAP_WALKER), "unmap visits");
}

/*
 * Every function a matcher of the dashboard or the rules names (function="x",
 * function=~"a|b") is in the set. $function is the dashboard's variable: the functions served.
 */
static void test_dashboard_functions(void)
{
	int named = 0;

	for (size_t f = 0; f < sizeof(dash_files) / sizeof(dash_files[0]); f++) {
		char *text = slurp(dash_files[f]);

		if (!ASSERT_TRUE(text, dash_files[f]))
			return;
		for (char *p = text; (p = strstr(p, "function="));) {
			char *v, *end;
			int id;

			p += strlen("function=");
			if (*p == '~')
				p++;
			if (*p == '\\')
				p++; /* JSON: \" */
			if (*p != '"')
				continue;
			v = ++p;
			end = v + strcspn(v, "\"\\");
			while (v < end) {
				size_t n = strcspn(v, "|\"\\");
				char name[64];

				snprintf(name, sizeof(name), "%.*s", (int)n, v);
				v += n + (v[n] == '|');
				if (name[0] == '$')
					continue;
				named++;
				id = kw_probe_by_name(name);
				if (ASSERT_TRUE(id >= 0, name))
					ASSERT_TRUE(kw_probes_cheap & KW_PROBE_BIT(id), name);
			}
		}
		free(text);
	}
	ASSERT_TRUE(named >= 10, "the files name functions");
}

/* A recording of @arch with exactly the cheap set attached, one trigger and callback row. */
static void fill_cheap(struct kw_recording *r, const char *arch, struct kw_trig *trig,
		       struct kw_cb *cb)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "%s", arch);
	for (int p = 0; p < KW_NR_PROBES; p++) {
		struct kw_plan *pl = &r->plan[p];

		snprintf(pl->func, sizeof(pl->func), "%s", kw_probes[p].name);
		pl->mech = kw_probes_cheap & KW_PROBE_BIT(p) ? KW_MECH_FENTRY : KW_MECH_OFF;
		if (pl->mech == KW_MECH_OFF)
			snprintf(pl->reason, sizeof(pl->reason),
				 "not in the cheap set (--probe all attaches it)");
		r->funcs[p].calls = 1;
	}
	*trig = (struct kw_trig){ .probe = KW_P_VM_IOCTL, .trigger = KW_T_IOCTL, .calls = 1 };
	*cb = (struct kw_cb){ .sym = "stage2_map_walker", .calls = 1 };
	r->trigs = trig;
	r->ntrigs = 1;
	r->cbs = cb;
	r->ncbs = 1;
	/* serve --probe-cost: the cost families the probe-cost panels and rules read */
	r->overhead.stats_enabled = true;
}

/* A sample of @name (a family, or one of its _bucket/_sum/_count) in the exposition. */
static bool served(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && (p[n] == '{' || p[n] == ' '))
			return true;
	return false;
}

/* @label in a sample line other than kvmwalk_probe_info's. */
static bool other_series(const char *text, const char *label)
{
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *eol = strchrnul(p, '\n'), *q = strstr(p, label);

		if (q && q < eol && strncmp(p, "kvmwalk_probe_info{", 19))
			return true;
	}
	return false;
}

static void test_dashboard_families(void)
{
	static const char *const archs[] = { "arm64", "x86" };
	char *expo[3] = {}, *lock = NULL, *text = NULL;
	struct kw_recording r = {};
	struct prom_facts facts = { .version = "0.1-test" }; /* serve's: collect errors */
	struct prom_opts o = { .buckets = PROM_BUCKETS_LOG2, .facts = &facts };
	int families = 0;

	for (int a = 0; a < 2; a++) {
		struct kw_trig trig;
		struct kw_cb cb;
		size_t len;

		fill_cheap(&r, archs[a], &trig, &cb);
		if (!ASSERT_EQ(prom_render(&r, &o, &expo[a], &len), 0, archs[a]))
			goto out;
		/* each probe left out: its info line says why, and it has no other series */
		for (size_t i = 0; i < sizeof(left_out) / sizeof(left_out[0]); i++) {
			int p = left_out[i];
			char line[300], series[100];

			if (!kw_probe_in_arch(p, archs[a]))
				continue;
			snprintf(line, sizeof(line),
				 "kvmwalk_probe_info{function=\"%s\",mechanism=\"off\","
				 "target=\"%s\",reason=\"not in the cheap set (--probe all "
				 "attaches it)\"} 1\n",
				 kw_probes[p].name, kw_probes[p].name);
			ASSERT_TRUE(strstr(expo[a], line), line);
			snprintf(series, sizeof(series), "{function=\"%s\"", kw_probes[p].name);
			ASSERT_FALSE(other_series(expo[a], series), series);
		}
	}
	/* the sampled mode's families: served while it samples (serve's default), and then only */
	{
		struct kw_sample_row row = { 1, "kvm_pgtable_walk", "vm_teardown", 1, "" };
		struct kw_recording sr = { .sampled = { .hz = 49, .ncpus = 2, .samples = 1,
							.run_cnt = 1, .nrows = 1, .rows = &row } };
		size_t len;

		ASSERT_FALSE(served(expo[0], "kvmwalk_samples_total") ||
				     served(expo[1], "kvmwalk_samples_total"),
			     "no sampled family without --sample");
		if (!ASSERT_EQ(prom_render(&sr, &o, &expo[2], &len), 0, "sampled"))
			goto out;
	}
	/* the mmu_lock panels' promise: --probe cheap,mmu_lock_wait serves what they read */
	{
		struct kw_probe_sel s;
		struct kw_trig trig;
		struct kw_cb cb;
		char err[200];
		size_t len;

		fill_cheap(&r, "arm64", &trig, &cb);
		if (!ASSERT_EQ(kw_probe_sel_parse("cheap,mmu_lock_wait", &s, err, sizeof(err)), 0,
			       "cheap,mmu_lock_wait"))
			goto out;
		for (int p = 0; p < KW_NR_PROBES; p++)
			r.plan[p].mech = s.probes & KW_PROBE_BIT(p) ? KW_MECH_FENTRY : KW_MECH_OFF;
		if (!ASSERT_EQ(prom_render(&r, &o, &lock, &len), 0, "with the lock wait"))
			goto out;
	}
	for (size_t f = 0; f < sizeof(dash_files) / sizeof(dash_files[0]); f++) {
		text = slurp(dash_files[f]);
		if (!ASSERT_TRUE(text, dash_files[f]))
			goto out;
		for (char *p = text; (p = strstr(p, "kvmwalk_"));) {
			size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789_");
			char name[96];

			/* instance:kvmwalk_x:rate5m is a recording rule's name, not a metric */
			if (p > text && (p[-1] == ':' || isalnum((unsigned char)p[-1]))) {
				p += n;
				continue;
			}
			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			p += n;
			/* only with --probe cheap,mmu_lock_wait, as its panels say */
			if (!strncmp(name, "kvmwalk_mmu_lock_wait_seconds", 29)) {
				ASSERT_TRUE(served(lock, name), name);
				ASSERT_FALSE(served(expo[0], name) || served(expo[1], name), name);
				continue;
			}
			families++;
			if (!strncmp(name, "kvmwalk_sample", 14))
				ASSERT_TRUE(served(expo[2], name), name);
			else
				ASSERT_TRUE(served(expo[0], name) || served(expo[1], name), name);
		}
		free(text);
		text = NULL;
	}
	ASSERT_TRUE(families >= 30, "the files read families");
out:
	free(text);
	free(lock);
	free(expo[0]);
	free(expo[1]);
	free(expo[2]);
}

void test_cheap(void)
{
	test_parse();
	test_content();
	test_dashboard_functions();
	test_dashboard_families();
}
