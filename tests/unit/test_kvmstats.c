// SPDX-License-Identifier: GPL-2.0
/*
 * KVM's own statistics without a kernel: the parsers (a debugfs value, /proc/meminfo, a debugfs
 * folder name, a binary stats image, a stats id), the debugfs reader on a fake tree (VMs that
 * exist at the start, are created and end during a recording), the JSON round trip, the report's
 * section (x86, arm64, not read), compare's rows and the /metrics families.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compare.h"
#include "kvmstats.h"
#include "kvmstats_read.h"
#include "kvmstats_view.h"
#include "prom.h"
#include "record.h"
#include "report.h"
#include "test.h"

static void put_file(const char *base, const char *rel, const char *text, mode_t mode)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", base, rel);
	for (p = path + strlen(base) + 1; (p = strchr(p, '/')); p++) {
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
}

/* one VM folder: pf_fast, pages_4k, max_mmu_rmap_size, remote_tlb_flush_requests */
static void put_vm(const char *base, const char *id, int fast, int pages, int peak, int flushes)
{
	static const char *const names[] = { "pf_fast", "pages_4k", "max_mmu_rmap_size",
					     "remote_tlb_flush_requests", "halt_wait_hist" };
	int v[] = { fast, pages, peak, flushes, 99 };
	char rel[128], text[32];

	for (int i = 0; i < 5; i++) {
		snprintf(rel, sizeof(rel), "sys/kernel/debug/kvm/%s/%s", id, names[i]);
		snprintf(text, sizeof(text), "%d\n", v[i]);
		put_file(base, rel, text, i == 1 ? 0444 : 0644);
	}
}

static bool parsers(void)
{
	__u32 tid, fd;
	bool vcpu;
	__u64 v;
	enum kw_kvm_stat_type t;

	if (!ASSERT_EQ(kw_kvmstats_parse_value("4096\n", &v), 0, "value") ||
	    !ASSERT_EQ(v, 4096, "value") ||
	    !ASSERT_EQ(kw_kvmstats_parse_value("18446744073709551615\n", &v), 0, "u64 max") ||
	    !ASSERT_TRUE(v == ~0ULL, "u64 max") ||
	    !ASSERT_EQ(kw_kvmstats_parse_value("", &v), -EINVAL, "empty") ||
	    !ASSERT_EQ(kw_kvmstats_parse_value("-1\n", &v), -EINVAL, "negative") ||
	    !ASSERT_EQ(kw_kvmstats_parse_value("12 3\n", &v), -EINVAL, "two numbers"))
		return false;
	if (!ASSERT_EQ(kw_kvmstats_parse_meminfo("MemTotal:  100 kB\nSecPageTables:    1234 kB\n"),
		       1234, "SecPageTables") ||
	    !ASSERT_EQ(kw_kvmstats_parse_meminfo("MemTotal:  100 kB\nPageTables: 5 kB\n"), -1,
		       "before 6.0"))
		return false;
	if (!ASSERT_EQ(kw_kvmstats_parse_dirname("4242-11", &tid, &fd), 0, "dir") ||
	    !ASSERT_EQ(tid, 4242, "tid") || !ASSERT_EQ(fd, 11, "fd") ||
	    !ASSERT_EQ(kw_kvmstats_parse_dirname("pf_fast", &tid, &fd), -EINVAL, "a stat") ||
	    !ASSERT_EQ(kw_kvmstats_parse_dirname("42-", &tid, &fd), -EINVAL, "no fd") ||
	    !ASSERT_EQ(kw_kvmstats_parse_dirname("42-1x", &tid, &fd), -EINVAL, "junk"))
		return false;
	if (!ASSERT_TRUE(kw_kvmstats_debugfs_stat("pf_fast", 0644, &t), "counter") ||
	    !ASSERT_EQ(t, KW_KST_CUMULATIVE, "cumulative") ||
	    !ASSERT_TRUE(kw_kvmstats_debugfs_stat("pages_4k", 0444, &t), "level") ||
	    !ASSERT_EQ(t, KW_KST_INSTANT, "instant") ||
	    !ASSERT_TRUE(kw_kvmstats_debugfs_stat("max_mmu_rmap_size", 0644, &t), "peak") ||
	    !ASSERT_EQ(t, KW_KST_PEAK, "peak") ||
	    !ASSERT_FALSE(kw_kvmstats_debugfs_stat("halt_wait_hist", 0644, &t), "histogram"))
		return false;
	if (!ASSERT_EQ(kw_kvmstats_parse_id("kvm-4242", &tid, &vcpu), 0, "vm id") ||
	    !ASSERT_EQ(tid, 4242, "vm tid") || !ASSERT_FALSE(vcpu, "vm") ||
	    !ASSERT_EQ(kw_kvmstats_parse_id("kvm-4242/vcpu-3", &tid, &vcpu), 0, "vcpu id") ||
	    !ASSERT_TRUE(vcpu, "vcpu") ||
	    !ASSERT_EQ(kw_kvmstats_parse_id("kvm-x", &tid, &vcpu), -EINVAL, "bad id") ||
	    !ASSERT_EQ(kw_kvmstats_parse_id("kvm-1/vcpu-", &tid, &vcpu), -EINVAL, "bad vcpu"))
		return false;
	return true;
}

