// SPDX-License-Identifier: GPL-2.0
/* VM names from QEMU's and libvirt's traces in /proc (identity.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "identity.h"

/* cmdline given as one string with '|' for the NULs between arguments */
static int from_cmdline(const char *spec, char *name, size_t size)
{
	char buf[512];
	size_t n = strlen(spec);

	memcpy(buf, spec, n + 1);
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '|')
			buf[i] = '\0';
	return kw_vm_name_from_cmdline(buf, n + 1, name, size);
}

static void expect_cmdline(const char *spec, int ret, const char *want)
{
	char name[KW_VM_NAME_LEN] = "x";

	ASSERT_EQ(from_cmdline(spec, name, sizeof(name)), ret, spec);
	ASSERT_STREQ(name, want, spec);
}

static void expect_cgroup(const char *text, int ret, const char *want)
{
	char name[KW_VM_NAME_LEN] = "x";

	ASSERT_EQ(kw_vm_name_from_cgroup(text, name, sizeof(name)), ret, text);
	ASSERT_STREQ(name, want, text);
}

static void write_file(const char *dir, const char *file, const char *data, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (!ASSERT_TRUE(f, path))
		return;
	fwrite(data, 1, len, f);
	fclose(f);
}

void test_identity(void)
{
	/* libvirt's QEMU command line, QEMU's own forms, kvmwalk-load's --name */
	expect_cmdline("/usr/bin/qemu-system-aarch64|-name|guest=web01,debug-threads=on|-S", 0,
		       "web01");
	expect_cmdline("qemu|-name|db,process=qemu:db", 0, "db");
	expect_cmdline("qemu|-name|debug-threads=on,guest=late", 0, "late");
	expect_cmdline("qemu|-name|guest=a,,b,debug-threads=on", 0, "a,b");
	expect_cmdline("kvmwalk-load|--scenario|split|--name|src", 0, "src");
	expect_cmdline("kvmwalk-load|--name=dst|--vcpus|2", 0, "dst");
	/* nothing to name it by */
	expect_cmdline("qemu|-name|debug-threads=on", -ENOENT, "");
	expect_cmdline("qemu|-m|1G", -ENOENT, "");
	expect_cmdline("qemu|-name", -ENOENT, "");
	expect_cmdline("qemu|-name||-m|1G", -ENOENT, "");

	expect_cgroup("0::/machine.slice/machine-qemu\\x2d3\\x2dweb01.scope/libvirt/emulator\n", 0,
		      "web01");
	expect_cgroup("0::/machine.slice/machine-qemu\\x2d12\\x2dmy\\x2dvm.scope/libvirt\n", 0,
		      "my-vm");
	expect_cgroup("0::/user.slice/user-0.slice/session-1.scope\n", -ENOENT, "");
	expect_cgroup("0::/machine.slice/machine-qemu\\x2dx\\x2dbad.scope\n", -ENOENT, "");

	/* a /proc of one process: the name from the cmdline wins over the cgroup */
	{
		char dir[] = "/tmp/kvmwalk-test-identity.XXXXXX", pdir[600];
		static const char cmdline[] = "qemu-system-x86_64\0-name\0guest=vm7\0";
		static const char cgroup[] = "0::/machine.slice/machine-qemu\\x2d1\\x2dother.scope\n";
		struct kw_identity id;

		if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp"))
			return;
		snprintf(pdir, sizeof(pdir), "%s/4242", dir);
		mkdir(pdir, 0755);
		write_file(pdir, "comm", "qemu-system-x86\n", 16);
		write_file(pdir, "cmdline", cmdline, sizeof(cmdline));
		write_file(pdir, "cgroup", cgroup, strlen(cgroup));
		ASSERT_EQ(kw_identity_read(4242, dir, &id), 0, "read");
		ASSERT_STREQ(id.comm, "qemu-system-x86", "comm");
		ASSERT_STREQ(id.vm, "vm7", "name from the cmdline");
		ASSERT_STREQ(id.source, "cmdline", "source");
		/* the test conditions' facts (vmm.h), read with the name */
		ASSERT_STREQ(id.cmdline, "qemu-system-x86_64 -name guest=vm7 ''",
			     "the command line (this one ends with an empty argument)");
		ASSERT_FALSE(id.cmdline_cut, "whole");
		ASSERT_STREQ(id.opts.vmm, "qemu", "QEMU");
		ASSERT_STREQ(id.exe, "", "no exe link");
		snprintf(pdir, sizeof(pdir), "%s/4242/exe", dir);
		ASSERT_EQ(symlink("/usr/bin/qemu-system-x86_64", pdir), 0, "exe link");
		snprintf(pdir, sizeof(pdir), "%s/4242", dir);
		ASSERT_EQ(kw_identity_read(4242, dir, &id), 0, "read with exe");
		ASSERT_STREQ(id.exe, "/usr/bin/qemu-system-x86_64", "the binary");
		write_file(pdir, "cmdline", "qemu\0-m\0", 8);
		ASSERT_EQ(kw_identity_read(4242, dir, &id), 0, "read again");
		ASSERT_STREQ(id.vm, "other", "name from the cgroup");
		ASSERT_STREQ(id.source, "cgroup", "source");
		ASSERT_EQ(kw_identity_read(4243, dir, &id), -ENOENT, "a process that is gone");
		snprintf(pdir, sizeof(pdir), "rm -rf %s", dir);
		ASSERT_EQ(system(pdir), 0, "cleanup");
	}
}
