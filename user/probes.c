// SPDX-License-Identifier: GPL-2.0
/*
 * The probe catalogue (probes.h): one entry per probe, indexed by enum kw_probe. A probe of the
 * other arch keeps its name and units (recordings of both arches are read anywhere); its
 * programs are simply not in this build's BPF object.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes.h"

#if defined(__aarch64__)
#define GUEST_FAULT_FUNC "kvm_handle_guest_abort"
#else
#define GUEST_FAULT_FUNC "kvm_mmu_page_fault"
#endif

/* The usual probe: fentry/fexit and kprobe/kretprobe programs named after one stem. */
#define PROGS(stem)                                                                                \
	.prog = {                                                                                  \
		[KW_MECH_FENTRY] = { "fe_" stem, "fx_" stem },                                     \
		[KW_MECH_KPROBE] = { "kp_" stem, "kr_" stem },                                     \
	}

const struct kw_probe_desc kw_probes[KW_NR_PROBES] = {
	/* arm64: the stage-2 page-table walker (arch/arm64/kvm/hyp/pgtable.c) */
	[KW_P_PGT_WALK] = {
		.name = "kvm_pgtable_walk", .arch = "arm64", .family = "pgtable",
		.unit = "bytes", .timed = true,
		.what = "every stage-2 walk: time (inclusive), bytes, callback, depth",
		.func = "kvm_pgtable_walk", PROGS("walk"),
	},
	[KW_P_S2_SPLIT] = {
		.name = "kvm_pgtable_stage2_split", .arch = "arm64", .family = "pgtable",
		.unit = "bytes", .timed = true,
		.what = "eager split of a range (6.4+)",
		.func = "kvm_pgtable_stage2_split", PROGS("kvm_pgtable_stage2_split"),
	},
	[KW_P_S2_UNMAP] = {
		.name = "kvm_pgtable_stage2_unmap", .arch = "arm64", .family = "pgtable",
		.unit = "bytes", .timed = true,
		.what = "stage-2 unmap of a range",
		.func = "kvm_pgtable_stage2_unmap", PROGS("kvm_pgtable_stage2_unmap"),
	},
	[KW_P_S2_WRPROTECT] = {
		.name = "kvm_pgtable_stage2_wrprotect", .arch = "arm64", .family = "pgtable",
		.unit = "bytes", .timed = true,
		.what = "write-protect of a range (dirty logging)",
		.func = "kvm_pgtable_stage2_wrprotect", PROGS("kvm_pgtable_stage2_wrprotect"),
	},
	/* No fentry program: "did it split" needs the return value and the visit context. */
	[KW_P_SPLIT_WALKER] = {
		.name = "stage2_split_walker", .arch = "arm64", .family = "pgtable",
		.per_entry = true,
		.what = "split callback: visits by level, split or nothing (6.4+)",
		.func = "stage2_split_walker",
		.prog = {
			[KW_MECH_FENTRY][KW_EXIT] = "fx_split_walker",
			[KW_MECH_KPROBE] = { "kp_split_walker", "kr_split_walker" },
		},
	},
	/* Only entry programs: the entry must be read before the walker clears it. */
	[KW_P_UNMAP_WALKER] = {
		.name = "stage2_unmap_walker", .arch = "arm64", .family = "pgtable",
		.per_entry = true,
		.what = "unmap callback: valid leaves cleared",
		.func = "stage2_unmap_walker",
		.prog = {
			[KW_MECH_FENTRY][KW_ENTRY] = "fe_unmap_walker",
			[KW_MECH_KPROBE][KW_ENTRY] = "kp_unmap_walker",
		},
	},
	[KW_P_TLB_FLUSH_RANGE] = {
		.name = "kvm_tlb_flush_vmid_range", .arch = "arm64", .family = "pgtable",
		.unit = "pages", .timed = true,
		.what = "range TLB flush, every mode (6.6+)",
		.func = "kvm_tlb_flush_vmid_range", PROGS("flush"),
	},
	[KW_P_HYP_FLUSH_RANGE] = {
		.name = "__kvm_tlb_flush_vmid_range", .arch = "arm64", .family = "pgtable",
		.unit = "pages", .timed = true,
		.what = "range TLBI at EL2, VHE only (6.6+)",
		.func = "__kvm_tlb_flush_vmid_range", PROGS("hyp_flush"),
	},
	[KW_P_NESTED_UNMAP] = {
		.name = "kvm_nested_s2_unmap", .arch = "arm64", .family = "pgtable",
		.timed = true,
		.what = "unmap of every valid nested MMU's whole IPA space (NV)",
		.func = "kvm_nested_s2_unmap", PROGS("nested_unmap"),
	},
	/* x86: the TDP MMU (arch/x86/kvm/mmu/tdp_mmu.c, mmu.c) */
	[KW_P_TDP_ZAP_LEAFS] = {
		.name = "tdp_mmu_zap_leafs", .arch = "x86", .family = "tdp",
		.unit = "gfns", .timed = true,
		.what = "zap of a gfn range in one root: time, range, zapped",
		.func = "tdp_mmu_zap_leafs", PROGS("zap_leafs"),
	},
	[KW_P_TDP_UNMAP_GFN] = {
		.name = "kvm_tdp_mmu_unmap_gfn_range", .arch = "x86", .family = "tdp",
		.unit = "gfns", .timed = true,
		.what = "MMU-notifier unmap of a gfn range",
		.func = "kvm_tdp_mmu_unmap_gfn_range", PROGS("unmap_gfn"),
	},
	[KW_P_TDP_ZAP_LEAFS_ALL] = {
		.name = "kvm_tdp_mmu_zap_leafs", .arch = "x86", .family = "tdp",
		.timed = true,
		.what = "zap through kvm_zap_gfn_range (MTRR, CR0.CD, APICv)",
		.func = "kvm_tdp_mmu_zap_leafs", PROGS("zap_all"),
	},
	/* The raw tracepoint of the same name, where fast_page_fault is inlined (x86 6.1). */
	[KW_P_FAST_PF] = {
		.name = "fast_page_fault", .arch = "x86", .family = "tdp",
		.timed = true,
		.what = "lockless fast page fault: time, return code",
		.func = "fast_page_fault",
		.prog = {
			[KW_MECH_FENTRY] = { "fe_fast_pf", "fx_fast_pf" },
			[KW_MECH_KPROBE] = { "kp_fast_pf", "kr_fast_pf" },
			[KW_MECH_TRACEPOINT][KW_ENTRY] = "rt_fast_pf",
		},
		.tp_cat = "", .tp_name = "fast_page_fault",
	},
	[KW_P_SPTE_CHANGED] = {
		.name = "kvm_tdp_mmu_spte_changed", .arch = "x86", .family = "tdp",
		.per_entry = true,
		.what = "tracepoint: SPTEs zapped inside tdp_mmu_zap_leafs",
		.prog[KW_MECH_TRACEPOINT][KW_ENTRY] = "rt_spte_changed",
		.tp_cat = "", .tp_name = "kvm_tdp_mmu_spte_changed",
	},
	[KW_P_TDP_CLEAR_DIRTY] = {
		.name = "kvm_tdp_mmu_clear_dirty_pt_masked", .arch = "x86", .family = "tdp",
		.unit = "pages", .timed = true,
		.what = "dirty log: write-protect or clean one 64-page bitmap word",
		.func = "kvm_tdp_mmu_clear_dirty_pt_masked", PROGS("clear_dirty"),
	},
	/* Only entry programs: the visit is counted when the iteration ends. */
	[KW_P_TDP_ITER_NEXT] = {
		.name = "tdp_iter_next", .arch = "x86", .family = "tdp",
		.per_entry = true,
		.what = "zap iterator steps: 4K entries visited, yields; aging visits",
		.func = "tdp_iter_next",
		.prog = {
			[KW_MECH_FENTRY][KW_ENTRY] = "fe_iter_next",
			[KW_MECH_KPROBE][KW_ENTRY] = "kp_iter_next",
		},
	},
	/* both: what caused a walk */
	[KW_P_VM_IOCTL] = {
		.name = "kvm_vm_ioctl", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: VM ioctls (KVM_SET_USER_MEMORY_REGION, ...)",
		.func = "kvm_vm_ioctl",
		.prog = {
			[KW_MECH_FENTRY] = { "fe_vm_ioctl", "fx_vm_ioctl" },
			[KW_MECH_KPROBE] = { "kp_vm_ioctl", "kr_vm_ioctl" },
			[KW_MECH_TRACEPOINT] = { "tp_ioctl_enter", "tp_ioctl_exit" },
		},
		.tp_cat = "syscalls", .tp_name = "sys_enter_ioctl",
	},
	[KW_P_VCPU_IOCTL] = {
		.name = "kvm_vcpu_ioctl", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: vCPU ioctls (KVM_RUN)",
		.func = "kvm_vcpu_ioctl", PROGS("vcpu_ioctl"),
	},
	[KW_P_NOTIFIER] = {
		.name = "kvm_mmu_notifier_invalidate_range_start", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: MMU-notifier invalidations",
		.func = "kvm_mmu_notifier_invalidate_range_start", PROGS("notifier"),
	},
	[KW_P_GUEST_FAULT] = {
		.name = "guest_fault", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: vCPU faults (kvm_handle_guest_abort, kvm_mmu_page_fault)",
		.func = GUEST_FAULT_FUNC, PROGS("fault"),
	},
	[KW_P_MM_RELEASE] = {
		.name = "kvm_mmu_notifier_release", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: VM teardown (the MMU notifier's release)",
		.func = "kvm_mmu_notifier_release", PROGS("mm_release"),
	},
	[KW_P_MEMSLOT] = {
		.name = "kvm_arch_prepare_memory_region", .arch = "", .family = "trigger",
		.timed = true,
		.what = "memslot change: what the ioctl does (create, dirty log on, ...)",
		.func = "kvm_arch_prepare_memory_region", PROGS("memslot"),
	},
	[KW_P_MMU_LOCK] = {
		.name = "mmu_lock_wait", .arch = "", .family = "lock",
		.timed = true,
		.what = "fault-side wait for the VM's mmu_lock (lock:contention_*)",
		.prog[KW_MECH_TRACEPOINT] = { "rt_lock_begin", "rt_lock_end" },
		.tp_cat = "lock", .tp_name = "contention_begin",
	},
	/* aging: the walkers of the MMU notifier's young callbacks (tdp.bpf.c, pgtable.bpf.c) */
	[KW_P_TDP_AGE] = {
		.name = "kvm_tdp_mmu_age_gfn_range", .arch = "x86", .family = "tdp",
		.unit = "gfns", .timed = true,
		.what = "aging: clear the Accessed bit of a gfn range's young SPTEs",
		.func = "kvm_tdp_mmu_age_gfn_range", PROGS("tdp_age"),
	},
	[KW_P_TDP_TEST_AGE] = {
		.name = "kvm_tdp_mmu_test_age_gfn", .arch = "x86", .family = "tdp",
		.unit = "gfns", .timed = true,
		.what = "aging: is a gfn range young (test_young)",
		.func = "kvm_tdp_mmu_test_age_gfn", PROGS("tdp_test_age"),
	},
	[KW_P_S2_AGE] = {
		.name = "kvm_pgtable_stage2_test_clear_young", .arch = "arm64", .family = "pgtable",
		.unit = "bytes", .timed = true,
		.what = "aging: test (and with mkold clear) a range's Access Flags (6.5+)",
		.func = "kvm_pgtable_stage2_test_clear_young", PROGS("s2_age"),
	},
	/* No fentry program: "made old" needs the return value, as for stage2_split_walker. */
	[KW_P_AGE_WALKER] = {
		.name = "stage2_age_walker", .arch = "arm64", .family = "pgtable",
		.per_entry = true,
		.what = "aging callback: leaves visited, young, made old (6.5+)",
		.func = "stage2_age_walker",
		.prog = {
			[KW_MECH_FENTRY][KW_EXIT] = "fx_age_walker",
			[KW_MECH_KPROBE] = { "kp_age_walker", "kr_age_walker" },
		},
	},
	[KW_P_NOTIFIER_CLEAR_FLUSH_YOUNG] = {
		.name = "kvm_mmu_notifier_clear_flush_young", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: MMU-notifier aging, then a TLB flush (reclaim)",
		.func = "kvm_mmu_notifier_clear_flush_young", PROGS("clear_flush_young"),
	},
	[KW_P_NOTIFIER_CLEAR_YOUNG] = {
		.name = "kvm_mmu_notifier_clear_young", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: MMU-notifier aging (MGLRU, page_idle, DAMON)",
		.func = "kvm_mmu_notifier_clear_young", PROGS("clear_young"),
	},
	[KW_P_NOTIFIER_TEST_YOUNG] = {
		.name = "kvm_mmu_notifier_test_young", .arch = "", .family = "trigger",
		.timed = true,
		.what = "trigger: MMU-notifier young test (khugepaged, DAMON)",
		.func = "kvm_mmu_notifier_test_young", PROGS("test_young"),
	},
};

/*
 * The cheap set (`kvmwalk serve --probe cheap`; serve's default is the notifiers set below
 * with the sampled mode, record and top attach every probe): what the dashboard and the rules
 * read (dashboards/kvmwalk.json, kvmwalk.rules.yml), without the probes
 * that run for every vCPU entry, fault or iterator step and feed none of it. Read from the two
 * files, family by family:
 *
 *   kvm_pgtable_walk: kvmwalk_walks_total by callback, its trigger_seconds_total, and
 *     kvmwalk_measured_seconds_total (walks at depth 0)
 *   stage2_split_walker: kvmwalk_visits_total, the rule's kvmwalk_split_visits_nothing ratio
 *   stage2_unmap_walker: its visits, and which kvm_pgtable_stage2_unmap calls cleared no leaf:
 *     kvmwalk_unmap_{empty_calls,leaves_cleared}_total, empty="true" of
 *     kvmwalk_unmap_tlb_flush{es,_seconds}_total and of the kvmwalk_nested_unmap_* families
 *   kvm_pgtable_stage2_unmap: kvmwalk_unmap_calls_total and those above; its duration, and
 *     its trigger_seconds_total with kvm_pgtable_stage2_split's
 *   kvm_pgtable_stage2_split, kvm_pgtable_stage2_wrprotect: the call= label of
 *     kvmwalk_tlb_flushes_total (the range operation a flush runs in)
 *   kvm_tlb_flush_vmid_range, __kvm_tlb_flush_vmid_range: every flush family, their durations
 *   kvm_nested_s2_unmap: kvmwalk_nested_unmap{s,_seconds,_tlb_flush*}_total
 *   tdp_mmu_zap_leafs, kvm_tdp_mmu_unmap_gfn_range, kvm_tdp_mmu_zap_leafs: their durations,
 *     kvmwalk_zap_range_pages_total; the first also trigger_seconds and measured time
 *   kvm_tdp_mmu_spte_changed: kvmwalk_zap_leaves_zapped_total
 *   fast_page_fault: kvmwalk_fast_page_faults_total, its trigger_seconds, measured time
 *   kvm_vm_ioctl: kvmwalk_trigger_calls_total{function="kvm_vm_ioctl",ioctl=~"..._DIRTY_LOG"}
 *   kvm_vm_ioctl, kvm_mmu_notifier_invalidate_range_start, kvm_mmu_notifier_release: the
 *     trigger label (ioctl, mmu_notifier, vm_teardown) of the walks, zaps and flushes
 *   kvm_tdp_mmu_age_gfn_range, kvm_tdp_mmu_test_age_gfn, kvm_pgtable_stage2_test_clear_young,
 *     stage2_age_walker: the kvmwalk_aging_* families (no panel yet); the three aging
 *     notifiers (kvm_mmu_notifier_{clear_flush,clear,test}_young): their trigger label,
 *     mmu_notifier_age. They run per aged page range of reclaim or MGLRU, not per vCPU entry
 *   kvm_arch_prepare_memory_region (once per memslot change), with kvm_vm_ioctl:
 *     kvmwalk_memslot_ops_total and kvmwalk_memslot_op_seconds_total by operation
 *
 * The two notifier probes also make the walks inside them cheaper: their trigger and callback
 * rows wait in the task and are added once per context (a teardown's millions of 1 GiB walks
 * are one row update). The per-entry visit probes stay: a visit is one task-storage access and
 * an increment since the visit fold (docs/performance.md, "Cheap enough to leave on: the targets"). The rest of the
 * families (build, kernel and probe info, drops, BPF run time) need no probe.
 *
 * Left out, each costing on every call of something frequent, none read by a panel or rule
 * other than the by-function panels, which show whatever functions are attached:
 *   - kvm_vcpu_ioctl: one timed call per KVM_RUN (and per other vCPU ioctl). Its only reader
 *     would be the trigger label ioctl="KVM_RUN" of walks a vCPU ioctl makes outside a fault.
 *   - guest_fault: one timed call per vCPU fault. Walks and fast faults inside a fault then
 *     count under trigger="other", not "vcpu_fault"; their calls, time and visits are whole.
 *   - mmu_lock_wait: raw tracepoints on every contended lock of the kernel, and it counts only
 *     inside guest_fault (kw_probe_sel_parse() selects both). Its family,
 *     kvmwalk_mmu_lock_wait_seconds, feeds the mmu_lock panels only, which say they need
 *     `serve --probe cheap,mmu_lock_wait`.
 *   - tdp_iter_next: one task-storage lookup per iterator step of every TDP MMU walk, faults
 *     included; it feeds kvmwalk_zap_4k_visits_total and kvmwalk_zap_yields_total only, which
 *     no panel or rule reads (the empty-zap signal they show is
 *     kvmwalk_zap_leaves_zapped_total over kvmwalk_zap_range_pages_total).
 *   - kvm_tdp_mmu_clear_dirty_pt_masked: one timed call per 64-page word of every dirty-log
 *     clear; only its own by-function series.
 * A probe left out is planned "off", with "not in the cheap set" as its reason: in
 * `kvmwalk probes`, a recording's plan and kvmwalk_probe_info's reason label, never as zero
 * series. `--probe all` attaches everything, `--probe cheap,tdp_iter_next` adds one.
 */
const kw_probe_mask kw_probes_cheap =
	KW_PROBES_ALL & ~(KW_PROBE_BIT(KW_P_VCPU_IOCTL) | KW_PROBE_BIT(KW_P_GUEST_FAULT) |
			  KW_PROBE_BIT(KW_P_MMU_LOCK) | KW_PROBE_BIT(KW_P_TDP_ITER_NEXT) |
			  KW_PROBE_BIT(KW_P_TDP_CLEAR_DIRTY));

/*
 * The timing set (`record --probe timing`): the probes that time a whole operation once per call,
 * so that its time carries one probe's cost, not one per walk, visit or flush inside it. An A/B's
 * headline times come from runs made with it (or with none: the workload's own times), its
 * counts from runs with every probe; compare picks each row from the runs that measure it with
 * the fewest probes (docs/reports.md, "Timing runs").
 *
 *   kvm_vm_ioctl: every VM ioctl by command (KVM_SET_USER_MEMORY_REGION(2), KVM_GET_DIRTY_LOG,
 *     KVM_CLEAR_DIRTY_LOG, ...): once per ioctl. Its trigger rows time each command.
 *   kvm_arch_prepare_memory_region: once per memslot change, inside its ioctl: it keys the
 *     ioctl's row by what the change does (create, delete, dirty logging on, ...), so that
 *     the dirty-logging enable, the series' own measure of the eager split, is timed apart.
 *   kvm_mmu_notifier_invalidate_range_start: once per invalidation (madvise, munmap, reclaim,
 *     migration), the zaps, unmaps and flushes inside it included.
 *   kvm_nested_s2_unmap (arm64 NV): once per notifier, the unmap of every valid nested MMU's
 *     whole IPA space (262,144 unmap calls and range flushes of a 48-bit space before the
 *     bundled change). Inside the notifier: the notifier's time carries its one extra probe.
 *   kvm_mmu_notifier_release: a VM's teardown, once per VM (on arm64 7.3 millions of 1 GiB
 *     walks that the full set times one by one).
 * Left out:
 *   - kvm_vcpu_ioctl: once per KVM_RUN, whose time is the guest's own run time, compared by no
 *     series; its cost is per guest exit that reaches user space (a real VMM's MMIO exits), and
 *     the full set keeps it for attributing walks to KVM_RUN (docs/performance.md, "The timing
 *     set").
 *   - the aging notifiers (kvm_mmu_notifier_{clear_flush,clear,test}_young): once per aged range
 *     of reclaim, MGLRU or DAMON, thousands per aging pass; the selftest that times aging
 *     (access_tracking_perf_test) prints its own phase times, which bare runs keep.
 *   - every walk, visit, flush, fault, zap and lock probe: they run inside what the set times.
 * The set holds no probe that runs inside another of the set but kvm_nested_s2_unmap (in a
 * notifier) and kvm_arch_prepare_memory_region (in a memslot ioctl), each once per call of the
 * operation it is inside.
 */
const kw_probe_mask kw_probes_timing =
	KW_PROBE_BIT(KW_P_VM_IOCTL) | KW_PROBE_BIT(KW_P_MEMSLOT) | KW_PROBE_BIT(KW_P_NOTIFIER) |
	KW_PROBE_BIT(KW_P_NESTED_UNMAP) | KW_PROBE_BIT(KW_P_MM_RELEASE);

/*
 * The notifiers set (`kvmwalk serve`'s default, beside the sampled mode): the timing set's
 * MMU-notifier callbacks, each once per invalidation, nested unmap or VM teardown, the
 * operations a host cannot make thousands of times a second:
 *   kvm_mmu_notifier_invalidate_range_start, kvm_nested_s2_unmap (arm64 NV; from the notifier,
 *     and from memslot deletions), kvm_mmu_notifier_release.
 * Left out of the timing set's, by measurement: kvm_vm_ioctl, and kvm_arch_prepare_memory_region
 * which keys only an ioctl's row. A VM ioctl is not rare: a dirty-log workload makes one per
 * KVM_GET_DIRTY_LOG and per KVM_CLEAR_DIRTY_LOG chunk, thousands a second in a migration, and
 * with the timing set beside the sampled mode the walker-heavy phases of the overhead-sampled
 * case ran 1.24x as long as without kvmwalk (dirty-log-get and -clear 1.67x; arm64 7.3, one
 * boot, 8 pairs, 2026-12-07), against 1.07x with the sampled mode alone (docs/performance.md,
 * "The sampled mode"). The sampled mode still shows the ioctls' CPU (trigger vm_ioctl).
 */
const kw_probe_mask kw_probes_notifiers = KW_PROBE_BIT(KW_P_NOTIFIER) |
					  KW_PROBE_BIT(KW_P_NESTED_UNMAP) |
					  KW_PROBE_BIT(KW_P_MM_RELEASE);

static const struct {
	const char *name;
	enum kw_probe_set set;
} set_names[] = {
	{ KW_PROBE_SET_ALL, KW_SET_ALL },
	{ KW_PROBE_SET_CHEAP, KW_SET_CHEAP },
	{ KW_PROBE_SET_TIMING, KW_SET_TIMING },
	{ KW_PROBE_SET_NOTIFIERS, KW_SET_NOTIFIERS },
	{ KW_PROBE_SET_NONE, KW_SET_NONE },
};

kw_probe_mask kw_probe_set_mask(enum kw_probe_set set)
{
	switch (set) {
	case KW_SET_ALL:
		return KW_PROBES_ALL;
	case KW_SET_CHEAP:
		return kw_probes_cheap;
	case KW_SET_TIMING:
		return kw_probes_timing;
	case KW_SET_NOTIFIERS:
		return kw_probes_notifiers;
	default:
		return 0;
	}
}

const char *kw_probe_set_name(enum kw_probe_set set)
{
	for (size_t i = 0; i < sizeof(set_names) / sizeof(*set_names); i++)
		if (set_names[i].set == set)
			return set_names[i].name;
	return "";
}

const char *const kw_attach_names[KW_NR_ATTACH] = {
	[KW_ATTACH_AUTO] = "auto",
	[KW_ATTACH_FENTRY] = "fentry",
	[KW_ATTACH_KPROBE] = "kprobe",
};

const char *const kw_mech_names[KW_NR_MECHS] = {
	[KW_MECH_NONE] = "",
	[KW_MECH_FENTRY] = "fentry",
	[KW_MECH_KPROBE] = "kprobe",
	[KW_MECH_TRACEPOINT] = "tracepoint",
	[KW_MECH_UNAVAILABLE] = "unavailable",
	[KW_MECH_OFF] = "off",
};

static int by_name(const char *const *names, int n, const char *name)
{
	for (int i = 0; name && i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int kw_attach_by_name(const char *name)
{
	return by_name(kw_attach_names, KW_NR_ATTACH, name);
}

int kw_mech_by_name(const char *name)
{
	return by_name(kw_mech_names, KW_NR_MECHS, name);
}

const char *kw_attach_name(enum kw_attach a)
{
	return (unsigned int)a < KW_NR_ATTACH ? kw_attach_names[a] : "?";
}

const char *kw_mech_name(enum kw_mech m)
{
	return (unsigned int)m < KW_NR_MECHS ? kw_mech_names[m] : "?";
}

int kw_probe_by_name(const char *name)
{
	for (int i = 0; i < KW_NR_PROBES; i++)
		if (!strcmp(kw_probes[i].name, name))
			return i;
	return -1;
}

bool kw_probe_in_arch(int probe, const char *arch)
{
	const char *a = kw_probes[probe].arch;

	return !*a || !strcmp(a, arch);
}

int kw_probe_of_prog(const char *prog)
{
	for (int p = 0; p < KW_NR_PROBES; p++)
		for (int m = 0; m < KW_NR_PROG_MECHS; m++)
			for (int k = 0; k < KW_NR_ENDS; k++)
				if (kw_probes[p].prog[m][k] && !strcmp(kw_probes[p].prog[m][k], prog))
					return p;
	return -1;
}

int kw_probe_sel_parse(const char *list, struct kw_probe_sel *sel, char *err, size_t errlen)
{
	struct kw_probe_sel m = {};
	bool none = false;
	int nsets = 0;

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		char name[64];
		int id;

		if (n) {
			size_t k = 0;

			snprintf(name, sizeof(name), "%.*s", (int)n, p);
			id = n < sizeof(name) ? kw_probe_by_name(name) : -1;
			while (id < 0 && k < sizeof(set_names) / sizeof(*set_names) &&
			       strcmp(name, set_names[k].name))
				k++;
			if (id >= 0) {
				m.probes |= KW_PROBE_BIT(id);
				m.named |= KW_PROBE_BIT(id);
			} else if (k < sizeof(set_names) / sizeof(*set_names)) {
				m.probes |= kw_probe_set_mask(set_names[k].set);
				none |= set_names[k].set == KW_SET_NONE;
				/* the largest set named: all holds cheap, cheap timing, timing
				 * notifiers */
				if (!nsets++ || set_names[k].set < m.set)
					m.set = set_names[k].set;
			} else {
				snprintf(err, errlen, "--probe: no probe or set named '%.*s' (see "
					 "`kvmwalk probes`; sets: " KW_PROBE_SET_CHEAP ", "
					 KW_PROBE_SET_ALL ", " KW_PROBE_SET_TIMING ", "
					 KW_PROBE_SET_NOTIFIERS ", " KW_PROBE_SET_NONE ")",
					 (int)n, p);
				return -EINVAL;
			}
		}
		p += n + (p[n] == ',');
	}
	/* none is nothing at all: a probe or a set beside it contradicts it */
	if (none && (m.probes || nsets > 1)) {
		snprintf(err, errlen, "--probe: " KW_PROBE_SET_NONE " attaches nothing; it takes "
			 "no other probe or set (got '%s')", list);
		return -EINVAL;
	}
	if (!nsets)
		m.set = m.probes ? KW_SET_LIST : KW_SET_NONE;
	m.cheap = m.set == KW_SET_CHEAP;
	/*
	 * mmu_lock_wait counts a wait only inside a vCPU fault, whose entry names the VM's lock
	 * (trigger.bpf.c fault_enter()): alone it would attach and count nothing. Selecting it
	 * selects guest_fault, and requires it when it is required itself.
	 */
	if (m.probes & KW_PROBE_BIT(KW_P_MMU_LOCK))
		m.probes |= KW_PROBE_BIT(KW_P_GUEST_FAULT);
	if (m.named & KW_PROBE_BIT(KW_P_MMU_LOCK))
		m.named |= KW_PROBE_BIT(KW_P_GUEST_FAULT);
	*sel = m;
	return 0;
}

int kw_libbpf_failed_prog(const char *line, char *name, size_t len)
{
	const char *p = strstr(line, "prog '"), *q;

	if (!p)
		return -ENOENT;
	p += strlen("prog '");
	q = strchr(p, '\'');
	if (!q || q == p || strncmp(q, "': failed to load", strlen("': failed to load")))
		return -ENOENT;
	snprintf(name, len, "%.*s", (int)(q - p), p);
	return 0;
}
