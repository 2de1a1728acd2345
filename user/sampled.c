// SPDX-License-Identifier: GPL-2.0
/* The sampled section of a recording (sampled.h). */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sampled.h"

void kw_sample_estimate(__u64 n, unsigned int hz, struct kw_sample_est *e)
{
	double r = hz ? hz : 1, d = 1.96 * sqrt((double)n);

	e->s = n / r;
	e->lo = n > d ? (n - d) / r : 0;
	e->hi = n ? (n + d) / r : 3 / r;
}

int kw_sampled_add_row(struct kw_sampled *s, const struct kw_sample_row *row)
{
	struct kw_sample_row *p = realloc(s->rows, (s->nrows + 1) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	s->rows = p;
	s->rows[s->nrows++] = *row;
	return 0;
}

int kw_sampled_fold(struct kw_sampled *s, const struct kw_sample_row *row, const char *vm)
{
	struct kw_sample_row f = *row;

	for (size_t i = 0; i < s->nrows; i++) {
		struct kw_sample_row *r = &s->rows[i];

		if (!r->pid && !strcmp(r->what, row->what) && !strcmp(r->trigger, row->trigger) &&
		    !strcmp(r->vm, vm)) {
			r->samples += row->samples;
			return 0;
		}
	}
	f.pid = 0;
	snprintf(f.vm, sizeof(f.vm), "%s", vm);
	return kw_sampled_add_row(s, &f);
}

static int row_cmp(const void *a, const void *b)
{
	const struct kw_sample_row *x = a, *y = b;
	int c;

	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	c = strcmp(x->what, y->what);
	return c ? c : strcmp(x->trigger, y->trigger);
}

void kw_sampled_sort(struct kw_sampled *s)
{
	if (s->nrows)
		qsort(s->rows, s->nrows, sizeof(*s->rows), row_cmp);
}

void kw_sampled_free(struct kw_sampled *s)
{
	if (!s)
		return;
	free(s->rows);
	s->rows = NULL;
	s->nrows = 0;
}

json_t *kw_sampled_json(const struct kw_sampled *s)
{
	json_t *o = json_object(), *a = json_array();

	json_object_set_new(o, "hz", json_integer(s->hz));
	json_object_set_new(o, "cpus", json_integer(s->ncpus));
	json_object_set_new(o, "seconds", json_real(s->seconds));
	json_object_set_new(o, "samples", json_integer(s->samples));
	json_object_set_new(o, "kernel_samples", json_integer(s->kernel));
	json_object_set_new(o, "no_kvm_samples", json_integer(s->no_kvm));
	json_object_set_new(o, "dropped", json_integer(s->dropped));
	json_object_set_new(o, "deep_stacks", json_integer(s->deep));
	json_object_set_new(o, "functions", json_integer(s->nfuncs));
	json_object_set_new(o, "functions_missing", json_integer(s->nmissing));
	json_object_set_new(o, "bpf_run_ns", json_integer(s->run_ns));
	json_object_set_new(o, "bpf_run_count", json_integer(s->run_cnt));
	for (size_t i = 0; i < s->nrows; i++) {
		const struct kw_sample_row *w = &s->rows[i];
		struct kw_sample_est e;

		kw_sample_estimate(w->samples, s->hz, &e);
		json_array_append_new(a, json_pack("{sIsssssIsfsfsf}", "pid", (json_int_t)w->pid,
						   "what", w->what, "trigger", w->trigger,
						   "samples", (json_int_t)w->samples,
						   "cpu_seconds", e.s, "cpu_seconds_low", e.lo,
						   "cpu_seconds_high", e.hi));
	}
	json_object_set_new(o, "rows", a);
	return o;
}

static int num(json_t *o, const char *k, double *v, char *err, size_t errlen)
{
	json_t *j = json_object_get(o, k);

	if (!json_is_number(j) || json_number_value(j) < 0) {
		snprintf(err, errlen, "sampled.%s: not a number >= 0", k);
		return -EINVAL;
	}
	*v = json_number_value(j);
	return 0;
}

static int str(json_t *o, const char *k, char *dst, size_t len, char *err, size_t errlen)
{
	const char *v = json_string_value(json_object_get(o, k));

	if (!v) {
		snprintf(err, errlen, "sampled.%s: not a string", k);
		return -EINVAL;
	}
	snprintf(dst, len, "%s", v);
	return 0;
}

int kw_sampled_from_json(struct kw_sampled *s, json_t *o, char *err, size_t errlen)
{
	static const char *const keys[] = { "hz",	     "cpus",		  "seconds",
					    "samples",	     "kernel_samples",	  "no_kvm_samples",
					    "dropped",	     "deep_stacks",	  "functions",
					    "functions_missing", "bpf_run_ns",	  "bpf_run_count" };
	double f[sizeof(keys) / sizeof(keys[0])];
	json_t *a, *r;
	size_t i;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(o)) {
		snprintf(err, errlen, "sampled: not an object");
		return -EINVAL;
	}
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (num(o, keys[i], &f[i], err, errlen))
			return -EINVAL;
	if (f[0] < 1 || f[0] > KW_SAMPLE_MAX_HZ) {
		snprintf(err, errlen, "sampled.hz: %g, not 1 to %d", f[0], KW_SAMPLE_MAX_HZ);
		return -EINVAL;
	}
	s->hz = f[0];
	s->ncpus = f[1];
	s->seconds = f[2];
	s->samples = f[3];
	s->kernel = f[4];
	s->no_kvm = f[5];
	s->dropped = f[6];
	s->deep = f[7];
	s->nfuncs = f[8];
	s->nmissing = f[9];
	s->run_ns = f[10];
	s->run_cnt = f[11];
	a = json_object_get(o, "rows");
	if (!json_is_array(a)) {
		snprintf(err, errlen, "sampled.rows: not an array");
		return -EINVAL;
	}
	json_array_foreach(a, i, r)
	{
		struct kw_sample_row w = {};
		double pid, n;

		if (num(r, "pid", &pid, err, errlen) || num(r, "samples", &n, err, errlen) ||
		    str(r, "what", w.what, sizeof(w.what), err, errlen) ||
		    str(r, "trigger", w.trigger, sizeof(w.trigger), err, errlen)) {
			kw_sampled_free(s);
			return -EINVAL;
		}
		w.pid = pid;
		w.samples = n;
		if (kw_sampled_add_row(s, &w)) {
			kw_sampled_free(s);
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
	}
	return 0;
}
