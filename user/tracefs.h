/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where tracefs is. kvmwalk's tracepoint fallbacks (syscalls:sys_enter_ioctl, lock:contention_*)
 * and its "is this function traceable" check read tracefs; containers and minimal hosts often
 * boot without it mounted. No libbpf here: unit-tested with a fake root.
 */
#ifndef KW_TRACEFS_H
#define KW_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

struct kw_tracefs {
	char root[128];	 /* "/sys/kernel/tracing", "/sys/kernel/debug/tracing", "" if none */
	bool mounted;	 /* kvmwalk mounted it (it was not mounted before) */
	char why[320];	 /* no root: why not, and the command that fixes it */
};

/*
 * Finds a tracefs with an events/ folder under sysfs (prefix "" on a real host; tests pass a
 * fake tree): SYS/kernel/tracing, else debugfs's SYS/kernel/debug/tracing, else, when
 * may_mount, mounts tracefs at SYS/kernel/tracing as systemd does at boot. Returns 0 or
 * -ENOENT with t->why set.
 */
int kw_tracefs_find(struct kw_tracefs *t, const char *sys, bool may_mount);

#endif /* KW_TRACEFS_H */
