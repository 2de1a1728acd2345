// SPDX-License-Identifier: GPL-2.0
/* `kvmwalk report`: text and JSON views of a recording. Plain C on plain structs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "counters.h"
#include "findings.h"
#include "fmt.h"
#include "kvmstats_view.h"
#include "report.h"
#include "runs.h"
#include "report_conditions.h"
#include "timeline.h"
#include "sampled_view.h"
#include "userfn.h"

double kw_overhead_ns_per_run(const struct kw_recording *r)
{
	return r->overhead.run_cnt ? (double)r->overhead.run_ns / r->overhead.run_cnt : 0;
}

double kw_overhead_share(const struct kw_recording *r)
{
	double s = kw_run_cost_share(r, NULL);

	return isnan(s) ? 0 : s;
}

static bool attached(const struct kw_recording *r, int p)
{
	return kw_plan_attached(&r->plan[p]);
}

static void rule(FILE *f, const char *title)
{
	fprintf(f, "\n%s\n", title);
}

static void wrap_text(FILE *f, const char *label, const char *text)
{
	fprintf(f, "  %-10s", label);
	kw_fmt_wrap(f, 12, 12, text);
}

/* The lines text takes under a 12-column label (wrap_text()). */
static int text_lines(const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int n = 0;

	if (!m)
		return 1;
	wrap_text(m, "", text);
	fclose(m);
	for (size_t i = 0; i < len; i++)
		n += buf[i] == '\n';
	free(buf);
	return n;
}

/*
 * The header's command on at most two lines, cut at a word with "..." when longer (true: then
 * all of it is in "Recording").
 */
static bool head_command(char *buf, size_t len, const struct kw_meta *m)
{
	char cmd[sizeof(m->command)];
	bool cut = false;

	snprintf(cmd, sizeof(cmd), "%s", m->command);
	for (;;) {
		snprintf(buf, len, "%s%s", cmd, cut ? " ..." : "");
		if (text_lines(buf) <= 2 || !strchr(cmd, ' '))
			return cut;
		*strrchr(cmd, ' ') = 0;
		cut = true;
	}
}

/*
 * The header: which recording this is, in a few lines (kernel, host, when and how long, the
 * command), so that the findings come right after it. How it was recorded is in "Recording",
 * the host's conditions (the kernel command line, every KVM parameter) in "Test conditions",
 * both further down.
 */
static void print_head(FILE *f, const struct kw_recording *r, const char *name)
{
	const struct kw_meta *m = &r->meta;
	__u64 lost = kw_recording_lost_runs(r);
	char buf[sizeof(m->command) + 64], kind[256];

	fprintf(f, "kvmwalk report: %s\n", name);
	fprintf(f, "  %-10s%s (%s%s%s)\n", "kernel", m->kernel, m->arch, m->kvm_mode[0] ? ", " : "",
		m->kvm_mode);
	if (m->cond.recorded) {
		kw_report_host_kind(kind, sizeof(kind), &m->cond);
		snprintf(buf, sizeof(buf), "%s, %s", m->hostname[0] ? m->hostname : "(no name)",
			 kind);
		wrap_text(f, "host", buf);
	} else {
		wrap_text(f, "host", m->hostname[0] ? m->hostname : "(no name)");
	}
	fprintf(f, "  %-10s%s, %.2f s", "recorded", m->started, m->duration_s);
	/* -1: the recording ended before the command did (record sent it SIGTERM) */
	if (m->command[0] && m->exit_status >= 0)
		fprintf(f, "; the command exited %d", m->exit_status);
	else if (m->command[0])
		fprintf(f, "; the command had not exited");
	fputc('\n', f);
	if (m->command[0]) {
		head_command(buf, sizeof(buf), m);
		wrap_text(f, "command", buf);
	}
	/* before anything is counted: whether the counts are exact, or bounds */
	if (lost) {
		snprintf(buf, sizeof(buf),
			 "%s runs of kvmwalk's programs, skipped by the kernel (attach %s%s%s): "
			 "the counts of the functions that lost them are lower bounds, by up to "
			 "their lost runs (see Functions); --attach kprobe loses none",
			 KW_EXACT(lost), m->attach[0] ? m->attach : "?",
			 m->preempt[0] ? ", preempt " : "", m->preempt);
		wrap_text(f, "lost", buf);
	}
}

/* How it was recorded: the probe set, the command's wall time, the options, the snapshots. */
static void print_recording(FILE *f, const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	char pids[KW_MAX_PIDS * 12], opts[sizeof(pids) + 128], cmd[sizeof(m->command) + 64];

	rule(f, "Recording");
	/* since the timing set and bare runs: what it ran with, and the command's own times */
	if (m->probe_set[0]) {
		char set[192];

		snprintf(set, sizeof(set), "%s (%s run)", m->probe_set,
			 kw_run_kind_names[kw_run_kind(r)]);
		wrap_text(f, "probes", set);
	}
	if (m->command[0] && head_command(cmd, sizeof(cmd), m))
		wrap_text(f, "command", m->command);
	if (m->wall_ns) {
		char t[16];

		kw_fmt_ns(t, sizeof(t), m->wall_ns);
		fprintf(f, "  %-10s%s (the command, fork to exit)\n", "wall time", t);
	}
	/* ", " between the ids: up to KW_MAX_PIDS of them wrap like words */
	kw_meta_pids(m, pids, sizeof(pids), ", ");
	snprintf(opts, sizeof(opts), "attach %s, pid %s, visits %s, kvmwalk %s", m->attach,
		 m->npid_filter ? pids : "all", m->visits ? "on" : "off", m->tool_version);
	wrap_text(f, "options", opts);
	if (m->nvm_filter) {
		char vms[KW_MAX_VMS * 96] = "";

		for (__u32 i = 0; i < m->nvm_filter; i++) {
			bool unseen = false;

			for (__u32 k = 0; k < m->nvm_unseen && !unseen; k++)
				unseen = !strcmp(m->vm_unseen[k], m->vm_filter[i]);
			snprintf(vms + strlen(vms), sizeof(vms) - strlen(vms), "%s%s%s",
				 i ? ", " : "", m->vm_filter[i],
				 unseen ? " (no VM of that name was seen)" : "");
		}
		wrap_text(f, "vm filter", vms);
	}
	if (r->nintervals) {
		char iv[96];

		snprintf(iv, sizeof(iv), "%zu snapshots: kvmwalk report --timeline (--csv, --plot)",
			 r->nintervals);
		wrap_text(f, "intervals", iv);
	}
}

