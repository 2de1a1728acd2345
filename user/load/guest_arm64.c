// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk-load's arm64 guest: EL1 with its MMU off, exits with an MMIO store. For nested-unmap
 * the vCPUs have EL2 and start at vEL2, from where they ERET once to vEL1 and exit there.
 */
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
/* Linux 6.16 (nested virtualization); Debian bookworm's headers predate it. */
#ifndef KVM_CAP_ARM_EL2
#define KVM_CAP_ARM_EL2 240
#endif
#ifndef KVM_ARM_VCPU_HAS_EL2
#define KVM_ARM_VCPU_HAS_EL2 7
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
	0, 0, 0, 0, /* 12-15: udf */
	/*
	 * nested: at vEL2 (NESTED_CODE_GPA), MMU off. VTCR_EL2: 4 KiB granule, T0SZ 16, SL0 2,
	 * PS 48 bits (only a lookup key: a nested MMU spans the host's IPA limit whatever it
	 * says); VTTBR_EL2: the mailbox's VMID, BADDR 0; HCR_EL2: RW, no TGE, no VM (stage 2
	 * off: the nested MMU is found by VMID, so distinct VMIDs make distinct MMUs). ERET to
	 * EL1h with DAIF masked. The first vEL1 instruction fetch maps the code page in the
	 * nested MMU; the store is an MMIO exit (an hvc would go to the guest's own vEL2).
	 */
	0xf9401005, /* 16: ldr  x5, [x0, #32]   // exit_gpa */
	0xf9401406, /* 17: ldr  x6, [x0, #40]   // vttbr */
	0xf9401807, /* 18: ldr  x7, [x0, #48]   // el1 */
	0xb4000247, /* 19: cbz  x7, at_el2 */
	0xd286b201, /* 20: mov  x1, #0x3590 */
	0xf2b000a1, /* 21: movk x1, #0x8005, lsl #16 */
	0xd51c2141, /* 22: msr  vtcr_el2, x1 */
	0xd51c2106, /* 23: msr  vttbr_el2, x6 */
	0xd53c1101, /* 24: mrs  x1, hcr_el2 */
	0xb2610021, /* 25: orr  x1, x1, #(1 << 31)   // RW */
	0x9264f821, /* 26: and  x1, x1, #~(1 << 27)  // TGE */
	0x927ff821, /* 27: and  x1, x1, #~1          // VM */
	0xd51c1101, /* 28: msr  hcr_el2, x1 */
	0xd28078a1, /* 29: mov  x1, #0x3c5           // EL1h, DAIF masked */
	0xd51c4001, /* 30: msr  spsr_el2, x1 */
	0x10000081, /* 31: adr  x1, at_el1 */
	0xd51c4021, /* 32: msr  elr_el2, x1 */
	0xd5033fdf, /* 33: isb */
	0xd69f03e0, /* 34: eret */
	/* at_el1: */
	0xf90000bf, /* 35: str  xzr, [x5]       // MMIO exit from vEL1 */
	0x17ffffff, /* 36: b    at_el1 */
	/* at_el2: */
	0xf90000bf, /* 37: str  xzr, [x5]       // MMIO exit from vEL2 */
	0x17ffffff, /* 38: b    at_el2 */
};
_Static_assert(sizeof(uint32_t) * 16 == NESTED_CODE_GPA - CODE_GPA, "nested entry offset");
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

static int nested_vm_setup(struct vm *vm);

static int vgic_attr(struct vm *vm, uint32_t group, uint64_t attr, void *val, const char *what)
{
	struct kvm_device_attr a = { .group = group, .attr = attr, .addr = (uintptr_t)val };

	if (ioctl(vm->vgic_fd, KVM_SET_DEVICE_ATTR, &a) < 0)
		return load_fail(EXIT_ERROR, "vGICv3 %s: %s", what, strerror(errno));
	return 0;
}

/*
 * vCPUs with EL2. KVM's NV needs an in-kernel vGICv3 created before the first KVM_RUN, else
 * that KVM_RUN fails with EAGAIN and no message (kvm_vgic_vcpu_nv_init() sets the vGIC's owner
 * before it is initialised); it is initialised once every vCPU exists (guest_vcpu_setup).
 */
static int nested_vm_setup(struct vm *vm)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint64_t dist = VGIC_DIST_GPA, redist = VGIC_REDIST_GPA;

	if (ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_EL2) <= 0)
		return load_fail(EXIT_NO_CAP,
				 "the host's KVM offers its guests no EL2 (KVM_CAP_ARM_EL2): "
				 "nested-unmap needs a host booted with kvm-arm.mode=nested on a "
				 "CPU with FEAT_NV2");
	if (ioctl(vm->vm_fd, KVM_CREATE_DEVICE, &dev) < 0)
		return load_fail(EXIT_NO_CAP, "KVM_CREATE_DEVICE(vGICv3, needed for EL2): %s",
				 strerror(errno));
	vm->vgic_fd = dev.fd;
	if (vgic_attr(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &dist,
		      "distributor address") ||
	    vgic_attr(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist,
		      "redistributor address"))
		return -EIO;
	vcpu_init.features[0] |= 1U << KVM_ARM_VCPU_HAS_EL2;
	return 0;
}

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
	return vm->nested ? nested_vm_setup(vm) : 0;
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

	/* Reset state: EL1h (nested: vEL2h), DAIF masked, SCTLR_ELx.M = 0 (MMU off). */
	if (ioctl(v->fd, KVM_ARM_VCPU_INIT, &init) < 0)
		return load_fail(EXIT_ERROR, "KVM_ARM_VCPU_INIT (target %u%s): %s", init.target,
				 vm->nested ? ", HAS_EL2" : "", strerror(errno));
	if (set_reg(v, CORE_REG(regs.pc), vm->nested ? NESTED_CODE_GPA : CODE_GPA, "pc") ||
	    set_reg(v, CORE_REG(regs.regs[0]), MAILBOX_GPA + v->id * MAILBOX_STRIDE, "x0"))
		return -EIO;
	if (vm->nested) {
		struct mailbox *mb =
			(void *)(vm->code + (MAILBOX_GPA - CODE_GPA) + v->id * MAILBOX_STRIDE);

		/* VMID id + 1 in VTTBR_EL2[63:48]: a nested MMU of its own per vCPU */
		mb->vttbr = (uint64_t)(v->id + 1) << 48;
		mb->el1 = vm->o->enter_el1;
		guest_cache_sync(mb);
		if (v->id + 1 == vm->o->vcpus &&
		    vgic_attr(vm, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL,
			      "init"))
			return -EIO;
	}
	return 0;
}

int guest_vcpu_at_el1(struct vcpu *v)
{
	uint64_t pstate;
	int err = get_reg(v, CORE_REG(regs.pstate), &pstate);

	if (err)
		return err;
	/* PSTATE.M[3:2] is the exception level (an EL2 guest's own EL, as KVM presents it) */
	return ((pstate >> 2) & 3) == 1;
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
