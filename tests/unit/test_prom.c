// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "prom.h"

void kw_test_aging_arm64(struct kw_recording *r);
void kw_test_aging_x86(struct kw_recording *r);
void kw_test_kvmstats_prom(struct kw_recording *r);

/* A fixed recording of each arch, as the loader would fill it after a short workload. */
static void fill_common(struct kw_recording *r, const char *arch)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "0.1-test");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "%s", arch);
	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "6.12.0-test \"quoted\\\"");
	for (int p = 0; p < KW_NR_PROBES; p++) {
		r->plan[p].mech = KW_MECH_FENTRY;
		snprintf(r->plan[p].func, sizeof(r->plan[p].func), "%s", kw_probes[p].name);
	}
	r->overhead.stats_enabled = true;
	r->overhead.run_ns = 123456789;
	r->overhead.run_cnt = 4242;
	r->overhead.measured_ns = 9876543210ULL;
	r->counters[KW_C_TASK_FULL] = 3;
	r->counters[KW_C_TRIG_FULL] = 1;
}

static void fill_arm64(struct kw_recording *r)
{
	struct kw_func *f;

	fill_common(r, "arm64");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "vhe");
	r->plan[KW_P_HYP_FLUSH_RANGE].mech = KW_MECH_UNAVAILABLE;
	snprintf(r->plan[KW_P_HYP_FLUSH_RANGE].reason, sizeof(r->plan[0].reason),
		 "not in this kernel (/proc/kallsyms): absent or \"inlined\"");
	r->plan[KW_P_S2_WRPROTECT].mech = KW_MECH_KPROBE;
	snprintf(r->plan[KW_P_GUEST_FAULT].func, sizeof(r->plan[0].func), "kvm_handle_guest_abort");

	/* 512 walks of 2 MiB taking 1..2 us, 8 of the whole 48-bit space taking ~3 ms */
	f = &r->funcs[KW_P_PGT_WALK];
	for (int i = 0; i < 512; i++) {
		kw_hist_add(&f->dur, 1000 + 2 * i);
		kw_hist_add(&f->size, 2 << 20);
	}
	for (int i = 0; i < 8; i++) {
		kw_hist_add(&f->dur, 3000000 + i);
		kw_hist_add(&f->size, 1ULL << 48);
	}
	f->calls = 520;
	f->missed = 2;
	/* 3 faults waited for mmu_lock, 20 us each, and one 1 ms behind a long unmap */
	f = &r->funcs[KW_P_MMU_LOCK];
	for (int i = 0; i < 3; i++)
		kw_hist_add(&f->dur, 20000);
	kw_hist_add(&f->dur, 1000000);
	f->calls = 4;
	f = &r->funcs[KW_P_S2_UNMAP];
	for (int i = 0; i < 64; i++) {
		kw_hist_add(&f->dur, 64 + i); /* straddles the first boundary, 63 ns */
		kw_hist_add(&f->size, 1ULL << 30);
	}
	f->calls = 64;
	f = &r->funcs[KW_P_SPLIT_WALKER];
	f->calls = 1024 + 2;
	f = &r->funcs[KW_P_TLB_FLUSH_RANGE];
	for (int i = 0; i < 64; i++) {
		kw_hist_add(&f->dur, 40000);
		kw_hist_add(&f->size, 262144);
	}
	f->calls = 64;
	f = &r->funcs[KW_P_VM_IOCTL];
	kw_hist_add(&f->dur, 40000000000ULL); /* 40 s: above the last boundary, only in +Inf */
	kw_hist_add(&f->dur, 30000);
	f->calls = 2;
	f->errors = 1;
	f = &r->funcs[KW_P_MEMSLOT];
	kw_hist_add(&f->dur, 3000);
	f->calls = 1;

	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 3, KW_O_SPLIT)] = 2;
	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 4, KW_O_NOTHING)] = 1024;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 4, KW_O_CLEARED)] = 512;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 4, KW_O_INVALID)] = 7;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 3, KW_O_TABLE)] = 1;
	r->counters[KW_C_UNMAP_CALLS] = 64;
	r->counters[KW_C_UNMAP_CLEARED] = 512;
	r->counters[KW_C_UNMAP_EMPTY] = 63;
	r->counters[KW_C_UNMAP_FLUSHES] = 64;
	r->counters[KW_C_EMPTY_FLUSHES] = 63;
	r->counters[KW_C_UNMAP_FLUSH_NS] = 2560000;
	r->counters[KW_C_EMPTY_FLUSH_NS] = 2520000;
	r->counters[KW_C_FLUSH_ENCL + KW_E_UNMAP] = 64;
	r->counters[KW_C_FLUSH_ENCL + KW_E_WRPROTECT] = 1;
	r->counters[KW_C_FLUSH_ENCL_PAGES + KW_E_UNMAP] = 64 * 262144;
	r->counters[KW_C_FLUSH_ENCL_PAGES + KW_E_WRPROTECT] = 512;
	kw_hist_add(&r->unmap_cleared, 512);
	for (int i = 0; i < 63; i++)
		kw_hist_add(&r->unmap_cleared, 0);
	/* one nested unmap of a 36-bit nested MMU: 64 unmap calls, the first clears a leaf */
	f = &r->funcs[KW_P_NESTED_UNMAP];
	kw_hist_add(&f->dur, 3000000);
	f->calls = 3;
	r->counters[KW_C_NESTED_ACTIVE] = 1;
	r->counters[KW_C_NESTED_ACTIVE_NS] = 3000000;
	r->counters[KW_C_NESTED_UNMAPS] = 64;
	r->counters[KW_C_NESTED_CLEARED] = 1;
	r->counters[KW_C_NESTED_EMPTY] = 63;
	r->counters[KW_C_NESTED_FLUSHES] = 64;
	r->counters[KW_C_NESTED_EMPTY_FLUSHES] = 63;
	r->counters[KW_C_NESTED_FLUSH_NS] = 2560000;
	r->counters[KW_C_NESTED_EMPTY_FLUSH_NS] = 2520000;

	kw_recording_add_cb(r, &(struct kw_cb){ .sym = "stage2_unmap_walker",
						.calls = 64,
						.ns = 70000,
						.bytes = 64ULL << 30 });
	kw_recording_add_cb(r, &(struct kw_cb){ .sym = "stage2_split_walker",
						.calls = 1,
						.ns = 900000,
						.bytes = 1ULL << 30 });
	kw_recording_add_cb(r, &(struct kw_cb){ .sym = "stage2_map_walker",
						.depth = 1,
						.calls = 2,
						.ns = 3000,
						.bytes = 2 << 20 });
	kw_recording_add_cb(r, &(struct kw_cb){ .sym = "stage2_unmap_walker",
						.flags = 4,
						.calls = 1,
						.ns = 1000,
						.bytes = 4096 });
	/* the same trigger key in two VMMs: merged unless --per-vm */
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_S2_UNMAP, KW_T_NOTIFIER, 0, 100, 60, 4000,
						    "", KW_MS_NONE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_S2_UNMAP, KW_T_NOTIFIER, 0, 200, 4, 300, "",
						    KW_MS_NONE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_S2_SPLIT, KW_T_IOCTL, 0x4020ae46, 100, 1,
						    1500000, "", KW_MS_DIRTY_LOG_ON });
	kw_test_aging_arm64(r);
	kw_test_kvmstats_prom(r);
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_PGT_WALK, KW_T_IOCTL, 0x1234, 100, 2, 20, "",
						    KW_MS_NONE });
	/*
	 * KVM_SET_USER_MEMORY_REGION twice: the 40 s dirty-logging enable, and one that changed
	 * nothing (no operation). Two rows, one key of the trigger families; the memslot families
	 * count the enable only.
	 */
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 100, 1,
						    40000000000ULL, "", KW_MS_DIRTY_LOG_ON });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 100, 1,
						    30000, "", KW_MS_NONE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_MEMSLOT, KW_T_IOCTL, 0x4020ae46, 100, 1,
						    3000, "", KW_MS_DIRTY_LOG_ON });
}

