/* relay: the command's output on its way to perfhunt's stdout or stderr,
 * without ever blocking the sampling loop.
 *
 * The loop reads the command's pipe, hands the bytes to the relay and goes
 * on: what the destination does not take now waits here (one read, at most
 * RELAY_BUF bytes) and the loop stops reading that pipe until it is gone, so
 * a slow reader back-pressures the command, never the sampler. Writes never
 * block: a pipe or terminal is reopened O_NONBLOCK through /proc/self/fd (a
 * flag of our own, not the shell's), a socket is sent MSG_DONTWAIT, and
 * where neither works a write waits for POLLOUT and stays within PIPE_BUF. A
 * destination that fails (its reader left, a full disk) is remembered: the
 * caller then closes the command's pipe, so the command's own writes fail.
 */
#ifndef PERFHUNT_RELAY_H
#define PERFHUNT_RELAY_H

#include <stdbool.h>
#include <stddef.h>

enum { RELAY_BUF = 65536 };

enum relay_mode {
	RELAY_PLAIN,    /* a regular file, a device: writes do not wait on a reader */
	RELAY_NONBLOCK, /* wfd is our own O_NONBLOCK description of a pipe or terminal */
	RELAY_SOCKET,   /* send(MSG_DONTWAIT) */
	RELAY_GATED,    /* poll for POLLOUT, then at most PIPE_BUF bytes */
};

struct relay {
	int dst_fd;          /* perfhunt's stdout or stderr */
	int wfd;             /* the descriptor written (an own reopen, or dst_fd) */
	enum relay_mode mode;
	char *buf;           /* pending bytes: buf[off, off + len) */
	size_t off, len;
	int error;           /* the destination failed with this errno (0: it works) */
};

/* Prepares writing to dst_fd; a dst_fd that is not open for writing is a
 * failed destination from the start (error EBADF). A relay set to
 * { .dst_fd = -1, .wfd = -1 } copies nothing and never fails. */
void relay_init(struct relay *r, int dst_fd);
/* Writes what the destination takes now of buf[0, n) (n <= RELAY_BUF, and
 * nothing pending) and keeps the rest. */
void relay_put(struct relay *r, const char *buf, size_t n);
/* Writes what the destination takes now of the pending bytes. */
void relay_flush(struct relay *r);
/* Bytes wait for the destination (the caller polls relay_fd for POLLOUT and
 * does not read more meanwhile). */
bool relay_pending(const struct relay *r);
/* The descriptor to poll: for POLLOUT while bytes are pending, else with
 * no events, for POLLERR (the reader left) on a pipe or socket; -1 for none. */
int relay_fd(const struct relay *r);
/* poll() reported revents on relay_fd: the pending bytes go on; POLLERR or
 * POLLHUP with nothing pending is a destination that failed (error EPIPE,
 * what the next write would find). */
void relay_wake(struct relay *r, short revents);
/* Closes the relay's own descriptor; pending bytes are dropped. */
void relay_release(struct relay *r);

#endif
