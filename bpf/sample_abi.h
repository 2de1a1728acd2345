/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ABI of the sampled mode (bpf/sample.bpf.c, `kvmwalk record --sample`): a perf_event
 * program on a software CPU clock at a fixed rate on every CPU classifies each sample by its
 * kernel stack, in the kernel, against a table of function ranges user space fills from
 * /proc/kallsyms before load (user/sample_funcs.c): the innermost frame in a "work" function
 * (a walker, a flush, a zap, a fault handler) says WHAT the CPU was doing, the innermost frame in
 * a "trigger" function (an ioctl, an MMU notifier, a fault entry, a teardown, a nested unmap)
 * says on whose behalf. Samples are counted per (tgid, what, trigger); nothing is sent per
 * sample. The cost is one stack read and at most KW_SAMPLE_MAX_FRAMES bounded binary searches per
 * sample, whatever KVM does.
 */
#ifndef KW_SAMPLE_ABI_H
#define KW_SAMPLE_ABI_H

/* BPF code has the types from vmlinux.h */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define KW_SAMPLE_DEFAULT_HZ 49
#define KW_SAMPLE_MAX_HZ 999
/* the function table: a power of two, searched in KW_SAMPLE_SEARCH_STEPS halvings */
#define KW_SAMPLE_MAX_FUNCS 256
#define KW_SAMPLE_SEARCH_STEPS 9
/* kernel frames read per sample: a VM's teardown from process exit is about 30 deep */
#define KW_SAMPLE_MAX_FRAMES 64
/* (tgid, what, trigger) rows; a sample that finds the map full is counted in KW_SC_DROPPED */
#define KW_SAMPLE_MAX_ROWS 4096

/* What a trigger function is (kvmwalk's trigger names, plus the nested unmap). */
enum kw_sample_trigger {
	KW_ST_NONE,	    /* no trigger function on the stack */
	KW_ST_VCPU_IOCTL,   /* kvm_vcpu_ioctl (KVM_RUN, ...) */
	KW_ST_VM_IOCTL,	    /* kvm_vm_ioctl (memslots, dirty log, ...) */
	KW_ST_NOTIFIER,	    /* an MMU-notifier invalidation */
	KW_ST_AGING,	    /* MMU-notifier aging: clear_flush_young, clear_young, test_young */
	KW_ST_FAULT,	    /* a vCPU's stage-2 / TDP fault */
	KW_ST_TEARDOWN,	    /* the VM's teardown: the notifier's release, kvm_destroy_vm */
	KW_ST_NESTED_UNMAP, /* kvm_nested_s2_unmap: a nested host's shadow stage-2 unmap */
	KW_NR_SAMPLE_TRIGGERS,
};

/* One function of the table: [start, end), sorted by start, not overlapping. */
struct kw_sample_func {
	__u64 start;
	__u64 end;
	__u16 what;    /* a work function: its class, 1.. (user space names it); else 0 */
	__u16 trigger; /* a trigger function: enum kw_sample_trigger; else 0 */
	__u32 pad;
};

/* A row: the samples of one process in one (what, trigger); what 0: no work frame. */
struct kw_sample_key {
	__u32 tgid;
	__u16 what;
	__u16 trigger;
};

/* Per-CPU counters (kw_sample_counts) */
enum kw_sample_counter {
	KW_SC_SAMPLES, /* every sample the program saw, user and kernel */
	KW_SC_KERNEL,  /* samples in kernel context (a kernel stack was read) */
	KW_SC_NO_KVM,  /* kernel samples with no work and no trigger frame */
	KW_SC_DROPPED, /* KVM samples not counted: the row map was full */
	KW_SC_DEEP,    /* kernel stacks cut at KW_SAMPLE_MAX_FRAMES (outer frames unseen) */
	KW_NR_SAMPLE_COUNTERS,
};

#endif /* KW_SAMPLE_ABI_H */
