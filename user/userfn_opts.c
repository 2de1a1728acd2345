// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: helpers. --count / --time of record (userfn_opts.h): the user-named functions asked
 * for, parsed and checked before anything is loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "userfn_opts.h"

/* Kernel symbol characters: C identifiers plus the '.' of compiler clones (foo.isra.0). */
static bool symbol_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.';
}

const char *kw_ufunc_option(const struct kw_ufunc_req *q)
{
	return q->timed ? (q->optional ? "--time-optional" : "--time")
			: (q->optional ? "--count-optional" : "--count");
}

int kw_ufunc_parse(const char *list, bool timed, bool optional, struct kw_ufunc_req *reqs,
		   unsigned int *n, char *err, size_t errlen)
{
	const char *opt = kw_ufunc_option(&(struct kw_ufunc_req){ .timed = timed,
								   .optional = optional });
	const char *p = list;

	for (;;) {
		const char *e = strchr(p, ',') ?: p + strlen(p);
		size_t len = e - p;
		unsigned int i;

		if (!len) {
			snprintf(err, errlen, "%s: an empty function name in '%s'", opt, list);
			return -EINVAL;
		}
		if (len >= KW_UFUNC_NAME_LEN) {
			snprintf(err, errlen, "%s: function name '%.*s' is longer than %d characters",
				 opt, (int)len, p, KW_UFUNC_NAME_LEN - 1);
			return -EINVAL;
		}
		for (size_t k = 0; k < len; k++)
			if (!symbol_char(p[k]) || (!k && p[k] >= '0' && p[k] <= '9')) {
				snprintf(err, errlen,
					 "%s: '%.*s' is not a kernel function name (letters, digits, "
					 "'_' and '.')",
					 opt, (int)len, p);
				return -EINVAL;
			}
		for (i = 0; i < *n; i++)
			if (strlen(reqs[i].name) == len && !strncmp(reqs[i].name, p, len))
				break;
		if (i < *n) {
			reqs[i].timed |= timed;
			reqs[i].optional &= optional;
		} else if (*n == KW_MAX_UFUNCS) {
			snprintf(err, errlen,
				 "%s %.*s: at most %d functions with --count and --time together",
				 opt, (int)len, p, KW_MAX_UFUNCS);
			return -EINVAL;
		} else {
			snprintf(reqs[i].name, sizeof(reqs[i].name), "%.*s", (int)len, p);
			reqs[i].timed = timed;
			reqs[i].optional = optional;
			(*n)++;
		}
		if (!*e)
			return 0;
		p = e + 1;
	}
}
