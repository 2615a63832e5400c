/* relay: non-blocking copies of the command's output to perfhunt's own
 * stdout and stderr, one bounded pending buffer per stream.
 *
 * The description perfhunt inherited is shared with the shell (a terminal's
 * O_NONBLOCK would stay set for the shell after us), so it is never changed:
 * a pipe or terminal is opened again through /proc/self/fd, which gives a
 * description of our own on the same pipe or terminal.
 */
#include "monitor/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

void relay_init(struct relay *r, int dst_fd)
{
	*r = (struct relay){ .dst_fd = dst_fd, .wfd = dst_fd, .mode = RELAY_PLAIN };
	struct stat st;
	int fl = fcntl(dst_fd, F_GETFL);
	if (fl < 0 || fstat(dst_fd, &st) < 0) {
		r->error = errno;
		r->wfd = -1;
		return;
	}
	if ((fl & O_ACCMODE) == O_RDONLY) {
		r->error = EBADF; /* what a write to it gives */
		return;
	}
	if (S_ISSOCK(st.st_mode)) {
		r->mode = RELAY_SOCKET;
	} else if (S_ISFIFO(st.st_mode) || isatty(dst_fd)) {
		char path[40];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", dst_fd);
		int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		r->mode = fd >= 0 ? RELAY_NONBLOCK : RELAY_GATED;
		if (fd >= 0)
			r->wfd = fd;
	}
}

void relay_release(struct relay *r)
{
	if (r->wfd >= 0 && r->wfd != r->dst_fd)
		close(r->wfd);
	r->wfd = -1;
	free(r->buf);
	r->buf = NULL;
	r->off = r->len = 0;
}

/* One write that does not wait: the count taken (0 when the destination is
 * full), or -1 with errno. */
static ssize_t write_now(struct relay *r, const char *p, size_t n)
{
	switch (r->mode) {
	case RELAY_SOCKET:
		return send(r->wfd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	case RELAY_GATED: {
		/* a blocking pipe or terminal: writable means room for PIPE_BUF */
		struct pollfd pf = { .fd = r->wfd, .events = POLLOUT };
		if (poll(&pf, 1, 0) <= 0)
			return 0;
		return write(r->wfd, p, n < PIPE_BUF ? n : PIPE_BUF);
	}
	case RELAY_PLAIN:
	case RELAY_NONBLOCK:
		break;
	}
	return write(r->wfd, p, n);
}

/* Writes from p until the destination is full; returns the count written. */
static size_t write_some(struct relay *r, const char *p, size_t n)
{
	size_t done = 0;
	while (done < n && !r->error) {
		ssize_t w = write_now(r, p + done, n - done);
		if (w > 0) {
			done += (size_t)w;
		} else if (w == 0 || errno == EAGAIN || errno == EWOULDBLOCK) {
			break;
		} else if (errno != EINTR) {
			r->error = errno;
		}
	}
	return done;
}

void relay_put(struct relay *r, const char *buf, size_t n)
{
	if (r->error || n == 0 || r->dst_fd < 0)
		return;
	size_t done = write_some(r, buf, n);
	if (done == n || r->error)
		return;
	if (!r->buf && !(r->buf = malloc(RELAY_BUF))) {
		r->error = ENOMEM;
		return;
	}
	r->len = n - done < RELAY_BUF ? n - done : RELAY_BUF;
	memcpy(r->buf, buf + done, r->len);
	r->off = 0;
}

void relay_flush(struct relay *r)
{
	if (!r->len || r->error)
		return;
	size_t done = write_some(r, r->buf + r->off, r->len);
	r->off += done;
	r->len -= done;
}

bool relay_pending(const struct relay *r)
{
	return r->len > 0 && !r->error;
}

int relay_fd(const struct relay *r)
{
	if (r->error || r->wfd < 0 || (r->mode == RELAY_PLAIN && !r->len))
		return -1;
	return r->wfd;
}

void relay_wake(struct relay *r, short revents)
{
	if (r->len)
		relay_flush(r);
	else if (revents & (POLLERR | POLLHUP) && !r->error)
		r->error = EPIPE;
}
