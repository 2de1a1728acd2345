// SPDX-License-Identifier: GPL-2.0
/* --pid LIST (record, top, serve): syntax, bounds, duplicates, processes that do not exist. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "pids.h"

static pthread_mutex_t hold = PTHREAD_MUTEX_INITIALIZER;
static volatile pid_t thread_tid;

static void *thread_fn(void *arg)
{
	thread_tid = gettid();
	pthread_mutex_lock(&hold); /* until the test is done with our tid */
	pthread_mutex_unlock(&hold);
	return NULL;
}

static void expect_bad(const char *arg, const char *msg)
{
	__u32 pids[KW_MAX_PIDS] = { 7 }, n = 1;
	char err[160] = "";

	ASSERT_EQ(kw_pids_parse(arg, pids, &n, err, sizeof(err)), -EINVAL, arg);
	ASSERT_TRUE(strstr(err, msg), err);
	ASSERT_EQ(n, 1, "unchanged on error");
	ASSERT_EQ(pids[0], 7, "unchanged on error");
}

void test_pids(void)
{
	__u32 pids[KW_MAX_PIDS], n = 0, me = getpid(), parent = getppid();
	char arg[64], err[160] = "";
	unsigned long pid_max = 0;
	pthread_t th;
	FILE *f;

	snprintf(arg, sizeof(arg), "%u", me);
	if (!ASSERT_EQ(kw_pids_parse(arg, pids, &n, err, sizeof(err)), 0, err))
		return;
	ASSERT_EQ(n, 1, "one pid");
	ASSERT_EQ(pids[0], me, "our pid");
	/* a list, a pid given twice (here and in the earlier --pid) kept once */
	snprintf(arg, sizeof(arg), "%u,%u,%u", parent, me, parent);
	ASSERT_EQ(kw_pids_parse(arg, pids, &n, err, sizeof(err)), 0, err);
	ASSERT_EQ(n, 2, "duplicates merged, across --pid options too");
	ASSERT_EQ(pids[1], parent, "in the order given");
	/* as pidof prints them: --pid "$(pidof qemu-system-x86_64)" */
	n = 0;
	snprintf(arg, sizeof(arg), "%u %u", parent, me);
	ASSERT_EQ(kw_pids_parse(arg, pids, &n, err, sizeof(err)), 0, err);
	ASSERT_EQ(n, 2, "space-separated, as pidof prints them");

	expect_bad("0", "not '0'");
	expect_bad("-1", "not '-1'");
	expect_bad("+1", "not '+1'");
	expect_bad(" 1", "an empty item in ' 1'");
	expect_bad("1 ", "an empty item in '1 '");
	expect_bad("1  1", "an empty item in '1  1'");
	expect_bad("1,notapid", "from 1 to 4194304, comma- or space-separated, not 'notapid'");
	expect_bad("4194305", "not '4194305'");
	expect_bad("99999999999999999999", "not '99999999999999999999'");
	expect_bad("0x10", "not '0x10'");
	expect_bad("", "an empty item in ''");
	expect_bad("1,", "an empty item in '1,'");
	expect_bad("1,,1", "an empty item in '1,,1'");
	/* pid_max itself is never given out */
	f = fopen("/proc/sys/kernel/pid_max", "r");
	if (f && fscanf(f, "%lu", &pid_max) == 1 && pid_max <= KW_PID_MAX) {
		snprintf(arg, sizeof(arg), "1,%lu", pid_max);
		snprintf(err, sizeof(err), "--pid %lu: no such process", pid_max);
		expect_bad(arg, err);
	}
	if (f)
		fclose(f);

	/* a thread's /proc/TID opens too, but the filter is by process */
	pthread_mutex_lock(&hold);
	if (ASSERT_EQ(pthread_create(&th, NULL, thread_fn, NULL), 0, "thread")) {
		while (!thread_tid)
			usleep(1000);
		snprintf(arg, sizeof(arg), "%d", (int)thread_tid);
		snprintf(err, sizeof(err), "is a thread of process %u", me);
		expect_bad(arg, err);
		pthread_mutex_unlock(&hold);
		pthread_join(th, NULL);
	} else {
		pthread_mutex_unlock(&hold);
	}

	/* at most KW_MAX_PIDS; one already there is still fine */
	for (n = 0; n < KW_MAX_PIDS; n++)
		pids[n] = 1000000 + n;
	snprintf(arg, sizeof(arg), "%u", me);
	ASSERT_EQ(kw_pids_parse(arg, pids, &n, err, sizeof(err)), -EINVAL, "65th process");
	ASSERT_TRUE(strstr(err, "at most 64 processes"), err);
	ASSERT_EQ(kw_pids_parse("1000063,1000000", pids, &n, err, sizeof(err)), 0, "known ones");
	ASSERT_EQ(n, KW_MAX_PIDS, "still 64");
}
