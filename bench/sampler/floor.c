/* floor: the cheapest possible sampler of a process tree, for comparison.
 *
 * It opens the given files (default stat,status,statm,io: the text floor of
 * a sampler that reads everything every sample) of every process in the tree
 * under ROOT once and then only preads them, paced
 * by an absolute-time sleep at the interval, without parsing anything. The
 * CPU time of the sampling loop alone (CLOCK_PROCESS_CPUTIME_ID, no start-up)
 * divided by samples x processes is the floor a real sampler is held to.
 * usage: floor ROOT INTERVAL_MS SECONDS [FILE,FILE...]   (INTERVAL_MS 0: back-to-back)
 * prints: procs samples cpu_ns ns_per_process_sample
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { MAXF = 8 };
static int fds[MAXF * 8192];
static int nprocs, nfiles;
static char *names[MAXF];

static int64_t ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Depth-first over task/PID/children (the tree's processes are single-threaded). */
static void add(int pid)
{
	char path[64];
	if (nprocs >= 8192)
		return;
	for (int i = 0; i < nfiles; i++) {
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, names[i]);
		fds[nfiles * nprocs + i] = open(path, O_RDONLY | O_CLOEXEC);
		if (fds[nfiles * nprocs + i] < 0) {
			perror(path);
			exit(1);
		}
	}
	nprocs++;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", pid, pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	int child;
	int kids[8192], nk = 0;
	while (nk < 8192 && fscanf(f, "%d", &child) == 1)
		kids[nk++] = child;
	fclose(f);
	for (int k = 0; k < nk; k++)
		add(kids[k]);
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: floor ROOT INTERVAL_MS SECONDS [FILE,FILE...]\n");
		return 2;
	}
	char list[256] = "stat,status,statm,io";
	if (argc == 5)
		snprintf(list, sizeof(list), "%s", argv[4]);
	for (char *tok = strtok(list, ","); tok && nfiles < MAXF; tok = strtok(NULL, ","))
		names[nfiles++] = tok;
	add(atoi(argv[1]));
	int64_t interval_ns = (int64_t)atol(argv[2]) * 1000000;
	int64_t dur_ns = (int64_t)(atof(argv[3]) * 1e9);
	char buf[4096];
	volatile size_t sink = 0;
	int64_t cpu0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	int64_t t0 = ns(CLOCK_MONOTONIC), next = t0;
	long samples = 0;
	while (ns(CLOCK_MONOTONIC) - t0 < dur_ns) {
		for (int i = 0; i < nfiles * nprocs; i++)
			sink += (size_t)pread(fds[i], buf, sizeof(buf) - 1, 0);
		samples++;
		if (interval_ns) {
			next += interval_ns;
			struct timespec ts = { next / 1000000000, next % 1000000000 };
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		}
	}
	int64_t cpu = ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	printf("%d %ld %lld %.1f\n", nprocs, samples, (long long)cpu, (double)cpu / (double)samples / nprocs);
	return 0;
}
