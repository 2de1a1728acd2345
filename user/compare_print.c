// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The printers of `kvmwalk compare` (kw_compare_print()): text, 72 columns and no
 * tabs since it goes into emails; markdown; JSON, the text's twin. With the number formats of
 * their columns. What they print is built by compare.c and compare_env.c.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "compare.h"
#include "fmt.h"

#define TEXT_COLS 72

/* ---- formatting ------------------------------------------------------------------------------ */

/*
 * A value of a table cell, at most 7 characters: a time or a count as every view writes it
 * (fmt.h), whatever its size, so that one unit reads one way.
 */
static const char *fmt_value(char *buf, size_t size, double v, enum kw_compare_unit u)
{
	return kw_fmt(buf, size, v, u == KW_U_NS ? KW_UNIT_NS : KW_UNIT_COUNT);
}

/* A section's value, in full: "262,143.50", "1,048,576"; a time as in the tables. */
static const char *fmt_exact(char *buf, size_t size, double v, enum kw_compare_unit u)
{
	if (u == KW_U_NS)
		return kw_fmt_ns(buf, size, v);
	return kw_fmt_count_exact(buf, size, v);
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

/* "5 full runs", or "15 runs: 5 bare, 5 timing, 5 full" */
static void side_runs(char *buf, size_t len, const struct kw_compare_side *s)
{
	size_t used = 0, kinds = 0;

	for (int k = 0; k < KW_NR_RUN_KINDS; k++)
		kinds += !!s->kinds[k];
	if (kinds == 1) {
		for (int k = 0; k < KW_NR_RUN_KINDS; k++)
			if (s->kinds[k])
				snprintf(buf, len, "%zu %s run%s", s->runs, kw_run_kind_names[k],
					 s->runs == 1 ? "" : "s");
		return;
	}
	used = snprintf(buf, len, "%zu runs:", s->runs);
	for (int k = 0; k < KW_NR_RUN_KINDS; k++)
		if (s->kinds[k])
			used += snprintf(buf + used, used < len ? len - used : 0, "%s %zu %s",
					 used > 10 && buf[used - 1] != ':' ? "," : "", s->kinds[k],
					 kw_run_kind_names[k]);
}

static void print_side_text(FILE *f, const char *name, const struct kw_compare_side *s)
{
	char buf[640], runs[128];

	side_runs(runs, sizeof(runs), s);
	snprintf(buf, sizeof(buf), "%s %s, host %s, %s", s->kernel, s->arch,
		 s->host[0] ? s->host : "unknown", runs);
	print_wrapped(f, name, 8, buf, false);
}

static bool any_instrumented(const struct kw_compare *c)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].runs.instrumented)
			return true;
	for (size_t i = 0; i < c->nsections; i++)
		for (size_t j = 0; j < c->sections[i].nlines; j++)
			if (c->sections[i].lines[j].runs.instrumented)
				return true;
	return false;
}

/* Every run of both sides is bare: no BPF program was loaded. */
static bool all_bare(const struct kw_compare *c)
{
	return c->base.kinds[KW_RUN_BARE] == c->base.runs &&
	       c->new.kinds[KW_RUN_BARE] == c->new.runs;
}

static void print_overhead_text(FILE *f, const struct kw_compare *c)
{
	char buf[384];

	if (all_bare(c)) {
		fprintf(f, "  probe overhead: none (--probe none: no BPF program loaded)\n");
		return;
	}
	if (!c->base.overhead_known && !c->new.overhead_known) {
		fprintf(f, "  probe overhead: not measured (BPF run-time statistics were off)\n");
		return;
	}
	snprintf(buf, sizeof(buf),
		 "base %.1f%%, new %.1f%% of the measured time%s%s%s (BPF run time of "
		 "the programs' bodies: a lower bound, without the trampoline or kprobe "
		 "dispatch)",
		 100 * c->base.overhead_share, 100 * c->new.overhead_share,
		 c->mixed ? ", of the " : "",
		 c->mixed ? kw_run_kind_names[c->base.overhead_kind] : "",
		 c->mixed ? " runs" : "");
	print_wrapped(f, "  probe overhead: ", 4, buf, false);
}

