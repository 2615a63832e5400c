/* launch: fork, gate, exec — or vfork and exec — with the child's signal
 * state reset for exec.
 *
 * Both children run the same steps before exec, and none of them allocates
 * or touches libc state: the environment with $PERFHUNT_FD is built by the
 * parent, so the vfork child, which shares perfhunt's memory until exec, can
 * run them too. */
#include "monitor/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/clock.h"

extern char **environ;

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
	close_fd(&c->ack_fd);
	close_fd(&c->gate_fd);
	close_fd(&c->exec_err_fd);
}

/* The pipes of one spawn: [0] read end, [1] write end; probe_at and
 * ack_at, the numbers the command finds the probe pipe's write end and the
 * acknowledgement pipe's read end at. */
struct launch_pipes {
	int gate[2], xerr[2], out[2], err[2], probe[2], ack[2];
	int probe_at, ack_at;
};

/* Where the command finds $PERFHUNT_FD, then $PERFHUNT_ACK_FD: the lowest of
 * 3..9 (but taken) that the command would not otherwise inherit (closed
 * here, or close-on-exec) and that the child does not write to before exec
 * (the exec report, the cgroup join), because dash and other shells read
 * only one digit in ">&N" ("Bad fd number" for 17). own when all are taken. */
static int probe_at(const struct launch_pipes *p, int join_fd, int taken, int own)
{
	for (int fd = 3; fd <= 9; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if ((fl >= 0 && !(fl & FD_CLOEXEC)) || fd == p->xerr[1] || fd == join_fd || fd == taken)
			continue;
		return fd;
	}
	return own;
}

/* A pipe end the child moves into 3..9, first put above 9: no number chosen
 * there can then be the other end the child still has to move. */
static int above_nine(int fd)
{
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	if (hi < 0)
		return fd;
	close(fd);
	return hi;
}

/* Whether env entry e sets a variable that one of extra sets too. */
static bool overridden(const char *e, char *const *extra)
{
	size_t len = strcspn(e, "=");
	for (; extra && *extra; extra++)
		if (!strncmp(*extra, e, len) && (*extra)[len] == '=')
			return true;
	return false;
}

/* The environment of the command: perfhunt's, with PERFHUNT_FD and
 * PERFHUNT_ACK_FD (with probe_fd) and the extra variables. Only the pointer
 * array is allocated; it points into environ, buf and o->extra_env. */
static char **child_env(const struct launch_opts *o, const struct launch_pipes *p, char (*buf)[32])
{
	size_t count = 0, extra = 0;
	while (environ[count])
		count++;
	while (o->extra_env && o->extra_env[extra])
		extra++;
	char **env = malloc((count + extra + 3) * sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < count; i++) {
		if (o->probe_fd && (!strncmp(environ[i], "PERFHUNT_FD=", 12) ||
				    !strncmp(environ[i], "PERFHUNT_ACK_FD=", 16)))
			continue;
		if (!overridden(environ[i], o->extra_env))
			env[k++] = environ[i];
	}
	for (size_t i = 0; i < extra; i++)
		env[k++] = o->extra_env[i];
	if (o->probe_fd) {
		snprintf(buf[0], sizeof(buf[0]), "PERFHUNT_FD=%d", p->probe_at);
		snprintf(buf[1], sizeof(buf[1]), "PERFHUNT_ACK_FD=%d", p->ack_at);
		env[k++] = buf[0];
		env[k++] = buf[1];
	}
	env[k] = NULL;
	return env;
}

/* What the child tells the parent just before exec. */
struct launch_pre {
	uint64_t image_kb;
	int64_t exec_mono_ns; /* CLOCK_MONOTONIC */
	int32_t join_errno;
};

/* The child's last steps: default signal state, the pipes, the cgroup
 * (join_fd: its cgroup.procs, the child writes itself in), exec. Only system
 * calls: it may be a vfork child. Never returns. */