/* ---- a binary stats image, as KVM_GET_STATS_FD's read() gives it ------------------------------
 */

struct got {
	char names[8][48];
	int types[8];
	__u64 v[8];
	int n;
};

static int collect(void *arg, const char *name, enum kw_kvm_stat_type type, __u64 v)
{
	struct got *g = arg;

	if (g->n == 8)
		return -E2BIG;
	snprintf(g->names[g->n], 48, "%s", name);
	g->types[g->n] = type;
	g->v[g->n++] = v;
	return 0;
}

static bool binary(void)
{
	/* header, id (48), 4 descriptors of 16 + 48 bytes, then the data */
	enum { NAME = 48, DESC = 16 + NAME, NDESC = 4 };
	size_t id_off = 24, desc_off = id_off + NAME, data_off = desc_off + NDESC * DESC;
	size_t len = data_off + 8 + 8 + 32 * 8 + 8;
	unsigned char *b = calloc(1, len);
	static const struct {
		__u32 flags;
		__u16 size;
		__u32 offset;
		const char *name;
	} d[NDESC] = {
		{ 0x0, 1, 0, "pf_fast" },	   /* cumulative */
		{ 0x1, 1, 8, "pages_4k" },	   /* instant */
		{ 0x4, 32, 16, "halt_wait_hist" }, /* log histogram: left out */
		{ 0x2, 1, 16 + 256, "max_mmu_rmap_size" },
	};
	__u32 h[6] = { 0, NAME, NDESC, id_off, desc_off, data_off };
	__u64 vals[] = { 12288, 4098, 7 };
	struct got g = {};
	char id[64];
	bool ok = false;

	if (!b)
		return false;
	memcpy(b, h, sizeof(h));
	strcpy((char *)b + id_off, "kvm-4242/vcpu-0");
	for (int i = 0; i < NDESC; i++) {
		unsigned char *p = b + desc_off + i * DESC;

		memcpy(p, &d[i].flags, 4);
		memcpy(p + 6, &d[i].size, 2);
		memcpy(p + 8, &d[i].offset, 4);
		strcpy((char *)p + 16, d[i].name);
	}
	memcpy(b + data_off, &vals[0], 8);
	memcpy(b + data_off + 8, &vals[1], 8);
	memcpy(b + data_off + 16 + 256, &vals[2], 8);
	if (!ASSERT_EQ(kw_kvmstats_parse_binary(b, len, id, sizeof(id), collect, &g), 0, "parse") ||
	    !ASSERT_STREQ(id, "kvm-4242/vcpu-0", "id") ||
	    !ASSERT_EQ(g.n, 3, "histogram left out") || !ASSERT_STREQ(g.names[0], "pf_fast", "0") ||
	    !ASSERT_EQ(g.v[0], 12288, "pf_fast") ||
	    !ASSERT_EQ(g.types[0], KW_KST_CUMULATIVE, "cumulative") ||
	    !ASSERT_STREQ(g.names[1], "pages_4k", "1") || !ASSERT_EQ(g.v[1], 4098, "pages_4k") ||
	    !ASSERT_EQ(g.types[1], KW_KST_INSTANT, "instant") ||
	    !ASSERT_STREQ(g.names[2], "max_mmu_rmap_size", "2") || !ASSERT_EQ(g.v[2], 7, "peak") ||
	    !ASSERT_EQ(g.types[2], KW_KST_PEAK, "peak"))
		goto out;
	/* cut short: in the descriptors, in the data */
	if (!ASSERT_EQ(kw_kvmstats_parse_binary(b, desc_off + DESC, NULL, 0, collect, &g), -EINVAL,
		       "short descriptors") ||
	    !ASSERT_EQ(kw_kvmstats_parse_binary(b, data_off + 4, NULL, 0, collect, &g), -EINVAL,
		       "short data") ||
	    !ASSERT_EQ(kw_kvmstats_parse_binary(b, 10, NULL, 0, collect, &g), -EINVAL, "no header"))
		goto out;
	ok = true;
out:
	free(b);
	return ok;
}

