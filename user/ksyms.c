// SPDX-License-Identifier: GPL-2.0
/* /proc/kallsyms read once per loader (ksyms.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ksyms__load(struct ksyms *ks, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512], name[256], mod[128];
	unsigned long long addr;
	char type;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod) < 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (ks->n == cap) {
			struct ksym *p =
				realloc(ks->syms, (cap = cap ? cap * 2 : 65536) * sizeof(*p));

			if (!p) {
				fclose(f);
				return -ENOMEM;
			}
			ks->syms = p;
		}
		ks->syms[ks->n].addr = addr;
		ks->syms[ks->n].name = strdup(name);
		ks->syms[ks->n].mod = strdup(mod);
		ks->n++;
	}
	fclose(f);
	qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
	return 0;
}

void ksyms__free(struct ksyms *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->syms[i].name);
		free(ks->syms[i].mod);
	}
	free(ks->syms);
	ks->syms = NULL;
	ks->n = 0;
}

const struct ksym *ksyms__find(const struct ksyms *ks, const char *name)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->syms[i].name, name))
			return &ks->syms[i];
	return NULL;
}

void ksyms__describe(const struct ksyms *ks, unsigned long long addr, char *buf, size_t len)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !addr) {
		snprintf(buf, len, "0x%llx", addr);
		return;
	}
	if (ks->syms[lo - 1].addr == addr)
		snprintf(buf, len, "%s", ks->syms[lo - 1].name);
	else
		snprintf(buf, len, "%s+0x%llx", ks->syms[lo - 1].name,
			 addr - ks->syms[lo - 1].addr);
}
