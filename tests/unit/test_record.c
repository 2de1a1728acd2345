// SPDX-License-Identifier: GPL-2.0
/* Recordings: the JSON document byte for byte, and a lossless round trip through the parser. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "record.h"

/*
 * A recording as an arm64 7.3 VHE host gives it for kvmwalk-load --scenario split with 2 x 8
 * MiB of THP and a 2 MiB eager-split chunk: the counts of the kw-split vmtest case (two
 * iterations: 8 splits in each dirty-logging enable, the second iteration's slot delete and
 * re-create between them). Its memslot ioctls (KVM_SET_USER_MEMORY_REGION, 0x4020ae46): the
 * code and data slots created, the data slot deleted and created again, dirty logging on and
 * off twice; the splits run inside the enables, the unmap inside the delete, before
 * kvm_arch_prepare_memory_region (kvm_invalidate_memslot), so it has no operation.
 * Also used by test_report.c.
 */
void kw_test_recording_fixture(struct kw_recording *r)
{
	static const struct kw_cb cbs[] = {
		{ "stage2_split_walker", 0xffff800080123450ULL, 1, 0, 16, 15200000, 33554432 },
		{ "stage2_unmap_walker", 0xffff800080123890ULL, 5, 0, 1, 14500000, 16777216 },
		{ "stage2_map_walker", 0xffff800080122000ULL, 0xb, 0, 19, 1170000, 33566720 },
	};
	static const struct kw_trig trigs[] = {
		{ KW_P_S2_SPLIT, KW_T_IOCTL, 0x4020ae46, 116, 16, 20100000, "", KW_MS_DIRTY_LOG_ON },
		{ KW_P_PGT_WALK, KW_T_FAULT, 0, 116, 8227, 60000000, "", KW_MS_NONE },
		{ KW_P_S2_UNMAP, KW_T_IOCTL, 0x4020ae46, 116, 1, 15000000, "", KW_MS_NONE },
		{ KW_P_PGT_WALK, KW_T_OTHER, 0, 51, 3, 139000, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 116, 3, 126000, "", KW_MS_CREATE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 116, 1, 15200000, "", KW_MS_DELETE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 116, 2, 20400000, "", KW_MS_DIRTY_LOG_ON },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020ae46, 116, 2, 62000, "", KW_MS_DIRTY_LOG_OFF },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4010ae42, 116, 2, 1097000, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0xae41, 116, 2, 52000, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0x4068aea3, 116, 1, 4000, "", KW_MS_NONE },
		{ KW_P_VM_IOCTL, KW_T_IOCTL, 0xae03, 116, 4, 4000, "", KW_MS_NONE },
		{ KW_P_MEMSLOT, KW_T_IOCTL, 0x4020ae46, 116, 3, 36000, "", KW_MS_CREATE },
		{ KW_P_MEMSLOT, KW_T_IOCTL, 0x4020ae46, 116, 1, 2000, "", KW_MS_DELETE },
		{ KW_P_MEMSLOT, KW_T_IOCTL, 0x4020ae46, 116, 2, 6000, "", KW_MS_DIRTY_LOG_ON },
		{ KW_P_MEMSLOT, KW_T_IOCTL, 0x4020ae46, 116, 2, 4000, "", KW_MS_DIRTY_LOG_OFF },
	};
	/* kvm_vm_ioctl's calls, as its rows above sum them */
	static const __u64 ioctl_ns[] = { 40000, 42000, 44000, 15200000, 10100000, 10300000,
					  30000, 32000, 540000, 557000, 25000, 27000, 4000,
					  1000, 1000, 1000, 1000 };
	static const __u64 memslot_ns[] = { 12000, 12000, 12000, 2000, 3000, 3000, 2000, 2000 };

	memset(r, 0, sizeof(*r));
	snprintf(r->meta.tool_version, sizeof(r->meta.tool_version), "0.1");
	snprintf(r->meta.arch, sizeof(r->meta.arch), "arm64");
	snprintf(r->meta.kernel, sizeof(r->meta.kernel), "7.3.4+deb13-arm64");
	snprintf(r->meta.kernel_build, sizeof(r->meta.kernel_build), "#1 SMP Debian 7.3.4-1");
	snprintf(r->meta.hostname, sizeof(r->meta.hostname), "host");
	snprintf(r->meta.cmdline, sizeof(r->meta.cmdline), "console=ttyAMA0 panic=-1 quiet");
	snprintf(r->meta.cpu, sizeof(r->meta.cpu), "implementer 0x00 part 0x051");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "vhe");
	snprintf(r->meta.thp, sizeof(r->meta.thp), "always");
	snprintf(r->meta.thp_defrag, sizeof(r->meta.thp_defrag), "madvise");
	snprintf(r->meta.started, sizeof(r->meta.started), "2026-12-02T11:36:56Z");
	r->meta.duration_s = 1.25;
	snprintf(r->meta.command, sizeof(r->meta.command),
		 "kvmwalk-load --scenario=split --vcpus=2 --mem=8M --backing=thp --eager-split=2M");
	r->meta.exit_status = 0;
	r->meta.visits = true;
	snprintf(r->meta.attach, sizeof(r->meta.attach), "auto");
	kw_recording_add_param(r, "kvm.halt_poll_ns", "500000");
	kw_recording_add_param(r, "kvm.enable_virt_at_load", "Y");

	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, "arm64"))
			continue;
		r->plan[i].mech = KW_MECH_FENTRY;
		snprintf(r->plan[i].func, sizeof(r->plan[i].func), "%s", kw_probes[i].name);
	}
	snprintf(r->plan[KW_P_GUEST_FAULT].func, sizeof(r->plan[0].func), "kvm_handle_guest_abort");
	r->plan[KW_P_HYP_FLUSH_RANGE].mech = KW_MECH_UNAVAILABLE;
	snprintf(r->plan[KW_P_HYP_FLUSH_RANGE].reason, sizeof(r->plan[0].reason),
		 "runs at EL2 (nvhe): never called at EL1; kvm_tlb_flush_vmid_range counts");

	for (int i = 0; i < 9401; i++)
		kw_hist_add(&r->funcs[KW_P_PGT_WALK].dur, 3000 + (i % 100) * 50);
	kw_hist_add(&r->funcs[KW_P_PGT_WALK].dur, 14500000);
	r->funcs[KW_P_PGT_WALK].calls = 9402;
	for (int i = 0; i < 9402; i++)
		kw_hist_add(&r->funcs[KW_P_PGT_WALK].size, i < 16 ? 2097152 : 4096);
	r->funcs[KW_P_S2_SPLIT].calls = 16;
	for (int i = 0; i < 16; i++) {
		kw_hist_add(&r->funcs[KW_P_S2_SPLIT].dur, 874000 + i * 10000);
		kw_hist_add(&r->funcs[KW_P_S2_SPLIT].size, 2097152);
	}
	r->funcs[KW_P_S2_UNMAP].calls = 1;
	kw_hist_add(&r->funcs[KW_P_S2_UNMAP].dur, 15000000);
	kw_hist_add(&r->funcs[KW_P_S2_UNMAP].size, 16777216);
	r->funcs[KW_P_SPLIT_WALKER].calls = 8208;
	r->funcs[KW_P_UNMAP_WALKER].calls = 4105;
	r->funcs[KW_P_TLB_FLUSH_RANGE].calls = 1;
	kw_hist_add(&r->funcs[KW_P_TLB_FLUSH_RANGE].dur, 131000);
	kw_hist_add(&r->funcs[KW_P_TLB_FLUSH_RANGE].size, 4096);
	r->funcs[KW_P_PGT_WALK].bpf_runs = 18804;
	r->funcs[KW_P_PGT_WALK].bpf_ns = 30000000;
	r->funcs[KW_P_VM_IOCTL].calls = 17;
	r->funcs[KW_P_VM_IOCTL].missed = 1;
	for (size_t i = 0; i < sizeof(ioctl_ns) / sizeof(ioctl_ns[0]); i++)
		kw_hist_add(&r->funcs[KW_P_VM_IOCTL].dur, ioctl_ns[i]);
	r->funcs[KW_P_MEMSLOT].calls = 8;
	for (size_t i = 0; i < sizeof(memslot_ns) / sizeof(memslot_ns[0]); i++)
		kw_hist_add(&r->funcs[KW_P_MEMSLOT].dur, memslot_ns[i]);

	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 3, KW_O_SPLIT)] = 16;
	r->visits[KW_VISIT_IDX(KW_W_SPLIT, 4, KW_O_NOTHING)] = 8192;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 2, KW_O_TABLE)] = 1;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 3, KW_O_TABLE)] = 8;
	r->visits[KW_VISIT_IDX(KW_W_UNMAP, 4, KW_O_CLEARED)] = 4096;
	r->counters[KW_C_UNMAP_CALLS] = 1;
	r->counters[KW_C_UNMAP_CLEARED] = 4096;
	r->counters[KW_C_UNMAP_FLUSHES] = 1;
	r->counters[KW_C_UNMAP_FLUSH_NS] = 131000;
	r->counters[KW_C_FLUSH_ENCL + KW_E_UNMAP] = 1;
	r->counters[KW_C_FLUSH_ENCL_PAGES + KW_E_UNMAP] = 4096;
	r->counters[KW_C_FLUSH_ENCL + KW_E_WRPROTECT] = 4;
	r->counters[KW_C_FLUSH_ENCL_PAGES + KW_E_WRPROTECT] = 16384;
	kw_hist_add(&r->unmap_cleared, 4096);
	for (int i = 0; i < KW_NR_PF_RET; i++)
		snprintf(r->pf_ret_names[i], sizeof(r->pf_ret_names[i]), "%s",
			 i == KW_NR_PF_RET - 1 ? "other" : "");
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++)
		kw_recording_add_cb(r, &cbs[i]);
	for (size_t i = 0; i < sizeof(trigs) / sizeof(trigs[0]); i++)
		kw_recording_add_trig(r, &trigs[i]);
	kw_recording_sort(r);
	r->overhead.stats_enabled = true;
	r->overhead.run_ns = 30700000;
	r->overhead.run_cnt = 47949;
	r->overhead.measured_ns = kw_recording_measured_ns(r);
	for (int k = 0; k < 2; k++) {
		struct kw_interval iv = { .t = 0.5 * (k + 1) };

		iv.calls[KW_P_PGT_WALK] = 4000 + k * 1402;
		iv.ns[KW_P_PGT_WALK] = 60000000 + k * 4000000;
		kw_recording_add_interval(r, &iv);
	}
}

