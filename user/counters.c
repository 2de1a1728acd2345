// SPDX-License-Identifier: GPL-2.0
/*
 * The counter catalogue and the layouts that show counters (counters.h says what each table is
 * and how a counter is added). Layer: the recording model (data only).
 */
#include <string.h>

#include "counters.h"

/* How the tables below name a counter, a probe, and a set of probes (KW_CREF(), KW_PREF()). */
#define C(c) KW_CREF(KW_C_##c)
#define P(p) KW_PREF(KW_P_##p)
#define BIT(p) KW_PROBE_BIT(KW_P_##p)
/* either range TLB flush probe: kvm_tlb_flush_vmid_range or __kvm_tlb_flush_vmid_range (VHE) */
#define FLUSH_PROBES (BIT(TLB_FLUSH_RANGE) | BIT(HYP_FLUSH_RANGE))
/* the aging calls: x86 age and test-age, arm64 test_clear_young (both kinds) */
#define AGE_PROBES (BIT(TDP_AGE) | BIT(TDP_TEST_AGE) | BIT(S2_AGE))
#define STR_(x) #x
#define STR(x) STR_(x)

/* The counters by enclosing operation (enum kw_encl) and the return codes of fast_page_fault. */
/* clang-format off */
#define ENCL(e, n)							\
	[KW_C_FLUSH_ENCL + (e)] = {					\
		.name = "flushes_in_" n,				\
		.help = "Range TLB flushes inside " n " operations.",	\
		.compare = true,					\
	},								\
	[KW_C_FLUSH_ENCL_PAGES + (e)] = {				\
		.name = "flush_pages_in_" n,				\
		.help = "Pages named by the range TLB flushes of " n " operations.", \
		.compare = true,					\
	}
#define PF_RET(i, n)							\
	[KW_C_PF_RET + (i)] = {						\
		.name = "fast_pf_ret_" n,				\
		.help = "fast_page_fault returns of value " n ".",	\
	}
/* clang-format on */

