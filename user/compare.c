// SPDX-License-Identifier: GPL-2.0
/*
 * Before/after reports from recordings; the statistics are in stats.c, the plot in compare_plot.c.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare.h"
#include "counters.h"
#include "fmt.h"
#include "report.h"

#define TEXT_COLS 72

/* One number per run. */
typedef double (*run_fn)(const struct kw_recording *r, int arg);

static double f_calls(const struct kw_recording *r, int p)
{
	return (double)r->funcs[p].calls;
}

static double f_p50(const struct kw_recording *r, int p)
{
	return kw_hist_quantile(&r->funcs[p].dur, 0.5);
}

static double f_p90(const struct kw_recording *r, int p)
{
	return kw_hist_quantile(&r->funcs[p].dur, 0.9);
}

static double f_p99(const struct kw_recording *r, int p)
{
	return kw_hist_quantile(&r->funcs[p].dur, 0.99);
}

static double f_p999(const struct kw_recording *r, int p)
{
	return kw_hist_quantile(&r->funcs[p].dur, 0.999);
}

static double f_mean(const struct kw_recording *r, int p)
{
	return kw_hist_mean(&r->funcs[p].dur);
}

/* the time spent in p over the run: its duration histogram's exact sum */
static double f_sum(const struct kw_recording *r, int p)
{
	return (double)r->funcs[p].dur.sum;
}

static double f_counter(const struct kw_recording *r, int i)
{
	return (double)r->counters[i];
}

static double visits_at(const struct kw_recording *r, int w, int lvl1, int outcome)
{
	double n = 0;

	for (int l = 0; l < KW_NR_LEVELS; l++)
		for (int o = 0; o < KW_NR_OUTCOMES; o++)
			if ((lvl1 < 0 || l == lvl1) && (outcome < 0 || o == outcome))
				n += r->visits[KW_VISIT_IDX(w, l, o)];
	return n;
}

/* Walks with this walker's callback (any depth); without callback data, the operation's calls. */
static double walks_of(const struct kw_recording *r, int w)
{
	double n = 0;

	for (size_t i = 0; i < r->ncbs; i++)
		if (!strcmp(r->cbs[i].sym, kw_walker_names[w]))
			n += r->cbs[i].calls;
	if (!r->ncbs)
		n = r->funcs[w == KW_W_SPLIT ? KW_P_S2_SPLIT : KW_P_S2_UNMAP].calls;
	return n;
}

/* arg: walker * KW_NR_LEVELS + level + 1 */
static double f_visits_per_walk(const struct kw_recording *r, int arg)
{
	int w = arg / KW_NR_LEVELS;

	return kw_ratio(visits_at(r, w, arg % KW_NR_LEVELS, -1), walks_of(r, w));
}

static double f_blocks_split(const struct kw_recording *r, int arg)
{
	return visits_at(r, KW_W_SPLIT, -1, KW_O_SPLIT);
}

/* arg: a level + 1 (all outcomes), or -1 for every visit, or -2 for those that split nothing */
static double f_split_per_block(const struct kw_recording *r, int arg)
{
	double v = arg >= 0    ? visits_at(r, KW_W_SPLIT, arg, -1)
		   : arg == -1 ? visits_at(r, KW_W_SPLIT, -1, -1)
			       : visits_at(r, KW_W_SPLIT, -1, KW_O_NOTHING);

	return kw_ratio(v, f_blocks_split(r, 0));
}

/* arg: a counter divided by the unmap calls */
static double f_per_unmap(const struct kw_recording *r, int arg)
{
	return kw_ratio(r->counters[arg], r->counters[KW_C_UNMAP_CALLS]);
}

/* arg: a counter divided by the nested unmaps (kvm_nested_s2_unmap calls with a valid MMU) */
static double f_per_nested(const struct kw_recording *r, int arg)
{
	return kw_ratio(r->counters[arg], r->counters[KW_C_NESTED_ACTIVE]);
}

/* Flushes inside nested unmaps issued by unmap calls that cleared a leaf. */
static double f_nested_kept(const struct kw_recording *r, int arg)
{
	(void)arg;
	return (double)(r->counters[KW_C_NESTED_FLUSHES] - r->counters[KW_C_NESTED_EMPTY_FLUSHES]);
}

/* arg: an index into kw_compare_counter_rows[] */
static double f_counter_row(const struct kw_recording *r, int arg)
{
	const struct kw_compare_counter_row *row = &kw_compare_counter_rows[arg];
	double d = 1;

	if (row->per_counter)
		d = r->counters[row->per_counter - 1];
	else if (row->per_calls)
		d = r->funcs[row->per_calls - 1].calls;
	return kw_ratio(r->counters[row->c - 1], d);
}

static double f_per_zap(const struct kw_recording *r, int arg)
{
	return kw_ratio(r->counters[arg], r->funcs[KW_P_TDP_ZAP_LEAFS].calls);
}

/* ---- building -------------------------------------------------------------------------------- */

struct builder {
	struct kw_compare *c;
	const struct kw_recording *base, *new;
	const struct kw_compare_opts *o;
	double *bv, *nv;
};

static bool in_list(const char *list, const char *s, bool first_word)
{
	size_t n = first_word ? strcspn(s, " /") : strlen(s);
	const char *p = list;

	if (!list)
		return true;
	while (*p) {
		size_t k = strcspn(p, ",");

		if ((k == strlen(s) && !strncmp(p, s, k)) || (k == n && !strncmp(p, s, n)))
			return true;
		p += k + !!p[k];
	}
	return false;
}

/*
 * The metrics probe_rows() makes, but the per-level and per-return-code ones and the counter
 * rows of kw_compare_counter_rows[] (counters.c).
 */
static const char *const fixed_metrics[] = {
	"calls/run", "median",		   "p90",		 "p99",
	"p99.9",     "mean",		   "blocks split/run",	 "visits/block split",
	"no-op visits/block",
};

/* A counter that is a row of its own in the "counters" group, not one of its probe's. */
static bool counter_row(int i)
{
	return kw_counters[i].compare;
}

/* word (n bytes) is metric m, or m's first word */
static bool names_metric(const char *w, size_t n, const char *m)
{
	return (n == strlen(m) || n == strcspn(m, " /")) && !strncmp(w, m, n);
}

static bool metric_known(const char *w, size_t n)
{
	char m[32];

	if (names_metric(w, n, "p50"))
		return true;
	for (size_t i = 0; i < sizeof(fixed_metrics) / sizeof(*fixed_metrics); i++)
		if (names_metric(w, n, fixed_metrics[i]))
			return true;
	for (const struct kw_compare_counter_row *row = kw_compare_counter_rows; row->metric; row++)
		if (names_metric(w, n, row->metric))
			return true;
	for (int l = 0; l < KW_NR_LEVELS; l++) {
		snprintf(m, sizeof(m), "L%d visits/walk", l - 1);
		if (names_metric(w, n, m))
			return true;
	}
	/* fast_page_fault's return codes: named by the recording's BTF, else "ret N/run" */
	if ((n > 7 && !strncmp(w, "RET_PF_", 7)) || names_metric(w, n, "ret"))
		return true;
	if (n > 4 && !strncmp(w, "ret ", 4))
		return true;
	for (int i = 0; i < KW_NR_COUNTERS; i++)
		if (counter_row(i) && names_metric(w, n, kw_counters[i].name))
			return true;
	return false;
}

static bool function_known(const char *w, size_t n)
{
	if (n == strlen("counters") && !strncmp(w, "counters", n))
		return true;
	for (int p = 0; p < KW_NR_PROBES; p++)
		if (n == strlen(kw_probes[p].name) && !strncmp(w, kw_probes[p].name, n))
			return true;
	return false;
}

static void append(char *buf, size_t len, const char *s)
{
	size_t k = strlen(buf);

	if (k < len)
		snprintf(buf + k, len - k, "%s%s", k ? ", " : "", s);
}

