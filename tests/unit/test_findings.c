// SPDX-License-Identifier: GPL-2.0
/*
 * The findings of real recordings (tests/unit/fixtures/findings/: rec.json of vmtest cases, named
 * after the case and target), text and JSON byte for byte, the 80-column rule, and the numbers
 * the workloads make certain.
 */
#include <stdlib.h>
#include <unistd.h>

#include <jansson.h>

#include "test.h"
#include "findings.h"

#define FIX "fixtures/findings/"

static bool load(struct kw_recording *r, const char *path)
{
	char err[512] = "";

	return ASSERT_EQ(kw_recording_load(r, path, err, sizeof(err)), 0, err[0] ? err : path);
}

/* findings-NAME.txt and findings-NAME.json of r */
static bool golden(const struct kw_recording *r, const char *name, struct kw_findings *fs)
{
	char *buf = NULL, g[96];
	size_t len = 0;
	json_t *j;
	FILE *f;
	bool ok;

	kw_findings_compute(r, fs);
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, name))
		return false;
	kw_findings_print(f, fs);
	fclose(f);
	snprintf(g, sizeof(g), "findings-%s.txt", name);
	ok = ASSERT_GOLDEN(buf, len, g);
	ok = ASSERT_TRUE(kw_test_fits(buf, 80), g) && ok;
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!ASSERT_TRUE(f, name))
		return false;
	j = kw_findings_json(fs);
	json_dumpf(j, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
	fputc('\n', f);
	json_decref(j);
	fclose(f);
	snprintf(g, sizeof(g), "findings-%s.json", name);
	ok = ASSERT_GOLDEN(buf, len, g) && ok;
	free(buf);
	return ok;
}

static const struct kw_finding *of(const struct kw_findings *fs, enum kw_finding_kind k)
{
	for (int i = 0; i < fs->n; i++)
		if (fs->f[i].kind == k)
			return &fs->f[i];
	return NULL;
}

/* The value of a finding's number in its JSON, ~0 if absent. */
static __u64 number(const struct kw_finding *fd, const char *name)
{
	for (int i = 0; fd && i < fd->nnums; i++)
		if (!strcmp(fd->nums[i].name, name))
			return fd->nums[i].u;
	return ~0ULL;
}

/* Every patch a finding names is a file of its series. */
static void patches(const struct kw_findings *fs)
{
	char path[256];
	json_t *j = kw_findings_json(fs), *o, *p;
	size_t i, k;

	json_array_foreach(j, i, o)
		json_array_foreach(json_object_get(o, "patch_files"), k, p) {
			snprintf(path, sizeof(path), "../../%s/%s",
				 json_string_value(json_object_get(o, "patch")),
				 json_string_value(p));
			ASSERT_EQ(access(path, R_OK), 0, path);
		}
	json_decref(j);
}

/*
 * kw-split, arm64 7.3 VHE: kvmwalk-load --scenario split --mem=8M --vcpus=2 --iterations=2
 * --eager-split=2M. 16 blocks split, 512 level-3 visits each; its one VM (40-bit IPA) torn down
 * at exit in 2^(40-30) = 1024 walks of 1 GiB; the slot deletion's one unmap cleared every leaf.
 */
static void split(void)
{
	struct kw_recording r = {};
	struct kw_findings fs;
	const struct kw_finding *fd;

	if (!load(&r, FIX "split-7.3-vhe.json"))
		return;
	golden(&r, "split-7.3-vhe", &fs);
	patches(&fs);
	fd = of(&fs, KW_F_SPLIT_LEVEL3);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "split finding")) {
		ASSERT_EQ(fd->count, 16 * 512, "level-3 visits");
		ASSERT_EQ(number(fd, "blocks_split"), 16, "blocks split");
		ASSERT_STREQ(fd->patch, "patches/arm64-split-skip-level3", "split patch");
	}
	fd = of(&fs, KW_F_TEARDOWN);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "teardown finding")) {
		ASSERT_EQ(fd->count, 1024, "teardown walks");
		ASSERT_EQ(number(fd, "bytes"), 1ULL << 40, "teardown bytes");
		ASSERT_EQ(number(fd, "vms_torn_down"), 1, "VMs torn down");
		ASSERT_STREQ(fd->patch, "patches/arm64-teardown-skip-empty", "teardown patch");
	}
	fd = of(&fs, KW_F_EMPTY_FLUSHES);
	ASSERT_TRUE(fd && fd->status == KW_FS_NONE, "one unmap, not empty");

	/*
	 * --no-visits: the per-entry callback probes are off, so nothing about visits, and
	 * nothing about empty flushes (which the unmap walker's visits decide), may be said.
	 */
	r.plan[KW_P_SPLIT_WALKER].mech = KW_MECH_OFF;
	r.plan[KW_P_UNMAP_WALKER].mech = KW_MECH_OFF;
	r.meta.visits = false;
	memset(r.visits, 0, sizeof(r.visits));
	r.counters[KW_C_UNMAP_CLEARED] = 0;
	r.counters[KW_C_UNMAP_EMPTY] = r.counters[KW_C_UNMAP_CALLS];
	r.counters[KW_C_EMPTY_FLUSHES] = r.counters[KW_C_UNMAP_FLUSHES];
	golden(&r, "split-7.3-vhe-no-visits", &fs);
	ASSERT_EQ(of(&fs, KW_F_SPLIT_LEVEL3)->status, KW_FS_NOT_CHECKED, "no-visits: split");
	ASSERT_EQ(of(&fs, KW_F_EMPTY_FLUSHES)->status, KW_FS_NOT_CHECKED, "no-visits: flushes");
	ASSERT_EQ(of(&fs, KW_F_TEARDOWN)->status, KW_FS_FOUND, "no-visits: teardown still");
	kw_recording_free(&r);
}

