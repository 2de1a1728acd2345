// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. Builds the comparison `kvmwalk compare` prints (compare_types.h): its rows, per
 * probe, per counter and per user function; the sections of the known changes (section_defs[]);
 * and checks the names --function and --metric take. The header (sides, environment, warnings,
 * commands) is compare_env.c's, the printers compare_print.c's, the statistics stats.c's, the
 * plot compare_plot.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "compare_env.h"
#include "counters.h"
#include "fmt.h"
#include "kvmstats.h"

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

/*
 * arg: an enum kw_memslot_op. The mean time of the run's KVM_SET_USER_MEMORY_REGION(2) ioctls
 * of that operation (kw_memslot_ops()): a recording keeps an ioctl row's total, not a
 * histogram per operation. 0 in a run without one (or made without the probe that tells).
 */
static double f_memslot_mean(const struct kw_recording *r, int op)
{
	struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS];

	kw_memslot_ops(r, ops);
	return kw_ratio(ops[op].ns, ops[op].calls);
}

/* The row kvm_vm_ioctl has per memslot operation: "dirty_log_on mean" */
static void memslot_metric(char *buf, size_t len, int op)
{
	snprintf(buf, len, "%s mean", kw_memslot_op_names[op]);
}

/* ---- building -------------------------------------------------------------------------------- */

/*
 * What a row needs of a run (which runs): a time is taken from the runs with the fewest probes
 * that measure it, a count from the runs with the most, the same kind on both sides where one
 * has runs that measure it on both.
 */
struct need {
	bool time;
	kw_probe_mask probes; /* each measured by the run (kw_run_measures()); 0: any probe run */
	bool wall;	      /* the command's wall time */
	const char *scenario, *phase; /* one of the command's own phases */
	int ufunc;		      /* >= 0: the user function ufn_names[ufunc] attached */
};

struct builder {
	struct kw_compare *c;
	const struct kw_recording *base, *new;
	const struct kw_compare_opts *o;
	double *bv, *nv;
	enum kw_run_kind *bk, *nk; /* each run's kind */
	bool *bsel, *nsel;	   /* the runs of the row being built */
	struct kw_compare_runs runs;
};

/*
 * The metrics probe_rows() makes, but the per-level and per-return-code ones and the counter
 * rows of kw_compare_counter_rows[] (counters.c).
 */
