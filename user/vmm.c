// SPDX-License-Identifier: GPL-2.0
/* A VM process's VMM, command line, options and version (vmm.h): plain C, unit-tested. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm.h"

#define VERSION_TAG "QEMU emulator version "

/* QEMU options whose value is a secret: only the key is kept */
static bool secret_key(const char *arg, const char *key, size_t k)
{
	return (k == 8 && !strncmp(key, "password", 8)) || (k == 6 && !strncmp(key, "passwd", 6)) ||
	       (k == 4 && !strncmp(key, "data", 4) && !strncmp(arg, "secret,", 7));
}

/* arg with the values of its secret keys (key=value between commas) hidden */
static void hide_secrets(const char *arg, char *dst, size_t size)
{
	size_t o = 0;

	for (const char *p = arg; *p && o + 1 < size;) {
		size_t n = strcspn(p, ","), k = strcspn(p, "=,");

		if (p[k] == '=' && k < n && secret_key(arg, p, k))
			o += snprintf(dst + o, size - o, "%.*s=HIDDEN", (int)k, p);
		else
			o += snprintf(dst + o, size - o, "%.*s", (int)n, p);
		p += n;
		if (*p == ',' && o + 1 < size) {
			dst[o++] = ',';
			dst[o] = 0;
			p++;
		}
	}
	if (o >= size)
		o = size - 1;
	dst[o] = 0;
}

/* a shell word: quoted when it has anything but the safe characters */
static void quote(const char *w, char *dst, size_t size)
{
	size_t o = 0;

	if (*w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			       "@%+=:,./_-")]) {
		snprintf(dst, size, "%s", w);
		return;
	}
	o += snprintf(dst + o, size - o, "'");
	for (; *w && o < size; w++)
		o += snprintf(dst + o, size - o, *w == '\'' ? "'\\''" : "%c", *w);
	if (o < size)
		snprintf(dst + o, size - o, "'");
}

bool kw_vm_cmdline_text(const char *args, size_t len, bool complete, char *dst, size_t size)
{
	const char *end = args + len, *a = args;
	size_t used = 0;
	bool cut = !complete;

	dst[0] = 0;
	if (size < 8)
		return true;
	while (a < end) {
		size_t n = strnlen(a, end - a);
		/* "key=HIDDEN" may be longer than "key=x" */
		char *hidden = malloc(3 * n + 16), *q = malloc(12 * n + 64);
		size_t qn;

		/* an argument the read cut in the middle is not kept */
		if (!hidden || !q || (!complete && a + n >= end)) {
			free(hidden);
			free(q);
			cut = true;
			break;
		}
		hide_secrets(a, hidden, 3 * n + 16);
		quote(hidden, q, 12 * n + 64);
		free(hidden);
		qn = strlen(q);
		/* room for this word and, should a next one not fit, " ..." */
		if (used + !!used + qn + (a + n + 1 < end ? 4 : 0) >= size) {
			free(q);
			cut = true;
			break;
		}
		used += snprintf(dst + used, size - used, "%s%s", used ? " " : "", q);
		free(q);
		a += n + 1;
	}
	if (cut && used + 4 < size)
		snprintf(dst + used, size - used, "%s...", used ? " " : "");
	return cut;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* value of argp's "--name VALUE" or "--name=VALUE" at argument a (next: the one after) */
static bool long_opt(const char *a, const char *next, const char *name, char *dst, size_t size)
{
	size_t k = strlen(name);

	if (strncmp(a, name, k))
		return false;
	if (a[k] == '=')
		snprintf(dst, size, "%s", a + k + 1);
	else if (!a[k] && next)
		snprintf(dst, size, "%s", next);
	else
		return false;
	return true;
}

/* QEMU's "-accel kvm,eager-split-size=2M" (also --accel), the value of eager-split-size */
static bool qemu_eager(const char *a, const char *next, char *dst, size_t size)
{
	const char *p;

	if ((strcmp(a, "-accel") && strcmp(a, "--accel")) || !next || strncmp(next, "kvm", 3))
		return false;
	for (p = next; (p = strstr(p, "eager-split-size=")); p++)
		if (p[-1] == ',') {
			p += strlen("eager-split-size=");
			snprintf(dst, size, "%.*s", (int)strcspn(p, ","), p);
			return true;
		}
	return false;
}

void kw_vm_opts_of(const char *args, size_t len, struct kw_vm_opts *o)
{
	const char *end = args + len, *a = args, *prog;

	memset(o, 0, sizeof(*o));
	if (!len || !*args)
		return;
	prog = basename_of(args);
	/* qemu-system-aarch64, qemu-system-x86_64, RHEL's qemu-kvm */
	if (!strncmp(prog, "qemu-system-", 12) || !strcmp(prog, "qemu-kvm"))
		snprintf(o->vmm, sizeof(o->vmm), "qemu");
	else if (!strcmp(prog, "kvmwalk-load"))
		snprintf(o->vmm, sizeof(o->vmm), "kvmwalk-load");
	else
		return;
	while (a < end) {
		size_t n = strnlen(a, end - a);
		const char *next = a + n + 1 < end ? a + n + 1 : NULL;

		if (!strcmp(o->vmm, "kvmwalk-load")) {
			long_opt(a, next, "--ipa-bits", o->ipa_opt, sizeof(o->ipa_opt));
			long_opt(a, next, "--eager-split", o->eager_opt, sizeof(o->eager_opt));
		} else {
			qemu_eager(a, next, o->eager_opt, sizeof(o->eager_opt));
		}
		a += n + 1;
	}
}

void kw_vmm_version_of(const char *buf, size_t len, char *dst, size_t size)
{
	const size_t k = strlen(VERSION_TAG);
	const char *p = buf, *end = buf + len;

	dst[0] = 0;
	/* the first occurrence followed by a version number: kvmwalk holds the tag alone too */
	while ((p = memmem(p, end - p, VERSION_TAG, k))) {
		const char *v = p + k;
		size_t n = 0;

		while (v + n < end && v[n] && v[n] != '\n' && n + 1 < size)
			n++;
		/* ended inside buf: a version cut at buf's end is read from the next chunk */
		if (n && v[0] >= '0' && v[0] <= '9' && v + n < end) {
			snprintf(dst, size, "%.*s", (int)n, v);
			return;
		}
		p = v;
	}
}

/* the file range of the ELF's .rodata section, false if none */
static bool rodata_of(int fd, off_t *off, size_t *sz)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL, str;
	char *names = NULL;
	bool found = false;

	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    !eh.e_shnum || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum)
		return false;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || pread(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) !=
			   (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	str = sh[eh.e_shstrndx];
	if (str.sh_size > 1 << 20 || !(names = calloc(1, str.sh_size + 1)) ||
	    pread(fd, names, str.sh_size, str.sh_offset) != (ssize_t)str.sh_size)
		goto out;
	for (unsigned int i = 0; i < eh.e_shnum && !found; i++)
		if (sh[i].sh_name < str.sh_size && !strcmp(names + sh[i].sh_name, ".rodata") &&
		    sh[i].sh_type == SHT_PROGBITS) {
			*off = sh[i].sh_offset;
			*sz = sh[i].sh_size;
			found = true;
		}
out:
	free(names);
	free(sh);
	return found;
}