int kw_compare_check_names(const char *functions, const char *metrics, char *err, size_t errlen)
{
	const char *lists[2] = { functions, metrics };

	for (int which = 0; which < 2; which++) {
		const char *p = lists[which];

		while (p && *p) {
			size_t k = strcspn(p, ",");
			char names[2048] = "";

			if (k && !(which ? metric_known(p, k) : function_known(p, k))) {
				if (which) {
					for (size_t i = 0; i < sizeof(fixed_metrics) /
								       sizeof(*fixed_metrics);
					     i++) {
						char w[32];

						snprintf(w, sizeof(w), "%.*s",
							 (int)strcspn(fixed_metrics[i], " /"),
							 fixed_metrics[i]);
						if (!strstr(names, w))
							append(names, sizeof(names), w);
					}
					for (const struct kw_compare_counter_row *row =
						     kw_compare_counter_rows;
					     row->metric; row++) {
						char w[32];

						snprintf(w, sizeof(w), "%.*s",
							 (int)strcspn(row->metric, " /"),
							 row->metric);
						if (!strstr(names, w))
							append(names, sizeof(names), w);
					}
					append(names, sizeof(names), "p50, L-1 to L3, RET_PF_*, ret");
					for (int i = 0; i < KW_NR_COUNTERS; i++)
						if (counter_row(i))
							append(names, sizeof(names),
							       kw_counters[i].name);
				} else {
					for (int i = 0; i < KW_NR_PROBES; i++)
						append(names, sizeof(names), kw_probes[i].name);
					append(names, sizeof(names), "counters");
				}
				snprintf(err, errlen, "unknown %s '%.*s' (valid: %s)",
					 which ? "--metric" : "--function", (int)k, p, names);
				return -EINVAL;
			}
			p += k + !!p[k];
		}
	}
	return 0;
}

/* Fills the per-run values; false if every one is 0. */
static bool values(struct builder *b, run_fn fn, int arg)
{
	bool any = false;
	size_t i;

	for (i = 0; i < b->c->n_base; i++)
		any |= (b->bv[i] = fn(&b->base[i], arg)) != 0;
	for (i = 0; i < b->c->n_new; i++)
		any |= (b->nv[i] = fn(&b->new[i], arg)) != 0;
	return any;
}

static int change_of(struct builder *b, struct kw_change *ch, const char *what)
{
	int err = kw_change(b->bv, b->c->n_base, b->nv, b->c->n_new, b->c->level, b->c->method, ch);

	if (err)
		fprintf(stderr, "kvmwalk compare: %s: %s\n", what, strerror(-err));
	return err;
}

static int add_row(struct builder *b, const char *group, const char *metric,
		   enum kw_compare_unit unit, run_fn fn, int arg)
{
	struct kw_compare *c = b->c;
	struct kw_compare_row *row, *rows;

