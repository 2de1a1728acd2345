// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk top`: rates, totals and latencies per probe (or per VM) over the last interval, like
 * kvm_stat's live view and its -l log lines. Pure: top_cmd.c owns the terminal and the keys'
 * timing.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fmt.h"
#include "top.h"

static const char *const col_names[KW_NR_TOP_COLS] = {
	[KW_TOP_RATE] = "calls/s", [KW_TOP_TOTAL] = "total", [KW_TOP_MEAN] = "mean",
	[KW_TOP_P50] = "p50",	   [KW_TOP_P99] = "p99",     [KW_TOP_MAX] = "max",
	[KW_TOP_NAME] = "function",
};

const char *kw_top_col_name(enum kw_top_col c)
{
	return c < KW_NR_TOP_COLS ? col_names[c] : "?";
}

/* The per-VM view has no histograms (trigger rows are calls and ns): no p50, p99, max there. */
static bool col_in_view(enum kw_top_col c, bool per_vm)
{
	return !per_vm || (c != KW_TOP_P50 && c != KW_TOP_P99 && c != KW_TOP_MAX);
}

/* The column the rows are sorted by: the view's, or calls/s where the view lacks it. */
static enum kw_top_col sort_col(const struct kw_top_view *v)
{
	return v->sort < KW_NR_TOP_COLS && col_in_view(v->sort, v->per_vm) ? v->sort : KW_TOP_RATE;
}

/* `+` and `-` walk these (a -i value between two steps goes to the next one either way). */
static const double steps[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 };
#define NR_STEPS (sizeof(steps) / sizeof(steps[0]))

double kw_top_interval_step(double cur, int dir)
{
	if (dir > 0) {
		for (size_t i = 0; i < NR_STEPS; i++)
			if (steps[i] > cur * (1 + 1e-9))
				return steps[i];
	} else if (dir < 0) {
		for (size_t i = NR_STEPS; i-- > 0;)
			if (steps[i] < cur * (1 - 1e-9))
				return steps[i];
	}
	return cur;
}

enum kw_top_action kw_top_key(struct kw_top_view *v, int key)
{
	size_t n = strlen(v->input);
	double iv;

	if (v->prompt) {
		switch (key) {
		case '\r':
		case '\n':
			snprintf(v->filter, sizeof(v->filter), "%s", v->input);
			v->prompt = false;
			return KW_TOP_REDRAW;
		case 27: /* Esc: the filter stays as it was */
			v->prompt = false;
			return KW_TOP_REDRAW;
		case 127:
		case '\b':
			if (!n)
				return KW_TOP_NONE;
			v->input[n - 1] = '\0';
			return KW_TOP_REDRAW;
		case 21: /* Ctrl-U, as in a shell */
			v->input[0] = '\0';
			return KW_TOP_REDRAW;
		}
		if (key < 0 || key > 255 || !isprint(key) || n + 1 >= sizeof(v->input))
			return KW_TOP_NONE;
		v->input[n] = key;
		v->input[n + 1] = '\0';
		return KW_TOP_REDRAW;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return KW_TOP_QUIT;
	case 's': {
		enum kw_top_col c = sort_col(v);

		do
			c = (c + 1) % KW_NR_TOP_COLS;
		while (!col_in_view(c, v->per_vm));
		v->sort = c;
		return KW_TOP_REDRAW;
	}
	case 'v':
		v->per_vm = !v->per_vm;
		return KW_TOP_REDRAW;
	case 'f':
		/* empty: Enter at once clears the filter (the header still shows the old one) */
		v->prompt = true;
		v->input[0] = '\0';
		return KW_TOP_REDRAW;
	case '+':
	case '=': /* + without shift */
	case '-':
		iv = kw_top_interval_step(v->interval, key == '-' ? -1 : 1);
		if (iv == v->interval)
			return KW_TOP_NONE;
		v->interval = iv;
		return KW_TOP_INTERVAL;
	}
	return KW_TOP_NONE;
}

static bool shown(const struct kw_top_view *v, int probe)
{
	return !v->filter[0] || strcasestr(kw_probes[probe].name, v->filter);
}

static __u64 sub(__u64 a, __u64 b)
{
	return a > b ? a - b : 0; /* an exited process's rows move to pid 0: never negative */
}