const struct kw_counter_desc kw_counters[KW_NR_COUNTERS] = {
	/* what kvmwalk lost */
	[KW_C_TASK_FULL] = { .name = "task_map_full",
			     .help = "Entries not recorded: no memory for the task state.",
			     .compare = true,
			     .lost = "no task memory" },
	[KW_C_DEPTH_OVERFLOW] = { .name = "walk_depth_overflow",
				  .help = "kvm_pgtable_walk calls nested deeper than kvmwalk "
					  "tracks.",
				  .compare = true,
				  .lost = "walk depth overflow" },
	[KW_C_CB_FULL] = { .name = "callback_map_full",
			   .help = "Walks not counted by callback: the map was full.",
			   .compare = true,
			   .lost = "callback map full" },
	[KW_C_TRIG_FULL] = { .name = "trigger_map_full",
			     .help = "Calls not counted by trigger: the map was full.",
			     .compare = true,
			     .lost = "trigger map full" },
	[KW_C_UNDECIDED_FULL] = { .name = "undecided_full",
				  .help = "--vm: program runs of processes not yet named, not "
					  "counted.",
				  .compare = true,
				  .lost = "--vm: runs of processes not yet named, beyond the " STR(
					  KW_UNDECIDED_SIZE) "-entry map",
				  .lost_own_line = true },
	/* arm64: kvm_pgtable_stage2_unmap and the range TLB flushes */
	[KW_C_UNMAP_CALLS] = { .name = "unmap_calls",
			       .help = "kvm_pgtable_stage2_unmap calls that returned.",
			       .top = "unmaps",
			       .top_arch = "arm64" },
	[KW_C_UNMAP_CLEARED] = { .name = "unmap_leaves_cleared",
				 .help = "Valid leaf entries cleared by "
					 "kvm_pgtable_stage2_unmap." },
	[KW_C_UNMAP_EMPTY] = { .name = "unmap_empty_calls",
			       .help = "kvm_pgtable_stage2_unmap calls that cleared no valid "
				       "leaf." },
	[KW_C_UNMAP_FLUSHES] = { .name = "unmap_flushes",
				 .help = "Range TLB flushes inside kvm_pgtable_stage2_unmap." },
	[KW_C_EMPTY_FLUSHES] = { .name = "empty_flushes",
				 .help = "Range TLB flushes of kvm_pgtable_stage2_unmap calls that "
					 "cleared no leaf.",
				 .top = "empty flushes",
				 .top_arch = "arm64" },
	[KW_C_UNMAP_FLUSH_NS] = { .name = "unmap_flush_ns",
				  .help = "Time in the range TLB flushes inside "
					  "kvm_pgtable_stage2_unmap.",
				  .ns = true,
				  .compare = true },
	[KW_C_EMPTY_FLUSH_NS] = { .name = "empty_flush_ns",
				  .help = "Time in the empty ones of those flushes.",
				  .ns = true,
				  .compare = true },
	ENCL(KW_E_UNMAP, "unmap"),
	ENCL(KW_E_WRPROTECT, "wrprotect"),
	ENCL(KW_E_SPLIT, "split"),
	ENCL(KW_E_OTHER, "other"),
	/* arm64 NV: kvm_nested_s2_unmap */
	[KW_C_NESTED_ACTIVE] = { .name = "nested_unmaps",
				 .help = "kvm_nested_s2_unmap calls that unmapped a valid nested "
					 "MMU.",
				 .compare = true },
	[KW_C_NESTED_ACTIVE_NS] = { .name = "nested_unmap_ns",
				    .help = "Time in those calls.",
				    .ns = true,
				    .compare = true },
	[KW_C_NESTED_UNMAPS] = { .name = "nested_unmap_unmaps",
				 .help = "kvm_pgtable_stage2_unmap calls inside "
					 "kvm_nested_s2_unmap.",
				 .compare = true },
	[KW_C_NESTED_CLEARED] = { .name = "nested_unmap_leaves_cleared",
				  .help = "Valid leaves cleared by those unmap calls.",
				  .compare = true },
	[KW_C_NESTED_EMPTY] = { .name = "nested_unmap_empty_unmaps",
				.help = "Those unmap calls that cleared no leaf.",
				.compare = true },
	[KW_C_NESTED_FLUSHES] = { .name = "nested_unmap_flushes",
				  .help = "Range TLB flushes inside kvm_nested_s2_unmap.",
				  .compare = true },
	[KW_C_NESTED_EMPTY_FLUSHES] = { .name = "nested_unmap_empty_flushes",
					.help = "Those flushes issued by unmap calls that cleared "
						"no leaf.",
					.compare = true },
	[KW_C_NESTED_FLUSH_NS] = { .name = "nested_unmap_flush_ns",
				   .help = "Time in those flushes.",
				   .ns = true,
				   .compare = true },
	[KW_C_NESTED_EMPTY_FLUSH_NS] = { .name = "nested_unmap_empty_flush_ns",
					 .help = "Time in the empty ones of those flushes.",
					 .ns = true,
					 .compare = true },
	/* x86: the TDP MMU */
	[KW_C_ZAP_GFNS] = { .name = "zap_gfns",
			    .help = "Guest frames in the ranges given to tdp_mmu_zap_leafs.",
			    .compare = true },
	[KW_C_ZAP_ZAPPED] = { .name = "zap_leaves_zapped",
			      .help = "Present leaf SPTEs zapped inside tdp_mmu_zap_leafs.",
			      .compare = true },
	[KW_C_SPTE_CHANGES] = { .name = "spte_changes",
				.help = "kvmmmu:kvm_tdp_mmu_spte_changed events seen.",
				.compare = true },
	[KW_C_ZAP_VISITS_4K] = { .name = "zap_4k_visits",
				 .help = "4 KiB entries visited by tdp_mmu_zap_leafs "
					 "(tdp_iter_next).",
				 .compare = true },
	[KW_C_ZAP_YIELDS] = { .name = "zap_yields",
			      .help = "tdp_mmu_zap_leafs iterations that yielded mmu_lock.",
			      .compare = true },
	[KW_C_ZAP_CALLS] = { .name = "zap_calls",
			     .help = "tdp_mmu_zap_leafs calls seen from entry to exit." },
	[KW_C_ZAP_EMPTY] = { .name = "zap_empty_calls",
			     .help = "Of those, the zaps that zapped no present leaf." },
	[KW_C_ZAP_EMPTY_VISITS_4K] = { .name = "zap_empty_4k_visits",
				       .help = "4 KiB entries visited by the zaps that zapped "
					       "nothing." },
	[KW_C_ZAP_EMPTY_NS] = { .name = "zap_empty_ns",
				.help = "Time in the zaps that zapped nothing.",
				.ns = true },
	[KW_C_CTX_HEALED] = { .name = "stale_contexts",
			      .help = "Contexts (ioctl, fault, notifier, teardown) still open at a "
				      "boundary that proves them over (their exit run was lost), "
				      "ended there.",
			      .compare = true,
			      .lost = "stale contexts ended" },
	/* aging: the walkers of the MMU notifier's young callbacks */
	[KW_C_AGE_CALLS] = { .name = "age_calls",
			     .help = "Aging calls that clear what they find young (x86 "
				     "kvm_tdp_mmu_age_gfn_range, arm64 test_clear_young with mkold)." },
	[KW_C_AGE_NS] = { .name = "age_ns", .help = "Time in those calls.", .ns = true },
	[KW_C_AGE_YOUNG_CALLS] = { .name = "age_young_calls",
				   .help = "Of them, the calls that found a young entry." },
	[KW_C_AGE_VISITS] = { .name = "age_visits",
			      .help = "Entries their walks visited (x86: tdp_iter_next steps, arm64: "
				      "stage2_age_walker visits)." },
	[KW_C_AGE_YOUNG] = { .name = "age_young",
			     .help = "arm64: of those visits, valid leaves with the Access Flag "
				     "set." },
	[KW_C_AGE_OLD] = { .name = "age_made_old",
			   .help = "Entries those calls made old (Accessed bit or Access Flag "
				   "cleared)." },
	[KW_C_TEST_AGE_CALLS] = { .name = "test_age_calls",
				  .help = "Aging calls that only test (x86 kvm_tdp_mmu_test_age_gfn, "
					  "arm64 test_clear_young without mkold)." },
	[KW_C_TEST_AGE_NS] = { .name = "test_age_ns", .help = "Time in those calls.", .ns = true },
	[KW_C_TEST_AGE_YOUNG_CALLS] = { .name = "test_age_young_calls",
					.help = "Of them, the calls that found a young entry." },
	[KW_C_TEST_AGE_VISITS] = { .name = "test_age_visits",
				   .help = "Entries their walks visited (as age_visits)." },
	[KW_C_TEST_AGE_YOUNG] = { .name = "test_age_young",
				  .help = "arm64: of those visits, valid leaves with the Access Flag "
					  "set." },
	PF_RET(0, "0"),
	PF_RET(1, "1"),
	PF_RET(2, "2"),
	PF_RET(3, "3"),
	PF_RET(4, "4"),
	PF_RET(5, "5"),
	PF_RET(6, "6"),
	PF_RET(7, "other"),
};