static const char *const fixed_metrics[] = {
	"calls/run", "median",		   "p90",		 "p99",
	"p99.9",     "mean",		   "blocks split/run",	 "visits/block split",
	"no-op visits/block", "wall time",
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
	for (int op = 1; op < KW_NR_MEMSLOT_OPS; op++) {
		memslot_metric(m, sizeof(m), op);
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
	for (size_t i = 0; i < kw_nr_kvm_stat_defs; i++)
		if (names_metric(w, n, kw_kvm_stat_defs[i].name))
			return true;
	return false;
}

static bool function_known(const char *w, size_t n)
{
	if ((n == strlen("counters") && !strncmp(w, "counters", n)) ||
	    (n == strlen("command") && !strncmp(w, "command", n)) ||
	    (n == strlen("phases") && !strncmp(w, "phases", n)))
		return true;
	if (n == strlen("kvm_stats") && !strncmp(w, "kvm_stats", n))
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
					for (int op = 1; op < KW_NR_MEMSLOT_OPS; op++)
						append(names, sizeof(names),
						       kw_memslot_op_names[op]);
					for (int i = 0; i < KW_NR_COUNTERS; i++)
						if (counter_row(i))
							append(names, sizeof(names),
							       kw_counters[i].name);
					for (size_t i = 0; i < kw_nr_kvm_stat_defs; i++)
						append(names, sizeof(names),
						       kw_kvm_stat_defs[i].name);
				} else {
					for (int i = 0; i < KW_NR_PROBES; i++)
						append(names, sizeof(names), kw_probes[i].name);
					append(names, sizeof(names), "counters");
					append(names, sizeof(names), "kvm_stats");
					append(names, sizeof(names), "counters, command, phases");
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

/* ---- which runs ------------------------------------------------------------------------------ */

static const struct kw_ufunc *ufunc_of(const struct kw_recording *r, int k);

static bool measures(const struct kw_recording *r, enum kw_run_kind kind, const struct need *nd)
{
	int found = 0;

	if (nd->wall)
		return r->meta.wall_ns > 0;
	if (nd->phase) {
		kw_workload_sum(&r->workload, nd->scenario, nd->phase, &found);
		return found;
	}
	if (nd->ufunc >= 0)
		return ufunc_of(r, nd->ufunc);
	/* a bare run measured nothing kvmwalk counts */
	if (kind == KW_RUN_BARE)
		return false;
	for (int p = 0; p < KW_NR_PROBES; p++)
		if ((nd->probes & KW_PROBE_BIT(p)) && !kw_run_measures(r, p))
			return false;
	return true;
}

/* Marks the runs of one side of kind k that measure nd; how many. */
static size_t side_select(const struct kw_recording *r, const enum kw_run_kind *kinds, size_t n,
			  enum kw_run_kind k, const struct need *nd, bool *sel)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		m += (sel[i] = kinds[i] == k && measures(&r[i], k, nd));
	return m;
}

/* The kinds in the order a need looks for them: fewest probes first for a time. */
static enum kw_run_kind kind_at(const struct need *nd, int i)
{
	return nd->time ? (enum kw_run_kind)i : (enum kw_run_kind)(KW_NR_RUN_KINDS - 1 - i);
}

/*
 * The runs of the row: the first kind (in the need's order) that has runs measuring it on both
 * sides; else each side's own first (a row whose sides carry different probe costs). False
 * when a side has no run that measures it.
 */
static bool select_runs(struct builder *b, const struct need *nd)
{
	struct kw_compare_runs *ru = &b->runs;
	int i;

	for (i = 0; i < KW_NR_RUN_KINDS; i++) {
		enum kw_run_kind k = kind_at(nd, i);

		ru->n_base = side_select(b->base, b->bk, b->c->n_base, k, nd, b->bsel);
		ru->n_new = side_select(b->new, b->nk, b->c->n_new, k, nd, b->nsel);
		if (ru->n_base && ru->n_new) {
			ru->base = ru->new = k;
			break;
		}
	}
	for (i = 0; !ru->n_base && i < KW_NR_RUN_KINDS; i++) {
		ru->base = kind_at(nd, i);
		ru->n_base = side_select(b->base, b->bk, b->c->n_base, ru->base, nd, b->bsel);
	}
	for (i = 0; !ru->n_new && i < KW_NR_RUN_KINDS; i++) {
		ru->new = kind_at(nd, i);
		ru->n_new = side_select(b->new, b->nk, b->c->n_new, ru->new, nd, b->nsel);
	}
	ru->instrumented =
		nd->time && (kw_run_kind_heavy(ru->base) || kw_run_kind_heavy(ru->new));
	return ru->n_base && ru->n_new;
}

/* The need of a row or line made by run function fn of arg, in unit u. */
static struct need need_of(run_fn fn, int arg, enum kw_compare_unit u, kw_probe_mask probes)
{
	struct need nd = { .time = u == KW_U_NS, .probes = probes, .ufunc = -1 };

	if (!probes && (fn == f_calls || fn == f_p50 || fn == f_p90 || fn == f_p99 ||
			fn == f_p999 || fn == f_mean || fn == f_sum))
		nd.probes = KW_PROBE_BIT(arg);
	/* an ioctl's time by its memslot operation: the ioctl's row keyed by the memslot probe */
	if (!probes && fn == f_memslot_mean)
		nd.probes = KW_PROBE_BIT(KW_P_VM_IOCTL) | KW_PROBE_BIT(KW_P_MEMSLOT);
	return nd;
}

/* Fills the values of the selected runs; false if every one is 0. */
static bool values(struct builder *b, run_fn fn, int arg)
{
	bool any = false;
	size_t i, k;

	for (i = k = 0; i < b->c->n_base; i++)
		if (b->bsel[i])
			any |= (b->bv[k++] = fn(&b->base[i], arg)) != 0;
	for (i = k = 0; i < b->c->n_new; i++)
		if (b->nsel[i])
			any |= (b->nv[k++] = fn(&b->new[i], arg)) != 0;
	return any;
}

static int change_of(struct builder *b, struct kw_change *ch, const char *what)
{
	int err = kw_change(b->bv, b->runs.n_base, b->nv, b->runs.n_new, b->c->level, b->c->method,
			    ch);

	if (err)
		fprintf(stderr, "kvmwalk compare: %s: %s\n", what, strerror(-err));
	return err;
}

/* A row of group: what it needs of a run. */
static int add_row_of(struct builder *b, const char *group, const char *metric,
		      enum kw_compare_unit unit, run_fn fn, int arg, const struct need *nd)
{
	struct kw_compare *c = b->c;
	struct kw_compare_row *row, *rows;

	/* --metric p50 selects the median too; --function phases selects every phases group */
	if (!kw_compare_listed(b->o->functions, strncmp(group, "phases", 6) ? group : "phases",
			       false) ||
	    !(kw_compare_listed(b->o->metrics, metric, true) ||
	      (!strcmp(metric, "median") && kw_compare_listed(b->o->metrics, "p50", false))))
		return 0;
	if (!select_runs(b, nd) || !values(b, fn, arg))
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
	row->runs = b->runs;
	if (change_of(b, &row->change, metric))
		return -EINVAL;
	c->nrows++;
	return 0;
}

/* A row whose need follows from its run function (need_of()), of every run that measures it. */
static int add_row(struct builder *b, const char *group, const char *metric,
		   enum kw_compare_unit unit, run_fn fn, int arg)
{
	struct need nd = need_of(fn, arg, unit, 0);

	return add_row_of(b, group, metric, unit, fn, arg, &nd);
}

static int add_line(struct builder *b, struct kw_compare_section *s, const char *what,
		    const char *per, enum kw_compare_unit unit, run_fn fn, int arg, bool always,
		    kw_probe_mask need, bool light_only)
{
	struct need nd = need_of(fn, arg, unit, need);
	struct kw_compare_line *l;

	if (s->nlines >= KW_SECTION_LINES || !select_runs(b, &nd) ||
	    (light_only && b->runs.instrumented) || (!values(b, fn, arg) && !always))
		return 0;
	l = &s->lines[s->nlines];
	memset(l, 0, sizeof(*l));
	snprintf(l->what, sizeof(l->what), "%s", what);
	snprintf(l->per, sizeof(l->per), "%s", per);
	l->unit = unit;
	l->runs = b->runs;
	if (change_of(b, &l->change, what))
		return -EINVAL;
	s->nlines++;
	return 0;
}

/*
 * A counter's row of the "counters" group, from the runs with the most probes as every count.
 * A counter of ns (.ns) is a time, shown as one: the probes measured it, so kvmwalk's probes
 * ran inside it wherever it comes from cheap or full runs ("~").
 */
static int counter_add(struct builder *b, int i)
{
	struct need nd = need_of(f_counter, i, KW_U_COUNT, 0);
	enum kw_compare_unit u = kw_counters[i].ns ? KW_U_NS : KW_U_COUNT;
	struct kw_compare_row *row;
	size_t n = b->c->nrows;
	int err = add_row_of(b, "counters", kw_counters[i].name, u, f_counter, i, &nd);

	if (err || b->c->nrows == n || u != KW_U_NS)
		return err;
	row = &b->c->rows[n];
	row->runs.instrumented = kw_run_kind_heavy(row->runs.base) ||
				 kw_run_kind_heavy(row->runs.new);
	return 0;
}

/* One run of either side has a value for fn. */
static bool any_run(struct builder *b, run_fn fn, int arg)
{
	for (size_t i = 0; i < b->c->n_base; i++)
		if (fn(&b->base[i], arg))
			return true;
	for (size_t i = 0; i < b->c->n_new; i++)
		if (fn(&b->new[i], arg))
			return true;
	return false;
}

/* Probe p was attached in every run of both sides that the counts come from. */
static bool attached_everywhere(struct builder *b, int p)
{
	struct need nd = { .ufunc = -1 };
	size_t i;

	if (!select_runs(b, &nd))
		return false;
	for (i = 0; i < b->c->n_base; i++)
		if (b->bsel[i] && !kw_plan_attached(&b->base[i].plan[p]))
			return false;
	for (i = 0; i < b->c->n_new; i++)
		if (b->nsel[i] && !kw_plan_attached(&b->new[i].plan[p]))
			return false;
	return true;
}

/*
 * The name of fast_page_fault's return code i, from the recordings' BTF (the first run that has
 * it: a bare run has none); "" if none has one.
 */
static const char *pf_name(struct builder *b, int i)
{
	for (size_t k = 0; k < b->c->n_base; k++)
		if (b->base[k].pf_ret_names[i][0])
			return b->base[k].pf_ret_names[i];
	for (size_t k = 0; k < b->c->n_new; k++)
		if (b->new[k].pf_ret_names[i][0])
			return b->new[k].pf_ret_names[i];
	return "";
}

static int probe_rows(struct builder *b, int p)
{
	static const struct {
		const char *name;
		run_fn fn;
	} dur[] = { { "median", f_p50 }, { "p90", f_p90 },   { "p99", f_p99 },
		    { "p99.9", f_p999 }, { "mean", f_mean } };
	const char *g = kw_probes[p].name;
	char m[48];
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
	/* the memslot ioctls by operation: the dirty-logging enable's time is a headline */
	for (int op = 1; p == KW_P_VM_IOCTL && op < KW_NR_MEMSLOT_OPS && !err; op++) {
		memslot_metric(m, sizeof(m), op);
		err = add_row(b, g, m, KW_U_NS, f_memslot_mean, op);
	}
	for (int i = 0; p == KW_P_FAST_PF && i < KW_NR_PF_RET && !err; i++) {
		const char *n = pf_name(b, i);

		if (*n)
			snprintf(m, sizeof(m), "%.31s/run", n);
		else
			snprintf(m, sizeof(m), "ret %d/run", i);
		err = add_row(b, g, m, KW_U_COUNT, f_counter, KW_C_PF_RET + i);
	}
	return err;
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
	/* a time of counters: the probes a run needs for it (else need_of() from fn, arg) */
	kw_probe_mask need;
	bool light_only; /* only from runs without probes inside the time (timing, bare) */
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
			/*
			 * The series' own measure: the time of the ioctl that enables dirty
			 * logging (the split runs inside it), per call, mean of the run.
			 */
			{ "dirty-logging enable ioctl, mean", "", KW_U_NS, f_memslot_mean,
			  KW_MS_DIRTY_LOG_ON },
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
			  KW_C_EMPTY_FLUSH_NS,
			  .need = KW_PROBE_BIT(KW_P_S2_UNMAP) | KW_PROBE_BIT(KW_P_UNMAP_WALKER) },
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
			/* which unmap was of a valid nested MMU: the unmap probe inside says */
			{ "time per nested unmap", "", KW_U_NS, f_per_nested, KW_C_NESTED_ACTIVE_NS,
			  .need = KW_PROBE_BIT(KW_P_NESTED_UNMAP) | KW_PROBE_BIT(KW_P_S2_UNMAP) },
			/* the same from the runs with the fewest probes: every call, idle ones too */
			{ "nested unmap time, mean", "", KW_U_NS, f_mean, KW_P_NESTED_UNMAP,
			  .light_only = true },
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
		return add_line(b, s, l->what, l->per, l->unit, l->fn, l->arg, l->always, l->need,
				l->light_only);
	for (int i = 0; i < KW_NR_PF_RET && !err; i++) {
		snprintf(what, sizeof(what), "outcome %.30s",
			 *pf_name(b, i) ? pf_name(b, i) : "(unnamed)");
		err = add_line(b, s, what, "per run", KW_U_COUNT, f_counter, KW_C_PF_RET + i, false,
			       0, false);
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
		struct need count = { .ufunc = -1 }, time = { .time = true, .ufunc = (int)k };
		char m[32], g[80];

		if (!ufn_asked(b->base, b->c->n_base, k) || !ufn_asked(b->new, b->c->n_new, k))
			continue;

		/* "(user)": a user function can be a built-in probe's function too */
		snprintf(g, sizeof(g), "%.63s (user)", ufn_names[k]);
		err = add_row_of(b, g, "calls/run", KW_U_COUNT, f_ucalls, k, &count);
		for (int t = 0; t < KW_NR_TRIGGERS && !err; t++) {
			snprintf(m, sizeof(m), "%s/run", kw_trigger_names[t]);
			err = add_row_of(b, g, m, KW_U_COUNT, f_utrig, k * 16 + t, &count);
		}
		for (size_t i = 0; i < sizeof(dur) / sizeof(*dur) && !err; i++)
			err = add_row_of(b, g, dur[i].name, KW_U_NS, dur[i].fn, k, &time);
	}
	return err;
}