	/* --metric p50 selects the median too */
	if (!in_list(b->o->functions, group, false) ||
	    !(in_list(b->o->metrics, metric, true) ||
	      (!strcmp(metric, "median") && in_list(b->o->metrics, "p50", false))))
		return 0;
	if (!values(b, fn, arg))
		return 0;
	rows = realloc(c->rows, (c->nrows + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	row = &rows[c->nrows];
	memset(row, 0, sizeof(*row));
	snprintf(row->group, sizeof(row->group), "%s", group);
	snprintf(row->metric, sizeof(row->metric), "%s", metric);
	row->unit = unit;
	if (change_of(b, &row->change, metric))
		return -EINVAL;
	c->nrows++;
	return 0;
}

static int add_line(struct builder *b, struct kw_compare_section *s, const char *what,
		    const char *per, enum kw_compare_unit unit, run_fn fn, int arg, bool always)
{
	struct kw_compare_line *l;

	if (s->nlines >= KW_SECTION_LINES || (!values(b, fn, arg) && !always))
		return 0;
	l = &s->lines[s->nlines];
	memset(l, 0, sizeof(*l));
	snprintf(l->what, sizeof(l->what), "%s", what);
	snprintf(l->per, sizeof(l->per), "%s", per);
	l->unit = unit;
	if (change_of(b, &l->change, what))
		return -EINVAL;
	s->nlines++;
	return 0;
}

static bool any_run(struct builder *b, run_fn fn, int arg)
{
	return values(b, fn, arg);
}

/* Probe p was attached in every run of both sides. */
static bool attached_everywhere(struct builder *b, int p)
{
	size_t i;

	for (i = 0; i < b->c->n_base; i++)
		if (!kw_plan_attached(&b->base[i].plan[p]))
			return false;
	for (i = 0; i < b->c->n_new; i++)
		if (!kw_plan_attached(&b->new[i].plan[p]))
			return false;
	return true;
}

static int probe_rows(struct builder *b, int p)
{
	static const struct {
		const char *name;
		run_fn fn;
	} dur[] = { { "median", f_p50 }, { "p90", f_p90 },   { "p99", f_p99 },
		    { "p99.9", f_p999 }, { "mean", f_mean } };
	const char *g = kw_probes[p].name;
	char m[32];
	int err, w, l;

	if (!any_run(b, f_calls, p))
		return 0;
	err = add_row(b, g, "calls/run", KW_U_COUNT, f_calls, p);
	for (size_t i = 0; kw_probes[p].timed && i < sizeof(dur) / sizeof(*dur) && !err; i++)
		err = add_row(b, g, dur[i].name, KW_U_NS, dur[i].fn, p);
	if (err)
		return err;
	w = p == KW_P_SPLIT_WALKER ? KW_W_SPLIT : p == KW_P_UNMAP_WALKER ? KW_W_UNMAP : -1;
	for (l = 0; w >= 0 && l < KW_NR_LEVELS && !err; l++) {
		snprintf(m, sizeof(m), "L%d visits/walk", l - 1);
		err = add_row(b, g, m, KW_U_RATIO, f_visits_per_walk, w * KW_NR_LEVELS + l);
	}
	if (!err && w == KW_W_SPLIT) {
		err = add_row(b, g, "blocks split/run", KW_U_COUNT, f_blocks_split, 0);
		err = err ?: add_row(b, g, "visits/block split", KW_U_RATIO, f_split_per_block, -1);
		err = err ?: add_row(b, g, "no-op visits/block", KW_U_RATIO, f_split_per_block, -2);
	}
	for (size_t i = 0; kw_compare_counter_rows[i].metric && !err; i++) {
		const struct kw_compare_counter_row *row = &kw_compare_counter_rows[i];

		if (row->probe != p ||
		    (row->needs_everywhere && !attached_everywhere(b, row->needs_everywhere - 1)))
			continue;
		err = add_row(b, g, row->metric,
			      row->per_counter || row->per_calls ? KW_U_RATIO : KW_U_COUNT,
			      f_counter_row, (int)i);
	}
	for (int i = 0; p == KW_P_FAST_PF && i < KW_NR_PF_RET && !err; i++) {
		const char *n = b->base[0].pf_ret_names[i][0] ? b->base[0].pf_ret_names[i]
							      : b->new[0].pf_ret_names[i];

		if (*n)
			snprintf(m, sizeof(m), "%.22s/run", n);
		else
			snprintf(m, sizeof(m), "ret %d/run", i);
		err = add_row(b, g, m, KW_U_COUNT, f_counter, KW_C_PF_RET + i);
	}
	return err;
}

static const char *pf_name(struct builder *b, int i)
{
	return b->base[0].pf_ret_names[i][0] ? b->base[0].pf_ret_names[i]
					     : b->new[0].pf_ret_names[i];
}

/*
 * The sections that open a comparison: one per known change (DESIGN: the waste each bundled
 * change removes), shown when a run measured what it is about, with the lines that tell its
 * story. Lines of value 0 in every run are left out unless `always`.
 */
struct section_line {
	const char *what, *per;
	enum kw_compare_unit unit;
	run_fn fn;
	int arg;
	bool always;
	int needs_everywhere; /* KW_PREF() of a probe attached in every run, or no line */
	bool pf_rets;	      /* one line per fast_page_fault return code: "outcome NAME" */
};

struct section_def {
	enum kw_known_change change;
	const char *title, *where;
	/* shown when a run has a value for one of these */
	struct {
		run_fn fn;
		int arg;
	} shown[2];
	struct section_line lines[KW_SECTION_LINES];
};

static const struct section_def section_defs[] = {
	{
		KW_K_SKIP_LEVEL,
		"Split skips level 3 (skip-level walk flags)",
		"arm64 kvm_pgtable_stage2_split, stage2_split_walker",
		.shown = { { f_blocks_split, 0 }, { f_calls, KW_P_SPLIT_WALKER } },
		.lines = {
			{ "split calls", "per run", KW_U_COUNT, f_calls, KW_P_S2_SPLIT, true },
			{ "blocks split", "per run", KW_U_COUNT, f_blocks_split, 0, true },
			{ "split visits", "per block", KW_U_RATIO, f_split_per_block, -1, true },
			{ "level-3 visits", "per block", KW_U_RATIO, f_split_per_block, 3 + 1, true },
			{ "split visits that did nothing", "per block", KW_U_RATIO,
			  f_split_per_block, -2, true },
			{ "split time, median", "", KW_U_NS, f_p50, KW_P_S2_SPLIT },
		},
	},
	{
		KW_K_EMPTY_LEAF,
		"Empty-leaf-table hint for TDP zaps",
		"x86 tdp_mmu_zap_leafs",
		.shown = { { f_calls, KW_P_TDP_ZAP_LEAFS } },
		.lines = {
			{ "zaps", "per run", KW_U_COUNT, f_calls, KW_P_TDP_ZAP_LEAFS, true },
			/*
			 * What the hint saves is 4K entries visited (tdp_iter_next, a per-entry
			 * probe); without it in every run (--no-visits, a kernel without the
			 * function) only the range is known, and the line says so instead of
			 * passing the range off as visits.
			 */
			{ "4K entries visited", "per zap", KW_U_RATIO, f_per_zap, KW_C_ZAP_VISITS_4K,
			  true, KW_PREF(KW_P_TDP_ITER_NEXT) },
			{ "gfns in range", "per zap", KW_U_RATIO, f_per_zap, KW_C_ZAP_GFNS, true },
			{ "entries zapped", "per zap", KW_U_RATIO, f_per_zap, KW_C_ZAP_ZAPPED, true },
			{ "zap time, median", "", KW_U_NS, f_p50, KW_P_TDP_ZAP_LEAFS },
			{ "zap time, p99", "", KW_U_NS, f_p99, KW_P_TDP_ZAP_LEAFS },
		},
	},
	{
		KW_K_DEFER_FLUSH,
		"TLB flush only when something was unmapped",
		"arm64 kvm_pgtable_stage2_unmap, __kvm_tlb_flush_vmid_range",
		.shown = { { f_counter, KW_C_UNMAP_CALLS } },
		.lines = {
			{ "unmap calls", "per run", KW_U_COUNT, f_counter, KW_C_UNMAP_CALLS, true },
			{ "unmaps that cleared nothing", "per run", KW_U_COUNT, f_counter,
			  KW_C_UNMAP_EMPTY, true },
			{ "flushes", "per unmap", KW_U_RATIO, f_per_unmap, KW_C_UNMAP_FLUSHES, true },
			{ "flushes by unmaps that cleared nothing", "per run", KW_U_COUNT, f_counter,
			  KW_C_EMPTY_FLUSHES, true },
			{ "time in those flushes", "per run", KW_U_NS, f_counter,
			  KW_C_EMPTY_FLUSH_NS },
			{ "unmap time, median", "", KW_U_NS, f_p50, KW_P_S2_UNMAP },
		},
	},
	{
		/*
		 * arm64 NV: each MMU notifier unmaps the whole IPA space of every valid nested MMU,
		 * one kvm_pgtable_stage2_unmap (and one range flush) per 1 GiB, empty or not.
		 * Shown only when a run saw a nested unmap: every 7.3 host calls
		 * kvm_nested_s2_unmap, most with no valid nested MMU, and a section of zeros would
		 * say nothing.
		 */
		KW_K_NESTED_UNMAP,
		"Nested stage-2 unmaps: TLB flush only when something was unmapped",
		"arm64 NV kvm_nested_s2_unmap, kvm_pgtable_stage2_unmap",
		.shown = { { f_counter, KW_C_NESTED_ACTIVE } },
		.lines = {
			{ "nested unmaps", "per run", KW_U_COUNT, f_counter, KW_C_NESTED_ACTIVE,
			  true },
			{ "unmap calls", "per nested unmap", KW_U_RATIO, f_per_nested,
			  KW_C_NESTED_UNMAPS, true },
			{ "unmaps that cleared nothing", "per nested unmap", KW_U_RATIO,
			  f_per_nested, KW_C_NESTED_EMPTY, true },
			{ "flushes", "per nested unmap", KW_U_RATIO, f_per_nested,
			  KW_C_NESTED_FLUSHES, true },
			{ "empty flushes", "per nested unmap", KW_U_RATIO, f_per_nested,
			  KW_C_NESTED_EMPTY_FLUSHES, true },
			{ "flushes by unmaps that cleared a leaf", "per run", KW_U_COUNT,
			  f_nested_kept, 0, true },
			{ "time per nested unmap", "", KW_U_NS, f_per_nested, KW_C_NESTED_ACTIVE_NS },
		},
	},
	{
		KW_K_FAST_PF,
		"Lockless fast page fault for the TDP MMU",
		"x86 fast_page_fault",
		.shown = { { f_calls, KW_P_FAST_PF } },
		.lines = {
			{ "fast page faults", "per run", KW_U_COUNT, f_calls, KW_P_FAST_PF, true },
			{ .pf_rets = true },
			{ "fault time, median", "", KW_U_NS, f_p50, KW_P_FAST_PF },
			/*
			 * The series measured "dirty memory time", the workload's wall time of a
			 * write pass over write-protected memory; what a recording has of it is the
			 * time vCPUs spent in fast_page_fault and in the whole fault handler
			 * (kvm_mmu_page_fault, every fault: first touches too), summed over the run.
			 */
			{ "fast-fault time", "per run", KW_U_NS, f_sum, KW_P_FAST_PF },
			{ "vCPU fault time (all faults)", "per run", KW_U_NS, f_sum,
			  KW_P_GUEST_FAULT },
		},
	},
};

static int section_lines(struct builder *b, struct kw_compare_section *s,
			 const struct section_line *l)
{
	char what[48];
	int err = 0;

	if (l->needs_everywhere && !attached_everywhere(b, l->needs_everywhere - 1))
		return 0;
	if (!l->pf_rets)
		return add_line(b, s, l->what, l->per, l->unit, l->fn, l->arg, l->always);
	for (int i = 0; i < KW_NR_PF_RET && !err; i++) {
		snprintf(what, sizeof(what), "outcome %.30s",
			 *pf_name(b, i) ? pf_name(b, i) : "(unnamed)");
		err = add_line(b, s, what, "per run", KW_U_COUNT, f_counter, KW_C_PF_RET + i, false);
	}
	return err;
}

static int build_sections(struct builder *b)
{
	struct kw_compare *c = b->c;
	int err = 0;

	for (size_t k = 0; k < sizeof(section_defs) / sizeof(section_defs[0]) && !err; k++) {
		const struct section_def *d = &section_defs[k];
		struct kw_compare_section *s;

		if (!any_run(b, d->shown[0].fn, d->shown[0].arg) &&
		    !(d->shown[1].fn && any_run(b, d->shown[1].fn, d->shown[1].arg)))
			continue;
		s = &c->sections[c->nsections++];
		s->change = d->change;
		s->title = d->title;
		s->where = d->where;
		for (int i = 0; i < KW_SECTION_LINES && (d->lines[i].fn || d->lines[i].pf_rets) && !err;
		     i++)
			err = section_lines(b, s, &d->lines[i]);
	}
	return err;
}

/* ---- header: sides, differences, warnings, commands
 * ---------------------------------------------- */

/* The value of a side: the common value of its runs, or the distinct values joined by " | ". */
static void side_value(char *dst, size_t len, const struct kw_recording *r, size_t n,
		       const char *(*get)(const struct kw_recording *, const void *),
		       const void *arg)
{
	size_t used = 0;

	dst[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *v = get(&r[i], arg);
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(get(&r[j], arg), v);
		if (seen)
			continue;
		used += snprintf(dst + used, used < len ? len - used : 0, "%s%s", i ? " | " : "",
				 v);
	}
}

#define META_GETTER(field)                                                                         \
	static const char *get_##field(const struct kw_recording *r, const void *arg)              \
	{                                                                                          \
		return r->meta.field;                                                              \
	}
META_GETTER(kernel)
META_GETTER(kernel_build)
META_GETTER(hostname)
META_GETTER(cmdline)
META_GETTER(cpu)
META_GETTER(kvm_mode)
META_GETTER(thp)
META_GETTER(thp_defrag)
META_GETTER(attach)
META_GETTER(tool_version)
META_GETTER(arch)

static const char *get_visits(const struct kw_recording *r, const void *arg)
{
	return r->meta.visits ? "on" : "off (--no-visits)";
}

static const char *get_pid(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[KW_MAX_PIDS * 11];

	return kw_meta_pids(&r->meta, buf, sizeof(buf), ",") ? buf : "none";
}

static const char *get_param(const struct kw_recording *r, const void *arg)
{
	for (size_t i = 0; i < r->meta.nparams; i++)
		if (!strcmp(r->meta.params[i].name, arg))
			return r->meta.params[i].value;
	return "(not set)";
}

static const char *get_mech(const struct kw_recording *r, const void *arg)
{
	int p = *(const int *)arg;

	return r->plan[p].mech ? kw_mech_name(r->plan[p].mech) : "(none)";
}

static int add_diff(struct kw_compare *c, const char *what, const char *b, const char *n)
{
	struct kw_compare_diff *d = realloc(c->diffs, (c->ndiffs + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	c->diffs = d;
	d = &d[c->ndiffs++];
	snprintf(d->what, sizeof(d->what), "%s", what);
	snprintf(d->base, sizeof(d->base), "%s", b);
	snprintf(d->new, sizeof(d->new), "%s", n);
	return 0;
}

__attribute__((format(printf, 2, 3))) static int warn(struct kw_compare *c, const char *fmt, ...)
{
	char(*w)[256] = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*w));
	va_list ap;

	if (!w)
		return -ENOMEM;
	c->warnings = w;
	va_start(ap, fmt);
	vsnprintf(w[c->nwarnings++], sizeof(*w), fmt, ap);
	va_end(ap);
	return 0;
}

static int diff_field(struct builder *b, const char *what,
		      const char *(*get)(const struct kw_recording *, const void *),
		      const void *arg)
{
	char bv[384], nv[384];

	side_value(bv, sizeof(bv), b->base, b->c->n_base, get, arg);
	side_value(nv, sizeof(nv), b->new, b->c->n_new, get, arg);
	if (!strcmp(bv, nv) && !strstr(bv, " | "))
		return 0;
	return add_diff(b->c, what, bv, nv);
}

static bool is_mitigation(const char *tok)
{
	static const char *const pfx[] = {
		"mitigations=", "spectre",    "nospectre",   "kpti",	    "nopti",
		"pti=",		"mds=",	      "tsx",	     "l1tf",	    "retbleed",
		"srbds",	"ssbd",	      "spec_",	     "gather_data", "reg_file",
		"nosmt",	"mmio_stale", "spec_rstack", "arm64.nobti", "arm64.nopauth",
		"ibt=",		"its=",
	};

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(tok, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/* Words of a's command line that b's lacks, into dst; true if one concerns mitigations. */
static bool words_only_in(char *dst, size_t len, const char *a, const char *b)
{
	bool mit = false;
	size_t used = 0;

	dst[0] = 0;
	while (*a) {
		size_t k = strcspn(a, " "), blen;
		const char *p = b;
		bool found = false;

		while (*p && !found && k) {
			blen = strcspn(p, " ");
			found = blen == k && !strncmp(p, a, k);
			p += blen + !!p[blen];
		}
		if (k && !found) {
			char tok[256];

			snprintf(tok, sizeof(tok), "%.*s", (int)k, a);
			mit |= is_mitigation(tok);
			used += snprintf(dst + used, used < len ? len - used : 0, "%s%s",
					 used ? " " : "", tok);
		}
		a += k + !!a[k];
	}
	if (!dst[0])
		snprintf(dst, len, "(nothing the other side lacks)");
	return mit;
}

static int diff_cmdline(struct builder *b)
{
	char bv[1024], nv[1024], bo[384], no[384];
	bool mit;

	side_value(bv, sizeof(bv), b->base, b->c->n_base, get_cmdline, NULL);
	side_value(nv, sizeof(nv), b->new, b->c->n_new, get_cmdline, NULL);
	if (!strcmp(bv, nv))
		return 0;
	if (strstr(bv, " | ") || strstr(nv, " | "))
		return add_diff(b->c, "command line (runs differ)", bv, nv);
	mit = words_only_in(bo, sizeof(bo), bv, nv);
	mit |= words_only_in(no, sizeof(no), nv, bv);
	return add_diff(b->c,
			mit ? "command line, mitigations (only here)" : "command line (only here)",
			bo, no);
}

static bool has_param(const struct kw_compare_diff *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].what + strlen("KVM param "), name))
			return true;
	return false;
}

static int build_diffs(struct builder *b)
{
	struct kw_compare *c = b->c;
	size_t first;
	int err = 0, p;

	err = err ?: diff_field(b, "kernel build", get_kernel_build, NULL);
	err = err ?: diff_cmdline(b);
	err = err ?: diff_field(b, "KVM mode", get_kvm_mode, NULL);
	/* every KVM module parameter either side knows */
	first = c->ndiffs;
	for (int side = 0; side < 2 && !err; side++) {
		const struct kw_recording *r = side ? b->new : b->base;
		size_t n = side ? c->n_new : c->n_base;

		for (size_t i = 0; i < n && !err; i++)
			for (size_t j = 0; j < r[i].meta.nparams && !err; j++) {
				const char *name = r[i].meta.params[j].name;
				char what[48];

				if (has_param(c->diffs + first, c->ndiffs - first, name))
					continue;
				snprintf(what, sizeof(what), "KVM param %.37s", name);
				/* a name that does not fit is compared but cannot be found again */
				err = diff_field(b, what, get_param, name);
			}
	}
	err = err ?: diff_field(b, "THP enabled", get_thp, NULL);
	err = err ?: diff_field(b, "THP defrag", get_thp_defrag, NULL);
	err = err ?: diff_field(b, "CPU", get_cpu, NULL);
	err = err ?: diff_field(b, "attach option", get_attach, NULL);
	for (p = 0; p < KW_NR_PROBES && !err; p++) {
		char what[48];
		size_t before = c->ndiffs;

		if (!kw_probe_in_arch(p, b->base[0].meta.arch))
			continue;
		snprintf(what, sizeof(what), "attach %.40s", kw_probes[p].name);
		err = diff_field(b, what, get_mech, &p);
		if (!err && c->ndiffs > before)
			err = warn(c,
				   "%s: attach mechanism %s in base, %s in new: its numbers "
				   "include different probe costs, or are missing on a side",
				   kw_probes[p].name, c->diffs[before].base,
				   c->diffs[before].new);
	}
	err = err ?: diff_field(b, "visit probes", get_visits, NULL);
	err = err ?: diff_field(b, "pid filter", get_pid, NULL);
	err = err ?: diff_field(b, "kvmwalk version", get_tool_version, NULL);
	return err;
}

static double overhead_of(const struct kw_recording *r, size_t n, bool *known)
{
	double v[n];
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (r[i].overhead.stats_enabled && r[i].overhead.measured_ns)
			v[k++] = kw_overhead_share(&r[i]);
	*known = k > 0;
	return k ? kw_median(v, k) : 0;
}

static int overhead_warning(struct kw_compare *c)
{
	double d = 100 * fabs(c->new.overhead_share - c->base.overhead_share);
	const struct kw_compare_row *worst = NULL;
	size_t n = 0;

	if (!c->base.overhead_known || !c->new.overhead_known)
		return 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];

