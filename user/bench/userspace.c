// SPDX-License-Identifier: GPL-2.0
/*
 * User-space cost (issue 6 part 4): reading every map into a recording and rendering it as a
 * report and a scrape, as the per-CPU width and the number of keyed rows (walker callbacks,
 * trigger rows) grow. Synthetic contents, every CPU's slot full (kw_hist_merge() skips empty
 * per-CPU histograms, so full slots are the worst case).
 *
 * The read is simulated: a memcpy of ncpus values stands in for the copy a per-CPU
 * bpf_map_lookup_elem() makes, followed by the same merge loader__collect() does (the probes'
 * counts are kw_func_add_percpu(), the histograms kw_hist_merge_log2(), shared; the other loops
 * are static in user/collect.c: keep read_maps() below in step with them). The maps are shaped
 * as serve's default makes them on x86 (issue 18): counts-only kw_stats, and in kw_hists a log2
 * histogram (552 bytes) for the duration and the size of each x86 probe that has one. The syscalls themselves are timed separately on real maps of the
 * same shape, at this machine's width (real_lookups()).
 * Rendering calls the real code: kw_recording_write/parse (record.c), kw_report_text (report.c),
 * prom_render (prom.c).
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "hist.h"
#include "probes.h"
#include "prom.h"
#include "record.h"
#include "report.h"
#include "stats.h"
#include "userspace.h"

#define LOG2_SIZE KW_HIST_VALUE_SIZE(KW_HIST_LOG2_BUCKETS)

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* What the per-CPU maps hold, ncpus slots each: the "kernel side" of the simulated read. */
struct kmaps {
	int ncpus, rows;
	struct kw_probe_stats *stats;	/* one key's ncpus values, reused for every key */
	__u64 *u64s;
	__u64 *hists;			/* one kw_hists slot's ncpus log2 histograms */
	struct kw_cb_val *cbs;
	struct kw_trig_val *trigs;
	void *buf;			/* the reader's buffer, ncpus x the largest value */
};

/* The same in a log2 histogram as the BPF side keeps it (struct kw_hist_slots.log2). */
static void synth_log2(__u64 *h, __u64 seed)
{
	__u64 *buckets = h + 4;
	int b;

	memset(h, 0, LOG2_SIZE);
	for (b = 7; b < 24; b++) {
		buckets[b] = 1 + (seed * 2654435761u + b) % 97;
		h[0] += buckets[b];
	}
	h[1] = h[0] * 4000;
	h[2] = 100;
	h[3] = 10000000;
}

/* The kw_hists slots of x86's probes: a duration per timed one, a size per one with a unit. */
static int x86_hists(void)
{
	int n = 0;

	for (int p = 0; p < KW_NR_PROBES; p++)
		if (kw_probe_in_arch(p, "x86"))
			n += kw_probes[p].timed + !!kw_probes[p].unit;
	return n;
}

static void kmaps_free(struct kmaps *k)
{
	free(k->stats);
	free(k->u64s);
	free(k->hists);
	free(k->cbs);
	free(k->trigs);
	free(k->buf);
}

static int kmaps_init(struct kmaps *k, int ncpus, int rows)
{
	int c;

	memset(k, 0, sizeof(*k));
	k->ncpus = ncpus;
	k->rows = rows;
	k->stats = calloc(ncpus, sizeof(*k->stats));
	k->u64s = calloc(ncpus, sizeof(__u64));
	k->hists = calloc(ncpus, LOG2_SIZE);
	k->cbs = calloc(ncpus, sizeof(*k->cbs));
	k->trigs = calloc(ncpus, sizeof(*k->trigs));
	k->buf = calloc(ncpus, LOG2_SIZE);
	if (!k->stats || !k->u64s || !k->hists || !k->cbs || !k->trigs || !k->buf) {
		kmaps_free(k);
		return -ENOMEM;
	}
	for (c = 0; c < ncpus; c++) {
		k->stats[c].calls = 1000 + c;
		k->u64s[c] = c + 1;
		synth_log2(k->hists + (size_t)c * (LOG2_SIZE / 8), c + 3);
		k->cbs[c] = (struct kw_cb_val){ .calls = 10, .ns = 10000, .bytes = 1 << 20 };
		k->trigs[c] = (struct kw_trig_val){ .calls = 10, .ns = 10000 };
	}
	return 0;
}