static void hist_sub(struct kw_hist *d, const struct kw_hist *a, const struct kw_hist *b)
{
	memset(d, 0, sizeof(*d));
	d->count = a->count - (b ? b->count : 0);
	d->sum = a->sum - (b ? b->sum : 0);
	d->max = a->max; /* the maximum so far: a per-interval maximum is not kept */
	d->min = a->min;
	for (unsigned int i = 0; i < KW_HIST_NR_BUCKETS; i++)
		d->buckets[i] = a->buckets[i] - (b ? b->buckets[i] : 0);
}

/* One row of either view: a probe, a VM, or a probe of a VM. */
struct row {
	int probe;	/* -1 for a VM's own row */
	__u32 pid;
	char label[48]; /* a VM's */
	double rate;
	__u64 total, ns, dns;
	__u64 dcalls;
	bool timed; /* timed calls in the interval: mean (and p50, p99, max) are numbers */
	double v[KW_NR_TOP_COLS];
};

static const char *row_name(const struct row *r)
{
	return r->probe < 0 ? r->label : kw_probes[r->probe].name;
}

/* qsort_r's order: the column descending (name ascending), rows without a value last. */
static int row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct row *a = pa, *b = pb;
	enum kw_top_col c = *(const enum kw_top_col *)arg;
	int r;

	if (c == KW_TOP_NAME) {
		r = strcmp(row_name(a), row_name(b));
		if (r)
			return r;
	} else if (c == KW_TOP_RATE || c == KW_TOP_TOTAL || a->timed == b->timed) {
		if (a->v[c] != b->v[c])
			return a->v[c] < b->v[c] ? 1 : -1;
	} else {
		return a->timed ? -1 : 1;
	}
	/* then the catalogue's order, or the pid's */
	if (a->probe != b->probe)
		return a->probe - b->probe;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static void head(FILE *f, const struct kw_recording *cur, double secs, const struct kw_top_view *v,
		 int nshown, int nall)
{
	double iv = v->interval > 0 ? v->interval : secs;
	const char *bound = !v->interval		     ? ""
			    : kw_top_interval_step(iv, -1) == iv ? " (min)"
			    : kw_top_interval_step(iv, 1) == iv	 ? " (max)"
								 : "";

	fprintf(f, "kvmwalk top  %s %s  interval %g s%s  %s\n", cur->meta.kernel,
		cur->meta.kvm_mode, iv, bound, v->per_vm ? "by VM" : "by function");
	fprintf(f, "sort %s", kw_top_col_name(sort_col(v)));
	if (v->filter[0])
		fprintf(f, "  filter \"%.16s%s\" (%d of %d probes)", v->filter,
			strlen(v->filter) > 16 ? "..." : "", nshown, nall);
	else
		fprintf(f, "  no filter");
	fprintf(f, "%s\n", v->per_vm ? "" : "  max: since start");
}

/* A column heading, marked when it is the sorted one. */
static const char *mark(char *buf, size_t len, const struct kw_top_view *v, enum kw_top_col c,
			const char *name)
{
	snprintf(buf, len, "%s%s", sort_col(v) == c ? "*" : "", name);
	return buf;
}