/* Words of text from column indent, wrapped before column 79. */
static void wrap_at(FILE *f, int indent, const char *text)
{
	fprintf(f, "%*s", indent, "");
	kw_fmt_wrap(f, indent, indent, text);
}

static void print_plan(FILE *f, const struct kw_recording *r)
{
	rule(f, "Probes");
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_plan *p = &r->plan[i];
		const char *name = kw_probes[i].name;

		if (!kw_probe_in_arch(i, r->meta.arch))
			continue;
		/* no plan at all: a recording made before kvmwalk had this probe */
		fprintf(f, "  %-40s %s\n", name,
			p->mech ? kw_mech_name(p->mech) : "not recorded (older kvmwalk)");
		if (p->func[0] && strcmp(p->func, name))
			fprintf(f, "    on %s\n", p->func);
		if (p->reason[0])
			wrap_at(f, 4, p->reason);
	}
}

/*
 * A probe that did not attach has no numbers: it gets this line, not a row of zeros that reads
 * as "nothing happened".
 */
static void not_attached(FILE *f, const struct kw_recording *r, int p)
{
	const struct kw_plan *pl = &r->plan[p];
	char line[448];

	fprintf(f, "  %s\n", kw_probes[p].name);
	if (!pl->mech)
		snprintf(line, sizeof(line), "not in this recording (made before kvmwalk had it)");
	else
		snprintf(line, sizeof(line), "not attached (%s)%s%s", kw_mech_name(pl->mech),
			 pl->reason[0] ? ": " : "", pl->reason);
	wrap_at(f, 4, line);
}

/*
 * Under a function whose programs lost runs (the kernel skipped them): its calls are a lower
 * bound, by up to that many.
 */
static void print_lost_runs(FILE *f, const struct kw_func *fn)
{
	if (fn->lost_runs)
		fprintf(f, "    %s runs lost: calls %s-%s, and what they count can be short\n",
			KW_EXACT(fn->lost_runs), KW_EXACT(fn->calls),
			KW_EXACT(fn->calls + fn->lost_runs));
}

static void print_funcs(FILE *f, const struct kw_recording *r)
{
	char c[6][16], tot[16], cnt[16];

	rule(f, "Functions (time inclusive of nested probed calls)");
	/*
	 * 80 columns: kw_fmt_ns() and kw_fmt_count() print at most 6 characters ("1.02ms",
	 * "999999", "1.00M"), so 6-wide time columns and 7-wide calls and total hold p99.9 too.
	 */
	fprintf(f, "  %-20s %7s %7s %6s %6s %6s %6s %6s %6s\n", "function", "calls", "total",
		"mean", "p50", "p90", "p99", "p99.9", "max");
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_func *fn = &r->funcs[i];
		const struct kw_hist *h = &fn->dur;
		const char *name = kw_probes[i].name;

		if (!kw_probe_in_arch(i, r->meta.arch))
			continue;
		if (!attached(r, i)) {
			not_attached(f, r, i);
			continue;
		}
		kw_fmt_count(cnt, sizeof(cnt), fn->calls);
		if (strlen(name) > 20)
			fprintf(f, "  %s\n  %-20s", name, "");
		else
			fprintf(f, "  %-20s", name);
		if (!kw_probes[i].timed || !h->count) {
			fprintf(f, " %7s %7s\n", cnt, "-");
			print_lost_runs(f, fn);
			continue;
		}
		kw_fmt_ns(tot, sizeof(tot), h->sum);
		kw_fmt_ns(c[0], 16, kw_hist_mean(h));
		kw_fmt_ns(c[1], 16, kw_hist_quantile(h, 0.5));
		kw_fmt_ns(c[2], 16, kw_hist_quantile(h, 0.9));
		kw_fmt_ns(c[3], 16, kw_hist_quantile(h, 0.99));
		kw_fmt_ns(c[4], 16, kw_hist_quantile(h, 0.999));
		kw_fmt_ns(c[5], 16, h->max);
		fprintf(f, " %7s %7s %6s %6s %6s %6s %6s %6s\n", cnt, tot, c[0], c[1], c[2], c[3],
			c[4], c[5]);
		print_lost_runs(f, fn);
	}

	/* no heading without a row under it: none when no sized call was made */
	for (int i = 0, head = 0; i < KW_NR_PROBES; i++) {
		const struct kw_hist *h = &r->funcs[i].size;

		if (!kw_probe_in_arch(i, r->meta.arch) || !kw_probes[i].unit || !h->count)
			continue;
		if (!head++) {
			rule(f, "Sizes");
			fprintf(f, "  %-28s %-6s %10s %9s %9s %9s\n", "function", "unit", "total",
				"mean", "p50", "max");
		}
		/* a size in bytes with binary prefixes, pages and gfns as counts (fmt.h) */
		enum kw_unit u = strcmp(kw_probes[i].unit, "bytes") ? KW_UNIT_COUNT : KW_UNIT_BYTES;
		char t[16], m[16], p[16], x[16];

		kw_fmt(t, sizeof(t), h->sum, u);
		kw_fmt(m, sizeof(m), kw_hist_mean(h), u);
		kw_fmt(p, sizeof(p), kw_hist_quantile(h, 0.5), u);
		kw_fmt(x, sizeof(x), h->max, u);
		fprintf(f, "  %-28.28s %-6s %10s %9s %9s %9s\n", kw_probes[i].name,
			kw_probes[i].unit, t, m, p, x);
	}
}