static void fill_x86(struct kw_recording *r)
{
	struct kw_func *f;

	fill_common(r, "x86");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "tdp");
	r->plan[KW_P_SPTE_CHANGED].mech = KW_MECH_TRACEPOINT;
	r->plan[KW_P_TDP_ZAP_LEAFS_ALL].mech = KW_MECH_OFF;
	snprintf(r->plan[KW_P_TDP_ZAP_LEAFS_ALL].reason, sizeof(r->plan[0].reason),
		 "not selected (--probe)");
	/* serve's default, the cheap set, leaves it out (the reason is the loader's) */
	r->plan[KW_P_MMU_LOCK].mech = KW_MECH_OFF;
	snprintf(r->plan[KW_P_MMU_LOCK].reason, sizeof(r->plan[0].reason),
		 "not in the cheap set (--probe all attaches it)");
	/* an attached probe's reason (why not fentry) is not served */
	r->plan[KW_P_VCPU_IOCTL].mech = KW_MECH_KPROBE;
	snprintf(r->plan[KW_P_VCPU_IOCTL].reason, sizeof(r->plan[0].reason),
		 "fentry: attach test failed");
	f = &r->funcs[KW_P_TDP_ZAP_LEAFS];
	for (int i = 0; i < 100; i++) {
		kw_hist_add(&f->dur, 500 + 100 * i);
		kw_hist_add(&f->size, 512);
	}
	f->calls = 100;
	f = &r->funcs[KW_P_FAST_PF];
	for (int i = 0; i < 10; i++)
		kw_hist_add(&f->dur, 256);
	f->calls = 10;
	r->counters[KW_C_ZAP_GFNS] = 51200;
	r->counters[KW_C_ZAP_ZAPPED] = 512;
	r->counters[KW_C_SPTE_CHANGES] = 512;
	r->counters[KW_C_PF_RET + 1] = 9;
	r->counters[KW_C_PF_RET + 2] = 1;
	snprintf(r->pf_ret_names[0], 32, "RET_PF_CONTINUE");
	snprintf(r->pf_ret_names[1], 32, "RET_PF_RETRY");
	snprintf(r->pf_ret_names[2], 32, "RET_PF_EMULATE");
	snprintf(r->pf_ret_names[3], 32, "RET_PF_WRITE_PROTECTED");
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_TDP_ZAP_LEAFS, KW_T_NOTIFIER, 0, 77, 100,
						    600000, "", KW_MS_NONE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_FAST_PF, KW_T_FAULT, 0, 77, 10, 2560, "",
						    KW_MS_NONE });
	/* pid 77 is a QEMU named web"01 (a quote to escape); pid 0, the exited ones, has no name */
	kw_recording_add_vm(r, &(struct kw_vm){ .pid = 77, .comm = "qemu-system-x86",
						 .vm = "web\"01", .source = "cmdline" });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_FAST_PF, KW_T_FAULT, 0, 0, 3, 300, "",
						    KW_MS_NONE });
	/* a migration's dirty-log ioctls, for the dashboard's per-VM panel */
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4010ae42, 77, 12,
						    120000, "KVM_GET_DIRTY_LOG", KW_MS_NONE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0xc018aec0, 77, 7,
						    70000, "KVM_CLEAR_DIRTY_LOG", KW_MS_NONE });
	/* and its memslots (the x86 number of KVM_SET_USER_MEMORY_REGION2): two created, logged */
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0x40a0ae49, 77, 2,
						    90000, "", KW_MS_CREATE });
	kw_recording_add_trig(r, &(struct kw_trig){ KW_P_VM_IOCTL, KW_T_IOCTL, 0x40a0ae49, 77, 1,
						    2500000, "", KW_MS_DIRTY_LOG_ON });
	kw_test_aging_x86(r);
	kw_test_kvmstats_prom(r);
}

