// SPDX-License-Identifier: GPL-2.0
/* The sampled mode's Prometheus families (prom_sampled.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "prom_sampled.h"

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* a label value: backslash, double quote and line feed escaped (exposition format 0.0.4) */
static void label(FILE *f, const char *sep, const char *k, const char *v)
{
	fprintf(f, "%s%s=\"", sep, k);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

struct row {
	const char *what, *trigger, *vm;
	__u32 pid;
	__u64 samples;
};

static int row_cmp(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int c = strcmp(x->what, y->what);

	if (!c)
		c = strcmp(x->trigger, y->trigger);
	if (!c)
		c = strcmp(x->vm, y->vm);
	if (!c)
		c = x->pid < y->pid ? -1 : x->pid > y->pid;
	return c;
}

int prom_put_sampled(FILE *f, const struct kw_recording *r, bool per_vm)
{
	const struct kw_sampled *s = &r->sampled;
	struct row *rows;
	size_t m = 0;

	if (!s->hz)
		return 0;
	family(f, "kvmwalk_sample_rate_hz", "gauge",
	       "The sampled mode's rate: samples per second on each CPU (serve's default 49, "
	       "--sample=HZ).");
	fprintf(f, "kvmwalk_sample_rate_hz %u\n", s->hz);
	family(f, "kvmwalk_sample_cpus", "gauge", "CPUs the sampled mode samples.");
	fprintf(f, "kvmwalk_sample_cpus %u\n", s->ncpus);
	family(f, "kvmwalk_samples_total", "counter",
	       "Samples taken, on every CPU, in user and kernel mode alike: the denominator.");
	fprintf(f, "kvmwalk_samples_total %llu\n", (unsigned long long)s->samples);
	family(f, "kvmwalk_samples_kernel_total", "counter", "Samples taken in kernel mode.");
	fprintf(f, "kvmwalk_samples_kernel_total %llu\n", (unsigned long long)s->kernel);
	family(f, "kvmwalk_samples_lost_total", "counter",
	       "KVM samples not counted: the row map was full (0 unless thousands of VMs).");
	fprintf(f, "kvmwalk_samples_lost_total %llu\n", (unsigned long long)s->dropped);
	if (s->run_cnt) {
		family(f, "kvmwalk_sample_program_seconds_total", "counter",
		       "The sample program's own run time, from BPF run-time statistics.");
		fprintf(f, "kvmwalk_sample_program_seconds_total %.9f\n", s->run_ns / 1e9);
	}
	if (!s->nrows)
		return 0;
	rows = calloc(s->nrows, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < s->nrows; i++) {
		const struct kw_vm *v = kw_recording_vm(r, s->rows[i].pid);

		/* a folded row (pid 0) carries its VM's name: its series goes on after the exit */
		const char *vm = s->rows[i].vm[0] ? s->rows[i].vm : v ? v->vm : "";

		rows[i] = (struct row){ s->rows[i].what, s->rows[i].trigger, vm,
					per_vm ? s->rows[i].pid : 0, s->rows[i].samples };
	}
	qsort(rows, s->nrows, sizeof(*rows), row_cmp);
	/* without --per-vm, one series per (what, trigger, VM name): the processes merged */
	for (size_t i = 0; i < s->nrows; i++) {
		if (m && !row_cmp(&rows[m - 1], &rows[i]))
			rows[m - 1].samples += rows[i].samples;
		else
			rows[m++] = rows[i];
	}
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "kvmwalk_sampled_cpu_seconds_total"
				     : "kvmwalk_sampled_samples_total";

		family(f, name, "counter",
		       k ? "Estimated CPU time in each KVM function (what) under each trigger: "
			   "samples / rate. Its 95 % error over a window is 1.96 x "
			   "sqrt(increase of kvmwalk_sampled_samples_total) / rate."
			 : "Samples whose innermost KVM work function is what, under the innermost "
			   "trigger function (what (other): a trigger frame only).");
		for (size_t i = 0; i < m; i++) {
			char pid[16];

			fputs(name, f);
			label(f, "{", "what", rows[i].what);
			label(f, ",", "trigger", rows[i].trigger);
			if (per_vm) {
				snprintf(pid, sizeof(pid), "%u", rows[i].pid);
				label(f, ",", "pid", pid);
			}
			label(f, ",", "vm", rows[i].vm);
			if (k)
				fprintf(f, "} %.15g\n", (double)rows[i].samples / s->hz);
			else
				fprintf(f, "} %llu\n", (unsigned long long)rows[i].samples);
		}
	}
	free(rows);
	return 0;
}