int kw_counter_by_name(const char *name)
{
	for (int i = 0; i < KW_NR_COUNTERS; i++)
		if (kw_counters[i].name && !strcmp(kw_counters[i].name, name))
			return i;
	return -1;
}

/* ---- Prometheus: the families made of counters, in exposition order ------------------------ */

#define UNMAP_FLUSH_NEED .need = BIT(S2_UNMAP), .need_any = FLUSH_PROBES
#define NESTED_FLUSH_NEED .need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP), .need_any = FLUSH_PROBES

const struct kw_prom_counter_family kw_prom_counter_families[] = {
	/* arm64: stage-2 unmaps (series only where kvm_pgtable_stage2_unmap attached) */
	{ .name = "kvmwalk_unmap_calls_total",
	  .help = "kvm_pgtable_stage2_unmap calls that returned.",
	  .need = BIT(S2_UNMAP),
	  .s = { { .c = C(UNMAP_CALLS) } } },
	{ .name = "kvmwalk_unmap_empty_calls_total",
	  .help = "kvm_pgtable_stage2_unmap calls that cleared no valid leaf.",
	  .need = BIT(S2_UNMAP),
	  .s = { { .c = C(UNMAP_EMPTY) } } },
	{ .name = "kvmwalk_unmap_leaves_cleared_total",
	  .help = "Valid leaf entries cleared by kvm_pgtable_stage2_unmap.",
	  .need = BIT(S2_UNMAP),
	  .s = { { .c = C(UNMAP_CLEARED) } } },
	{ .name = "kvmwalk_unmap_call_leaves_cleared",
	  .help = "Valid leaf entries cleared per kvm_pgtable_stage2_unmap call.",
	  .kind = KW_PF_HIST_LEAVES,
	  .need = BIT(S2_UNMAP) },
	/* the flush counters come from the range TLB flush probes */
	{ .name = "kvmwalk_tlb_flushes_total",
	  .help = "Range TLB flushes by the stage-2 operation that issued them (call).",
	  .kind = KW_PF_BY_ENCL,
	  UNMAP_FLUSH_NEED,
	  .base = C(FLUSH_ENCL) },
	{ .name = "kvmwalk_tlb_flush_pages_total",
	  .help = "Pages named by range TLB flushes, by the operation that issued them (call).",
	  .kind = KW_PF_BY_ENCL,
	  UNMAP_FLUSH_NEED,
	  .base = C(FLUSH_ENCL_PAGES) },
	{ .name = "kvmwalk_unmap_tlb_flushes_total",
	  .help = "Range TLB flushes inside kvm_pgtable_stage2_unmap; empty=\"true\": the unmap "
		  "call "
		  "cleared no leaf, so the flush invalidated nothing.",
	  UNMAP_FLUSH_NEED,
	  .s = { { .label = "empty",
		   .value = "false",
		   .c = C(UNMAP_FLUSHES),
		   .minus = C(EMPTY_FLUSHES) },
		 { .label = "empty", .value = "true", .c = C(EMPTY_FLUSHES) } } },
	{ .name = "kvmwalk_unmap_tlb_flush_seconds_total",
	  .help = "Time in range TLB flushes inside kvm_pgtable_stage2_unmap, empty or not.",
	  .seconds = true,
	  UNMAP_FLUSH_NEED,
	  .s = { { .label = "empty",
		   .value = "false",
		   .c = C(UNMAP_FLUSH_NS),
		   .minus = C(EMPTY_FLUSH_NS) },
		 { .label = "empty", .value = "true", .c = C(EMPTY_FLUSH_NS) } } },
	/*
	 * kvm_nested_s2_unmap (arm64 NV): its calls and time are in kvmwalk_function_*; these are
	 * the stage-2 unmap calls and range flushes inside it (a subset of the kvmwalk_unmap_*).
	 */
	{ .name = "kvmwalk_nested_unmaps_total",
	  .help = "kvm_nested_s2_unmap calls that unmapped at least one valid nested MMU (the "
		  "other "
		  "calls, one per MMU notifier of any VM, return at once).",
	  /* a call is told apart by the unmap calls it made: without their probe, no series */
	  .need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP),
	  .s = { { .c = C(NESTED_ACTIVE) } } },
	{ .name = "kvmwalk_nested_unmap_seconds_total",
	  .help = "Time in the kvm_nested_s2_unmap calls that unmapped a nested MMU.",
	  .seconds = true,
	  .need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP),
	  .s = { { .c = C(NESTED_ACTIVE_NS) } } },
	{ .name = "kvmwalk_nested_unmap_unmap_calls_total",
	  .help = "kvm_pgtable_stage2_unmap calls inside kvm_nested_s2_unmap (one per 1 GiB of "
		  "each valid nested MMU); empty=\"true\": the call cleared no leaf.",
	  .need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP),
	  .s = { { .label = "empty",
		   .value = "false",
		   .c = C(NESTED_UNMAPS),
		   .minus = C(NESTED_EMPTY) },
		 { .label = "empty", .value = "true", .c = C(NESTED_EMPTY) } } },
	{ .name = "kvmwalk_nested_unmap_leaves_cleared_total",
	  .help = "Valid leaf entries cleared by the unmap calls inside kvm_nested_s2_unmap.",
	  .need = BIT(NESTED_UNMAP) | BIT(S2_UNMAP),
	  .s = { { .c = C(NESTED_CLEARED) } } },
	{ .name = "kvmwalk_nested_unmap_tlb_flushes_total",
	  .help = "Range TLB flushes inside kvm_nested_s2_unmap; empty=\"true\": issued by an "
		  "unmap "
		  "call that cleared no leaf.",
	  NESTED_FLUSH_NEED,
	  .s = { { .label = "empty",
		   .value = "false",
		   .c = C(NESTED_FLUSHES),
		   .minus = C(NESTED_EMPTY_FLUSHES) },
		 { .label = "empty", .value = "true", .c = C(NESTED_EMPTY_FLUSHES) } } },
	{ .name = "kvmwalk_nested_unmap_tlb_flush_seconds_total",
	  .help = "Time in range TLB flushes inside kvm_nested_s2_unmap, empty or not.",
	  .seconds = true,
	  NESTED_FLUSH_NEED,
	  .s = { { .label = "empty",
		   .value = "false",
		   .c = C(NESTED_FLUSH_NS),
		   .minus = C(NESTED_EMPTY_FLUSH_NS) },
		 { .label = "empty", .value = "true", .c = C(NESTED_EMPTY_FLUSH_NS) } } },
	/* x86: the TDP MMU */
	{ .name = "kvmwalk_zap_range_pages_total",
	  .help = "Guest frames in the ranges given to tdp_mmu_zap_leafs.",
	  .need = BIT(TDP_ZAP_LEAFS),
	  .s = { { .c = C(ZAP_GFNS) } } },
	{ .name = "kvmwalk_zap_leaves_zapped_total",
	  .help = "Present leaf SPTEs zapped inside tdp_mmu_zap_leafs.",
	  .need = BIT(TDP_ZAP_LEAFS),
	  .s = { { .c = C(ZAP_ZAPPED) } } },
	{ .name = "kvmwalk_zap_4k_visits_total",
	  .help = "4 KiB entries visited by tdp_mmu_zap_leafs (tdp_iter_next).",
	  .need = BIT(TDP_ZAP_LEAFS) | BIT(TDP_ITER_NEXT),
	  .s = { { .c = C(ZAP_VISITS_4K) } } },
	{ .name = "kvmwalk_zap_yields_total",
	  .help = "tdp_mmu_zap_leafs iterations that yielded mmu_lock.",
	  .need = BIT(TDP_ZAP_LEAFS) | BIT(TDP_ITER_NEXT),
	  .s = { { .c = C(ZAP_YIELDS) } } },
	{ .name = "kvmwalk_spte_changes_total",
	  .help = "kvmmmu:kvm_tdp_mmu_spte_changed events seen.",
	  .need = BIT(SPTE_CHANGED),
	  .s = { { .c = C(SPTE_CHANGES) } } },
	{ .name = "kvmwalk_fast_page_faults_total",
	  .help = "fast_page_fault returns by outcome (RET_PF_* name from the kvm module's BTF).",
	  .kind = KW_PF_BY_PF_RET,
	  .need = BIT(FAST_PF),
	  .base = C(PF_RET) },
	/* aging (both arches): the age and test-age walks of the MMU notifier's young callbacks */
	{ .name = "kvmwalk_aging_calls_total",
	  .help = "Aging walks by call: age (clear what is young) or test_age (only look); x86 "
		  "kvm_tdp_mmu_{age_gfn_range,test_age_gfn}, arm64 kvm_pgtable_stage2_test_clear_young.",
	  .need_any = AGE_PROBES,
	  .s = { { .label = "call", .value = "age", .c = C(AGE_CALLS) },
		 { .label = "call", .value = "test_age", .c = C(TEST_AGE_CALLS) } } },
	{ .name = "kvmwalk_aging_young_calls_total",
	  .help = "Aging walks that found a young entry, by call.",
	  .need_any = AGE_PROBES,
	  .s = { { .label = "call", .value = "age", .c = C(AGE_YOUNG_CALLS) },
		 { .label = "call", .value = "test_age", .c = C(TEST_AGE_YOUNG_CALLS) } } },
	{ .name = "kvmwalk_aging_seconds_total",
	  .help = "Time in aging walks, by call.",
	  .seconds = true,
	  .need_any = AGE_PROBES,
	  .s = { { .label = "call", .value = "age", .c = C(AGE_NS) },
		 { .label = "call", .value = "test_age", .c = C(TEST_AGE_NS) } } },
	{ .name = "kvmwalk_aging_visits_total",
	  .help = "Entries visited by aging walks, by call (x86: TDP iterator steps, arm64: "
		  "stage2_age_walker leaf visits).",
	  .need_any = BIT(TDP_ITER_NEXT) | BIT(AGE_WALKER),
	  .s = { { .label = "call", .value = "age", .c = C(AGE_VISITS) },
		 { .label = "call", .value = "test_age", .c = C(TEST_AGE_VISITS) } } },
	{ .name = "kvmwalk_aging_made_old_total",
	  .help = "Entries aging walks made old (Accessed bit or Access Flag cleared).",
	  .need_any = BIT(SPTE_CHANGED) | BIT(AGE_WALKER),
	  .s = { { .c = C(AGE_OLD) } } },
	{ .name = "kvmwalk_aging_young_entries_total",
	  .help = "arm64: valid leaves aging walks found with the Access Flag set, by call.",
	  .need = BIT(AGE_WALKER),
	  .s = { { .label = "call", .value = "age", .c = C(AGE_YOUNG) },
		 { .label = "call", .value = "test_age", .c = C(TEST_AGE_YOUNG) } } },
	/* both: what kvmwalk lost */
	{ .name = "kvmwalk_dropped_events_total",
	  .help = "Events the BPF programs could not record, by reason (a bounded map was full, "
		  "walks nested too deep).",
	  .s = { { .label = "reason", .value = "task_map_full", .c = C(TASK_FULL) },
		 { .label = "reason", .value = "walk_depth_overflow", .c = C(DEPTH_OVERFLOW) },
		 { .label = "reason", .value = "callback_map_full", .c = C(CB_FULL) },
		 { .label = "reason", .value = "trigger_map_full", .c = C(TRIG_FULL) } } },
	{ .name = "kvmwalk_stale_contexts_total",
	  .help = "Trigger contexts (ioctl, fault, notifier, teardown) still open at a boundary "
		  "that proves them over, because a run of their exit was lost; kvmwalk ended them "
		  "there, so later calls are not filed under them.",
	  .s = { { .c = C(CTX_HEALED) } } },
	{ .name = NULL },
};