static void print_cbs(FILE *f, const struct kw_recording *r)
{
	char tot[16];

	if (!r->ncbs)
		return;
	rule(f, "kvm_pgtable_walk by walker callback (depth 0 = outermost)");
	fprintf(f, "  %-32s %5s %5s %9s %8s %12s\n", "callback", "flags", "depth", "calls", "total",
		"bytes");
	for (size_t i = 0; i < r->ncbs; i++) {
		const struct kw_cb *c = &r->cbs[i];

		kw_fmt_ns(tot, sizeof(tot), c->ns);
		fprintf(f, "  %-32.32s %#5x %5u %9s %8s %12s\n", c->sym, c->flags, c->depth,
			KW_COUNT(c->calls), tot, KW_BYTES(c->bytes));
	}
}

static void print_visits(FILE *f, const struct kw_recording *r)
{
	for (int w = 0; w < KW_NR_WALKERS; w++) {
		__u64 total = 0;

		for (int i = 0; i < KW_NR_LEVELS * KW_NR_OUTCOMES; i++)
			total += r->visits[w * KW_NR_LEVELS * KW_NR_OUTCOMES + i];
		if (!total)
			continue;
		fprintf(f, "\n%s visits: %s\n", kw_walker_names[w], KW_EXACT(total));
		fprintf(f, "  %-7s %12s %12s %12s\n", "level", kw_outcome_name(w, 0),
			kw_outcome_name(w, 1), kw_outcome_name(w, 2));
		for (int l = 0; l < KW_NR_LEVELS; l++) {
			const __u64 *v = &r->visits[KW_VISIT_IDX(w, l, 0)];

			if (!v[0] && !v[1] && !v[2])
				continue;
			fprintf(f, "  %-7d %12s %12s %12s\n", l - 1, KW_EXACT(v[0]), KW_EXACT(v[1]),
				KW_EXACT(v[2]));
		}
	}
}

/* ---- the sections made of counters (kw_report_sections[], counters.c) ---------------------- */

/* Shown on r's arch (every arch: none), and its probe attached or its nonzero value not 0. */
static bool section_shown(const struct kw_recording *r, const struct kw_report_section *s)
{
	if (s->arch && strcmp(r->meta.arch, s->arch))
		return false;
	if (s->probe && attached(r, s->probe - 1))
		return true;
	if (!s->nonzero)
		return false;
	return s->nonzero_calls ? r->funcs[s->nonzero - 1].calls != 0 : r->counters[s->nonzero - 1];
}

/* A counter's value as text: a count, or a time. */
static void fmt_counter(char *buf, size_t len, double v, int c)
{
	if (kw_counters[c - 1].ns)
		kw_fmt_ns(buf, len, v);
	else
		kw_fmt_count_exact(buf, len, v);
}

/* "LABEL VALUE (of N calls, RATIO PER_LABEL, NOTE, TIME)" */
static void print_item(FILE *f, const struct kw_recording *r, const struct kw_report_item *it)
{
	const __u64 *c = r->counters;
	char v[32], part[64];
	int n = 0;

	fmt_counter(v, sizeof(v), c[it->c - 1], it->c);
	fprintf(f, "%s %s", it->label, v);
	if (it->of_calls)
		fprintf(f, "%sof %s calls", n++ ? ", " : " (",
			KW_EXACT(r->funcs[it->of_calls - 1].calls));
	if (it->per) {
		if (kw_counters[it->c - 1].ns)
			kw_fmt_ns(part, sizeof(part), kw_ratio(c[it->c - 1], c[it->per - 1]));
		else
			kw_fmt_count_exact(part, sizeof(part),
					   kw_ratio(c[it->c - 1], c[it->per - 1]));
		fprintf(f, "%s%s %s", n++ ? ", " : " (", part, it->per_label);
	}
	if (it->note)
		fprintf(f, "%s%s", n++ ? ", " : " (", it->note);
	if (it->time) {
		kw_fmt_ns(part, sizeof(part), c[it->time - 1]);
		fprintf(f, "%s%s", n++ ? ", " : " (", part);
	}
	if (n)
		fputc(')', f);
}

/* false: the line's probes were missing, and the section ends */
static bool print_line(FILE *f, const struct kw_recording *r, const struct kw_report_line *l)
{
	if (l->need_any && !kw_recording_attached(r, 0, l->need_any)) {
		fprintf(f, "  %s\n", l->missing);
		return false;
	}
	if (l->table) {
		fprintf(f, "  %-30s %12s %14s\n", l->table, l->table_heads[0], l->table_heads[1]);
		for (int e = 0; e < KW_NR_ENCL; e++)
			fprintf(f, "    %-28s %12s %14s\n", kw_encl_names[e],
				KW_EXACT(r->counters[l->table_cols[0] - 1 + e]),
				KW_EXACT(r->counters[l->table_cols[1] - 1 + e]));
		return true;
	}
	fprintf(f, "  %s", l->prefix ? l->prefix : "");
	for (int i = 0; i < KW_REPORT_ITEMS && l->items[i].c; i++) {
		if (i)
			fputs(", ", f);
		print_item(f, r, &l->items[i]);
	}
	fputc('\n', f);
	return true;
}

static void print_extra_intro(FILE *f, const struct kw_recording *r, enum kw_report_extra x);
static void print_extra_outro(FILE *f, const struct kw_recording *r, enum kw_report_extra x);

