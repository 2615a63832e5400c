/* tree: a process tree of N sleeping processes for the sampler benchmarks.
 *
 * The root forks N-1 children that sleep until the root exits (PDEATHSIG), so
 * a monitor watching the root samples exactly N processes that cost nothing
 * themselves. The root prints "ready" on stdout once every child exists and
 * then sleeps for the given time (or until killed). With MIB, the root first
 * touches MIB MiB, which the children share; "busy" has it drop and re-touch
 * one of those pages every millisecond instead of sleeping, a minor fault
 * each, so that a sampler counting the tree's PSS must read it every sample
 * (the tree memory benchmark, bench/mem/run.py). "work" has every child wake
 * once a second (each at its own phase) and spin 10 us, a lightly working
 * tree: one child in a hundred runs between two 10 ms samples, and 5 000 of
 * them use 5 % of a core (the wide tree benchmark, bench/sampler/wide.py).
 * usage: tree N SECONDS [MIB [rest|busy|work]]
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Until SECS from now: one fault a millisecond in buf's pages. */
static void fault_pages(char *buf, size_t size, double secs)
{
	struct timespec now, end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	double until = (double)end.tv_sec + (double)end.tv_nsec / 1e9 + secs;
	for (size_t off = 0;; off = (off + 4096) % size) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)now.tv_sec + (double)now.tv_nsec / 1e9 >= until)
			return;
		madvise(buf + off, 4096, MADV_DONTNEED);
		buf[off] = 1;
		struct timespec ms = { 0, 1000000L };
		nanosleep(&ms, NULL);
	}
}

static double mono_s(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* A child of a working tree: 10 us of CPU once a second, from its own phase. */
static void work(long i)
{
	struct timespec phase = { 0, (i * 7919 % 1000) * 1000000L };
	nanosleep(&phase, NULL);
	for (;;) {
		double until = mono_s() + 10e-6;
		while (mono_s() < until)
			;
		struct timespec period = { 1, 0 };
		nanosleep(&period, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 5 ||
	    (argc == 5 && strcmp(argv[4], "rest") && strcmp(argv[4], "busy") && strcmp(argv[4], "work"))) {
		fprintf(stderr, "usage: tree N SECONDS [MIB [rest|busy|work]]\n");
		return 2;
	}
	long n = strtol(argv[1], NULL, 10);
	unsigned secs = (unsigned)strtoul(argv[2], NULL, 10);
	size_t size = argc >= 4 ? (size_t)strtoul(argv[3], NULL, 10) << 20 : 0;
	char *buf = NULL;
	if (size) {
		buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("tree: mmap");
			return 1;
		}
		memset(buf, 1, size);
	}
	bool working = argc == 5 && !strcmp(argv[4], "work");
	pid_t root = getpid();
	for (long i = 1; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("tree: fork");
			return 1;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != root)
				_exit(0);
			if (working)
				work(i);
			for (;;)
				pause();
		}
	}
	printf("ready %d\n", (int)root);
	fflush(stdout);
	if (buf && argc == 5 && !strcmp(argv[4], "busy"))
		fault_pages(buf, size, secs);
	else
		sleep(secs);
	return 0;
}