/* ---- report sections, in report order -------------------------------------------------------- */

const struct kw_report_section kw_report_sections[] = {
	{
		.title = "Unmaps and range TLB flushes",
		.json = "flushes",
		.arch = "arm64",
		.probe = P(S2_UNMAP),
		.nonzero = C(UNMAP_CALLS),
		.lines = {
			{ .items = { { .c = C(UNMAP_CALLS), .label = "unmap calls", .key = "unmap_calls" },
				     { .c = C(UNMAP_CLEARED), .label = "valid leaves cleared", .key = "leaves_cleared" },
				     { .c = C(UNMAP_EMPTY), .label = "calls that cleared none", .key = "empty_unmaps" } } },
			{ .need_any = FLUSH_PROBES,
			  .missing = "flushes not measured: no range TLB flush probe attached "
				     "(see Functions)",
			  .items = { { .c = C(UNMAP_FLUSHES), .label = "flushes in unmaps", .key = "flushes_in_unmaps",
				       .per = C(UNMAP_CALLS), .per_label = "per unmap",
				       .per_key = "flushes_per_unmap", .time = C(UNMAP_FLUSH_NS),
				       .time_key = "flush_ns" } } },
			{ .items = { { .c = C(EMPTY_FLUSHES), .label = "empty flushes", .key = "empty_flushes",
				       .note = "by unmaps that cleared no leaf",
				       .time = C(EMPTY_FLUSH_NS), .time_key = "empty_flush_ns" } } },
			{ .table = "flushes by enclosing operation",
			  .table_cols = { C(FLUSH_ENCL), C(FLUSH_ENCL_PAGES) },
			  .table_heads = { "flushes", "pages" } },
		},
	},
	{
		/*
		 * kvm_nested_s2_unmap (arm64 NV): per call, every valid nested MMU's whole IPA space
		 * in 1 GiB unmap calls, each ending in a range flush.
		 */
		.title = "Nested stage-2 unmaps (kvm_nested_s2_unmap)",
		.json = "nested_unmap",
		.arch = "arm64",
		.probe = P(NESTED_UNMAP),
		.nonzero = P(NESTED_UNMAP),
		.nonzero_calls = true,
		.json_null = true,
		.none = C(NESTED_ACTIVE),
		.none_text = "calls, none with a valid nested MMU to unmap",
		.lines = {
			/*
			 * A call that unmapped a nested MMU is one that made unmap calls, which
			 * only kvm_pgtable_stage2_unmap's probe sees (not in the timing set): the
			 * calls and their time are still in the table of functions
			 */
			{ .need_any = BIT(S2_UNMAP),
			  .missing = "not known: kvm_pgtable_stage2_unmap not attached (see Probes)",
			  .items = { { .c = C(NESTED_ACTIVE), .label = "nested unmaps", .key = "nested_unmaps",
				       .of_calls = P(NESTED_UNMAP), .of_key = "calls" },
				     { .c = C(NESTED_ACTIVE_NS), .label = "time in them", .key = "ns",
				       .per = C(NESTED_ACTIVE), .per_label = "each" } } },
			{ .items = { { .c = C(NESTED_UNMAPS), .label = "unmap calls", .key = "unmap_calls",
				       .per = C(NESTED_ACTIVE), .per_label = "per nested unmap",
				       .per_key = "unmap_calls_per_nested_unmap" },
				     { .c = C(NESTED_CLEARED), .label = "leaves cleared", .key = "leaves_cleared" } } },
			{ .items = { { .c = C(NESTED_EMPTY), .label = "unmap calls that cleared none", .key = "empty_unmaps", .per = C(NESTED_ACTIVE),
				       .per_label = "per nested unmap",
				       .per_key = "empty_unmaps_per_nested_unmap" } } },
			{ .need_any = FLUSH_PROBES,
			  .missing = "flushes not measured: no range TLB flush probe attached",
			  .items = { { .c = C(NESTED_FLUSHES), .label = "flushes", .key = "flushes",
				       .per = C(NESTED_ACTIVE), .per_label = "per nested unmap",
				       .per_key = "flushes_per_nested_unmap",
				       .time = C(NESTED_FLUSH_NS), .time_key = "flush_ns" } } },
			{ .items = { { .c = C(NESTED_EMPTY_FLUSHES), .label = "empty flushes", .key = "empty_flushes",
				       .per = C(NESTED_ACTIVE), .per_label = "per nested unmap",
				       .per_key = "empty_flushes_per_nested_unmap",
				       .time = C(NESTED_EMPTY_FLUSH_NS),
				       .time_key = "empty_flush_ns" } } },
		},
	},
	{
		.title = "TDP MMU zaps and fast page faults",
		.json = "zap",
		.arch = "x86",
		.probe = P(TDP_ZAP_LEAFS),
		.absent = "tdp_mmu_zap_leafs: not attached (see Functions)",
		.extra = KW_RX_TDP,
		.lines = {
			{ .prefix = "tdp_mmu_zap_leafs: ",
			  .items = { { .c = C(ZAP_GFNS), .label = "gfns in ranges", .key = "gfns" },
				     { .c = C(ZAP_ZAPPED), .label = "present leaves zapped", .key = "zapped" } } },
			{ .prefix = "tdp_mmu_zap_leafs: ",
			  .need_any = BIT(TDP_ITER_NEXT),
			  .missing = "tdp_mmu_zap_leafs: entries visited not measured "
				     "(tdp_iter_next not attached)",
			  .items = { { .c = C(ZAP_VISITS_4K), .label = "4K entries visited", .key = "visits_4k" },
				     { .c = C(ZAP_YIELDS), .label = "mmu_lock yields", .key = "yields" } } },
		},
	},
	{
		/*
		 * Both arches (no .arch): the walks of the MMU notifier's young callbacks, by kind.
		 * Entries found young are counted per entry on arm64 only (bpf/tdp.bpf.c says why),
		 * so that line comes last.
		 */
		.title = "Aging (MMU-notifier young callbacks)",
		.json = "aging",
		.probe = P(NOTIFIER_CLEAR_YOUNG),
		.nonzero = C(AGE_CALLS),
		.lines = {
			{ .prefix = "age: ",
			  .items = { { .c = C(AGE_CALLS), .label = "calls", .key = "age_calls",
				       .time = C(AGE_NS), .time_key = "age_ns" },
				     { .c = C(AGE_YOUNG_CALLS), .label = "found young",
				       .key = "age_young_calls" } } },
			{ .prefix = "test age: ",
			  .items = { { .c = C(TEST_AGE_CALLS), .label = "calls", .key = "test_age_calls",
				       .time = C(TEST_AGE_NS), .time_key = "test_age_ns" },
				     { .c = C(TEST_AGE_YOUNG_CALLS), .label = "found young",
				       .key = "test_age_young_calls" } } },
			{ .need_any = BIT(TDP_ITER_NEXT) | BIT(AGE_WALKER),
			  .missing = "entries visited not measured (tdp_iter_next or "
				     "stage2_age_walker not attached)",
			  .items = { { .c = C(AGE_VISITS), .label = "entries visited: age", .key = "age_visits",
				       .per = C(AGE_CALLS), .per_label = "per call",
				       .per_key = "age_visits_per_call" },
				     { .c = C(TEST_AGE_VISITS), .label = "test age", .key = "test_age_visits",
				       .per = C(TEST_AGE_CALLS), .per_label = "per call",
				       .per_key = "test_age_visits_per_call" } } },
			{ .need_any = BIT(SPTE_CHANGED) | BIT(AGE_WALKER),
			  .missing = "entries made old not measured (kvm_tdp_mmu_spte_changed or "
				     "stage2_age_walker not attached)",
			  .items = { { .c = C(AGE_OLD), .label = "age: entries made old", .key = "age_made_old",
				       .per = C(AGE_CALLS), .per_label = "per call",
				       .per_key = "age_made_old_per_call" } } },
			{ .need_any = BIT(AGE_WALKER),
			  .missing = "entries found young: counted by stage2_age_walker (arm64) only",
			  .items = { { .c = C(AGE_YOUNG), .label = "entries found young: age", .key = "age_young" },
				     { .c = C(TEST_AGE_YOUNG), .label = "test age", .key = "test_age_young" } } },
		},
	},
	{ .json = NULL },
};

