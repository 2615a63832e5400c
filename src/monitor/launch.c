/* launch: fork, gate, exec — with the child's signal state reset for exec. */
#include "monitor/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void launch_close(struct launch_child *c)
{
	close_fd(&c->out_fd);
	close_fd(&c->err_fd);
	close_fd(&c->probe_fd);
	close_fd(&c->gate_fd);
	close_fd(&c->exec_err_fd);
}

int launch_spawn(const struct launch_opts *o, struct launch_child *c, struct err *e)
{
	int gate[2] = { -1, -1 }, xerr[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 },
	    pfd[2] = { -1, -1 };
	c->pid = -1;
	c->out_fd = c->err_fd = c->probe_fd = c->gate_fd = c->exec_err_fd = -1;
	if (pipe2(gate, O_CLOEXEC) < 0 || pipe2(xerr, O_CLOEXEC) < 0)
		goto fail;
	if (o->capture && (pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0))
		goto fail;
	if (o->probe_fd && pipe2(pfd, O_CLOEXEC) < 0)
		goto fail;

	pid_t pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		/* Child: restore what exec'd programs expect, wait at the gate, exec. */
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* perfhunt installs no handlers (signals come through a signalfd) and
		 * ignores only SIGPIPE; what it inherited, the command inherits too */
		signal(SIGPIPE, SIG_DFL);
		if (o->capture) {
			dup2(out[1], STDOUT_FILENO);
			dup2(er[1], STDERR_FILENO);
		}
		if (o->probe_fd) {
			/* dup without CLOEXEC so the command inherits it */
			int fd = fcntl(pfd[1], F_DUPFD, 3);
			char num[16];
			snprintf(num, sizeof(num), "%d", fd);
			setenv("PERFHUNT_FD", num, 1);
		}
		char b;
		close(gate[1]);
		while (read(gate[0], &b, 1) < 0 && errno == EINTR)
			;
		/* exec records this mm's high-water mark into the child's
		 * ru_maxrss: tell the parent how large that image was */
		struct rusage ru;
		uint64_t image_kb = getrusage(RUSAGE_SELF, &ru) == 0 ? (uint64_t)ru.ru_maxrss : 0;
		ssize_t wi = write(xerr[1], &image_kb, sizeof(image_kb));
		(void)wi;
		if (o->shell) {
			char *const sh[] = { "sh", "-c", o->argv[0], NULL };
			execv("/bin/sh", sh);
		} else {
			execvp(o->argv[0], o->argv);
		}
		int err = errno;
		ssize_t w = write(xerr[1], &err, sizeof(err));
		(void)w;
		_exit(127);
	}
	close(gate[0]);
	close(xerr[1]);
	if (o->capture) {
		close(out[1]);
		close(er[1]);
		c->out_fd = out[0];
		c->err_fd = er[0];
	}
	if (o->probe_fd) {
		close(pfd[1]);
		c->probe_fd = pfd[0];
	}
	c->pid = pid;
	c->gate_fd = gate[1];
	c->exec_err_fd = xerr[0];
	return 0;
fail:
	err_sys(e, "cannot start the command");
	int *fds[] = { gate, xerr, out, er, pfd };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		close_fd(&fds[i][0]);
		close_fd(&fds[i][1]);
	}
	return -1;
}

/* Reads exactly n bytes unless EOF comes first; returns the count read. */
static size_t read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int launch_release(struct launch_child *c)
{
	close_fd(&c->gate_fd);
	uint64_t image_kb = 0;
	int err = 0;
	c->image_kb = read_full(c->exec_err_fd, &image_kb, sizeof(image_kb)) == sizeof(image_kb) ? image_kb : 0;
	size_t r = read_full(c->exec_err_fd, &err, sizeof(err));
	close_fd(&c->exec_err_fd);
	return r == sizeof(err) ? err : 0;
}