static void print_section(FILE *f, const struct kw_recording *r, const struct kw_report_section *s)
{
	bool shown = section_shown(r, s);

	if ((s->arch && strcmp(r->meta.arch, s->arch)) || (!shown && !s->absent))
		return;
	rule(f, s->title);
	print_extra_intro(f, r, s->extra);
	if (!shown) {
		fprintf(f, "  %s\n", s->absent);
	} else if (s->none && !r->counters[s->none - 1] &&
		   (!s->lines[0].need_any || kw_recording_attached(r, 0, s->lines[0].need_any))) {
		/* "none" only where the first line's probes could have counted one */
		fprintf(f, "  %s %s\n", KW_EXACT(r->funcs[s->probe - 1].calls), s->none_text);
	} else {
		for (int i = 0; i < KW_REPORT_LINES; i++) {
			const struct kw_report_line *l = &s->lines[i];

			if ((!l->items[0].c && !l->table) || !print_line(f, r, l))
				break;
		}
	}
	print_extra_outro(f, r, s->extra);
}

/* The section as its --json object: every item, whatever was attached, times last. */
static json_t *section_json(const struct kw_recording *r, const struct kw_report_section *s)
{
	const __u64 *c = r->counters;
	json_t *o;

	if (s->json_null && !section_shown(r, s))
		return json_null();
	o = json_object();
	for (int i = 0; i < KW_REPORT_LINES; i++)
		for (int k = 0; k < KW_REPORT_ITEMS && s->lines[i].items[k].c; k++) {
			const struct kw_report_item *it = &s->lines[i].items[k];

			if (it->of_key)
				json_object_set_new(o, it->of_key,
						    json_integer(r->funcs[it->of_calls - 1].calls));
			json_object_set_new(o, it->key, json_integer(c[it->c - 1]));
			if (it->per_key)
				json_object_set_new(o, it->per_key,
						    json_real(kw_ratio(c[it->c - 1], c[it->per - 1])));
		}
	for (int i = 0; i < KW_REPORT_LINES; i++)
		for (int k = 0; k < KW_REPORT_ITEMS && s->lines[i].items[k].c; k++)
			if (s->lines[i].items[k].time_key)
				json_object_set_new(o, s->lines[i].items[k].time_key,
						    json_integer(c[s->lines[i].items[k].time - 1]));
	for (int i = 0; i < KW_REPORT_LINES; i++)
		for (int e = 0; s->lines[i].table && e < KW_NR_ENCL; e++) {
			int k = s->lines[i].table_cols[0] - 1 + e;

			json_object_set_new(o, kw_counters[k].name, json_integer(c[k]));
		}
	return o;
}

/*
 * ---- x86 fast page faults: the fixed ones, and what the shadow MMU leaves unseen ----------------
 * fast_page_fault() (arch/x86/kvm/mmu/mmu.c) serves both x86 MMUs: kvm_tdp_mmu_page_fault() with
 * the TDP MMU, direct_page_fault() with the legacy ("shadow") MMU over NPT/EPT (kvm.tdp_mmu=0).
 * RET_PF_FIXED is a write-protection (or access-tracking) fault made good without mmu_lock: with
 * dirty logging on (no PML), one per page written after each write-protection of the log.
 * Return codes are counted by value and named from the kvm module's BTF: -1 when it had no
 * RET_PF_* enum (the count is then not known by name).
 */
static long long pf_ret_count(const struct kw_recording *r, const char *name)
{
	for (int i = 0; i < KW_NR_PF_RET - 1; i++)
		if (!strcmp(r->pf_ret_names[i], name))
			return (long long)r->counters[KW_C_PF_RET + i];
	return -1;
}

/* the recording's host ran the legacy MMU (meta.kvm_mode from /sys/module/kvm/parameters) */
static bool shadow_mmu(const struct kw_recording *r)
{
	return !strcmp(r->meta.arch, "x86") && !strcmp(r->meta.kvm_mode, "shadow");
}

static void print_fast_fixed(FILE *f, const struct kw_recording *r)
{
	long long fixed = pf_ret_count(r, "RET_PF_FIXED");

	const struct kw_func *fn = &r->funcs[KW_P_FAST_PF];

	if (fixed < 0)
		return;
	/* a lost run of its programs may be a fixed fault not counted: a bound, not a count */
	if (fn->lost_runs)
		fprintf(f, "  fixed without mmu_lock (RET_PF_FIXED): %s-%s of %s-%s calls\n",
			KW_EXACT(fixed), KW_EXACT(fixed + fn->lost_runs), KW_EXACT(fn->calls),
			KW_EXACT(fn->calls + fn->lost_runs));
	else
		fprintf(f, "  fixed without mmu_lock (RET_PF_FIXED): %s of %s calls\n",
			KW_EXACT(fixed), KW_EXACT(fn->calls));
}

static json_t *fast_pf_json(const struct kw_recording *r)
{
	long long n[3] = { pf_ret_count(r, "RET_PF_FIXED"), pf_ret_count(r, "RET_PF_SPURIOUS"),
			   pf_ret_count(r, "RET_PF_INVALID") };
	json_t *o;

	o = json_pack("{sssb}", "mmu", r->meta.kvm_mode, "tdp_mmu_probes_can_fire",
		      !shadow_mmu(r));
	json_object_set_new(o, "attached", json_boolean(attached(r, KW_P_FAST_PF)));
	json_object_set_new(o, "calls", json_integer(r->funcs[KW_P_FAST_PF].calls));
	json_object_set_new(o, "fixed", n[0] >= 0 ? json_integer(n[0]) : json_null());
	json_object_set_new(o, "spurious", n[1] >= 0 ? json_integer(n[1]) : json_null());
	json_object_set_new(o, "invalid", n[2] >= 0 ? json_integer(n[2]) : json_null());
	/* fixed (and calls) are lower bounds by up to this many: runs the kernel skipped */
	json_object_set_new(o, "lost_runs", json_integer(r->funcs[KW_P_FAST_PF].lost_runs));
	return o;
}

/* KW_RX_TDP: the x86 MMU in use, under the heading */
static void print_extra_intro(FILE *f, const struct kw_recording *r, enum kw_report_extra x)
{
	/* the functions exist and attach, but tdp_mmu_enabled is false: nothing calls them */
	if (x == KW_RX_TDP && shadow_mmu(r))
		fprintf(f, "  shadow MMU (kvm.tdp_mmu=N): the TDP MMU functions never run, so\n"
			   "  their probes count 0; fast_page_fault serves the legacy MMU\n");
}

