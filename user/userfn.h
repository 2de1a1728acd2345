/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. User-named functions (`kvmwalk record --count FUNC --time FUNC`) in the report.
 * The requests as parsed are userfn_opts.h's; what a recording holds about each (struct
 * kw_ufunc) and its JSON are record.h's. Plain C, no libbpf: unit-tested
 * (tests/unit/test_userfn.c).
 */
#ifndef KW_USERFN_H
#define KW_USERFN_H

#include <stdio.h>

struct json_t;
struct kw_recording;

/* report: the "User functions" section (nothing without user functions), and its JSON twin. */
void kw_ufuncs_print(FILE *f, const struct kw_recording *r);
struct json_t *kw_ufuncs_report_json(const struct kw_recording *r);

#endif /* KW_USERFN_H */
