// SPDX-License-Identifier: GPL-2.0
/* --pid LIST: process ids, checked against /proc before anything is loaded (pids.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pids.h"

/* The process of this id: 0 if it exists, -ESRCH if not, or the tgid it is a thread of. */
static long tgid_of(__u32 pid)
{
	char path[32], line[128];
	long tgid = -ESRCH;
	FILE *f;

	/* a thread's /proc/TID is there too (not listed, but it opens): ask its Tgid */
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = strtol(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid == (long)pid ? 0 : tgid;
}

int kw_pids_parse(const char *arg, __u32 *pids, __u32 *n, char *err, size_t errlen)
{
	__u32 got[KW_MAX_PIDS], ngot = *n;
	const char *p = arg;

	memcpy(got, pids, ngot * sizeof(*got));
	for (;;) {
		/* "4242,4243", or "4242 4243" as pidof prints them: --pid "$(pidof qemu)" */
		size_t len = strcspn(p, ", ");
		unsigned long long pid = 0;
		bool seen = false;
		long tgid;
		size_t i;

		/* digits only: strtoull would take "-1", " 1" and "+1" */
		for (i = 0; i < len && p[i] >= '0' && p[i] <= '9' && pid <= KW_PID_MAX; i++)
			pid = pid * 10 + (p[i] - '0');
		if (!len) {
			snprintf(err, errlen, "--pid: an empty item in '%.64s'", arg);
			return -EINVAL;
		}
		if (i < len || !pid || pid > KW_PID_MAX) {
			snprintf(err, errlen,
				 "--pid takes process ids from 1 to %d, %s, not '%.*s'", KW_PID_MAX,
				 "comma- or space-separated", (int)(len > 32 ? 32 : len), p);
			return -EINVAL;
		}
		for (i = 0; i < ngot && !seen; i++)
			seen = got[i] == pid;
		if (!seen) {
			tgid = tgid_of(pid);
			if (tgid < 0) {
				snprintf(err, errlen, "--pid %llu: no such process", pid);
				return -EINVAL;
			}
			if (tgid > 0) {
				snprintf(err, errlen,
					 "--pid %llu is a thread of process %ld: give the process, "
					 "whose threads are all recorded",
					 pid, tgid);
				return -EINVAL;
			}
			if (ngot == KW_MAX_PIDS) {
				snprintf(err, errlen, "--pid: at most %d processes", KW_MAX_PIDS);
				return -EINVAL;
			}
			got[ngot++] = pid;
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	memcpy(pids, got, ngot * sizeof(*got));
	*n = ngot;
	return 0;
}
