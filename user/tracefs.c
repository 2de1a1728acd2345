// SPDX-License-Identifier: GPL-2.0
/* Finding (or mounting) tracefs; see tracefs.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "tracefs.h"

static bool has_events(const char *root)
{
	char path[192];

	snprintf(path, sizeof(path), "%s/events", root);
	return !access(path, F_OK);
}

int kw_tracefs_find(struct kw_tracefs *t, const char *sys, bool may_mount)
{
	char tracing[128], debug[128];

	memset(t, 0, sizeof(*t));
	snprintf(tracing, sizeof(tracing), "%s/sys/kernel/tracing", sys);
	snprintf(debug, sizeof(debug), "%s/sys/kernel/debug/tracing", sys);
	if (has_events(tracing)) {
		snprintf(t->root, sizeof(t->root), "%s", tracing);
		return 0;
	}
	/* debugfs mounted: its tracing/ is tracefs (automounted on first access) */
	if (has_events(debug)) {
		snprintf(t->root, sizeof(t->root), "%s", debug);
		return 0;
	}
	if (!may_mount) {
		snprintf(t->why, sizeof(t->why),
			 "tracefs is not mounted (%s/events missing); mount it: mount -t tracefs "
			 "nodev /sys/kernel/tracing",
			 tracing);
		return -ENOENT;
	}
	/*
	 * As systemd's sys-kernel-tracing.mount does. Left mounted on exit, like systemd's: a
	 * tracefs mount holds no state of kvmwalk's (nothing is written to it), and unmounting
	 * it could pull it from under another tool that started using it meanwhile.
	 */
	if (!mount("nodev", tracing, "tracefs", 0, NULL)) {
		if (has_events(tracing)) {
			snprintf(t->root, sizeof(t->root), "%s", tracing);
			t->mounted = true;
			return 0;
		}
		umount(tracing);
		errno = ENOENT;
	}
	snprintf(t->why, sizeof(t->why),
		 "tracefs is not mounted and mounting it failed (%s); as root on the host: "
		 "mount -t tracefs nodev /sys/kernel/tracing",
		 strerror(errno));
	return -ENOENT;
}