static void __attribute__((noreturn)) child_exec(const struct launch_opts *o, const struct launch_pipes *p, char **env,
						 int join_fd)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* perfhunt installs no handlers (signals come through a signalfd) and
	 * ignores only SIGPIPE; what it inherited, the command inherits too */
	signal(SIGPIPE, SIG_DFL);
	if (o->capture && !o->keep_stdout)
		dup2(p->out[1], STDOUT_FILENO);
	if (o->capture && !o->keep_stderr)
		dup2(p->err[1], STDERR_FILENO);
	/* inherited across exec at the number in env (dup2's copy is not
	 * close-on-exec; the pipe's own descriptor closes at exec) */
	if (o->probe_fd && p->probe_at != p->probe[1])
		dup2(p->probe[1], p->probe_at);
	else if (o->probe_fd)
		fcntl(p->probe[1], F_SETFD, 0);
	if (o->probe_fd && p->ack_at != p->ack[0])
		dup2(p->ack[0], p->ack_at);
	else if (o->probe_fd)
		fcntl(p->ack[0], F_SETFD, 0);
	int32_t join_errno = 0;
	if (join_fd >= 0 && write(join_fd, "0", 1) != 1)
		join_errno = errno ? errno : EIO;
	/* exec records this mm's high-water mark into the child's
	 * ru_maxrss: tell the parent how large that image was, and when the
	 * command began (its wall time starts here, after the cgroup join:
	 * a cgroup v1 move can wait for an RCU grace period) */
	struct rusage ru;
	struct launch_pre pre = { .join_errno = join_errno, .exec_mono_ns = clock_mono_ns() };
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		pre.image_kb = (uint64_t)ru.ru_maxrss;
	ssize_t wi = write(p->xerr[1], &pre, sizeof(pre));
	(void)wi;
	if (o->shell) {
		char *const sh[] = { "sh", "-c", o->argv[0], NULL };
		execve("/bin/sh", sh, env);
	} else {
		execvpe(o->argv[0], o->argv, env);
	}
	int err = errno;
	ssize_t w = write(p->xerr[1], &err, sizeof(err));
	(void)w;
	_exit(127);
}

static void close_pipes(struct launch_pipes *p)
{
	int *fds[] = { p->gate, p->xerr, p->out, p->err, p->probe, p->ack };
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		close_fd(&fds[i][0]);
		close_fd(&fds[i][1]);
	}
}

