// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The kinds of runs and what recording cost the command (runs.h): each
 * recording's kind from the probes it attached, the command's wall time and phase times of
 * each kind against the least instrumented runs, and `kvmwalk report` of several recordings.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "runs.h"

const char *const kw_run_kind_names[KW_NR_RUN_KINDS] = {
	[KW_RUN_BARE] = "bare",
	[KW_RUN_TIMING] = "timing",
	[KW_RUN_CHEAP] = "cheap",
	[KW_RUN_FULL] = "full",
};

const char *kw_run_kind_how(enum kw_run_kind k)
{
	static const char *const how[KW_NR_RUN_KINDS] = {
		[KW_RUN_BARE] = "--probe none",
		[KW_RUN_TIMING] = "--probe timing",
		[KW_RUN_CHEAP] = "--probe cheap",
		[KW_RUN_FULL] = "every probe",
	};

	return (unsigned int)k < KW_NR_RUN_KINDS ? how[k] : "?";
}

enum kw_run_kind kw_run_kind(const struct kw_recording *r)
{
	kw_probe_mask att = 0;
	bool planned = false;

	if (!strcmp(r->meta.probe_set, KW_PROBE_SET_NONE))
		return KW_RUN_BARE;
	for (size_t i = 0; i < r->nufuncs; i++)
		if (kw_plan_attached(&r->ufuncs[i].plan))
			return KW_RUN_FULL;
	for (int p = 0; p < KW_NR_PROBES; p++) {
		if (r->plan[p].mech == KW_MECH_NONE)
			continue;
		planned = true;
		if (kw_plan_attached(&r->plan[p]))
			att |= KW_PROBE_BIT(p);
	}
	if (!planned)
		return KW_RUN_FULL;
	if (!att)
		return KW_RUN_BARE;
	if (!(att & ~kw_probes_timing))
		return KW_RUN_TIMING;
	if (!(att & ~kw_probes_cheap))
		return KW_RUN_CHEAP;
	return KW_RUN_FULL;
}

bool kw_run_measures(const struct kw_recording *r, int p)
{
	return kw_plan_attached(&r->plan[p]) || r->plan[p].mech == KW_MECH_NONE;
}

double kw_run_cost_share(const struct kw_recording *r, const char **what)
{
	static const int ops[] = { KW_P_VM_IOCTL, KW_P_VCPU_IOCTL, KW_P_NOTIFIER, KW_P_MM_RELEASE };
	__u64 of = r->overhead.measured_ns;

	/*
	 * measured_ns is depth-0 kvm_pgtable_walk time on arm64, tdp_mmu_zap_leafs and
	 * fast_page_fault time on x86 (kw_recording_measured_ns()): named for the arch it is of.
	 */
	if (what)
		*what = !strcmp(r->meta.arch, "arm64") ? "outermost walks"
			: !strcmp(r->meta.arch, "x86")	 ? "TDP MMU zaps, fast page faults"
							 : "outermost walks, TDP MMU zaps, fast page faults";
	/*
	 * A timing run has no walk probe: what it measured is the operations of its set. They do
	 * not nest but for kvm_nested_s2_unmap, inside a notifier, and the memslot change, inside
	 * its ioctl: left out.
	 */
	if (kw_run_kind(r) == KW_RUN_TIMING) {
		of = 0;
		for (size_t i = 0; i < sizeof(ops) / sizeof(*ops); i++)
			of += r->funcs[ops[i]].dur.sum;
		if (what)
			*what = "VM ioctls, notifiers, teardowns";
	}
	if (!r->overhead.stats_enabled || !of)
		return NAN;
	return (double)r->overhead.run_ns / of;
}

/* ---- the cost of recording, seen from the command ------------------------------------------ */

void kw_cost_free(struct kw_cost *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c->kinds);
	c->rows = NULL;
	c->kinds = NULL;
	c->nrows = 0;
}

