/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI between kvmwalk's BPF programs and the loader: map keys and values, probe and counter
 * indexes. Fixed-width types only, explicit padding; user/record.h and user/hist.h check the sizes
 * with _Static_assert.
 */
#ifndef KW_KVMWALK_ABI_H
#define KW_KVMWALK_ABI_H

#include "hist_abi.h"

/*
 * One index per probe. A probe is one kernel function (or tracepoint) with its own statistics.
 * Both arches share the numbering; a probe of the other arch is simply never attached. User
 * space describes each in its catalogue, user/probes.c.
 */
enum kw_probe {
	/* arm64: the stage-2 page-table walker (arch/arm64/kvm/hyp/pgtable.c) */
	KW_P_PGT_WALK,	      /* kvm_pgtable_walk: duration (inclusive), bytes */
	KW_P_S2_SPLIT,	      /* kvm_pgtable_stage2_split (6.4+): duration, bytes */
	KW_P_S2_UNMAP,	      /* kvm_pgtable_stage2_unmap: duration, bytes */
	KW_P_S2_WRPROTECT,    /* kvm_pgtable_stage2_wrprotect: duration, bytes */
	KW_P_SPLIT_WALKER,    /* stage2_split_walker (6.4+): visits */
	KW_P_UNMAP_WALKER,    /* stage2_unmap_walker: visits */
	KW_P_TLB_FLUSH_RANGE, /* kvm_tlb_flush_vmid_range (6.6+, EL1 in every mode): pages */
	KW_P_HYP_FLUSH_RANGE, /* __kvm_tlb_flush_vmid_range (6.6+, VHE only): pages */
	KW_P_NESTED_UNMAP,    /* kvm_nested_s2_unmap (nested.c, NV): duration */
	/* x86: the TDP MMU (arch/x86/kvm/mmu/tdp_mmu.c, mmu.c) */
	KW_P_TDP_ZAP_LEAFS,	/* tdp_mmu_zap_leafs: duration, gfns in range */
	KW_P_TDP_UNMAP_GFN,	/* kvm_tdp_mmu_unmap_gfn_range: duration, gfns */
	KW_P_TDP_ZAP_LEAFS_ALL, /* kvm_tdp_mmu_zap_leafs: duration */
	KW_P_FAST_PF,		/* fast_page_fault: duration, return code */
	KW_P_SPTE_CHANGED,	/* tracepoint kvmmmu:kvm_tdp_mmu_spte_changed: entries zapped */
	KW_P_TDP_ITER_NEXT,	/* tdp_iter_next inside tdp_mmu_zap_leafs: entries visited */
	KW_P_TDP_CLEAR_DIRTY,	/* kvm_tdp_mmu_clear_dirty_pt_masked: duration, pages in mask */
	/* both: what caused a walk */
	KW_P_VM_IOCTL,	  /* kvm_vm_ioctl */
	KW_P_VCPU_IOCTL,  /* kvm_vcpu_ioctl */
	KW_P_NOTIFIER,	  /* kvm_mmu_notifier_invalidate_range_start */
	KW_P_GUEST_FAULT, /* arm64 kvm_handle_guest_abort, x86 kvm_mmu_page_fault */
	KW_P_MMU_LOCK,	  /* lock:contention_begin/end on the faulting VM's mmu_lock */
	KW_P_MM_RELEASE,  /* kvm_mmu_notifier_release: a VM's memory torn down */
	/* aging: the walkers of the MMU notifier's young callbacks, and those callbacks */
	KW_P_TDP_AGE,	   /* x86 kvm_tdp_mmu_age_gfn_range: duration, gfns */
	KW_P_TDP_TEST_AGE, /* x86 kvm_tdp_mmu_test_age_gfn: duration, gfns */
	KW_P_S2_AGE,	   /* arm64 kvm_pgtable_stage2_test_clear_young: duration, bytes */
	KW_P_AGE_WALKER,   /* arm64 stage2_age_walker: visits */
	KW_P_NOTIFIER_CLEAR_FLUSH_YOUNG, /* kvm_mmu_notifier_clear_flush_young */
	KW_P_NOTIFIER_CLEAR_YOUNG,	 /* kvm_mmu_notifier_clear_young */
	KW_P_NOTIFIER_TEST_YOUNG,	 /* kvm_mmu_notifier_test_young */
	KW_P_MEMSLOT,	  /* kvm_arch_prepare_memory_region: which memslot change (kw_memslot_op) */
	KW_NR_PROBES,
};