/*
 * KVM's own statistics (kvmstats.h): a row per statistic of kw_kvm_stat_defs[] in the kvm_stats
 * group, its delta over the run summed over the run's VMs (signed for a level: pages_4k). Only
 * when every run read them: a run recorded without them (an older kvmwalk, --kvm-stats off)
 * would count 0.
 */
static double f_kvmstat(const struct kw_recording *r, int k)
{
	return (double)kw_kvmstats_delta(&r->kvmstats, kw_kvm_stat_defs[k].name, NULL);
}

static int kvmstat_rows(struct builder *b)
{
	int err = 0;

	for (size_t i = 0; i < b->c->n_base; i++)
		if (!b->base[i].kvmstats.source[0])
			return 0;
	for (size_t i = 0; i < b->c->n_new; i++)
		if (!b->new[i].kvmstats.source[0])
			return 0;
	for (size_t k = 0; k < kw_nr_kvm_stat_defs && !err; k++)
		err = add_row(b, "kvm_stats", kw_kvm_stat_defs[k].name, KW_U_COUNT, f_kvmstat, k);
	return err;
}

/*
 * What the command itself measured: its wall time, group "command", and its own phases (record
 * --workload-times), a group "phases: SCENARIO" each, summed over iterations: times, taken from
 * the runs with the fewest probes (bare ones where there are).
 */