/* The row's time in run r, or false. */
static bool row_value(const struct kw_cost_row *row, const struct kw_recording *r, double *v)
{
	int found = 0;

	if (!row->phase[0]) {
		*v = (double)r->meta.wall_ns;
		return r->meta.wall_ns > 0;
	}
	*v = (double)kw_workload_sum(&r->workload, row->scenario, row->phase, &found);
	return found;
}

static bool has_row(const struct kw_cost *c, const char *scenario, const char *phase)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].scenario, scenario) && !strcmp(c->rows[i].phase, phase))
			return true;
	return false;
}

static int add_cost_row(struct kw_cost *c, const char *scenario, const char *phase)
{
	struct kw_cost_row *rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));

	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	memset(&rows[c->nrows], 0, sizeof(*rows));
	snprintf(rows[c->nrows].scenario, sizeof(rows->scenario), "%s", scenario);
	snprintf(rows[c->nrows].phase, sizeof(rows->phase), "%s", phase);
	c->nrows++;
	return 0;
}

static int fill_row(struct kw_cost *c, struct kw_cost_row *row, const struct kw_recording *r,
		    size_t n)
{
	double *v[KW_NR_RUN_KINDS] = {};
	int err = 0;

	for (int k = 0; k < KW_NR_RUN_KINDS && !err; k++)
		if (!(v[k] = calloc(n ?: 1, sizeof(double))))
			err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		double x;

		if (row_value(row, &r[i], &x))
			v[c->kinds[i]][row->n[c->kinds[i]]++] = x;
	}
	for (int k = 0; k < KW_NR_RUN_KINDS && !err; k++) {
		if (!row->n[k])
			continue;
		row->median[k] = kw_median(v[k], row->n[k]);
		if (k == (int)c->ref || !row->n[c->ref])
			continue;
		err = kw_change(v[c->ref], row->n[c->ref], v[k], row->n[k], c->level, c->method,
				&row->vs[k]);
		row->has[k] = !err;
	}
	for (int k = 0; k < KW_NR_RUN_KINDS; k++)
		free(v[k]);
	return err;
}

int kw_cost_build(struct kw_cost *c, const struct kw_recording *r, size_t n, double level,
		  enum kw_ci_method method)
{
	int err = 0;

	memset(c, 0, sizeof(*c));
	c->level = level;
	c->method = method;
	c->n = n;
	c->kinds = calloc(n ?: 1, sizeof(*c->kinds));
	if (!c->kinds)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		c->kinds[i] = kw_run_kind(&r[i]);
		c->runs[c->kinds[i]]++;
		c->commands_differ |= strcmp(r[i].meta.command, r[0].meta.command) != 0;
	}
	if (n)
		snprintf(c->command, sizeof(c->command), "%s", r[0].meta.command);
	c->ref = KW_RUN_BARE;
	while (c->ref < KW_NR_RUN_KINDS - 1 && !c->runs[c->ref])
		c->ref++;
	for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
		double v[n ?: 1];
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			double s = c->kinds[i] == (enum kw_run_kind)k
					   ? kw_run_cost_share(&r[i], &c->share_of[k])
					   : NAN;

			if (!isnan(s))
				v[m++] = s;
		}
		c->share_known[k] = m > 0;
		c->share[k] = m ? kw_median(v, m) : 0;
	}
	for (size_t i = 0; i < n && !err; i++)
		if (r[i].meta.wall_ns && !has_row(c, "", ""))
			err = add_cost_row(c, "", "");
	for (size_t i = 0; i < n && !err; i++)
		for (size_t j = 0; j < r[i].workload.nphases && !err; j++) {
			const struct kw_wl_phase *p = &r[i].workload.phases[j];

			if (*p->phase && !has_row(c, p->scenario, p->phase))
				err = add_cost_row(c, p->scenario, p->phase);
		}
	for (size_t i = 0; i < c->nrows && !err; i++)
		err = fill_row(c, &c->rows[i], r, n);
	if (err)
		kw_cost_free(c);
	return err;
}

