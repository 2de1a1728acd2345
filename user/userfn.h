/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-named functions (`kvmwalk record --count FUNC[,FUNC...] --time FUNC[,FUNC...]`, and the
 * -optional forms): the requests as parsed, and what a recording holds about each (its plan,
 * calls, duration histogram with --time, and its trigger rows), with their JSON and report
 * forms. BPF side: bpf/userfn.bpf.c, a slot per function, at most KW_MAX_UFUNCS. Plain C, no
 * libbpf: unit-tested (tests/unit/test_userfn.c).
 */
#ifndef KW_USERFN_H_USER
#define KW_USERFN_H_USER

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "userfn_abi.h"

#define KW_UFUNC_NAME_LEN 64

/* One function asked for. */
struct kw_ufunc_req {
	char name[KW_UFUNC_NAME_LEN];
	bool timed;    /* --time: durations too, else only calls (--count) */
	bool optional; /* --count-optional / --time-optional: unavailable is not an error */
};

/*
 * Adds the comma-separated function names of one option to reqs[0 .. *n). A name given again
 * keeps one slot: timed if any option timed it, optional only if every option said optional.
 * Returns 0, or -EINVAL with a one-line message in err (an empty or malformed name, a name too
 * long, more than KW_MAX_UFUNCS functions).
 */
int kw_ufunc_parse(const char *list, bool timed, bool optional, struct kw_ufunc_req *reqs,
		   unsigned int *n, char *err, size_t errlen);

/* The option a request came from: "--count", "--time-optional", ... */
const char *kw_ufunc_option(const struct kw_ufunc_req *q);

struct json_t;
struct kw_recording;

/* The recording's "user_functions" array (jansson: the caller owns it), and back. */
struct json_t *kw_ufuncs_json(const struct kw_recording *r);
int kw_ufuncs_from_json(struct kw_recording *r, struct json_t *a);
/* report: the "User functions" section (nothing without user functions), and its JSON twin. */
void kw_ufuncs_print(FILE *f, const struct kw_recording *r);
struct json_t *kw_ufuncs_report_json(const struct kw_recording *r);

#endif /* KW_USERFN_H_USER */
