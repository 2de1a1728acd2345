// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load's x86_64 guest: flat 32-bit protected mode, no paging, exits with `out`. */
#ifdef __x86_64__
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "load/kvm.h"

/*
 * ebx holds the vCPU's mailbox (set once by the host). 32-bit code; the 64-bit word is two
 * 32-bit stores to the same page, so a page still faults once.
 */
/* clang-format off */
static const uint8_t code[] = {
	/* start: */
	0x8b, 0x3b,	  /*  0: mov  edi, [ebx]        ; start */
	0x8b, 0x4b, 0x08, /*  2: mov  ecx, [ebx+8]      ; pages */
	0x8b, 0x53, 0x10, /*  5: mov  edx, [ebx+16]     ; stride */
	0x8b, 0x43, 0x18, /*  8: mov  eax, [ebx+24]     ; value, low half */
	0x8b, 0x6b, 0x1c, /* 11: mov  ebp, [ebx+28]     ; value, high half */
	0x85, 0xc9,	  /* 14: test ecx, ecx */
	0x74, 0x0a,	  /* 16: jz   done */
	/* loop: */
	0x89, 0x07,	  /* 18: mov  [edi], eax */
	0x89, 0x6f, 0x04, /* 20: mov  [edi+4], ebp */
	0x01, 0xd7,	  /* 23: add  edi, edx */
	0x49,		  /* 25: dec  ecx */
	0x75, 0xf6,	  /* 26: jnz  loop */
	/* done: */
	0xe6, EXIT_PORT,  /* 28: out  EXIT_PORT, al */
	0xeb, 0xe0,	  /* 30: jmp  start */
};
/* clang-format on */

const void *guest_code(size_t *len)
{
	*len = sizeof(code);
	return code;
}

int guest_vm_setup(struct vm *vm)
{
	/*
	 * Intel without unrestricted guest (and old kernels) need three pages for the real-mode
	 * TSS; put them where QEMU does, far above the data slot.
	 */
	if (ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, 0xfffbd000UL) < 0)
		return load_fail(EXIT_ERROR, "KVM_SET_TSS_ADDR: %s", strerror(errno));
	return 0;
}

int guest_vcpu_setup(struct vm *vm, struct vcpu *v)
{
	struct kvm_segment seg = {
		.base = 0,
		.limit = 0xffffffff,
		.present = 1,
		.dpl = 0,
		.db = 1,
		.s = 1,
		.l = 0,
		.g = 1,
	};
	struct kvm_sregs sregs;
	struct kvm_regs regs;

	(void)vm;
	/* Keep the reset values of tr and ldt: VMX checks them on entry. */
	if (ioctl(v->fd, KVM_GET_SREGS, &sregs) < 0)
		return load_fail(EXIT_ERROR, "KVM_GET_SREGS: %s", strerror(errno));
	seg.type = 11; /* execute/read, accessed */
	seg.selector = 1 << 3;
	sregs.cs = seg;
	seg.type = 3; /* read/write, accessed */
	seg.selector = 2 << 3;
	sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss = seg;
	sregs.cr0 |= 1; /* PE; PG stays off: GVA == GPA */
	sregs.cr0 &= ~(1UL << 31);
	sregs.cr4 = 0;
	sregs.efer = 0;
	if (ioctl(v->fd, KVM_SET_SREGS, &sregs) < 0)
		return load_fail(EXIT_ERROR, "KVM_SET_SREGS: %s", strerror(errno));
	memset(&regs, 0, sizeof(regs));
	regs.rip = CODE_GPA;
	regs.rflags = 2;
	regs.rbx = MAILBOX_GPA + v->id * MAILBOX_STRIDE;
	if (ioctl(v->fd, KVM_SET_REGS, &regs) < 0)
		return load_fail(EXIT_ERROR, "KVM_SET_REGS: %s", strerror(errno));
	return 0;
}

bool guest_exit_ok(struct vcpu *v)
{
	struct kvm_run *run = v->run;

	return run->exit_reason == KVM_EXIT_IO && run->io.direction == KVM_EXIT_IO_OUT &&
	       run->io.port == EXIT_PORT;
}

static const char *exit_name(unsigned int r)
{
	switch (r) {
	case KVM_EXIT_UNKNOWN:
		return "UNKNOWN";
	case KVM_EXIT_EXCEPTION:
		return "EXCEPTION";
	case KVM_EXIT_IO:
		return "IO";
	case KVM_EXIT_HLT:
		return "HLT";
	case KVM_EXIT_MMIO:
		return "MMIO";
	case KVM_EXIT_SHUTDOWN:
		return "SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY:
		return "FAIL_ENTRY";
	case KVM_EXIT_INTR:
		return "INTR";
	case KVM_EXIT_INTERNAL_ERROR:
		return "INTERNAL_ERROR";
	default:
		return "?";
	}
}

void guest_dump(struct vcpu *v, char *buf, size_t len)
{
	struct kvm_run *run = v->run;
	struct kvm_regs regs;
	size_t n;

	n = snprintf(buf, len, "exit reason %u (%s)", run->exit_reason,
		     exit_name(run->exit_reason));
	if (n >= len)
		return;
	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		n += snprintf(buf + n, len - n, " port %#x %s", run->io.port,
			      run->io.direction == KVM_EXIT_IO_OUT ? "out" : "in");
		break;
	case KVM_EXIT_MMIO:
		n += snprintf(buf + n, len - n, " gpa %#llx",
			      (unsigned long long)run->mmio.phys_addr);
		break;
	case KVM_EXIT_FAIL_ENTRY:
		n += snprintf(buf + n, len - n, " hardware reason %#llx",
			      (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		n += snprintf(buf + n, len - n, " suberror %u", run->internal.suberror);
		break;
	}
	if (n >= len)
		return;
	if (ioctl(v->fd, KVM_GET_REGS, &regs) < 0) {
		snprintf(buf + n, len - n, "; KVM_GET_REGS: %s", strerror(errno));
		return;
	}
	snprintf(buf + n, len - n,
		 "; rip %#llx rflags %#llx rax %#llx rbx %#llx rcx %#llx rdx %#llx rsi %#llx "
		 "rdi %#llx rbp %#llx",
		 regs.rip, regs.rflags, regs.rax, regs.rbx, regs.rcx, regs.rdx, regs.rsi, regs.rdi,
		 regs.rbp);
}

void guest_cache_sync(const void *p)
{
	(void)p;
}
#endif