/* ---- the debugfs reader on a fake tree --------------------------------------------------------
 */

/*
 * VM 100-11 is there at the start and is destroyed before the end; VM 200-5 (made by thread 200
 * of process 150) is created during the recording and is there at the end.
 */
static bool reader(const char *base, struct kw_kvmstats *ks)
{
	struct kw_kvmstats_reader rd;
	char cmd[600];
	const struct kw_kvm_vm *a, *b;

	put_file(base, "sys/module/kvm/parameters/tdp_mmu", "Y\n", 0644);
	put_file(base, "sys/kernel/debug/kvm/pf_fast", "0\n", 0644);
	put_file(base, "sys/kernel/debug/kvm/pages_4k", "0\n", 0444);
	put_file(base, "sys/kernel/debug/kvm/max_mmu_rmap_size", "0\n", 0644);
	put_file(base, "sys/kernel/debug/kvm/remote_tlb_flush_requests", "0\n", 0644);
	put_file(base, "sys/kernel/debug/kvm/halt_wait_hist", "0\n", 0644);
	put_file(base, "proc/100/status", "Name:\tqemu\nTgid:\t100\nPid:\t100\n", 0444);
	put_file(base, "proc/200/status", "Name:\tvmm\nTgid:\t150\nPid:\t200\n", 0444);
	put_file(base, "proc/meminfo", "MemTotal: 1000 kB\nSecPageTables:     1234 kB\n", 0444);
	put_vm(base, "100-11", 5, 10, 3, 2);

	kw_kvmstats_init(ks);
	if (!ASSERT_EQ(kw_kvmstats_open(&rd, KW_KSM_DEBUGFS, base, false), 0, "open") ||
	    !ASSERT_EQ(rd.nnames, 4, "statistics (histogram left out)"))
		return false;
	if (!ASSERT_EQ(kw_kvmstats_read(&rd, ks, 0, KW_KSR_START), 0, "start"))
		goto fail;
	put_vm(base, "100-11", 25, 4, 7, 9);
	put_vm(base, "200-5", 8, 16, 1, 1);
	kw_kvmstats_tick(&rd, ks, 0.5);
	kw_kvmstats_tick(&rd, ks, 0.6); /* within KW_KVMSTATS_TICK: no read */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/sys/kernel/debug/kvm/100-11", base);
	if (!ASSERT_EQ(system(cmd), 0, "VM 100-11 destroyed"))
		goto fail;
	put_vm(base, "200-5", 10, 16, 1, 1);
	put_file(base, "proc/meminfo", "MemTotal: 1000 kB\nSecPageTables:     1500 kB\n", 0444);
	if (!ASSERT_EQ(kw_kvmstats_read(&rd, ks, 1.0, KW_KSR_END), 0, "end"))
		goto fail;
	kw_kvmstats_close(&rd);
	kw_kvmstats_sort(ks);

	if (!ASSERT_STREQ(ks->source, "debugfs", "source") || !ASSERT_EQ(ks->nvms, 2, "VMs") ||
	    !ASSERT_EQ(ks->sec_pt_start_kb, 1234, "SecPageTables start") ||
	    !ASSERT_EQ(ks->sec_pt_end_kb, 1500, "SecPageTables end"))
		return false;
	a = &ks->vms[0];
	b = &ks->vms[1];
	if (!ASSERT_STREQ(a->id, "100-11", "first VM") || !ASSERT_EQ(a->pid, 100, "its pid") ||
	    !ASSERT_TRUE(a->at_start, "read at the start") || !ASSERT_TRUE(a->ended, "ended") ||
	    !ASSERT_NEAR(a->last_t, 0.5, 1e-9, "its last read") ||
	    !ASSERT_EQ(kw_kvm_vm_find(a, "pf_fast")->start, 5, "pf_fast start") ||
	    !ASSERT_EQ(kw_kvm_vm_find(a, "pf_fast")->end, 25, "pf_fast: its last read") ||
	    !ASSERT_EQ(kw_kvm_stat_delta(kw_kvm_vm_find(a, "pages_4k")), -6, "a level goes down"))
		return false;
	if (!ASSERT_STREQ(b->id, "200-5", "second VM") ||
	    !ASSERT_EQ(b->pid, 150, "the process of thread 200") ||
	    !ASSERT_FALSE(b->at_start, "created during") || !ASSERT_FALSE(b->ended, "alive") ||
	    !ASSERT_EQ(kw_kvm_vm_find(b, "pf_fast")->start, 0, "starts at 0") ||
	    !ASSERT_EQ(kw_kvm_vm_find(b, "pf_fast")->end, 10, "end read") ||
	    !ASSERT_TRUE(kw_kvm_vm_find(b, "halt_wait_hist") == NULL, "no histogram"))
		return false;
	/* summed over the VMs: 20 + 10 fast faults, 7 + 1 flushes, -6 + 16 pages */
	if (!ASSERT_EQ(kw_kvmstats_delta(ks, "pf_fast", NULL), 30, "pf_fast") ||
	    !ASSERT_EQ(kw_kvmstats_delta(ks, "remote_tlb_flush_requests", NULL), 8, "flushes") ||
	    !ASSERT_EQ(kw_kvmstats_delta(ks, "pages_4k", NULL), 10, "pages") ||
	    !ASSERT_EQ(kw_kvmstats_delta(ks, "max_mmu_rmap_size", NULL), 0, "a peak has none"))
		return false;
	return true;
fail:
	kw_kvmstats_close(&rd);
	return false;
}

