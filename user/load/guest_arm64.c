// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load's arm64 guest: EL1 with its MMU off, exits with an MMIO store. */
#ifdef __aarch64__
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "load/kvm.h"

/* Linux 6.4; the headers of Debian bookworm predate it. */
#ifndef KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE
#define KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE 228
#endif
#ifndef KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES
#define KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES 229
#endif

/*
 * x0 holds the vCPU's mailbox (set once by the host). With the MMU off every data access is
 * Device-nGnRnE: only aligned 64-bit loads and stores. The exit store needs a valid ISV
 * syndrome (a plain str, no writeback) so that KVM can report it as KVM_EXIT_MMIO.
 */
/* clang-format off */
static const uint32_t code[] = {
	/* start: */
	0xf9400001, /*  0: ldr  x1, [x0]        // start */
	0xf9400402, /*  1: ldr  x2, [x0, #8]    // pages */
	0xf9400803, /*  2: ldr  x3, [x0, #16]   // stride */
	0xf9400c04, /*  3: ldr  x4, [x0, #24]   // value */
	0xf9401005, /*  4: ldr  x5, [x0, #32]   // exit_gpa */
	0xb40000a2, /*  5: cbz  x2, done */
	/* loop: */
	0xf9000024, /*  6: str  x4, [x1] */
	0x8b030021, /*  7: add  x1, x1, x3 */
	0xd1000442, /*  8: sub  x2, x2, #1 */
	0xb5ffffa2, /*  9: cbnz x2, loop */
	/* done: */
	0xf90000bf, /* 10: str  xzr, [x5]       // MMIO exit */
	0x17fffff5, /* 11: b    start */
};
/* clang-format on */

#define CORE_REG(field)                                                                            \
	(KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE |                                     \
	 (offsetof(struct kvm_regs, field) / sizeof(uint32_t)))

const void *guest_code(size_t *len)
{
	*len = sizeof(code);
	return code;
}

static struct kvm_vcpu_init vcpu_init;

int guest_vm_setup(struct vm *vm)
{
	uint64_t chunk = vm->o->eager_split;

	if (chunk) {
		/*
		 * The chunk size is the granule the split walk works in; the kernel accepts it
		 * only before the first memslot and only a block size it supports. 0 (the
		 * default) means no eager split: dirty logging then splits on fault.
		 */
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE,
			.args[0] = chunk,
		};
		uint64_t sizes;

		/*
		 * Quirk: KVM_CHECK_EXTENSION(KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE) on a VM returns
		 * the VM's current chunk size, 0 by default, not whether the cap exists. The
		 * block-size cap came with it (6.4): a kernel without it lacks both.
		 */
		sizes = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_SUPPORTED_BLOCK_SIZES);
		if ((int64_t)sizes <= 0)
			return load_fail(EXIT_NO_CAP,
					 "the kernel lacks KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE "
					 "(--eager-split needs Linux 6.4 or later)");
		if (!(sizes & chunk))
			return load_fail(
				EXIT_NO_CAP,
				"--eager-split %#llx is not a supported block size (%#llx)",
				(unsigned long long)chunk, (unsigned long long)sizes);
		if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0)
			return load_fail(
				EXIT_NO_CAP,
				"KVM_ENABLE_CAP(KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE, %#llx): %s",
				(unsigned long long)chunk, strerror(errno));
	}
	if (ioctl(vm->vm_fd, KVM_ARM_PREFERRED_TARGET, &vcpu_init) < 0)
		return load_fail(EXIT_ERROR, "KVM_ARM_PREFERRED_TARGET: %s", strerror(errno));
	return 0;
}

static int set_reg(struct vcpu *v, uint64_t id, uint64_t val, const char *name)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&val };

	if (ioctl(v->fd, KVM_SET_ONE_REG, &reg) < 0)
		return load_fail(EXIT_ERROR, "KVM_SET_ONE_REG(%s): %s", name, strerror(errno));
	return 0;
}

static int get_reg(struct vcpu *v, uint64_t id, uint64_t *val)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)val };

	return ioctl(v->fd, KVM_GET_ONE_REG, &reg) < 0 ? -errno : 0;
}

int guest_vcpu_setup(struct vm *vm, struct vcpu *v)
{
	struct kvm_vcpu_init init = vcpu_init;

	(void)vm;
	/* Reset state: EL1h, DAIF masked, SCTLR_EL1.M = 0 (MMU off). */
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init) < 0)
		return load_fail(EXIT_ERROR, "KVM_ARM_VCPU_INIT (target %u): %s", init.target,
				 strerror(errno));
	if (set_reg(v, CORE_REG(regs.pc), CODE_GPA, "pc") ||
	    set_reg(v, CORE_REG(regs.regs[0]), MAILBOX_GPA + v->id * MAILBOX_STRIDE, "x0"))
		return -EIO;
	return 0;
}

bool guest_exit_ok(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	return run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write &&
	       run->mmio.phys_addr == EXIT_GPA;
}

void guest_dump(struct vcpu *v, char *buf, size_t len)
{
	struct kvm_run *run = v->run;
	uint64_t pc = 0, pstate = 0, x[6] = { 0 };
	size_t n;
	int i, err;

	n = snprintf(buf, len, "exit reason %u", run->exit_reason);
	if (n < len && run->exit_reason == KVM_EXIT_MMIO)
		n += snprintf(buf + n, len - n, " (MMIO %s gpa %#llx)",
			      run->mmio.is_write ? "write" : "read",
			      (unsigned long long)run->mmio.phys_addr);
	else if (n < len && run->exit_reason == KVM_EXIT_INTR)
		n += snprintf(buf + n, len - n, " (INTR)");
	else if (n < len && run->exit_reason == KVM_EXIT_FAIL_ENTRY)
		n += snprintf(buf + n, len - n, " (FAIL_ENTRY %#llx)",
			      (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
	if (n >= len)
		return;
	err = get_reg(v, CORE_REG(regs.pc), &pc);
	err = err ?: get_reg(v, CORE_REG(regs.pstate), &pstate);
	for (i = 0; i < 6 && !err; i++)
		err = get_reg(v, CORE_REG(regs.regs[i]), &x[i]);
	if (err) {
		snprintf(buf + n, len - n, "; KVM_GET_ONE_REG: %s", strerror(-err));
		return;
	}
	snprintf(buf + n, len - n,
		 "; pc %#llx pstate %#llx x0 %#llx x1 %#llx x2 %#llx x3 %#llx x4 %#llx x5 %#llx",
		 (unsigned long long)pc, (unsigned long long)pstate, (unsigned long long)x[0],
		 (unsigned long long)x[1], (unsigned long long)x[2], (unsigned long long)x[3],
		 (unsigned long long)x[4], (unsigned long long)x[5]);
}

/*
 * The guest's accesses are non-cacheable (MMU off) while the host's are cacheable: without
 * FEAT_S2FWB they can miss each other. Clean and invalidate the line to the point of
 * coherency (Linux lets EL0 do it: SCTLR_EL1.UCI).
 */
void guest_cache_sync(const void *p)
{
	asm volatile("dc civac, %0\n\tdsb ish" : : "r"(p) : "memory");
}
#endif
