/* latency: reads "tick I NS" lines on stdin, stamps each on arrival with
 * CLOCK_MONOTONIC and prints the delivery delay's median, p90, p99 and max.
 *
 * The writer and this reader share the clock (same machine), so
 * arrival - NS is the time the line spent between the two processes.
 * usage: ticker 1000 10 | [WRAPPER...] latency LABEL
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	static long long lat[1 << 20];
	size_t n = 0, have = 0;
	char buf[65536];
	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf + have, sizeof(buf) - 1 - have);
		if (r <= 0)
			break;
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		long long t = (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
		have += (size_t)r;
		buf[have] = 0;
		char *p = buf, *nl;
		while ((nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			long i;
			long long sent;
			*nl = 0;
			if (sscanf(p, "tick %ld %lld", &i, &sent) == 2 && n < (1 << 20))
				lat[n++] = t - sent;
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
	}
	if (!n) {
		fprintf(stderr, "latency: no lines\n");
		return 1;
	}
	qsort(lat, n, sizeof(lat[0]), cmp);
	printf("%-40s lines %zu  median %.1f us  p90 %.1f us  p99 %.1f us  max %.1f us\n",
	       argc > 1 ? argv[1] : "", n, lat[n / 2] / 1e3, lat[n * 9 / 10] / 1e3, lat[n * 99 / 100] / 1e3,
	       lat[n - 1] / 1e3);
	return 0;
}
