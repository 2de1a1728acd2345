/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's text symbols from /proc/kallsyms: whether a probed function exists (and in which
 * module), and the name of a walker callback address. A module with state: ksyms__*(). No
 * libbpf here.
 */
#ifndef KW_KSYMS_H
#define KW_KSYMS_H

#include <stddef.h>

struct ksym {
	unsigned long long addr;
	char *name;
	char *mod; /* "" for vmlinux */
};

struct ksyms {
	struct ksym *syms; /* by address */
	size_t n;
};

/* Reads the text symbols ('t', 'T') of path ("/proc/kallsyms"). 0 or -errno. */
int ksyms__load(struct ksyms *ks, const char *path);
/* Frees; ks stays usable (empty). Accepts an empty or zeroed ks. */
void ksyms__free(struct ksyms *ks);
/* The symbol of that name, NULL if none. */
const struct ksym *ksyms__find(const struct ksyms *ks, const char *name);
/* The symbol holding addr, as "name" or "name+0xoff" (or "0x..." outside every symbol). */
void ksyms__describe(const struct ksyms *ks, unsigned long long addr, char *buf, size_t len);

#endif /* KW_KSYMS_H */
