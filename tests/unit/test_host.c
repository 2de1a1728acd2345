// SPDX-License-Identifier: GPL-2.0
/*
 * Host metadata (user/host.c): the CPU from /proc/cpuinfo on both arches, sysfs choices, the
 * arm64 KVM mode from the boot log or the command line, whole files and first lines; and
 * kallsyms (user/ksyms.c): text symbols only, lookups, callback addresses as name+offset.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "host.h"
#include "ksyms.h"

static void test_cpu(void)
{
	char cpu[128];

	kw_host_cpu("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n"
		    "flags\t\t: fpu\n",
		    cpu, sizeof(cpu));
	ASSERT_STREQ(cpu, "AMD EPYC 7B13", "x86");
	kw_host_cpu("processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
		    "CPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd0c\n",
		    cpu, sizeof(cpu));
	ASSERT_STREQ(cpu, "implementer 0x41 part 0xd0c", "arm64");
	kw_host_cpu("processor\t: 0\n", cpu, sizeof(cpu));
	ASSERT_STREQ(cpu, "", "neither");
	kw_host_cpu("model name\t: a long name\n", cpu, 7);
	ASSERT_STREQ(cpu, "a long", "cut to the field");
}

static void test_choice_and_mode(void)
{
	char v[64], mode[16];

	kw_host_choice("always [madvise] never", v, sizeof(v));
	ASSERT_STREQ(v, "madvise", "bracketed");
	kw_host_choice("never", v, sizeof(v));
	ASSERT_STREQ(v, "never", "no brackets");
	kw_host_choice("[always", v, sizeof(v));
	ASSERT_STREQ(v, "[always", "unclosed");

	kw_host_arm64_mode_of("kvm [1]: Protected nVHE mode initialized successfully\n", NULL, mode,
			      sizeof(mode));
	ASSERT_STREQ(mode, "protected", "protected (contains 'nVHE mode')");
	kw_host_arm64_mode_of("kvm [1]: Hyp nVHE mode initialized successfully\n", "", mode,
			      sizeof(mode));
	ASSERT_STREQ(mode, "nvhe", "nvhe (contains 'VHE mode')");
	kw_host_arm64_mode_of("kvm [1]: Hyp mode initialized successfully\n", "", mode,
			      sizeof(mode));
	ASSERT_STREQ(mode, "nvhe", "older kernels' nvhe line");
	kw_host_arm64_mode_of("kvm [1]: VHE mode initialized successfully\n", "", mode,
			      sizeof(mode));
	ASSERT_STREQ(mode, "vhe", "vhe");
	kw_host_arm64_mode_of("kvm [1]: VHE+NV2 mode initialized successfully\n", "", mode,
			      sizeof(mode));
	ASSERT_STREQ(mode, "nested", "kvm-arm.mode=nested");
	kw_host_arm64_mode_of("", "console=ttyAMA0 kvm-arm.mode=nvhe quiet", mode, sizeof(mode));
	ASSERT_STREQ(mode, "nvhe", "log rotated: the command line");
	kw_host_arm64_mode_of(NULL, NULL, mode, sizeof(mode));
	ASSERT_STREQ(mode, "", "unknown");
}

static void test_files(void)
{
	char path[] = "/tmp/kw-test-host.XXXXXX", line[8], *s;
	int fd = mkstemp(path);

	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return;
	ASSERT_EQ(write(fd, "first line\nsecond\n", 18), 18, "write");
	close(fd);
	s = kw_read_file(path);
	ASSERT_STREQ(s, "first line\nsecond\n", "whole file");
	free(s);
	kw_read_line(path, line, sizeof(line));
	ASSERT_STREQ(line, "first l", "first line, cut");
	unlink(path);
	ASSERT_TRUE(!kw_read_file(path), "missing file");
	kw_read_line(path, line, sizeof(line));
	ASSERT_STREQ(line, "", "missing file: empty line");
}

static void test_ksyms(void)
{
	char path[] = "/tmp/kw-test-ksyms.XXXXXX", buf[64];
	const char text[] = "ffff800080010000 T _text\n"
			    "ffff800080020000 t stage2_split_walker\n"
			    "ffff800080020400 T kvm_pgtable_walk\n"
			    "ffff800080030000 D some_data\n"
			    "ffffffffc0a01000 t fast_page_fault\t[kvm]\n";
	struct ksyms ks = {};
	const struct ksym *k;
	int fd = mkstemp(path);

	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return;
	ASSERT_EQ(write(fd, text, sizeof(text) - 1), sizeof(text) - 1, "write");
	close(fd);
	if (!ASSERT_EQ(ksyms__load(&ks, path), 0, "load"))
		goto out;
	ASSERT_EQ(ks.n, 4, "text symbols only");
	k = ksyms__find(&ks, "fast_page_fault");
	ASSERT_STREQ(k ? k->mod : NULL, "kvm", "module");
	k = ksyms__find(&ks, "kvm_pgtable_walk");
	ASSERT_STREQ(k ? k->mod : NULL, "", "vmlinux");
	ASSERT_TRUE(!ksyms__find(&ks, "some_data"), "data is no function");
	ksyms__describe(&ks, 0xffff800080020000ULL, buf, sizeof(buf));
	ASSERT_STREQ(buf, "stage2_split_walker", "exact");
	ksyms__describe(&ks, 0xffff800080020010ULL, buf, sizeof(buf));
	ASSERT_STREQ(buf, "stage2_split_walker+0x10", "offset");
	ksyms__describe(&ks, 0x1000, buf, sizeof(buf));
	ASSERT_STREQ(buf, "0x1000", "below every symbol");
out:
	ksyms__free(&ks);
	unlink(path);
	ASSERT_EQ(ksyms__load(&ks, path), -ENOENT, "missing file");
}

/* The preemption model from uname -v, debugfs' sched/preempt, preempt= and the config. */
static void test_preempt(void)
{
	char m[16], s[16];

	kw_host_preempt_of("#1 SMP PREEMPT_DYNAMIC Debian 7.3.4-1~bpo13+1 (2026-11-15)",
			   "none voluntary full (lazy)\n", NULL, NULL, m, sizeof(m), s, sizeof(s));
	ASSERT_STREQ(m, "lazy", "dynamic: debugfs");
	ASSERT_STREQ(s, "sched/preempt", "dynamic: from debugfs");
	kw_host_preempt_of("#1 SMP PREEMPT_DYNAMIC Debian 6.12.95-1~bpo12+1 (2026-07-05)",
			   "none (voluntary) full\n", NULL, NULL, m, sizeof(m), s, sizeof(s));
	ASSERT_STREQ(m, "voluntary", "6.12: voluntary");
	ASSERT_FALSE(kw_host_preemptible(m), "voluntary: not preemptible");
	kw_host_preempt_of("#1 SMP PREEMPT_DYNAMIC Debian", NULL, "console=ttyS0 preempt=full quiet",
			   NULL, m, sizeof(m), s, sizeof(s));
	ASSERT_STREQ(m, "full", "dynamic: preempt= on the command line");
	kw_host_preempt_of("#1 SMP PREEMPT_DYNAMIC Debian", NULL, "nopreempt=full",
			   "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_LAZY=y\n", m, sizeof(m), s,
			   sizeof(s));
	ASSERT_STREQ(m, "lazy", "dynamic: the config's default");
	ASSERT_STREQ(s, "config", "from the config");
	kw_host_preempt_of("#1 SMP PREEMPT_DYNAMIC Debian", NULL, NULL, NULL, m, sizeof(m), s,
			   sizeof(s));
	ASSERT_STREQ(m, "", "dynamic, nothing readable: unknown");
	ASSERT_TRUE(kw_host_preemptible(m), "unknown counts as preemptible");
	kw_host_preempt_of("#1 SMP PREEMPT Debian 7.3.4-1~bpo13+1 (2026-11-15)", NULL, NULL, NULL,
			   m, sizeof(m), s, sizeof(s));
	ASSERT_STREQ(m, "full", "static CONFIG_PREEMPT (arm64 7.3)");
	kw_host_preempt_of("#1 SMP Debian 6.12.95-1~bpo12+1 (2026-07-05)", NULL, NULL, NULL, m,
			   sizeof(m), s, sizeof(s));
	ASSERT_STREQ(m, "none", "no PREEMPT in the version: none or voluntary");
	kw_host_preempt_of("#1 SMP PREEMPT_RT Debian", NULL, NULL, NULL, m, sizeof(m), s,
			   sizeof(s));
	ASSERT_STREQ(m, "rt", "PREEMPT_RT");
}

void test_host(void)
{
	test_preempt();
	test_cpu();
	test_choice_and_mode();
	test_files();
	test_ksyms();
}