/* KW_RX_TDP: fast_page_fault's return codes, by their BTF names */
static void print_extra_outro(FILE *f, const struct kw_recording *r, enum kw_report_extra x)
{
	const __u64 *c = r->counters;

	if (x != KW_RX_TDP)
		return;
	if (!attached(r, KW_P_FAST_PF)) {
		fprintf(f, "  fast_page_fault: not attached (see Functions)\n");
		return;
	}
	fprintf(f, "  fast_page_fault returns:");
	for (int i = 0; i < KW_NR_PF_RET; i++)
		if (c[KW_C_PF_RET + i])
			fprintf(f, " %s %s", r->pf_ret_names[i][0] ? r->pf_ret_names[i] : "?",
				KW_EXACT(c[KW_C_PF_RET + i]));
	fputc('\n', f);
	print_fast_fixed(f, r);
}

static void print_sections(FILE *f, const struct kw_recording *r)
{
	for (const struct kw_report_section *s = kw_report_sections; s->json; s++)
		print_section(f, r, s);
}

static void print_trigs(FILE *f, const struct kw_recording *r)
{
	char tot[16], what[64], pid[16];

	if (!r->ntrigs)
		return;
	rule(f, "By trigger");
	/*
	 * 80 columns: a function longer than its column goes on a line of its own, as in
	 * "Functions"; the trigger holds KVM_SET_USER_MEMORY_REGION2, the pid 4194304 (pid_max on
	 * most 64-bit hosts), and kw_fmt_ns() prints at most 6 characters. An ioctl that changed a
	 * memslot is followed by the operation (KVM_SET_USER_MEMORY_REGION2 dirty_log_on, 40
	 * characters): a trigger longer than its column ends the line, and the numbers go on the
	 * next. The total is the time of the row's calls; "-" where the probe times nothing (the
	 * per-entry callbacks count visits) or its row carries no time.
	 */
	fprintf(f, "  %-25s %-27s %7s %9s %6s\n", "function", "trigger", "pid", "calls", "total");
	for (size_t i = 0; i < r->ntrigs; i++) {
		const struct kw_trig *t = &r->trigs[i];
		const char *n = kw_trig_ioctl(r, t);
		const char *name = kw_probes[t->probe].name;
		const char *op = t->trigger == KW_T_IOCTL && t->memslot_op > 0 &&
						 t->memslot_op < KW_NR_MEMSLOT_OPS
					 ? kw_memslot_op_names[t->memslot_op]
					 : "";

		if (t->trigger == KW_T_IOCTL) {
			if (n)
				snprintf(what, sizeof(what), "%s%s%s", n, *op ? " " : "", op);
			else
				snprintf(what, sizeof(what), "ioctl 0x%x%s%s", t->cmd, *op ? " " : "",
					 op);
		} else {
			snprintf(what, sizeof(what), "%s", kw_trigger_names[t->trigger]);
		}
		if (kw_probes[t->probe].timed && t->ns)
			kw_fmt_ns(tot, sizeof(tot), t->ns);
		else
			snprintf(tot, sizeof(tot), "-");
		/* pid 0: the processes that exited while kvmwalk ran, folded (user/collect.c) */
		snprintf(pid, sizeof(pid), t->pid ? "%u" : "exited", t->pid);
		if (strlen(name) > 25)
			fprintf(f, "  %s\n  %-25s", name, "");
		else
			fprintf(f, "  %-25s", name);
		if (strlen(what) > 27) {
			fprintf(f, " %s\n  %-25s", what, "");
			what[0] = 0;
		}
		fprintf(f, " %-27.27s %7s %9s %6s\n", what, pid, KW_COUNT(t->calls), tot);
	}
}

/*
 * Memslot operations: the KVM_SET_USER_MEMORY_REGION(2) calls by what each changed
 * (kw_memslot_ops()), with the ioctl's time: "time of the dirty-logging enable ioctl" is the
 * headline of the arm64 split series. Shown when the recording planned
 * kvm_arch_prepare_memory_region (older ones did not); without it, or without kvm_vm_ioctl,
 * one line says what is missing rather than a table of zeros.
 */
static bool memslot_known(const struct kw_recording *r)
{
	return attached(r, KW_P_MEMSLOT) && attached(r, KW_P_VM_IOCTL);
}

static void print_memslot_ops(FILE *f, const struct kw_recording *r)
{
	struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS];
	char tot[16], mean[16];

	if (r->plan[KW_P_MEMSLOT].mech == KW_MECH_NONE)
		return;
	rule(f, "Memslot operations (KVM_SET_USER_MEMORY_REGION(2) by what each changed)");
	if (!memslot_known(r)) {
		fprintf(f, "  not known: %s not attached (see Probes)\n",
			kw_probes[attached(r, KW_P_MEMSLOT) ? KW_P_VM_IOCTL : KW_P_MEMSLOT].name);
		return;
	}
	kw_memslot_ops(r, ops);
	fprintf(f, "  %-20s %9s %9s %9s\n", "operation", "calls", "total", "mean");
	/* the operations in enum order, then the calls without one if there were any */
	for (int i = 1; i <= KW_NR_MEMSLOT_OPS; i++) {
		int op = i % KW_NR_MEMSLOT_OPS;

		if (op == KW_MS_NONE && !ops[op].calls)
			continue;
		snprintf(tot, sizeof(tot), "-");
		snprintf(mean, sizeof(mean), "-");
		if (ops[op].calls) {
			kw_fmt_ns(tot, sizeof(tot), ops[op].ns);
			kw_fmt_ns(mean, sizeof(mean), (double)ops[op].ns / ops[op].calls);
		}
		fprintf(f, "  %-20s %9s %9s %9s\n", op ? kw_memslot_op_names[op] : "none",
			KW_COUNT(ops[op].calls), tot, mean);
	}
	fprintf(f, "  time: the ioctl's, entry to return, refusals included%s\n",
		ops[KW_MS_NONE].calls ? ";" : "");
	if (ops[KW_MS_NONE].calls)
		fprintf(f, "  none: no change, or refused before kvm_arch_prepare_memory_region\n");
}

