/* perfile: CPU cost of one pread of each /proc/PID file a sampler may read.
 *
 * Opens stat, status, io, statm and schedstat of PID once and preads each COUNT times
 * back to back; prints the CPU time per read. It explains the floor: the
 * kernel formats the whole file on every read, whatever the reader needs.
 * usage: perfile PID [COUNT]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: perfile PID [COUNT]\n");
		return 2;
	}
	long count = argc > 2 ? atol(argv[2]) : 20000;
	static const char *const names[] = { "stat", "status", "io", "statm", "schedstat" };
	char path[64], buf[4096];
	for (int i = 0; i < 5; i++) {
		snprintf(path, sizeof(path), "/proc/%s/%s", argv[1], names[i]);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			perror(path);
			return 1;
		}
		struct timespec a, b;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		for (long k = 0; k < count; k++)
			if (pread(fd, buf, sizeof(buf), 0) <= 0)
				return 1;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)count / 1e3;
		printf("%-9s %6.2f us per pread\n", names[i], us);
		close(fd);
	}
	return 0;
}