static bool json_round_trip(const struct kw_kvmstats *ks)
{
	json_t *o = kw_kvmstats_json(ks), *o2;
	struct kw_kvmstats back;
	char *text, *text2;
	bool ok;

	text = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	ok = ASSERT_GOLDEN(text, strlen(text), "kvmstats-recording.json") &&
	     ASSERT_EQ(kw_kvmstats_from_json(&back, o), 0, "read back");
	if (ok) {
		o2 = kw_kvmstats_json(&back);
		text2 = json_dumps(o2,
				   JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
		ok = ASSERT_STREQ(text2, text, "the same after a round trip");
		free(text2);
		json_decref(o2);
		kw_kvmstats_free(&back);
	}
	/* an older recording: none */
	ok = ok && ASSERT_EQ(kw_kvmstats_from_json(&back, NULL), 0, "absent") &&
	     ASSERT_EQ(back.nvms, 0, "no VMs") && ASSERT_EQ(back.sec_pt_start_kb, -1, "unknown");
	free(text);
	json_decref(o);
	return ok;
}

/* ---- the views --------------------------------------------------------------------------------
 */

/*
 * An x86 recording whose probes counted what ks counts: 30 fast faults that did not return
 * RET_PF_INVALID (22 fixed, 8 spurious) and 8 kvm_flush_remote_tlbs calls (--count).
 */
static void fill_x86(struct kw_recording *r, const struct kw_kvmstats *ks, int scale)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "x86");
	snprintf(r->meta.kvm_mode, sizeof(r->meta.kvm_mode), "tdp");
	r->plan[KW_P_FAST_PF].mech = KW_MECH_FENTRY;
	snprintf(r->pf_ret_names[4], 32, "RET_PF_INVALID");
	snprintf(r->pf_ret_names[5], 32, "RET_PF_FIXED");
	snprintf(r->pf_ret_names[6], 32, "RET_PF_SPURIOUS");
	r->counters[KW_C_PF_RET + 4] = 100;
	r->counters[KW_C_PF_RET + 5] = 22 * scale;
	r->counters[KW_C_PF_RET + 6] = 8 * scale;
	r->funcs[KW_P_FAST_PF].calls = 100 + 30 * scale;
	r->nufuncs = 1;
	snprintf(r->ufuncs[0].req.name, sizeof(r->ufuncs[0].req.name), "kvm_flush_remote_tlbs");
	r->ufuncs[0].plan.mech = KW_MECH_FENTRY;
	r->ufuncs[0].f.calls = 8;
	kw_recording_add_vm(r, &(struct kw_vm){ .pid = 150,
						.comm = "qemu-system-x86",
						.vm = "web01",
						.source = "cmdline" });
	kw_kvmstats_copy(&r->kvmstats, ks);
	for (size_t i = 0; i < r->kvmstats.nvms; i++) {
		struct kw_kvm_stat *s =
			kw_kvm_vm_stat(&r->kvmstats.vms[i], "pf_fast", KW_KST_CUMULATIVE);

		s->end = s->start + (s->end - s->start) * scale;
	}
}