/* ---- compare: counters as rows of their probe's group, in compare order --------------------- */

const struct kw_compare_counter_row kw_compare_counter_rows[] = {
	{ .probe = KW_P_S2_UNMAP,
	  .metric = "cleared/unmap",
	  .c = C(UNMAP_CLEARED),
	  .per_counter = C(UNMAP_CALLS) },
	{ .probe = KW_P_S2_UNMAP,
	  .metric = "flushes/unmap",
	  .c = C(UNMAP_FLUSHES),
	  .per_counter = C(UNMAP_CALLS) },
	{ .probe = KW_P_S2_UNMAP, .metric = "empty unmaps/run", .c = C(UNMAP_EMPTY) },
	{ .probe = KW_P_S2_UNMAP, .metric = "empty flushes/run", .c = C(EMPTY_FLUSHES) },
	{ .probe = KW_P_TDP_ZAP_LEAFS,
	  .metric = "gfns/zap",
	  .c = C(ZAP_GFNS),
	  .per_calls = P(TDP_ZAP_LEAFS) },
	/*
	 * What the empty-leaf hint saves is 4K entries visited (tdp_iter_next, a per-entry probe);
	 * without it in every run (--no-visits, a kernel without the function) there is no row.
	 */
	{ .probe = KW_P_TDP_ZAP_LEAFS,
	  .metric = "4K visits/zap",
	  .c = C(ZAP_VISITS_4K),
	  .per_calls = P(TDP_ZAP_LEAFS),
	  .needs_everywhere = P(TDP_ITER_NEXT) },
	{ .probe = KW_P_TDP_ZAP_LEAFS,
	  .metric = "zapped/zap",
	  .c = C(ZAP_ZAPPED),
	  .per_calls = P(TDP_ZAP_LEAFS) },
	/* aging: per age call, where the probe that counts the entries was attached in every run */
	{ .probe = KW_P_TDP_AGE,
	  .metric = "visits/age",
	  .c = C(AGE_VISITS),
	  .per_counter = C(AGE_CALLS),
	  .needs_everywhere = P(TDP_ITER_NEXT) },
	{ .probe = KW_P_TDP_AGE,
	  .metric = "made old/age",
	  .c = C(AGE_OLD),
	  .per_counter = C(AGE_CALLS),
	  .needs_everywhere = P(SPTE_CHANGED) },
	{ .probe = KW_P_S2_AGE,
	  .metric = "visits/age",
	  .c = C(AGE_VISITS),
	  .per_counter = C(AGE_CALLS),
	  .needs_everywhere = P(AGE_WALKER) },
	{ .probe = KW_P_S2_AGE,
	  .metric = "young/age",
	  .c = C(AGE_YOUNG),
	  .per_counter = C(AGE_CALLS),
	  .needs_everywhere = P(AGE_WALKER) },
	{ .probe = KW_P_S2_AGE,
	  .metric = "made old/age",
	  .c = C(AGE_OLD),
	  .per_counter = C(AGE_CALLS),
	  .needs_everywhere = P(AGE_WALKER) },
	{ .metric = NULL },
};