static char *to_json(const struct kw_recording *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (kw_recording_write(r, f)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Parses text with `"pid_filter": []` replaced by with; returns the ids as "1,2" in buf. */
static const char *pid_filter_of(const char *text, const char *with, char *buf, size_t len)
{
	const char *at = strstr(text, "\"pid_filter\": []");
	struct kw_recording r;
	char *edited, err[256];

	snprintf(buf, len, "(no pid_filter)");
	if (!at)
		return buf;
	if (asprintf(&edited, "%.*s\"pid_filter\": %s%s", (int)(at - text), text, with,
		     at + strlen("\"pid_filter\": []")) < 0)
		return buf;
	if (!kw_recording_parse(&r, edited, err, sizeof(err))) {
		kw_meta_pids(&r.meta, buf, len, ",");
		kw_recording_free(&r);
	} else {
		snprintf(buf, len, "%.100s", err);
	}
	free(edited);
	return buf;
}

/* --pid: a list in the JSON; the one number of older recordings is still read. */
static void test_pid_filter(struct kw_recording *r)
{
	struct kw_recording back = {};
	char *a = NULL, *b = NULL, err[256], buf[128];
	size_t alen, blen;

	a = to_json(r, &alen);
	if (!ASSERT_TRUE(a && strstr(a, "\"pid_filter\": [],"), "no filter: an empty list"))
		goto out;
	ASSERT_STREQ(pid_filter_of(a, "116", buf, sizeof(buf)), "116", "an older recording's pid");
	ASSERT_STREQ(pid_filter_of(a, "0", buf, sizeof(buf)), "", "an older recording's 0: all");
	/* a corrupt filter is an error naming it, not "every task" or some of the ids */
	ASSERT_STREQ(pid_filter_of(a, "[116, 0, \"x\", -5, 4242]", buf, sizeof(buf)),
		     "meta.pid_filter[1] is 0, not a process id", "not a process id: an error");
	ASSERT_STREQ(pid_filter_of(a, "[116, \"x\"]", buf, sizeof(buf)),
		     "meta.pid_filter[1] is \"x\", not a process id", "a string: an error");
	ASSERT_STREQ(pid_filter_of(a, "{}", buf, sizeof(buf)),
		     "meta.pid_filter is an object, not a list of process ids",
		     "not a list: an error");
	free(a);

	r->meta.pid_filter[0] = 116;
	r->meta.pid_filter[1] = 4242;
	r->meta.npid_filter = 2;
	a = to_json(r, &alen);
	if (!ASSERT_TRUE(a && strstr(a, "\"pid_filter\": [\n   116,\n   4242\n  ],"),
			 "a list of two"))
		goto out;
	if (!ASSERT_EQ(kw_recording_parse(&back, a, err, sizeof(err)), 0, err))
		goto out;
	ASSERT_EQ(back.meta.npid_filter, 2, "two pids back");
	ASSERT_EQ(back.meta.pid_filter[1], 4242, "in order");
	b = to_json(&back, &blen);
	ASSERT_TRUE(b && blen == alen && !memcmp(a, b, alen), "round trip with a filter");
out:
	r->meta.npid_filter = 0;
	kw_recording_free(&back);
	free(a);
	free(b);
}

/*
 * Memslot operations: read by name (none in an older recording, or for a name of a newer
 * kvmwalk), summed from the KVM_SET_USER_MEMORY_REGION(2) rows only, and not dirty-log ioctls.
 */
static void test_memslot(const struct kw_recording *fixture)
{
	static const char *const doc =
		"{\"schema\": \"kvmwalk-recording/1\", \"meta\": {\"arch\": \"x86\"},"
		" \"triggers\": ["
		"{\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", \"cmd\": 1084272201,"
		" \"ioctl\": \"KVM_SET_USER_MEMORY_REGION2\", \"pid\": 7, \"calls\": 2, \"ns\": 10},"
		"{\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", \"cmd\": 1084272201,"
		" \"ioctl\": \"KVM_SET_USER_MEMORY_REGION2\", \"memslot_op\": \"dirty_log_on\","
		" \"pid\": 7, \"calls\": 1, \"ns\": 900},"
		"{\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", \"cmd\": 1084272201,"
		" \"ioctl\": \"KVM_SET_USER_MEMORY_REGION2\", \"memslot_op\": \"resize\","
		" \"pid\": 7, \"calls\": 4, \"ns\": 40},"
		"{\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", \"cmd\": 3222843072,"
		" \"ioctl\": \"KVM_CLEAR_DIRTY_LOG\", \"memslot_op\": \"\", \"pid\": 7,"
		" \"calls\": 3, \"ns\": 30},"
		"{\"probe\": \"kvm_vcpu_ioctl\", \"trigger\": \"ioctl\", \"cmd\": 44672,"
		" \"ioctl\": \"KVM_RUN\", \"memslot_op\": \"delete\", \"pid\": 7,"
		" \"calls\": 5, \"ns\": 50}]}";
	struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS];
	struct kw_recording r = {};
	char err[256];

	kw_memslot_ops(fixture, ops);
	ASSERT_TRUE(ops[KW_MS_CREATE].calls == 3 && ops[KW_MS_CREATE].ns == 126000, "3 creates");
	ASSERT_TRUE(ops[KW_MS_DELETE].calls == 1 && ops[KW_MS_DELETE].ns == 15200000, "1 delete");
	ASSERT_TRUE(ops[KW_MS_DIRTY_LOG_ON].calls == 2 && ops[KW_MS_DIRTY_LOG_ON].ns == 20400000,
		    "2 enables");
	ASSERT_EQ(ops[KW_MS_DIRTY_LOG_OFF].calls, 2, "2 disables");
	ASSERT_EQ(ops[KW_MS_MOVE].calls + ops[KW_MS_FLAGS].calls + ops[KW_MS_NONE].calls, 0,
		  "nothing else");
	ASSERT_EQ(kw_dirty_log_ioctls(fixture), 2, "the GETs only: enables are not syncs");

	if (!ASSERT_EQ(kw_recording_parse(&r, doc, err, sizeof(err)), 0, err) ||
	    !ASSERT_EQ(r.ntrigs, 5, "five rows"))
		goto out;
	ASSERT_EQ(r.trigs[0].memslot_op, KW_MS_NONE, "an older row: none");
	ASSERT_EQ(r.trigs[1].memslot_op, KW_MS_DIRTY_LOG_ON, "by name");
	ASSERT_EQ(r.trigs[2].memslot_op, KW_MS_NONE, "a newer kvmwalk's name: none");
	ASSERT_EQ(kw_trig_memslot_op(&r, &r.trigs[1]), KW_MS_DIRTY_LOG_ON, "a memslot ioctl");
	ASSERT_EQ(kw_trig_memslot_op(&r, &r.trigs[3]), -1, "KVM_CLEAR_DIRTY_LOG is none");
	ASSERT_EQ(kw_trig_memslot_op(&r, &r.trigs[4]), -1, "nor is a vCPU ioctl, whatever its op");
	kw_memslot_ops(&r, ops);
	ASSERT_TRUE(ops[KW_MS_NONE].calls == 6 && ops[KW_MS_NONE].ns == 50, "6 without an op");
	ASSERT_TRUE(ops[KW_MS_DIRTY_LOG_ON].calls == 1 && ops[KW_MS_DIRTY_LOG_ON].ns == 900,
		    "1 enable");
	ASSERT_EQ(ops[KW_MS_DELETE].calls, 0, "KVM_RUN's delete is not a memslot ioctl's");
	/* an x86 recording read anywhere: its number is x86's KVM_SET_USER_MEMORY_REGION2 */
	r.trigs[1].ioctl[0] = 0;
	ASSERT_EQ(kw_trig_memslot_op(&r, &r.trigs[1]), KW_MS_DIRTY_LOG_ON, "matched by number");
	ASSERT_EQ(kw_memslot_op_by_name(""), KW_MS_NONE, "\"\" is none");
	ASSERT_EQ(kw_memslot_op_by_name("flags"), KW_MS_FLAGS, "flags");
out:
	kw_recording_free(&r);
}

/*
 * A recording is checked against docs/recording-format.md as it is read: a member of the wrong
 * type, a negative count or time, an arch other than arm64 or x86 is an error naming the member
 * (report and compare exit 8 with it), never a 0 or a wrapped-around unsigned number (-5 once
 * printed as 18446744.07T).
 */
static void test_validation(void)
{
	static const struct {
		const char *meta, *rest, *err;
	} cases[] = {
		{ "", ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"calls\": \"x\"}]",
		  "probes[kvm_pgtable_walk].calls is \"x\", not a count (an integer >= 0)" },
		{ "", ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"calls\": -5}]",
		  "probes[kvm_pgtable_walk].calls is -5, not a count (an integer >= 0)" },
		{ "", ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"calls\": 1.5}]",
		  "probes[kvm_pgtable_walk].calls is 1.5, not a count (an integer >= 0)" },
		{ "",
		  ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"duration_ns\": "
		  "{\"count\": 1, \"sum\": -3}}]",
		  "probes[kvm_pgtable_walk].duration_ns.sum is -3, not a count (an integer >= 0)" },
		{ "",
		  ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"duration_ns\": "
		  "{\"buckets\": [[9999, 1]]}}]",
		  "probes[kvm_pgtable_walk].duration_ns.buckets[0] is [9999,1], not "
		  "[INDEX, COUNT]" },
		{ "", ", \"probes\": 5", "probes is a number (5), not an array" },
		{ "", ", \"probes\": [{\"name\": \"kvm_pgtable_walk\", \"mechanism\": 3}]",
		  "probes[kvm_pgtable_walk].mechanism is a number (3), not a string" },
		{ "", ", \"counters\": {\"unmap_calls\": \"3\"}",
		  "counters.unmap_calls is \"3\", not a count (an integer >= 0)" },
		{ "",
		  ", \"triggers\": [{\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", "
		  "\"pid\": 7, \"calls\": -1}]",
		  "triggers[0].calls is -1, not a count (an integer >= 0)" },
		{ "", ", \"intervals\": [{\"t\": -2, \"probes\": {}}]",
		  "intervals[0].t is -2, not a time in seconds (a number >= 0)" },
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": \"many\"}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.calls is \"many\", not a count" },
		/* an interval's duration buckets: increasing indexes, non-empty, in range */
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": 3, \"buckets\": [[80, 1], [80, 2]]}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.buckets[1] is [80,2], not [INDEX, COUNT] "
		  "with INDEX 81..495, above the one before" },
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": 3, \"buckets\": [[496, 3]]}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.buckets[0] is [496,3], not [INDEX, COUNT] "
		  "with INDEX 0..495" },
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": 3, \"buckets\": [[80, 0]]}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.buckets[0] has a count of 0: only "
		  "non-empty buckets are listed" },
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": 3, \"buckets\": [[80, -1]]}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.buckets[0] is -1, not a count" },
		{ "",
		  ", \"intervals\": [{\"t\": 1, \"probes\": {\"kvm_pgtable_walk\": "
		  "{\"calls\": 3, \"buckets\": {}}}}]",
		  "intervals[0].probes.kvm_pgtable_walk.buckets is an object ({}), not an array" },
		{ "",
		  ", \"kvm_stats\": {\"source\": \"debugfs\", \"vms\": [{\"pid\": 5, "
		  "\"stats\": {\"pages_4k\": {\"start\": -4, \"end\": 1}}}]}",
		  "kvm_stats.vms[0].stats.pages_4k.start is -4, not a count (an integer >= 0)" },
		{ "",
		  ", \"workload\": {\"phases\": [{\"phase\": \"split\", "
		  "\"wall_ns\": \"fast\"}]}",
		  "workload.phases[0].wall_ns is \"fast\", not a count (an integer >= 0)" },
		{ "", ", \"overhead\": {\"run_ns\": -1}",
		  "overhead.run_ns is -1, not a count (an integer >= 0)" },
		{ ", \"duration_s\": -1.5", "",
		  "meta.duration_s is -1.5, not a time in seconds (a number >= 0)" },
		{ ", \"duration_s\": \"long\"", "",
		  "meta.duration_s is \"long\", not a time in seconds (a number >= 0)" },
		{ ", \"wall_ns\": -7", "", "meta.wall_ns is -7, not a count (an integer >= 0)" },
		{ ", \"exit_status\": 999", "",
		  "meta.exit_status is 999, not -1 (no command) or 0..255" },
		{ ", \"kernel\": 6", "", "meta.kernel is a number (6), not a string" },
		{ ", \"visits\": \"yes\"", "",
		  "meta.visits is a string (\"yes\"), not true or false" },
	};
	static const char *const arches[][2] = {
		{ "\"sparc\"", "meta.arch is \"sparc\", not arm64 or x86" },
		{ "\"\"", "meta.arch is \"\", not arm64 or x86" },
		{ "5", "meta.arch is a number (5), not a string" },
	};
	struct kw_recording r;
	char doc[1024], err[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(doc, sizeof(doc),
			 "{\"schema\": \"kvmwalk-recording/1\", "
			 "\"meta\": {\"arch\": \"arm64\"%s}%s}",
			 cases[i].meta, cases[i].rest);
		err[0] = 0;
		if (ASSERT_EQ(kw_recording_parse(&r, doc, err, sizeof(err)), -EINVAL, doc))
			ASSERT_TRUE(!strncmp(err, cases[i].err, strlen(cases[i].err)), err);
	}
	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		snprintf(doc, sizeof(doc),
			 "{\"schema\": \"kvmwalk-recording/1\", \"meta\": "
			 "{\"arch\": %s}}",
			 arches[i][0]);
		err[0] = 0;
		if (ASSERT_EQ(kw_recording_parse(&r, doc, err, sizeof(err)), -EINVAL, doc))
			ASSERT_STREQ(err, arches[i][1], "a bogus arch");
	}
	ASSERT_EQ(kw_recording_parse(&r, "{\"schema\": \"kvmwalk-recording/1\"}", err, sizeof(err)),
		  -EINVAL, "no meta");
	ASSERT_STREQ(err, "no meta.arch", "no meta: said");
	ASSERT_EQ(kw_recording_parse(&r, "[1]", err, sizeof(err)), -EINVAL, "an array");
	/* what the format lets be absent, or a name of a newer kvmwalk, still reads */
	if (ASSERT_EQ(
		    kw_recording_parse(&r,
				       "{\"schema\": \"kvmwalk-recording/1\", \"meta\": {\"arch\": "
				       "\"x86\", \"exit_status\": -1}, \"probes\": [{\"name\": "
				       "\"a_newer_probe\", \"calls\": 3}], \"counters\": "
				       "{\"a_newer_counter\": 4}, \"triggers\": [{\"probe\": "
				       "\"kvm_vm_ioctl\", \"trigger\": \"a_newer_trigger\"}]}",
				       err, sizeof(err)),
		    0, err))
		kw_recording_free(&r);
	/* null where the writer writes it: no SecPageTables in /proc/meminfo (fuzz_recording) */
	if (ASSERT_EQ(kw_recording_parse(&r,
					 "{\"schema\": \"kvmwalk-recording/1\", \"meta\": {\"arch\": "
					 "\"x86\"}, \"kvm_stats\": {\"source\": \"debugfs\", "
					 "\"sec_page_tables_kb\": {\"start\": null, \"end\": null, "
					 "\"delta\": null}}}",
					 err, sizeof(err)),
		      0, err))
		kw_recording_free(&r);
}