const struct kw_cost_row *kw_cost_wall(const struct kw_cost *c)
{
	return c->nrows && !c->rows[0].phase[0] ? &c->rows[0] : NULL;
}

static const char *fmt_pct(char *buf, size_t len, double v)
{
	if (fabs(v) < 0.05)
		v = 0;
	snprintf(buf, len, isnan(v) ? "n/a" : fabs(v) < 999.95 ? "%+.1f" : "%+.0f", v);
	return buf;
}

static const char *fmt_iv(char *buf, size_t len, const struct kw_change *ch)
{
	char lo[16], hi[16];

	if (!ch->has_interval)
		return "-";
	snprintf(buf, len, "[%s,%s]", fmt_pct(lo, sizeof(lo), ch->ci_low_pct),
		 fmt_pct(hi, sizeof(hi), ch->ci_high_pct));
	return buf;
}

void kw_cost_sentence(char *buf, size_t len, const struct kw_cost *c, const struct kw_cost_row *row,
		      enum kw_run_kind k)
{
	const struct kw_change *ch = &row->vs[k];
	char d[16], ivb[48], iv[80], what[80], runs[96];

	if (row->phase[0])
		snprintf(what, sizeof(what), "%s%s%s", row->scenario, *row->scenario ? " " : "",
			 row->phase);
	else
		snprintf(what, sizeof(what), "wall time");
	snprintf(runs, sizeof(runs), "medians of %zu run%s against %zu %s run%s", row->n[k],
		 row->n[k] == 1 ? "" : "s", row->n[c->ref], kw_run_kind_names[c->ref],
		 row->n[c->ref] == 1 ? "" : "s");
	if (!ch->has_interval)
		snprintf(iv, sizeof(iv), "no interval: one run");
	else
		snprintf(iv, sizeof(iv), "%.1f %% interval %s %%", 100 * ch->confidence,
			 fmt_iv(ivb, sizeof(ivb), ch));
	fmt_pct(d, sizeof(d), ch->delta_pct);
	if (ch->significant && ch->delta_pct > 0)
		snprintf(buf, len, "record with %s slowed the %s by %.1f %% (%s, %s, %s)",
			 kw_run_kind_how(k), row->phase[0] ? "phase" : "command", ch->delta_pct,
			 what, runs, iv);
	else
		snprintf(buf, len, "record with %s: %s (%s %s %%, %s, %s)", kw_run_kind_how(k),
			 ch->significant ? (row->phase[0] ? "the phase was faster"
							  : "the command was faster")
			 : ch->has_interval && ch->confidence < KW_MIN_CONFIDENCE
				 ? "too few runs to tell a slowdown"
				 : "no slowdown told apart from noise",
			 what, d, runs, iv);
}

/* Words of s wrapped at 80 columns, the first line after prefix, the others at indent. */
static void wrap(FILE *f, const char *prefix, int indent, const char *s)
{
	int col = fprintf(f, "%s", prefix), start = col;

	while (*s) {
		int k = (int)strcspn(s, " ");

		if (col > start && col + 1 + k > 80) {
			fprintf(f, "\n%*s", indent, "");
			col = start = indent;
		} else if (col > start) {
			col += fprintf(f, " ");
		}
		col += fprintf(f, "%.*s", k, s);
		s += k;
		s += strspn(s, " ");
	}
	fputc('\n', f);
}

static void kinds_text(char *buf, size_t len, const size_t runs[KW_NR_RUN_KINDS])
{
	size_t used = 0;

	buf[0] = 0;
	for (int k = 0; k < KW_NR_RUN_KINDS; k++)
		if (runs[k])
			used += snprintf(buf + used, used < len ? len - used : 0, "%s%zu %s",
					 used ? ", " : "", runs[k], kw_run_kind_names[k]);
}