/* The group's runs, when the comparison holds runs of several kinds: "(times: timing runs)". */
static void group_runs(char *buf, size_t len, const struct kw_compare *c, size_t first)
{
	const struct kw_compare_runs *t = NULL, *n = NULL;
	char ts[64] = "", ns[64] = "";

	buf[0] = 0;
	if (!c->mixed)
		return;
	for (size_t i = first; i < c->nrows && !strcmp(c->rows[i].group, c->rows[first].group);
	     i++) {
		const struct kw_compare_runs *ru = &c->rows[i].runs;

		if (c->rows[i].unit == KW_U_NS)
			t = t ?: ru;
		else
			n = n ?: ru;
	}
	if (t)
		snprintf(ts, sizeof(ts), t->base == t->new ? "%s runs" : "base %s, new %s runs",
			 kw_run_kind_names[t->base], kw_run_kind_names[t->new]);
	if (n)
		snprintf(ns, sizeof(ns), n->base == n->new ? "%s runs" : "base %s, new %s runs",
			 kw_run_kind_names[n->base], kw_run_kind_names[n->new]);
	if (t && n && strcmp(ts, ns))
		snprintf(buf, len, "(times: %s; counts: %s)", ts, ns);
	else
		snprintf(buf, len, "(%s)", t ? ts : ns);
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
	print_overhead_text(f, c);
	for (int side = 0; side < 2; side++) {
		const struct kw_compare_side *s = side ? &c->new : &c->base;

		for (int k = 0; k < KW_NR_RUN_KINDS; k++)
			if (s->has_slow[k])
				print_wrapped(f, side ? "  new:  " : "  base: ", 8, s->slow_text[k],
					      false);
	}

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
	if (any_instrumented(c)) {
		fprintf(f, "\n");
		print_wrapped(f, "~ ", 2,
			      "a time measured only with kvmwalk's probes inside it (cheap or full "
			      "runs): it includes their cost. record --probe timing, or none with "
			      "the command's own times, measures without them.",
			      false);
	}

	for (i = 0; i < c->nsections; i++) {
		const struct kw_compare_section *s = &c->sections[i];

		char where[160];

		fputc('\n', f);
		print_wrapped(f, "", 2, s->title, false);
		snprintf(where, sizeof(where), "(%s)", s->where);
		print_wrapped(f, "  ", 3, where, false);
		for (j = 0; j < s->nlines; j++) {
			const struct kw_compare_line *l = &s->lines[j];
			char b[64], n[64], d[16], line[256];
			int len;

			fmt_exact(b, sizeof(b), l->change.base_median, l->unit);
			fmt_line_value(n, sizeof(n), l->change.new_median, l);
			len = snprintf(line, sizeof(line), " %c%s: %s -> %s",
				       l->runs.instrumented ? '~' : ' ', l->what, b, n);
			if (l->change.base_median != l->change.new_median &&
			    !isnan(l->change.delta_pct)) {
				fmt_pct(d, sizeof(d), l->change.delta_pct, "%");
				snprintf(line + len, sizeof(line) - len, " (%s)", d);
			}
			/* a line too long is wrapped, never cut: its numbers are its point */
			print_wrapped(f, l->runs.instrumented ? " ~" : "  ", 4, line + 2, false);
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
			char runs[160];

			group = r->group;
			group_runs(runs, sizeof(runs), c, i);
			if (!runs[0])
				fprintf(f, "%.*s\n", TEXT_COLS, group);
			else if (strlen(group) + 2 + strlen(runs) <= TEXT_COLS)
				fprintf(f, "%s  %s\n", group, runs);
			else
				fprintf(f, "%.*s\n  %.*s\n", TEXT_COLS, group, TEXT_COLS - 2, runs);
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
		/*
		 * A name wider than its column goes on a line of its own, whole, and the values on
		 * the next: two names cut to 21 columns were two rows named alike
		 * (nested_unmap_empty_flushes, nested_unmap_empty_flush_ns).
		 */
		if (strlen(r->metric) > 21)
			fprintf(f, " %c%.*s\n", r->runs.instrumented ? '~' : ' ', TEXT_COLS - 2,
				r->metric);
		fprintf(f, " %c%-21s %8s %8s %8s%c %s\n",
			r->runs.instrumented && strlen(r->metric) <= 21 ? '~' : ' ',
			strlen(r->metric) > 21 ? "" : r->metric,
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
	char runs[128];

	side_runs(runs, sizeof(runs), s);
	fprintf(f, "| %s | `%s` | %s | %s | %s |\n", name, s->kernel, s->arch, s->host, runs);
}

static void print_markdown(FILE *f, const struct kw_compare *c)
{
	double conf = shown_confidence(c);
	size_t i, j;

	fprintf(f, "### kvmwalk compare\n\n");
	fprintf(f, "| side | kernel | arch | host | runs |\n|---|---|---|---|---|\n");
	md_side(f, "base", &c->base);
	md_side(f, "new", &c->new);
	if (c->base.overhead_known || c->new.overhead_known)
		fprintf(f,
			"\nProbe overhead: base %.1f%%, new %.1f%% of the measured time%s%s%s "
			"(BPF run time of the programs' bodies: a lower bound, without the "
			"trampoline or kprobe dispatch).\n",
			100 * c->base.overhead_share, 100 * c->new.overhead_share,
			c->mixed ? ", of the " : "",
			c->mixed ? kw_run_kind_names[c->base.overhead_kind] : "",
			c->mixed ? " runs" : "");
	for (int side = 0; side < 2; side++) {
		const struct kw_compare_side *s = side ? &c->new : &c->base;

		for (int k = 0; k < KW_NR_RUN_KINDS; k++)
			if (s->has_slow[k])
				fprintf(f, "\n%s: %s.\n", side ? "New" : "Base", s->slow_text[k]);
	}
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
	if (any_instrumented(c))
		fprintf(f, "\n~ a time measured only with kvmwalk's probes inside it (cheap or full "
			   "runs): it includes their cost. `record --probe timing`, or `none` with "
			   "the command's own times, measures without them.\n");

	for (i = 0; i < c->nsections; i++) {
		const struct kw_compare_section *s = &c->sections[i];

		fprintf(f, "\n**%s** (%s)\n\n", s->title, s->where);
		fprintf(f, "| quantity | base | new | delta |\n|---|---:|---:|---:|\n");
		for (j = 0; j < s->nlines; j++) {
			const struct kw_compare_line *l = &s->lines[j];
			char b[64], n[64], d[16];

			fmt_line_value(b, sizeof(b), l->change.base_median, l);
			fmt_line_value(n, sizeof(n), l->change.new_median, l);
			fprintf(f, "| %s%s | %s | %s | %s |\n", l->runs.instrumented ? "~ " : "",
				l->what, b, n,
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

		fprintf(f, "| `%s` | %s%s | %s | %s | %s%s | %s | %s |\n", r->group,
			r->runs.instrumented ? "~ " : "", r->metric,
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

static json_t *runs_json(const struct kw_compare_runs *ru)
{
	return json_pack("{sssssIsIsb}", "base", kw_run_kind_names[ru->base], "new",
			 kw_run_kind_names[ru->new], "n_base", (json_int_t)ru->n_base, "n_new",
			 (json_int_t)ru->n_new, "instrumented", ru->instrumented);
}

static json_t *side_json(const struct kw_compare_side *s)
{
	json_t *o = json_object(), *a, *k = json_object();

	json_object_set_new(o, "runs", json_integer(s->runs));
	for (int i = 0; i < KW_NR_RUN_KINDS; i++)
		json_object_set_new(k, kw_run_kind_names[i], json_integer(s->kinds[i]));
	json_object_set_new(o, "runs_by_kind", k);
	a = json_array();
	for (int i = 0; i < KW_NR_RUN_KINDS; i++) {
		json_t *w;

		if (!s->has_slow[i])
			continue;
		w = json_pack("{sssssIsI}", "kind", kw_run_kind_names[i], "against",
			      kw_run_kind_names[s->ref], "runs", (json_int_t)s->n_slow[i],
			      "runs_against", (json_int_t)s->n_ref);
		json_object_set_new(w, "wall_time", change_json(json_object(), &s->slow[i]));
		json_object_set_new(w, "sentence", json_string(s->slow_text[i]));
		json_array_append_new(a, w);
	}
	json_object_set_new(o, "record_slowdown", a);
	a = json_array();
	json_object_set_new(o, "kernel", json_string(s->kernel));
	json_object_set_new(o, "arch", json_string(s->arch));
	json_object_set_new(o, "host", json_string(s->host));
	json_object_set_new(o, "overhead_share",
			    s->overhead_known ? json_real(s->overhead_share) : json_null());
	/* BPF run time of the programs' bodies: the trampoline and kprobe dispatch are not in it */
	json_object_set_new(o, "overhead_share_is_lower_bound", json_true());
	json_object_set_new(o, "overhead_runs", s->overhead_known
							? json_string(kw_run_kind_names[s->overhead_kind])
							: json_null());
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
			change_json(o, &s->lines[j].change);
			json_object_set_new(o, "runs", runs_json(&s->lines[j].runs));
			json_array_append_new(lines, o);
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
		change_json(o, &r->change);
		json_object_set_new(o, "runs", runs_json(&r->runs));
		json_array_append_new(a, o);
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
