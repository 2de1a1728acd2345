// SPDX-License-Identifier: GPL-2.0
/* `kvmwalk top`: rates and latencies per function over the last interval, like kvm_stat. */
#include <errno.h>
#include <string.h>

#include "report.h"
#include "top.h"

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

int kw_top_render(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		  double secs)
{
	struct kw_hist d;
	char c[4][16];

	if (secs <= 0)
		secs = 1;
	fprintf(f, "kvmwalk top  %s %s  interval %.1f s  (max: since start)\n", cur->meta.kernel,
		cur->meta.kvm_mode, secs);
	fprintf(f, "  %-36s %9s %7s %7s %7s %7s\n", "function", "calls/s", "mean", "p50", "p99",
		"max");
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_func *a = &cur->funcs[i], *b = prev ? &prev->funcs[i] : NULL;
		__u64 calls = a->calls - (b ? b->calls : 0);
		if (!kw_probe_in_arch(i, cur->meta.arch) || !kw_plan_attached(&cur->plan[i]))
			continue;
		hist_sub(&d, &a->dur, b ? &b->dur : NULL);
		if (!d.count) {
			fprintf(f, "  %-36.36s %9.1f %7s %7s %7s %7s\n", kw_probes[i].name,
				calls / secs, "-", "-", "-", "-");
			continue;
		}
		kw_fmt_ns(c[0], 16, kw_hist_mean(&d));
		kw_fmt_ns(c[1], 16, kw_hist_quantile(&d, 0.5));
		kw_fmt_ns(c[2], 16, kw_hist_quantile(&d, 0.99));
		kw_fmt_ns(c[3], 16, d.max);
		fprintf(f, "  %-36.36s %9.1f %7s %7s %7s %7s\n", kw_probes[i].name,
			calls / secs, c[0], c[1], c[2], c[3]);
	}
	if (!strcmp(cur->meta.arch, "arm64")) {
		__u64 u = cur->counters[KW_C_UNMAP_CALLS] -
			  (prev ? prev->counters[KW_C_UNMAP_CALLS] : 0);
		__u64 e = cur->counters[KW_C_EMPTY_FLUSHES] -
			  (prev ? prev->counters[KW_C_EMPTY_FLUSHES] : 0);

		fprintf(f, "  unmaps/s %.1f, empty flushes/s %.1f\n", u / secs, e / secs);
	}
	return ferror(f) ? -EIO : 0;
}
