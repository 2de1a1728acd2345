// SPDX-License-Identifier: GPL-2.0
/* The test conditions of a recording (conditions.h): parsers, the reading, the JSON. */
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "conditions.h"

/*
 * Kernel strings are cut to the fixed-size fields of a recording on purpose. GCC only: the fuzz
 * targets link this file with clang, which has no such warning.
 */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* "; what" (or "what" at the start) appended to a list being built */
__attribute__((format(printf, 3, 4))) static void add(char *dst, size_t len, const char *fmt, ...)
{
	size_t n = strlen(dst);
	va_list ap;

	if (n && n + 2 < len)
		n += snprintf(dst + n, len - n, "; ");
	if (n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(dst + n, len - n, fmt, ap);
	va_end(ap);
}

/* the text trimmed of white space at both ends, into dst */
static void trimmed(const char *s, char *dst, size_t len)
{
	size_t n;

	s = s ? s : "";
	s += strspn(s, " \t\n");
	n = strlen(s);
	while (n && strchr(" \t\n", s[n - 1]))
		n--;
	snprintf(dst, len, "%.*s", (int)n, s);
}

/* the value of the first "KEY<tabs>: value" line of /proc/cpuinfo, false if none */
static bool cpuinfo_value(const char *cpuinfo, const char *key, char *dst, size_t len)
{
	size_t k = strlen(key);

	dst[0] = 0;
	for (const char *l = cpuinfo; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *c;

		if (strncmp(l, key, k) || !strchr(" \t:", l[k]))
			continue;
		c = strchr(l, ':');
		if (!c || (strchr(l, '\n') && c > strchr(l, '\n')))
			continue;
		c++;
		c += strspn(c, " \t");
		snprintf(dst, len, "%.*s", (int)strcspn(c, "\n"), c);
		return true;
	}
	return false;
}

/* word is one of the space-separated words of text */
static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ' || p[-1] == '\t') &&
		    (!p[n] || strchr(" \t\n", p[n])))
			return true;
	return false;
}

/* s is one of the NUL-separated strings of list (a device tree string list) */
static bool in_list(const char *list, size_t len, const char *s)
{
	for (size_t i = 0; list && i < len; i += strnlen(list + i, len - i) + 1)
		if (!strncmp(list + i, s, len - i) && strlen(s) == strnlen(list + i, len - i))
			return true;
	return false;
}