static void fill_arm64(struct kw_recording *r)
{
	struct kw_kvm_vm *v;

	memset(r, 0, sizeof(*r));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "arm64");
	r->plan[KW_P_TLB_FLUSH_RANGE].mech = KW_MECH_FENTRY;
	r->funcs[KW_P_TLB_FLUSH_RANGE].calls = 258;
	kw_kvmstats_init(&r->kvmstats);
	snprintf(r->kvmstats.source, sizeof(r->kvmstats.source), "debugfs");
	r->kvmstats.sec_pt_start_kb = 40;
	r->kvmstats.sec_pt_end_kb = 72;
	v = kw_kvmstats_vm(&r->kvmstats, "321-12", 1);
	v->pid = 321;
	v->last_t = 3.25;
	kw_kvm_vm_stat(v, "remote_tlb_flush_requests", KW_KST_CUMULATIVE)->end = 3;
	kw_kvm_vm_stat(v, "remote_tlb_flush", KW_KST_CUMULATIVE)->end = 3;
	kw_kvm_vm_stat(v, "exits", KW_KST_CUMULATIVE)->end = 4100;
}

/* prom.c's families of r: the kvm ones */
void kw_test_kvmstats_prom(struct kw_recording *r);
void kw_test_kvmstats_prom(struct kw_recording *r)
{
	struct kw_kvm_vm *v;

	kw_kvmstats_init(&r->kvmstats);
	snprintf(r->kvmstats.source, sizeof(r->kvmstats.source), "debugfs");
	r->kvmstats.sec_pt_end_kb = 1500;
	v = kw_kvmstats_vm(&r->kvmstats, "77-14", 1);
	v->pid = 77;
	kw_kvm_vm_stat(v, "remote_tlb_flush", KW_KST_CUMULATIVE)->end = 7;
	kw_kvm_vm_stat(v, "remote_tlb_flush_requests", KW_KST_CUMULATIVE)->end = 9;
	kw_kvm_vm_stat(v, "max_mmu_rmap_size", KW_KST_PEAK)->end = 3;
	kw_kvm_vm_stat(v, "exits", KW_KST_CUMULATIVE)->end = 12345;
	if (!strcmp(r->meta.arch, "x86")) {
		kw_kvm_vm_stat(v, "pf_fast", KW_KST_CUMULATIVE)->end = 10;
		kw_kvm_vm_stat(v, "pages_4k", KW_KST_INSTANT)->end = 4098;
		kw_kvm_vm_stat(v, "pages_2m", KW_KST_INSTANT)->end = 0;
	}
}

static bool report_golden(const struct kw_recording *r, const char *name, const char *jname)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	json_t *o;
	bool ok;

	kw_kvmstats_print(f, r);
	fclose(f);
	ok = ASSERT_TRUE(kw_test_fits(buf, 80), "80 columns") && ASSERT_GOLDEN(buf, len, name);
	free(buf);
	if (!ok || !jname)
		return ok;
	o = kw_kvmstats_report_json(r);
	buf = json_dumps(o, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	ok = ASSERT_GOLDEN(buf, strlen(buf), jname);
	free(buf);
	json_decref(o);
	return ok;
}

