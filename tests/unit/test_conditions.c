// SPDX-License-Identifier: GPL-2.0
/*
 * The test conditions (user/conditions.c): every parser on the text of its file, the host's kind
 * from the signs of each kind of host (the emulated hosts' own text among them), the whole
 * reading from a folder that mirrors /proc and /sys, the JSON both ways, what a VM process's
 * facts say of its IPA size and eager split; and `report` of real recordings of both emulated
 * hosts (fixtures/conditions: tests/vm/cases/kw-cli's nv.json), text and JSON.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "test.h"
#include "conditions.h"
#include "report.h"

/* what the emulated hosts' /proc/cpuinfo says (scripts/vmtest: QEMU TCG, -cpu max) */
#define TCG_X86_CPUINFO                                                                            \
	"processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: QEMU TCG CPU version 2.5+\n"     \
	"flags\t\t: fpu vme de pse tsc msr pae hypervisor lahf_lm svm\n"
#define TCG_ARM64_CPUINFO                                                                          \
	"processor\t: 0\nBogoMIPS\t: 125.00\nFeatures\t: fp asimd evtstrm\n"                       \
	"CPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0x051\n"
#define KVM_X86_CPUINFO                                                                            \
	"processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu vme hypervisor lahf_lm\n"
#define METAL_X86_CPUINFO                                                                          \
	"processor\t: 0\nmodel name\t: AMD EPYC 7763 64-Core Processor\n"                          \
	"flags\t\t: fpu vme svm lahf_lm\nvmx flags\t: hypervisor\n"
#define N2_CPUINFO "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd49\n"

struct host {
	char kind[16], hv[48], machine[128], ev[512];
};

static void host_of(const struct kw_host_signs *s, struct host *h)
{
	kw_cond_host_of(s, h->kind, sizeof(h->kind), h->hv, sizeof(h->hv), h->machine,
			sizeof(h->machine), h->ev, sizeof(h->ev));
}

static void test_host_x86(void)
{
	struct kw_host_signs s = { .arch = "x86" };
	struct host h;

	/* the x86 emulated host: TCG's signature, its CPU model, SeaBIOS' DMI */
	s.cpuinfo = TCG_X86_CPUINFO;
	s.cpuid_sig = "TCGTCGTCGTCG";
	s.dmi_vendor = "QEMU\n";
	s.dmi_product = "Standard PC (Q35 + ICH9, 2009)\n";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "emulated", "TCG: emulated");
	ASSERT_STREQ(h.hv, "QEMU TCG", "TCG: QEMU TCG");
	ASSERT_STREQ(h.machine, "QEMU Standard PC (Q35 + ICH9, 2009)", "DMI vendor and product");
	ASSERT_STREQ(h.ev,
		     "CPUID hypervisor bit set; CPUID 0x40000000 signature \"TCGTCGTCGTCG\"; CPU "
		     "model \"QEMU TCG CPU version 2.5+\"; DMI QEMU Standard PC (Q35 + ICH9, 2009)",
		     "TCG evidence");
	/* -cpu ...,tcg-cpuid=off hides the signature: the model still says it */
	s.cpuid_sig = NULL;
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "emulated", "TCG without its signature");

	/* under KVM (this project's development machines) */
	s.cpuinfo = KVM_X86_CPUINFO;
	s.cpuid_sig = "KVMKVMKVM\0\0\0";
	s.dmi_vendor = s.dmi_product = NULL;
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "vm", "KVM: a VM");
	ASSERT_STREQ(h.hv, "KVM", "KVM");
	ASSERT_STREQ(h.machine, "", "no DMI");
	ASSERT_STREQ(h.ev, "CPUID hypervisor bit set; CPUID 0x40000000 signature \"KVMKVMKVM\"",
		     "KVM evidence");
	/* the bit without a signature: the DMI names the hypervisor */
	s.cpuid_sig = NULL;
	s.dmi_vendor = "VMware, Inc.";
	s.dmi_product = "VMware7,1";
	host_of(&s, &h);
	ASSERT_STREQ(h.hv, "VMware", "VMware from the DMI");
	s.dmi_vendor = s.dmi_product = NULL;
	s.cpuid_sig = "NewVisorNewV";
	host_of(&s, &h);
	ASSERT_STREQ(h.hv, "NewVisorNewV", "an unknown signature as it is");

	/* bare metal: leaf 0x40000000 answers as another leaf there, so it is ignored */
	s.cpuinfo = METAL_X86_CPUINFO;
	s.cpuid_sig = "GenuineIntel";
	s.dmi_vendor = "Dell Inc.";
	s.dmi_product = "PowerEdge R7525";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "bare-metal", "no hypervisor bit: bare metal");
	ASSERT_STREQ(h.hv, "", "no hypervisor");
	ASSERT_STREQ(h.ev,
		     "CPUID hypervisor bit clear (no hypervisor flag in /proc/cpuinfo); DMI Dell "
		     "Inc. PowerEdge R7525",
		     "\"vmx flags\" is not \"flags\"");

	/* nothing read */
	s = (struct kw_host_signs){ .arch = "x86" };
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "unknown", "no cpuinfo: unknown");
}

