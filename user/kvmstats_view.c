// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The report's "KVM's own counters" (kvmstats_view.h). Which statistic counts
 * what kvmwalk counts, from 7.3's source:
 *   - pf_fast: fast_page_fault() increments it on its way out when it returns other than
 *     RET_PF_INVALID (arch/x86/kvm/mmu/mmu.c; its early return for a fault that cannot be fast
 *     returns RET_PF_INVALID), where kvmwalk's probe counts each return code at exit.
 *   - remote_tlb_flush_requests: kvm_flush_remote_tlbs() increments it first thing
 *     (virt/kvm/kvm_main.c), on every arch; the same calls as `record --count
 *     kvm_flush_remote_tlbs` counts (on Debian's x86 7.3 kvm.ko no other function increments
 *     the field: kvm_flush_remote_tlbs_range() reaches it by a tail call).
 *   - remote_tlb_flush: those calls that flushed (or kicked a vCPU to): nothing of kvmwalk's.
 *   - pages_4k/2m/1g (x86): a level, the leaf SPTEs mapped (kvm_update_page_stats() where a
 *     leaf is installed or removed); kvmwalk counts no installs, so only the level is shown.
 *   - arm64: range TLB flushes (kvm_tlb_flush_vmid_range()) touch no statistic:
 *     kvm_flush_remote_tlbs_range() returns before kvm_flush_remote_tlbs() when the arch range
 *     flush succeeds, and kvm_pgtable_stage2_unmap() calls kvm_tlb_flush_vmid_range() itself.
 *     The section says how many of them KVM's statistics missed.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "kvmstats.h"
#include "kvmstats_view.h"
#include "record.h"

/* The rows of the section, in order. */
static const char *const report_stats[] = {
	"pf_fast",  "remote_tlb_flush_requests", "remote_tlb_flush", "pages_4k", "pages_2m",
	"pages_1g",
};
#define NR_REPORT_STATS (sizeof(report_stats) / sizeof(report_stats[0]))

static bool in_arch(const struct kw_recording *r, const char *name)
{
	const struct kw_kvm_stat_def *d = kw_kvm_stat_def(name);

	return d && (!d->arch[0] || !strcmp(d->arch, r->meta.arch));
}

static const struct kw_ufunc *ufunc(const struct kw_recording *r, const char *name)
{
	for (size_t i = 0; i < r->nufuncs; i++)
		if (!strcmp(r->ufuncs[i].req.name, name) && kw_plan_attached(&r->ufuncs[i].plan))
			return &r->ufuncs[i];
	return NULL;
}

long long kw_kvmstats_kvmwalk(const struct kw_recording *r, const char *name, const char **what)
{
	const char *w = NULL;
	long long n = -1;

	if (!strcmp(name, "pf_fast")) {
		w = "fast_page_fault returns but RET_PF_INVALID";
		if (kw_plan_attached(&r->plan[KW_P_FAST_PF]))
			for (int i = 0; i < KW_NR_PF_RET - 1 && n < 0; i++)
				if (!strcmp(r->pf_ret_names[i], "RET_PF_INVALID")) {
					n = 0;
					for (int k = 0; k < KW_NR_PF_RET; k++)
						if (k != i)
							n += r->counters[KW_C_PF_RET + k];
				}
	} else if (!strcmp(name, "remote_tlb_flush_requests")) {
		const struct kw_ufunc *u = ufunc(r, "kvm_flush_remote_tlbs");

		w = u ? "kvm_flush_remote_tlbs calls (--count)"
		      : "not counted (--count kvm_flush_remote_tlbs)";
		if (u)
			n = (long long)u->f.calls;
	}
	if (what)
		*what = w;
	return n;
}

long long kw_kvmstats_range_flushes(const struct kw_recording *r)
{
	if (strcmp(r->meta.arch, "arm64"))
		return -1;
	if (kw_plan_attached(&r->plan[KW_P_TLB_FLUSH_RANGE]))
		return (long long)r->funcs[KW_P_TLB_FLUSH_RANGE].calls;
	if (kw_plan_attached(&r->plan[KW_P_HYP_FLUSH_RANGE]))
		return (long long)r->funcs[KW_P_HYP_FLUSH_RANGE].calls;
	return -1;
}

