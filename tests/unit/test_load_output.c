// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load results: the text table and its JSON twin, byte for byte. */
#include <stdlib.h>
#include <string.h>

#include "load/load.h"
#include "test.h"

static char *render(const struct load_results *r, bool json, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (json)
		results_json(r, f);
	else
		results_text(r, f);
	fclose(f);
	return buf;
}

static const char want_text[] =
	"kvmwalk-load " KW_VERSION "  arch test  kernel 6.12.0-test\n"
	"vcpus 2  mem 8 MiB/vCPU  backing thp  iterations 1  timeout 30s\n"
	"chunk-pages 64  range 2 MiB  pattern same  refault no\n"
	"eager-split 2 MiB  sparse 256 GiB  enter-el1 yes\n"
	"\n"
	"scenario        phase             iter   wall ms count                    value\n"
	"clear           dirty-log-clear      1     1.500 clear_ioctls                64\n"
	"                                                 pages_cleared             4096\n"
	"empty-unmap     sparse-delete        2 12345.679 slots_deleted                1\n"
	"                                                 sparse_bytes      274877906944\n"
	"split           touch                0     0.000\n"
	"nested-unmap    nested-madvise       1  5512.000 madvise_calls                1\n"
	"                                                 nested_mmus                  2\n"
	"                                                 ipa_bits                    48\n";

static const char want_json[] =
	"{\n"
	"  \"tool\": \"kvmwalk-load\",\n"
	"  \"version\": \"" KW_VERSION "\",\n"
	"  \"arch\": \"test\",\n"
	"  \"kernel\": \"6.12.0-test\",\n"
	"  \"options\": {\n"
	"    \"scenario\": \"all\",\n"
	"    \"vcpus\": 2,\n"
	"    \"mem_bytes\": 8388608,\n"
	"    \"backing\": \"thp\",\n"
	"    \"iterations\": 1,\n"
	"    \"chunk_pages\": 64,\n"
	"    \"range_bytes\": 2097152,\n"
	"    \"pattern\": \"same\",\n"
	"    \"refault\": false,\n"
	"    \"eager_split_bytes\": 2097152,\n"
	"    \"sparse_bytes\": 274877906944,\n"
	"    \"enter_el1\": true,\n"
	"    \"timeout_s\": 30\n"
	"  },\n"
	"  \"status\": \"ok\",\n"
	"  \"exit_code\": 0,\n"
	"  \"phases\": [\n"
	"    {\"scenario\": \"clear\", \"phase\": \"dirty-log-clear\", \"iteration\": 1, "
	"\"wall_ns\": 1500000, \"start_ns\": 86400000000123, \"counts\": {\"clear_ioctls\": 64, "
	"\"pages_cleared\": 4096}},\n"
	"    {\"scenario\": \"empty-unmap\", \"phase\": \"sparse-delete\", \"iteration\": 2, "
	"\"wall_ns\": 12345678912, \"start_ns\": 0, \"counts\": {\"slots_deleted\": 1, "
	"\"sparse_bytes\": 274877906944}},\n"
	"    {\"scenario\": \"split\", \"phase\": \"touch\", \"iteration\": 0, \"wall_ns\": 0, "
	"\"start_ns\": 0, \"counts\": {}},\n"
	"    {\"scenario\": \"nested-unmap\", \"phase\": \"nested-madvise\", \"iteration\": 1, "
	"\"wall_ns\": 5512000000, \"start_ns\": 0, \"counts\": {\"madvise_calls\": 1, "
	"\"nested_mmus\": 2, \"ipa_bits\": 48}}\n"
	"  ]\n"
	"}\n";

/* The golden files say VERSION where the build's KW_VERSION is (its first occurrence). */
static char *unversion(char *buf, size_t *len)
{
	char *v = strstr(buf, KW_VERSION), *out;
	size_t n = strlen(KW_VERSION), at;

	if (!v)
		return buf;
	at = v - buf;
	out = malloc(*len - n + 8);
	if (!out)
		return buf;
	memcpy(out, buf, at);
	memcpy(out + at, "VERSION", 7);
	memcpy(out + at + 7, v + n, *len - at - n + 1);
	*len = *len - n + 7;
	free(buf);
	return out;
}

