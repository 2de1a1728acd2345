// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. User-named functions (userfn.h) in the report: the "User functions" section and
 * its JSON twin. Their part of the recording ("user_functions", docs/recording-format.md) is
 * record.c's, the parsing of --count / --time userfn_opts.c's.
 */
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "hist.h"
#include "record.h"
#include "userfn.h"

/* A row's memslot operation, "" for none (kw_memslot_op_names[]). */
static const char *memslot_op(const struct kw_trig *t)
{
	return t->trigger == KW_T_IOCTL && t->memslot_op > 0 && t->memslot_op < KW_NR_MEMSLOT_OPS
		       ? kw_memslot_op_names[t->memslot_op]
		       : "";
}

/* The trigger, as report's "By trigger" says it: the ioctl followed by its memslot operation. */
static const char *trig_what(const struct kw_recording *r, const struct kw_trig *t, char *buf,
			     size_t len)
{
	const char *n = kw_trig_ioctl(r, t), *op = memslot_op(t);

	if (t->trigger != KW_T_IOCTL)
		return kw_trigger_names[t->trigger];
	if (n)
		snprintf(buf, len, "%s%s%s", n, *op ? " " : "", op);
	else
		snprintf(buf, len, "ioctl 0x%x%s%s", t->cmd, *op ? " " : "", op);
	return buf;
}

/* "  unavailable: REASON", wrapped at 78 columns under a 6-column indent. */
static void print_reason(FILE *f, const char *label, const char *text)
{
	int col = fprintf(f, "      %s:", label);

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");

		if (col + 1 + (int)n > 78 && col > 8) {
			fprintf(f, "\n       ");
			col = 7;
		}
		col += fprintf(f, " %.*s", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

void kw_ufuncs_print(FILE *f, const struct kw_recording *r)
{
	char c[6][16], tot[16], cnt[16], buf[64], pid[16];
	bool any_trig = false;

	if (!r->nufuncs)
		return;
	fprintf(f, "\nUser functions (--count, --time; time inclusive of the calls they make)\n");
	fprintf(f, "  %-20s %7s %7s %6s %6s %6s %6s %6s %6s\n", "function", "calls", "total",
		"mean", "p50", "p90", "p99", "p99.9", "max");
	for (size_t i = 0; i < r->nufuncs; i++) {
		const struct kw_ufunc *u = &r->ufuncs[i];
		const struct kw_hist *h = &u->f.dur;

		if (strlen(u->req.name) > 20)
			fprintf(f, "  %s\n  %-20s", u->req.name, "");
		else
			fprintf(f, "  %-20s", u->req.name);
		if (!kw_plan_attached(&u->plan)) {
			fprintf(f, " %s\n", kw_ufunc_option(&u->req));
			print_reason(f, kw_mech_name(u->plan.mech), u->plan.reason);
			continue;
		}
		kw_fmt_count(cnt, sizeof(cnt), u->f.calls);
		if (!u->req.timed || !h->count) {
			fprintf(f, " %7s %7s  %s, %s\n", cnt, "-", kw_ufunc_option(&u->req),
				kw_mech_name(u->plan.mech));
		} else {
			kw_fmt_ns(tot, sizeof(tot), h->sum);
			kw_fmt_ns(c[0], 16, kw_hist_mean(h));
			kw_fmt_ns(c[1], 16, kw_hist_quantile(h, 0.5));
			kw_fmt_ns(c[2], 16, kw_hist_quantile(h, 0.9));
			kw_fmt_ns(c[3], 16, kw_hist_quantile(h, 0.99));
			kw_fmt_ns(c[4], 16, kw_hist_quantile(h, 0.999));
			kw_fmt_ns(c[5], 16, h->max);
			fprintf(f, " %7s %7s %6s %6s %6s %6s %6s %6s\n", cnt, tot, c[0], c[1], c[2],
				c[3], c[4], c[5]);
			fprintf(f, "%23s%s, %s\n", "", kw_ufunc_option(&u->req),
				kw_mech_name(u->plan.mech));
		}
		if (u->plan.reason[0])
			print_reason(f, "why", u->plan.reason);
		if (u->f.missed || u->f.dropped)
			fprintf(f, "      %s missed, %s dropped\n", KW_EXACT(u->f.missed),
				KW_EXACT(u->f.dropped));
	}
	/* a trigger longer than its column ends the line, the numbers go on the next */
	for (size_t k = 0; k < r->nutrigs; k++) {
		const struct kw_trig *t = &r->utrigs[k];
		const char *what = trig_what(r, t, buf, sizeof(buf));

		if (!any_trig)
			fprintf(f, "\n  %-31s %-23s %6s %13s\n", "user function", "trigger", "pid",
				"calls");
		any_trig = true;
		snprintf(pid, sizeof(pid), t->pid ? "%u" : "exited", t->pid);
		fprintf(f, "  %-31.31s",
			(size_t)t->probe < r->nufuncs ? r->ufuncs[t->probe].req.name : "?");
		if (strlen(what) > 23) {
			fprintf(f, " %s\n  %-31s", what, "");
			what = "";
		}
		fprintf(f, " %-23.23s %6s %13s\n", what, pid, KW_EXACT(t->calls));
	}
}

json_t *kw_ufuncs_report_json(const struct kw_recording *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nufuncs; i++) {
		const struct kw_ufunc *u = &r->ufuncs[i];
		const struct kw_hist *h = &u->f.dur;
		bool on = kw_plan_attached(&u->plan);
		json_t *o, *ta;

		o = json_pack("{sssssbsssssb}", "name", u->req.name, "option",
			      kw_ufunc_option(&u->req), "optional", u->req.optional, "mechanism",
			      kw_mech_name(u->plan.mech), "reason", u->plan.reason, "attached", on);
		if (!on) {
			json_array_append_new(a, o);
			continue;
		}
		json_object_set_new(o, "calls", json_integer(u->f.calls));
		json_object_set_new(o, "missed", json_integer(u->f.missed));
		json_object_set_new(o, "dropped", json_integer(u->f.dropped));
		ta = json_array();
		if (u->req.timed)
			json_object_set_new(
				o, "duration_ns",
				json_pack("{sIsIsfsfsfsfsfsI}", "count", (json_int_t)h->count, "sum",
					  (json_int_t)h->sum, "mean", kw_hist_mean(h), "p50",
					  kw_hist_quantile(h, 0.5), "p90", kw_hist_quantile(h, 0.9),
					  "p99", kw_hist_quantile(h, 0.99), "p99.9",
					  kw_hist_quantile(h, 0.999), "max", (json_int_t)h->max));
		for (size_t k = 0; k < r->nutrigs; k++) {
			const struct kw_trig *t = &r->utrigs[k];
			const char *n = kw_trig_ioctl(r, t);

			if ((size_t)t->probe != i)
				continue;
			json_array_append_new(ta, json_pack("{sssssssIsIsI}", "trigger",
							    kw_trigger_names[t->trigger], "ioctl",
							    t->trigger == KW_T_IOCTL && n ? n : "",
							    "memslot_op", memslot_op(t), "pid",
							    (json_int_t)t->pid, "calls",
							    (json_int_t)t->calls, "ns",
							    (json_int_t)t->ns));
		}
		json_object_set_new(o, "triggers", ta);
		json_array_append_new(a, o);
	}
	return a;
}