void test_record(void)
{
	struct kw_recording r, back = {};
	char *a = NULL, *b = NULL, err[256];
	size_t alen, blen;

	kw_test_recording_fixture(&r);
	a = to_json(&r, &alen);
	if (!ASSERT_TRUE(a, "write") || !ASSERT_GOLDEN(a, alen, "record-split.json"))
		goto out;

	/* parse and write again: not a byte may change */
	if (!ASSERT_EQ(kw_recording_parse(&back, a, err, sizeof(err)), 0, err))
		goto out;
	b = to_json(&back, &blen);
	if (!ASSERT_TRUE(b, "write back") || !ASSERT_EQ(blen, alen, "round-trip length") ||
	    !ASSERT_TRUE(!memcmp(a, b, alen), "round trip is lossless"))
		goto out;
	ASSERT_EQ(back.funcs[KW_P_PGT_WALK].dur.count, 9402, "histogram count");

	/* the processes' identities and the exited-rows loss survive a round trip */
	{
		struct kw_vm src = { .pid = 123, .comm = "qemu-system-aar", .vm = "src",
				     .source = "cmdline" };
		struct kw_recording v = {};
		char *j;
		size_t jlen;

		kw_test_recording_fixture(&v);
		v.meta.exited_folded = 5;
		kw_recording_add_vm(&v, &src);
		j = to_json(&v, &jlen);
		kw_recording_free(&v);
		if (ASSERT_TRUE(j, "write with vms") &&
		    ASSERT_EQ(kw_recording_parse(&v, j, err, sizeof(err)), 0, err)) {
			const struct kw_vm *got = kw_recording_vm(&v, 123);

			ASSERT_EQ(v.nvms, 1, "one vm");
			ASSERT_TRUE(got && !strcmp(got->vm, "src") &&
					    !strcmp(got->comm, "qemu-system-aar") &&
					    !strcmp(got->source, "cmdline"),
				    "vm 123 is src, from its cmdline");
			ASSERT_TRUE(!kw_recording_vm(&v, 124), "no other vm");
			ASSERT_EQ(v.meta.exited_folded, 5, "exited_folded");
		}
		free(j);
		kw_recording_free(&v);
	}
	ASSERT_EQ(back.visits[KW_VISIT_IDX(KW_W_SPLIT, 4, KW_O_NOTHING)], 8192, "visits");
	ASSERT_EQ(back.plan[KW_P_HYP_FLUSH_RANGE].mech, KW_MECH_UNAVAILABLE, "plan");
	ASSERT_EQ(back.nintervals, 2, "intervals");
	kw_recording_free(&back);

	test_pid_filter(&r);
	test_memslot(&r);
	test_validation();
	/* a checkpoint says so; a finished recording has no such member */
	{
		struct kw_recording c = {};
		char *j;
		size_t jlen;

		kw_test_recording_fixture(&c);
		j = to_json(&c, &jlen);
		ASSERT_TRUE(j && !strstr(j, "checkpoint"), "no checkpoint member when finished");
		free(j);
		c.meta.checkpoint = true;
		j = to_json(&c, &jlen);
		kw_recording_free(&c);
		if (ASSERT_TRUE(j && strstr(j, "\"checkpoint\": true"), "a checkpoint says so") &&
		    ASSERT_EQ(kw_recording_parse(&c, j, err, sizeof(err)), 0, err))
			ASSERT_TRUE(c.meta.checkpoint, "checkpoint read back");
		free(j);
		kw_recording_free(&c);
	}

	ASSERT_EQ(kw_recording_parse(&back, "{\"schema\": \"kvmwalk-recording/2\"}", err,
				     sizeof(err)),
		  -EPROTO, "another schema is refused");
	ASSERT_EQ(kw_recording_parse(&back, "not json", err, sizeof(err)), -EINVAL,
		  "not JSON is refused");
	/* a row's name from its probe's fd, on the recording's arch (ioctls.c; test_ioctls.c) */
	{
		struct kw_trig vcpu = { .probe = KW_P_VCPU_IOCTL, .trigger = KW_T_IOCTL,
					.cmd = 0x4010aeab };
		struct kw_trig vm = { .probe = KW_P_VM_IOCTL, .trigger = KW_T_IOCTL,
				      .cmd = 0x4010aeab };

		ASSERT_STREQ(kw_trig_ioctl(&r, &vcpu), "KVM_GET_ONE_REG",
			     "vCPU fd's name of 0x4010aeab");
		ASSERT_STREQ(kw_trig_ioctl(&r, &vm), "KVM_ARM_SET_DEVICE_ADDR",
			     "VM fd's name of 0x4010aeab");
		vm.cmd = vcpu.cmd = 0xc018aec0; /* after the vcpu section, but a VM ioctl */
		ASSERT_STREQ(kw_trig_ioctl(&r, &vm), "KVM_CLEAR_DIRTY_LOG", "a later VM ioctl");
		vcpu.cmd = 0xae80;
		ASSERT_STREQ(kw_trig_ioctl(&r, &vcpu), "KVM_RUN", "KVM_RUN");
		vm.cmd = 0x40a0ae49;
		ASSERT_STREQ(kw_trig_ioctl(&r, &vm), "KVM_SET_USER_MEMORY_REGION2", "7.3's names");
	}
	ASSERT_EQ(kw_probe_by_name("stage2_split_walker"), KW_P_SPLIT_WALKER, "probe by name");

	/* A recording names its ioctls as its host's arch does: read on another arch (arm64's
	 * KVM_ARM_VCPU_INIT has no struct kvm_vcpu_init on x86), the recording's name is kept. */
	{
		struct kw_trig t = { KW_P_VM_IOCTL, KW_T_IOCTL, 0x4020aeae, 1, 1, 1, "", KW_MS_NONE };
		char *c;
		size_t clen;

		kw_recording_free(&back);
		memset(&back, 0, sizeof(back));
		snprintf(back.meta.arch, sizeof(back.meta.arch), "arm64");
		snprintf(t.ioctl, sizeof(t.ioctl), "KVM_ARM_VCPU_INIT");
		kw_recording_add_trig(&back, &t);
		c = to_json(&back, &clen);
		kw_recording_free(&back);
		if (ASSERT_TRUE(c, "write arm64 trigger") &&
		    ASSERT_EQ(kw_recording_parse(&back, c, err, sizeof(err)), 0, err) &&
		    ASSERT_EQ(back.ntrigs, 1, "one trigger row"))
			ASSERT_STREQ(kw_trig_ioctl(&back, &back.trigs[0]), "KVM_ARM_VCPU_INIT",
				     "the recording's ioctl name");
		free(c);
	}
	/*
	 * An older recording wrote the numbers its build had no name for in hex: read back, they
	 * are named from the table of the recording's arch, whichever arch reads it (arm64's
	 * KVM_GET_REGS is 0x8360ae81, x86's 0x8090ae81: struct kvm_regs differs).
	 */
	{
		static const char *const old =
			"{\"schema\": \"kvmwalk-recording/1\", \"meta\": {\"arch\": \"%s\"},"
			" \"triggers\": [{\"probe\": \"kvm_vcpu_ioctl\", \"trigger\": \"ioctl\","
			" \"cmd\": %u, \"ioctl\": \"0x%x\", \"pid\": 7, \"calls\": 2, \"ns\": 5},"
			" {\"probe\": \"kvm_vm_ioctl\", \"trigger\": \"ioctl\", \"cmd\": %u,"
			" \"ioctl\": \"0x%x\", \"pid\": 7, \"calls\": 3, \"ns\": 6}]}";
		static const struct {
			const char *arch;
			unsigned int regs;
		} v[] = { { "arm64", 0x8360ae81 }, { "x86", 0x8090ae81 } };
		char doc[1024];

		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			kw_recording_free(&back);
			snprintf(doc, sizeof(doc), old, v[i].arch, v[i].regs, v[i].regs, 0x40a0ae49,
				 0x40a0ae49);
			if (!ASSERT_EQ(kw_recording_parse(&back, doc, err, sizeof(err)), 0, err) ||
			    !ASSERT_EQ(back.ntrigs, 2, "two trigger rows"))
				continue;
			ASSERT_STREQ(back.trigs[0].ioctl, "", "a number is no name");
			ASSERT_STREQ(kw_trig_ioctl(&back, &back.trigs[0]), "KVM_GET_REGS",
				     v[i].arch);
			ASSERT_STREQ(kw_trig_ioctl(&back, &back.trigs[1]),
				     "KVM_SET_USER_MEMORY_REGION2", v[i].arch);
		}
	}
out:
	kw_recording_free(&back);
	kw_recording_free(&r);
	free(a);
	free(b);
}