/*
 * Per-probe counts, one PERCPU_ARRAY slot per enum kw_probe. The histograms are not here: they
 * live in kw_hists, one slot per histogram a probe of this arch attached can produce, numbered by
 * the loader (struct kw_hist_slots), so a probe that is off, of the other arch, untimed or without
 * a size costs no histogram memory (issue 18: 8032 bytes per probe and CPU before).
 */
struct kw_probe_stats {
	__u64 calls;   /* entries seen (exits for exit-only probes) */
	__u64 missed;  /* exits without a recorded entry (attached mid-call, nesting overflow) */
	__u64 dropped; /* entries that could not be recorded (no memory for the task state) */
	__u64 errors;  /* calls that returned a negative errno */
};

/*
 * The histogram slots of kw_hists: the loader's numbering, in .rodata (bpf/trigger.bpf.c). A
 * probe's duration (ns, entry to exit; inclusive of nested probed calls) goes to dur[probe], its
 * size (bytes of arm64 walks, pages of flushes, gfns of x86 zaps) to size[probe], the valid
 * leaves cleared per kvm_pgtable_stage2_unmap call to cleared. KW_NO_HIST: not kept.
 */
#define KW_NO_HIST 0xff
#define KW_MAX_HISTS (2 * KW_NR_PROBES + 1)

struct kw_hist_slots {
	__u8 dur[KW_NR_PROBES];
	__u8 size[KW_NR_PROBES];
	__u8 cleared;
	/*
	 * Nonzero: the slots hold log2 histograms, struct kw_hist with KW_HIST_LOG2_BUCKETS buckets
	 * (bucket 0 holds 0, bucket k holds [2^(k-1), 2^k - 1]): 552 bytes instead of 4000. serve
	 * uses them when it exports log2 buckets (its default), which they give exactly.
	 */
	__u8 log2;
};


/* Walker callbacks of kvm_pgtable_walk: key of the `walk_cbs` PERCPU_HASH. */
struct kw_cb_key {
	__u64 cb;    /* walker->cb, a kernel text address; user space resolves it */
	__u32 flags; /* walker->flags */
	__u32 depth; /* nesting depth of the walk, 0 = outermost */
};

struct kw_cb_val {
	__u64 calls;
	__u64 ns; /* inclusive */
	__u64 bytes;
};

/* Visits of the per-entry callbacks: index into the `visits` PERCPU_ARRAY of __u64. */
enum kw_walker {
	KW_W_SPLIT,
	KW_W_UNMAP,
	KW_NR_WALKERS,
};

/* Levels -1 (LPA2) .. 3; stored as level + 1. */
#define KW_NR_LEVELS 5

enum kw_outcome {
	/* stage2_split_walker */
	KW_O_NOTHING, /* level 3, or an invalid entry: nothing to split */
	KW_O_SPLIT,   /* a valid block at level < 3, and the walker returned 0 */
	KW_O_FAILED,  /* a valid block, but the walker returned an error (-ENOMEM, -EAGAIN) */
	/* stage2_unmap_walker */
	KW_O_INVALID = 0, /* a leaf visit of an invalid entry: nothing cleared */
	KW_O_CLEARED = 1, /* a leaf visit of a valid entry: cleared */
	KW_O_TABLE = 2,	  /* a table visit (post-order) */
	KW_NR_OUTCOMES = 3,
};