		if (r->unit != KW_U_NS || isnan(r->change.delta_pct) ||
		    fabs(r->change.delta_pct) >= d)
			continue;
		n++;
		if (!worst || fabs(r->change.delta_pct) < fabs(worst->change.delta_pct))
			worst = r;
	}
	if (!n)
		return 0;
	return warn(c,
		    "probe overhead differs by %.1f points (base %.1f%%, new %.1f%%), more than "
		    "%zu duration change%s measured (smallest: %s %s %+.1f%%)",
		    d, 100 * c->base.overhead_share, 100 * c->new.overhead_share, n,
		    n == 1 ? "" : "s", worst->group, worst->metric, worst->change.delta_pct);
}

static int lost_warning(struct kw_compare *c, const struct kw_recording *r, size_t n,
			const char *side)
{
	__u64 lost = 0, full = 0;

	for (size_t i = 0; i < n; i++) {
		for (int p = 0; p < KW_NR_PROBES; p++)
			lost += r[i].funcs[p].missed + r[i].funcs[p].dropped;
		for (int k = KW_C_TASK_FULL; k <= KW_C_TRIG_FULL; k++)
			full += r[i].counters[k];
	}
	if (!lost && !full)
		return 0;
	return warn(c, "%s runs lost events: %llu calls missed or dropped, %llu map-full counts",
		    side, (unsigned long long)lost, (unsigned long long)full);
}

