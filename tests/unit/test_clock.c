// SPDX-License-Identifier: GPL-2.0
/* Seconds given as an option (record -d and --interval, top -i): bounds, and what is no number. */
#include <errno.h>

#include "clock.h"
#include "test.h"

static void expect_bad(const char *arg, double min, double max)
{
	double v = 7;

	ASSERT_EQ(kw_secs_parse(arg, min, max, &v), -EINVAL, arg);
	ASSERT_EQ(v, 7, "unchanged on error");
}

void test_clock(void)
{
	double v = 0;
	uint64_t t0, t1;

	ASSERT_EQ(kw_secs_parse("10", 0.001, 31 * 86400, &v), 0, "10");
	ASSERT_EQ(v, 10, "10");
	ASSERT_EQ(kw_secs_parse("0.5", 0.01, 86400, &v), 0, "0.5");
	ASSERT_EQ(v, 0.5, "0.5");
	/* both bounds are allowed */
	ASSERT_EQ(kw_secs_parse("0.01", 0.01, 86400, &v), 0, "min");
	ASSERT_EQ(kw_secs_parse("86400", 0.01, 86400, &v), 0, "max");
	ASSERT_EQ(kw_secs_parse("1e3", 0.01, 86400, &v), 0, "1e3");
	ASSERT_EQ(v, 1000, "1e3");

	expect_bad("0", 0.001, 86400);
	expect_bad("0.009", 0.01, 86400);
	expect_bad("86400.5", 0.01, 86400);
	expect_bad("-1", 0.001, 86400);
	/* a recording that would never end */
	expect_bad("inf", 0.001, 86400);
	expect_bad("nan", 0.001, 86400);
	expect_bad("1e999", 0.001, 86400);
	/* no number, or more than one */
	expect_bad("", 0.001, 86400);
	expect_bad("x", 0.001, 86400);
	expect_bad("1s", 0.001, 86400);
	expect_bad("1 ", 0.001, 86400);

	t0 = kw_mono_ns();
	t1 = kw_mono_ns();
	ASSERT_TRUE(t1 >= t0, "monotonic");
	ASSERT_NEAR(kw_mono_s(), t1 / 1e9, 1, "seconds and nanoseconds of one clock");
}
