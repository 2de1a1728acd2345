/* SPDX-License-Identifier: GPL-2.0 */
/* `kvmwalk top`: one screen of per-function rates and latencies between two snapshots. Pure. */
#ifndef KW_TOP_H
#define KW_TOP_H

#include <stdio.h>

#include "record.h"

/* Prints the change from prev to cur over secs seconds; prev may be NULL (since the start). */
int kw_top_render(FILE *f, const struct kw_recording *prev, const struct kw_recording *cur,
		  double secs);

#endif /* KW_TOP_H */
