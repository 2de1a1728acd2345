// SPDX-License-Identifier: GPL-2.0
/* Host metadata of a recording (host.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/*
 * Kernel strings (sysfs, /proc) are cut to the fixed-size fields of a recording on purpose. GCC
 * only: the fuzz targets link this file with clang, which has no such warning.
 */
#ifndef __clang__
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#include "host.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#if defined(__aarch64__)
#define KW_ARCH "arm64"
#elif defined(__x86_64__)
#define KW_ARCH "x86"
#else
#error "kvmwalk runs on arm64 and x86_64"
#endif

const char *kw_host_arch(void)
{
	return KW_ARCH;
}

char *kw_read_file(const char *path)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (len + 4096 >= cap) {
			p = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!p) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if ((ssize_t)n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

void kw_read_line(const char *path, char *dst, size_t len)
{
	char *s = kw_read_file(path), *nl;

	snprintf(dst, len, "%s", s ? s : "");
	free(s);
	nl = strchr(dst, '\n');
	if (nl)
		*nl = 0;
}

void kw_host_cpu(const char *cpuinfo, char *dst, size_t len)
{
	const char *keys[] = { "model name", "CPU implementer" };
	char *text = strdup(cpuinfo), *p;

	dst[0] = 0;
	for (int k = 0; text && k < 2 && !dst[0]; k++) {
		p = strstr(text, keys[k]);
		if (p && (p = strchr(p, ':'))) {
			char *nl = strchr(p, '\n');

			if (nl)
				*nl = 0;
			snprintf(dst, len, "%s%s", k ? "implementer " : "", p + 2);
			if (k) { /* arm64: add the part number */
				char *q = nl ? strstr(nl + 1, "CPU part") : NULL;

				if (q && (q = strchr(q, ':'))) {
					char *nl2 = strchr(q, '\n');

					if (nl2)
						*nl2 = 0;
					snprintf(dst + strlen(dst), len - strlen(dst), " part %s",
						 q + 2);
				}
			}
		}
	}
	free(text);
}

void kw_host_choice(const char *line, char *dst, size_t len)
{
	const char *a = strchr(line, '['), *b = a ? strchr(a, ']') : NULL;

	if (a && b)
		snprintf(dst, len, "%.*s", (int)(b - a - 1), a + 1);
	else
		snprintf(dst, len, "%s", line);
}

static void sysfs_choice(const char *path, char *dst, size_t len)
{
	char line[256];

	kw_read_line(path, line, sizeof(line));
	kw_host_choice(line, dst, len);
}

void kw_host_arm64_mode_of(const char *log, const char *cmdline, char *mode, size_t len)
{
	const char *p;
	char m[16] = "";

	mode[0] = 0;
	/* "Protected nVHE mode", "Hyp nVHE mode" and "VHE mode initialized successfully": test the
	 * longer ones first, "VHE mode" is a substring of both. kvm-arm.mode=nested says "VHE+NV2
	 * mode initialized" (a VHE host whose guests get EL2). */
	if (log && strstr(log, "VHE+NV2 mode initialized"))
		snprintf(mode, len, "nested");
	else if (log && strstr(log, "Protected nVHE mode initialized"))
		snprintf(mode, len, "protected");
	else if (log &&
		 (strstr(log, "nVHE mode initialized") || strstr(log, "Hyp mode initialized")))
		snprintf(mode, len, "nvhe");
	else if (log && strstr(log, "VHE mode initialized"))
		snprintf(mode, len, "vhe");
	if (mode[0] || !cmdline)
		return;
	p = strstr(cmdline, "kvm-arm.mode=");
	if (p && sscanf(p + 13, "%15s", m) == 1)
		snprintf(mode, len, "%s", m);
}

/* The kernel log (free() it), NULL if it cannot be read. */
static char *read_klog(void)
{
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log = n > 0 ? malloc(n + 1) : NULL;

	if (log && (n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, n)) > 0) {
		log[n] = 0;
		return log;
	}
	free(log);
	return NULL;
}

/*
 * x86: CPUID 0x40000000's signature (EBX, ECX, EDX) into sig[13], only when CPUID.1:ECX[31] (the
 * hypervisor bit) is set: without a hypervisor the leaf answers as another one. false otherwise.
 */
static bool cpuid_signature(char sig[13])
{
#if defined(__x86_64__)
	unsigned int a, b, c, d;

	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31)))
		return false;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(sig, &b, 4);
	memcpy(sig + 4, &c, 4);
	memcpy(sig + 8, &d, 4);
	sig[12] = 0;
	return true;
#else
	(void)sig;
	return false;
#endif
}

void kw_host_arm64_mode(char *mode, size_t len)
{
	char cmdline[1024];
	char *log = read_klog();

	kw_read_line("/proc/cmdline", cmdline, sizeof(cmdline));
	kw_host_arm64_mode_of(log, cmdline, mode, len);
	free(log);
}

static void add_params(struct kw_meta *m, const char *mod)
{
	char dir[128], path[384], val[64];
	struct kw_recording tmp = { .meta = *m };
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char name[96];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		kw_read_line(path, val, sizeof(val));
		snprintf(name, sizeof(name), "%s.%s", mod, e->d_name);
		kw_recording_add_param(&tmp, name, val);
	}
	closedir(d);
	*m = tmp.meta;
}

/* the word of text that starts at w and is exactly word (a token: space, '(' or ')' around it) */
static bool has_token(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += n)
		if ((p == text || strchr(" (\t\n#", p[-1])) && strchr(" )\t\n", p[n]))
			return true;
	return false;
}

