/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: recording model. The test conditions of a recording (meta.conditions): what a reviewer
 * asks before believing a number. The host (bare metal, a VM or emulated, and what says so), the
 * online CPUs, SMT and NUMA nodes, hugetlb pools and NUMA balancing, the CPU vulnerabilities'
 * mitigations, and the settings that change KVM's paths (mitigations=, kvm-arm.mode, kvm.tdp_mmu,
 * kvm_intel.ept/eptad/pml, kvm_amd.npt, eager split), each read from the host, never assumed:
 * what could not be read is "" (unknown). Every parser takes the text of its file, so it is
 * unit-tested without the file; kw_conditions_read() reads them all under a root folder.
 */
#ifndef KW_CONDITIONS_H
#define KW_CONDITIONS_H

#include <stdbool.h>
#include <stddef.h>

#include <linux/types.h>

#define KW_COND_SETTINGS 10
#define KW_COND_VULNS 40
#define KW_COND_HUGE 8

/* A setting that changes KVM's paths: its value, and where it was read. */
struct kw_cond_setting {
	char name[32];	 /* "kvm.tdp_mmu", "mitigations", "kvm-arm.mode", "eager split" */
	char value[64];	 /* "" when not set and not loaded */
	char source[64]; /* "command line", "module parameter", "module not loaded", ... */
	bool param;	 /* a module parameter: meta.kvm_params has it too */
};

/* One file of /sys/devices/system/cpu/vulnerabilities. */
struct kw_cond_vuln {
	char name[40];
	char state[160];
};

/* One hugetlb pool (/sys/kernel/mm/hugepages/hugepages-SIZEkB/nr_hugepages). */
struct kw_cond_huge {
	char size[16]; /* "2M", "1G", "64K" */
	long long pages;
};

struct kw_conditions {
	bool recorded; /* false: a recording made before conditions existed */
	/* CPUs: /sys/devices/system/cpu/online, smt/control, /sys/devices/system/node/online */
	__u32 cpus_online; /* 0: unknown */
	char cpus_online_list[64];
	char smt[16]; /* the smt/control word: on, off, forceoff, notsupported, notimplemented */
	__u32 numa_nodes;
	char numa_nodes_online[64];
	/* the host: kw_cond_host_of() */
	char host_kind[16];  /* bare-metal, vm, emulated, virtual (one or the other), unknown */
	char hypervisor[48]; /* "KVM", "QEMU TCG", "Xen", ...; "" when none or not known */
	char machine[128];   /* DMI vendor and product, else the device tree's model */
	char host_evidence[512];
	/* memory */
	char numa_balancing[8]; /* the sysctl's text: 0 off, 1 normal, 2 memory tiering, 3 both */
	long long nr_hugepages; /* /proc/sys/vm/nr_hugepages, -1 unknown */
	char hugepagesz[16];	/* the default size (/proc/meminfo Hugepagesize) */
	__u32 nhuge;
	struct kw_cond_huge huge[KW_COND_HUGE];
	/* KVM's paths */
	char mitigations[160]; /* the command line's mitigation words, "" for none */
	__u32 nsettings;
	struct kw_cond_setting settings[KW_COND_SETTINGS];
	__u32 ipa_limit; /* arm64: the host's IPA size limit (boot log), 0 unknown */
	__u32 nvulns;
	struct kw_cond_vuln vulns[KW_COND_VULNS];
};

/* The signs of what the host is, each NULL or "" when not read. */
struct kw_host_signs {
	const char *arch;	   /* "arm64", "x86" */
	const char *cpuinfo;	   /* /proc/cpuinfo */
	const char *cpuid_sig;	   /* x86: CPUID 0x40000000's 12 characters, NULL elsewhere */
	const char *dmi_vendor;	   /* /sys/class/dmi/id/sys_vendor */
	const char *dmi_product;   /* /sys/class/dmi/id/product_name */
	const char *hv_type;	   /* /sys/hypervisor/type */
	const char *dt_compatible; /* /proc/device-tree/compatible: NUL-separated */
	size_t dt_compatible_len;
	const char *dt_model; /* /proc/device-tree/model */
	const char *klog;     /* the kernel log */
};

/*
 * Bare metal, a VM or emulated, from the signs: x86's CPUID hypervisor bit (the "hypervisor" flag
 * of /proc/cpuinfo) and signature ("TCGTCGTCGTCG" is QEMU's software emulation, "KVMKVMKVM" KVM);
 * arm64 has no such bit: an emulated CPU (MIDR implementer 0x00, reserved for software: QEMU's
 * "max"), the KVM hypervisor services the kernel logs at boot ("smccc: KVM: hypervisor services
 * detected"), QEMU's SMBIOS product ("KVM Virtual Machine" only under KVM), Xen, a QEMU virt
 * device tree ("linux,dummy-virt": a VM or emulated, which one is not visible). No sign: unknown.
 */
