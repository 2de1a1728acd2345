// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics: the types, the parsers and the JSON of a recording's "kvm_stats" (see
 * kvmstats.h). Layer: helpers.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmstats.h"

const char *const kw_kvm_stat_type_names[KW_NR_KST] = {
	[KW_KST_CUMULATIVE] = "cumulative",
	[KW_KST_INSTANT] = "instant",
	[KW_KST_PEAK] = "peak",
};

/*
 * Where 7.3 increments each (arch/x86/kvm, virt/kvm/kvm_main.c), which is what report's
 * "KVM's own counters" puts beside kvmwalk's counts.
 */
const struct kw_kvm_stat_def kw_kvm_stat_defs[] = {
	{ "pf_fast", "x86", "fast_page_fault() returns other than RET_PF_INVALID" },
	{ "pf_taken", "x86", "vCPU page faults KVM handled (kvm_mmu_do_page_fault)" },
	{ "pf_fixed", "x86", "faults that installed a leaf SPTE (slow path)" },
	{ "pf_spurious", "x86", "faults on an SPTE that was already fixed" },
	{ "pages_4k", "x86", "4 KiB leaf SPTEs mapped (a level)" },
	{ "pages_2m", "x86", "2 MiB leaf SPTEs mapped (a level)" },
	{ "pages_1g", "x86", "1 GiB leaf SPTEs mapped (a level)" },
	{ "remote_tlb_flush_requests", "", "kvm_flush_remote_tlbs() calls" },
	{ "remote_tlb_flush", "", "kvm_flush_remote_tlbs() calls that flushed or kicked a vCPU" },
};
const size_t kw_nr_kvm_stat_defs = sizeof(kw_kvm_stat_defs) / sizeof(kw_kvm_stat_defs[0]);

const struct kw_kvm_stat_def *kw_kvm_stat_def(const char *name)
{
	for (size_t i = 0; i < kw_nr_kvm_stat_defs; i++)
		if (!strcmp(kw_kvm_stat_defs[i].name, name))
			return &kw_kvm_stat_defs[i];
	return NULL;
}

void kw_kvmstats_init(struct kw_kvmstats *ks)
{
	memset(ks, 0, sizeof(*ks));
	ks->sec_pt_start_kb = ks->sec_pt_end_kb = -1;
}

void kw_kvmstats_free(struct kw_kvmstats *ks)
{
	if (!ks)
		return;
	for (size_t i = 0; i < ks->nvms; i++)
		free(ks->vms[i].stats);
	free(ks->vms);
	ks->vms = NULL;
	ks->nvms = 0;
}

int kw_kvmstats_copy(struct kw_kvmstats *dst, const struct kw_kvmstats *src)
{
	*dst = *src;
	dst->vms = NULL;
	dst->nvms = 0;
	if (!src->nvms)
		return 0;
	dst->vms = calloc(src->nvms, sizeof(*dst->vms));
	if (!dst->vms)
		return -ENOMEM;
	for (size_t i = 0; i < src->nvms; i++) {
		struct kw_kvm_vm *v = &dst->vms[dst->nvms++];

		*v = src->vms[i];
		v->stats = NULL;
		if (!v->nstats)
			continue;
		v->stats = malloc(v->nstats * sizeof(*v->stats));
		if (!v->stats) {
			v->nstats = 0;
			kw_kvmstats_free(dst);
			return -ENOMEM;
		}
		memcpy(v->stats, src->vms[i].stats, v->nstats * sizeof(*v->stats));
	}
	return 0;
}

struct kw_kvm_vm *kw_kvmstats_vm(struct kw_kvmstats *ks, const char *id, __u64 key)
{
	struct kw_kvm_vm *p;

	for (size_t i = 0; i < ks->nvms; i++)
		if (!strcmp(ks->vms[i].id, id) && ks->vms[i].key == key)
			return &ks->vms[i];
	p = realloc(ks->vms, (ks->nvms + 1) * sizeof(*p));
	if (!p)
		return NULL;
	ks->vms = p;
	p = &ks->vms[ks->nvms++];
	memset(p, 0, sizeof(*p));
	snprintf(p->id, sizeof(p->id), "%s", id);
	p->key = key;
	return p;
}

