// SPDX-License-Identifier: GPL-2.0
/*
 * user/fmt.c: one format per unit. A time in ns/us/ms/s, a count with thousands separators and
 * decimal prefixes, a size with binary prefixes; each at most 7 characters in a column.
 */
#include "fmt.h"
#include "test.h"

static void is(double v, enum kw_unit u, const char *want)
{
	char b[32];

	kw_fmt(b, sizeof(b), v, u);
	if (ASSERT_STREQ(b, want, want) && v >= 0)
		ASSERT_TRUE(strlen(b) <= 7, want);
}

static void tick(double v, enum kw_unit u, const char *want)
{
	char b[32];

	kw_fmt_tick(b, sizeof(b), v, u);
	ASSERT_STREQ(b, want, want);
}

static void exact(double v, const char *want)
{
	char b[48];

	kw_fmt_count_exact(b, sizeof(b), v);
	ASSERT_STREQ(b, want, want);
}

void test_fmt(void)
{
	char b[32];

	/* times */
	is(950, KW_UNIT_NS, "950ns");
	is(12345, KW_UNIT_NS, "12.3us");
	is(1.72403586e10, KW_UNIT_NS, "17.2s");

	/* counts: exact with separators below a million, then a decimal prefix */
	is(0, KW_UNIT_COUNT, "0");
	is(1, KW_UNIT_COUNT, "1");
	is(4096, KW_UNIT_COUNT, "4,096");
	is(524290, KW_UNIT_COUNT, "524,290");
	is(999999, KW_UNIT_COUNT, "999,999");
	is(1048576, KW_UNIT_COUNT, "1.05M");
	is(17.24e9, KW_UNIT_COUNT, "17.2G");
	is(137.4e9, KW_UNIT_COUNT, "137G");
	is(999.6e6, KW_UNIT_COUNT, "1.00G");
	is(-2048, KW_UNIT_COUNT, "-2,048");
	/* a count per something: 3 significant digits, never 0.00 for what is not 0 */
	is(0.5, KW_UNIT_COUNT, "0.50");
	is(12.26, KW_UNIT_COUNT, "12.3");
	is(262143.5, KW_UNIT_COUNT, "262,144");
	is(0.001, KW_UNIT_COUNT, "<0.01");

	/* sizes: binary prefixes only, the unit from the rounded value */
	is(512, KW_UNIT_BYTES, "512B");
	is(4352, KW_UNIT_BYTES, "4.25KiB");
	is(2097152, KW_UNIT_BYTES, "2.00MiB");
	is(1073741824, KW_UNIT_BYTES, "1.00GiB");
	is(564049465049088, KW_UNIT_BYTES, "513TiB");
	is(1048575, KW_UNIT_BYTES, "1.00MiB");

	/* axis ticks: round values without trailing zeros */
	tick(2500, KW_UNIT_COUNT, "2,500");
	tick(2.5, KW_UNIT_COUNT, "2.5");
	tick(0.5, KW_UNIT_COUNT, "0.5");
	tick(1e6, KW_UNIT_COUNT, "1M");
	tick(1e6, KW_UNIT_NS, "1ms");
	tick(1e5, KW_UNIT_NS, "100us");
	tick(1.5e9, KW_UNIT_NS, "1.5s");
	tick(1073741824, KW_UNIT_BYTES, "1GiB");

	/* seconds for machines: Prometheus */
	ASSERT_STREQ(kw_fmt_seconds_exact(b, sizeof(b), 1023), "0.000001023", "exact seconds");
	ASSERT_STREQ(kw_fmt_seconds_exact(b, sizeof(b), 2000000000), "2", "whole seconds");

	/* a count in full: the lines of compare's sections */
	exact(262144, "262,144");
	exact(262143.5, "262,143.50");
	exact(1048576, "1,048,576");
	exact(0, "0");
	exact(-1500, "-1,500");
}
