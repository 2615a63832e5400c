/* gencsv: writes N rows of the seed sampler's headerless CSV (epoch_ms,rss_kb,rss_gib)
 * to stdout, for the `perfhunt peak` benchmark.
 *
 * A seeded random walk around 200 GiB, so the output is the same on every machine
 * and rows are about as long as a real 1 s sampler's (~31 bytes); one spike in the
 * middle of the file is the peak every tool must find.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long long n = argc > 1 ? atoll(argv[1]) : 10000000;
	uint64_t x = 88172645463325252u; /* xorshift64 state */
	long long epoch_ms = 1771368525552, rss_kb = 209715200;
	static char buf[1 << 16];
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	for (long long i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		rss_kb += (long long)(x % 2001) - 1000;
		if (rss_kb < 1048576)
			rss_kb = 1048576;
		long long kb = i == n / 2 ? 268435456 : rss_kb; /* the spike: 256 GiB */
		epoch_ms += 1000 + (long long)(x >> 60);
		printf("%lld,%lld,%.2f\n", epoch_ms, kb, (double)kb / 1048576);
	}
	return fflush(stdout) != 0;
}