#define KW_VISIT_IDX(w, lvl1, o) (((w)*KW_NR_LEVELS + (lvl1)) * KW_NR_OUTCOMES + (o))
#define KW_NR_VISITS (KW_NR_WALKERS * KW_NR_LEVELS * KW_NR_OUTCOMES)

/* Which stage-2 operation encloses a TLB flush. */
enum kw_encl {
	KW_E_UNMAP,
	KW_E_WRPROTECT, /* inside kvm_pgtable_stage2_wrprotect, or after it, in the same call */
	KW_E_SPLIT,
	KW_E_OTHER,
	KW_NR_ENCL,
};

/*
 * Return codes of x86 fast_page_fault are counted by raw value (enum RET_PF_* is anonymous, so
 * CO-RE cannot relocate it, and 6.12 inserted RET_PF_WRITE_PROTECTED in the middle); the loader
 * names the values from the kvm module's BTF. Values >= KW_NR_PF_RET - 1 share the last slot.
 */
#define KW_NR_PF_RET 8

/* Scalar counters: index into the `counters` PERCPU_ARRAY of __u64. */
enum kw_counter {
	/*
	 * The task state could not be created (task storage: -ENOMEM; on 6.1 also another program
	 * on the CPU inside task storage). Named after the per-task hash it replaced; the recording
	 * and Prometheus keep the name "task_map_full".
	 */
	KW_C_TASK_FULL,
	KW_C_DEPTH_OVERFLOW, /* kvm_pgtable_walk nested deeper than KW_MAX_DEPTH */
	KW_C_CB_FULL,	     /* walk_cbs full */
	KW_C_TRIG_FULL,	     /* triggers full */
	KW_C_UNMAP_CALLS,    /* kvm_pgtable_stage2_unmap calls that returned */
	KW_C_UNMAP_CLEARED,  /* valid leaves cleared by them */
	KW_C_UNMAP_EMPTY,    /* unmap calls that cleared no leaf */
	KW_C_UNMAP_FLUSHES,  /* range flushes issued inside unmap calls */
	KW_C_EMPTY_FLUSHES,  /* range flushes issued inside unmap calls that cleared no leaf */
	KW_C_UNMAP_FLUSH_NS, /* time in those flushes */
	KW_C_EMPTY_FLUSH_NS, /* time in the empty ones */
	KW_C_FLUSH_ENCL,     /* KW_NR_ENCL counters: flushes by enclosing operation */
	/* KW_NR_ENCL counters: pages by enclosing operation */
	KW_C_FLUSH_ENCL_PAGES = KW_C_FLUSH_ENCL + KW_NR_ENCL,
	/* sum of (end - start) of zap calls */
	KW_C_ZAP_GFNS = KW_C_FLUSH_ENCL_PAGES + KW_NR_ENCL,
	KW_C_ZAP_ZAPPED,    /* present leaf SPTEs zapped inside tdp_mmu_zap_leafs */
	KW_C_SPTE_CHANGES,  /* kvm_tdp_mmu_spte_changed events seen */
	KW_C_ZAP_VISITS_4K, /* 4 KiB entries visited by tdp_mmu_zap_leafs (tdp_iter_next) */
	KW_C_ZAP_YIELDS,    /* tdp_mmu_zap_leafs iterations that yielded mmu_lock */
	KW_C_UNDECIDED_FULL, /* --vm: program runs of a tgid not counted, kw_undecided full */
	/*
	 * kvm_pgtable_stage2_unmap calls inside kvm_nested_s2_unmap, and what they did. Counters
	 * of their own rather than an enclosure (enum kw_encl): a flush has one enclosure, and
	 * these flushes are unmap flushes too (flushes_in_unmap, empty_flushes include them).
	 */
	KW_C_NESTED_ACTIVE,	     /* kvm_nested_s2_unmap calls that made unmap calls */
	KW_C_NESTED_ACTIVE_NS,	     /* time in them */
	KW_C_NESTED_UNMAPS,	     /* unmap calls */
	KW_C_NESTED_CLEARED,	     /* valid leaves they cleared */
	KW_C_NESTED_EMPTY,	     /* unmap calls that cleared no leaf */
	KW_C_NESTED_FLUSHES,	     /* range flushes they issued */
	KW_C_NESTED_EMPTY_FLUSHES,   /* range flushes of the calls that cleared no leaf */
	KW_C_NESTED_FLUSH_NS,	     /* time in their flushes */
	KW_C_NESTED_EMPTY_FLUSH_NS,  /* time in the empty ones */
	KW_C_PF_RET,	    /* KW_NR_PF_RET counters: fast_page_fault return codes by value */
	/*
	 * tdp_mmu_zap_leafs calls seen from entry to exit, so their own leaves zapped and 4 KiB
	 * visits are known; added after the return codes so that older indexes keep their values.
	 */
	KW_C_ZAP_CALLS = KW_C_PF_RET + KW_NR_PF_RET,
	KW_C_ZAP_EMPTY,		  /* of them, zaps that made no present leaf non-present */
	KW_C_ZAP_EMPTY_VISITS_4K, /* 4 KiB entries visited by those (as KW_C_ZAP_VISITS_4K) */
	KW_C_ZAP_EMPTY_NS,	  /* time in those */
	/* a context (ioctl, fault, notifier, teardown) still open at a boundary that proves it over */
	KW_C_CTX_HEALED,
	/*
	 * Aging, by call: an age call clears the Accessed bit of the young entries of its range
	 * (x86 kvm_tdp_mmu_age_gfn_range, arm64 kvm_pgtable_stage2_test_clear_young with mkold), a
	 * test-age call only looks (kvm_tdp_mmu_test_age_gfn, test_clear_young without mkold).
	 * Counted at the exit of the calls seen from entry to exit; the entries are those the
	 * call's own walk visited (x86: tdp_iter_next and the spte_changed tracepoint inside it,
	 * arm64: stage2_age_walker inside it).
	 */
	KW_C_AGE_CALLS,		 /* age calls */
	KW_C_AGE_NS,		 /* time in them */
	KW_C_AGE_YOUNG_CALLS,	 /* of them, calls that found a young entry (returned true) */
	KW_C_AGE_VISITS,	 /* entries visited (x86: iterator steps; arm64: leaf visits) */
	KW_C_AGE_YOUNG,		 /* arm64: visits of a valid leaf with the Access Flag set */
	KW_C_AGE_OLD,		 /* entries made old (their Accessed bit / Access Flag cleared) */
	KW_C_TEST_AGE_CALLS,	 /* test-age calls */
	KW_C_TEST_AGE_NS,	 /* time in them */
	KW_C_TEST_AGE_YOUNG_CALLS, /* of them, calls that found a young entry (returned true) */
	KW_C_TEST_AGE_VISITS,	 /* entries visited (as KW_C_AGE_VISITS) */
	KW_C_TEST_AGE_YOUNG,	 /* arm64: visits of a valid leaf with the Access Flag set */
	KW_NR_COUNTERS,
};