static void probe_rows(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		       double secs, const struct kw_top_view *v, int *nshown, int *nall)
{
	struct row rows[KW_NR_PROBES];
	enum kw_top_col c = sort_col(v);
	char h[7][16];
	int n = 0, n_top = 0;

	*nshown = *nall = 0;
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_func *a = &cur->funcs[i], *b = prev ? &prev->funcs[i] : NULL;
		struct row *r = &rows[n];
		struct kw_hist d;

		if (!kw_probe_in_arch(i, cur->meta.arch) || !kw_plan_attached(&cur->plan[i]))
			continue;
		++*nall;
		if (!shown(v, i))
			continue;
		memset(r, 0, sizeof(*r));
		r->probe = i;
		r->total = a->calls;
		r->rate = sub(a->calls, b ? b->calls : 0) / secs;
		hist_sub(&d, &a->dur, b ? &b->dur : NULL);
		r->timed = d.count > 0;
		r->v[KW_TOP_RATE] = r->rate;
		r->v[KW_TOP_TOTAL] = r->total;
		if (r->timed) {
			r->v[KW_TOP_MEAN] = kw_hist_mean(&d);
			r->v[KW_TOP_P50] = kw_hist_quantile(&d, 0.5);
			r->v[KW_TOP_P99] = kw_hist_quantile(&d, 0.99);
			r->v[KW_TOP_MAX] = d.max;
		}
		n++;
	}
	*nshown = n;
	qsort_r(rows, n, sizeof(rows[0]), row_cmp, &c);

	fprintf(f, "  %-28s %9s %7s %7s %7s %7s %7s\n",
		mark(h[0], 16, v, KW_TOP_NAME, "function"),
		mark(h[1], 16, v, KW_TOP_RATE, "calls/s"),
		mark(h[2], 16, v, KW_TOP_TOTAL, "total"), mark(h[3], 16, v, KW_TOP_MEAN, "mean"),
		mark(h[4], 16, v, KW_TOP_P50, "p50"), mark(h[5], 16, v, KW_TOP_P99, "p99"),
		mark(h[6], 16, v, KW_TOP_MAX, "max"));
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];

		kw_fmt_count(h[0], 16, r->total);
		if (r->timed) {
			kw_fmt_ns(h[1], 16, r->v[KW_TOP_MEAN]);
			kw_fmt_ns(h[2], 16, r->v[KW_TOP_P50]);
			kw_fmt_ns(h[3], 16, r->v[KW_TOP_P99]);
			kw_fmt_ns(h[4], 16, r->v[KW_TOP_MAX]);
		} else {
			for (int k = 1; k <= 4; k++)
				snprintf(h[k], 16, "-");
		}
		fprintf(f, "  %-28.28s %9s %7s %7s %7s %7s %7s\n", row_name(r), KW_COUNT(r->rate),
			h[0], h[1], h[2], h[3], h[4]);
	}
	if (!*nall)
		fprintf(f, "  (no probe is attached)\n");
	else if (!n)
		fprintf(f, "  (no attached probe's name contains \"%s\")\n", v->filter);
	/* the counters that have a place on this line (kw_counters[].top) */
	for (int i = 0; i < KW_NR_COUNTERS; i++) {
		const struct kw_counter_desc *d = &kw_counters[i];
		__u64 now = cur->counters[i], before = prev ? prev->counters[i] : 0;

		if (!d->top || strcmp(d->top_arch, cur->meta.arch))
			continue;
		fprintf(f, "%s%s/s %s (total %s)", n_top++ ? ", " : "  ", d->top,
			KW_COUNT(sub(now, before) / secs), KW_EXACT(now));
	}
	if (n_top)
		fputc('\n', f);
}

/* The trigger rows summed per (pid, probe): what the per-VM view shows. */
struct pp {
	__u32 pid;
	int probe;
	__u64 calls, ns;
};

static int pp_cmp(const void *pa, const void *pb)
{
	const struct pp *a = pa, *b = pb;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->probe - b->probe;
}

/* r's trigger rows of the shown probes, summed per (pid, probe) and sorted; NULL if none. */
static struct pp *pp_sum(const struct kw_recording *r, const struct kw_top_view *v, size_t *n)
{
	struct pp *p;
	size_t m = 0;

	*n = 0;
	if (!r || !r->ntrigs)
		return NULL;
	p = calloc(r->ntrigs, sizeof(*p));
	if (!p)
		return NULL;
	for (size_t i = 0; i < r->ntrigs; i++) {
		const struct kw_trig *t = &r->trigs[i];

		if (t->probe < 0 || t->probe >= KW_NR_PROBES || !shown(v, t->probe))
			continue;
		p[m++] = (struct pp){ t->pid, t->probe, t->calls, t->ns };
	}
	qsort(p, m, sizeof(*p), pp_cmp);
	for (size_t i = 0; i < m; i++) {
		if (*n && !pp_cmp(&p[*n - 1], &p[i])) {
			p[*n - 1].calls += p[i].calls;
			p[*n - 1].ns += p[i].ns;
		} else {
			p[(*n)++] = p[i];
		}
	}
	return p;
}

static void row_values(struct row *r, double secs)
{
	r->rate = r->dcalls / secs;
	r->timed = r->dcalls && r->dns;
	r->v[KW_TOP_RATE] = r->rate;
	r->v[KW_TOP_TOTAL] = r->total;
	r->v[KW_TOP_MEAN] = r->timed ? (double)r->dns / r->dcalls : 0;
}