static bool starts(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* Hypervisors by their CPUID 0x40000000 signature (EBX, ECX, EDX). */
static const struct {
	const char *sig, *name;
} hv_sigs[] = {
	{ "KVMKVMKVM", "KVM" },		  { "Microsoft Hv", "Hyper-V" },
	{ "VMwareVMware", "VMware" },	  { "XenVMMXenVMM", "Xen" },
	{ "VBoxVBoxVBox", "VirtualBox" }, { "bhyve bhyve ", "bhyve" },
	{ "ACRNACRNACRN", "ACRN" },	  { " lrpepyh  vr", "Parallels" },
	{ "QNXQVMBSQG", "QNX" },	  { "Jailhouse", "Jailhouse" },
	{ "TCGTCGTCGTCG", "QEMU TCG" },
};

/*
 * SMBIOS vendors of virtual machines (with the product that must go with it, if any). A vendor
 * alone is not proof everywhere: EC2's bare-metal instances say "Amazon EC2" too, with a
 * "*.metal" product, so those are left out.
 */
static const char *dmi_hypervisor(const char *vendor, const char *product)
{
	static const struct {
		const char *vendor, *product, *name;
	} t[] = {
		{ "QEMU", NULL, "QEMU" },
		{ "VMware", NULL, "VMware" },
		{ "innotek GmbH", NULL, "VirtualBox" },
		{ "Xen", NULL, "Xen" },
		{ "Parallels", NULL, "Parallels" },
		{ "Microsoft Corporation", "Virtual Machine", "Hyper-V" },
		{ "Google", "Google Compute Engine", "Google Compute Engine" },
	};
	size_t n;

	if (!vendor || !*vendor)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (starts(vendor, t[i].vendor) &&
		    (!t[i].product || (product && !strcmp(product, t[i].product))))
			return t[i].name;
	n = product ? strlen(product) : 0;
	if (starts(vendor, "Amazon EC2") && !(n > 6 && !strcmp(product + n - 6, ".metal")))
		return "Amazon EC2";
	return NULL;
}

void kw_cond_host_of(const struct kw_host_signs *s, char *kind, size_t kindlen, char *hv,
		     size_t hvlen, char *machine, size_t machinelen, char *ev, size_t evlen)
{
	char vendor[128], product[128], model[128], htype[32];
	const char *dmi_hv;
	bool x86 = s->arch && !strcmp(s->arch, "x86");

	kind[0] = hv[0] = machine[0] = ev[0] = 0;
	trimmed(s->dmi_vendor, vendor, sizeof(vendor));
	trimmed(s->dmi_product, product, sizeof(product));
	trimmed(s->hv_type, htype, sizeof(htype));
	trimmed(s->dt_model, model, sizeof(model));
	dmi_hv = dmi_hypervisor(vendor, product);
	if (vendor[0] || product[0])
		snprintf(machine, machinelen, "%s%s%s", vendor, vendor[0] && product[0] ? " " : "",
			 product);
	else if (model[0])
		snprintf(machine, machinelen, "%s", model);

	if (x86) {
		char fl[4096] = "", sig[16] = "", name[128] = "";
		bool flags = s->cpuinfo && cpuinfo_value(s->cpuinfo, "flags", fl, sizeof(fl));
		bool hvbit, tcg_model;
		const char *sig_hv = NULL;

		hvbit = has_word(fl, "hypervisor");
		if (s->cpuinfo)
			cpuinfo_value(s->cpuinfo, "model name", name, sizeof(name));
		/* QEMU's CPU models under TCG: "QEMU TCG CPU version 2.5+" */
		tcg_model = starts(name, "QEMU TCG CPU");
		/* leaf 0x40000000 means nothing without the bit: bare metal answers another leaf */
		if (hvbit && s->cpuid_sig) {
			snprintf(sig, sizeof(sig), "%.12s", s->cpuid_sig);
			for (size_t i = 0; i < ARRAY_SIZE(hv_sigs) && !sig_hv; i++)
				if (!strncmp(sig, hv_sigs[i].sig, strlen(hv_sigs[i].sig)))
					sig_hv = hv_sigs[i].name;
		}
		if (flags)
			add(ev, evlen, "CPUID hypervisor bit %s",
			    hvbit ? "set" : "clear (no hypervisor flag in /proc/cpuinfo)");
		if (sig[0])
			add(ev, evlen, "CPUID 0x40000000 signature \"%s\"", sig);
		if (tcg_model)
			add(ev, evlen, "CPU model \"%s\"", name);
		if (machine[0] && (vendor[0] || product[0]))
			add(ev, evlen, "DMI %s", machine);
		if (htype[0])
			add(ev, evlen, "/sys/hypervisor/type %s", htype);
		if (tcg_model || (sig_hv && !strcmp(sig_hv, "QEMU TCG"))) {
			snprintf(kind, kindlen, "emulated");
			snprintf(hv, hvlen, "QEMU TCG");
		} else if (flags && !hvbit) {
			snprintf(kind, kindlen, "bare-metal");
		} else if (hvbit) {
			snprintf(kind, kindlen, "vm");
			snprintf(hv, hvlen, "%s",
				 sig_hv	    ? sig_hv
				 : sig[0]   ? sig
				 : htype[0] ? htype
				 : dmi_hv   ? dmi_hv
					    : "");
		} else {
			snprintf(kind, kindlen, "unknown");
			add(ev, evlen, "no CPU flags read");
		}
		return;
	}

	/* arm64: no architected hypervisor bit, so only positive signs count */
	{
		char impl[16] = "";
		bool sw_cpu, kvm_log, virt_dt, xen_dt, log_from_boot;

		if (s->cpuinfo)
			cpuinfo_value(s->cpuinfo, "CPU implementer", impl, sizeof(impl));
		/* MIDR_EL1.Implementer 0x00 is reserved for software use: QEMU's "max" CPU */
		sw_cpu = impl[0] && strtoul(impl, NULL, 0) == 0;
		kvm_log = s->klog && strstr(s->klog, "KVM: hypervisor services detected");
		log_from_boot = s->klog && strstr(s->klog, "[    0.000000]");
		virt_dt = in_list(s->dt_compatible, s->dt_compatible_len, "linux,dummy-virt");
		xen_dt = in_list(s->dt_compatible, s->dt_compatible_len, "xen,xen");
		if (sw_cpu)
			add(ev, evlen,
			    "CPU implementer 0x00 (reserved for software: an emulated CPU)");
		if (kvm_log)
			add(ev, evlen, "boot log: KVM hypervisor services detected (SMCCC)");
		else if (log_from_boot)
			add(ev, evlen, "boot log: no KVM hypervisor services");
		if (vendor[0] || product[0])
			add(ev, evlen, "DMI %s", machine);
		if (virt_dt)
			add(ev, evlen, "device tree linux,dummy-virt (QEMU's virt machine)");
		if (xen_dt)
			add(ev, evlen, "device tree xen,xen");
		if (htype[0])
			add(ev, evlen, "/sys/hypervisor/type %s", htype);
		if (sw_cpu) {
			snprintf(kind, kindlen, "emulated");
			snprintf(hv, hvlen, "%s",
				 virt_dt || (dmi_hv && !strcmp(dmi_hv, "QEMU")) ? "QEMU TCG"
										: "emulator");
		} else if (kvm_log || !strcmp(product, "KVM Virtual Machine")) {
			snprintf(kind, kindlen, "vm");
			snprintf(hv, hvlen, "KVM");
		} else if (htype[0] || xen_dt) {
			snprintf(kind, kindlen, "vm");
			snprintf(hv, hvlen, "%s", htype[0] ? htype : "Xen");
		} else if (!strcmp(product, "QEMU Virtual Machine")) {
			/* QEMU's arm SMBIOS names KVM only: TCG, or another accelerator (hvf) */
			snprintf(kind, kindlen, "virtual");
			snprintf(hv, hvlen, "QEMU, not KVM");
		} else if (dmi_hv) {
			snprintf(kind, kindlen, "vm");
			snprintf(hv, hvlen, "%s", dmi_hv);
		} else if (virt_dt) {
			snprintf(kind, kindlen, "virtual");
			snprintf(hv, hvlen, "QEMU (KVM or TCG: not visible)");
		} else {
			snprintf(kind, kindlen, "unknown");
			add(ev, evlen, "no hypervisor sign, and arm64 has no architected one");
		}
	}
}

__u32 kw_cond_list_count(const char *list)
{
	__u32 n = 0;
	const char *p = list;

	if (!p)
		return 0;
	while (*p && *p != '\n') {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return 0;
		p = end;
		if (*p == '-') {
			b = strtoul(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return 0;
			p = end;
		}
		n += b - a + 1;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return 0;
	}
	return n;
}

void kw_cond_smt_of(const char *control, char *dst, size_t len)
{
	trimmed(control, dst, len);
}

void kw_cond_size_kb(unsigned long long kb, char *dst, size_t len)
{
	if (kb && !(kb % (1024 * 1024)))
		snprintf(dst, len, "%lluG", kb / (1024 * 1024));
	else if (kb && !(kb % 1024))
		snprintf(dst, len, "%lluM", kb / 1024);
	else
		snprintf(dst, len, "%lluK", kb);
}

void kw_cond_hugepagesz_of(const char *meminfo, char *dst, size_t len)
{
	const char *p = meminfo ? strstr(meminfo, "Hugepagesize:") : NULL;

	dst[0] = 0;
	if (p && (p == meminfo || p[-1] == '\n'))
		kw_cond_size_kb(strtoull(p + 13, NULL, 10), dst, len);
}

bool kw_cond_is_mitigation(const char *tok)
{
	static const char *const pfx[] = {
		"mitigations=", "spectre",     "nospectre",   "kpti",
		"nopti",	"pti=",	       "mds=",	      "tsx",
		"l1tf",		"retbleed",    "srbds",	      "ssbd",
		"spec_",	"gather_data", "reg_file",    "nosmt",
		"mmio_stale",	"spec_rstack", "arm64.nobti", "arm64.nopauth",
		"ibt=",		"its=",	       "nospec",      "kvm.nx_huge_pages",
	};

	for (size_t i = 0; i < ARRAY_SIZE(pfx); i++)
		if (!strncmp(tok, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/* Calls fn on each word of a kernel command line before "--" (init's arguments). */
static void each_word(const char *cmdline, void (*fn)(const char *w, size_t n, void *arg),
		      void *arg)
{
	const char *p = cmdline ? cmdline : "";

	for (;;) {
		size_t n;
		bool quoted = false;

		p += strspn(p, " \t\n");
		if (!*p)
			return;
		/* a value can be quoted: name="a b" */
		for (n = 0; p[n] && (quoted || !strchr(" \t\n", p[n])); n++)
			if (p[n] == '"')
				quoted = !quoted;
		if (n == 2 && !strncmp(p, "--", 2))
			return;
		fn(p, n, arg);
		p += n;
	}
}

struct words {
	char *dst;
	size_t len;
};

static void mitigation_word(const char *w, size_t n, void *arg)
{
	struct words *o = arg;
	char tok[256];

	snprintf(tok, sizeof(tok), "%.*s", (int)n, w);
	if (!kw_cond_is_mitigation(tok))
		return;
	n = strlen(o->dst);
	snprintf(o->dst + n, o->len - n, "%s%s", n ? " " : "", tok);
}

void kw_cond_mitigation_words(const char *cmdline, char *dst, size_t len)
{
	struct words o = { dst, len };

	dst[0] = 0;
	each_word(cmdline, mitigation_word, &o);
}

struct param {
	const char *name;
	char *dst;
	size_t len;
	bool found;
};

static void param_word(const char *w, size_t n, void *arg)
{
	struct param *o = arg;
	size_t k = strlen(o->name), i;

	if (n <= k || w[k] != '=')
		return;
	/* the kernel's parameq(): '-' and '_' are the same in a parameter's name */
	for (i = 0; i < k; i++) {
		char a = w[i] == '-' ? '_' : w[i], b = o->name[i] == '-' ? '_' : o->name[i];

		if (a != b)
			return;
	}
	w += k + 1;
	n -= k + 1;
	if (n >= 2 && w[0] == '"' && w[n - 1] == '"') {
		w++;
		n -= 2;
	}
	snprintf(o->dst, o->len, "%.*s", (int)n, w);
	o->found = true;
}

bool kw_cond_cmdline_param(const char *cmdline, const char *name, char *dst, size_t len)
{
	struct param o = { name, dst, len, false };

	dst[0] = 0;
	each_word(cmdline, param_word, &o);
	return o.found;
}

void kw_cond_setting_of(struct kw_cond_setting *s, const char *name, bool loaded, const char *param,
			const char *cmdline)
{
	char v[64], p[64];
	bool cmd = kw_cond_cmdline_param(cmdline, name, v, sizeof(v));

	memset(s, 0, sizeof(*s));
	s->param = true;
	snprintf(s->name, sizeof(s->name), "%s", name);
	trimmed(param, p, sizeof(p));
	if (loaded && param) {
		snprintf(s->value, sizeof(s->value), "%s", p);
		snprintf(s->source, sizeof(s->source), "%s",
			 cmd ? "command line" : "module parameter");
	} else if (cmd) {
		snprintf(s->value, sizeof(s->value), "%s", v);
		snprintf(s->source, sizeof(s->source), "command line (module not loaded)");
	} else {
		snprintf(s->source, sizeof(s->source), "%s",
			 loaded ? "parameter not readable" : "module not loaded");
	}
}

__u32 kw_cond_ipa_limit_of(const char *klog)
{
	const char *p = klog ? strstr(klog, "IPA Size Limit: ") : NULL;

	return p ? strtoul(p + 16, NULL, 10) : 0;
}

void kw_cond_vulns_summary(const struct kw_conditions *c, char *dst, size_t len)
{
	__u32 mit = 0, vuln = 0, na = 0, other = 0;

	for (__u32 i = 0; i < c->nvulns; i++) {
		const char *s = c->vulns[i].state;

		if (starts(s, "Not affected"))
			na++;
		else if (starts(s, "Mitigation"))
			mit++;
		else if (starts(s, "Vulnerable"))
			vuln++;
		else
			other++;
	}
	if (!c->nvulns) {
		snprintf(dst, len, "vulnerabilities not read");
		return;
	}
	snprintf(dst, len, "%u mitigated, %u vulnerable, %u not affected", mit, vuln, na);
	if (other)
		snprintf(dst + strlen(dst), len - strlen(dst), ", %u other", other);
}

void kw_cond_numa_balancing_text(const char *v, char *dst, size_t len)
{
	static const char *const what[] = { "off", "on", "memory tiering", "on, memory tiering" };
	char *end;
	unsigned long n = strtoul(v, &end, 10);

	if (!v[0])
		snprintf(dst, len, "unknown");
	else if (end != v && !*end && n < ARRAY_SIZE(what))
		snprintf(dst, len, "%s (%s)", v, what[n]);
	else
		snprintf(dst, len, "%s", v);
}

void kw_cond_huge_text(const struct kw_conditions *c, char *dst, size_t len)
{
	dst[0] = 0;
	for (__u32 i = 0; i < c->nhuge; i++) {
		size_t n = strlen(dst);

		snprintf(dst + n, len - n, "%s%s:%lld", i ? " " : "", c->huge[i].size,
			 c->huge[i].pages);
	}
}

const struct kw_cond_setting *kw_cond_setting(const struct kw_conditions *c, const char *name)
{
	for (__u32 i = 0; i < c->nsettings; i++)
		if (!strcmp(c->settings[i].name, name))
			return &c->settings[i];
	return NULL;
}

__u32 kw_cond_vm_ipa(const struct kw_conditions *c, const char *arch, const char *kvm_mode,
		     const char *vmm, const char *ipa_opt, const char *ipa_debugfs, char *src,
		     size_t srclen)
{
	const char *limit_src =
		c->ipa_limit ? "" : " (not known: no IPA Size Limit in the boot log)";

	if (!c->recorded) {
		snprintf(src, srclen, "not recorded");
		return 0;
	}
	if (strcmp(arch, "arm64")) {
		snprintf(src, srclen,
			 "x86: not a property of the VM type (the guest's MAXPHYADDR "
			 "is in its CPUID)");
		return 0;
	}
	if (ipa_debugfs[0]) {
		snprintf(src, srclen, "debugfs ipa_range%s%s", strchr(ipa_debugfs, ',') ? ": " : "",
			 strchr(ipa_debugfs, ',') ? ipa_debugfs : "");
		return strchr(ipa_debugfs, ',') ? 0 : strtoul(ipa_debugfs, NULL, 10);
	}
	/* kvm_init_ipa_range(): protected KVM gives every VM the host's limit, whatever its type */
	if (!strcmp(kvm_mode, "protected")) {
		snprintf(src, srclen, "protected mode: every VM has the host's limit%s", limit_src);
		return c->ipa_limit;
	}
	if (!strcmp(vmm, "kvmwalk-load")) {
		if (!ipa_opt[0]) {
			snprintf(src, srclen, "kvmwalk-load's default: VM type 0, KVM's 40 bits");
			return 40;
		}
		if (!strcmp(ipa_opt, "max")) {
			snprintf(src, srclen, "kvmwalk-load --ipa-bits max: the host's limit%s",
				 limit_src);
			return c->ipa_limit;
		}
		snprintf(src, srclen, "kvmwalk-load --ipa-bits %s", ipa_opt);
		return strtoul(ipa_opt, NULL, 10);
	}
	if (!strcmp(vmm, "qemu")) {
		snprintf(src, srclen,
			 "not known: QEMU sizes it from its memory map, and the VM type "
			 "is not visible outside the VM fd");
		return 0;
	}
	snprintf(src, srclen, "not known: the VM type is not visible outside the VM fd");
	return 0;
}

void kw_cond_vm_eager(const struct kw_conditions *c, const char *arch, const char *vmm,
		      const char *eager_opt, char *val, size_t vallen, char *src, size_t srclen)
{
	const struct kw_cond_setting *s = kw_cond_setting(c, "kvm.eager_page_split");

	val[0] = 0;
	if (!c->recorded) {
		snprintf(src, srclen, "not recorded");
	} else if (strcmp(arch, "arm64")) {
		snprintf(val, vallen, "%s", s ? s->value : "");
		snprintf(src, srclen, "the host's kvm.eager_page_split");
	} else if (eager_opt[0]) {
		snprintf(val, vallen, "%s", eager_opt);
		snprintf(src, srclen, "%s",
			 !strcmp(vmm, "qemu") ? "QEMU -accel kvm,eager-split-size"
					      : "kvmwalk-load --eager-split");
	} else if (!strcmp(vmm, "kvmwalk-load") || !strcmp(vmm, "qemu")) {
		snprintf(val, vallen, "0");
		snprintf(src, srclen, "not on its command line: %s's default, off",
			 !strcmp(vmm, "qemu") ? "QEMU" : "kvmwalk-load");
	} else {
		snprintf(src, srclen, "not known: KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE is per VM");
	}
}

/* ---- reading the host ----------------------------------------------------------------------- */

/* root/path, whole (NUL-terminated, free() it), *len its length; NULL if unreadable */
static char *slurp(const char *root, const char *path, size_t *len)
{
	char full[512], *buf = NULL, *p;
	size_t n = 0, cap = 0;
	ssize_t r;
	int fd;

	snprintf(full, sizeof(full), "%s%s", root, path);
	fd = open(full, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (n + 4096 >= cap) {
			p = realloc(buf, cap = cap ? cap * 2 : 16384);
			if (!p)
				break;
			buf = p;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	if (buf)
		buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

static void line_of(const char *root, const char *path, char *dst, size_t len)
{
	char *s = slurp(root, path, NULL);

	snprintf(dst, len, "%.*s", s ? (int)strcspn(s, "\n") : 0, s ? s : "");
	free(s);
}

static int huge_cmp(const void *a, const void *b)
{
	const struct kw_cond_huge *x = a, *y = b;
	/* by size: "64K" < "2M" < "32M" < "1G" */
	const char *u = "KMG";
	int ux = strchr(u, x->size[strlen(x->size) - 1]) - u,
	    uy = strchr(u, y->size[strlen(y->size) - 1]) - u;

	return ux != uy ? ux - uy : atoi(x->size) - atoi(y->size);
}

static void read_huge(struct kw_conditions *c, const char *root)
{
	char dir[512], v[32];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/hugepages", root);
	d = opendir(dir);
	while (d && (e = readdir(d)) && c->nhuge < KW_COND_HUGE) {
		unsigned long long kb;
		char path[384];

		if (sscanf(e->d_name, "hugepages-%llukB", &kb) != 1)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/mm/hugepages/%s/nr_hugepages", e->d_name);
		line_of(root, path, v, sizeof(v));
		kw_cond_size_kb(kb, c->huge[c->nhuge].size, sizeof(c->huge[0].size));
		c->huge[c->nhuge++].pages = v[0] ? atoll(v) : -1;
	}
	if (d)
		closedir(d);
	qsort(c->huge, c->nhuge, sizeof(c->huge[0]), huge_cmp);
}

static int vuln_cmp(const void *a, const void *b)
{
	return strcmp(((const struct kw_cond_vuln *)a)->name,
		      ((const struct kw_cond_vuln *)b)->name);
}

static void read_vulns(struct kw_conditions *c, const char *root)
{
	char dir[512];
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/sys/devices/system/cpu/vulnerabilities", root);
	d = opendir(dir);
	while (d && (e = readdir(d)) && c->nvulns < KW_COND_VULNS) {
		struct kw_cond_vuln *v = &c->vulns[c->nvulns];
		char path[384];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/vulnerabilities/%s",
			 e->d_name);
		snprintf(v->name, sizeof(v->name), "%s", e->d_name);
		line_of(root, path, v->state, sizeof(v->state));
		c->nvulns++;
	}
	if (d)
		closedir(d);
	qsort(c->vulns, c->nvulns, sizeof(c->vulns[0]), vuln_cmp);
}

static void module_setting(struct kw_conditions *c, const char *root, const char *name,
			   const char *cmdline)
{
	char mod[32], path[256], *param;
	const char *dot = strchr(name, '.');
	bool loaded;

	if (c->nsettings >= KW_COND_SETTINGS || !dot)
		return;
	snprintf(mod, sizeof(mod), "%.*s", (int)(dot - name), name);
	snprintf(path, sizeof(path), "%s/sys/module/%s", root, mod);
	loaded = !access(path, F_OK);
	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", mod, dot + 1);
	param = slurp(root, path, NULL);
	kw_cond_setting_of(&c->settings[c->nsettings++], name, loaded, param, cmdline);
	free(param);
}

static void plain_setting(struct kw_conditions *c, const char *name, const char *value,
			  const char *source)
{
	struct kw_cond_setting *s;

	if (c->nsettings >= KW_COND_SETTINGS)
		return;
	s = &c->settings[c->nsettings++];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->value, sizeof(s->value), "%s", value);
	snprintf(s->source, sizeof(s->source), "%s", source);
}

void kw_conditions_read(struct kw_conditions *c, const char *root, const char *arch,
			const char *klog, const char *cpuid_sig)
{
	static const char *const x86_params[] = {
		"kvm.tdp_mmu",	   "kvm.eager_page_split", "kvm.nx_huge_pages", "kvm_intel.ept",
		"kvm_intel.eptad", "kvm_intel.pml",	   "kvm_amd.npt",
	};
	struct kw_host_signs s = { .arch = arch, .cpuid_sig = cpuid_sig, .klog = klog };
	char *cpuinfo, *vendor, *product, *htype, *compat, *model, *cmdline, *meminfo, v[64];
	bool x86 = !strcmp(arch, "x86");

	memset(c, 0, sizeof(*c));
	c->recorded = true;
	line_of(root, "/sys/devices/system/cpu/online", c->cpus_online_list,
		sizeof(c->cpus_online_list));
	c->cpus_online = kw_cond_list_count(c->cpus_online_list);
	line_of(root, "/sys/devices/system/cpu/smt/control", v, sizeof(v));
	kw_cond_smt_of(v, c->smt, sizeof(c->smt));
	line_of(root, "/sys/devices/system/node/online", c->numa_nodes_online,
		sizeof(c->numa_nodes_online));
	c->numa_nodes = kw_cond_list_count(c->numa_nodes_online);

	s.cpuinfo = cpuinfo = slurp(root, "/proc/cpuinfo", NULL);
	s.dmi_vendor = vendor = slurp(root, "/sys/class/dmi/id/sys_vendor", NULL);
	s.dmi_product = product = slurp(root, "/sys/class/dmi/id/product_name", NULL);
	s.hv_type = htype = slurp(root, "/sys/hypervisor/type", NULL);
	s.dt_compatible = compat =
		slurp(root, "/proc/device-tree/compatible", &s.dt_compatible_len);
	s.dt_model = model = slurp(root, "/proc/device-tree/model", NULL);
	kw_cond_host_of(&s, c->host_kind, sizeof(c->host_kind), c->hypervisor,
			sizeof(c->hypervisor), c->machine, sizeof(c->machine), c->host_evidence,
			sizeof(c->host_evidence));

	line_of(root, "/proc/sys/kernel/numa_balancing", c->numa_balancing,
		sizeof(c->numa_balancing));
	line_of(root, "/proc/sys/vm/nr_hugepages", v, sizeof(v));
	c->nr_hugepages = v[0] ? atoll(v) : -1;
	meminfo = slurp(root, "/proc/meminfo", NULL);
	kw_cond_hugepagesz_of(meminfo, c->hugepagesz, sizeof(c->hugepagesz));
	read_huge(c, root);

	cmdline = slurp(root, "/proc/cmdline", NULL);
	kw_cond_mitigation_words(cmdline, c->mitigations, sizeof(c->mitigations));
	if (x86) {
		for (size_t i = 0; i < ARRAY_SIZE(x86_params); i++)
			module_setting(c, root, x86_params[i], cmdline);
	} else {
		bool set = kw_cond_cmdline_param(cmdline, "kvm-arm.mode", v, sizeof(v));

		plain_setting(c, "kvm-arm.mode", v,
			      set ? "command line" : "not on the command line");
		/* no module parameter: each VM asks for it, so it is a fact of each VM process */
		plain_setting(c, "eager split", "per VM",
			      "VM capability KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE");
		c->ipa_limit = kw_cond_ipa_limit_of(klog);
	}
	read_vulns(c, root);
	free(cpuinfo);
	free(vendor);
	free(product);
	free(htype);
	free(compat);
	free(model);
	free(cmdline);
	free(meminfo);
}

/* ---- JSON ----------------------------------------------------------------------------------- */

static json_t *count_or_null(long long v, long long unknown)
{
	return v == unknown ? json_null() : json_integer(v);
}

json_t *kw_conditions_json(const struct kw_conditions *c)
{
	json_t *o, *a, *h, *v;

	if (!c->recorded)
		return json_null();
	o = json_object();
	json_object_set_new(o, "host_kind", json_string(c->host_kind));
	json_object_set_new(o, "hypervisor", json_string(c->hypervisor));
	json_object_set_new(o, "machine", json_string(c->machine));
	json_object_set_new(o, "host_evidence", json_string(c->host_evidence));
	json_object_set_new(o, "cpus_online", count_or_null(c->cpus_online, 0));
	json_object_set_new(o, "cpus_online_list", json_string(c->cpus_online_list));
	json_object_set_new(o, "smt", json_string(c->smt));
	json_object_set_new(o, "numa_nodes", count_or_null(c->numa_nodes, 0));
	json_object_set_new(o, "numa_nodes_online", json_string(c->numa_nodes_online));
	json_object_set_new(o, "numa_balancing", json_string(c->numa_balancing));
	json_object_set_new(o, "nr_hugepages", count_or_null(c->nr_hugepages, -1));
	json_object_set_new(o, "hugepagesz", json_string(c->hugepagesz));
	h = json_object();
	for (__u32 i = 0; i < c->nhuge; i++)
		json_object_set_new(h, c->huge[i].size, count_or_null(c->huge[i].pages, -1));
	json_object_set_new(o, "hugepages", h);
	json_object_set_new(o, "mitigations", json_string(c->mitigations));
	a = json_array();
	for (__u32 i = 0; i < c->nsettings; i++)
		json_array_append_new(a, json_pack("{sssssssb}", "name", c->settings[i].name,
						   "value", c->settings[i].value, "source",
						   c->settings[i].source, "module_parameter",
						   c->settings[i].param));
	json_object_set_new(o, "kvm_settings", a);
	json_object_set_new(o, "ipa_limit_bits", count_or_null(c->ipa_limit, 0));
	v = json_object();
	for (__u32 i = 0; i < c->nvulns; i++)
		json_object_set_new(v, c->vulns[i].name, json_string(c->vulns[i].state));
	json_object_set_new(o, "vulnerabilities", v);
	return o;
}

static void str_of(const json_t *o, const char *key, char *dst, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	snprintf(dst, len, "%s", s ? s : "");
}

static long long int_of(const json_t *o, const char *key, long long unknown)
{
	const json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : unknown;
}

void kw_conditions_from_json(struct kw_conditions *c, const json_t *o)
{
	const char *k;
	json_t *v;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (!json_is_object(o))
		return;
	c->recorded = true;
	str_of(o, "host_kind", c->host_kind, sizeof(c->host_kind));
	str_of(o, "hypervisor", c->hypervisor, sizeof(c->hypervisor));
	str_of(o, "machine", c->machine, sizeof(c->machine));
	str_of(o, "host_evidence", c->host_evidence, sizeof(c->host_evidence));
	c->cpus_online = int_of(o, "cpus_online", 0);
	str_of(o, "cpus_online_list", c->cpus_online_list, sizeof(c->cpus_online_list));
	str_of(o, "smt", c->smt, sizeof(c->smt));
	c->numa_nodes = int_of(o, "numa_nodes", 0);
	str_of(o, "numa_nodes_online", c->numa_nodes_online, sizeof(c->numa_nodes_online));
	str_of(o, "numa_balancing", c->numa_balancing, sizeof(c->numa_balancing));
	c->nr_hugepages = int_of(o, "nr_hugepages", -1);
	str_of(o, "hugepagesz", c->hugepagesz, sizeof(c->hugepagesz));
	json_object_foreach((json_t *)json_object_get(o, "hugepages"), k, v)
	{
		if (c->nhuge >= KW_COND_HUGE)
			break;
		snprintf(c->huge[c->nhuge].size, sizeof(c->huge[0].size), "%s", k);
		c->huge[c->nhuge++].pages = json_is_integer(v) ? json_integer_value(v) : -1;
	}
	str_of(o, "mitigations", c->mitigations, sizeof(c->mitigations));
	json_array_foreach(json_object_get(o, "kvm_settings"), i, v)
	{
		struct kw_cond_setting *s = &c->settings[c->nsettings];

		if (c->nsettings >= KW_COND_SETTINGS || !json_is_object(v))
			continue;
		str_of(v, "name", s->name, sizeof(s->name));
		str_of(v, "value", s->value, sizeof(s->value));
		str_of(v, "source", s->source, sizeof(s->source));
		s->param = json_is_true(json_object_get(v, "module_parameter"));
		c->nsettings++;
	}
	c->ipa_limit = int_of(o, "ipa_limit_bits", 0);
	json_object_foreach((json_t *)json_object_get(o, "vulnerabilities"), k, v)
	{
		if (c->nvulns >= KW_COND_VULNS)
			break;
		snprintf(c->vulns[c->nvulns].name, sizeof(c->vulns[0].name), "%s", k);
		snprintf(c->vulns[c->nvulns++].state, sizeof(c->vulns[0].state), "%s",
			 json_string_value(v) ? json_string_value(v) : "");
	}
}
