/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The options of every command that attaches probes (probes, record, top, serve), defined once:
 * an argp child that fills a struct loader_opts. A parent names kw_probe_children in its struct
 * argp and passes its loader_opts in its ARGP_KEY_INIT:
 *
 *	case ARGP_KEY_INIT:
 *		state->child_inputs[0] = &opts->lo;
 *
 * The child sets the defaults (--attach auto, every probe, visits on) before any option is
 * parsed. A parent whose default set is another one (serve: the timing set) sets
 * opts->lo.default_set there, and a parent that samples by default (serve) opts->lo.sample_hz:
 * its ARGP_KEY_INIT runs before the child's.
 */
#ifndef KW_PROBE_OPTS_H
#define KW_PROBE_OPTS_H

#include <argp.h>

#include "loader_opts.h"

extern const struct argp kw_probe_argp;
extern const struct argp_child kw_probe_children[];

/* The end of the "Exit status:" line of a command that attaches probes, after its 0, 1 and 2. */
#define KW_EXIT_STATUS_PROBES                                                                      \
	"3 not root / no CAP_BPF+CAP_PERFMON; 4 no kernel BTF; 5 not a KVM host; 6 a --probe is "  \
	"unavailable."

#endif /* KW_PROBE_OPTS_H */
