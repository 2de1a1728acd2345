/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-named functions (`kvmwalk record --count FUNC[,FUNC...] --time FUNC[,FUNC...]`, and the
 * -optional forms): what a recording holds about each (its plan, calls, duration histogram with
 * --time, and its trigger rows), with their JSON and report forms; the requests as parsed are
 * userfn_opts.h's. BPF side: bpf/userfn.bpf.c. Plain C, no libbpf: unit-tested
 * (tests/unit/test_userfn.c).
 */
#ifndef KW_USERFN_H_USER
#define KW_USERFN_H_USER

#include <stdio.h>

#include "userfn_opts.h"

struct json_t;
struct kw_recording;

/* The recording's "user_functions" array (jansson: the caller owns it), and back. */
struct json_t *kw_ufuncs_json(const struct kw_recording *r);
int kw_ufuncs_from_json(struct kw_recording *r, struct json_t *a);
/* report: the "User functions" section (nothing without user functions), and its JSON twin. */
void kw_ufuncs_print(FILE *f, const struct kw_recording *r);
struct json_t *kw_ufuncs_report_json(const struct kw_recording *r);

#endif /* KW_USERFN_H_USER */