/* The recording as its JSON text: two recordings with the same text are the same recording. */
static char *recording_text(const struct kw_recording *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = kw_recording_write(r, f);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	/* stat follows symbolic links: "a.json", "./a.json" and a link to it are one file */
	return a && b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* "run 2 (PATH)", or "run 2" without paths; a long path keeps its end */
static void run_name(char *dst, size_t len, size_t i, const char *const *paths)
{
	const char *p = paths ? paths[i] : NULL;
	size_t n = p ? strlen(p) : 0;

	if (!p)
		snprintf(dst, len, "run %zu", i + 1);
	else
		snprintf(dst, len, "run %zu (%s%s)", i + 1, n > 48 ? "..." : "",
			 n > 48 ? p + n - 45 : p);
}

/*
 * A base run that is also a new run, as the same file or as a copy: what compare shows is then a
 * recording against itself. At most 3 such pairs are named, then how many more there are.
 */
static int same_recording_warnings(struct builder *b)
{
	struct kw_compare *c = b->c;
	const struct kw_compare_opts *o = b->o;
	size_t n = c->n_base + c->n_new, *len = calloc(n, sizeof(*len)), pairs = 0;
	char **text = calloc(n, sizeof(*text)), bn[80], nn[80];
	int err = 0;

	if (!len || !text) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n && !err; i++) {
		text[i] = recording_text(i < c->n_base ? &b->base[i] : &b->new[i - c->n_base],
					 &len[i]);
		if (!text[i])
			err = -ENOMEM;
	}
	for (size_t i = 0; i < c->n_base && !err; i++)
		for (size_t j = 0; j < c->n_new && !err; j++) {
			bool file = o->base_paths && o->new_paths &&
				    same_file(o->base_paths[i], o->new_paths[j]);
			size_t k = c->n_base + j;

			if (!file && (len[i] != len[k] || memcmp(text[i], text[k], len[i])))
				continue;
			if (++pairs > 3)
				continue;
			run_name(bn, sizeof(bn), i, o->base_paths);
			run_name(nn, sizeof(nn), j, o->new_paths);
			err = file ? warn(c,
					  "base %s and new %s are the same file: the report "
					  "compares a recording with itself",
					  bn, nn)
				   : warn(c,
					  "base %s and new %s are the same recording (identical "
					  "content): the report compares it with itself",
					  bn, nn);
		}
	if (!err && pairs > 3)
		err = warn(c,
			   "and %zu more pair%s of base and new runs that are the same recording",
			   pairs - 3, pairs == 4 ? "" : "s");
cleanup:
	for (size_t i = 0; text && i < n; i++)
		free(text[i]);
	free(text);
	free(len);
	return err;
}

static const char *get_command(const struct kw_recording *r, const void *arg)
{
	return r->meta.command[0] ? r->meta.command : "(no command: -d or Ctrl-C)";
}

static bool has_command(const struct kw_recording *r, size_t n, const char *cmd)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].meta.command, cmd))
			return true;
	return false;
}

/*
 * At most max characters: about two thirds of the beginning of s and a third of its end around
 * " ... ", cut between words where a word boundary is near enough.
 */
static void shorten(char *dst, size_t len, const char *s, size_t max)
{
	size_t n = strlen(s), hb = (max - 5) * 2 / 3, tb = max - 5 - hb, head = hb, tail = n - tb;

	if (n <= max) {
		snprintf(dst, len, "%s", s);
		return;
	}
	for (size_t i = hb; i > hb / 2; i--)
		if (s[i] == ' ') {
			head = i;
			break;
		}
	for (size_t i = n - tb; i < n - tb / 2; i++)
		if (s[i - 1] == ' ') {
			tail = i;
			break;
		}
	snprintf(dst, len, "%.*s ... %s", (int)head, s, s + tail);
}

/*
 * Two commands at most max characters each: in full if both fit; else the words both begin with
 * after the program's name become "...", so what differs stays; then shorten() if need be.
 */
static void shorten_pair(char *bs, char *ns, size_t len, const char *bv, const char *nv, size_t max)
{
	size_t ib = 0, in = 0, prog = 0, words = 0;
	char b[2100], n[2100]; /* "PROG ... " and the rest of a 1024-byte value */

	snprintf(b, sizeof(b), "%s", bv);
	snprintf(n, sizeof(n), "%s", nv);
	if (strlen(bv) > max || strlen(nv) > max) {
		/* the last word of either is never elided */
		for (;;) {
			size_t kb = strcspn(bv + ib, " "), kn = strcspn(nv + in, " ");

			if (kb != kn || strncmp(bv + ib, nv + in, kb) || !bv[ib + kb] ||
			    !nv[in + kn])
				break;
			ib += kb + 1;
			in += kn + 1;
			if (!words++)
				prog = kb;
		}
		/* "..." for the common words after the program's, where that is shorter */
		if (words >= 2 && ib > prog + 1 + 4) {
			snprintf(b, sizeof(b), "%.*s ... %s", (int)prog, bv, bv + ib);
			snprintf(n, sizeof(n), "%.*s ... %s", (int)prog, nv, nv + in);
		}
	}
	shorten(bs, len, b, max);
	shorten(ns, len, n, max);
}

/*
 * The recorded commands (meta.command) of the two sides are not the same set: the runs may have
 * measured different workloads. Each side's commands are shortened to 56 characters, so the
 * warning stays a few lines of the 72-column text; "Recorded with" has them in full.
 */
static int command_warning(struct builder *b)
{
	struct kw_compare *c = b->c;
	char bv[1024], nv[1024], bs[64], ns[64];
	bool differ = false;

	for (size_t i = 0; i < c->n_base && !differ; i++)
		differ = !has_command(b->new, c->n_new, b->base[i].meta.command);
	for (size_t i = 0; i < c->n_new && !differ; i++)
		differ = !has_command(b->base, c->n_base, b->new[i].meta.command);
	if (!differ)
		return 0;
	side_value(bv, sizeof(bv), b->base, c->n_base, get_command, NULL);
	side_value(nv, sizeof(nv), b->new, c->n_new, get_command, NULL);
	shorten_pair(bs, ns, sizeof(bs), bv, nv, 56);
	return warn(c,
		    "the recorded commands differ, so the runs may not have measured the same "
		    "workload: base ran %s; new ran %s",
		    bs, ns);
}

/* A shell word: quoted when it has anything but the safe characters. */
static size_t append_word(char *d, size_t used, size_t len, const char *w)
{
	bool plain = *w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789@%+=:,./_-")];

	if (plain)
		return used + snprintf(d + used, used < len ? len - used : 0, " %s", w);
	used += snprintf(d + used, used < len ? len - used : 0, " '");
	for (; *w; w++)
		used += snprintf(d + used, used < len ? len - used : 0, *w == '\'' ? "'\\''" : "%c",
				 *w);
	return used + snprintf(d + used, used < len ? len - used : 0, "'");
}

static int side_commands(struct kw_compare_side *s, const struct kw_recording *r, size_t n,
			 const char *const *paths)
{
	s->cmds = calloc(n, sizeof(*s->cmds));
	if (!s->cmds)
		return -ENOMEM;
	s->ncmds = n;
	for (size_t i = 0; i < n; i++) {
		const struct kw_meta *m = &r[i].meta;
		size_t len = 2048, used;
		char *d = malloc(len), num[KW_MAX_PIDS * 11];

		if (!d)
			return -ENOMEM;
		s->cmds[i] = d;
		if (m->kvmwalk_command[0]) {
			snprintf(d, len, "%s", m->kvmwalk_command);
			continue;
		}
		/* an older recording: rebuilt from what its metadata says */
		s->reconstructed = true;
		used = snprintf(d, len, "kvmwalk record");
		if (m->attach[0] && strcmp(m->attach, "auto"))
			used += snprintf(d + used, len - used, " --attach %s", m->attach);
		if (!m->visits)
			used += snprintf(d + used, len - used, " --no-visits");
		if (m->npid_filter) {
			kw_meta_pids(m, num, sizeof(num), ",");
			used += snprintf(d + used, len - used, " --pid %s", num);
		}
		if (paths) {
			const char *base = strrchr(paths[i], '/');

			used += snprintf(d + used, len - used, " -o");
			used = append_word(d, used, len, base ? base + 1 : paths[i]);
		}
		if (m->command[0]) {
			used += snprintf(d + used, used < len ? len - used : 0, " -- %s",
					 m->command);
		} else if (m->duration_s > 0) {
			snprintf(num, sizeof(num), "%.0f", m->duration_s);
			snprintf(d + used, used < len ? len - used : 0, " -d %s", num);
		}
	}
	return 0;
}

static void describe_side(struct kw_compare_side *s, const struct kw_recording *r, size_t n)
{
	s->runs = n;
	side_value(s->kernel, sizeof(s->kernel), r, n, get_kernel, NULL);
	side_value(s->arch, sizeof(s->arch), r, n, get_arch, NULL);
	side_value(s->host, sizeof(s->host), r, n, get_hostname, NULL);
	s->overhead_share = overhead_of(r, n, &s->overhead_known);
}

