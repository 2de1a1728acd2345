/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers, under the recording model. The names of the KVM ioctls by number, for x86 and
 * for arm64 whichever kvmwalk was built for: a recording is named by its own host's arch. The
 * tables are generated from the uapi headers of the newest kernel kvmwalk knows, never from the
 * build machine's (user/kvm_ioctls_ARCH.h, scripts/gen-ioctls).
 */
#ifndef KW_IOCTLS_H
#define KW_IOCTLS_H

#include <stddef.h>

/*
 * The fd an ioctl is defined for: the section of <linux/kvm.h> that holds it. KW_FD_VCPU is the
 * vcpu section and the later additions after it (KVM_CLEAR_DIRTY_LOG, a VM ioctl, is one), so
 * it means "not a VM fd's for sure"; KW_FD_ANY asks for any.
 */
enum kw_ioctl_fd { KW_FD_ANY = -1, KW_FD_DEV, KW_FD_VM, KW_FD_VCPU, KW_FD_DEVICE };

struct kw_ioctl {
	unsigned int cmd;
	const char *name;
	int fd; /* enum kw_ioctl_fd */
};

/* An arch's table: its own ioctls first (where two names share a number, the first wins). */
struct kw_ioctl_table {
	const char *arch; /* "x86", "arm64" */
	const char *uapi; /* the package the table was generated from */
	const struct kw_ioctl *ioctls;
	size_t n;
	size_t found; /* the definitions the generator found in that uapi's linux/kvm.h */
};

/* The table of arch ("x86", "arm64"; anything else: the arch kvmwalk was built for). */
const struct kw_ioctl_table *kw_ioctl_table(const char *arch);

/*
 * The name of ioctl cmd on arch, or NULL: the first of the table's names of cmd whose section
 * is fd (KW_FD_VM: any section but the vcpu one), else the first of any section.
 */
const char *kw_ioctl_name(const char *arch, unsigned int cmd, int fd);

#endif
