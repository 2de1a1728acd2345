/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. KVM's own statistics (kvmstats.h) in the report: the "KVM's own counters"
 * section, which puts their deltas beside kvmwalk's counts where both count the same thing, and
 * its JSON twin. Plain C, no libbpf: unit-tested (tests/unit/test_kvmstats.c).
 */
#ifndef KW_KVMSTATS_VIEW_H
#define KW_KVMSTATS_VIEW_H

#include <stdbool.h>
#include <stdio.h>

struct json_t;
struct kw_recording;

/*
 * kvmwalk's count of what KVM's statistic name counts, in r, or -1 when kvmwalk counts nothing
 * like it or did not attach what counts it: pf_fast (fast_page_fault returns but
 * RET_PF_INVALID), remote_tlb_flush_requests (kvm_flush_remote_tlbs calls, record --count).
 * *what (may be NULL) gets what that count is.
 */
long long kw_kvmstats_kvmwalk(const struct kw_recording *r, const char *name, const char **what);
/*
 * arm64: the range TLB flushes kvmwalk counted (kvm_tlb_flush_vmid_range, else
 * __kvm_tlb_flush_vmid_range calls), none of which KVM's statistics count; -1 when neither
 * probe was attached or on x86.
 */
long long kw_kvmstats_range_flushes(const struct kw_recording *r);

/* report: the section (nothing for a recording made without them), and its JSON twin. */
void kw_kvmstats_print(FILE *f, const struct kw_recording *r);
/* NULL when the recording has no kvm_stats */
struct json_t *kw_kvmstats_report_json(const struct kw_recording *r);

#endif /* KW_KVMSTATS_VIEW_H */