static bool golden(const struct kw_recording *r, const struct prom_opts *o, const char *name)
{
	char *buf;
	size_t len;
	bool ok;

	if (!ASSERT_EQ(prom_render(r, o, &buf, &len), 0, "render"))
		return false;
	ok = ASSERT_GOLDEN(buf, len, name);
	free(buf);
	return ok;
}

/* Value of the sample line that starts with `series ` (exact series text), or -1. */
static double sample(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, series, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return -1;
}

/* Every histogram: buckets non-decreasing, +Inf equal to _count; every family has HELP+TYPE. */
static bool well_formed(const char *text, const char *what)
{
	char fam[128] = "", prev_series[256] = "";
	double prev = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];

		if (!ASSERT_TRUE(len < sizeof(line), what))
			return false;
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (!strncmp(line, "# HELP ", 7)) {
			sscanf(line + 7, "%127s", fam);
			continue;
		}
		if (!strncmp(line, "# TYPE ", 7)) {
			char name[128];

			sscanf(line + 7, "%127s", name);
			if (!ASSERT_STREQ(name, fam, "TYPE follows its HELP"))
				return false;
			continue;
		}
		if (!ASSERT_TRUE(!strncmp(line, fam, strlen(fam)), line))
			return false;
		char *le = strstr(line, "le=\"");
		char *sp = strrchr(line, ' ');
		double v = strtod(sp + 1, NULL);

		if (le) {
			/* the series without le: the same histogram as the previous line? */
			char series[256];

			snprintf(series, sizeof(series), "%.*s", (int)(le - line), line);
			if (!strcmp(series, prev_series) && !ASSERT_TRUE(v >= prev, line))
				return false;
			snprintf(prev_series, sizeof(prev_series), "%s", series);
			prev = v;
			if (strstr(le, "\"+Inf\"")) {
				char count[300], *brace = strchr(line, '{');
				int labels = (int)(le - brace - 1); /* "a=\"x\"," before le */

				if (labels > 0)
					labels--; /* the comma */
				snprintf(count, sizeof(count), "%.*s_count%s%.*s%s",
					 (int)(strstr(line, "_bucket{") - line), line,
					 labels ? "{" : "", labels, brace + 1, labels ? "}" : "");
				if (!ASSERT_EQ(sample(text, count), v, count))
					return false;
			}
		}
	}
	return true;
}

