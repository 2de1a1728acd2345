/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Time in seconds: the monotonic clock that the loops of record, top and serve and the loader's
 * timers run on, and a number of seconds given as an option. A helper (the bottom layer, below
 * the commands, the views and the recording): plain functions, no other kvmwalk header, so it is
 * unit-tested without a kernel.
 */
#ifndef KW_CLOCK_H
#define KW_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds, and in seconds. */
uint64_t kw_mono_ns(void);
double kw_mono_s(void);
/* CLOCK_REALTIME in seconds since the epoch (a start time for a reader). */
double kw_real_s(void);

/*
 * A number of seconds from min to max (arg is all of it). "inf", "nan" and 1e999 are refused
 * like any value out of range: they would make a recording that never ends. Returns 0 with
 * *secs set, or -EINVAL with *secs unchanged; the caller words the usage error.
 */
int kw_secs_parse(const char *arg, double min, double max, double *secs);

#endif /* KW_CLOCK_H */