static const char *flush_probe(const struct kw_recording *r)
{
	return kw_plan_attached(&r->plan[KW_P_TLB_FLUSH_RANGE])
		       ? kw_probes[KW_P_TLB_FLUSH_RANGE].name
		       : kw_probes[KW_P_HYP_FLUSH_RANGE].name;
}

/* The words of text from column col on, one space apart, wrapped at 80 columns to indent. */
static void wrap(FILE *f, int col, int indent, const char *text)
{
	bool first = true;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");

		if (!first && col + 1 + (int)n > 80) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
			first = true;
		}
		if (!first) {
			fputc(' ', f);
			col++;
		}
		col += fprintf(f, "%.*s", (int)n, p);
		first = false;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static const struct kw_vm *identity(const struct kw_recording *r, __u32 pid)
{
	return pid ? kw_recording_vm(r, pid) : NULL;
}

void kw_kvmstats_print(FILE *f, const struct kw_recording *r)
{
	const struct kw_kvmstats *ks = &r->kvmstats;
	long long flushes;
	char line[256];

	if (!ks->source[0] && !ks->why[0])
		return;
	fprintf(f,
		"\nKVM's own counters (its statistics at the start and the end, no probe cost)\n");
	if (!ks->source[0]) {
		fprintf(f, "  not read: ");
		wrap(f, 12, 4, ks->why);
		return;
	}
	fprintf(f, "  %-26s %9s %9s  %s\n", "statistic", "KVM", "kvmwalk", "what kvmwalk counted");
	for (size_t i = 0; i < NR_REPORT_STATS; i++) {
		const char *name = report_stats[i], *what = NULL;
		long long kw = kw_kvmstats_kvmwalk(r, name, &what), d;
		const struct kw_kvm_stat *s = NULL;
		char kvm[24], mine[24];
		bool have;
		int col;

		if (!in_arch(r, name))
			continue;
		d = kw_kvmstats_delta(ks, name, &have);
		for (size_t v = 0; v < ks->nvms && !s; v++)
			s = kw_kvm_vm_find(&ks->vms[v], name);
		if (!have)
			snprintf(kvm, sizeof(kvm), "-");
		else if (s->type == KW_KST_INSTANT)
			snprintf(kvm, sizeof(kvm), "%s%s", d >= 0 ? "+" : "", KW_EXACT(d));
		else
			kw_fmt_count_exact(kvm, sizeof(kvm), d);
		if (kw >= 0)
			kw_fmt_count_exact(mine, sizeof(mine), kw);
		else
			snprintf(mine, sizeof(mine), "-");
		col = fprintf(f, "  %-26s %9s %9s", name, kvm, mine);
		if (!have) {
			snprintf(line, sizeof(line), "not read");
		} else if (s->type == KW_KST_INSTANT) {
			/* a level: what it is at the end, summed over the VMs */
			snprintf(line, sizeof(line), "(a level: %s at the end)",
				 KW_EXACT(kw_kvmstats_end(ks, name, NULL)));
		} else if (what) {
			snprintf(line, sizeof(line), "%s", what);
		} else {
			line[0] = 0;
		}
		if (line[0]) {
			col += fprintf(f, "  ");
			wrap(f, col, 50, line);
		} else {
			fputc('\n', f);
		}
	}
	flushes = kw_kvmstats_range_flushes(r);
	if (!strcmp(r->meta.arch, "arm64")) {
		if (flushes >= 0)
			snprintf(line, sizeof(line),
				 "KVM's statistics saw none of the %s range TLB flushes kvmwalk "
				 "counted (%s): arm64 counts only kvm_flush_remote_tlbs()",
				 KW_EXACT(flushes), flush_probe(r));
		else
			snprintf(line, sizeof(line),
				 "KVM's statistics count no range TLB flush; kvmwalk's range-flush "
				 "probes were not attached");
		fputs("  ", f);
		wrap(f, 2, 2, line);
	}
	if (ks->sec_pt_start_kb >= 0 && ks->sec_pt_end_kb >= 0)
		/* /proc/meminfo's kB are KiB: sizes, written as every size (fmt.h) */
		fprintf(f, "  SecPageTables: %s at the start, %s at the end (%s%s)\n",
			KW_BYTES(1024.0 * ks->sec_pt_start_kb),
			KW_BYTES(1024.0 * ks->sec_pt_end_kb),
			ks->sec_pt_end_kb < ks->sec_pt_start_kb ? "-" : "+",
			KW_BYTES(1024.0 * llabs(ks->sec_pt_end_kb - ks->sec_pt_start_kb)));
	else
		fprintf(f, "  SecPageTables: not in /proc/meminfo (Linux 6.0+)\n");
	snprintf(line, sizeof(line), "read from %s; %zu VM%s%s", ks->source, ks->nvms,
		 ks->nvms == 1 ? "" : "s", ks->nvms ? ":" : "");
	fprintf(f, "  %s\n", line);
	for (size_t v = 0; v < ks->nvms; v++) {
		const struct kw_kvm_vm *vm = &ks->vms[v];
		const struct kw_vm *id = identity(r, vm->pid);
		char who[128];

		snprintf(who, sizeof(who), "pid %u%s%s%s%s%s, VM %s:", vm->pid, id ? " " : "",
			 id ? id->comm : "", id && id->vm[0] ? " (" : "", id ? id->vm : "",
			 id && id->vm[0] ? ")" : "", vm->id);
		if (vm->ended)
			snprintf(line, sizeof(line),
				 "%s %s; ended before the end: its last read, at %.2f s, stands "
				 "for its end",
				 who,
				 vm->at_start ? "read at the start"
					      : "created during the recording",
				 vm->last_t);
		else
			snprintf(line, sizeof(line), "%s %s, read at the end", who,
				 vm->at_start ? "read at the start"
					      : "created during the recording");
		fputs("    ", f);
		wrap(f, 4, 6, line);
	}
	if (ks->why[0]) {
		fputs("  note: ", f);
		wrap(f, 8, 4, ks->why);
	}
}

