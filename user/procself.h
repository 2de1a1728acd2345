/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exporter's own process, for the process_* families every Prometheus client library serves
 * (process_cpu_seconds_total, process_resident_memory_bytes, ...), read from /proc/self. A helper:
 * plain C, no other kvmwalk header; the parsing is a pure function the unit tests feed.
 */
#ifndef KW_PROCSELF_H
#define KW_PROCSELF_H

#include <stdint.h>

struct kw_procself {
	double cpu_seconds; /* utime + stime */
	double start_time;  /* Unix time the process started */
	uint64_t resident_bytes;
	uint64_t virtual_bytes;
	uint64_t open_fds;
	uint64_t max_fds; /* RLIMIT_NOFILE's soft limit */
};

/*
 * Fills p's CPU, memory and start time from the text of /proc/PID/stat (its command name may hold
 * spaces and parentheses: the fields are counted from the last ')'), the clock ticks per second,
 * the page size and the boot time (/proc/stat btime). Returns 0 or -EINVAL.
 */
int kw_procself_parse_stat(const char *stat, long ticks, long page, double btime,
			   struct kw_procself *p);

/* Reads all of p for this process. Returns 0 or -errno (p then partly filled). */
int kw_procself_read(struct kw_procself *p);

#endif /* KW_PROCSELF_H */
