/* clock: monotonic time for measuring, epoch time for labels. */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

int64_t clock_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t clock_epoch_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t clock_self_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_format_rfc3339(int64_t epoch_ms, char *buf, size_t n)
{
	/* floored, so a clock before 1970 reads 23:59:50.973, not 23:59:51.-27 */
	int ms = (int)(epoch_ms % 1000);
	if (ms < 0)
		ms += 1000;
	time_t secs = (time_t)((epoch_ms - ms) / 1000);
	struct tm tm;
	if (!gmtime_r(&secs, &tm)) { /* a year past what struct tm holds */
		snprintf(buf, n, "%s", "invalid-time");
		return;
	}
	snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
}
