// SPDX-License-Identifier: GPL-2.0
/* The sampled mode's function table (sample_funcs.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample_funcs.h"

const char *const kw_sample_trigger_names[KW_NR_SAMPLE_TRIGGERS] = {
	[KW_ST_NONE] = "(none)",
	[KW_ST_VCPU_IOCTL] = "vcpu_ioctl",
	[KW_ST_VM_IOCTL] = "vm_ioctl",
	[KW_ST_NOTIFIER] = "mmu_notifier",
	[KW_ST_AGING] = "mmu_notifier_age",
	[KW_ST_FAULT] = "vcpu_fault",
	[KW_ST_TEARDOWN] = "vm_teardown",
	[KW_ST_NESTED_UNMAP] = "nested_unmap",
};

#define W(f) { .func = #f, .what = #f }
#define WAS(f, label) { .func = #f, .what = label }
#define T(f, t) { .func = #f, .trigger = t }

/* The triggers in virt/kvm/kvm_main.c: the same functions on both arches. */
/* clang-format off */
#define KW_GENERIC_TRIGGERS \
	T(kvm_vcpu_ioctl, KW_ST_VCPU_IOCTL), \
	T(kvm_vm_ioctl, KW_ST_VM_IOCTL), \
	T(kvm_mmu_notifier_invalidate_range_start, KW_ST_NOTIFIER), \
	T(kvm_mmu_notifier_invalidate_range_end, KW_ST_NOTIFIER), \
	T(kvm_mmu_notifier_clear_flush_young, KW_ST_AGING), \
	T(kvm_mmu_notifier_clear_young, KW_ST_AGING), \
	T(kvm_mmu_notifier_test_young, KW_ST_AGING), \
	T(kvm_mmu_notifier_release, KW_ST_TEARDOWN), \
	T(kvm_destroy_vm, KW_ST_TEARDOWN)
/* clang-format on */

/*
 * The functions kvmwalk's probes know (user/probes.c, docs/design.md), and the static helpers a
 * sample lands in while they run. A sample takes the innermost work frame, so a TLB flush made
 * from inside an unmap walk counts as the flush, and the walk machinery (__kvm_pgtable_walk,
 * __kvm_pgtable_visit) as kvm_pgtable_walk: a walk's whole time is its kvm_pgtable_walk row plus
 * its callback's row and the flushes it made. Triggers: the innermost too, so a fault inside
 * KVM_RUN is a fault, and a nested unmap inside a notifier a nested unmap.
 */
static const struct kw_sample_fdef arm64_defs[] = {
	W(kvm_pgtable_walk),
	WAS(__kvm_pgtable_walk, "kvm_pgtable_walk"),
	WAS(__kvm_pgtable_visit, "kvm_pgtable_walk"),
	W(stage2_free_walker),
	W(stage2_unmap_walker),
	W(stage2_split_walker),
	W(stage2_age_walker),
	W(stage2_map_walker),
	W(stage2_attr_walker),
	W(stage2_flush_walker),
	W(__kvm_tlb_flush_vmid_range),
	W(kvm_tlb_flush_vmid_range),
	W(__kvm_tlb_flush_vmid_ipa),
	W(__kvm_tlb_flush_vmid_ipa_nsh),
	W(__kvm_tlb_flush_vmid),
	W(kvm_flush_remote_tlbs),
	W(kvm_flush_remote_tlbs_range),
	W(kvm_flush_remote_tlbs_memslot),
	W(user_mem_abort),
	KW_GENERIC_TRIGGERS,
	T(kvm_handle_guest_abort, KW_ST_FAULT),
	T(kvm_nested_s2_unmap, KW_ST_NESTED_UNMAP),
	{},
};

