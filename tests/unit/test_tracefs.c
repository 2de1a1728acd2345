// SPDX-License-Identifier: GPL-2.0
/*
 * Where kvmwalk finds tracefs, on fake sysfs trees. Mounting is not tried here (the unit tests
 * run as root in make test: a mount would be real); tests/host/test-tracefs runs kvmwalk in a
 * private mount namespace with tracefs unmounted for that.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "tracefs.h"

static void mkdirs(const char *base, const char *rel)
{
	char path[256], *p;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	for (p = path + strlen(base) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	mkdir(path, 0755);
}

void test_tracefs(void)
{
	char base[] = "/tmp/kw-tracefs-XXXXXX", cmd[300];
	struct kw_tracefs t;
	char want[256];

	if (!ASSERT_TRUE(mkdtemp(base), "mkdtemp"))
		return;

	/* nothing mounted (the folders exist, as on a real host): the reason names the fix */
	mkdirs(base, "sys/kernel/tracing");
	mkdirs(base, "sys/kernel/debug");
	ASSERT_EQ(kw_tracefs_find(&t, base, false), -ENOENT, "none");
	ASSERT_STREQ(t.root, "", "no root");
	ASSERT_TRUE(strstr(t.why, "mount -t tracefs nodev /sys/kernel/tracing"), t.why);

	/* debugfs mounted, tracefs not: debugfs's tracing/ */
	mkdirs(base, "sys/kernel/debug/tracing/events");
	ASSERT_EQ(kw_tracefs_find(&t, base, false), 0, "debugfs");
	snprintf(want, sizeof(want), "%s/sys/kernel/debug/tracing", base);
	ASSERT_STREQ(t.root, want, "debugfs root");
	ASSERT_FALSE(t.mounted, "debugfs: not mounted by kvmwalk");

	/* tracefs mounted: preferred */
	mkdirs(base, "sys/kernel/tracing/events");
	ASSERT_EQ(kw_tracefs_find(&t, base, true), 0, "tracefs");
	snprintf(want, sizeof(want), "%s/sys/kernel/tracing", base);
	ASSERT_STREQ(t.root, want, "tracefs root");
	ASSERT_FALSE(t.mounted, "tracefs: already there");

	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	ASSERT_EQ(system(cmd), 0, "cleanup");
}
