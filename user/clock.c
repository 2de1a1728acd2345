// SPDX-License-Identifier: GPL-2.0
/* Time in seconds: the monotonic clock and seconds given as an option (clock.h). A helper. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"

uint64_t kw_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

double kw_mono_s(void)
{
	return kw_mono_ns() / 1e9;
}

double kw_real_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int kw_secs_parse(const char *arg, double min, double max, double *secs)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || !(v >= min && v <= max))
		return -EINVAL;
	*secs = v;
	return 0;
}