/*
 * --count / --time: rows for the user-named functions that every run asked for, matched by
 * name (a run where one was unavailable counts 0: the optional function only a patched kernel
 * has shows as 0 -> N). The run functions take an index into ufn_names, filled by
 * ufunc_rows() for one comparison at a time (kw_compare_build() is not reentrant for them).
 */
static char ufn_names[2 * KW_MAX_UFUNCS][KW_UFUNC_NAME_LEN];

static const struct kw_ufunc *ufunc_of(const struct kw_recording *r, int k)
{
	for (size_t i = 0; i < r->nufuncs; i++)
		if (!strcmp(r->ufuncs[i].req.name, ufn_names[k]) &&
		    kw_plan_attached(&r->ufuncs[i].plan))
			return &r->ufuncs[i];
	return NULL;
}

static double f_ucalls(const struct kw_recording *r, int k)
{
	const struct kw_ufunc *u = ufunc_of(r, k);

	return u ? (double)u->f.calls : 0;
}

/* k / 16: the name, k % 16: the trigger */
static double f_utrig(const struct kw_recording *r, int k)
{
	const struct kw_ufunc *u = ufunc_of(r, k / 16);
	double n = 0;

	for (size_t i = 0; u && i < r->nutrigs; i++)
		if (&r->ufuncs[r->utrigs[i].probe] == u && r->utrigs[i].trigger == k % 16)
			n += r->utrigs[i].calls;
	return n;
}

static double uq(const struct kw_recording *r, int k, double q)
{
	const struct kw_ufunc *u = ufunc_of(r, k);

	return u && u->req.timed ? (q < 0 ? kw_hist_mean(&u->f.dur) : kw_hist_quantile(&u->f.dur, q))
				 : 0;
}

static double f_up50(const struct kw_recording *r, int k) { return uq(r, k, 0.5); }
static double f_up90(const struct kw_recording *r, int k) { return uq(r, k, 0.9); }
static double f_up99(const struct kw_recording *r, int k) { return uq(r, k, 0.99); }
static double f_up999(const struct kw_recording *r, int k) { return uq(r, k, 0.999); }
static double f_umean(const struct kw_recording *r, int k) { return uq(r, k, -1); }

static void ufn_name_add(size_t *n, const struct kw_recording *r, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (size_t u = 0; u < r[i].nufuncs; u++) {
			size_t k = 0;

			while (k < *n && strcmp(ufn_names[k], r[i].ufuncs[u].req.name))
				k++;
			if (k == *n && *n < sizeof(ufn_names) / sizeof(*ufn_names))
				snprintf(ufn_names[(*n)++], sizeof(*ufn_names), "%s",
					 r[i].ufuncs[u].req.name);
		}
}

/* Every run asked for ufn_names[k] (attached or not): a run that did not has no value for it. */
static bool ufn_asked(const struct kw_recording *r, size_t nr, size_t k)
{
	for (size_t i = 0; i < nr; i++) {
		size_t u = 0;

		while (u < r[i].nufuncs && strcmp(r[i].ufuncs[u].req.name, ufn_names[k]))
			u++;
		if (u == r[i].nufuncs)
			return false;
	}
	return true;
}

static int ufunc_rows(struct builder *b)
{
	static const struct {
		const char *name;
		run_fn fn;
	} dur[] = { { "median", f_up50 }, { "p90", f_up90 },   { "p99", f_up99 },
		    { "p99.9", f_up999 }, { "mean", f_umean } };
	size_t n = 0;
	int err = 0;

	ufn_name_add(&n, b->base, b->c->n_base);
	ufn_name_add(&n, b->new, b->c->n_new);
	for (size_t k = 0; k < n && !err; k++) {
		char m[32], g[80];

		if (!ufn_asked(b->base, b->c->n_base, k) || !ufn_asked(b->new, b->c->n_new, k))
			continue;

		/* "(user)": a user function can be a built-in probe's function too */
		snprintf(g, sizeof(g), "%.63s (user)", ufn_names[k]);
		err = add_row(b, g, "calls/run", KW_U_COUNT, f_ucalls, k);
		for (int t = 0; t < KW_NR_TRIGGERS && !err; t++) {
			snprintf(m, sizeof(m), "%s/run", kw_trigger_names[t]);
			err = add_row(b, g, m, KW_U_COUNT, f_utrig, k * 16 + t);
		}
		for (size_t i = 0; i < sizeof(dur) / sizeof(*dur) && !err; i++)
			err = add_row(b, g, dur[i].name, KW_U_NS, dur[i].fn, k);
	}
	return err;
}

int kw_compare_build(struct kw_compare *c, const struct kw_recording *base, size_t n_base,
		     const struct kw_recording *new, size_t n_new, const struct kw_compare_opts *o)
{
	struct builder b = { .c = c, .base = base, .new = new, .o = o };
	int err = 0, p, i;

	memset(c, 0, sizeof(*c));
	if (!n_base || !n_new)
		return -EINVAL;
	c->n_base = n_base;
	c->n_new = n_new;
	c->level = o->level;
	c->method = o->method;
	describe_side(&c->base, base, n_base);
	describe_side(&c->new, new, n_new);
	b.bv = calloc(n_base, sizeof(*b.bv));
	b.nv = calloc(n_new, sizeof(*b.nv));
	if (!b.bv || !b.nv) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (p = 0; p < KW_NR_PROBES && !err; p++)
		err = probe_rows(&b, p);
	err = err ?: ufunc_rows(&b);
	for (i = 0; i < KW_NR_COUNTERS && !err; i++)
		if (counter_row(i))
			err = add_row(&b, "counters", kw_counters[i].name, KW_U_COUNT, f_counter, i);
	err = err ?: build_sections(&b);
	err = err ?: same_recording_warnings(&b);
	err = err ?: command_warning(&b);
	err = err ?: build_diffs(&b);
	err = err ?: overhead_warning(c);
	err = err ?: lost_warning(c, base, n_base, "base");
	err = err ?: lost_warning(c, new, n_new, "new");
	err = err ?: side_commands(&c->base, base, n_base, o->base_paths);
	err = err ?: side_commands(&c->new, new, n_new, o->new_paths);
cleanup:
	free(b.bv);
	free(b.nv);
	if (err)
		kw_compare_free(c);
	return err;
}

static void free_cmds(struct kw_compare_side *s)
{
	for (size_t i = 0; i < s->ncmds; i++)
		free(s->cmds[i]);
	free(s->cmds);
	s->cmds = NULL;
	s->ncmds = 0;
}

void kw_compare_free(struct kw_compare *c)
{
	if (!c)
		return;
	free(c->rows);
	free(c->diffs);
	free(c->warnings);
	free_cmds(&c->base);
	free_cmds(&c->new);
	c->rows = NULL;
	c->diffs = NULL;
	c->warnings = NULL;
	c->nrows = c->ndiffs = c->nwarnings = 0;
}

/* ---- formatting ------------------------------------------------------------------------------ */

/* At most 7 characters: 4 significant digits with an SI suffix. */
static const char *fmt_num(char *buf, size_t size, double v)
{
	static const char sfx[] = "kMGTPE";
	int i = -1;

	if (v < 1e4) {
		snprintf(buf, size, v == floor(v) ? "%.0f" : "%.1f", v);
		return buf;
	}
	while (v >= 1e3 && i < 5) {
		v /= 1e3;
		i++;
	}
	snprintf(buf, size, v < 100 ? "%.2f%c" : "%.1f%c", v, sfx[i]);
	return buf;
}

static const char *fmt_value(char *buf, size_t size, double v, enum kw_compare_unit u)
{
	if (u == KW_U_NS) {
		kw_fmt_ns(buf, size, v);
		return buf;
	}
	return fmt_num(buf, size, v);
}