/*
 * kw-empty-unmap, arm64 7.3 VHE: 2 x (8 madvise + 1 slot + 256 sparse 1-GiB chunks) = 530
 * unmaps of nothing, one range flush each.
 */
static void empty_unmap(void)
{
	struct kw_recording r = {};
	struct kw_findings fs;
	const struct kw_finding *fd;

	if (!load(&r, FIX "empty-unmap-7.3-vhe.json"))
		return;
	golden(&r, "empty-unmap-7.3-vhe", &fs);
	patches(&fs);
	fd = of(&fs, KW_F_EMPTY_FLUSHES);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "empty flush finding")) {
		ASSERT_EQ(fd->count, 530, "empty flushes");
		ASSERT_EQ(number(fd, "empty_unmap_calls"), 530, "empty unmaps");
		ASSERT_EQ(fd->ns, r.counters[KW_C_EMPTY_FLUSH_NS], "empty flush time");
	}
	ASSERT_EQ(of(&fs, KW_F_SPLIT_LEVEL3)->status, KW_FS_NONE, "no split visits");
	kw_recording_free(&r);
}

/*
 * An arm64 7.3 recording of tool 0.1 (fixtures/compare/split-7.3): no kvm_mmu_notifier_release
 * probe yet, so the VMs torn down are not counted; and one of 6.12, which frees a VM's tables
 * in one walk: no finding.
 */
static void teardown(void)
{
	struct kw_recording r = {};
	struct kw_findings fs;
	const struct kw_finding *fd;

	if (load(&r, "fixtures/compare/split-7.3/run1.json")) {
		golden(&r, "teardown-7.3-old", &fs);
		fd = of(&fs, KW_F_TEARDOWN);
		if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "7.3 teardown finding"))
			ASSERT_EQ(fd->count, 1024, "7.3 teardown walks");
		kw_recording_free(&r);
	}
	memset(&r, 0, sizeof(r));
	if (load(&r, "fixtures/compare/split-6.12/run1.json")) {
		golden(&r, "teardown-6.12", &fs);
		ASSERT_EQ(of(&fs, KW_F_TEARDOWN)->status, KW_FS_NONE, "6.12: one walk per VM");
		kw_recording_free(&r);
	}
}

/*
 * kw-invalidate, x86 7.3: the same 2 MiB range (512 pages) zapped 3 times. With refaults every
 * zap zaps 512 leaves; with --refault=no only the first does, and zaps 2 and 3 still visit the
 * emptied table's 512 entries each.
 */
