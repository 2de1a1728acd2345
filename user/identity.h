/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which VM a process is: its comm and a VM name, read once per process from /proc (never per
 * event). The name is QEMU's `-name guest=NAME,...` or `-name NAME` from /proc/PID/cmdline (also
 * kvmwalk-load's `--name NAME`, which shows itself the way QEMU does), else libvirt's
 * machine-qemu\x2dN\x2dNAME.scope from /proc/PID/cgroup, else none.
 */
#ifndef KVMWALK_IDENTITY_H
#define KVMWALK_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vmm.h"

#define KW_VM_NAME_LEN 64

struct kw_identity {
	uint32_t pid;
	char comm[16];
	char vm[KW_VM_NAME_LEN]; /* "" when none was found */
	const char *source;	 /* "cmdline", "cgroup" or NULL: where vm came from */
	/* its command line (vmm.h: bounded, secrets hidden), what it says, its binary */
	char cmdline[KW_VM_CMDLINE_LEN];
	bool cmdline_cut;
	struct kw_vm_opts opts;
	char exe[128];
};

/*
 * The VM name in a NUL-separated argument vector of @len bytes (/proc/PID/cmdline), or "" when
 * none: `-name NAME`, `-name guest=NAME,...` and `--name NAME` / `--name=NAME`; QEMU's
 * `,,` (an escaped comma) becomes `,`. Returns 0 when a name was found, -ENOENT otherwise.
 */
int kw_vm_name_from_cmdline(const char *args, size_t len, char *name, size_t size);
/* The VM name in /proc/PID/cgroup's text (libvirt's machine-qemu\x2dN\x2dNAME.scope, with \xHH
 * escapes undone), 0 or -ENOENT. */
int kw_vm_name_from_cgroup(const char *text, char *name, size_t size);
/* Fills @id for @pid from @proc (normally "/proc"); 0, or -errno when the process is gone. */
int kw_identity_read(uint32_t pid, const char *proc, struct kw_identity *id);

#endif