int kw_cost_print(FILE *f, const struct kw_cost *c, const char *const *paths)
{
	char buf[1024], m[16], d[16], iv[48];

	fprintf(f, "kvmwalk report: %zu recordings, by the probes they ran with\n", c->n);
	snprintf(buf, sizeof(buf), "%s", c->command[0] ? c->command : "(none: -d or Ctrl-C)");
	wrap(f, "  command  ", 11, buf);
	kinds_text(buf, sizeof(buf), c->runs);
	wrap(f, "  runs     ", 11, buf);
	for (size_t i = 0; paths && i < c->n; i++) {
		snprintf(buf, sizeof(buf), "%s %s", kw_run_kind_names[c->kinds[i]], paths[i]);
		wrap(f, "           ", 11, buf);
	}
	if (c->commands_differ)
		wrap(f, "WARNING: ", 9,
		     "the recordings are of different commands: what they cost the command "
		     "compares different workloads (the command above is the first one's)");

	fprintf(f, "\nProbe overhead, medians: the BPF run time of the programs' bodies, a lower\n"
		   "bound (the fentry trampoline and kprobe dispatch around each run are not in "
		   "it)\n");
	for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
		if (!c->runs[k])
			continue;
		if (k == KW_RUN_BARE)
			snprintf(buf, sizeof(buf), "none: no BPF program loaded");
		else if (!c->share_known[k])
			snprintf(buf, sizeof(buf), "not measured (no run-time statistics, or no "
						   "time measured)");
		else
			snprintf(buf, sizeof(buf),
				 100 * c->share[k] < 0.1 ? ">= %.2g %% of the time they measured (%s)"
							 : ">= %.1f %% of the time they measured (%s)",
				 100 * c->share[k], c->share_of[k]);
		snprintf(iv, sizeof(iv), "  %-8s ", kw_run_kind_names[k]);
		wrap(f, iv, 11, buf);
	}

	fprintf(f, "\nWhat recording cost the command, seen from user space\n");
	if (!c->nrows) {
		wrap(f, "  ", 2,
		     "no time to compare: none of the recordings has a command's wall time "
		     "(record -- CMD) or its phase times (record --workload-times)");
		return ferror(f) ? -EIO : 0;
	}
	snprintf(buf, sizeof(buf),
		 "(medians over runs; the change against the %s runs, %s of the change of "
		 "medians; * the interval excludes 0)",
		 kw_run_kind_names[c->ref],
		 c->method == KW_CI_BOOTSTRAP ? "bootstrap interval" : "Hodges-Lehmann interval");
	wrap(f, "  ", 3, buf);
	/* 2 + 28 + 1 + 6 + 1 + 3 + 1 + 9 + 1 + 9 + 1 + 1 + 17 = 80 */
	fprintf(f, "\n  %-28s %-6s %3s %9s %9s  %s\n", "time", "kind", "runs", "median", "change",
		"interval %");
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kw_cost_row *row = &c->rows[i];
		bool first = true;

		if (row->phase[0])
			snprintf(buf, sizeof(buf), "%s%s%s", row->scenario, *row->scenario ? " " : "",
				 row->phase);
		else
			snprintf(buf, sizeof(buf), "wall time");
		for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
			if (!row->n[k])
				continue;
			kw_fmt_ns(m, sizeof(m), row->median[k]);
			fprintf(f, "  %-28.28s %-6s %3zu %9s", first ? buf : "", kw_run_kind_names[k],
				row->n[k], m);
			first = false;
			if (row->has[k])
				fprintf(f, " %8s%%%c %s", fmt_pct(d, sizeof(d), row->vs[k].delta_pct),
					row->vs[k].significant ? '*' : ' ',
					fmt_iv(iv, sizeof(iv), &row->vs[k]));
			fputc('\n', f);
		}
	}
	fputc('\n', f);
	for (size_t i = 0; i < c->nrows; i++)
		for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
			/* the sentences: the wall time; a phase only where it slowed */
			if (!c->rows[i].has[k] || (c->rows[i].phase[0] &&
						    !(c->rows[i].vs[k].significant &&
						      c->rows[i].vs[k].delta_pct > 0)))
				continue;
			kw_cost_sentence(buf, sizeof(buf), c, &c->rows[i], (enum kw_run_kind)k);
			wrap(f, "", 2, buf);
		}
	return ferror(f) ? -EIO : 0;
}