/* Exact, with thousands separators: "262,144", "512.5". */
static const char *fmt_exact(char *buf, size_t size, double v, enum kw_compare_unit u)
{
	char digits[48], *p;
	size_t n, lead, o = 0;

	if (u == KW_U_NS) {
		kw_fmt_ns(buf, size, v);
		return buf;
	}
	snprintf(digits, sizeof(digits), fabs(v - round(v)) < 0.005 ? "%.0f" : "%.2f", v);
	p = strchr(digits, '.');
	n = p ? (size_t)(p - digits) : strlen(digits);
	lead = n % 3 ? n % 3 : 3;
	for (size_t i = 0; digits[i] && o + 2 < size; i++) {
		if (i < n && i >= lead && (i - lead) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}

/* At most 7 characters plus the suffix. */
static const char *fmt_pct(char *buf, size_t size, double v, const char *suffix)
{
	if (fabs(v) < 0.05)
		v = 0; /* no "-0.0" */
	if (isnan(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) < 999.95)
		snprintf(buf, size, "%+.1f%s", v, suffix);
	else if (fabs(v) < 999999.5)
		snprintf(buf, size, "%+.0f%s", v, suffix);
	else
		snprintf(buf, size, "%s%s", v < 0 ? "<-1e6" : ">1e6", suffix);
	return buf;
}

static const char *fmt_interval(char *buf, size_t size, const struct kw_change *ch)
{
	char lo[16], hi[16];

	if (!ch->has_interval)
		return "-";
	snprintf(buf, size, "[%s,%s]", fmt_pct(lo, sizeof(lo), ch->ci_low_pct, ""),
		 fmt_pct(hi, sizeof(hi), ch->ci_high_pct, ""));
	return buf;
}

static const char *verdict(const struct kw_change *ch)
{
	if (!ch->has_interval)
		return "no interval";
	if (ch->confidence < KW_MIN_CONFIDENCE)
		return "too few runs to tell";
	return ch->significant ? "significant" : "no significant change";
}

static const char *method_name(enum kw_ci_method m)
{
	return m == KW_CI_BOOTSTRAP ? "bootstrap" : "hodges-lehmann";
}

/* The confidence the intervals reach (the same for every row with one). */
static double shown_confidence(const struct kw_compare *c)
{
	size_t i;

	for (i = 0; i < c->nrows; i++)
		if (c->rows[i].change.has_interval)
			return c->rows[i].change.confidence;
	return 0;
}

static const char *unit_word(enum kw_compare_unit u)
{
	return u == KW_U_NS ? "ns" : u == KW_U_RATIO ? "ratio" : "count";
}

/* Section line values: "512 per block", "1.84ms". */
static void fmt_line_value(char *buf, size_t size, double v, const struct kw_compare_line *l)
{
	char n[48];

	fmt_exact(n, sizeof(n), v, l->unit);
	snprintf(buf, size, l->per[0] ? "%s %s" : "%s", n, l->per);
}

/* ---- text ------------------------------------------------------------------------------------ */

/* Words of s, wrapped at TEXT_COLS: first line after prefix, the others after indent spaces. */
static void print_wrapped(FILE *f, const char *prefix, int indent, const char *s, bool shell)
{
	int col = fprintf(f, "%s", prefix), start = col;
	const char *cont = shell ? " \\" : "";
	int clen = (int)strlen(cont);

	while (*s) {
		int k = (int)strcspn(s, " ");

		if (col > start && col + 1 + k + clen > TEXT_COLS) {
			fprintf(f, "%s\n%*s", cont, indent, "");
			col = start = indent;
		} else if (col > start) {
			col += fprintf(f, " ");
		}
		/* a word longer than a line is cut: the text must fit */
		if (col + k + clen > TEXT_COLS && !shell)
			k = TEXT_COLS - col;
		col += fprintf(f, "%.*s", k, s);
		s += k;
		s += strspn(s, " ");
	}
	fputc('\n', f);
}

static void print_side_text(FILE *f, const char *name, const struct kw_compare_side *s)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%s %s, host %s, %zu run%s", s->kernel, s->arch,
		 s->host[0] ? s->host : "unknown", s->runs, s->runs == 1 ? "" : "s");
	print_wrapped(f, name, 8, buf, false);
}

static void print_text(FILE *f, const struct kw_compare *c)
{
	double conf = shown_confidence(c);
	const char *group = NULL;
	size_t i, j;

	fprintf(f, "kvmwalk compare: %zu base run%s against %zu new run%s\n", c->n_base,
		c->n_base == 1 ? "" : "s", c->n_new, c->n_new == 1 ? "" : "s");
	print_side_text(f, "  base: ", &c->base);
	print_side_text(f, "  new:  ", &c->new);
	if (c->base.overhead_known || c->new.overhead_known)
		fprintf(f, "  probe overhead: base %.1f %%, new %.1f %% of the measured time\n",
			100 * c->base.overhead_share, 100 * c->new.overhead_share);
	else
		fprintf(f, "  probe overhead: not measured (BPF run-time statistics were off)\n");

	fprintf(f, "\n");
	if (!c->ndiffs)
		fprintf(f, "Environment: no difference%s.\n",
			strcmp(c->base.kernel, c->new.kernel) ? " besides the kernel release" : "");
	else
		fprintf(f, "Environment differences that can change the numbers:\n");
	for (i = 0; i < c->ndiffs; i++) {
		fprintf(f, "  %.68s\n", c->diffs[i].what);
		print_wrapped(f, "    base: ", 10, c->diffs[i].base, false);
		print_wrapped(f, "    new:  ", 10, c->diffs[i].new, false);
	}
	for (i = 0; i < c->nwarnings; i++) {
		if (!i)
			fprintf(f, "\n");
		print_wrapped(f, "WARNING: ", 9, c->warnings[i], false);
	}

	for (i = 0; i < c->nsections; i++) {
		const struct kw_compare_section *s = &c->sections[i];

		fprintf(f, "\n%.72s\n  (%.68s)\n", s->title, s->where);
		for (j = 0; j < s->nlines; j++) {
			const struct kw_compare_line *l = &s->lines[j];
			char b[64], n[64], d[16], line[160];
			int len;

			fmt_exact(b, sizeof(b), l->change.base_median, l->unit);
			fmt_line_value(n, sizeof(n), l->change.new_median, l);
			len = snprintf(line, sizeof(line), "  %s: %s -> %s", l->what, b, n);
			if (l->change.base_median != l->change.new_median &&
			    !isnan(l->change.delta_pct)) {
				fmt_pct(d, sizeof(d), l->change.delta_pct, "%");
				if (len + 3 + (int)strlen(d) <= TEXT_COLS)
					snprintf(line + len, sizeof(line) - len, " (%s)", d);
			}
			fprintf(f, "%.72s\n", line);
		}
	}

	fprintf(f, "\nPer function: medians over runs; delta: the change of the median.\n");
	if (!conf)
		fprintf(f, "One run on a side: no interval can be given (repeat the runs).\n");
	else if (c->method == KW_CI_BOOTSTRAP)
		fprintf(f, "Intervals: %.1f %% percentile bootstrap of the ratio of medians.\n",
			100 * conf);
	else
		fprintf(f, "Intervals: %.1f %% Hodges-Lehmann (Mann-Whitney), of the ratio.\n",
			100 * conf);
	if (conf && conf < KW_MIN_CONFIDENCE)
		fprintf(f, "Too few runs to call a change significant (3 a side reach 90 %%).\n");
	if (conf)
		fprintf(f, "* the interval excludes 0; n.s.: no significant change.\n");
	/* 2 + 21 + 1 + 8 + 1 + 8 + 1 + 8 + 1 + 1 + 20 = 72 */
	fprintf(f, "\n  %-21s %8s %8s %8s  %s\n", "", "base", "new", "delta", "interval %");
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];
		const struct kw_change *ch = &r->change;
		char b[16], n[16], d[16], iv[40], col[48];

		if (!group || strcmp(group, r->group)) {
			group = r->group;
			fprintf(f, "%.*s\n", TEXT_COLS, group);
		}
		fmt_interval(iv, sizeof(iv), ch);
		if (ch->has_interval && ch->confidence < KW_MIN_CONFIDENCE)
			snprintf(col, sizeof(col), "%s", iv);
		else if (ch->has_interval && !ch->delta_pct && !ch->ci_low_pct && !ch->ci_high_pct)
			snprintf(col, sizeof(col), "n.s. no change");
		else if (ch->has_interval && !ch->significant)
			snprintf(col, sizeof(col), strlen(iv) <= 15 ? "n.s. %s" : "n.s.",
				 fmt_interval(iv, sizeof(iv), ch));
		else
			snprintf(col, sizeof(col), "%s", fmt_interval(iv, sizeof(iv), ch));
		fprintf(f, "  %-21.21s %8s %8s %8s%c %s\n", r->metric,
			fmt_value(b, sizeof(b), ch->base_median, r->unit),
			fmt_value(n, sizeof(n), ch->new_median, r->unit),
			fmt_pct(d, sizeof(d), ch->delta_pct, "%"), ch->significant ? '*' : ' ',
			col);
	}

	for (int side = 0; side < 2; side++) {
		const struct kw_compare_side *s = side ? &c->new : &c->base;

		fprintf(f, "\nRecorded with (%s, %s):\n", side ? "new" : "base", s->kernel);
		for (i = 0; i < s->ncmds; i++)
			print_wrapped(f, "  ", 6, s->cmds[i], true);
		if (s->reconstructed)
			fprintf(f, "  (rebuilt from the metadata of an older recording)\n");
	}
}

