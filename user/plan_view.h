/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk probes`: the attach plan, one row per probe of this arch, as text or JSON
 * (plan_view.c). Layer: views. Pure: a plan in, text out.
 */
#ifndef KW_PLAN_VIEW_H
#define KW_PLAN_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

/*
 * Text: a row per probe (name, mechanism, what it measures, the function or tracepoint when it
 * is another), each distinct reason once under the table, numbered, the rows pointing at theirs
 * ("unavailable [1]"), and last the verdict: what kvmwalk measures on this kernel and what to do
 * about the rest. JSON: an array of {name, family, mechanism, function, reason, what}.
 */
int kw_plan_print(FILE *f, const struct kw_plan *plan, const char *arch, bool json);

#endif /* KW_PLAN_VIEW_H */
