/* threads: the target and the floor of the per-thread sampling benchmark.
 *
 *   threads hold N      starts N-1 threads besides the main one, all asleep,
 *                       prints its PID and waits until killed
 *   threads floor PID   opens /proc/PID/task/TID/schedstat of every thread
 *                       once and preads them all 2000 times: the cost of the
 *                       reads alone (ns per thread-read), which perfhunt's
 *                       per-thread sampling cannot go below
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static double now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hold")) {
		int n = atoi(argv[2]);
		pthread_attr_t a;
		pthread_attr_init(&a);
		pthread_attr_setstacksize(&a, 64 * 1024);
		for (int i = 1; i < n; i++) {
			pthread_t t;
			if (pthread_create(&t, &a, sleeper, NULL) != 0) {
				perror("threads: pthread_create");
				return 1;
			}
		}
		printf("%d\n", (int)getpid());
		fflush(stdout);
		sleeper(NULL);
	}
	if (argc == 3 && !strcmp(argv[1], "floor")) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%s/task", argv[2]);
		DIR *d = opendir(path);
		if (!d)
			return 1;
		int fds[4096], n = 0;
		struct dirent *de;
		while ((de = readdir(d)) && n < 4096) {
			if (de->d_name[0] < '0' || de->d_name[0] > '9')
				continue;
			char p[384];
			snprintf(p, sizeof(p), "%s/%s/schedstat", path, de->d_name);
			int fd = open(p, O_RDONLY);
			if (fd >= 0)
				fds[n++] = fd;
		}
		closedir(d);
		char buf[128];
		double t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		for (int r = 0; r < 2000; r++)
			for (int i = 0; i < n; i++)
				if (pread(fds[i], buf, sizeof(buf), 0) <= 0)
					return 1;
		double t1 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
		printf("%d %.1f\n", n, (t1 - t0) / (2000.0 * n));
		return 0;
	}
	fprintf(stderr, "usage: threads hold N | threads floor PID\n");
	return 2;
}