/* loader__collect()'s merge, with memcpy() in place of each bpf_map_lookup_elem(). */
static int read_maps(struct kmaps *k, struct kw_recording *r)
{
	int n = k->ncpus, i, c, err;

	kw_recording_free(r);
	memset(r, 0, sizeof(*r));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "x86");
	for (i = 0; i < KW_NR_PROBES; i++) {
		memcpy(k->buf, k->stats, n * sizeof(struct kw_probe_stats));
		kw_func_add_percpu(&r->funcs[i], k->buf, n);
	}
	for (i = 0; i < KW_NR_COUNTERS + KW_NR_VISITS; i++) {
		__u64 *v = k->buf, *dst = i < KW_NR_COUNTERS ? &r->counters[i] :
							       &r->visits[i - KW_NR_COUNTERS];

		memcpy(k->buf, k->u64s, n * sizeof(*v));
		for (c = 0; c < n; c++)
			*dst += v[c];
	}
	for (i = 0; i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, "x86"))
			continue;
		for (int kind = 0; kind < 2; kind++) {
			struct kw_hist *h = kind ? &r->funcs[i].size : &r->funcs[i].dur;

			if (kind ? !kw_probes[i].unit : !kw_probes[i].timed)
				continue;
			memcpy(k->buf, k->hists, n * LOG2_SIZE);
			for (c = 0; c < n; c++)
				kw_hist_merge_log2(h, (const __u64 *)k->buf + (size_t)c * (LOG2_SIZE / 8));
		}
	}
	for (i = 0; i < k->rows && i < KW_MAX_CBS; i++) {
		struct kw_cb_val *v = k->buf;
		struct kw_cb cb = { .addr = 0xffffffff81000000ull + i * 64, .depth = i % 3 };

		memcpy(k->buf, k->cbs, n * sizeof(*v));
		for (c = 0; c < n; c++) {
			cb.calls += v[c].calls;
			cb.ns += v[c].ns;
			cb.bytes += v[c].bytes;
		}
		snprintf(cb.sym, sizeof(cb.sym), "walker_%d", i);
		if ((err = kw_recording_add_cb(r, &cb)))
			return err;
	}
	for (i = 0; i < k->rows; i++) {
		struct kw_trig_val *v = k->buf;
		struct kw_trig t = { .probe = i % KW_NR_PROBES, .trigger = i % KW_NR_TRIGGERS,
				     .cmd = i % KW_NR_TRIGGERS == KW_T_IOCTL ? 0xc020ae46 : 0,
				     .pid = 1000 + i / (KW_NR_PROBES * KW_NR_TRIGGERS) };

		memcpy(k->buf, k->trigs, n * sizeof(*v));
		for (c = 0; c < n; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		if ((err = kw_recording_add_trig(r, &t)))
			return err;
	}
	kw_recording_sort(r);
	r->overhead.measured_ns = kw_recording_measured_ns(r);
	return 0;
}

static void synth_meta(struct kw_recording *r)
{
	int p;

	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "bench");
	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "6.12.0-synthetic");
	snprintf(r->meta.started, sizeof(r->meta.started), "2026-01-01T00:00:00Z");
	r->meta.duration_s = 10;
	r->meta.exit_status = -1;
	r->overhead.stats_enabled = true;
	r->overhead.run_ns = 1000000;
	r->overhead.run_cnt = 5000;
	for (p = 0; p < KW_NR_PROBES; p++)
		r->plan[p].mech = kw_probe_in_arch(p, "x86") ? KW_MECH_FENTRY : KW_MECH_OFF;
}

struct step {
	double ns[BENCH_MAX_ROUNDS];
	size_t bytes;
};

/* What a read holds in user space: the recording, its keyed rows and the per-CPU buffer. */
static size_t held(const struct kmaps *k, const struct kw_recording *r)
{
	return sizeof(*r) + r->ncbs * sizeof(*r->cbs) + r->ntrigs * sizeof(*r->trigs) +
	       (size_t)k->ncpus * LOG2_SIZE;
}

