// SPDX-License-Identifier: GPL-2.0
/* The sampled mode in the report (sampled_view.h). */
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "record.h"
#include "sampled_view.h"

/* a row's process as the VM column says it: its VM name, else its comm, else its pid */
static const char *who(const struct kw_recording *r, __u32 pid, char *buf, size_t len)
{
	const struct kw_vm *v = kw_recording_vm(r, pid);

	if (v && v->vm[0])
		return v->vm;
	if (v && v->comm[0])
		return v->comm;
	snprintf(buf, len, "pid %u", pid);
	return buf;
}

void kw_sampled_print(FILE *f, const struct kw_recording *r)
{
	const struct kw_sampled *s = &r->sampled;
	char a[32], b[32], c[32], d[32];
	double ticks;

	if (!s->hz)
		return;
	fprintf(f, "\nSampled CPU time (record --sample): %u Hz on %u CPUs for %.1f s\n", s->hz,
		s->ncpus, s->seconds);
	fprintf(f, "  %s samples: %s in the kernel, %s of them in no KVM function\n",
		kw_fmt_count_exact(a, sizeof(a), s->samples),
		kw_fmt_count_exact(b, sizeof(b), s->kernel),
		kw_fmt_count_exact(c, sizeof(c), s->no_kvm));
	fprintf(f, "  CPU time = samples / %u; +- 1.96 x sqrt(samples) / %u, the 95 %% interval\n",
		s->hz, s->hz);
	/* A tick the CPU did not take (its timer delayed past the next period, or, on a virtual
	 * CPU, time the hypervisor ran something else) is no sample: every estimate is low by the
	 * share missing here. Hosts on hardware give 100 %; emulated x86 hosts gave 90-96 % at 999 Hz. */
	ticks = s->hz * (double)s->ncpus * s->seconds;
	if (ticks > 0)
		fprintf(f, "  ticks taken: %.1f %% of %s (Hz x CPUs x s); estimates are low by the rest\n",
			100.0 * s->samples / ticks,
			kw_fmt_count_exact(a, sizeof(a), (__u64)(ticks + 0.5)));
	if (s->dropped || s->deep)
		fprintf(f, "  lost: %s samples not counted (row map full), %s stacks cut at %d "
			   "frames\n",
			kw_fmt_count_exact(a, sizeof(a), s->dropped),
			kw_fmt_count_exact(b, sizeof(b), s->deep), KW_SAMPLE_MAX_FRAMES);
	if (!s->nrows) {
		fprintf(f, "  no sample was in a KVM function (%u functions known)\n", s->nfuncs);
		return;
	}
	fprintf(f, "  %-26s %-16s %-10s %7s %6s %7s\n", "what", "trigger", "VM", "CPU", "+-",
		"samples");
	for (size_t i = 0; i < s->nrows; i++) {
		const struct kw_sample_row *w = &s->rows[i];
		struct kw_sample_est e;

		kw_sample_estimate(w->samples, s->hz, &e);
		/* a long name on a line of its own */
		if (strlen(w->what) > 26)
			fprintf(f, "  %s\n  %-26s", w->what, "");
		else
			fprintf(f, "  %-26s", w->what);
		fprintf(f, " %-16s %-10.10s %7s %6s %7s\n", w->trigger, who(r, w->pid, d, sizeof(d)),
			kw_fmt_ns(a, sizeof(a), e.s * 1e9),
			kw_fmt_ns(b, sizeof(b), (e.hi - e.s) * 1e9),
			kw_fmt_count_exact(c, sizeof(c), w->samples));
	}
	if (s->run_cnt)
		fprintf(f, "  the sample program's own cost: %s per sample, %s per second per CPU\n",
			kw_fmt_ns(a, sizeof(a), (double)s->run_ns / s->run_cnt),
			kw_fmt_ns(b, sizeof(b),
				  s->seconds && s->ncpus ? s->run_ns / s->seconds / s->ncpus : 0));
}

json_t *kw_sampled_report_json(const struct kw_recording *r)
{
	json_t *o, *rows, *row;
	size_t i;
	char buf[32];

	if (!r->sampled.hz)
		return NULL;
	o = kw_sampled_json(&r->sampled);
	rows = json_object_get(o, "rows");
	json_array_foreach(rows, i, row)
	{
		json_object_set_new(row, "vm", json_string(who(r, r->sampled.rows[i].pid, buf,
								sizeof(buf))));
		json_object_set_new(row, "cpu_seconds_error",
				    json_real(json_number_value(json_object_get(
						      row, "cpu_seconds_high")) -
					      json_number_value(json_object_get(row, "cpu_seconds"))));
	}
	json_object_set_new(o, "bpf_ns_per_sample",
			    json_real(r->sampled.run_cnt ? (double)r->sampled.run_ns /
							      r->sampled.run_cnt
							: 0.0));
	return o;
}