static const char *cmd_scenario, *cmd_phase;

static double f_wall(const struct kw_recording *r, int arg)
{
	(void)arg;
	return (double)r->meta.wall_ns;
}

static double f_phase(const struct kw_recording *r, int arg)
{
	int found;

	(void)arg;
	return (double)kw_workload_sum(&r->workload, cmd_scenario, cmd_phase, &found);
}

static bool phase_done(const struct kw_recording *r, size_t n, size_t upto, const char *scenario,
		       const char *phase)
{
	int found = 0;

	for (size_t i = 0; i < n && i < upto; i++) {
		kw_workload_sum(&r[i].workload, scenario, phase, &found);
		if (found)
			return true;
	}
	return false;
}

static int command_rows(struct builder *b)
{
	struct need wall = { .time = true, .wall = true, .ufunc = -1 };
	const struct kw_recording *sides[2] = { b->base, b->new };
	size_t ns[2] = { b->c->n_base, b->c->n_new };
	int err = add_row_of(b, "command", "wall time", KW_U_NS, f_wall, 0, &wall);

	/* every phase in the order of its first run: base runs, then new ones */
	for (int s = 0; s < 2 && !err; s++)
		for (size_t i = 0; i < ns[s] && !err; i++) {
			const struct kw_workload *w = &sides[s][i].workload;

			for (size_t j = 0; j < w->nphases && !err; j++) {
				const struct kw_wl_phase *p = &w->phases[j];
				struct need nd = { .time = true,
						   .scenario = p->scenario,
						   .phase = p->phase,
						   .ufunc = -1 };
				char g[64];

				if (!kw_workload_first(w, j) ||
				    phase_done(sides[s], ns[s], i, p->scenario, p->phase) ||
				    (s && phase_done(b->base, b->c->n_base, b->c->n_base,
						     p->scenario, p->phase)))
					continue;
				snprintf(g, sizeof(g), "phases: %.50s",
					 *p->scenario ? p->scenario : w->source);
				cmd_scenario = p->scenario;
				cmd_phase = p->phase;
				err = add_row_of(b, g, p->phase, KW_U_NS, f_phase, 0, &nd);
			}
		}
	return err;
}