json_t *kw_kvmstats_report_json(const struct kw_recording *r)
{
	const struct kw_kvmstats *ks = &r->kvmstats;
	json_t *o, *a, *pt;
	long long flushes;

	if (!ks->source[0] && !ks->why[0])
		return NULL;
	o = json_pack("{ssss}", "source", ks->source, "reason", ks->why);
	a = json_array();
	for (size_t i = 0; i < NR_REPORT_STATS; i++) {
		const char *name = report_stats[i], *what = NULL;
		long long kw = kw_kvmstats_kvmwalk(r, name, &what), d;
		const struct kw_kvm_stat *s = NULL;
		bool have;

		if (!in_arch(r, name))
			continue;
		d = kw_kvmstats_delta(ks, name, &have);
		for (size_t v = 0; v < ks->nvms && !s; v++)
			s = kw_kvm_vm_find(&ks->vms[v], name);
		json_array_append_new(
			a, json_pack("{sssososososo}", "name", name, "type",
				     s ? json_string(kw_kvm_stat_type_names[s->type]) : json_null(),
				     "kvm_delta", have ? json_integer(d) : json_null(), "kvm_end",
				     have ? json_integer(kw_kvmstats_end(ks, name, NULL))
					  : json_null(),
				     "kvmwalk", kw >= 0 ? json_integer(kw) : json_null(),
				     "kvmwalk_counts", what ? json_string(what) : json_null()));
	}
	json_object_set_new(o, "stats", a);
	flushes = kw_kvmstats_range_flushes(r);
	if (!strcmp(r->meta.arch, "arm64"))
		json_object_set_new(o, "range_flushes_unseen",
				    flushes >= 0 ? json_integer(flushes) : json_null());
	pt = json_object();
	json_object_set_new(pt, "start",
			    ks->sec_pt_start_kb >= 0 ? json_integer(ks->sec_pt_start_kb)
						     : json_null());
	json_object_set_new(pt, "end",
			    ks->sec_pt_end_kb >= 0 ? json_integer(ks->sec_pt_end_kb) : json_null());
	json_object_set_new(pt, "delta",
			    ks->sec_pt_start_kb >= 0 && ks->sec_pt_end_kb >= 0
				    ? json_integer(ks->sec_pt_end_kb - ks->sec_pt_start_kb)
				    : json_null());
	json_object_set_new(o, "sec_page_tables_kb", pt);
	a = json_array();
	for (size_t v = 0; v < ks->nvms; v++) {
		const struct kw_kvm_vm *vm = &ks->vms[v];

		json_array_append_new(a, json_pack("{sIsssssbsbsf}", "pid", (json_int_t)vm->pid,
						   "id", vm->id, "source", vm->source, "at_start",
						   vm->at_start, "ended", vm->ended, "last_t",
						   vm->last_t));
	}
	json_object_set_new(o, "vms", a);
	return o;
}
