/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A recording as Prometheus text exposition (format 0.0.4): what `kvmwalk serve` answers on
 * /metrics and writes for node_exporter's textfile collector. Pure C on plain structs, no libbpf.
 *
 * Conventions: one `kvmwalk_` prefix, base units (seconds, bytes), `_total` on counters, classic
 * histograms (cumulative `_bucket{le}` through "+Inf", `_sum`, `_count`) whose set of `le` values
 * is a fixed list per unit, so every scrape of every host has the same series. HELP and TYPE for
 * every family, families and series in a fixed order.
 */
#ifndef KW_PROM_H
#define KW_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "procself.h"
#include "record.h"

enum prom_buckets {
	PROM_BUCKETS_LOG2, /* one bucket per power of two (the fine buckets merged) */
	PROM_BUCKETS_FINE, /* every log-linear sub-bucket boundary (8 per power of two) */
};

/* Cost of one BPF program, from BPF run-time statistics. */
struct prom_prog {
	char name[64];
	__u64 run_ns;
	__u64 run_cnt;
};

/* What the exporter knows besides the recording. Every field may be zero / NULL. */
struct prom_facts {
	/*
	 * kvmwalk's version, "" or NULL: the recording's tool_version. Either is "VERSION (git
	 * COMMIT)" (or VERSION alone), served as the labels version and revision.
	 */
	const char *version;
	const char *libbpf_version; /* "1.1": a libbpf_version label; NULL: none */
	double start_time;	/* Unix time the exporter started */
	double collect_seconds; /* how long the last read of the maps took */
	__u64 collect_errors;	/* reads of the maps that failed */
	/*
	 * Per-program cost. With none, the recording's overhead (the sum over every program) is
	 * exported as program="all".
	 */
	const struct prom_prog *progs;
	size_t nprogs;
	/* the exporter's own process, for the process_* families; NULL: none served */
	const struct kw_procself *proc;
};

struct prom_opts {
	enum prom_buckets buckets;
	bool per_vm; /* a `pid` label (the VMM's process id) on the trigger families */
	const struct prom_facts *facts; /* NULL: none */
};

/* Parses "log2" or "fine"; returns 0 or -EINVAL. */
int prom_buckets_parse(const char *s, enum prom_buckets *b);

/* Writes the exposition of r. Returns 0 or -errno (a write error). */
int prom_write(FILE *f, const struct kw_recording *r, const struct prom_opts *o);

/*
 * The same into a malloc()ed, NUL-terminated buffer; *len gets its length (without the NUL).
 * Returns 0 or -errno; *buf is NULL on failure.
 */
int prom_render(const struct kw_recording *r, const struct prom_opts *o, char **buf, size_t *len);

/* Content-Type of the exposition. */
#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif /* KW_PROM_H */