/* the binaries read so far (QEMU's .rodata is a few MiB: each is read once) */
static struct {
	dev_t dev;
	ino_t ino;
	char version[96];
} seen[16];
static unsigned int nseen;

int kw_vmm_version_file(const char *path, char *dst, size_t size)
{
	const size_t chunk = 1 << 20, keep = 256;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	size_t sz = 0, done = 0, have = 0;
	struct stat st;
	char *buf = NULL;
	off_t off;

	dst[0] = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto out;
	}
	for (unsigned int i = 0; i < nseen && i < sizeof(seen) / sizeof(seen[0]); i++)
		if (seen[i].dev == st.st_dev && seen[i].ino == st.st_ino) {
			snprintf(dst, size, "%s", seen[i].version);
			goto out;
		}
	/* at most 64 MiB of it */
	if (!rodata_of(fd, &off, &sz) || sz > 64 << 20 || !(buf = malloc(chunk + keep))) {
		err = -ENOENT;
		goto remember;
	}
	/* chunks overlapping by keep bytes: a version string never straddles two unseen */
	while (done < sz && !dst[0]) {
		size_t want = sz - done < chunk ? sz - done : chunk;
		ssize_t r = pread(fd, buf + have, want, off + done);

		if (r <= 0)
			break;
		kw_vmm_version_of(buf, have + r, dst, size);
		done += r;
		have += r;
		if (have > keep) {
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
remember:
	seen[nseen % (sizeof(seen) / sizeof(seen[0]))].dev = st.st_dev;
	seen[nseen % (sizeof(seen) / sizeof(seen[0]))].ino = st.st_ino;
	snprintf(seen[nseen % (sizeof(seen) / sizeof(seen[0]))].version, sizeof(seen[0].version),
		 "%s", dst);
	nseen++;
out:
	free(buf);
	close(fd);
	return err;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

void kw_vm_debugfs_ipa(const char *dir, uint32_t pid, char *dst, size_t size)
{
	unsigned int bits[16], n = 0;
	char pfx[16], path[512];
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t used = 0;

	dst[0] = 0;
	snprintf(pfx, sizeof(pfx), "%u-", pid);
	while (d && (e = readdir(d)) && n < sizeof(bits) / sizeof(bits[0])) {
		FILE *f;

		if (strncmp(e->d_name, pfx, strlen(pfx)))
			continue;
		snprintf(path, sizeof(path), "%s/%s/ipa_range", dir, e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%u", &bits[n]) == 1)
			n++;
		fclose(f);
	}
	if (d)
		closedir(d);
	/* each size once, smallest first */
	qsort(bits, n, sizeof(bits[0]), cmp_uint);
	for (unsigned int i = 0; i < n; i++)
		if ((!i || bits[i] != bits[i - 1]) && used < size)
			used += snprintf(dst + used, size - used, "%s%u", used ? "," : "", bits[i]);
}
