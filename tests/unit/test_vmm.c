// SPDX-License-Identifier: GPL-2.0
/*
 * A VM process's command line, options and version (user/vmm.c): the bounded, quoted command
 * line with its secrets hidden, QEMU's and kvmwalk-load's options, QEMU's version string from an
 * ELF's .rodata (this runner's own, which carries one), debugfs' IPA sizes.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "vmm.h"

/* what QEMU's version() prints, as a string literal of this runner's .rodata */
__attribute__((used)) static const char fake_qemu_version[] =
	"QEMU emulator version 9.9.9 (kvmwalk unit test)\nCopyright (c) 2003-2026";

#define ARGS(s) s, sizeof(s) - 1

static void test_cmdline(void)
{
	char line[KW_VM_CMDLINE_LEN], small[40], *big;
	static const char qemu[] = "qemu-system-aarch64\0-M\0virt,gic-version=3\0-name\0"
				   "guest=web 01\0-object\0secret,id=s0,data=hunter2,format=raw\0"
				   "-vnc\0:0,password=letmein\0-append\0it's\0";
	size_t n = 0;

	ASSERT_FALSE(kw_vm_cmdline_text(ARGS("kvmwalk-load\0--scenario=split\0--mem=8M\0"), true,
					line, sizeof(line)),
		     "fits");
	ASSERT_STREQ(line, "kvmwalk-load --scenario=split --mem=8M", "words");
	ASSERT_FALSE(kw_vm_cmdline_text(ARGS(qemu), true, line, sizeof(line)), "QEMU fits");
	ASSERT_STREQ(line,
		     "qemu-system-aarch64 -M virt,gic-version=3 -name 'guest=web 01' -object "
		     "secret,id=s0,data=HIDDEN,format=raw -vnc :0,password=HIDDEN -append "
		     "'it'\\''s'",
		     "quoted for a shell, secrets hidden");
	ASSERT_FALSE(kw_vm_cmdline_text(ARGS("prog\0\0"), true, line, sizeof(line)),
		     "an empty argument");
	ASSERT_STREQ(line, "prog ''", "kept as ''");

	/* too long: whole arguments that fit, then " ..." */
	ASSERT_TRUE(kw_vm_cmdline_text(ARGS("qemu-system-x86_64\0-machine\0q35,accel=kvm\0-m\0"),
				       true, small, sizeof(small)),
		    "cut");
	ASSERT_STREQ(small, "qemu-system-x86_64 -machine ...", "cut between arguments");
	ASSERT_TRUE(strlen(small) < sizeof(small), "within the buffer");
	/* a read that filled its buffer: the last argument may be partial, so it goes */
	ASSERT_TRUE(kw_vm_cmdline_text(ARGS("qemu\0-m\0"
					    "256"),
				       false, line, sizeof(line)),
		    "incomplete read");
	ASSERT_STREQ(line, "qemu -m ...", "the partial argument left out");
	/* 8 KiB of arguments into 1 KiB */
	big = malloc(8192);
	if (!ASSERT_TRUE(big, "malloc"))
		return;
	while (n + 12 < 8192)
		n += snprintf(big + n, 8192 - n, "-arg%05zu", n) + 1;
	ASSERT_TRUE(kw_vm_cmdline_text(big, n, true, line, sizeof(line)), "8 KiB cut");
	ASSERT_TRUE(strlen(line) < sizeof(line) && strlen(line) > sizeof(line) - 16,
		    "filled to about the bound");
	ASSERT_STREQ(line + strlen(line) - 4, " ...", "ends with ...");
	free(big);
}