static void zaps(void)
{
	struct kw_recording r = {};
	struct kw_findings fs;
	const struct kw_finding *fd;

	if (load(&r, FIX "invalidate-x86-7.3.json")) {
		golden(&r, "invalidate-x86-7.3", &fs);
		fd = of(&fs, KW_F_EMPTY_ZAPS);
		if (ASSERT_TRUE(fd && fd->status == KW_FS_NONE, "refault: no empty zap"))
			ASSERT_EQ(number(fd, "zaps"), 3, "refault: zaps");
		kw_recording_free(&r);
	}
	memset(&r, 0, sizeof(r));
	if (!load(&r, FIX "invalidate-norefault-x86-7.3.json"))
		return;
	golden(&r, "invalidate-norefault-x86-7.3", &fs);
	patches(&fs);
	fd = of(&fs, KW_F_EMPTY_ZAPS);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "norefault: empty zaps")) {
		ASSERT_EQ(fd->count, 2, "norefault: empty zaps");
		ASSERT_EQ(number(fd, "empty_zap_4k_visits"), 2 * 512, "norefault: their 4K visits");
		ASSERT_EQ(number(fd, "zaps"), 3, "norefault: zaps");
	}
	/* --no-visits: tdp_iter_next off, so the visits are unknown: nothing is said */
	r.plan[KW_P_TDP_ITER_NEXT].mech = KW_MECH_OFF;
	kw_findings_compute(&r, &fs);
	fd = of(&fs, KW_F_EMPTY_ZAPS);
	ASSERT_TRUE(fd && fd->status == KW_FS_NOT_CHECKED &&
			    !strcmp(fd->why, "tdp_iter_next not attached"),
		    "no-visits: zaps not checked");
	/* a recording from before zap_calls: only a total of 0 leaves zapped proves it */
	r.plan[KW_P_TDP_ITER_NEXT].mech = KW_MECH_FENTRY;
	r.counters[KW_C_ZAP_CALLS] = r.counters[KW_C_ZAP_EMPTY] = 0;
	kw_findings_compute(&r, &fs);
	ASSERT_EQ(of(&fs, KW_F_EMPTY_ZAPS)->status, KW_FS_NOT_CHECKED,
		  "old recording, leaves zapped");
	r.counters[KW_C_ZAP_ZAPPED] = 0;
	kw_findings_compute(&r, &fs);
	fd = of(&fs, KW_F_EMPTY_ZAPS);
	if (ASSERT_EQ(fd->status, KW_FS_FOUND, "old recording, nothing zapped"))
		ASSERT_EQ(fd->count, 3, "old recording: every zap empty");
	kw_recording_free(&r);
}

/*
 * ab-nested-unmap on Debian's 7.3 in kvm-arm.mode=nested (48-bit IPA limit): one vCPU made one
 * nested MMU valid (one ERET to vEL1, which mapped the code page there), then 2 madvises of a
 * never-touched page: 2 nested unmaps of 2^18 = 262,144 1 GiB unmap calls each; the first
 * clears the one leaf, so 2 x 262,144 - 1 calls cleared none, a range flush each. Each madvise
 * also unmaps the page in the canonical MMU (empty): 2 more empty flushes, not nested ones.
 */
static void nested(void)
{
	const __u64 C = 1ULL << (48 - 30);
	struct kw_recording r = {};
	struct kw_findings fs;
	const struct kw_finding *fd;

	if (!load(&r, FIX "nested-unmap-7.3-nested.json"))
		return;
	golden(&r, "nested-unmap-7.3-nested", &fs);
	patches(&fs);
	fd = of(&fs, KW_F_NESTED_EMPTY);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "nested finding")) {
		ASSERT_EQ(fd->count, 2 * C - 1, "nested empty flushes");
		ASSERT_EQ(number(fd, "nested_unmaps"), 2, "nested unmaps");
		ASSERT_EQ(number(fd, "unmap_calls"), 2 * C, "unmap calls in nested unmaps");
		ASSERT_EQ(number(fd, "leaves_cleared"), 1, "the vEL1 code page");
		ASSERT_EQ(number(fd, "flushes"), 2 * C, "a flush per unmap call");
		ASSERT_EQ(fd->ns, r.counters[KW_C_NESTED_EMPTY_FLUSH_NS], "their time");
		ASSERT_STREQ(fd->patch, "patches/arm64-unmap-tlbi-only-if-unmapped", "nested patch");
	}
	fd = of(&fs, KW_F_EMPTY_FLUSHES);
	if (ASSERT_TRUE(fd && fd->status == KW_FS_FOUND, "empty flush finding"))
		ASSERT_EQ(fd->count, 2 * C - 1 + 2, "nested ones + the canonical MMU's 2");
	/* the unmap walker off: which calls cleared a leaf is unknown */
	r.plan[KW_P_UNMAP_WALKER].mech = KW_MECH_OFF;
	kw_findings_compute(&r, &fs);
	fd = of(&fs, KW_F_NESTED_EMPTY);
	ASSERT_TRUE(fd && fd->status == KW_FS_NOT_CHECKED &&
			    !strcmp(fd->why, "stage2_unmap_walker not attached"),
		    "no-visits: nested not checked");
	/* kvm_nested_s2_unmap not attached (or not in the recording): no finding at all */
	r.plan[KW_P_UNMAP_WALKER].mech = KW_MECH_FENTRY;
	r.plan[KW_P_NESTED_UNMAP].mech = KW_MECH_OFF;
	kw_findings_compute(&r, &fs);
	ASSERT_TRUE(!of(&fs, KW_F_NESTED_EMPTY), "nested probe off: no nested finding");
	r.plan[KW_P_NESTED_UNMAP].mech = KW_MECH_NONE;
	kw_findings_compute(&r, &fs);
	ASSERT_TRUE(!of(&fs, KW_F_NESTED_EMPTY), "older recording: no nested finding");
	kw_recording_free(&r);
}

void test_findings(void)
{
	split();
	empty_unmap();
	teardown();
	zaps();
	nested();
}