static bool views(const struct kw_kvmstats *ks)
{
	struct kw_recording x = {}, x2[2] = {}, a = {}, none = {};
	struct kw_compare_opts co = { .level = 0.95 };
	struct kw_compare c;
	char *buf = NULL, err[256];
	json_t *o;
	size_t len = 0;
	bool ok = false;
	FILE *f;

	fill_x86(&x, ks, 1);
	fill_arm64(&a);
	if (!ASSERT_EQ(kw_kvmstats_kvmwalk(&x, "pf_fast", NULL), 30, "kvmwalk's pf_fast") ||
	    !ASSERT_EQ(kw_kvmstats_kvmwalk(&x, "remote_tlb_flush_requests", NULL), 8,
		       "kvmwalk's kvm_flush_remote_tlbs calls") ||
	    !ASSERT_EQ(kw_kvmstats_kvmwalk(&x, "pages_4k", NULL), -1, "no installs counted") ||
	    !ASSERT_EQ(kw_kvmstats_range_flushes(&a), 258, "arm64 range flushes") ||
	    !ASSERT_EQ(kw_kvmstats_range_flushes(&x), -1, "none on x86"))
		goto out;
	if (!report_golden(&x, "kvmstats-report-x86.txt", "kvmstats-report-x86.json") ||
	    !report_golden(&a, "kvmstats-report-arm64.txt", "kvmstats-report-arm64.json"))
		goto out;
	snprintf(none.meta.arch, sizeof(none.meta.arch), "x86");
	kw_kvmstats_init(&none.kvmstats);
	snprintf(none.kvmstats.why, sizeof(none.kvmstats.why),
		 "no /sys/kernel/debug/kvm: No such file or directory; binary stats: Operation "
		 "not permitted (pidfd_getfd: no ptrace access to the VMM)");
	if (!report_golden(&none, "kvmstats-report-none.txt", NULL))
		goto out;
	o = kw_kvmstats_report_json(&none);
	json_decref(o);
	if (!ASSERT_TRUE(o != NULL, "not read: still said"))
		goto out;
	memset(&none.kvmstats, 0, sizeof(none.kvmstats));
	if (!ASSERT_TRUE(kw_kvmstats_report_json(&none) == NULL, "an older recording: no section"))
		goto out;

	/* compare: 30 fast faults per run before, 300 after; the flushes the same */
	fill_x86(&x2[0], ks, 1);
	fill_x86(&x2[1], ks, 10);
	if (!ASSERT_EQ(kw_compare_check_names("kvm_stats", "pf_fast,pages_4k", err, sizeof(err)), 0,
		       err))
		goto out;
	co.functions = "kvm_stats";
	if (!ASSERT_EQ(kw_compare_build(&c, &x2[0], 1, &x2[1], 1, &co), 0, "compare"))
		goto out;
	f = open_memstream(&buf, &len);
	kw_compare_print(f, &c, KW_COMPARE_TEXT);
	fclose(f);
	kw_compare_free(&c);
	if (!ASSERT_TRUE(kw_test_fits(buf, 72), "72 columns") ||
	    !ASSERT_GOLDEN(buf, len, "kvmstats-compare.txt"))
		goto out;
	/* a run without them (an older recording): no rows, rather than 0 */
	kw_kvmstats_free(&x2[1].kvmstats);
	memset(&x2[1].kvmstats, 0, sizeof(x2[1].kvmstats));
	if (!ASSERT_EQ(kw_compare_build(&c, &x2[0], 1, &x2[1], 1, &co), 0, "compare") ||
	    !ASSERT_EQ(c.nrows, 0, "no kvm_stats rows"))
		goto out;
	kw_compare_free(&c);
	ok = true;
out:
	free(buf);
	kw_recording_free(&x);
	kw_recording_free(&x2[0]);
	kw_recording_free(&x2[1]);
	kw_recording_free(&a);
	return ok;
}

void test_kvmstats(void)
{
	char base[] = "/tmp/kw-kvmstats-XXXXXX", cmd[300];
	struct kw_kvmstats ks = {};

	if (!parsers() || !binary())
		return;
	if (!ASSERT_TRUE(mkdtemp(base), "mkdtemp"))
		return;
	if (reader(base, &ks) && json_round_trip(&ks))
		views(&ks);
	kw_kvmstats_free(&ks);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", base);
	ASSERT_EQ(system(cmd), 0, "cleanup");
}