static const struct kw_sample_fdef x86_defs[] = {
	W(tdp_mmu_zap_leafs),
	W(kvm_tdp_mmu_zap_leafs),
	W(kvm_tdp_mmu_unmap_gfn_range),
	W(tdp_mmu_zap_root),
	W(kvm_tdp_mmu_zap_invalidated_roots),
	W(tdp_iter_next),
	W(fast_page_fault),
	W(kvm_tdp_mmu_map),
	W(kvm_tdp_mmu_clear_dirty_pt_masked),
	W(kvm_tdp_mmu_wrprot_slot),
	W(kvm_tdp_mmu_age_gfn_range),
	W(kvm_tdp_mmu_test_age_gfn),
	W(tdp_mmu_split_huge_pages_root),
	W(kvm_flush_remote_tlbs),
	W(kvm_flush_remote_tlbs_range),
	W(kvm_flush_remote_tlbs_memslot),
	KW_GENERIC_TRIGGERS,
	T(kvm_mmu_page_fault, KW_ST_FAULT),
	{},
};

const struct kw_sample_fdef *kw_sample_fdefs(const char *arch)
{
	if (!strcmp(arch, "arm64"))
		return arm64_defs;
	if (!strcmp(arch, "x86"))
		return x86_defs;
	return NULL;
}

static unsigned int what_id(struct kw_sample_table *t, const char *label)
{
	for (unsigned int i = 1; i < t->nwhats; i++)
		if (!strcmp(t->whats[i], label))
			return i;
	if (t->nwhats == KW_SAMPLE_MAX_WHATS)
		return 0;
	snprintf(t->whats[t->nwhats], sizeof(t->whats[0]), "%s", label);
	return t->nwhats++;
}

static int func_cmp(const void *a, const void *b)
{
	const struct kw_sample_func *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int kw_sample_table_build(struct kw_sample_table *t, const struct kw_sample_fdef *defs,
			  const struct ksyms *ks)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->whats[0], sizeof(t->whats[0]), "(other)");
	t->nwhats = 1;
	for (const struct kw_sample_fdef *d = defs; d && d->func; d++) {
		bool found = false;

		/* every symbol of that name: a static function can have several */
		for (size_t i = 0; i < ks->n; i++) {
			struct kw_sample_func *f;
			size_t j = i + 1;

			if (strcmp(ks->syms[i].name, d->func))
				continue;
			found = true;
			/* it ends where the next symbol at a higher address starts */
			while (j < ks->n && ks->syms[j].addr <= ks->syms[i].addr)
				j++;
			if (j == ks->n)
				continue;
			if (t->n == KW_SAMPLE_MAX_FUNCS) {
				t->dropped++;
				continue;
			}
			f = &t->funcs[t->n++];
			f->start = ks->syms[i].addr;
			f->end = ks->syms[j].addr;
			f->what = d->what ? what_id(t, d->what) : 0;
			f->trigger = d->trigger;
		}
		t->missing += !found;
	}
	qsort(t->funcs, t->n, sizeof(*t->funcs), func_cmp);
	return t->n ? 0 : -ENOENT;
}

int kw_sample_lookup(const struct kw_sample_table *t, unsigned long long ip)
{
	unsigned int lo = 0, hi = t->n;

	for (int i = 0; i < KW_SAMPLE_SEARCH_STEPS && lo < hi; i++) {
		unsigned int mid = ((lo + hi) / 2) & (KW_SAMPLE_MAX_FUNCS - 1);

		if (ip < t->funcs[mid].start)
			hi = mid;
		else if (ip >= t->funcs[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

bool kw_sample_classify(const struct kw_sample_table *t, const unsigned long long *ips,
			unsigned int n, unsigned int *what, unsigned int *trigger)
{
	*what = 0;
	*trigger = 0;
	for (unsigned int i = 0; i < n && i < KW_SAMPLE_MAX_FRAMES && !*trigger; i++) {
		int f = kw_sample_lookup(t, ips[i]);

		if (f < 0)
			continue;
		if (!*what)
			*what = t->funcs[f].what;
		if (!*trigger)
			*trigger = t->funcs[f].trigger;
	}
	return *what || *trigger;
}
