// SPDX-License-Identifier: GPL-2.0
/* The probe-body cost table of kvmwalk-bench: medians, ratios against their targets. */
#include <math.h>
#include <string.h>

#include "bench.h"
#include "stats.h"

/* Issue 6: kvmwalk's pair within 1.5x of a bare clock pair, and at most half of bpftrace's. */
#define TARGET_CB 1.5
#define TARGET_CD 0.5

void bench_summarise(const struct bench_variant *v, struct bench_summary *s)
{
	int i;

	s->ev = s->ev_min = s->ev_max = s->loop = s->over = NAN;
	if (!v->on || v->rounds <= 0)
		return;
	s->ev = kw_median(v->ev, v->rounds);
	s->loop = kw_median(v->loop, v->rounds);
	s->over = kw_median(v->over, v->rounds);
	for (i = 0; i < v->rounds; i++) {
		if (isnan(s->ev_min) || v->ev[i] < s->ev_min)
			s->ev_min = v->ev[i];
		if (isnan(s->ev_max) || v->ev[i] > s->ev_max)
			s->ev_max = v->ev[i];
	}
}

const char *bench_verdict(char *buf, size_t size, double ratio, double target)
{
	if (isnan(ratio))
		snprintf(buf, size, "n/a");
	else if (ratio <= target)
		snprintf(buf, size, "met");
	else
		snprintf(buf, size, "MISSED by %.2f (%.0f %%)", ratio - target,
			 (ratio / target - 1) * 100);
	return buf;
}

static const struct bench_variant *find(const struct bench_variant *v, int n, const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].key, key))
			return v[i].on && v[i].rounds > 0 ? &v[i] : NULL;
	return NULL;
}

static double ev_of(const struct bench_variant *v, int n, const char *key)
{
	const struct bench_variant *x = find(v, n, key);
	struct bench_summary s;

	if (!x)
		return NAN;
	bench_summarise(x, &s);
	return s.ev;
}

static void ratio_line(FILE *f, const struct bench_variant *v, int n, const char *num,
		       const char *den, double target, const char *note)
{
	double r = ev_of(v, n, num) / ev_of(v, n, den);
	char buf[48], name[8];

	snprintf(name, sizeof(name), "%s/%s", num, den);
	if (isnan(r)) {
		fprintf(f, "  %-5s     -   target <= %.2f   not measured\n", name, target);
		return;
	}
	fprintf(f, "  %-5s %5.2f   target <= %.2f   %s%s\n", name, r, target,
		bench_verdict(buf, sizeof(buf), r, target), note);
}

static void num(FILE *f, int width, double x, const char *fmt)
{
	if (isnan(x))
		fprintf(f, "%*s", width, "-");
	else
		fprintf(f, fmt, width, x);
}