static int open_pipes(const struct launch_opts *o, struct launch_pipes *p, bool gate)
{
	*p = (struct launch_pipes){ { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, -1, -1 };
	if ((gate && pipe2(p->gate, O_CLOEXEC) < 0) || pipe2(p->xerr, O_CLOEXEC) < 0)
		return -1;
	if (o->capture && (pipe2(p->out, O_CLOEXEC) < 0 || pipe2(p->err, O_CLOEXEC) < 0))
		return -1;
	if (o->probe_fd && (pipe2(p->probe, O_CLOEXEC) < 0 || pipe2(p->ack, O_CLOEXEC) < 0))
		return -1;
	if (o->probe_fd) {
		p->probe[1] = above_nine(p->probe[1]);
		p->ack[0] = above_nine(p->ack[0]);
		/* a command that stops reading acknowledgements never blocks the monitor */
		fcntl(p->ack[1], F_SETFL, O_NONBLOCK);
	}
	return 0;
}

/* The parent's half after the fork: its ends of the pipes into c. */
static void parent_ends(const struct launch_opts *o, struct launch_pipes *p, pid_t pid, struct launch_child *c)
{
	close_fd(&p->gate[0]);
	close_fd(&p->xerr[1]);
	close_fd(&p->out[1]);
	close_fd(&p->err[1]);
	close_fd(&p->probe[1]);
	close_fd(&p->ack[0]);
	c->pid = pid;
	if (o->keep_stdout)
		close_fd(&p->out[0]);
	if (o->keep_stderr)
		close_fd(&p->err[0]);
	c->out_fd = o->capture ? p->out[0] : -1;
	c->err_fd = o->capture ? p->err[0] : -1;
	c->probe_fd = o->probe_fd ? p->probe[0] : -1;
	c->ack_fd = o->probe_fd ? p->ack[1] : -1;
	c->gate_fd = p->gate[1];
	c->exec_err_fd = p->xerr[0];
}

static pid_t fork_gated(const struct launch_opts *o, const struct launch_pipes *p, char **env)
{
	pid_t pid = fork();
	if (pid == 0) {
		char b;
		close(p->gate[1]);
		while (read(p->gate[0], &b, 1) < 0 && errno == EINTR)
			;
		child_exec(o, p, env, -1);
	}
	return pid;
}

/* vfork: no page tables copied, and perfhunt's pages stay writable (after a
 * fork every page perfhunt writes faults once more). Nothing lives across
 * the call but its result, so nothing can be clobbered. */
static pid_t __attribute__((noinline)) vfork_exec(const struct launch_opts *o, const struct launch_pipes *p,
						  char **env, int join_fd)
{
	pid_t pid = vfork();
	if (pid == 0)
		child_exec(o, p, env, join_fd);
	return pid;
}

/* clone3 into the cgroup whose directory is cgroup_fd (CLONE_INTO_CGROUP:
 * cgroup v2, Linux 5.7): the child is born a member, so no write to
 * cgroup.procs waits for the kernel's RCU grace period (milliseconds, when
 * no other move came just before). It has a copy of perfhunt's memory, as
 * after fork, and CLONE_VFORK holds perfhunt until it execs. -1 with errno
 * where the kernel cannot. */
static pid_t clone_into_exec(const struct launch_opts *o, const struct launch_pipes *p, char **env, int cgroup_fd)
{
	struct clone_args ca;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_VFORK | CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = (uint64_t)cgroup_fd;
	long pid = syscall(SYS_clone3, &ca, sizeof(ca));
	if (pid == 0)
		child_exec(o, p, env, -1);
	return (pid_t)pid;
}

static int spawn(const struct launch_opts *o, struct launch_child *c, int join_fd, int into_fd, bool gate,
		 struct err *e)
{
	struct launch_pipes p;
	char **env = NULL;
	char envbuf[2][32];
	c->pid = -1;
	c->out_fd = c->err_fd = c->probe_fd = c->ack_fd = c->gate_fd = c->exec_err_fd = -1;
	c->join_errno = 0;
	if (open_pipes(o, &p, gate) < 0)
		goto fail;
	if (o->probe_fd) {
		p.probe_at = probe_at(&p, join_fd, -1, p.probe[1]);
		p.ack_at = probe_at(&p, join_fd, p.probe_at, p.ack[0]);
	}
	env = o->probe_fd || o->extra_env ? child_env(o, &p, envbuf) : environ;
	if (!env)
		goto fail;
	pid_t pid = -1;
	c->into_cgroup = false;
	if (gate) {
		pid = fork_gated(o, &p, env);
	} else {
		if (into_fd >= 0 && (pid = clone_into_exec(o, &p, env, into_fd)) >= 0)
			c->into_cgroup = true;
		if (pid < 0) /* no clone3 into a cgroup here: the child joins it itself */
			pid = vfork_exec(o, &p, env, join_fd);
	}
	if (pid < 0)
		goto fail;
	if (env != environ)
		free(env);
	parent_ends(o, &p, pid, c);
	return 0;
fail:
	err_sys(e, "cannot start the command");
	if (env && env != environ)
		free(env);
	close_pipes(&p);
	return -1;
}

int launch_spawn(const struct launch_opts *o, struct launch_child *c, struct err *e)
{
	return spawn(o, c, -1, -1, true, e);
}

int launch_spawn_direct(const struct launch_opts *o, int join_fd, int into_fd, struct launch_child *c,
			struct err *e)
{
	return spawn(o, c, join_fd, into_fd, false, e);
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
	struct launch_pre pre = { 0 };
	int err = 0;
	if (read_full(c->exec_err_fd, &pre, sizeof(pre)) == sizeof(pre)) {
		c->image_kb = pre.image_kb;
		c->join_errno = pre.join_errno;
		c->exec_mono_ns = pre.exec_mono_ns;
	} else {
		c->image_kb = 0;
		c->exec_mono_ns = 0;
	}
	size_t r = read_full(c->exec_err_fd, &err, sizeof(err));
	close_fd(&c->exec_err_fd);
	return r == sizeof(err) ? err : 0;
}