static json_t *memslot_ops_json(const struct kw_recording *r)
{
	struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS];
	json_t *o;

	if (!memslot_known(r))
		return json_null();
	kw_memslot_ops(r, ops);
	o = json_object();
	for (int i = 1; i <= KW_NR_MEMSLOT_OPS; i++) {
		int op = i % KW_NR_MEMSLOT_OPS;

		json_object_set_new(o, op ? kw_memslot_op_names[op] : "none",
				    json_pack("{sIsIsf}", "calls", (json_int_t)ops[op].calls, "ns",
					      (json_int_t)ops[op].ns, "mean_ns",
					      kw_ratio(ops[op].ns, ops[op].calls)));
	}
	return o;
}

/*
 * By VM: each process of the trigger rows with its identity (record keeps those that exited),
 * and what it caused: KVM ioctls (kvm_vm_ioctl and kvm_vcpu_ioctl calls), walks and their time
 * (kvm_pgtable_walk calls at any depth on arm64; tdp_mmu_zap_leafs and fast_page_fault on x86);
 * then per process the calls and time of every probe it ran (its trigger rows summed).
 */
static void print_vms(FILE *f, const struct kw_recording *r)
{
	if (!r->nvms)
		return;
	rule(f, "By VM (process)");
	fprintf(f, "  %7s %-15s %-20s %10s %10s %9s\n", "pid", "comm", "vm", "ioctls", "walks",
		"walk time");
	for (size_t v = 0; v < r->nvms; v++) {
		const struct kw_vm *vm = &r->vms[v];
		__u64 ioctls = 0, walks = 0, ns = 0;
		char tot[16];

		for (size_t i = 0; i < r->ntrigs; i++) {
			const struct kw_trig *t = &r->trigs[i];

			if (t->pid != vm->pid)
				continue;
			if (t->probe == KW_P_VM_IOCTL || t->probe == KW_P_VCPU_IOCTL)
				ioctls += t->calls;
			else if (t->probe == KW_P_PGT_WALK || t->probe == KW_P_TDP_ZAP_LEAFS ||
				 t->probe == KW_P_FAST_PF) {
				walks += t->calls;
				ns += t->ns;
			}
		}
		kw_fmt_ns(tot, sizeof(tot), ns);
		fprintf(f, "  %7u %-15.15s %-20.20s %10s %10s %9s\n", vm->pid, vm->comm,
			vm->vm[0] ? vm->vm : "-", KW_COUNT(ioctls), KW_COUNT(walks), tot);
	}
	for (size_t v = 0; v < r->nvms; v++) {
		const struct kw_vm *vm = &r->vms[v];
		bool head = false;

		if (vm->unseen) {
			fprintf(f, "\n  %s (pid %u, %s)\n", vm->vm[0] ? vm->vm : "-", vm->pid,
				vm->comm);
			fprintf(f, "    --vm: %s probe runs before kvmwalk read its name, not recorded\n",
				KW_EXACT(vm->unseen));
			head = true;
		}
		for (int p = 0; p < KW_NR_PROBES; p++) {
			__u64 calls = 0, ns = 0;
			char c[16], t[16];

			for (size_t i = 0; i < r->ntrigs; i++)
				if (r->trigs[i].pid == vm->pid && r->trigs[i].probe == p) {
					calls += r->trigs[i].calls;
					ns += r->trigs[i].ns;
				}
			if (!calls)
				continue;
			/* a process with no call has its row above, and no heading of its own */
			if (!head)
				fprintf(f, "\n  %s (pid %u, %s)\n", vm->vm[0] ? vm->vm : "-", vm->pid,
					vm->comm);
			head = true;
			kw_fmt_count(c, sizeof(c), calls);
			/* the per-entry callback probes count visits, untimed */
			if (ns)
				kw_fmt_ns(t, sizeof(t), ns);
			else
				snprintf(t, sizeof(t), "-");
			fprintf(f, "    %-40.40s %10s calls %9s\n", kw_probes[p].name, c, t);
		}
	}
}

/*
 * "lost: ...": the exits and entries the probes missed, then every counter of what kvmwalk lost
 * (kw_counters[].lost), wrapped at 80 columns; the rare ones on lines of their own when not 0.
 */
static void print_lost(FILE *f, const struct kw_recording *r, __u64 missed, __u64 dropped)
{
	char item[160];
	int col;

	col = fprintf(f, "  lost: missed exits %s, dropped entries %s", KW_EXACT(missed),
		      KW_EXACT(dropped));
	for (int i = 0; i < KW_NR_COUNTERS; i++) {
		int n;

		if (!kw_counters[i].lost || kw_counters[i].lost_own_line)
			continue;
		n = snprintf(item, sizeof(item), "%s %s", kw_counters[i].lost,
			     KW_EXACT(r->counters[i]));
		if (col + 2 + n + 1 > 80) {
			fputs(",\n        ", f);
			col = 8;
		} else {
			fputs(", ", f);
			col += 2;
		}
		col += fprintf(f, "%s", item);
	}
	fputc('\n', f);
	for (int i = 0; i < KW_NR_COUNTERS; i++)
		if (kw_counters[i].lost_own_line && r->counters[i])
			fprintf(f, "        %s %s\n", kw_counters[i].lost,
				KW_EXACT(r->counters[i]));
}