void test_load_output(void)
{
	struct load_results r;
	struct load_phase *p;
	struct load_opts o;
	char *buf = NULL;
	size_t len, i;

	load_opts_default(&o);
	o.vcpus = 2;
	o.mem = 8 << 20;
	o.backing = BACKING_THP;
	o.iterations = 1;
	o.eager_split = 2 << 20;
	o.refault = false;
	results_init(&r, &o);
	r.arch = "test";
	snprintf(r.kernel, sizeof(r.kernel), "6.12.0-test");

	p = results_add(&r, SC_CLEAR, "dirty-log-clear", 1);
	if (!ASSERT_TRUE(p, "add"))
		goto out;
	p->wall_ns = 1500000;
	p->start_ns = 86400000000123ULL;
	counts_set(&p->counts, LC_PAGES_CLEARED, 4096);
	counts_set(&p->counts, LC_CLEAR_IOCTLS, 64);
	p = results_add(&r, SC_EMPTY_UNMAP, "sparse-delete", 2);
	p->wall_ns = 12345678912ULL;
	counts_set(&p->counts, LC_SLOTS_DELETED, 1);
	counts_add(&p->counts, LC_SPARSE_BYTES, 256ULL << 30);
	results_add(&r, SC_SPLIT, "touch", 0);
	p = results_add(&r, SC_NESTED_UNMAP, "nested-madvise", 1);
	p->wall_ns = 5512000000ULL;
	counts_set(&p->counts, LC_IPA_BITS, 48);
	counts_set(&p->counts, LC_NESTED_MMUS, 2);
	counts_set(&p->counts, LC_MADVISE_CALLS, 1);

	buf = render(&r, false, &len);
	if (!ASSERT_TRUE(buf, "text"))
		goto out;
	ASSERT_STREQ(buf, want_text, "text table");
	for (i = 0; i < len; i++) {
		size_t start = i;

		while (i < len && buf[i] != '\n')
			i++;
		ASSERT_TRUE(i - start <= 80, "80 columns");
	}
	free(buf);
	buf = render(&r, true, &len);
	if (!ASSERT_TRUE(buf, "json"))
		goto out;
	ASSERT_STREQ(buf, want_json, "json");
	free(buf);

	/* --concurrent: one more header line, four more options in the JSON (golden) */
	results_free(&r);
	load_opts_default(&o);
	o.scenario = SC_INVALIDATE;
	o.concurrent = true;
	o.vcpus = 2;
	o.mem = 64 << 20;
	o.range = 16 << 20;
	o.duration = 5;
	o.preset = "same16";
	results_init(&r, &o);
	r.arch = "test";
	snprintf(r.kernel, sizeof(r.kernel), "7.3.4-test");
	p = results_add(&r, SC_INVALIDATE, "touch", 0);
	p->wall_ns = 250000000;
	counts_set(&p->counts, LC_PAGES_TOUCHED, 32768);
	counts_set(&p->counts, LC_BLOCKS_2M, 0);
	p = results_add(&r, SC_INVALIDATE, "concurrent", 1);
	p->wall_ns = 5012345678ULL;
	p->start_ns = 1000;
	counts_set(&p->counts, LC_PAGES_WRITTEN, 7 * 16384);
	counts_set(&p->counts, LC_MADVISE_CALLS, 480);
	counts_set(&p->counts, LC_BYTES_INVALIDATED, 480ULL * (16 << 20));
	counts_set(&p->counts, LC_PAGES_INVALIDATED, 480 * 4096);
	counts_set(&p->counts, LC_PASSES, 7);
	counts_set(&p->counts, LC_HOST_FAULTS, 20480);
	buf = render(&r, false, &len);
	if (!ASSERT_TRUE(buf, "concurrent text"))
		goto out;
	buf = unversion(buf, &len);
	ASSERT_GOLDEN(buf, len, "load-concurrent.txt");
	free(buf);
	buf = render(&r, true, &len);
	if (!ASSERT_TRUE(buf, "concurrent json"))
		goto out;
	buf = unversion(buf, &len);
	ASSERT_GOLDEN(buf, len, "load-concurrent.json");
	free(buf);
	buf = NULL;

	/* many phases: the array grows; an error is reported in both forms */
	for (i = 0; i < 200; i++)
		if (!ASSERT_TRUE(results_add(&r, SC_INVALIDATE, "refault", i), "grow"))
			goto out;
	ASSERT_EQ(r.nr, 202, "phases");
	r.status = EXIT_MISMATCH;
	snprintf(r.error, sizeof(r.error), "dirty_pages is \"1\"");
	buf = render(&r, true, &len);
	ASSERT_TRUE(buf && strstr(buf, "\"status\": \"error\",\n  \"exit_code\": 7,\n"
				       "  \"error\": \"dirty_pages is \\\"1\\\"\",\n"),
		    "json error");
	free(buf);
	buf = render(&r, false, &len);
	ASSERT_TRUE(buf && strstr(buf, "\nerror (exit 7): dirty_pages is \"1\"\n"), "text error");
out:
	free(buf);
	results_free(&r);
}