static void vm_label(char *buf, size_t len, const struct kw_recording *r, __u32 pid)
{
	const struct kw_vm *vm = kw_recording_vm(r, pid);

	/* pid 0: the processes that exited while top ran, folded (user/collect.c) */
	if (!pid)
		snprintf(buf, len, "exited");
	else if (vm && vm->vm[0])
		snprintf(buf, len, "%.30s (%u)", vm->vm, pid);
	else if (vm && vm->comm[0])
		snprintf(buf, len, "%.16s (%u)", vm->comm, pid);
	else
		snprintf(buf, len, "pid %u", pid);
}

static void print_vrow(FILE *f, const struct row *r, double secs, const char *indent, int w)
{
	char t[4][16];

	kw_fmt_count(t[0], 16, r->total);
	kw_fmt_ns(t[1], 16, r->dns / secs);
	if (r->timed)
		kw_fmt_ns(t[2], 16, r->v[KW_TOP_MEAN]);
	else
		snprintf(t[2], 16, "-");
	kw_fmt_ns(t[3], 16, r->ns);
	fprintf(f, "%s%-*.*s %9s %7s %7s %7s %7s\n", indent, w, w, row_name(r), KW_COUNT(r->rate),
		t[0], t[1], t[2], t[3]);
}

static int vm_rows(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		   double secs, const struct kw_top_view *v, int *nshown, int *nall)
{
	enum kw_top_col c = sort_col(v);
	struct pp *a, *b;
	struct row *rows = NULL, *vms = NULL;
	size_t na, nb, nvm = 0;
	char h[6][16];
	int ret = 0;

	*nshown = *nall = 0;
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (kw_probe_in_arch(i, cur->meta.arch) && kw_plan_attached(&cur->plan[i])) {
			++*nall;
			*nshown += shown(v, i);
		}
	}
	a = pp_sum(cur, v, &na);
	b = pp_sum(prev, v, &nb);
	fprintf(f, "  %-28s %9s %7s %7s %7s %7s\n", mark(h[0], 16, v, KW_TOP_NAME, "vm / function"),
		mark(h[1], 16, v, KW_TOP_RATE, "calls/s"), mark(h[2], 16, v, KW_TOP_TOTAL, "total"),
		"time/s", mark(h[4], 16, v, KW_TOP_MEAN, "mean"), "time");
	if (!na) {
		fprintf(f, "  (no process has been seen doing KVM work%s)\n",
			v->filter[0] ? " in the probes shown" : "");
		goto cleanup;
	}
	rows = calloc(na, sizeof(*rows));
	vms = calloc(na, sizeof(*vms));
	if (!rows || !vms) {
		ret = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < na; i++) {
		struct pp key = a[i], *o = nb ? bsearch(&key, b, nb, sizeof(*b), pp_cmp) : NULL;
		struct row *r = &rows[i];

		r->probe = a[i].probe;
		r->pid = a[i].pid;
		r->total = a[i].calls;
		r->ns = a[i].ns;
		r->dcalls = sub(a[i].calls, o ? o->calls : 0);
		r->dns = sub(a[i].ns, o ? o->ns : 0);
		row_values(r, secs);
		if (!nvm || vms[nvm - 1].pid != r->pid) {
			struct row *m = &vms[nvm++];

			m->probe = -1;
			m->pid = r->pid;
			vm_label(m->label, sizeof(m->label), cur, r->pid);
		}
		vms[nvm - 1].total += r->total;
		vms[nvm - 1].ns += r->ns;
		vms[nvm - 1].dns += r->dns;
		vms[nvm - 1].dcalls += r->dcalls;
	}
	for (size_t m = 0; m < nvm; m++)
		row_values(&vms[m], secs);
	qsort_r(vms, nvm, sizeof(*vms), row_cmp, &c);
	qsort_r(rows, na, sizeof(*rows), row_cmp, &c);
	for (size_t m = 0; m < nvm; m++) {
		print_vrow(f, &vms[m], secs, "  ", 28);
		for (size_t i = 0; i < na; i++)
			if (rows[i].pid == vms[m].pid)
				print_vrow(f, &rows[i], secs, "    ", 26);
	}
cleanup:
	free(a);
	free(b);
	free(rows);
	free(vms);
	return ret;
}

static void key_line(FILE *f, const struct kw_top_view *v)
{
	if (v->prompt)
		fprintf(f, "filter (Enter applies, empty clears, Esc cancels): %s_", v->input);
	else
		fprintf(f, "q quit  s sort  v %s  f filter  +/- interval (%g to %g s)",
			v->per_vm ? "by function" : "by VM", KW_TOP_MIN_INTERVAL,
			KW_TOP_MAX_INTERVAL);
}