static void print_overhead(FILE *f, const struct kw_recording *r)
{
	char a[16], b[16], m[16];
	__u64 missed = 0, dropped = 0;

	rule(f, "Probe overhead");
	if (kw_run_kind(r) == KW_RUN_BARE && r->meta.probe_set[0]) {
		fprintf(f, "  none: recorded with --probe none, no BPF program loaded\n");
		return;
	} else if (!r->overhead.stats_enabled) {
		fprintf(f, "  BPF run-time statistics were not available\n");
	} else {
		const char *of;
		double share = kw_run_cost_share(r, &of);
		__u64 ns = isnan(share) || !share ? r->overhead.measured_ns
						  : (__u64)(r->overhead.run_ns / share);

		kw_fmt_ns(a, sizeof(a), kw_overhead_ns_per_run(r));
		kw_fmt_ns(b, sizeof(b), r->overhead.run_ns);
		kw_fmt_ns(m, sizeof(m), ns);
		fprintf(f, "  all programs (triggers included): %s runs, %s per run, %s\n",
			KW_EXACT(r->overhead.run_cnt), a, b);
		if (isnan(share))
			fprintf(f, "  no time measured to set it against (%s: none)\n", of);
		else
			fprintf(f,
				100 * share < 0.1 ? "  >= %.2g %% of the measured time (%s: %s)\n"
						  : "  >= %.1f %% of the measured time (%s: %s)\n",
				100 * share, m, of);
		fprintf(f, "  a lower bound: BPF run-time statistics time the programs' bodies,\n"
			   "  not the fentry trampoline or kprobe dispatch around each run\n");
		for (int i = 0, head = 0; i < KW_NR_PROBES; i++) {
			const struct kw_func *fn = &r->funcs[i];

			if (!fn->bpf_runs)
				continue;
			if (!head++)
				fprintf(f, "  %-40s %12s %10s %10s\n", "probe", "runs", "per run",
					"total");
			kw_fmt_ns(a, sizeof(a), (double)fn->bpf_ns / fn->bpf_runs);
			kw_fmt_ns(b, sizeof(b), fn->bpf_ns);
			fprintf(f, "  %-40.40s %12s %10s %10s\n", kw_probes[i].name,
				KW_COUNT(fn->bpf_runs), a, b);
		}
	}
	for (int i = 0; i < KW_NR_PROBES; i++) {
		missed += r->funcs[i].missed;
		dropped += r->funcs[i].dropped;
	}
	if (r->overhead.recursion_misses)
		fprintf(f,
			"  %s program runs skipped by the kernel's recursion guard (a probe\n"
			"  preempted by another task hitting the same probe on its CPU)\n",
			KW_EXACT(r->overhead.recursion_misses));
	print_lost(f, r, missed, dropped);
	if (r->meta.exited_folded)
		fprintf(f,
			"        rows of exited processes past %d kept, folded into 'exited' %s\n",
			KW_KEEP_EXITED, KW_EXACT(r->meta.exited_folded));
}

static void print_hists(FILE *f, const struct kw_recording *r)
{
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, r->meta.arch) || !kw_probes[i].timed ||
		    !r->funcs[i].dur.count || !strcmp(kw_probes[i].family, "trigger"))
			continue;
		fprintf(f, "\n%s duration\n", kw_probes[i].name);
		kw_hist_fprint(f, &r->funcs[i].dur, "nsecs");
	}
	if (r->unmap_cleared.count) {
		fprintf(f, "\nvalid leaves cleared per kvm_pgtable_stage2_unmap call\n");
		kw_hist_fprint(f, &r->unmap_cleared, "leaves");
	}
}

/* record --workload-times: the command's own phase times, each summed over its iterations. */
static void print_workload(FILE *f, const struct kw_recording *r)
{
	const struct kw_workload *w = &r->workload;

	if (!w->nphases)
		return;
	rule(f, "Workload phases (the command's own times, from its "
		"output)");
	fprintf(f, "  %s, from %s; summed over iterations\n", w->source, w->from);
	for (size_t i = 0; i < w->nphases; i++) {
		const struct kw_wl_phase *p = &w->phases[i];
		unsigned int n = 0;
		char t[16], name[72];
		int found;

		if (!kw_workload_first(w, i))
			continue;
		for (size_t j = i; j < w->nphases; j++)
			n += !strcmp(w->phases[j].scenario, p->scenario) &&
			     !strcmp(w->phases[j].phase, p->phase);
		kw_fmt_ns(t, sizeof(t), kw_workload_sum(w, p->scenario, p->phase, &found));
		snprintf(name, sizeof(name), "%s%s%s", p->scenario, *p->scenario ? " " : "", p->phase);
		fprintf(f, "  %-50.50s %9s %6u time%s\n", name, t, n, n == 1 ? "" : "s");
	}
}

int kw_report_text(FILE *f, const struct kw_recording *r, const char *name)
{
	struct kw_findings fs;

	kw_findings_compute(r, &fs);
	print_head(f, r, name);
	/* the report opens with what it found, right after saying which recording it is */
	kw_findings_print(f, &fs);
	print_plan(f, r);
	print_funcs(f, r);
	print_cbs(f, r);
	print_visits(f, r);
	print_sections(f, r);
	print_memslot_ops(f, r);
	print_trigs(f, r);
	kw_ufuncs_print(f, r);
	kw_sampled_print(f, r);
	kw_kvmstats_print(f, r);
	print_vms(f, r);
	print_recording(f, r);
	kw_report_conditions(f, r);
	print_overhead(f, r);
	print_workload(f, r);
	print_hists(f, r);
	return ferror(f) ? -EIO : 0;
}

/* ---- JSON twin: derived numbers, ready for scripts ------------------------------------------- */

static json_t *summary(const struct kw_hist *h)
{
	return json_pack("{sIsIsfsfsfsfsfsI}", "count", (json_int_t)h->count, "sum",
			 (json_int_t)h->sum, "mean", kw_hist_mean(h), "p50",
			 kw_hist_quantile(h, 0.5), "p90", kw_hist_quantile(h, 0.9), "p99",
			 kw_hist_quantile(h, 0.99), "p99.9", kw_hist_quantile(h, 0.999), "max",
			 (json_int_t)h->max);
}

