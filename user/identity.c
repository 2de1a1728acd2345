// SPDX-License-Identifier: GPL-2.0
/* Process identity for per-VM attribution (identity.h): plain C over /proc, unit-tested. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"

static void copy_name(char *dst, size_t size, const char *src, size_t n)
{
	size_t o = 0;

	/* QEMU's option syntax: ",," is a literal comma, a single "," ends the value */
	for (size_t i = 0; i < n && o + 1 < size; i++) {
		if (src[i] == ',' && i + 1 < n && src[i + 1] == ',')
			i++;
		else if (src[i] == ',')
			break;
		dst[o++] = src[i];
	}
	dst[o] = '\0';
}

/* The value of -name: "guest=NAME,process=...", or "NAME,debug-threads=on", or "NAME". */
static int name_of_value(const char *v, char *name, size_t size)
{
	const char *p = v;

	/* guest= may come after other keys: find it at the start or after a single comma */
	for (const char *q = v; *q; q++) {
		if ((q == v || (q[-1] == ',' && (q - 1 == v || q[-2] != ','))) &&
		    !strncmp(q, "guest=", 6)) {
			p = q + 6;
			break;
		}
	}
	if (p == v && strchr(v, '=') && strchr(v, '=') < (strchr(v, ',') ?: v + strlen(v)))
		return -ENOENT; /* only other keys (process=..., debug-threads=...) */
	copy_name(name, size, p, strlen(p));
	return name[0] ? 0 : -ENOENT;
}

int kw_vm_name_from_cmdline(const char *args, size_t len, char *name, size_t size)
{
	const char *end = args + len, *a = args, *prev = NULL;

	name[0] = '\0';
	while (a < end) {
		size_t n = strnlen(a, end - a);

		if (prev && (!strcmp(prev, "-name") || !strcmp(prev, "--name")) && n)
			return name_of_value(a, name, size);
		if (!strncmp(a, "--name=", 7) && n > 7)
			return name_of_value(a + 7, name, size);
		prev = a;
		a += n + 1;
	}
	return -ENOENT;
}

int kw_vm_name_from_cgroup(const char *text, char *name, size_t size)
{
	const char *p = strstr(text, "machine-qemu");
	size_t o = 0;

	name[0] = '\0';
	if (!p)
		return -ENOENT;
	p += strlen("machine-qemu");
	/* "\x2dN\x2dNAME.scope": the escaped '-', the domain id, another '-', the name */
	for (int dashes = 0; *p && *p != '\n' && *p != '/'; p++) {
		char c = *p;

		if (c == '\\' && p[1] == 'x' && p[2] && p[3]) {
			unsigned int v;

			if (sscanf(p + 2, "%2x", &v) != 1)
				return -ENOENT;
			c = v;
			p += 3;
		}
		if (dashes < 2) {
			if (c == '-')
				dashes++;
			else if (dashes == 1 && (c < '0' || c > '9'))
				return -ENOENT;
			continue;
		}
		if (o + 1 < size)
			name[o++] = c;
	}
	name[o] = '\0';
	if (o > 6 && !strcmp(name + o - 6, ".scope"))
		name[o - 6] = '\0';
	else
		name[0] = '\0';
	return name[0] ? 0 : -ENOENT;
}

static ssize_t read_all(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

int kw_identity_read(uint32_t pid, const char *proc, struct kw_identity *id)
{
	char path[256], buf[8192];
	ssize_t n;

	memset(id, 0, sizeof(*id));
	id->pid = pid;
	snprintf(path, sizeof(path), "%s/%u/comm", proc, pid);
	n = read_all(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(id->comm, sizeof(id->comm), "%.15s", buf);
	snprintf(path, sizeof(path), "%s/%u/exe", proc, pid);
	n = readlink(path, id->exe, sizeof(id->exe) - 1);
	id->exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "%s/%u/cmdline", proc, pid);
	n = read_all(path, buf, sizeof(buf));
	if (n > 0) {
		/* a full buffer may have more: the kernel gives the whole vector */
		id->cmdline_cut = kw_vm_cmdline_text(buf, n, (size_t)n < sizeof(buf) - 1,
						     id->cmdline, sizeof(id->cmdline));
		kw_vm_opts_of(buf, n, &id->opts);
	}
	if (n > 0 && !kw_vm_name_from_cmdline(buf, n, id->vm, sizeof(id->vm))) {
		id->source = "cmdline";
		return 0;
	}
	snprintf(path, sizeof(path), "%s/%u/cgroup", proc, pid);
	n = read_all(path, buf, sizeof(buf));
	if (n > 0 && !kw_vm_name_from_cgroup(buf, id->vm, sizeof(id->vm)))
		id->source = "cgroup";
	return 0;
}
