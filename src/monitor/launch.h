/* launch: starting the measured command, held at the gate until we are ready.
 *
 * The child is forked, joins its process group plumbing, then blocks on a
 * pipe until the parent has put it in the cgroup, opened counters on it and
 * registered it as a tree member; only then does it exec. When the parent
 * has nothing to do to the child before exec but the cgroup, it is vforked
 * instead and writes itself into the cgroup (launch_spawn_direct). A second,
 * close-on-exec pipe carries exec's errno back, so "not found" (127) and
 * "not executable" (126) are told apart from the command's own exit status.
 */
#ifndef PERFHUNT_LAUNCH_H
#define PERFHUNT_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct launch_opts {
	char *const *argv;     /* command and arguments; with shell, argv[0] is the script */
	bool shell;            /* run sh -c argv[0] */
	bool capture;          /* stdout/stderr through pipes (for probes) */
	/* with capture: the stream stays perfhunt's own, as the command would
	 * have had it (perfhunt cannot write it either: closed, read-only) */
	bool keep_stdout, keep_stderr;
	bool probe_fd;         /* open a pipe whose write end the child finds in $PERFHUNT_FD,
	                        * and one whose read end is in $PERFHUNT_ACK_FD */
	char *const *extra_env; /* "NAME=VALUE" set for the command (replacing perfhunt's), NULL-terminated, or NULL */
};

struct launch_child {
	pid_t pid;
	int out_fd, err_fd;    /* read ends of the child's stdout/stderr, or -1 */
	int probe_fd;          /* read end of $PERFHUNT_FD, or -1 */
	int ack_fd;            /* write end of $PERFHUNT_ACK_FD (non-blocking), or -1 */
	int gate_fd;           /* write end: closing it lets the child exec */
	int exec_err_fd;       /* read end: the pre-exec image, then exec's errno or EOF */
	uint64_t image_kb;     /* the child's high-water mark just before exec (see launch_release) */
	int join_errno;        /* launch_spawn_direct: why the child could not join the cgroup, or 0 */
	int64_t exec_mono_ns;  /* launch_release: CLOCK_MONOTONIC just before exec, or 0 */
	bool into_cgroup;      /* launch_spawn_direct: born in the cgroup (clone3), not moved */
};

/* Forks the child and leaves it waiting at the gate. */
int launch_spawn(const struct launch_opts *o, struct launch_child *c, struct err *e);
/* Starts the child without a gate and returns once it execed: cloned into
 * the cgroup whose directory is into_fd (cgroup v2's CLONE_INTO_CGROUP)
 * where the kernel can, else vforked, joining the cgroup whose cgroup.procs
 * is join_fd itself (either may be -1). launch_release then only reads how
 * it went. */
int launch_spawn_direct(const struct launch_opts *o, int join_fd, int into_fd, struct launch_child *c,
			struct err *e);
/* Opens the gate and waits for exec: 0 when it ran, else the errno of the
 * failed exec. Fills c->image_kb: the forked copy of perfhunt's high-water
 * mark, which exec folds into the child's ru_maxrss (so a wait4 ru_maxrss no
 * larger than it says nothing of the command itself). */
int launch_release(struct launch_child *c);
/* Closes every fd still open in c. */
void launch_close(struct launch_child *c);

#endif