int kw_report_json(FILE *f, const struct kw_recording *r)
{
	json_t *root = json_object(), *a = json_array(), *o;
	struct kw_findings fs;
	int err;

	kw_findings_compute(r, &fs);
	json_object_set_new(root, "schema", json_string("kvmwalk-report/1"));
	json_object_set_new(root, "findings", kw_findings_json(&fs));
	json_object_set_new(root, "kernel", json_string(r->meta.kernel));
	json_object_set_new(root, "arch", json_string(r->meta.arch));
	json_object_set_new(root, "kvm_mode", json_string(r->meta.kvm_mode));
	json_object_set_new(root, "duration_s", json_real(r->meta.duration_s));
	/* record --checkpoint: the recording so far, of a record that did not finish */
	if (r->meta.checkpoint)
		json_object_set_new(root, "checkpoint", json_true());
	json_object_set_new(root, "conditions", kw_report_conditions_json(r));
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_func *fn = &r->funcs[i];

		if (!kw_probe_in_arch(i, r->meta.arch))
			continue;
		if (!attached(r, i)) {
			/* no numbers for a probe that measured nothing (text: "not attached") */
			o = json_pack("{sssssssb}", "name", kw_probes[i].name, "mechanism",
				      kw_mech_name(r->plan[i].mech), "reason", r->plan[i].reason,
				      "attached", 0);
			json_array_append_new(a, o);
			continue;
		}
		o = json_pack("{sssssssbsIsIsIsf}", "name", kw_probes[i].name, "mechanism",
			      kw_mech_name(r->plan[i].mech), "reason", r->plan[i].reason,
			      "attached", 1, "calls", (json_int_t)fn->calls, "missed",
			      (json_int_t)fn->missed, "dropped", (json_int_t)fn->dropped,
			      "bpf_ns_per_run",
			      fn->bpf_runs ? (double)fn->bpf_ns / fn->bpf_runs : 0.0);
		/* calls (and what they count) are exact when 0, else lower bounds by up to it */
		json_object_set_new(o, "lost_runs", json_integer(fn->lost_runs));
		if (kw_probes[i].timed)
			json_object_set_new(o, "duration_ns", summary(&fn->dur));
		if (kw_probes[i].unit) {
			json_t *s = summary(&fn->size);

			json_object_set_new(s, "unit", json_string(kw_probes[i].unit));
			json_object_set_new(o, "size", s);
		}
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "functions", a);

	a = json_array();
	for (int w = 0; w < KW_NR_WALKERS; w++)
		for (int l = 0; l < KW_NR_LEVELS; l++)
			for (int oc = 0; oc < KW_NR_OUTCOMES; oc++)
				if (r->visits[KW_VISIT_IDX(w, l, oc)])
					json_array_append_new(
						a,
						json_pack(
							"{sssiss sI}", "walker", kw_walker_names[w],
							"level", l - 1, "outcome",
							kw_outcome_name(w, oc), "count",
							(json_int_t)
								r->visits[KW_VISIT_IDX(w, l, oc)]));
	json_object_set_new(root, "visits", a);

	for (const struct kw_report_section *s = kw_report_sections; s->json; s++) {
		json_object_set_new(root, s->json, section_json(r, s));
		/* x86 only (absent on arm64, which has no fast_page_fault): RET_PF_FIXED, the MMU */
		if (s->extra == KW_RX_TDP && !strcmp(r->meta.arch, "x86"))
			json_object_set_new(root, "fast_page_fault", fast_pf_json(r));
	}

	/* the memslot ioctls by operation; null when the recording cannot say (text: why) */
	json_object_set_new(root, "memslot_ops", memslot_ops_json(r));

	a = json_array();
	for (size_t i = 0; i < r->ntrigs; i++) {
		const struct kw_trig *t = &r->trigs[i];
		const char *n = kw_trig_ioctl(r, t);

		json_array_append_new(
			a, json_pack("{sssssssssIsIsI}", "probe", kw_probes[t->probe].name, "trigger",
				     kw_trigger_names[t->trigger], "ioctl",
				     t->trigger == KW_T_IOCTL && n ? n : "", "memslot_op",
				     t->memslot_op > 0 && t->memslot_op < KW_NR_MEMSLOT_OPS
					     ? kw_memslot_op_names[t->memslot_op]
					     : "",
				     "pid", (json_int_t)t->pid, "calls", (json_int_t)t->calls, "ns",
				     (json_int_t)t->ns));
	}
	json_object_set_new(root, "triggers", a);
	if (r->nufuncs)
		json_object_set_new(root, "user_functions", kw_ufuncs_report_json(r));
	if ((o = kw_sampled_report_json(r)))
		json_object_set_new(root, "sampled", o);
	if ((o = kw_kvmstats_report_json(r)))
		json_object_set_new(root, "kvm_stats", o);
	json_object_set_new(root, "vms", kw_vms_json(r));
	o = json_pack("{sbsIsIsfsfsI}", "stats_enabled", r->overhead.stats_enabled, "run_count",
		      (json_int_t)r->overhead.run_cnt, "run_ns", (json_int_t)r->overhead.run_ns,
		      "ns_per_run", kw_overhead_ns_per_run(r), "share", kw_overhead_share(r),
		      "recursion_misses", (json_int_t)r->overhead.recursion_misses);
	/* share: the programs' bodies only, a lower bound (no trampoline, no kprobe dispatch) */
	json_object_set_new(o, "share_is_lower_bound", json_true());
	json_object_set_new(o, "run_kind", json_string(kw_run_kind_names[kw_run_kind(r)]));
	json_object_set_new(root, "overhead", o);
	if (r->meta.wall_ns)
		json_object_set_new(root, "wall_ns", json_integer(r->meta.wall_ns));
	if (r->workload.nphases)
		json_object_set_new(root, "workload", kw_workload_json(&r->workload));
	/* record --interval: as in the recording, with length_s and the rates of --timeline */
	json_object_set_new(root, "intervals", kw_timeline_json(r));
	err = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	json_decref(root);
	fputc('\n', f);
	return err ? -EIO : 0;
}
