/* spike: a short memory spike between two quiet stretches, for peak accuracy.
 *
 * Sleeps BEFORE_MS, maps MIB MiB with MADV_HUGEPAGE and fills it at once with
 * MADV_POPULATE_WRITE (1 GiB in ~0.2 s instead of ~3 s of 4 KiB first-touch
 * faults; the spike should rise about as fast as it falls), touches every
 * page, holds it HOLD_MS, unmaps it, sleeps AFTER_MS. Prints on stderr how
 * many KiB were resident at the top (VmRSS read while holding: the truth the
 * monitors are held to) and how long the rise took.
 * usage: spike MIB HOLD_MS BEFORE_MS AFTER_MS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static long vmrss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = atol(line + 6);
	fclose(f);
	return kb;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: spike MIB HOLD_MS BEFORE_MS AFTER_MS\n");
		return 2;
	}
	size_t n = (size_t)atol(argv[1]) << 20;
	sleep_ms(atol(argv[3]));
	double t0 = mono_s();
	char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("spike: mmap");
		return 1;
	}
	madvise(p, n, MADV_HUGEPAGE);
	madvise(p, n, MADV_POPULATE_WRITE); /* may fail on old kernels: the loop below still touches */
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	long top_kb = vmrss_kb();
	double rise_s = mono_s() - t0;
	sleep_ms(atol(argv[2]));
	munmap(p, n);
	sleep_ms(atol(argv[4]));
	fprintf(stderr, "spike: resident at the top %ld KiB (allocated %zu KiB), rise %.3f s\n", top_kb,
		n >> 10, rise_s);
	return 0;
}
