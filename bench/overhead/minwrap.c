/* minwrap: the least a wrapper can do — fork, exec, wait4 — for comparison.
 *
 * Any tool that runs a command and reports its resource use pays at least
 * this much; perfhunt's wrapper overhead is measured against it.
 * usage: minwrap CMD [ARG...]   (exits with CMD's status)
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: minwrap CMD [ARG...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("minwrap: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		perror("minwrap: exec");
		_exit(127);
	}
	int st;
	struct rusage ru;
	if (wait4(pid, &st, 0, &ru) < 0) {
		perror("minwrap: wait4");
		return 1;
	}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
