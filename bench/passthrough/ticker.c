/* ticker: writes a line with its CLOCK_MONOTONIC time every PERIOD_MS.
 *
 * One write(2) per line, no stdio buffering, so a line leaves the process
 * the moment it is stamped; a reader downstream measures the delivery delay.
 * usage: ticker COUNT PERIOD_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: ticker COUNT PERIOD_MS\n");
		return 2;
	}
	long count = atol(argv[1]);
	long period_ns = atol(argv[2]) * 1000000L;
	struct timespec next;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long i = 0; i < count; i++) {
		struct timespec now;
		char line[64];
		clock_gettime(CLOCK_MONOTONIC, &now);
		int n = snprintf(line, sizeof(line), "tick %ld %lld\n", i,
				 (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
		if (write(STDOUT_FILENO, line, (size_t)n) != n)
			return 1;
		next.tv_nsec += period_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