static void test_host_arm64(void)
{
	static const char virt[] = "linux,dummy-virt";
	struct kw_host_signs s = { .arch = "arm64" };
	struct host h;

	/* the arm64 emulated host: -cpu max, no firmware (no DMI), a complete boot log */
	s.cpuinfo = TCG_ARM64_CPUINFO;
	s.dt_compatible = virt;
	s.dt_compatible_len = sizeof(virt);
	s.dt_model = virt;
	s.klog = "[    0.000000] Machine model: linux,dummy-virt\n[    1.4] kvm [1]: IPA Size "
		 "Limit: 52 bits\n";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "emulated", "implementer 0x00: emulated");
	ASSERT_STREQ(h.hv, "QEMU TCG", "QEMU's virt machine: QEMU TCG");
	ASSERT_STREQ(h.machine, "linux,dummy-virt", "the device tree's model");
	ASSERT_STREQ(h.ev,
		     "CPU implementer 0x00 (reserved for software: an emulated CPU); boot log: no "
		     "KVM hypervisor services; device tree linux,dummy-virt (QEMU's virt machine)",
		     "arm64 TCG evidence");

	/* QEMU/KVM, -cpu host: a real MIDR; the guest kernel found KVM's SMCCC services */
	s.cpuinfo = N2_CPUINFO;
	s.klog = "[    0.000000] Booting Linux\n[    0.0] smccc: KVM: hypervisor services detected "
		 "(0x00000000 0x00000000 0x00000000 0x00000003)\n";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "vm", "KVM services: a VM");
	ASSERT_STREQ(h.hv, "KVM", "KVM");
	/* the boot messages rotated out of the log: QEMU's virt, the accelerator unknown */
	s.klog = "[86400.1] something later\n";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "virtual", "virt machine, no more sign: a VM or emulated");
	ASSERT_STREQ(h.hv, "QEMU (KVM or TCG: not visible)", "which accelerator is not known");
	ASSERT_TRUE(!strstr(h.ev, "boot log"), "a log that does not reach the boot says nothing");
	/* QEMU's arm SMBIOS (UEFI firmware) names KVM, and only KVM */
	s.dt_compatible = s.dt_model = NULL;
	s.dt_compatible_len = 0;
	s.dmi_vendor = "QEMU";
	s.dmi_product = "KVM Virtual Machine";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "vm", "DMI KVM Virtual Machine");
	ASSERT_STREQ(h.hv, "KVM", "KVM from the DMI");
	ASSERT_STREQ(h.machine, "QEMU KVM Virtual Machine", "machine");
	s.dmi_product = "QEMU Virtual Machine";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "virtual", "QEMU Virtual Machine: TCG or hvf");
	ASSERT_STREQ(h.hv, "QEMU, not KVM", "not KVM");
	/* Xen */
	s.dmi_vendor = s.dmi_product = NULL;
	s.hv_type = "xen\n";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "vm", "Xen");
	ASSERT_STREQ(h.hv, "xen", "/sys/hypervisor/type");
	/* EC2: a VM, except a *.metal instance */
	s.hv_type = NULL;
	s.dmi_vendor = "Amazon EC2";
	s.dmi_product = "m7g.large";
	host_of(&s, &h);
	ASSERT_STREQ(h.hv, "Amazon EC2", "EC2 instance");
	s.dmi_product = "m7g.metal";
	host_of(&s, &h);
	ASSERT_STREQ(h.kind, "unknown", "EC2 metal: no sign of a hypervisor");
	ASSERT_STREQ(h.ev,
		     "DMI Amazon EC2 m7g.metal; no hypervisor sign, and arm64 has no architected "
		     "one",
		     "arm64 never says bare metal");
}

