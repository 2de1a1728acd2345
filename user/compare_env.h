/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views, private to compare.c. The header of a comparison (compare_env.c): each side
 * described, the differences of their environments, the warnings, the commands that made the
 * recordings. compare.c builds the rows and the sections, then calls this for the rest.
 */
#ifndef KW_COMPARE_ENV_H
#define KW_COMPARE_ENV_H

#include "compare_types.h"

/*
 * Fills c's sides, differences, warnings and commands from the recordings kw_compare_build() got
 * (c->n_base and c->n_new of them). After the rows: the overhead warning reads them. Returns 0
 * or -errno; kw_compare_env_free() frees what it allocated, on failure too.
 */
int kw_compare_env_build(struct kw_compare *c, const struct kw_recording *base,
			 const struct kw_recording *new, const struct kw_compare_opts *o);
void kw_compare_env_free(struct kw_compare *c);

/*
 * s is one of the comma-separated names of list, a --function or --metric value (NULL: every s
 * is); with first_word, s up to its first ' ' or '/' is too ("calls" names "calls/run").
 */
bool kw_compare_listed(const char *list, const char *s, bool first_word);

#endif /* KW_COMPARE_ENV_H */