struct kw_kvm_stat *kw_kvm_vm_stat(struct kw_kvm_vm *vm, const char *name,
				   enum kw_kvm_stat_type type)
{
	struct kw_kvm_stat *p;

	for (size_t i = 0; i < vm->nstats; i++)
		if (!strcmp(vm->stats[i].name, name))
			return &vm->stats[i];
	p = realloc(vm->stats, (vm->nstats + 1) * sizeof(*p));
	if (!p)
		return NULL;
	vm->stats = p;
	p = &vm->stats[vm->nstats++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->type = type;
	return p;
}

const struct kw_kvm_stat *kw_kvm_vm_find(const struct kw_kvm_vm *vm, const char *name)
{
	for (size_t i = 0; i < vm->nstats; i++)
		if (!strcmp(vm->stats[i].name, name))
			return &vm->stats[i];
	return NULL;
}

void kw_kvmstats_keep(struct kw_kvmstats *ks, const __u32 *pids, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < ks->nvms; i++) {
		bool keep = false;

		for (size_t k = 0; k < n && !keep; k++)
			keep = ks->vms[i].pid && ks->vms[i].pid == pids[k];
		if (keep)
			ks->vms[o++] = ks->vms[i];
		else
			free(ks->vms[i].stats);
	}
	ks->nvms = o;
}

static int vm_cmp(const void *a, const void *b)
{
	const struct kw_kvm_vm *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (strcmp(x->id, y->id))
		return strcmp(x->id, y->id);
	return x->first_t < y->first_t ? -1 : x->first_t > y->first_t;
}

void kw_kvmstats_sort(struct kw_kvmstats *ks)
{
	if (ks->nvms > 1)
		qsort(ks->vms, ks->nvms, sizeof(*ks->vms), vm_cmp);
}

long long kw_kvm_stat_delta(const struct kw_kvm_stat *s)
{
	return s->type == KW_KST_PEAK ? 0 : (long long)(s->end - s->start);
}

long long kw_kvmstats_delta(const struct kw_kvmstats *ks, const char *name, bool *have)
{
	long long d = 0;

	if (have)
		*have = false;
	for (size_t i = 0; i < ks->nvms; i++) {
		const struct kw_kvm_stat *s = kw_kvm_vm_find(&ks->vms[i], name);

		if (!s)
			continue;
		d += kw_kvm_stat_delta(s);
		if (have)
			*have = true;
	}
	return d;
}

unsigned long long kw_kvmstats_end(const struct kw_kvmstats *ks, const char *name, bool *have)
{
	unsigned long long v = 0;

	if (have)
		*have = false;
	for (size_t i = 0; i < ks->nvms; i++) {
		const struct kw_kvm_stat *s = kw_kvm_vm_find(&ks->vms[i], name);

		if (!s)
			continue;
		v += s->end;
		if (have)
			*have = true;
	}
	return v;
}

/* ---- parsers --------------------------------------------------------------------------------- */

int kw_kvmstats_parse_value(const char *text, __u64 *v)
{
	unsigned long long x;
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(text, &end, 10);
	if (errno || (*end && strcmp(end, "\n")))
		return -EINVAL;
	*v = x;
	return 0;
}