static void test_parsers(void)
{
	char v[160];
	struct kw_cond_setting st;
	struct kw_conditions c = { .recorded = true };

	ASSERT_EQ(kw_cond_list_count("0-1\n"), 2, "0-1");
	ASSERT_EQ(kw_cond_list_count("0-3,8,10-11"), 7, "ranges and singles");
	ASSERT_EQ(kw_cond_list_count("0"), 1, "one");
	ASSERT_EQ(kw_cond_list_count(""), 0, "empty");
	ASSERT_EQ(kw_cond_list_count(NULL), 0, "NULL");
	ASSERT_EQ(kw_cond_list_count("3-1"), 0, "backwards");
	ASSERT_EQ(kw_cond_list_count("0-x"), 0, "not a list");

	kw_cond_smt_of("notsupported\n", v, sizeof(v));
	ASSERT_STREQ(v, "notsupported", "smt/control trimmed");
	kw_cond_smt_of(NULL, v, sizeof(v));
	ASSERT_STREQ(v, "", "no smt/control");

	kw_cond_size_kb(2048, v, sizeof(v));
	ASSERT_STREQ(v, "2M", "2048kB");
	kw_cond_size_kb(1048576, v, sizeof(v));
	ASSERT_STREQ(v, "1G", "1GiB");
	kw_cond_size_kb(64, v, sizeof(v));
	ASSERT_STREQ(v, "64K", "64kB");
	kw_cond_size_kb(32768, v, sizeof(v));
	ASSERT_STREQ(v, "32M", "32MiB");
	kw_cond_hugepagesz_of("MemTotal: 1 kB\nHugepagesize:       2048 kB\nHugetlb: 0 kB\n", v,
			      sizeof(v));
	ASSERT_STREQ(v, "2M", "Hugepagesize");
	kw_cond_hugepagesz_of("MemTotal: 1 kB\n", v, sizeof(v));
	ASSERT_STREQ(v, "", "no hugetlb");

	kw_cond_mitigation_words("BOOT_IMAGE=/vmlinuz mitigations=off quiet nospectre_v2 pti=on "
				 "-- nosmt",
				 v, sizeof(v));
	ASSERT_STREQ(v, "mitigations=off nospectre_v2 pti=on", "mitigation words, not init's");
	kw_cond_mitigation_words("console=ttyS0 panic=-1", v, sizeof(v));
	ASSERT_STREQ(v, "", "none");

	ASSERT_TRUE(kw_cond_cmdline_param("a kvm-intel.ept=0 b kvm_intel.ept=1", "kvm_intel.ept", v,
					  sizeof(v)),
		    "found");
	ASSERT_STREQ(v, "1", "the last one, '-' and '_' the same");
	ASSERT_TRUE(kw_cond_cmdline_param("kvm_arm.mode=nvhe", "kvm-arm.mode", v, sizeof(v)),
		    "kvm_arm.mode");
	ASSERT_STREQ(v, "nvhe", "kvm-arm.mode");
	ASSERT_TRUE(kw_cond_cmdline_param("x=\"a b\" y", "x", v, sizeof(v)), "quoted");
	ASSERT_STREQ(v, "a b", "a quoted value");
	ASSERT_FALSE(
		kw_cond_cmdline_param("kvm.tdp_mmu_x=1 kvm.tdp_mmu", "kvm.tdp_mmu", v, sizeof(v)),
		"another name, no value");
	ASSERT_FALSE(kw_cond_cmdline_param("a -- kvm.tdp_mmu=0", "kvm.tdp_mmu", v, sizeof(v)),
		     "init's argument");

	kw_cond_setting_of(&st, "kvm.tdp_mmu", true, "Y\n", "quiet");
	ASSERT_STREQ(st.value, "Y", "loaded: the parameter");
	ASSERT_STREQ(st.source, "module parameter", "not on the command line");
	ASSERT_TRUE(st.param, "a module parameter");
	kw_cond_setting_of(&st, "kvm.tdp_mmu", true, "N\n", "kvm.tdp_mmu=0");
	ASSERT_STREQ(st.value, "N", "the effective value");
	ASSERT_STREQ(st.source, "command line", "set on the command line");
	kw_cond_setting_of(&st, "kvm_intel.ept", false, NULL, "kvm-intel.ept=0");
	ASSERT_STREQ(st.value, "0", "not loaded: the command line's");
	ASSERT_STREQ(st.source, "command line (module not loaded)", "said so");
	kw_cond_setting_of(&st, "kvm_amd.npt", false, NULL, "");
	ASSERT_STREQ(st.value, "", "not loaded, not set");
	ASSERT_STREQ(st.source, "module not loaded", "not loaded");

	ASSERT_EQ(kw_cond_ipa_limit_of("[    1.433937] kvm [1]: IPA Size Limit: 52 bits\n"), 52,
		  "IPA limit");
	ASSERT_EQ(kw_cond_ipa_limit_of("kvm [1]: IPA Size Limit: 40 bits (Reduced IPA size, "
				       "limited VM/VMM compatibility)"),
		  40, "reduced IPA limit");
	ASSERT_EQ(kw_cond_ipa_limit_of(NULL), 0, "no log");

	kw_cond_numa_balancing_text("0", v, sizeof(v));
	ASSERT_STREQ(v, "0 (off)", "0");
	kw_cond_numa_balancing_text("2", v, sizeof(v));
	ASSERT_STREQ(v, "2 (memory tiering)", "2");
	kw_cond_numa_balancing_text("", v, sizeof(v));
	ASSERT_STREQ(v, "unknown", "no sysctl");

	kw_cond_vulns_summary(&c, v, sizeof(v));
	ASSERT_STREQ(v, "vulnerabilities not read", "none read");
	c.nvulns = 4;
	snprintf(c.vulns[0].state, sizeof(c.vulns[0].state), "Not affected");
	snprintf(c.vulns[1].state, sizeof(c.vulns[1].state), "Mitigation: CSV2, but not BHB");
	snprintf(c.vulns[2].state, sizeof(c.vulns[2].state), "Vulnerable: Safe RET, no microcode");
	snprintf(c.vulns[3].state, sizeof(c.vulns[3].state), "Unknown: no mitigations");
	kw_cond_vulns_summary(&c, v, sizeof(v));
	ASSERT_STREQ(v, "1 mitigated, 1 vulnerable, 1 not affected, 1 other", "summed");
}

