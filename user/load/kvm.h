/* SPDX-License-Identifier: GPL-2.0 */
/* kvmwalk-load: the VM (kvm.c) and the per-arch guest (guest_x86.c, guest_arm64.c). */
#ifndef KVMWALK_LOAD_KVM_H
#define KVMWALK_LOAD_KVM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "load/load.h"

/*
 * Guest physical layout. The code slot (slot 0) holds the guest code at CODE_GPA and one
 * mailbox per vCPU from MAILBOX_GPA; it is never invalidated (a guest whose code page is
 * zapped refaults it, but one whose code page is madvised away reads zeroes and hangs).
 * EXIT_GPA is outside every slot: an arm64 store there is an MMIO exit.
 */
#define CODE_GPA UINT64_C(0x10000)
#define CODE_SIZE UINT64_C(0x10000)
#define MAILBOX_GPA (CODE_GPA + 0x1000)
#define MAILBOX_STRIDE 64
#define EXIT_GPA UINT64_C(0x1000)
/* arm64 nested-unmap: the vEL2 entry point, and the in-kernel vGICv3 (below the data slot) */
#define NESTED_CODE_GPA (CODE_GPA + 0x40)
#define VGIC_DIST_GPA UINT64_C(0x08000000)
#define VGIC_REDIST_GPA UINT64_C(0x080a0000) /* 128 KiB per vCPU */
#define EXIT_PORT 0x10
#define DATA_GPA SZ_1G
#define SPARSE_GPA (UINT64_C(64) << 30)

#define SLOT_CODE 0
#define SLOT_DATA 1
#define SLOT_SPARSE 2

/* Read by the guest before each pass; written by the host before each KVM_RUN. */
struct mailbox {
	uint64_t start;	   /* GPA of the first page */
	uint64_t pages;	   /* pages to store to */
	uint64_t stride;   /* bytes between stores */
	uint64_t value;	   /* the 64-bit word stored at the start of each page */
	uint64_t exit_gpa; /* arm64: where the exit store goes */
	uint64_t vttbr;	   /* arm64 nested: the vEL2 guest's VTTBR_EL2 (its VMID) */
	uint64_t el1;	   /* arm64 nested: non-zero: ERET to vEL1, then exit */
};

struct vm;

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	bool started;
	uint64_t gen_seen;   /* the last run request taken (vm->lock) */
	uint64_t gen_done;   /* the last run request finished (vm->lock) */
	volatile int kicked; /* the host gave up waiting: KVM_RUN's EINTR is final */
	int failed;	     /* the last run failed; why says how */
	uint64_t passes;     /* vm__start(loop): complete passes of the last run */
	uint64_t host_faults; /* vm__start(loop): minor + major faults of the thread meanwhile */
	char why[512];
};

struct vm {
	const struct load_opts *o;
	int kvm_fd, vm_fd;
	int run_size;
	uint8_t *code;
	uint8_t *data;	    /* 2 MiB aligned host memory of the data slot */
	uint64_t data_size; /* vcpus * mem */
	void *data_map;	    /* what to munmap */
	size_t data_map_len;
	uint32_t data_flags; /* current flags of the data slot */
	bool data_present;
	void *sparse;
	uint64_t sparse_size;
	bool nested; /* arm64: vCPUs with EL2 and an in-kernel vGICv3 */
	int ipa_bits; /* arm64: the VM's IPA size in bits (40 when the VM type gave none) */
	int vgic_fd;
	unsigned int nr_vcpus;
	struct vcpu *vcpus;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	uint64_t gen;
	unsigned int ndone;
	bool stop;
	bool loop;	/* the run in progress repeats its pass until loop_stop */
	int loop_stop;	/* atomic: the vCPUs make one more whole pass, then stop */
};

struct vm_config {
	/* KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 with KVM_DIRTY_LOG_INITIALLY_SET */
	bool manual_protect;
	/* arm64: vCPUs start at vEL2 (KVM_ARM_VCPU_HAS_EL2, needs KVM_CAP_ARM_EL2) */
	bool nested;
};

int vm__open(const struct load_opts *o, const struct vm_config *cfg, struct vm **out);
void vm__close(struct vm *vm);
/*
 * Every vCPU stores @value ^ vcpu id to the first word of each of its @pages pages (0: none),
 * then exits. Waits at most --timeout seconds.
 */
int vm__run(struct vm *vm, uint64_t pages, uint64_t value);
/*
 * vm__run() in two halves. With @loop every vCPU repeats its pass (one KVM_RUN each) until
 * vm__wait(): a pass that starts after vm__wait() was called is the last, so every page holds
 * the value when it returns. The --timeout counts from vm__wait().
 */
void vm__start(struct vm *vm, uint64_t pages, uint64_t value, bool loop);
int vm__wait(struct vm *vm);
/* vCPUs whose run ended (failed, with a loop) since vm__start() */
unsigned int vm__ndone(struct vm *vm);
uint64_t vm__value(uint64_t value, unsigned int vcpu);
int vm__set_data_flags(struct vm *vm, uint32_t flags);
int vm__delete_data_slot(struct vm *vm);
int vm__add_data_slot(struct vm *vm);
int vm__add_sparse_slot(struct vm *vm, uint64_t size);
int vm__delete_sparse_slot(struct vm *vm);
int vm__get_dirty_log(struct vm *vm, uint64_t *bitmap);
int vm__clear_dirty_log(struct vm *vm, uint64_t *bitmap, uint64_t first, uint64_t n);
/* Pages of vCPU @vcpu's part whose first word holds vm__value(@value, vcpu). */
uint64_t vm__count_value(struct vm *vm, unsigned int vcpu, uint64_t value);
/* 2 MiB blocks backing the data memory now (smaps AnonHugePages or Private_Hugetlb). */
int vm__blocks_2m(struct vm *vm, uint64_t *blocks);

int vm__vcpu_stat(struct vm *vm, const char *name, uint64_t *sum);

/* guest_x86.c or guest_arm64.c, whichever matches the build. */
const void *guest_code(size_t *len);
int guest_vm_setup(struct vm *vm);
int guest_vcpu_setup(struct vm *vm, struct vcpu *v);
/* true when the vCPU stopped at the guest's exit instruction */
bool guest_exit_ok(struct vcpu *v);
/* Appends the exit reason and the registers of a stopped vCPU to @buf. */
void guest_dump(struct vcpu *v, char *buf, size_t len);
/* Makes host writes visible to a guest running with its MMU off, and the guest's to the host. */
void guest_cache_sync(const void *p);
#ifdef __aarch64__
/* guest_arm64.c: 1 if the stopped vCPU is at (v)EL1, 0 if not, or a negative errno */
int guest_vcpu_at_el1(struct vcpu *v);
#endif

#endif
