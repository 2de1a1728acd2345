/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: probing. The sampled mode's loader and map reader (bpf/sample.bpf.c): builds the
 * function table from /proc/kallsyms, loads the program with it, opens a software CPU clock
 * perf event at hz on every online CPU and attaches the program to each; reads the counts into
 * a recording's sampled section. Independent of the per-call probes' loader: either can run
 * alone or both together.
 */
#ifndef KW_SAMPLER_H
#define KW_SAMPLER_H

#include <stdbool.h>

#include "record.h"

struct sampler;

/*
 * Loads and attaches at hz samples per second and CPU; stats: turn BPF run-time statistics on
 * (the program's own cost). NULL with *code a KW_EXIT_* and the reason printed.
 */
struct sampler *sampler__open(unsigned int hz, bool stats, bool verbose, int *code);
/* Reads the names of the processes seen so far (they may exit before the end); cheap. */
void sampler__poll(struct sampler *s);
/*
 * From now on, at each collect, the rows of the processes that have exited (reaped) leave the
 * kernel's map and are kept in user space by what, trigger and VM name, as pid 0 rows that
 * carry the name (serve: the map and the names stay bounded by the live processes however
 * many VMs come and go; record keeps every process's rows under its own pid).
 */
void sampler__fold_exited(struct sampler *s);
/* The counts so far into r->sampled, and r->vms entries for its processes. 0 or -errno. */
int sampler__collect(struct sampler *s, struct kw_recording *r);
/* Detaches and frees; accepts NULL. */
void sampler__destroy(struct sampler *s);

#endif /* KW_SAMPLER_H */