int kw_compare_build(struct kw_compare *c, const struct kw_recording *base, size_t n_base,
		     const struct kw_recording *new, size_t n_new, const struct kw_compare_opts *o)
{
	struct builder b = { .c = c, .base = base, .new = new, .o = o };
	int err = 0, p, i, kinds = 0;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (!n_base || !n_new)
		return -EINVAL;
	c->n_base = n_base;
	c->n_new = n_new;
	c->level = o->level;
	c->method = o->method;
	b.bv = calloc(n_base, sizeof(*b.bv));
	b.nv = calloc(n_new, sizeof(*b.nv));
	b.bk = calloc(n_base, sizeof(*b.bk));
	b.nk = calloc(n_new, sizeof(*b.nk));
	b.bsel = calloc(n_base, sizeof(*b.bsel));
	b.nsel = calloc(n_new, sizeof(*b.nsel));
	if (!b.bv || !b.nv || !b.bk || !b.nk || !b.bsel || !b.nsel) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (k = 0; k < n_base; k++)
		c->base.kinds[b.bk[k] = kw_run_kind(&base[k])]++;
	for (k = 0; k < n_new; k++)
		c->new.kinds[b.nk[k] = kw_run_kind(&new[k])]++;
	for (i = 0; i < KW_NR_RUN_KINDS; i++)
		kinds += c->base.kinds[i] || c->new.kinds[i];
	c->mixed = kinds > 1;
	err = command_rows(&b);
	for (p = 0; p < KW_NR_PROBES && !err; p++)
		err = probe_rows(&b, p);
	err = err ?: ufunc_rows(&b);
	err = err ?: kvmstat_rows(&b);
	for (i = 0; i < KW_NR_COUNTERS && !err; i++)
		if (counter_row(i))
			err = counter_add(&b, i);
	err = err ?: build_sections(&b);
	err = err ?: kw_compare_env_build(c, base, new, o);
cleanup:
	free(b.bv);
	free(b.nv);
	free(b.bk);
	free(b.nk);
	free(b.bsel);
	free(b.nsel);
	if (err)
		kw_compare_free(c);
	return err;
}

void kw_compare_free(struct kw_compare *c)
{
	if (!c)
		return;
	free(c->rows);
	c->rows = NULL;
	c->nrows = 0;
	kw_compare_env_free(c);
}
