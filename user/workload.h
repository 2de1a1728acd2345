/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorded command's own times (record --workload-times): the phases it timed itself, read
 * from what it wrote. Two kinds of writers:
 * - kvmwalk-load's --json document ("tool": "kvmwalk-load"): its phases as they are;
 * - the KVM selftests' printed times, one "LABEL: SECS.NNNNNNNNNs" line each:
 *   dirty_log_perf_test ("Populate memory time", "Enabling dirty logging time", "Iteration N
 *   dirty memory time", "Iteration N get dirty log time", "Iteration N clear dirty log time",
 *   "Disabling dirty logging time"), access_tracking_perf_test ("Populating memory : ...",
 *   "Mark memory idle (lru_gen) : ...", ...), kvm_page_table_test ("KVM_CREATE_MAPPINGS: total
 *   execution time: ..."). Their phases get kvmwalk-load's names where both time the same thing
 *   (dirty-log-enable, dirty-write, dirty-log-get, dirty-log-clear, dirty-log-disable); another
 *   line of that shape keeps its label, made a name (lower case, '-' for blanks).
 * A helper (plain C and jansson, no other kvmwalk header): unit-tested.
 */
#ifndef KW_WORKLOAD_H
#define KW_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#define KW_WL_NAME_LEN 32
/* At most this many phases are kept (kvmwalk-load --iterations 1000 has a few thousand). */
#define KW_WL_MAX_PHASES 65536

struct kw_wl_phase {
	char scenario[KW_WL_NAME_LEN]; /* kvmwalk-load's scenario, or the selftest's name */
	char phase[KW_WL_NAME_LEN];
	unsigned int iteration; /* kvmwalk-load's; a selftest's "Iteration N", else the repeat */
	uint64_t wall_ns;
};

struct kw_workload {
	char source[KW_WL_NAME_LEN]; /* "kvmwalk-load", a selftest's name, "selftest"; "": none */
	char from[16];		     /* "stdout" or "file" */
	size_t nphases;
	struct kw_wl_phase *phases;
};

/*
 * The phases of text (a kvmwalk-load JSON document, or a selftest's output) into w, which it
 * resets. 0; -ENOENT when text holds no time of a known shape (w empty, err says so); -ENOMEM.
 */
int kw_workload_parse(struct kw_workload *w, const char *text, char *err, size_t errlen);
void kw_workload_free(struct kw_workload *w);

/* The recording's "workload" object, and back (jansson: json_t). 0 or -ENOMEM. */
struct json_t;
struct json_t *kw_workload_json(const struct kw_workload *w);
int kw_workload_from_json(struct kw_workload *w, const struct json_t *o);

/* Phase i is the first of its (scenario, phase) in w: how the views list each phase once. */
int kw_workload_first(const struct kw_workload *w, size_t i);
/* The time of a phase summed over its iterations; found (any iteration) or not. */
uint64_t kw_workload_sum(const struct kw_workload *w, const char *scenario, const char *phase,
			 int *found);

#endif /* KW_WORKLOAD_H */