/* What caused a probed call. */
enum kw_trigger {
	KW_T_OTHER,    /* none of the below: a kernel thread, a timer, ... */
	KW_T_IOCTL,    /* a KVM ioctl on the VM or vCPU fd (cmd says which) */
	KW_T_NOTIFIER, /* an MMU-notifier invalidation (munmap, madvise, reclaim, migration) */
	KW_T_FAULT,    /* a vCPU stage-2 / TDP fault */
	KW_T_TEARDOWN, /* a VM's teardown: the MMU notifier's release (VM destroyed, process exit) */
	KW_T_AGING,    /* MMU-notifier aging: clear_flush_young, clear_young, test_young */
	KW_NR_TRIGGERS,
};

/*
 * What a memslot change does: kvm_arch_prepare_memory_region's enum kvm_mr_change, with a
 * flags-only change told apart by KVM_MEM_LOG_DIRTY_PAGES in the old and the new slot. The
 * ioctl that made it (KVM_SET_USER_MEMORY_REGION or ...2) is keyed by it, and so is every walk
 * inside that ioctl after kvm_arch_prepare_memory_region ran (bpf/trigger.bpf.c).
 */
enum kw_memslot_op {
	KW_MS_NONE,	     /* no memslot change (yet) in the ioctl, or not an ioctl */
	KW_MS_CREATE,	     /* KVM_MR_CREATE */
	KW_MS_DELETE,	     /* KVM_MR_DELETE (memory_size 0) */
	KW_MS_MOVE,	     /* KVM_MR_MOVE (a new guest_phys_addr; its flags may change too) */
	KW_MS_DIRTY_LOG_ON,  /* KVM_MR_FLAGS_ONLY: KVM_MEM_LOG_DIRTY_PAGES off in old, on in new */
	KW_MS_DIRTY_LOG_OFF, /* KVM_MR_FLAGS_ONLY: on in old, off in new */
	KW_MS_FLAGS,	     /* KVM_MR_FLAGS_ONLY, dirty logging unchanged (KVM_MEM_READONLY, ...) */
	KW_NR_MEMSLOT_OPS,
};

