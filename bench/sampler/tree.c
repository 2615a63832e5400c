/* tree: a process tree of N sleeping processes for the sampler benchmark.
 *
 * The root forks N-1 children that sleep until the root exits (PDEATHSIG), so
 * a monitor watching the root samples exactly N processes that cost nothing
 * themselves. The root prints "ready" on stdout once every child exists and
 * then sleeps for the given time (or until killed).
 * usage: tree N SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: tree N SECONDS\n");
		return 2;
	}
	long n = strtol(argv[1], NULL, 10);
	unsigned secs = (unsigned)strtoul(argv[2], NULL, 10);
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
			for (;;)
				pause();
		}
	}
	printf("ready %d\n", (int)root);
	fflush(stdout);
	sleep(secs);
	return 0;
}
