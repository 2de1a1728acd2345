/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI of the user-named functions (`kvmwalk record --count FUNC --time FUNC`,
 * bpf/userfn.bpf.c): a slot per function, at most KW_MAX_UFUNCS. Statistics per slot are a
 * struct kw_ufunc_stats, trigger rows a struct kw_trig_key whose probe field is the slot, in a map
 * of their own (kw_utrigs) so that the built-in probes' rows stay as they are. The loader sizes
 * kw_ustats to the functions named and creates neither map without --count / --time.
 */
#ifndef KW_USERFN_ABI_H
#define KW_USERFN_ABI_H

#include "kvmwalk_abi.h"

/* One fentry/fexit and one kprobe/kretprobe pair of programs per slot (userfn.bpf.c). */
#define KW_MAX_UFUNCS 8
/* trigger rows of the user functions: (slot, trigger, cmd, pid, memslot_op) */
#define KW_MAX_UTRIGS 1024

/* The counts of a built-in probe (bpf/kvmwalk_abi.h) and, for --time, the duration in ns. */
struct kw_ufunc_stats {
	struct kw_probe_stats c;
	struct kw_hist dur;
};

#endif /* KW_USERFN_ABI_H */