static void test_opts(void)
{
	struct kw_vm_opts o;

	kw_vm_opts_of(ARGS("/usr/bin/qemu-system-aarch64\0-accel\0kvm,eager-split-size=2M\0-m\0"
			   "256M\0"),
		      &o);
	ASSERT_STREQ(o.vmm, "qemu", "qemu-system-*");
	ASSERT_STREQ(o.eager_opt, "2M", "eager-split-size");
	kw_vm_opts_of(ARGS("qemu-system-aarch64\0-accel\0tcg,eager-split-size=2M\0"), &o);
	ASSERT_STREQ(o.eager_opt, "", "only KVM's accelerator has it");
	kw_vm_opts_of(ARGS("/usr/libexec/qemu-kvm\0--accel\0kvm,dirty-ring-size=4096\0"), &o);
	ASSERT_STREQ(o.vmm, "qemu", "qemu-kvm");
	ASSERT_STREQ(o.eager_opt, "", "no eager split");
	kw_vm_opts_of(ARGS("kvmwalk-load\0--ipa-bits\0"
			   "48\0--eager-split=2M\0"),
		      &o);
	ASSERT_STREQ(o.vmm, "kvmwalk-load", "kvmwalk-load");
	ASSERT_STREQ(o.ipa_opt, "48", "--ipa-bits N");
	ASSERT_STREQ(o.eager_opt, "2M", "--eager-split=SIZE");
	kw_vm_opts_of(ARGS("/kvmwalk/bin/kvmwalk-load\0--ipa-bits=max\0"), &o);
	ASSERT_STREQ(o.ipa_opt, "max", "--ipa-bits=max");
	kw_vm_opts_of(ARGS("firecracker\0--ipa-bits\0"
			   "48\0"),
		      &o);
	ASSERT_STREQ(o.vmm, "", "another VMM");
	ASSERT_STREQ(o.ipa_opt, "", "its options are not kvmwalk-load's");
	kw_vm_opts_of("", 0, &o);
	ASSERT_STREQ(o.vmm, "", "no command line (a kernel thread)");
}

static void test_version(void)
{
	/* made at run time: as one literal it would be in this runner's .rodata too */
	char buf[160], v[96], path[] = "/tmp/kvmwalk-test-vmm.XXXXXX";
	int fd, n = snprintf(buf, sizeof(buf), "xx %sversion %c %sversion %s", "QEMU emulator ", 0,
			     "QEMU emulator ", "7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\nCopy");

	kw_vmm_version_of(buf, n, v, sizeof(v));
	ASSERT_STREQ(v, "7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)",
		     "the tag followed by a version");
	kw_vmm_version_of(buf, n - 20, v, sizeof(v));
	ASSERT_STREQ(v, "", "a version cut by the end of the buffer is not taken");
	kw_vmm_version_of("nothing here", 12, v, sizeof(v));
	ASSERT_STREQ(v, "", "no tag");

	/* this runner is an ELF whose .rodata holds fake_qemu_version */
	ASSERT_EQ(kw_vmm_version_file("/proc/self/exe", v, sizeof(v)), 0, "read /proc/self/exe");
	ASSERT_STREQ(v, "9.9.9 (kvmwalk unit test)", "from .rodata");
	ASSERT_TRUE(fake_qemu_version[0], "keep the string");
	ASSERT_EQ(kw_vmm_version_file("/proc/self/exe", v, sizeof(v)), 0, "again, remembered");
	ASSERT_STREQ(v, "9.9.9 (kvmwalk unit test)", "the same");
	fd = mkstemp(path);
	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return;
	ASSERT_EQ(write(fd, buf, n), n, "write");
	close(fd);
	ASSERT_EQ(kw_vmm_version_file(path, v, sizeof(v)), -ENOENT, "not an ELF: not read");
	ASSERT_STREQ(v, "", "no version");
	unlink(path);
	ASSERT_EQ(kw_vmm_version_file(path, v, sizeof(v)), -ENOENT, "missing file");
}

static void test_debugfs(void)
{
	char dir[] = "/tmp/kvmwalk-test-debugfs.XXXXXX", path[600], v[32];
	static const struct {
		const char *vm, *range;
	} vms[] = {
		{ "123-14", "48\n" },
		{ "123-9", "40\n" },
		{ "123-20", "40\n" },
		{ "1234-1", "52\n" },
	};

	if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp"))
		return;
	for (size_t i = 0; i < sizeof(vms) / sizeof(vms[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, vms[i].vm);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/ipa_range", dir, vms[i].vm);
		f = fopen(path, "w");
		if (!ASSERT_TRUE(f, path))
			return;
		fputs(vms[i].range, f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/123-30", dir); /* a VM without the file (no ptdump) */
	mkdir(path, 0755);
	kw_vm_debugfs_ipa(dir, 123, v, sizeof(v));
	ASSERT_STREQ(v, "40,48", "pid 123's VMs, each size once, not pid 1234's");
	kw_vm_debugfs_ipa(dir, 1234, v, sizeof(v));
	ASSERT_STREQ(v, "52", "pid 1234");
	kw_vm_debugfs_ipa(dir, 7, v, sizeof(v));
	ASSERT_STREQ(v, "", "no VM");
	kw_vm_debugfs_ipa("/nonexistent", 123, v, sizeof(v));
	ASSERT_STREQ(v, "", "no debugfs");
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ASSERT_EQ(system(path), 0, "cleanup");
}

void test_vmm(void)
{
	test_cmdline();
	test_opts();
	test_version();
	test_debugfs();
}