int kw_top_render(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		  double secs, const struct kw_top_view *view)
{
	static const struct kw_top_view def;
	const struct kw_top_view *v = view ?: &def;
	char *body = NULL;
	size_t len = 0;
	FILE *b;
	int nshown, nall, ret = 0, lines = 0, room, keep;
	const char *p;

	if (secs <= 0)
		secs = 1;
	b = open_memstream(&body, &len);
	if (!b)
		return -ENOMEM;
	if (v->per_vm)
		ret = vm_rows(b, prev, cur, secs, v, &nshown, &nall);
	else
		probe_rows(b, prev, cur, secs, v, &nshown, &nall);
	if (fclose(b) || ret) {
		free(body);
		return ret ?: -ENOMEM;
	}
	head(f, cur, secs, v, nshown, nall);
	for (p = body; *p; lines++)
		p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n');
	/* the lines that fit between the header and the key line; the last says what did not */
	room = v->rows > 0 ? v->rows - 2 - v->keys : lines;
	if (room < 0)
		room = 0;
	if (lines > room)
		keep = room ? room - 1 : 0;
	else
		keep = lines;
	for (p = body; keep > 0; keep--, room--, lines--) {
		size_t n = strcspn(p, "\n");

		n += p[n] == '\n';
		fwrite(p, 1, n, f);
		p += n;
	}
	if (lines > 0 && room > 0) {
		fprintf(f, "  ... %d more rows (f filters)\n", lines);
		room--;
	}
	for (; room > 0; room--)
		fputc('\n', f);
	if (v->keys) {
		key_line(f, v);
		/* on the terminal's last line a newline would scroll the header away */
		if (v->rows <= 0)
			fputc('\n', f);
	}
	free(body);
	return ferror(f) ? -EIO : 0;
}

/* The probe column of the lines: as wide as the longest attached name (whole names, aligned). */
static int lines_width(const struct kw_recording *r)
{
	int w = 5;

	for (int i = 0; i < KW_NR_PROBES; i++)
		if (kw_probe_in_arch(i, r->meta.arch) && kw_plan_attached(&r->plan[i]) &&
		    (int)strlen(kw_probes[i].name) > w)
			w = strlen(kw_probes[i].name);
	return w;
}

int kw_top_lines_header(FILE *f, const struct kw_recording *cur)
{
	fprintf(f, "%8s %-*s %9s %10s %9s %9s %9s %9s\n", "t", lines_width(cur), "probe", "calls/s",
		"total", "mean_ns", "p50_ns", "p99_ns", "max_ns");
	return ferror(f) ? -EIO : 0;
}

static void ns_field(char *buf, size_t len, const struct kw_hist *d, double v)
{
	if (d->count)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "-");
}

int kw_top_lines(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		 double secs, double t, const struct kw_top_view *view)
{
	static const struct kw_top_view def;
	const struct kw_top_view *v = view ?: &def;
	int w = lines_width(cur);
	char c[4][24];

	if (secs <= 0)
		secs = 1;
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_func *a = &cur->funcs[i], *b = prev ? &prev->funcs[i] : NULL;
		struct kw_hist d;

		if (!kw_probe_in_arch(i, cur->meta.arch) || !kw_plan_attached(&cur->plan[i]) ||
		    !shown(v, i))
			continue;
		hist_sub(&d, &a->dur, b ? &b->dur : NULL);
		ns_field(c[0], sizeof(c[0]), &d, d.count ? kw_hist_mean(&d) : 0);
		ns_field(c[1], sizeof(c[1]), &d, d.count ? kw_hist_quantile(&d, 0.5) : 0);
		ns_field(c[2], sizeof(c[2]), &d, d.count ? kw_hist_quantile(&d, 0.99) : 0);
		ns_field(c[3], sizeof(c[3]), &d, d.max);
		fprintf(f, "%8.2f %-*s %9.1f %10llu %9s %9s %9s %9s\n", t, w, kw_probes[i].name,
			sub(a->calls, b ? b->calls : 0) / secs, (unsigned long long)a->calls, c[0],
			c[1], c[2], c[3]);
	}
	return ferror(f) ? -EIO : 0;
}