void kw_cond_host_of(const struct kw_host_signs *s, char *kind, size_t kindlen, char *hv,
		     size_t hvlen, char *machine, size_t machinelen, char *evidence, size_t evlen);

/* The number of CPUs (or nodes) of a sysfs list ("0-3,8,10-11": 7), 0 when empty or bad. */
__u32 kw_cond_list_count(const char *list);
/* The smt/control word, trimmed, or "" */
void kw_cond_smt_of(const char *control, char *dst, size_t len);
/* "64K", "2M", "1G" of a size in kB ("2048kB" or 2048) */
void kw_cond_size_kb(unsigned long long kb, char *dst, size_t len);
/* /proc/meminfo's "Hugepagesize:" as kw_cond_size_kb(), "" if none */
void kw_cond_hugepagesz_of(const char *meminfo, char *dst, size_t len);
/* The mitigation words of a kernel command line (mitigations=, nospectre_v2, pti=, ...), or "" */
void kw_cond_mitigation_words(const char *cmdline, char *dst, size_t len);
/* true if tok (a command-line word) is about CPU vulnerability mitigations */
bool kw_cond_is_mitigation(const char *tok);
/*
 * The value of a kernel parameter NAME=VALUE on a command line (the last one: each occurrence
 * overrides), '-' and '_' the same in its module part ("kvm-intel.ept" is "kvm_intel.ept").
 * false if absent.
 */
bool kw_cond_cmdline_param(const char *cmdline, const char *name, char *dst, size_t len);
/*
 * A module parameter setting: @loaded whether /sys/module/MODULE exists, @param its value (NULL
 * if unreadable), @cmdline the command line.
 */
void kw_cond_setting_of(struct kw_cond_setting *s, const char *name, bool loaded, const char *param,
			const char *cmdline);
/* arm64: "kvm [1]: IPA Size Limit: 48 bits" in the kernel log, 0 if none */
__u32 kw_cond_ipa_limit_of(const char *klog);
/* "Not affected", "Mitigation: ...", "Vulnerable..." summed: the report's one line */
void kw_cond_vulns_summary(const struct kw_conditions *c, char *dst, size_t len);
/* numa_balancing's value said: "0 (off)", "1 (on)", "2 (memory tiering)"; "" unknown */
void kw_cond_numa_balancing_text(const char *v, char *dst, size_t len);
/* "64K:0 2M:64 1G:0" */
void kw_cond_huge_text(const struct kw_conditions *c, char *dst, size_t len);
/* The setting called name, NULL if none. */
const struct kw_cond_setting *kw_cond_setting(const struct kw_conditions *c, const char *name);

/*
 * The IPA size of a VM process's VMs where kvmwalk can know it (0: not known), and how it knows
 * into src: arm64 debugfs' ipa_range; under protected KVM every VM gets the host's limit;
 * kvmwalk-load's --ipa-bits (its default is KVM's VM type 0: 40 bits); QEMU sizes it from its
 * memory map, which is not visible outside the VM fd. x86 has no IPA size in its VM type. The
 * process's facts are vmm.h's (vmm, ipa_opt, ipa_debugfs); c->recorded false: not recorded.
 */
__u32 kw_cond_vm_ipa(const struct kw_conditions *c, const char *arch, const char *kvm_mode,
		     const char *vmm, const char *ipa_opt, const char *ipa_debugfs, char *src,
		     size_t srclen);
/*
 * A VM process's eager split: x86's is the host's kvm.eager_page_split; arm64's is the VM's
 * chunk size (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE), which only the VMM's command line tells:
 * kvmwalk-load --eager-split, QEMU -accel kvm,eager-split-size (both default to 0, off).
 * val "" when not known.
 */
void kw_cond_vm_eager(const struct kw_conditions *c, const char *arch, const char *vmm,
		      const char *eager_opt, char *val, size_t vallen, char *src, size_t srclen);

/*
 * Reads every condition under root ("" for this host; a test passes a folder that mirrors /proc
 * and /sys), with the host's arch, the kernel log (NULL if unreadable) and x86's CPUID signature
 * (NULL elsewhere).
 */
void kw_conditions_read(struct kw_conditions *c, const char *root, const char *arch,
			const char *klog, const char *cpuid_sig);

/* meta.conditions (jansson: the caller owns it) and back; a missing object leaves !recorded. */
struct json_t *kw_conditions_json(const struct kw_conditions *c);
void kw_conditions_from_json(struct kw_conditions *c, const struct json_t *o);

#endif /* KW_CONDITIONS_H */