long long kw_kvmstats_parse_meminfo(const char *text)
{
	const char *p = text;

	while (p && *p) {
		unsigned long long kb;

		if (!strncmp(p, "SecPageTables:", 14) && sscanf(p + 14, "%llu", &kb) == 1)
			return (long long)kb;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1;
}

int kw_kvmstats_parse_dirname(const char *name, __u32 *tid, __u32 *fd)
{
	unsigned int a, b;
	int n = 0;

	if (*name < '1' || *name > '9' || sscanf(name, "%u-%u%n", &a, &b, &n) != 2 || name[n])
		return -EINVAL;
	*tid = a;
	*fd = b;
	return 0;
}

bool kw_kvmstats_debugfs_stat(const char *name, unsigned int mode, enum kw_kvm_stat_type *type)
{
	size_t n = strlen(name);

	if (!n || n >= KW_KVM_STAT_NAME || (n > 5 && !strcmp(name + n - 5, "_hist")))
		return false;
	if (!(mode & 0222))
		*type = KW_KST_INSTANT;
	else if (!strncmp(name, "max_", 4))
		*type = KW_KST_PEAK;
	else
		*type = KW_KST_CUMULATIVE;
	return true;
}

/*
 * The binary format (Documentation/virt/kvm/api.rst, "KVM_GET_STATS_FD"), as struct
 * kvm_stats_header and kvm_stats_desc of the uapi: fixed since 5.14, so kept here rather than
 * taken from the build machine's headers.
 */
struct ks_header {
	__u32 flags, name_size, num_desc, id_offset, desc_offset, data_offset;
};
struct ks_desc {
	__u32 flags;
	__s16 exponent;
	__u16 size;
	__u32 offset;
	__u32 bucket_size;
	/* char name[name_size] */
};
_Static_assert(sizeof(struct ks_header) == 24, "kvm_stats_header");
_Static_assert(sizeof(struct ks_desc) == 16, "kvm_stats_desc");

#define KS_TYPE_MASK 0xf
#define KS_TYPE_CUMULATIVE 0x0
#define KS_TYPE_INSTANT 0x1
#define KS_TYPE_PEAK 0x2

int kw_kvmstats_parse_binary(const void *buf, size_t len, char *id, size_t idlen, kw_kvmstats_fn fn,
			     void *arg)
{
	const char *b = buf;
	struct ks_header h;
	size_t dsz;

	if (len < sizeof(h))
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (!h.name_size || h.name_size > 1024 || h.id_offset > len ||
	    len - h.id_offset < h.name_size)
		return -EINVAL;
	if (id && idlen) {
		size_t n = strnlen(b + h.id_offset, h.name_size);

		snprintf(id, idlen, "%.*s", (int)n, b + h.id_offset);
	}
	dsz = sizeof(struct ks_desc) + h.name_size;
	if (h.desc_offset > len || (len - h.desc_offset) / dsz < h.num_desc)
		return -EINVAL;
	for (__u32 i = 0; i < h.num_desc; i++) {
		const char *p = b + h.desc_offset + (size_t)i * dsz;
		char name[KW_KVM_STAT_NAME];
		enum kw_kvm_stat_type type;
		struct ks_desc d;
		size_t at;
		__u64 v;
		int err;

		memcpy(&d, p, sizeof(d));
		if (d.size != 1)
			continue; /* a histogram (LINEAR_HIST, LOG_HIST): not kept */
		switch (d.flags & KS_TYPE_MASK) {
		case KS_TYPE_CUMULATIVE:
			type = KW_KST_CUMULATIVE;
			break;
		case KS_TYPE_INSTANT:
			type = KW_KST_INSTANT;
			break;
		case KS_TYPE_PEAK:
			type = KW_KST_PEAK;
			break;
		default:
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)strnlen(p + sizeof(d), h.name_size),
			 p + sizeof(d));
		if (!name[0])
			return -EINVAL;
		at = (size_t)h.data_offset + d.offset;
		if (at < h.data_offset || at > len || len - at < sizeof(v))
			return -EINVAL;
		memcpy(&v, b + at, sizeof(v));
		if ((err = fn(arg, name, type, v)))
			return err;
	}
	return 0;
}

