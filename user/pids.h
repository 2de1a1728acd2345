/* SPDX-License-Identifier: GPL-2.0 */
/* --pid LIST of record, top and serve: process ids, each one that exists now. */
#ifndef KW_PIDS_H
#define KW_PIDS_H

#include <stddef.h>

#include <linux/types.h>

#include "kvmwalk_abi.h"

/* PID_MAX_LIMIT: no process id is larger */
#define KW_PID_MAX 4194304

/*
 * Adds the process ids of arg ("1234", "1234,5678" as perf record -p, or "1234 5678" as pidof
 * prints them: one space between two ids) to pids[*n], at most
 * KW_MAX_PIDS in all; a pid given twice is kept once. Each must be a number from 1 to
 * KW_PID_MAX and a process that exists (/proc/PID), not one of its threads: the filter is by
 * process (tgid). Returns 0, or -EINVAL with a one-line message naming the bad item in err;
 * pids and *n are unchanged then.
 */
int kw_pids_parse(const char *arg, __u32 *pids, __u32 *n, char *err, size_t errlen);

#endif /* KW_PIDS_H */