/* ---- markdown -------------------------------------------------------------------------------- */

static void md_side(FILE *f, const char *name, const struct kw_compare_side *s)
{
	fprintf(f, "| %s | `%s` | %s | %s | %zu |\n", name, s->kernel, s->arch, s->host, s->runs);
}

static void print_markdown(FILE *f, const struct kw_compare *c)
{
	double conf = shown_confidence(c);
	size_t i, j;

	fprintf(f, "### kvmwalk compare\n\n");
	fprintf(f, "| side | kernel | arch | host | runs |\n|---|---|---|---|---:|\n");
	md_side(f, "base", &c->base);
	md_side(f, "new", &c->new);
	if (c->base.overhead_known || c->new.overhead_known)
		fprintf(f, "\nProbe overhead: base %.1f %%, new %.1f %% of the measured time.\n",
			100 * c->base.overhead_share, 100 * c->new.overhead_share);
	fprintf(f, "\n");
	if (!c->ndiffs) {
		fprintf(f, "Environment: no difference%s.\n",
			strcmp(c->base.kernel, c->new.kernel) ? " besides the kernel release" : "");
	} else {
		fprintf(f, "**Environment differences that can change the numbers**\n\n");
		fprintf(f, "| what | base | new |\n|---|---|---|\n");
		for (i = 0; i < c->ndiffs; i++)
			fprintf(f, "| %s | `%s` | `%s` |\n", c->diffs[i].what, c->diffs[i].base,
				c->diffs[i].new);
	}
	for (i = 0; i < c->nwarnings; i++)
		fprintf(f, "%s> **Warning**: %s\n", i ? ">\n" : "\n", c->warnings[i]);

	for (i = 0; i < c->nsections; i++) {
		const struct kw_compare_section *s = &c->sections[i];

		fprintf(f, "\n**%s** (%s)\n\n", s->title, s->where);
		fprintf(f, "| quantity | base | new | delta |\n|---|---:|---:|---:|\n");
		for (j = 0; j < s->nlines; j++) {
			const struct kw_compare_line *l = &s->lines[j];
			char b[64], n[64], d[16];

			fmt_line_value(b, sizeof(b), l->change.base_median, l);
			fmt_line_value(n, sizeof(n), l->change.new_median, l);
			fprintf(f, "| %s | %s | %s | %s |\n", l->what, b, n,
				fmt_pct(d, sizeof(d), l->change.delta_pct, "%"));
		}
	}

	fprintf(f, "\n**Per function**: medians over runs. ");
	if (conf)
		fprintf(f, "%.1f %% intervals (%s); * the interval excludes 0.\n\n", 100 * conf,
			method_name(c->method));
	else
		fprintf(f, "One run on a side: no interval can be given.\n\n");
	fprintf(f, "| function | metric | base | new | delta | interval %% | verdict |\n");
	fprintf(f, "|---|---|---:|---:|---:|---|---|\n");
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];
		const struct kw_change *ch = &r->change;
		char b[16], n[16], d[16], iv[40];

		fprintf(f, "| `%s` | %s | %s | %s | %s%s | %s | %s |\n", r->group, r->metric,
			fmt_value(b, sizeof(b), ch->base_median, r->unit),
			fmt_value(n, sizeof(n), ch->new_median, r->unit),
			fmt_pct(d, sizeof(d), ch->delta_pct, "%"), ch->significant ? " *" : "",
			fmt_interval(iv, sizeof(iv), ch), verdict(ch));
	}

	for (int side = 0; side < 2; side++) {
		const struct kw_compare_side *s = side ? &c->new : &c->base;

		fprintf(f, "\nRecorded with (%s, `%s`)%s:\n\n```sh\n", side ? "new" : "base",
			s->kernel, s->reconstructed ? ", rebuilt from older metadata" : "");
		for (i = 0; i < s->ncmds; i++)
			fprintf(f, "%s\n", s->cmds[i]);
		fprintf(f, "```\n");
	}
}

/* ---- JSON ------------------------------------------------------------------------------------ */

/* JSON has no NAN: null. */
static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *change_json(json_t *o, const struct kw_change *ch)
{
	json_object_set_new(o, "base_median", num(ch->base_median));
	json_object_set_new(o, "new_median", num(ch->new_median));
	json_object_set_new(o, "delta_pct", num(ch->delta_pct));
	json_object_set_new(o, "shift_pct", num(ch->shift_pct));
	json_object_set_new(o, "interval_pct",
			    ch->has_interval
				    ? json_pack("[oo]", num(ch->ci_low_pct), num(ch->ci_high_pct))
				    : json_null());
	json_object_set_new(o, "confidence",
			    ch->has_interval ? json_real(ch->confidence) : json_null());
	json_object_set_new(o, "significant", json_boolean(ch->significant));
	json_object_set_new(o, "verdict", json_string(verdict(ch)));
	return o;
}

static json_t *side_json(const struct kw_compare_side *s)
{
	json_t *o = json_object(), *a = json_array();

	json_object_set_new(o, "runs", json_integer(s->runs));
	json_object_set_new(o, "kernel", json_string(s->kernel));
	json_object_set_new(o, "arch", json_string(s->arch));
	json_object_set_new(o, "host", json_string(s->host));
	json_object_set_new(o, "overhead_share",
			    s->overhead_known ? json_real(s->overhead_share) : json_null());
	for (size_t i = 0; i < s->ncmds; i++)
		json_array_append_new(a, json_string(s->cmds[i]));
	json_object_set_new(o, "commands", a);
	json_object_set_new(o, "commands_rebuilt", json_boolean(s->reconstructed));
	return o;
}

static int print_json(FILE *f, const struct kw_compare *c)
{
	static const char *const known[KW_NR_KNOWN] = {
		[KW_K_SKIP_LEVEL] = "split-skips-level-3",
		[KW_K_EMPTY_LEAF] = "tdp-empty-leaf-hint",
		[KW_K_DEFER_FLUSH] = "flush-only-when-unmapped",
		[KW_K_FAST_PF] = "tdp-lockless-fast-fault",
		[KW_K_NESTED_UNMAP] = "nested-unmap-flush-only-when-unmapped",
	};
	json_t *root = json_object(), *a, *o;
	size_t i, j;
	int err;

	if (!root)
		return -ENOMEM;
	json_object_set_new(root, "schema", json_string("kvmwalk-compare/1"));
	json_object_set_new(root, "level", json_real(c->level));
	json_object_set_new(root, "method", json_string(method_name(c->method)));
	json_object_set_new(root, "base", side_json(&c->base));
	json_object_set_new(root, "new", side_json(&c->new));
	a = json_array();
	for (i = 0; i < c->ndiffs; i++)
		json_array_append_new(a, json_pack("{ssssss}", "what", c->diffs[i].what, "base",
						   c->diffs[i].base, "new", c->diffs[i].new));
	json_object_set_new(root, "differences", a);
	a = json_array();
	for (i = 0; i < c->nwarnings; i++)
		json_array_append_new(a, json_string(c->warnings[i]));
	json_object_set_new(root, "warnings", a);
	a = json_array();
	for (i = 0; i < c->nsections; i++) {
		const struct kw_compare_section *s = &c->sections[i];
		json_t *lines = json_array();

		for (j = 0; j < s->nlines; j++) {
			o = json_pack("{ssssss}", "what", s->lines[j].what, "per", s->lines[j].per,
				      "unit", unit_word(s->lines[j].unit));
			json_array_append_new(lines, change_json(o, &s->lines[j].change));
		}
		json_array_append_new(a,
				      json_pack("{sssssssO}", "change", known[s->change], "title",
						s->title, "where", s->where, "lines", lines));
		json_decref(lines);
	}
	json_object_set_new(root, "sections", a);
	a = json_array();
	for (i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];

		o = json_pack("{ssssss}", "group", r->group, "metric", r->metric, "unit",
			      unit_word(r->unit));
		json_array_append_new(a, change_json(o, &r->change));
	}
	json_object_set_new(root, "rows", a);
	err = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	fputc('\n', f);
	json_decref(root);
	return err ? -EIO : 0;
}

int kw_compare_print(FILE *f, const struct kw_compare *c, enum kw_compare_format fmt)
{
	int err = 0;

	switch (fmt) {
	case KW_COMPARE_TEXT:
		print_text(f, c);
		break;
	case KW_COMPARE_MARKDOWN:
		print_markdown(f, c);
		break;
	case KW_COMPARE_JSON:
		err = print_json(f, c);
		break;
	}
	if (!err && ferror(f))
		err = -EIO;
	return err;
}