int kw_kvmstats_parse_id(const char *id, __u32 *tid, bool *vcpu)
{
	unsigned int t, n;
	int k = 0;

	if (strncmp(id, "kvm-", 4) || sscanf(id + 4, "%u%n", &t, &k) != 1)
		return -EINVAL;
	id += 4 + k;
	*tid = t;
	*vcpu = false;
	if (!*id)
		return 0;
	k = 0;
	if (sscanf(id, "/vcpu-%u%n", &n, &k) != 1 || id[k])
		return -EINVAL;
	*vcpu = true;
	return 0;
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static json_t *kb_json(long long kb)
{
	return kb < 0 ? json_null() : json_integer(kb);
}

json_t *kw_kvmstats_json(const struct kw_kvmstats *ks)
{
	json_t *o = json_object(), *a = json_array(), *pt = json_object();

	json_object_set_new(o, "source", json_string(ks->source));
	json_object_set_new(o, "reason", json_string(ks->why));
	json_object_set_new(pt, "start", kb_json(ks->sec_pt_start_kb));
	json_object_set_new(pt, "end", kb_json(ks->sec_pt_end_kb));
	json_object_set_new(pt, "delta",
			    ks->sec_pt_start_kb < 0 || ks->sec_pt_end_kb < 0
				    ? json_null()
				    : json_integer(ks->sec_pt_end_kb - ks->sec_pt_start_kb));
	json_object_set_new(o, "sec_page_tables_kb", pt);
	for (size_t i = 0; i < ks->nvms; i++) {
		const struct kw_kvm_vm *v = &ks->vms[i];
		json_t *vo, *so = json_object();

		vo = json_pack("{sIsssssbsbsfsf}", "pid", (json_int_t)v->pid, "id", v->id, "source",
			       v->source, "at_start", v->at_start, "ended", v->ended, "first_t",
			       v->first_t, "last_t", v->last_t);
		for (size_t k = 0; k < v->nstats; k++) {
			const struct kw_kvm_stat *s = &v->stats[k];

			json_object_set_new(
				so, s->name,
				json_pack("{sssIsIso}", "type", kw_kvm_stat_type_names[s->type],
					  "start", (json_int_t)s->start, "end", (json_int_t)s->end,
					  "delta",
					  s->type == KW_KST_PEAK
						  ? json_null()
						  : json_integer(kw_kvm_stat_delta(s))));
		}
		json_object_set_new(vo, "stats", so);
		json_array_append_new(a, vo);
	}
	json_object_set_new(o, "vms", a);
	return o;
}

static void str_of(const json_t *o, const char *k, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, k));

	snprintf(buf, len, "%s", s ? s : "");
}

static long long kb_of(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : -1;
}

int kw_kvmstats_from_json(struct kw_kvmstats *ks, const json_t *o)
{
	const json_t *vo, *pt;
	size_t i;

	kw_kvmstats_init(ks);
	if (!json_is_object(o))
		return 0;
	str_of(o, "source", ks->source, sizeof(ks->source));
	str_of(o, "reason", ks->why, sizeof(ks->why));
	pt = json_object_get(o, "sec_page_tables_kb");
	ks->sec_pt_start_kb = kb_of(pt, "start");
	ks->sec_pt_end_kb = kb_of(pt, "end");
	json_array_foreach(json_object_get(o, "vms"), i, vo)
	{
		struct kw_kvm_vm *v;
		const char *name;
		char id[32];
		json_t *so;

		str_of(vo, "id", id, sizeof(id));
		/* each element its own VM, even under an id seen before (a reused fd) */
		v = kw_kvmstats_vm(ks, id, ks->nvms + 1);
		if (!v)
			goto nomem;
		v->key = 0;
		v->pid = json_integer_value(json_object_get(vo, "pid"));
		str_of(vo, "source", v->source, sizeof(v->source));
		v->at_start = json_is_true(json_object_get(vo, "at_start"));
		v->ended = json_is_true(json_object_get(vo, "ended"));
		v->first_t = json_number_value(json_object_get(vo, "first_t"));
		v->last_t = json_number_value(json_object_get(vo, "last_t"));
		json_object_foreach(json_object_get(vo, "stats"), name, so)
		{
			const char *tn = json_string_value(json_object_get(so, "type"));
			enum kw_kvm_stat_type t = KW_KST_CUMULATIVE;
			struct kw_kvm_stat *s;

			for (int k = 0; tn && k < KW_NR_KST; k++)
				if (!strcmp(tn, kw_kvm_stat_type_names[k]))
					t = k;
			s = kw_kvm_vm_stat(v, name, t);
			if (!s)
				goto nomem;
			s->start = json_integer_value(json_object_get(so, "start"));
			s->end = json_integer_value(json_object_get(so, "end"));
		}
	}
	return 0;
nomem:
	kw_kvmstats_free(ks);
	return -ENOMEM;
}
