/* probe_demo: a small program instrumented with <perfhunt/probe.h>.
 *
 * It marks phases through $PERFHUNT_FD (setup, alloc holding MIB MiB, two
 * kernels on lanes gpu_tid=0 and gpu_tid=1) and also prints after-the-fact
 * duration probes on stderr the way the proving engine does, so end-to-end
 * tests see both channels. Usage: probe_demo [MIB [MS]] (defaults 8 and 20).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <perfhunt/probe.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long mib = argc > 1 ? atol(argv[1]) : 8;
	long ms = argc > 2 ? atol(argv[2]) : 20;
	if (mib < 0 || ms < 0) {
		fputs("usage: probe_demo [MIB [MS]]\n", stderr);
		return 2;
	}

	ph_begin("setup");
	sleep_ms(ms);
	ph_end("setup");

	ph_begin("alloc");
	size_t n = (size_t)mib << 20;
	char *p = n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : NULL;
	if (p == MAP_FAILED) {
		perror("probe_demo: mmap");
		return 3;
	}
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	ph_value("alloc_mib", (double)mib);
	sleep_ms(ms);
	if (p)
		munmap(p, n);
	ph_end("alloc");

	for (long lane = 0; lane < 2; lane++) {
		double t0 = now_ms();
		ph_begin_lane("kernel", "gpu_tid", lane);
		sleep_ms(ms);
		ph_end_lane("kernel", "gpu_tid", lane);
		fprintf(stderr, "CUZK_TIMING: gpu_tid=%ld kernel_wall_ms=%.0f num_circuits=10\n",
			lane, now_ms() - t0);
	}
	printf("probe_demo: done\n");
	return 0;
}