void bench_print_table(FILE *f, const struct bench_header *h, const struct bench_variant *v, int n)
{
	struct bench_summary s;
	char pin[32];
	int i;

	if (h->cpu >= 0)
		snprintf(pin, sizeof(pin), "pinned to CPU %d", h->cpu);
	else
		snprintf(pin, sizeof(pin), "not pinned");
	fprintf(f, "kvmwalk bench: probe-body cost, tracepoints syscalls:sys_{enter,exit}_getppid\n");
	fprintf(f, "kernel %s, %d CPUs, %s\n", h->kernel, h->ncpus, pin);
	fprintf(f, "%d rounds x %ld getppid() calls per variant, variants alternating.\n", h->rounds,
		h->calls);
	/* how loaded the machine was: the same probe costs more when other work shares its CPUs */
	if (h->has_load)
		fprintf(f, "load average (1 min): %.2f before, %.2f after, on %d CPUs\n",
			h->load_before, h->load_after, h->ncpus);
	fprintf(f, "ns/event: run_time_ns/run_cnt of the enter and the exit program summed (BPF\n");
	fprintf(f, "run-time statistics); loop: ns per call minus the no-probe loop of the same\n");
	fprintf(f, "round (noisy). Medians over rounds.\n\n");
	fprintf(f, "%-37s %23s %14s\n", "", "ns/event", "loop ns/call");
	fprintf(f, "%-37s %7s %7s %7s %14s\n", "   variant", "median", "min", "max", "over none");
	for (i = 0; i < n; i++) {
		char label[40];

		if (!v[i].on)
			continue;
		bench_summarise(&v[i], &s);
		snprintf(label, sizeof(label), "%-2s %s%s", v[i].key, v[i].breakdown ? "  " : "",
			 v[i].name);
		fprintf(f, "%-37.37s", label);
		if (!strcmp(v[i].key, "-")) {
			fprintf(f, " %23s", "");
			num(f, 14, s.loop, "%*.1f");
			fprintf(f, "\n");
			continue;
		}
		fprintf(f, " ");
		num(f, 7, s.ev, "%*.0f");
		fprintf(f, " ");
		num(f, 7, s.ev_min, "%*.0f");
		fprintf(f, " ");
		num(f, 7, s.ev_max, "%*.0f");
		fprintf(f, " ");
		num(f, 14, s.over, "%+*.1f");
		fprintf(f, "\n");
	}
	fprintf(f, "\nratios of the ns/event medians (kvmwalk probe: index %u):\n", h->probe);
	ratio_line(f, v, n, "c", "b", TARGET_CB, "");
	ratio_line(f, v, n, "c", "d", TARGET_CD, "");
}

void bench_print_raw(FILE *f, const struct bench_variant *v, int n)
{
	int i, r;

	fprintf(f, "# variant round ns_per_event loop_ns_per_call loop_over_none\n");
	for (i = 0; i < n; i++) {
		if (!v[i].on)
			continue;
		for (r = 0; r < v[i].rounds; r++)
			fprintf(f, "%s %d %.1f %.2f %.2f\n", v[i].key, r, v[i].ev[r], v[i].loop[r],
				v[i].over[r]);
	}
}

void bench_print_user(FILE *f, const struct bench_user_row *r, int n, int reps)
{
	int i;

	fprintf(f, "kvmwalk bench: user-space cost of reading all maps and rendering them\n");
	fprintf(f, "synthetic contents, every CPU slot full; medians of %d repetitions; ms\n", reps);
	fprintf(f, "read: copy + merge as loader__collect (lookup syscalls not included);\n"
		"maps: what the per-CPU maps hold (copied on every read); mem: what a read\n"
		"holds in user space (recording, keyed rows, per-CPU read buffer)\n\n");
	fprintf(f, "%5s %5s %7s %7s %6s %6s %6s %6s %6s %6s %7s\n", "", "", "maps", "", "",
		"JSON", "", "scrape", "", "", "scrape");
	fprintf(f, "%5s %5s %7s %7s %6s %6s %6s %6s %6s %6s %7s\n", "CPUs", "rows", "KiB", "read",
		"write", "parse", "report", "log2", "fine", "mem", "fine");
	fprintf(f, "%5s %5s %7s %7s %6s %6s %6s %6s %6s %6s %7s\n", "", "", "", "ms", "ms", "ms",
		"ms", "ms", "ms", "KiB", "KiB");
	for (i = 0; i < n; i++)
		fprintf(f, "%5d %5d %7zu %7.2f %6.2f %6.2f %6.2f %6.2f %6.2f %6zu %7zu\n", r[i].ncpus,
			r[i].rows, r[i].kernel_bytes >> 10, r[i].ms[BU_READ], r[i].ms[BU_JSON],
			r[i].ms[BU_PARSE], r[i].ms[BU_REPORT], r[i].ms[BU_SCRAPE],
			r[i].ms[BU_SCRAPE_FINE], r[i].bytes[BU_READ] >> 10,
			r[i].bytes[BU_SCRAPE_FINE] >> 10);
}
