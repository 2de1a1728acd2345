/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers. The function table of the sampled mode (bpf/sample_abi.h): which kernel
 * functions are "work" (what a sample is doing: a walker, a flush, a zap, a fault handler) and
 * which are "triggers" (on whose behalf: an ioctl, an MMU notifier, a fault entry, a teardown,
 * a nested unmap), per arch; the sorted table of their address ranges built from /proc/kallsyms
 * (a function ends where the next text symbol starts); and the classification of a stack, the
 * same as the BPF program's, so that it can be unit-tested. No libbpf here.
 */
#ifndef KW_SAMPLE_FUNCS_H
#define KW_SAMPLE_FUNCS_H

#include <stdbool.h>

#include "ksyms.h"
#include "sample_abi.h"

/* what labels: [0] is "(other)", a trigger frame without a work frame */
#define KW_SAMPLE_MAX_WHATS 64
#define KW_SAMPLE_LABEL_LEN 40

struct kw_sample_fdef {
	const char *func;
	const char *what;		   /* a work function: its label (often its name), else NULL */
	enum kw_sample_trigger trigger; /* a trigger function, else KW_ST_NONE */
};

struct kw_sample_table {
	struct kw_sample_func funcs[KW_SAMPLE_MAX_FUNCS]; /* sorted by start */
	unsigned int n;
	char whats[KW_SAMPLE_MAX_WHATS][KW_SAMPLE_LABEL_LEN];
	unsigned int nwhats;
	/* catalogue functions this kernel's kallsyms lacks (static functions inlined, older kernels) */
	unsigned int missing;
	/* functions left out: the table was full (never with the built-in catalogues) */
	unsigned int dropped;
};

extern const char *const kw_sample_trigger_names[KW_NR_SAMPLE_TRIGGERS];

/* The built-in catalogue of arch ("arm64", "x86"), ended by a NULL func; NULL for another arch. */
const struct kw_sample_fdef *kw_sample_fdefs(const char *arch);
/* Builds t from the catalogue defs and the symbols ks. 0, or -ENOENT when no function matched. */
int kw_sample_table_build(struct kw_sample_table *t, const struct kw_sample_fdef *defs,
			  const struct ksyms *ks);
/* The index in t->funcs of the function holding ip, -1 if none (the BPF program's search). */
int kw_sample_lookup(const struct kw_sample_table *t, unsigned long long ip);
/* Classifies a stack, innermost frame first, as bpf/sample.bpf.c does; false: no KVM frame. */
bool kw_sample_classify(const struct kw_sample_table *t, const unsigned long long *ips,
			unsigned int n, unsigned int *what, unsigned int *trigger);

#endif /* KW_SAMPLE_FUNCS_H */