struct kw_trig_key {
	__u32 probe;   /* enum kw_probe */
	__u32 trigger; /* enum kw_trigger */
	__u32 cmd;     /* the ioctl command for KW_T_IOCTL, else 0 */
	__u32 pid;     /* tgid of the task, the VMM's process id */
	/*
	 * enum kw_memslot_op for KW_T_IOCTL, else 0: what the ioctl in flight changes, from the
	 * moment kvm_arch_prepare_memory_region classified it. A call KVM then rejected keeps
	 * that operation: an ioctl row with an operation counts the calls that reached
	 * kvm_arch_prepare_memory_region, those that made the change and those refused by it (the
	 * probe's errors count these) or right after it (a guest_memfd binding), with the time
	 * KVM took to refuse. A call refused before it (bad flags or sizes, an overlap, no memory
	 * for the dirty bitmap) or that changed nothing has none, and so has a walk made before
	 * it in the same ioctl (a deleted or moved slot is unmapped first, kvm_invalidate_memslot).
	 */
	__u32 memslot_op;
};

struct kw_trig_val {
	__u64 calls;
	__u64 ns;
};

#define KW_MAX_DEPTH 8 /* kvm_pgtable_walk nesting tracked per task */
#define KW_MAX_CBS 256
#define KW_MAX_TRIGS 1024
#define KW_MAX_PIDS 64 /* processes of --pid */
#define KW_MAX_VMS 16  /* names of --vm */
/* kw_pids: the --pid processes, the VMs --vm found, and (--vm) the processes it left out */
#define KW_PID_MAP_SIZE 4096
#define KW_UNDECIDED_SIZE 1024
/* kw_events: a process for user space to name */
struct kw_tgid_event {
	__u32 tgid;
	__u32 kind; /* KW_EV_* */
};
enum {
	KW_EV_NEW_ROW = 1, /* its first trigger row */
	KW_EV_EXEC = 2,	   /* --vm: it exec'd */
};
/* kw_vm_names: a --vm name, NUL-padded (user/identity.h's KW_VM_NAME_LEN) */
#define KW_VM_KEY_LEN 64
struct kw_vm_key {
	char name[KW_VM_KEY_LEN];
};
enum kw_pid_decision {
	KW_PID_RECORD = 1,
	KW_PID_IGNORE = 2,
};

#endif /* KW_KVMWALK_ABI_H */