static void put(const char *root, const char *path, const char *text, size_t len)
{
	char full[512], cmd[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", full);
	if (!ASSERT_EQ(system(cmd), 0, cmd))
		return;
	f = fopen(full, "w");
	if (!ASSERT_TRUE(f, full))
		return;
	fwrite(text, 1, len ? len : strlen(text), f);
	fclose(f);
}

/* a JSON round trip gives the same JSON */
static void round_trip(const struct kw_conditions *c, const char *what)
{
	json_t *a = kw_conditions_json(c), *b;
	struct kw_conditions back;
	char *sa, *sb;

	kw_conditions_from_json(&back, a);
	b = kw_conditions_json(&back);
	sa = json_dumps(a, JSON_SORT_KEYS);
	sb = json_dumps(b, JSON_SORT_KEYS);
	ASSERT_STREQ(sb, sa, what);
	ASSERT_TRUE(back.recorded, "read back as recorded");
	free(sa);
	free(sb);
	json_decref(a);
	json_decref(b);
}

static void test_read(void)
{
	char root[] = "/tmp/kvmwalk-test-cond.XXXXXX", cmd[600];
	static const char compat[] = "linux,dummy-virt";
	struct kw_conditions c;
	const struct kw_cond_setting *s;
	json_t *j;

	if (!ASSERT_TRUE(mkdtemp(root), "mkdtemp"))
		return;
	/* an x86 host as the x86 emulated host's files have it, and a second kvm_intel */
	put(root, "/proc/cpuinfo", TCG_X86_CPUINFO, 0);
	put(root, "/proc/cmdline", "console=ttyS0 mitigations=auto,nosmt kvm-intel.pml=0\n", 0);
	put(root, "/proc/meminfo", "Hugepagesize:       2048 kB\n", 0);
	put(root, "/proc/sys/kernel/numa_balancing", "1\n", 0);
	put(root, "/proc/sys/vm/nr_hugepages", "64\n", 0);
	put(root, "/sys/devices/system/cpu/online", "0-3\n", 0);
	put(root, "/sys/devices/system/cpu/smt/control", "on\n", 0);
	put(root, "/sys/devices/system/node/online", "0-1\n", 0);
	put(root, "/sys/devices/system/cpu/vulnerabilities/spectre_v2", "Mitigation: Retpolines\n",
	    0);
	put(root, "/sys/devices/system/cpu/vulnerabilities/meltdown", "Not affected\n", 0);
	put(root, "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "0\n", 0);
	put(root, "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "64\n", 0);
	put(root, "/sys/class/dmi/id/sys_vendor", "QEMU\n", 0);
	put(root, "/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n", 0);
	put(root, "/sys/module/kvm/parameters/tdp_mmu", "Y\n", 0);
	put(root, "/sys/module/kvm/parameters/eager_page_split", "Y\n", 0);
	put(root, "/sys/module/kvm/parameters/nx_huge_pages", "N\n", 0);
	put(root, "/sys/module/kvm_amd/parameters/npt", "Y\n", 0);
	kw_conditions_read(&c, root, "x86", NULL, "TCGTCGTCGTCG");
	ASSERT_TRUE(c.recorded, "recorded");
	ASSERT_STREQ(c.host_kind, "emulated", "host kind");
	ASSERT_EQ(c.cpus_online, 4, "online CPUs");
	ASSERT_STREQ(c.cpus_online_list, "0-3", "online list");
	ASSERT_STREQ(c.smt, "on", "SMT");
	ASSERT_EQ(c.numa_nodes, 2, "NUMA nodes");
	ASSERT_STREQ(c.numa_balancing, "1", "NUMA balancing");
	ASSERT_EQ(c.nr_hugepages, 64, "nr_hugepages");
	ASSERT_STREQ(c.hugepagesz, "2M", "default huge page size");
	if (ASSERT_EQ(c.nhuge, 2, "two pools")) {
		ASSERT_STREQ(c.huge[0].size, "2M", "pools by size");
		ASSERT_EQ(c.huge[0].pages, 64, "2M pages");
		ASSERT_STREQ(c.huge[1].size, "1G", "1G after 2M");
	}
	ASSERT_STREQ(c.mitigations, "mitigations=auto,nosmt", "mitigations");
	if (ASSERT_EQ(c.nvulns, 2, "vulnerabilities")) {
		ASSERT_STREQ(c.vulns[0].name, "meltdown", "by name");
		ASSERT_STREQ(c.vulns[1].state, "Mitigation: Retpolines", "state");
	}
	ASSERT_EQ(c.nsettings, 7, "the x86 settings");
	s = kw_cond_setting(&c, "kvm.tdp_mmu");
	ASSERT_STREQ(s ? s->value : NULL, "Y", "kvm.tdp_mmu");
	s = kw_cond_setting(&c, "kvm_intel.pml");
	ASSERT_STREQ(s ? s->source : NULL, "command line (module not loaded)", "kvm_intel.pml");
	s = kw_cond_setting(&c, "kvm_intel.ept");
	ASSERT_STREQ(s ? s->source : NULL, "module not loaded", "kvm_intel.ept");
	ASSERT_EQ(c.ipa_limit, 0, "no IPA limit on x86");
	round_trip(&c, "x86 round trip");

	/* the arm64 emulated host: no DMI, a device tree, the IPA limit in the boot log */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/class %s/sys/module", root, root);
	ASSERT_EQ(system(cmd), 0, "rm");
	put(root, "/proc/cpuinfo", TCG_ARM64_CPUINFO, 0);
	put(root, "/proc/cmdline", "console=ttyAMA0 kvm-arm.mode=nvhe\n", 0);
	put(root, "/proc/device-tree/compatible", compat, sizeof(compat));
	put(root, "/proc/device-tree/model", compat, sizeof(compat));
	kw_conditions_read(&c, root, "arm64",
			   "[    0.000000] x\nkvm [1]: IPA Size Limit: 48 bits\n", NULL);
	ASSERT_STREQ(c.host_kind, "emulated", "arm64 host kind");
	ASSERT_STREQ(c.machine, "linux,dummy-virt", "arm64 machine");
	ASSERT_EQ(c.ipa_limit, 48, "IPA limit");
	ASSERT_EQ(c.nsettings, 2, "kvm-arm.mode and eager split");
	s = kw_cond_setting(&c, "kvm-arm.mode");
	ASSERT_STREQ(s ? s->value : NULL, "nvhe", "kvm-arm.mode");
	s = kw_cond_setting(&c, "eager split");
	ASSERT_STREQ(s ? s->value : NULL, "per VM", "eager split is per VM on arm64");
	ASSERT_FALSE(s && s->param, "not a module parameter");
	round_trip(&c, "arm64 round trip");

	/* an empty root: everything unknown, nothing invented */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/proc %s/sys", root, root);
	ASSERT_EQ(system(cmd), 0, "rm");
	kw_conditions_read(&c, root, "x86", NULL, NULL);
	ASSERT_STREQ(c.host_kind, "unknown", "nothing read: unknown");
	ASSERT_EQ(c.cpus_online, 0, "CPUs unknown");
	ASSERT_STREQ(c.smt, "", "SMT unknown");
	ASSERT_EQ(c.nr_hugepages, -1, "nr_hugepages unknown");
	j = kw_conditions_json(&c);
	ASSERT_TRUE(json_is_null(json_object_get(j, "cpus_online")), "unknown is null in JSON");
	ASSERT_TRUE(json_is_null(json_object_get(j, "nr_hugepages")), "nr_hugepages null");
	json_decref(j);
	round_trip(&c, "unknown round trip");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ASSERT_EQ(system(cmd), 0, "cleanup");

	/* a recording without conditions */
	memset(&c, 0, sizeof(c));
	j = kw_conditions_json(&c);
	ASSERT_TRUE(json_is_null(j), "not recorded: null");
	kw_conditions_from_json(&c, j);
	ASSERT_FALSE(c.recorded, "null: not recorded");
	json_decref(j);
}

static void test_vm_facts(void)
{
	struct kw_conditions c = { .recorded = true, .ipa_limit = 52 };
	char src[160], val[64];

	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "kvmwalk-load", "", "", src, sizeof(src)), 40,
		  "kvmwalk-load's default");
	ASSERT_STREQ(src, "kvmwalk-load's default: VM type 0, KVM's 40 bits", "said why");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "kvmwalk-load", "48", "", src, sizeof(src)),
		  48, "--ipa-bits 48");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "kvmwalk-load", "max", "", src, sizeof(src)),
		  52, "--ipa-bits max: the host's limit");
	ASSERT_EQ(
		kw_cond_vm_ipa(&c, "arm64", "protected", "kvmwalk-load", "", "", src, sizeof(src)),
		52, "protected: the limit whatever the type");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "qemu", "", "", src, sizeof(src)), 0,
		  "QEMU: not known");
	ASSERT_STREQ(src,
		     "not known: QEMU sizes it from its memory map, and the VM type is not visible "
		     "outside the VM fd",
		     "QEMU: said why");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "qemu", "", "40", src, sizeof(src)), 40,
		  "debugfs tells");
	ASSERT_STREQ(src, "debugfs ipa_range", "from debugfs");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "qemu", "", "40,52", src, sizeof(src)), 0,
		  "two VMs, two sizes");
	ASSERT_STREQ(src, "debugfs ipa_range: 40,52", "both said");
	ASSERT_EQ(kw_cond_vm_ipa(&c, "x86", "tdp", "qemu", "", "", src, sizeof(src)), 0, "x86");
	c.ipa_limit = 0;
	ASSERT_EQ(kw_cond_vm_ipa(&c, "arm64", "vhe", "kvmwalk-load", "max", "", src, sizeof(src)),
		  0, "max without a known limit");
	ASSERT_STREQ(src,
		     "kvmwalk-load --ipa-bits max: the host's limit (not known: no IPA Size Limit "
		     "in the boot log)",
		     "said");

	kw_cond_vm_eager(&c, "arm64", "qemu", "2M", val, sizeof(val), src, sizeof(src));
	ASSERT_STREQ(val, "2M", "QEMU eager-split-size");
	ASSERT_STREQ(src, "QEMU -accel kvm,eager-split-size", "QEMU's option");
	kw_cond_vm_eager(&c, "arm64", "kvmwalk-load", "", val, sizeof(val), src, sizeof(src));
	ASSERT_STREQ(val, "0", "kvmwalk-load's default");
	kw_cond_vm_eager(&c, "arm64", "", "", val, sizeof(val), src, sizeof(src));
	ASSERT_STREQ(val, "", "another VMM: not known");
	c.nsettings = 1;
	snprintf(c.settings[0].name, sizeof(c.settings[0].name), "kvm.eager_page_split");
	snprintf(c.settings[0].value, sizeof(c.settings[0].value), "Y");
	kw_cond_vm_eager(&c, "x86", "qemu", "", val, sizeof(val), src, sizeof(src));
	ASSERT_STREQ(val, "Y", "x86: the host's parameter");
	c.recorded = false;
	kw_cond_vm_eager(&c, "x86", "qemu", "", val, sizeof(val), src, sizeof(src));
	ASSERT_STREQ(src, "not recorded", "an older recording");
}

