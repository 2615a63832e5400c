/* phgen: prints probe lines whose phases take the shapes that stress a
 * renderer, for perfhunt's scale test and benchmark (bench/scale/).
 *
 *   phgen SHAPE N [--names K] [--lanes L]
 *
 * Shapes, each N phases:
 *   instant   begin=mark, step_ms=1, end=mark through one stdio buffer: the
 *             lines arrive in a few chunks, hundreds of phases at one instant
 *   nested    N duration probes, each enclosing the ones printed before it
 *   flat      N phases one after another (each line written alone, ~20 µs apart)
 *   burst     N overlapping requests of one name (each ~1 ms, started ~20 µs
 *             apart): a daemon's concurrent work, neither nested nor disjoint
 * --names K cycles the phase names through K names (default 1: one name);
 * --lanes L adds worker=I%L to each line. Output goes to stdout, which the
 * test pipes: the buffering is the real one of a program writing to a pipe.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void spin_us(long us)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* " worker=I" for line i with lanes lanes, "" without. */
static const char *lane(long i, long lanes, char *buf, size_t n)
{
	if (lanes <= 0)
		return "";
	snprintf(buf, n, " worker=%ld", i % lanes);
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: phgen instant|nested|flat|burst N [--names K] [--lanes L]\n");
		return 2;
	}
	const char *shape = argv[1];
	long n = atol(argv[2]), names = 1, lanes = 0;
	for (int i = 3; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--names"))
			names = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--lanes"))
			lanes = atol(argv[i + 1]);
	}
	if (n < 0 || names < 1) {
		fprintf(stderr, "phgen: bad N or --names\n");
		return 2;
	}
	char l[40];
	if (!strcmp(shape, "instant")) {
		for (long i = 0; i < n / 2; i++)
			printf("PERFHUNT: begin=mark%ld%s\nPERFHUNT: step%ld_ms=1%s\nPERFHUNT: end=mark%ld%s\n",
			       i % names, lane(i, lanes, l, sizeof(l)), i % names, lane(i, lanes, l, sizeof(l)),
			       i % names, lane(i, lanes, l, sizeof(l)));
	} else if (!strcmp(shape, "nested")) {
		/* line i ends now and lasts (i + 1) * 50 µs: it holds every line
		 * before it as long as lines arrive less than 50 µs apart, which a
		 * buffered burst of lines does; the run's start is N * 50 µs back */
		usleep((useconds_t)(n * 50 + 20000));
		for (long i = 0; i < n; i++)
			printf("PERFHUNT: nest%ld_us=%ld%s\n", i % names, (i + 1) * 50, lane(i, lanes, l, sizeof(l)));
	} else if (!strcmp(shape, "flat") || !strcmp(shape, "burst")) {
		bool burst = !strcmp(shape, "burst");
		setvbuf(stdout, NULL, _IOLBF, 0);
		usleep(2000);
		for (long i = 0; i < n; i++) {
			printf("PERFHUNT: %s%ld_us=%d%s\n", burst ? "req" : "step", i % names, burst ? 1000 : 10,
			       lane(i, lanes, l, sizeof(l)));
			spin_us(20);
		}
	} else {
		fprintf(stderr, "phgen: unknown shape '%s'\n", shape);
		return 2;
	}
	return fflush(stdout) ? 1 : 0;
}