void test_prom(void)
{
	struct kw_recording a = {}, x = {};
	struct prom_prog progs[] = { { "fx_walk", 100000000, 4000 }, { "fe_walk", 23456789, 242 } };
	struct kw_procself self = { .cpu_seconds = 1.25,
				    .start_time = 1699999999.75,
				    .resident_bytes = 12582912,
				    .virtual_bytes = 104857600,
				    .open_fds = 17,
				    .max_fds = 1024 };
	struct prom_facts facts = { .version = "0.1-test (git 0123456789ab-dirty)",
				    .libbpf_version = "1.1",
				    .start_time = 1700000000.5,
				    .collect_seconds = 0.00125,
				    .collect_errors = 0,
				    .progs = progs,
				    .nprogs = 2,
				    .proc = &self };
	struct prom_opts o = { .buckets = PROM_BUCKETS_LOG2, .facts = &facts };
	char *log2 = NULL, *fine = NULL;
	size_t llen, flen;
	enum prom_buckets b;

	if (!ASSERT_EQ(prom_buckets_parse("fine", &b), 0, "parse") ||
	    !ASSERT_EQ(b, PROM_BUCKETS_FINE, "fine") ||
	    !ASSERT_EQ(prom_buckets_parse("log10", &b), -EINVAL, "parse bad"))
		goto out;

	fill_arm64(&a);
	fill_x86(&x);
	if (!golden(&a, &o, "prom-arm64.txt"))
		goto out;
	o.per_vm = true;
	o.facts = NULL;
	if (!golden(&x, &o, "prom-x86-per-vm.txt"))
		goto out;

	/* log2 and fine: same totals; each log2 bucket is also a fine one with the same count */
	o = (struct prom_opts){ .buckets = PROM_BUCKETS_LOG2 };
	if (!ASSERT_EQ(prom_render(&a, &o, &log2, &llen), 0, "log2"))
		goto out;
	o.buckets = PROM_BUCKETS_FINE;
	if (!ASSERT_EQ(prom_render(&a, &o, &fine, &flen), 0, "fine"))
		goto out;
	if (!well_formed(log2, "log2") || !well_formed(fine, "fine"))
		goto out;
	static const char *const same[] = {
		"kvmwalk_duration_seconds_bucket{function=\"kvm_pgtable_walk\",le=\"0.000001023\"}",
		"kvmwalk_duration_seconds_bucket{function=\"kvm_pgtable_walk\",le=\"0.000002047\"}",
		"kvmwalk_duration_seconds_bucket{function=\"kvm_pgtable_walk\",le=\"+Inf\"}",
		"kvmwalk_duration_seconds_count{function=\"kvm_pgtable_walk\"}",
		"kvmwalk_duration_seconds_sum{function=\"kvm_pgtable_walk\"}",
		"kvmwalk_range_bytes_bucket{function=\"kvm_pgtable_walk\",le=\"2097151\"}",
		"kvmwalk_range_bytes_bucket{function=\"kvm_pgtable_walk\",le=\"4194303\"}",
	};
	for (size_t i = 0; i < sizeof(same) / sizeof(same[0]); i++)
		if (!ASSERT_EQ(sample(log2, same[i]), sample(fine, same[i]), same[i]) ||
		    !ASSERT_TRUE(sample(log2, same[i]) >= 0, same[i]))
			goto out;
	/* exact boundaries: 2 MiB walks are not <= 2 MiB - 1, all are <= 4 MiB - 1 */
	ASSERT_EQ(sample(log2, same[5]), 0, "2 MiB - 1");
	ASSERT_EQ(sample(log2, same[6]), 512, "4 MiB - 1");
	ASSERT_EQ(sample(log2, same[2]), 520, "+Inf");
	/* the 40 s ioctl is above the last bucket, the 30 us one in it */
	ASSERT_EQ(sample(log2, "kvmwalk_duration_seconds_bucket{function=\"kvm_vm_ioctl\","
			       "le=\"34.359738367\"}"),
		  1, "beyond the last bucket");
	ASSERT_EQ(sample(log2, "kvmwalk_duration_seconds_bucket{function=\"kvm_vm_ioctl\","
			       "le=\"+Inf\"}"),
		  2, "both in +Inf");
	ASSERT_NEAR(sample(log2, "kvmwalk_duration_seconds_sum{function=\"kvm_vm_ioctl\"}"),
		    40.00003, 1e-9, "40 s and 30 us");
	/* the fault-side lock wait: its own histogram, not a function's duration */
	ASSERT_EQ(sample(log2, "kvmwalk_mmu_lock_wait_seconds_count"), 4, "4 waits");
	ASSERT_NEAR(sample(log2, "kvmwalk_mmu_lock_wait_seconds_sum"), 0.00106, 1e-12, "1.06 ms");
	ASSERT_EQ(sample(log2, "kvmwalk_mmu_lock_wait_seconds_bucket{le=\"0.000032767\"}"), 3,
		  "3 under 32 us");
	ASSERT_TRUE(!strstr(log2, "kvmwalk_duration_seconds_count{function=\"mmu_lock_wait\"}"),
		    "not a function's duration");
	ASSERT_EQ(sample(log2, "kvmwalk_calls_total{function=\"mmu_lock_wait\"}"), 4,
		  "counted with the probes");
	/* the memslot families count the operations; the trigger families merge what differs
	 * only by it */
	ASSERT_EQ(sample(log2, "kvmwalk_memslot_ops_total{op=\"dirty_log_on\"}"), 1, "one enable");
	ASSERT_EQ(sample(log2, "kvmwalk_memslot_op_seconds_total{op=\"dirty_log_on\"}"), 40,
		  "its 40 s");
	ASSERT_EQ(sample(log2, "kvmwalk_memslot_ops_total{op=\"create\"}"), 0, "no create");
	ASSERT_EQ(sample(log2, "kvmwalk_trigger_calls_total{function=\"kvm_vm_ioctl\","
			       "trigger=\"ioctl\",ioctl=\"KVM_SET_USER_MEMORY_REGION\"}"),
		  2, "one trigger series for both calls");
	/* without kvm_arch_prepare_memory_region no call has an operation: no family */
	a.plan[KW_P_MEMSLOT].mech = KW_MECH_UNAVAILABLE;
	free(log2);
	log2 = NULL;
	o.buckets = PROM_BUCKETS_LOG2;
	if (ASSERT_EQ(prom_render(&a, &o, &log2, &llen), 0, "log2 without the memslot probe"))
		ASSERT_TRUE(!strstr(log2, "kvmwalk_memslot_op"), "no memslot family");
	/*
	 * the timing set: kvm_nested_s2_unmap without kvm_pgtable_stage2_unmap, which alone tells
	 * a call that unmapped a nested MMU from one that returned at once: no such family (a 0
	 * would say no call did), the function's own calls and time still served
	 */
	a.plan[KW_P_S2_UNMAP].mech = KW_MECH_OFF;
	free(log2);
	log2 = NULL;
	if (ASSERT_EQ(prom_render(&a, &o, &log2, &llen), 0, "log2 without the unmap probe")) {
		ASSERT_TRUE(!strstr(log2, "kvmwalk_nested_unmaps_total"), "no nested unmap count");
		ASSERT_TRUE(!strstr(log2, "kvmwalk_nested_unmap_seconds_total"), "nor its time");
		ASSERT_EQ(sample(log2, "kvmwalk_calls_total{function=\"kvm_nested_s2_unmap\"}"), 3,
			  "the calls served");
	}
	a.plan[KW_P_S2_UNMAP].mech = KW_MECH_FENTRY;
	/*
	 * serve without --probe-cost: no run-time statistics, so no cost families at all (a 0
	 * would read as "free"), with or without the per-program facts; the gauge says why.
	 */
	a.overhead.stats_enabled = false;
	for (int k = 0; k < 2; k++) {
		struct prom_facts fa = { .progs = progs, .nprogs = 2 };

		o.facts = k ? &fa : NULL;
		free(log2);
		log2 = NULL;
		if (!ASSERT_EQ(prom_render(&a, &o, &log2, &llen), 0, "without --probe-cost"))
			goto out;
		ASSERT_TRUE(!strstr(log2, "\nkvmwalk_bpf_run_seconds_total{"), "no run time");
		ASSERT_TRUE(!strstr(log2, "# TYPE kvmwalk_bpf_run_seconds_total"), "no run family");
		ASSERT_TRUE(!strstr(log2, "\nkvmwalk_bpf_runs_total{"), "no runs");
		ASSERT_TRUE(!strstr(log2, "# TYPE kvmwalk_bpf_runs_total"), "no runs family");
		ASSERT_EQ(sample(log2, "kvmwalk_bpf_stats_enabled"), 0, "the gauge says 0");
		ASSERT_TRUE(sample(log2, "kvmwalk_measured_seconds_total") > 0, "work still measured");
	}
out:
	free(log2);
	free(fine);
	kw_recording_free(&a);
	kw_recording_free(&x);
}
