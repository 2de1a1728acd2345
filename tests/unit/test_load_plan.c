// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load arithmetic: invalidation ranges, clear chunks, bitmaps, /proc parsers. */
#include "load/load.h"
#include "test.h"

static const char smaps[] = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n"
			    "Size:               2048 kB\n"
			    "AnonHugePages:      2048 kB\n"
			    "7f0000200000-7f0001200000 rw-p 00000000 00:00 0 \n"
			    "Size:              16384 kB\n"
			    "AnonHugePages:     14336 kB\n"
			    "Private_Hugetlb:       0 kB\n"
			    "7f0001200000-7f0001400000 rw-p 00000000 00:00 0 \n"
			    "AnonHugePages:      2048 kB\n";

void test_load_plan(void)
{
	uint64_t bm[4] = { 0 };
	unsigned int i;

	/* same: always offset 0; sweep: consecutive, wrapping after the last whole range */
	for (i = 0; i < 5; i++)
		ASSERT_EQ(plan_range_offset(16 << 20, 2 << 20, PATTERN_SAME, i), 0, "same");
	ASSERT_EQ(plan_range_offset(16 << 20, 2 << 20, PATTERN_SWEEP, 0), 0, "sweep 0");
	ASSERT_EQ(plan_range_offset(16 << 20, 2 << 20, PATTERN_SWEEP, 3), 6 << 20, "sweep 3");
	ASSERT_EQ(plan_range_offset(16 << 20, 2 << 20, PATTERN_SWEEP, 8), 0, "sweep wraps");
	ASSERT_EQ(plan_range_offset(10 << 20, 4 << 20, PATTERN_SWEEP, 2), 0,
		  "sweep skips the partial tail");
	ASSERT_EQ(plan_range_offset(10 << 20, 4 << 20, PATTERN_SWEEP, 1), 4 << 20, "sweep 1");

	ASSERT_EQ(plan_chunks(4096, 64), 64, "4096 pages in 64-page chunks");
	ASSERT_EQ(plan_chunks(4096, 192), 22, "short last chunk");
	ASSERT_EQ(plan_chunks(0, 64), 0, "no pages");
	ASSERT_EQ(bitmap_bytes(1), 8, "bitmaps are arrays of u64");
	ASSERT_EQ(bitmap_bytes(4096), 512, "4096 bits");
	ASSERT_EQ(bitmap_bytes(4097), 520, "4097 bits");

	bitmap_set_range(bm, 60, 10);
	ASSERT_EQ(bm[0], 0xf000000000000000ULL, "word 0");
	ASSERT_EQ(bm[1], 0x3f, "word 1");
	ASSERT_EQ(bitmap_weight(bm, 256), 10, "weight");
	ASSERT_EQ(bitmap_weight(bm, 62), 2, "weight of a prefix");
	ASSERT_EQ(bitmap_weight_range(bm, 64, 64), 6, "weight of word 1");
	ASSERT_EQ(bitmap_weight_range(bm, 61, 5), 5, "weight across words");
	bitmap_set_range(bm, 128, 128);
	ASSERT_EQ(bitmap_weight(bm, 256), 138, "whole words");

	ASSERT_EQ(smaps_sum_kb_bytes(smaps, 0x7f0000200000, 0x7f0001200000, "AnonHugePages"),
		  14336 * 1024LL, "one entry");
	ASSERT_EQ(smaps_sum_kb_bytes(smaps, 0x7f0000000000, 0x7f0001400000, "AnonHugePages"),
		  18432 * 1024LL, "three entries");
	ASSERT_EQ(smaps_sum_kb_bytes(smaps, 0x7f0000200000, 0x7f0001200000, "Private_Hugetlb"), 0,
		  "key present, zero");
	ASSERT_EQ(smaps_sum_kb_bytes(smaps, 0x1000, 0x2000, "AnonHugePages"), -1, "no entry");

	ASSERT_TRUE(thp_enabled_parse("always [madvise] never\n"), "madvise");
	ASSERT_TRUE(thp_enabled_parse("[always] madvise never\n"), "always");
	ASSERT_FALSE(thp_enabled_parse("always madvise [never]\n"), "never");
	ASSERT_FALSE(thp_enabled_parse(""), "empty");
}