/* JSON has no NAN: null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int kw_cost_json(FILE *f, const struct kw_cost *c, const struct kw_recording *r,
		 const char *const *paths)
{
	json_t *root = json_object(), *a = json_array(), *o, *t;
	char buf[1024];
	int err;

	json_object_set_new(root, "schema", json_string("kvmwalk-report/1"));
	for (size_t i = 0; i < c->n; i++) {
		double s = kw_run_cost_share(&r[i], NULL);

		o = json_pack("{sssssssI}", "path", paths ? paths[i] : "", "kind",
			      kw_run_kind_names[c->kinds[i]], "probe_set", r[i].meta.probe_set,
			      "wall_ns", (json_int_t)r[i].meta.wall_ns);
		json_object_set_new(o, "probe_share_lower_bound", num(s));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "runs", a);
	o = json_object();
	json_object_set_new(o, "command", json_string(c->command));
	json_object_set_new(o, "commands_differ", json_boolean(c->commands_differ));
	json_object_set_new(o, "reference", json_string(kw_run_kind_names[c->ref]));
	json_object_set_new(o, "level", json_real(c->level));
	json_object_set_new(o, "method", json_string(c->method == KW_CI_BOOTSTRAP
							     ? "bootstrap"
							     : "hodges-lehmann"));
	t = json_object();
	for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
		json_t *kk = json_object();

		json_object_set_new(kk, "runs", json_integer(c->runs[k]));
		/* the BPF run time of the programs' bodies: a lower bound of their cost */
		json_object_set_new(kk, "probe_share_lower_bound",
				    c->share_known[k] ? json_real(c->share[k]) : json_null());
		json_object_set_new(kk, "probe_share_of",
				    json_string(c->share_known[k] ? c->share_of[k] : ""));
		json_object_set_new(t, kw_run_kind_names[k], kk);
	}
	json_object_set_new(o, "kinds", t);
	a = json_array();
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kw_cost_row *row = &c->rows[i];
		json_t *row_o = json_object(), *ks = json_object();

		json_object_set_new(row_o, "time", json_string(row->phase[0] ? "phase" : "wall"));
		json_object_set_new(row_o, "scenario", json_string(row->scenario));
		json_object_set_new(row_o, "phase", json_string(row->phase));
		for (int k = 0; k < KW_NR_RUN_KINDS; k++) {
			json_t *kk;

			if (!row->n[k])
				continue;
			kk = json_pack("{sIsf}", "runs", (json_int_t)row->n[k], "median_ns",
				       row->median[k]);
			if (row->has[k]) {
				const struct kw_change *ch = &row->vs[k];

				json_object_set_new(kk, "delta_pct", num(ch->delta_pct));
				json_object_set_new(
					kk, "interval_pct",
					ch->has_interval ? json_pack("[oo]", num(ch->ci_low_pct),
								     num(ch->ci_high_pct))
							 : json_null());
				json_object_set_new(kk, "confidence", ch->has_interval
										? json_real(ch->confidence)
										: json_null());
				json_object_set_new(kk, "significant", json_boolean(ch->significant));
				kw_cost_sentence(buf, sizeof(buf), c, row, (enum kw_run_kind)k);
				json_object_set_new(kk, "sentence", json_string(buf));
			}
			json_object_set_new(ks, kw_run_kind_names[k], kk);
		}
		json_object_set_new(row_o, "kinds", ks);
		json_array_append_new(a, row_o);
	}
	json_object_set_new(o, "times", a);
	json_object_set_new(root, "own_cost", o);
	err = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', f);
	json_decref(root);
	return err ? -EIO : 0;
}
