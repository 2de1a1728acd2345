/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers, under the recording model. `kvmwalk record --count FUNC[,FUNC...] --time
 * FUNC[,FUNC...]` and the -optional forms: the user-named functions asked for, as parsed. What
 * a recording holds about each is a struct kw_ufunc (record.h), its report section userfn.h's.
 * BPF side: bpf/userfn.bpf.c, a slot per function, at most KW_MAX_UFUNCS. Plain C, no libbpf:
 * unit-tested (tests/unit/test_userfn.c).
 */
#ifndef KW_USERFN_OPTS_H
#define KW_USERFN_OPTS_H

#include <stdbool.h>
#include <stddef.h>

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

#endif /* KW_USERFN_OPTS_H */
