// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/self for the process_* families. serve reads it at every refresh, after dropping its
 * privileges: a process may read its own /proc/self/stat and list its own /proc/self/fd whatever
 * its uid (the fd folder's permission check lets the same thread group in, and a task may ptrace-
 * read itself), so switching to --user loses none of them.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "procself.h"

int kw_procself_parse_stat(const char *stat, long ticks, long page, double btime,
			   struct kw_procself *p)
{
	unsigned long long utime, stime, start, vsize, rss;
	const char *s = strrchr(stat, ')');

	if (!s || ticks <= 0 || page <= 0)
		return -EINVAL;
	/* fields 3 (state) to 24 (rss) of proc(5): utime 14, stime 15, starttime 22, vsize 23 */
	if (sscanf(s + 1,
		   " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d "
		   "%llu %llu %llu",
		   &utime, &stime, &start, &vsize, &rss) != 5)
		return -EINVAL;
	p->cpu_seconds = (double)(utime + stime) / ticks;
	p->start_time = btime + (double)start / ticks;
	p->virtual_bytes = vsize;
	p->resident_bytes = rss * (unsigned long long)page;
	return 0;
}

static double boot_time(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];
	double t = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lf", &t) == 1)
			break;
	fclose(f);
	return t;
}

/* Entries of /proc/self/fd but the one the listing itself holds open. */
static int count_fds(uint64_t *n)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	uint64_t k = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			k++;
	closedir(d);
	*n = k;
	return 0;
}

int kw_procself_read(struct kw_procself *p)
{
	char buf[1024];
	struct rlimit rl;
	FILE *f;
	size_t n;
	int err;

	f = fopen("/proc/self/stat", "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if ((err = kw_procself_parse_stat(buf, sysconf(_SC_CLK_TCK), sysconf(_SC_PAGESIZE),
					  boot_time(), p)))
		return err;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		p->max_fds = rl.rlim_cur;
	return count_fds(&p->open_fds);
}
