/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers. What a VM process's command line and binary say about its VM, read without
 * running anything: which VMM it is (QEMU, kvmwalk-load), its command line (bounded, secrets
 * hidden), the options that size the VM's IPA space or turn on eager split, QEMU's version from
 * the binary's own version string, and the VM's IPA size from debugfs where the kernel has
 * CONFIG_PTDUMP_STAGE2_DEBUGFS. identity.c reads them with the process's name.
 */
#ifndef KW_VMM_H
#define KW_VMM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A VM process's command line as kept: at most this many bytes with its NUL. */
#define KW_VM_CMDLINE_LEN 1024

/*
 * The NUL-separated argument vector args (len bytes; complete: it was read whole) as one line:
 * arguments separated by spaces, quoted for a POSIX shell where needed, the values of QEMU's
 * secret options (password=, passwd=, data= of -object secret) replaced by HIDDEN. When it does not
 * fit in size bytes it ends after the last whole argument that does, with " ...". Returns true
 * if it was cut (or was not read whole).
 */
bool kw_vm_cmdline_text(const char *args, size_t len, bool complete, char *dst, size_t size);

/* What the VM process is told by its command line. */
struct kw_vm_opts {
	char vmm[16];	    /* "qemu", "kvmwalk-load", "" for another */
	char ipa_opt[16];   /* kvmwalk-load --ipa-bits: "48", "max"; "" absent */
	char eager_opt[16]; /* kvmwalk-load --eager-split, QEMU -accel kvm,eager-split-size; "" */
};

void kw_vm_opts_of(const char *args, size_t len, struct kw_vm_opts *o);

/* The version after "QEMU emulator version " in buf (the binary's bytes), "" if none. */
void kw_vmm_version_of(const char *buf, size_t len, char *dst, size_t size);
/*
 * QEMU's version from the .rodata of the ELF file path (such as /proc/PID/exe), remembered per
 * file (device and inode) so that each binary is read once. 0, or -errno ("" in dst).
 */
int kw_vmm_version_file(const char *path, char *dst, size_t size);

/*
 * The IPA sizes of pid's VMs from debugfs (dir: /sys/kernel/debug/kvm), folders "PID-FD" with an
 * ipa_range file (arm64, CONFIG_PTDUMP_STAGE2_DEBUGFS): "40", or "40,48" for two VMs; "" if none.
 */
void kw_vm_debugfs_ipa(const char *dir, uint32_t pid, char *dst, size_t size);

#endif /* KW_VMM_H */
