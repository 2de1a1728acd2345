/* SPDX-License-Identifier: GPL-2.0 */
/* `kvmwalk report`: a recording as text (<= 80 columns) or as derived JSON. Pure functions. */
#ifndef KW_REPORT_H
#define KW_REPORT_H

#include <stdio.h>

#include "record.h"

/* The probes' own cost: ns per BPF program run and the share of the measured time. */
double kw_overhead_ns_per_run(const struct kw_recording *r);
double kw_overhead_share(const struct kw_recording *r);

int kw_report_text(FILE *f, const struct kw_recording *r, const char *name);
int kw_report_json(FILE *f, const struct kw_recording *r);

#endif /* KW_REPORT_H */