bool kw_test_report_shape(const char *buf, const char *arch, int max_head, const char *what);

/* the report of a real recording of an emulated host (tests/vm/cases/kw-cli's nv.json) */
static void report_of(const char *arch)
{
	struct kw_recording r;
	char path[128], golden[64], err[256], *buf = NULL, *head;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "fixtures/conditions/%s-7.3-%s.json", arch,
		 strcmp(arch, "x86") ? "vhe" : "tdp");
	if (!ASSERT_EQ(kw_recording_load(&r, path, err, sizeof(err)), 0, err))
		return;
	ASSERT_TRUE(r.meta.cond.recorded, "a recording with conditions");
	ASSERT_STREQ(r.meta.cond.host_kind, "emulated", "recorded in an emulated host");
	if (ASSERT_EQ(r.nvms, 1, "one VM process")) {
		ASSERT_STREQ(r.vms[0].vmm, "kvmwalk-load", "its VMM");
		ASSERT_STREQ(
			r.vms[0].cmdline,
			"kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=1 "
			"--range=2M --sparse=16G --json=nv-load.json",
			"its command line");
	}
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	ASSERT_EQ(kw_report_text(f, &r, "nv.json"), 0, "report");
	fclose(f);
	snprintf(golden, sizeof(golden), "report-conditions-%s.txt", arch);
	ASSERT_GOLDEN(buf, len, golden);
	ASSERT_TRUE(kw_test_fits(buf, 80), "80 columns");
	/*
	 * issue 36: the findings after a header of the title, kernel, host, recorded and the
	 * command (two lines), the full list of conditions after them
	 */
	kw_test_report_shape(buf, arch, 6, golden);
	head = strstr(buf, "\nFindings:");
	if (ASSERT_TRUE(head, "findings")) {
		ASSERT_TRUE(strstr(head, "\nTest conditions\n"), "Test conditions after them");
		ASSERT_FALSE(strstr(buf, "kvmwalk.cases=kw-cli") < head,
			     "the kernel command line after them");
		ASSERT_TRUE(strstr(head, "\n  cmdline          console=tty"),
			    "the kernel command line in Test conditions");
	}
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	ASSERT_EQ(kw_report_json(f, &r), 0, "report --json");
	fclose(f);
	snprintf(golden, sizeof(golden), "report-conditions-%s.json", arch);
	ASSERT_GOLDEN(buf, len, golden);
	free(buf);
	buf = NULL;
	/* written back as read */
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, "open_memstream"))
		goto out;
	ASSERT_EQ(kw_recording_write(&r, f), 0, "write");
	fclose(f);
	{
		json_t *a = json_load_file(path, 0, NULL), *b = json_loads(buf, 0, NULL);

		ASSERT_TRUE(
			a && b &&
				json_equal(
					json_object_get(json_object_get(a, "meta"), "conditions"),
					json_object_get(json_object_get(b, "meta"),
							"conditions")) &&
				json_equal(json_object_get(a, "vms"), json_object_get(b, "vms")),
			"conditions and vms written back as recorded");
		json_decref(a);
		json_decref(b);
	}
out:
	free(buf);
	kw_recording_free(&r);
}

void test_conditions(void)
{
	report_of("arm64");
	report_of("x86");
	test_host_x86();
	test_host_arm64();
	test_parsers();
	test_read();
	test_vm_facts();
}
