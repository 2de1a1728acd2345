// SPDX-License-Identifier: GPL-2.0
/*
 * The process_* figures: /proc/PID/stat parsed whatever the command name holds, in the units the
 * Prometheus conventions ask for (seconds, bytes, Unix time), and this process's own read.
 */
#include <errno.h>
#include <time.h>

#include "procself.h"
#include "test.h"

void test_procself(void)
{
	/*
	 * A command name with spaces and a ')' of its own; utime 150, stime 50 ticks, started 1234
	 * ticks after boot, 2 MiB of address space, 300 pages resident.
	 */
	static const char stat[] =
		"4242 (kvm walk) (x)) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 3 0 "
		"1234 2097152 300 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	struct kw_procself p = {};
	double now = (double)time(NULL);

	if (!ASSERT_EQ(kw_procself_parse_stat(stat, 100, 4096, 1700000000, &p), 0, "parse"))
		return;
	ASSERT_NEAR(p.cpu_seconds, 2.0, 1e-9, "utime + stime, in seconds");
	ASSERT_NEAR(p.start_time, 1700000012.34, 1e-6, "boot time + starttime");
	ASSERT_EQ(p.virtual_bytes, 2097152, "vsize is in bytes");
	ASSERT_EQ(p.resident_bytes, 300 * 4096, "rss is in pages");
	ASSERT_EQ(kw_procself_parse_stat("4242 (no closing paren S 1", 100, 4096, 0, &p), -EINVAL,
		  "no ')'");
	ASSERT_EQ(kw_procself_parse_stat("4242 (short) S 1 2 3", 100, 4096, 0, &p), -EINVAL,
		  "too few fields");
	ASSERT_EQ(kw_procself_parse_stat(stat, 0, 4096, 0, &p), -EINVAL, "no clock ticks");

	/* this very process */
	p = (struct kw_procself){};
	if (!ASSERT_EQ(kw_procself_read(&p), 0, "read /proc/self"))
		return;
	ASSERT_TRUE(p.open_fds >= 3 && p.open_fds <= p.max_fds, "stdin, stdout, stderr at least");
	ASSERT_TRUE(p.resident_bytes > 0 && p.virtual_bytes >= p.resident_bytes, "memory");
	ASSERT_TRUE(p.start_time > now - 3600 && p.start_time <= now + 1, "started just now");
	ASSERT_TRUE(p.cpu_seconds >= 0, "cpu");
}