/* the value of "preempt=VALUE" in a kernel command line into dst, false if none */
static bool cmdline_preempt(const char *cmdline, char *dst, size_t len)
{
	const char *p = cmdline;

	while (p && (p = strstr(p, "preempt="))) {
		if (p == cmdline || p[-1] == ' ') {
			size_t n = strcspn(p + 8, " \n");

			snprintf(dst, len, "%.*s", (int)n, p + 8);
			return n > 0;
		}
		p += 8;
	}
	return false;
}

void kw_host_preempt_of(const char *uname_v, const char *sched_preempt, const char *cmdline,
			const char *config, char *model, size_t len, char *src, size_t srclen)
{
	static const char *const modes[] = { "none", "voluntary", "full", "lazy" };
	char v[16];

	model[0] = src[0] = 0;
	if (uname_v && has_token(uname_v, "PREEMPT_RT")) {
		snprintf(model, len, "rt");
		snprintf(src, srclen, "uname");
		return;
	}
	if (!uname_v || !has_token(uname_v, "PREEMPT_DYNAMIC")) {
		/* a static model: CONFIG_PREEMPT says "PREEMPT" in the version, the others nothing */
		snprintf(model, len, "%s", uname_v && has_token(uname_v, "PREEMPT") ? "full" : "none");
		snprintf(src, srclen, "uname");
		return;
	}
	/* PREEMPT_DYNAMIC: the mode chosen at boot, "(full)" in debugfs' list of the modes */
	for (size_t i = 0; sched_preempt && i < sizeof(modes) / sizeof(modes[0]); i++) {
		char w[16];

		snprintf(w, sizeof(w), "(%s)", modes[i]);
		if (strstr(sched_preempt, w)) {
			snprintf(model, len, "%s", modes[i]);
			snprintf(src, srclen, "sched/preempt");
			return;
		}
	}
	if (cmdline && cmdline_preempt(cmdline, v, sizeof(v))) {
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(v, modes[i])) {
				snprintf(model, len, "%s", v);
				snprintf(src, srclen, "preempt=");
				return;
			}
	}
	/* else the build's default (kernel/Kconfig.preempt: one of these is y) */
	if (config) {
		static const struct {
			const char *opt, *mode;
		} defaults[] = {
			{ "CONFIG_PREEMPT_NONE=y", "none" },   { "CONFIG_PREEMPT_VOLUNTARY=y", "voluntary" },
			{ "CONFIG_PREEMPT=y", "full" },	       { "CONFIG_PREEMPT_LAZY=y", "lazy" },
		};

		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
			if (strstr(config, defaults[i].opt)) {
				snprintf(model, len, "%s", defaults[i].mode);
				snprintf(src, srclen, "config");
				return;
			}
	}
}

bool kw_host_preemptible(const char *model)
{
	/* unknown counts as preemptible: the mechanism chosen for it loses nothing either way */
	return strcmp(model, "none") && strcmp(model, "voluntary");
}

void kw_host_preempt(char *model, size_t len, char *src, size_t srclen)
{
	struct utsname u;
	char path[128], *sched = kw_read_file("/sys/kernel/debug/sched/preempt");
	char *cmdline = kw_read_file("/proc/cmdline"), *config;

	if (uname(&u))
		u.version[0] = u.release[0] = 0;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	config = kw_read_file(path);
	kw_host_preempt_of(u.version, sched, cmdline, config, model, len, src, srclen);
	free(sched);
	free(cmdline);
	free(config);
}

void kw_host_meta(struct kw_meta *m, const char *attach)
{
	struct utsname u;
	char *cpuinfo;
	time_t now = time(NULL);
	struct tm tm;
	DIR *d;
	struct dirent *e;

	snprintf(m->arch, sizeof(m->arch), "%s", KW_ARCH);
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->kernel_build, sizeof(m->kernel_build), "%s", u.version);
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	}
	kw_read_line("/proc/cmdline", m->cmdline, sizeof(m->cmdline));
	cpuinfo = kw_read_file("/proc/cpuinfo");
	m->cpu[0] = 0;
	if (cpuinfo)
		kw_host_cpu(cpuinfo, m->cpu, sizeof(m->cpu));
	free(cpuinfo);
	sysfs_choice("/sys/kernel/mm/transparent_hugepage/enabled", m->thp, sizeof(m->thp));
	sysfs_choice("/sys/kernel/mm/transparent_hugepage/defrag", m->thp_defrag,
		     sizeof(m->thp_defrag));
	gmtime_r(&now, &tm);
	strftime(m->started, sizeof(m->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	d = opendir("/sys/module");
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "kvm", 3))
			add_params(m, e->d_name);
	if (d)
		closedir(d);
	if (!strcmp(KW_ARCH, "arm64")) {
		kw_host_arm64_mode(m->kvm_mode, sizeof(m->kvm_mode));
	} else {
		char v[16] = "";

		kw_read_line("/sys/module/kvm/parameters/tdp_mmu", v, sizeof(v));
		snprintf(m->kvm_mode, sizeof(m->kvm_mode), "%s", v[0] == 'Y' ? "tdp" : "shadow");
	}
	snprintf(m->attach, sizeof(m->attach), "%s", attach);
	kw_host_preempt(m->preempt, sizeof(m->preempt), m->preempt_src, sizeof(m->preempt_src));
	{
		/* only arm64's conditions read the log: its IPA limit, KVM's hypervisor services */
		char sig[13], *log = strcmp(KW_ARCH, "arm64") ? NULL : read_klog();

		kw_conditions_read(&m->cond, "", KW_ARCH, log, cpuid_signature(sig) ? sig : NULL);
		free(log);
	}
}