/* One configuration: every step reps times; medians into row. */
static int run_one(int ncpus, int rows, int reps, struct bench_user_row *row)
{
	struct step st[BU_NR_STEPS] = {};
	struct kw_recording r = {}, back = {};
	struct prom_opts po = { .buckets = PROM_BUCKETS_LOG2 };
	struct kmaps k;
	int i, s, err;

	err = kmaps_init(&k, ncpus, rows);
	if (err)
		return err;
	row->ncpus = ncpus;
	row->rows = rows;
	row->read_buf = (size_t)ncpus * LOG2_SIZE;
	row->kernel_bytes = (size_t)ncpus * (KW_NR_PROBES * sizeof(struct kw_probe_stats) +
					     (KW_NR_COUNTERS + KW_NR_VISITS) * sizeof(__u64) +
					     (size_t)x86_hists() * LOG2_SIZE +
					     (rows < KW_MAX_CBS ? rows : KW_MAX_CBS) *
						     sizeof(struct kw_cb_val) +
					     rows * sizeof(struct kw_trig_val));
	/* Round 0 warms caches and the allocator up and is not counted. */
	for (i = -1; i < reps; i++) {
		int at = i < 0 ? 0 : i;
		char *buf = NULL, err_s[128];
		size_t len = 0;
		double t0;
		FILE *f;

		t0 = now_ns();
		if ((err = read_maps(&k, &r)))
			goto cleanup;
		synth_meta(&r);
		st[BU_READ].ns[at] = now_ns() - t0;
		st[BU_READ].bytes = held(&k, &r);

		f = open_memstream(&buf, &len);
		t0 = now_ns();
		err = f ? kw_recording_write(&r, f) : -errno;
		if (f)
			fclose(f);
		st[BU_JSON].ns[at] = now_ns() - t0;
		st[BU_JSON].bytes = len;
		if (err)
			goto cleanup;

		t0 = now_ns();
		err = kw_recording_parse(&back, buf, err_s, sizeof(err_s));
		st[BU_PARSE].ns[at] = now_ns() - t0;
		free(buf);
		buf = NULL;
		if (err) {
			fprintf(stderr, "bench: parse: %s\n", err_s);
			goto cleanup;
		}
		kw_recording_free(&back);
		memset(&back, 0, sizeof(back));

		f = open_memstream(&buf, &len);
		t0 = now_ns();
		err = f ? kw_report_text(f, &r, "synthetic") : -errno;
		if (f)
			fclose(f);
		st[BU_REPORT].ns[at] = now_ns() - t0;
		st[BU_REPORT].bytes = len;
		free(buf);
		buf = NULL;
		if (err)
			goto cleanup;

		for (s = BU_SCRAPE; s <= BU_SCRAPE_FINE; s++) {
			po.buckets = s == BU_SCRAPE ? PROM_BUCKETS_LOG2 : PROM_BUCKETS_FINE;
			t0 = now_ns();
			err = prom_render(&r, &po, &buf, &len);
			st[s].ns[at] = now_ns() - t0;
			st[s].bytes = len;
			free(buf);
			buf = NULL;
			if (err)
				goto cleanup;
		}
	}
	for (s = 0; s < BU_NR_STEPS; s++) {
		row->ms[s] = kw_median(st[s].ns, reps) / 1e6;
		row->bytes[s] = st[s].bytes;
	}
cleanup:
	if (err)
		fprintf(stderr, "bench: user-space step failed: %s\n", strerror(-err));
	kw_recording_free(&r);
	kmaps_free(&k);
	return err;
}

/*
 * The lookups themselves, on real maps shaped like kw_stats and kw_triggers, at this machine's
 * width: what a read costs beyond the copy and merge simulated above.
 */
