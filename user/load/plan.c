// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load's arithmetic: ranges, chunks, dirty bitmaps and /proc parsers (unit-tested). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"

/*
 * Offset of the range invalidated in iteration @iter (0-based) of @total bytes: always 0 for
 * "same"; for "sweep" consecutive ranges, wrapping after the last whole range.
 */
uint64_t plan_range_offset(uint64_t total, uint64_t range, int pattern, unsigned int iter)
{
	uint64_t n;

	if (pattern != PATTERN_SWEEP || !range || range > total)
		return 0;
	n = total / range;
	return (iter % n) * range;
}

/* KVM_CLEAR_DIRTY_LOG calls needed for @pages pages in chunks of @chunk_pages (last one short). */
uint64_t plan_chunks(uint64_t pages, uint64_t chunk_pages)
{
	return chunk_pages ? (pages + chunk_pages - 1) / chunk_pages : 0;
}

/* KVM's dirty bitmaps are arrays of longs: a slot's bitmap is rounded up to 64 bits. */
uint64_t bitmap_bytes(uint64_t pages)
{
	return (pages + 63) / 64 * 8;
}

uint64_t bitmap_weight_range(const uint64_t *bm, uint64_t start, uint64_t n)
{
	uint64_t w = 0, i = start, end = start + n;

	while (i < end && (i & 63))
		w += (bm[i / 64] >> (i & 63)) & 1, i++;
	for (; i + 64 <= end; i += 64)
		w += __builtin_popcountll(bm[i / 64]);
	for (; i < end; i++)
		w += (bm[i / 64] >> (i & 63)) & 1;
	return w;
}

uint64_t bitmap_weight(const uint64_t *bm, uint64_t nbits)
{
	return bitmap_weight_range(bm, 0, nbits);
}

void bitmap_set_range(uint64_t *bm, uint64_t start, uint64_t n)
{
	uint64_t i;

	for (i = start; i < start + n; i++)
		bm[i / 64] |= 1ULL << (i & 63);
}

/*
 * /proc/self/smaps: "start-end perms ..." header lines, then "Key:   N kB" lines. Sums @key
 * over the entries that overlap [start, end).
 */
long long smaps_sum_kb_bytes(const char *smaps, uint64_t start, uint64_t end, const char *key)
{
	size_t klen = strlen(key);
	const char *line = smaps;
	long long sum = 0;
	bool in = false, any = false;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		unsigned long long a, b;
		char *e;

		a = strtoull(line, &e, 16);
		if (e != line && *e == '-') {
			b = strtoull(e + 1, &e, 16);
			if (*e == ' ') {
				in = a < end && b > start;
				any |= in;
			}
		} else if (in && !strncmp(line, key, klen) && line[klen] == ':') {
			sum += strtoll(line + klen + 1, NULL, 10) * 1024;
		}
		line = nl ? nl + 1 : NULL;
	}
	return any ? sum : -1;
}

bool thp_enabled_parse(const char *text)
{
	return text && strchr(text, '[') && !strstr(text, "[never]");
}
