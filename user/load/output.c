// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk-load's results: a list of phases, printed as a text table (80 columns) and as one JSON
 * document. Plain C on a plain struct (unit-tested).
 *
 * JSON document (key names are stable; tests/vm/cases and kvmwalk key on them):
 * {
 *   "tool": "kvmwalk-load", "version": "0.1.0", "arch": "x86_64" | "arm64",
 *   "kernel": uname release,
 *   "options": { "scenario", "vcpus", "mem_bytes" (per vCPU), "backing", "iterations",
 *                "chunk_pages", "range_bytes", "pattern", "refault" (true: invalidate's vCPUs
 *                write the range again after each madvise), "eager_split_bytes", "sparse_bytes",
 *                "enter_el1" (nested-unmap: the vCPUs ERET to vEL1), "timeout_s",
 *                with --concurrent only: "concurrent": true, "duration_s", "rate" (madvises
 *                per second, 0: back to back), "preset" (a name or null) },
 *   "status": "ok" | "error", "exit_code": N, "error": message (only when status is "error"),
 *   "phases": [ { "scenario", "phase", "iteration", "wall_ns", "start_ns",
 *                 "counts": { KEY: N, ... } } ]
 * }
 * Only the counts a phase reports are present (see load_count_names); a count that is present
 * is exact, even when it is 0.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"

const char *const load_count_names[LC_NR] = {
	[LC_PAGES_TOUCHED] = "pages_touched",
	[LC_PAGES_WRITTEN] = "pages_written",
	[LC_DIRTY_PAGES] = "dirty_pages",
	[LC_PAGES_REFAULTED] = "pages_refaulted",
	[LC_GET_IOCTLS] = "get_ioctls",
	[LC_CLEAR_IOCTLS] = "clear_ioctls",
	[LC_PAGES_CLEARED] = "pages_cleared",
	[LC_MADVISE_CALLS] = "madvise_calls",
	[LC_BYTES_INVALIDATED] = "bytes_invalidated",
	[LC_BLOCKS_2M] = "blocks_2m",
	[LC_SLOT_PAGES] = "slot_pages",
	[LC_SLOTS_ADDED] = "slots_added",
	[LC_SLOTS_DELETED] = "slots_deleted",
	[LC_SLOT_BYTES] = "slot_bytes",
	[LC_SPARSE_BYTES] = "sparse_bytes",
	[LC_NESTED_MMUS] = "nested_mmus",
	[LC_IPA_BITS] = "ipa_bits",
	[LC_PAGES_INVALIDATED] = "pages_invalidated",
	[LC_PASSES] = "passes",
	[LC_HOST_FAULTS] = "vcpu_host_faults",
	[LC_KVM_PF_TAKEN] = "kvm_pf_taken",
};
_Static_assert(LC_NR <= 32, "load_counts.set holds a bit per count");

int load_exit_code;
char load_error[256];

/* Prints "kvmwalk-load: MESSAGE" once, where the failure happens; the first failure's code wins. */
int load_fail(int code, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "kvmwalk-load: %s\n", msg);
	if (!load_exit_code) {
		load_exit_code = code;
		snprintf(load_error, sizeof(load_error), "%s", msg);
	}
	return -EIO;
}

int results_init(struct load_results *r, const struct load_opts *o)
{
	memset(r, 0, sizeof(*r));
	r->opts = o;
#if defined(__x86_64__)
	r->arch = "x86_64";
#elif defined(__aarch64__)
	r->arch = "arm64";
#else
	r->arch = "unknown";
#endif
	return 0;
}

void results_free(struct load_results *r)
{
	if (!r)
		return;
	free(r->phases);
	r->phases = NULL;
	r->nr = r->cap = 0;
}

struct load_phase *results_add(struct load_results *r, int scenario, const char *phase,
			       unsigned int iteration)
{
	struct load_phase *p;

	if (r->nr == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;

		p = realloc(r->phases, cap * sizeof(*p));
		if (!p)
			return NULL;
		r->phases = p;
		r->cap = cap;
	}
	p = &r->phases[r->nr++];
	memset(p, 0, sizeof(*p));
	p->scenario = scenario;
	p->phase = phase;
	p->iteration = iteration;
	return p;
}

/*
 * One line per phase and count; a phase with several counts continues on lines with only the
 * count columns. 78 columns.
 */