static int real_lookups(int rows, double *stats_us, double *hist_us, double *trig_us,
			double *batch_us)
{
	int ncpu = libbpf_num_possible_cpus(), sfd = -1, hfd = -1, tfd = -1, err = 0, i, rep;
	int nh = x86_hists();
	struct kw_trig_key tk = {}, *prev = NULL;
	void *buf = NULL;
	double t0;

	size_t stride = (size_t)ncpu * ((sizeof(struct kw_trig_val) + 7) / 8 * 8);
	struct kw_trig_key *keys = calloc(KW_MAX_TRIGS + 64, sizeof(*keys));
	void *vals = calloc(KW_MAX_TRIGS + 64, stride);

	*stats_us = *hist_us = *trig_us = *batch_us = 0;
	buf = calloc(ncpu, LOG2_SIZE);
	sfd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bench_stats", 4,
			     sizeof(struct kw_probe_stats), KW_NR_PROBES, NULL);
	hfd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bench_hists", 4, LOG2_SIZE, nh, NULL);
	tfd = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, "bench_trigs", sizeof(struct kw_trig_key),
			     sizeof(struct kw_trig_val), KW_MAX_TRIGS, NULL);
	if (!buf || !keys || !vals || sfd < 0 || hfd < 0 || tfd < 0) {
		err = -errno;
		fprintf(stderr, "bench: create maps: %s\n", strerror(errno));
		goto cleanup;
	}
	for (i = 0; i < rows && i < KW_MAX_TRIGS; i++) {
		tk.probe = i;
		if (bpf_map_update_elem(tfd, &tk, buf, BPF_ANY)) {
			err = -errno;
			goto cleanup;
		}
	}
	t0 = now_ns();
	for (rep = 0; rep < 20; rep++)
		for (__u32 p = 0; p < KW_NR_PROBES; p++)
			if (bpf_map_lookup_elem(sfd, &p, buf)) {
				err = -errno;
				goto cleanup;
			}
	*stats_us = (now_ns() - t0) / 20 / KW_NR_PROBES / 1e3;
	t0 = now_ns();
	for (rep = 0; rep < 20; rep++)
		for (__u32 h = 0; h < (__u32)nh; h++)
			if (bpf_map_lookup_elem(hfd, &h, buf)) {
				err = -errno;
				goto cleanup;
			}
	*hist_us = (now_ns() - t0) / 20 / nh / 1e3;
	t0 = now_ns();
	for (rep = 0; rep < 20; rep++) {
		prev = NULL;
		while (!bpf_map_get_next_key(tfd, prev, &tk)) {
			prev = &tk;
			bpf_map_lookup_elem(tfd, &tk, buf);
		}
	}
	*trig_us = (now_ns() - t0) / 20 / (rows < KW_MAX_TRIGS ? rows : KW_MAX_TRIGS) / 1e3;
	/* what loader__collect() does now (collect.c, trig_rows_read()): batches of the whole map */
	t0 = now_ns();
	for (rep = 0; rep < 20; rep++) {
		__u32 batch = 0, count, n = 0;
		bool first = true;

		while (n < KW_MAX_TRIGS + 64) {
			count = KW_MAX_TRIGS + 64 - n;
			if (bpf_map_lookup_batch(tfd, first ? NULL : &batch, &batch, keys + n,
						 (char *)vals + n * stride, &count, NULL)) {
				n += errno == ENOENT ? count : 0;
				break;
			}
			n += count;
			first = false;
		}
		if (n != (__u32)(rows < KW_MAX_TRIGS ? rows : KW_MAX_TRIGS)) {
			fprintf(stderr, "bench: batch read %u of %d rows: %s\n", n, rows, strerror(errno));
			err = -EIO;
			goto cleanup;
		}
	}
	*batch_us = (now_ns() - t0) / 20 / (rows < KW_MAX_TRIGS ? rows : KW_MAX_TRIGS) / 1e3;
cleanup:
	free(keys);
	free(vals);
	if (sfd >= 0)
		close(sfd);
	if (hfd >= 0)
		close(hfd);
	if (tfd >= 0)
		close(tfd);
	free(buf);
	return err;
}

int bench_user(const struct bench_user_opts *o)
{
	struct bench_user_row *rows;
	int n = 0, i, j, err = 0;
	double stats_us, hist_us, trig_us, batch_us;

	rows = calloc(o->ncpus_n * o->rows_n, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (i = 0; i < o->ncpus_n; i++)
		for (j = 0; j < o->rows_n; j++) {
			err = run_one(o->ncpus[i], o->rows[j], o->reps, &rows[n]);
			if (err)
				goto cleanup;
			n++;
		}
	bench_print_user(stdout, rows, n, o->reps);
	if (!real_lookups(1024, &stats_us, &hist_us, &trig_us, &batch_us))
		printf("\nThe lookup syscalls on real maps, this machine (%d CPUs): %.1f us per "
		       "kw_stats\nkey (%d), %.1f us per kw_hists key (%d, log2); kw_triggers, 1024 "
		       "keys: %.2f us\nper key read in batches (what the loader does), %.1f us per "
		       "key with get_next_key +\nlookup.\n",
		       libbpf_num_possible_cpus(), stats_us, KW_NR_PROBES, hist_us, x86_hists(),
		       batch_us, trig_us);
cleanup:
	free(rows);
	return err;
}
