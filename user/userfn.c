// SPDX-License-Identifier: GPL-2.0
/*
 * User-named functions (userfn.h): their part of the recording ("user_functions",
 * docs/recording-format.md) and of the report. --count / --time are parsed in userfn_opts.c.
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "hist.h"
#include "record.h"
#include "userfn.h"

/* ---- the recording --------------------------------------------------------------------------- */

static const char *trig_what(const struct kw_trig *t, char *buf, size_t len)
{
	const char *n = kw_trig_ioctl(t);

	if (t->trigger != KW_T_IOCTL)
		return kw_trigger_names[t->trigger];
	if (n)
		return n;
	snprintf(buf, len, "ioctl 0x%x", t->cmd);
	return buf;
}

json_t *kw_ufuncs_json(const struct kw_recording *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nufuncs; i++) {
		const struct kw_ufunc *u = &r->ufuncs[i];
		json_t *o = json_object(), *ta = json_array();

		json_object_set_new(o, "name", json_string(u->req.name));
		json_object_set_new(o, "mode", json_string(u->req.timed ? "time" : "count"));
		json_object_set_new(o, "optional", json_boolean(u->req.optional));
		json_object_set_new(o, "mechanism", json_string(kw_mech_name(u->plan.mech)));
		json_object_set_new(o, "reason", json_string(u->plan.reason));
		json_object_set_new(o, "calls", json_integer(u->f.calls));
		json_object_set_new(o, "missed", json_integer(u->f.missed));
		json_object_set_new(o, "dropped", json_integer(u->f.dropped));
		json_object_set_new(o, "bpf_runs", json_integer(u->f.bpf_runs));
		json_object_set_new(o, "bpf_ns", json_integer(u->f.bpf_ns));
		if (u->req.timed)
			json_object_set_new(o, "duration_ns", kw_hist_to_json(&u->f.dur));
		for (size_t k = 0; k < r->nutrigs; k++) {
			const struct kw_trig *t = &r->utrigs[k];
			const char *n = kw_trig_ioctl(t);
			char buf[32];

			if ((size_t)t->probe != i)
				continue;
			if (!n) {
				snprintf(buf, sizeof(buf), "0x%x", t->cmd);
				n = buf;
			}
			json_array_append_new(
				ta, json_pack("{sssIsssIsIsI}", "trigger", kw_trigger_names[t->trigger],
					      "cmd", (json_int_t)t->cmd, "ioctl",
					      t->trigger == KW_T_IOCTL ? n : "", "pid",
					      (json_int_t)t->pid, "calls", (json_int_t)t->calls,
					      "ns", (json_int_t)t->ns));
		}
		json_object_set_new(o, "triggers", ta);
		json_array_append_new(a, o);
	}
	return a;
}

static __u64 u64_of(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? (__u64)json_integer_value(v) : 0;
}

int kw_ufuncs_from_json(struct kw_recording *r, json_t *a)
{
	size_t i, k;
	json_t *o, *t;

	json_array_foreach(a, i, o)
	{
		const char *name = json_string_value(json_object_get(o, "name"));
		const char *mode = json_string_value(json_object_get(o, "mode"));
		const char *mech = json_string_value(json_object_get(o, "mechanism"));
		const char *why = json_string_value(json_object_get(o, "reason"));
		struct kw_ufunc *u;
		size_t slot = r->nufuncs;

		if (!name || r->nufuncs == KW_MAX_UFUNCS)
			continue;
		u = &r->ufuncs[r->nufuncs++];
		memset(u, 0, sizeof(*u));
		snprintf(u->req.name, sizeof(u->req.name), "%s", name);
		u->req.timed = mode && !strcmp(mode, "time");
		u->req.optional = json_is_true(json_object_get(o, "optional"));
		u->plan.mech = mech && kw_mech_by_name(mech) >= 0 ? kw_mech_by_name(mech)
								   : KW_MECH_NONE;
		snprintf(u->plan.func, sizeof(u->plan.func), "%s", name);
		snprintf(u->plan.reason, sizeof(u->plan.reason), "%s", why ?: "");
		u->f.calls = u64_of(o, "calls");
		u->f.missed = u64_of(o, "missed");
		u->f.dropped = u64_of(o, "dropped");
		u->f.bpf_runs = u64_of(o, "bpf_runs");
		u->f.bpf_ns = u64_of(o, "bpf_ns");
		kw_hist_from_json(json_object_get(o, "duration_ns"), &u->f.dur);
		json_array_foreach(json_object_get(o, "triggers"), k, t)
		{
			const char *tn = json_string_value(json_object_get(t, "trigger"));
			const char *io = json_string_value(json_object_get(t, "ioctl"));
			struct kw_trig tr = { .probe = (int)slot, .trigger = -1 };

			for (int x = 0; tn && x < KW_NR_TRIGGERS; x++)
				if (!strcmp(kw_trigger_names[x], tn))
					tr.trigger = x;
			if (tr.trigger < 0)
				continue;
			tr.cmd = u64_of(t, "cmd");
			if (io && !strncmp(io, "KVM_", 4))
				snprintf(tr.ioctl, sizeof(tr.ioctl), "%s", io);
			tr.pid = u64_of(t, "pid");
			tr.calls = u64_of(t, "calls");
			tr.ns = u64_of(t, "ns");
			if (kw_recording_add_utrig(r, &tr))
				return -ENOMEM;
		}
	}
	return 0;
}

/* ---- the report ------------------------------------------------------------------------------ */

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
	char c[6][16], tot[16], cnt[16], buf[32], pid[16];
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
			fprintf(f, "      %llu missed, %llu dropped\n",
				(unsigned long long)u->f.missed, (unsigned long long)u->f.dropped);
	}
	for (size_t k = 0; k < r->nutrigs; k++) {
		const struct kw_trig *t = &r->utrigs[k];

		if (!any_trig)
			fprintf(f, "\n  %-31s %-23s %6s %13s\n", "user function", "trigger", "pid",
				"calls");
		any_trig = true;
		snprintf(pid, sizeof(pid), t->pid ? "%u" : "exited", t->pid);
		fprintf(f, "  %-31.31s %-23.23s %6s %13llu\n",
			(size_t)t->probe < r->nufuncs ? r->ufuncs[t->probe].req.name : "?",
			trig_what(t, buf, sizeof(buf)), pid, (unsigned long long)t->calls);
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
			const char *n = kw_trig_ioctl(t);

			if ((size_t)t->probe != i)
				continue;
			json_array_append_new(ta, json_pack("{sssssIsIsI}", "trigger",
							    kw_trigger_names[t->trigger], "ioctl",
							    t->trigger == KW_T_IOCTL && n ? n : "",
							    "pid", (json_int_t)t->pid, "calls",
							    (json_int_t)t->calls, "ns",
							    (json_int_t)t->ns));
		}
		json_object_set_new(o, "triggers", ta);
		json_array_append_new(a, o);
	}
	return a;
}