void results_text(const struct load_results *r, FILE *f)
{
	const struct load_opts *o = r->opts;
	char mem[32], range[32], sparse[32], eager[32];
	size_t i;
	int k;

	format_size(o->mem, mem, sizeof(mem));
	format_size(o->range, range, sizeof(range));
	format_size(o->sparse, sparse, sizeof(sparse));
	format_size(o->eager_split, eager, sizeof(eager));
	fprintf(f, "kvmwalk-load %s  arch %s  kernel %s\n", KW_VERSION, r->arch, r->kernel);
	fprintf(f, "vcpus %u  mem %s/vCPU  backing %s  iterations %u  timeout %us\n", o->vcpus, mem,
		backing_name(o->backing), o->iterations, o->timeout);
	fprintf(f, "chunk-pages %" PRIu64 "  range %s  pattern %s  refault %s\n", o->chunk_pages,
		range, pattern_name(o->pattern), o->refault ? "yes" : "no");
	fprintf(f, "eager-split %s  sparse %s  enter-el1 %s\n", o->eager_split ? eager : "off",
		sparse, o->enter_el1 ? "yes" : "no");
	if (o->concurrent)
		fprintf(f, "concurrent yes  duration %us  rate %u/s  preset %s\n", o->duration,
			o->rate, o->preset ? o->preset : "none");
	fprintf(f, "\n%-15s %-17s %4s %9s %-17s %12s\n", "scenario", "phase", "iter", "wall ms",
		"count", "value");
	for (i = 0; i < r->nr; i++) {
		const struct load_phase *p = &r->phases[i];
		bool first = true;

		for (k = 0; k < LC_NR || first; k++) {
			char ms[32];

			if (k < LC_NR && !(p->counts.set & (1U << k)))
				continue;
			if (first) {
				snprintf(ms, sizeof(ms), "%.3f", p->wall_ns / 1e6);
				fprintf(f, "%-15s %-17s %4u %9s", scenario_name(p->scenario),
					p->phase, p->iteration, ms);
				first = false;
			} else {
				fprintf(f, "%-15s %-17s %4s %9s", "", "", "", "");
			}
			if (k < LC_NR)
				fprintf(f, " %-17s %12" PRIu64, load_count_names[k],
					p->counts.v[k]);
			fputc('\n', f);
		}
	}
	if (r->status)
		fprintf(f, "\nerror (exit %d): %s\n", r->status, r->error);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void results_json(const struct load_results *r, FILE *f)
{
	const struct load_opts *o = r->opts;
	size_t i;
	int k;

	fprintf(f, "{\n  \"tool\": \"kvmwalk-load\",\n  \"version\": \"%s\",\n  \"arch\": ",
		KW_VERSION);
	json_str(f, r->arch);
	fprintf(f, ",\n  \"kernel\": ");
	json_str(f, r->kernel);
	fprintf(f,
		",\n  \"options\": {\n    \"scenario\": \"%s\",\n    \"vcpus\": %u,\n"
		"    \"mem_bytes\": %" PRIu64 ",\n    \"backing\": \"%s\",\n"
		"    \"iterations\": %u,\n    \"chunk_pages\": %" PRIu64 ",\n"
		"    \"range_bytes\": %" PRIu64 ",\n    \"pattern\": \"%s\",\n"
		"    \"refault\": %s,\n"
		"    \"eager_split_bytes\": %" PRIu64 ",\n    \"sparse_bytes\": %" PRIu64 ",\n"
		"    \"enter_el1\": %s,\n    \"timeout_s\": %u",
		scenario_name(o->scenario), o->vcpus, o->mem, backing_name(o->backing),
		o->iterations, o->chunk_pages, o->range, pattern_name(o->pattern),
		o->refault ? "true" : "false", o->eager_split, o->sparse,
		o->enter_el1 ? "true" : "false", o->timeout);
	/* only with --concurrent: the documents of the other scenarios stay as they were */
	if (o->concurrent) {
		fprintf(f, ",\n    \"concurrent\": true,\n    \"duration_s\": %u,\n"
			   "    \"rate\": %u,\n    \"preset\": ",
			o->duration, o->rate);
		if (o->preset)
			json_str(f, o->preset);
		else
			fprintf(f, "null");
	}
	fprintf(f, "\n  },\n");
	fprintf(f, "  \"status\": \"%s\",\n  \"exit_code\": %d,\n", r->status ? "error" : "ok",
		r->status);
	if (r->status) {
		fprintf(f, "  \"error\": ");
		json_str(f, r->error);
		fprintf(f, ",\n");
	}
	fprintf(f, "  \"phases\": [");
	for (i = 0; i < r->nr; i++) {
		const struct load_phase *p = &r->phases[i];
		const char *sep = "";

		fprintf(f, "%s\n    {\"scenario\": \"%s\", \"phase\": ", i ? "," : "",
			scenario_name(p->scenario));
		json_str(f, p->phase);
		fprintf(f,
			", \"iteration\": %u, \"wall_ns\": %" PRIu64 ", \"start_ns\": %" PRIu64
			", \"counts\": {",
			p->iteration, p->wall_ns, p->start_ns);
		for (k = 0; k < LC_NR; k++) {
			if (!(p->counts.set & (1U << k)))
				continue;
			fprintf(f, "%s\"%s\": %" PRIu64, sep, load_count_names[k], p->counts.v[k]);
			sep = ", ";
		}
		fprintf(f, "}}");
	}
	fprintf(f, "%s]\n}\n", r->nr ? "\n  " : "");
}
