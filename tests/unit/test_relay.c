/* Unit tests of src/monitor/relay: the command's output on its way to
 * perfhunt's stdout, over real pipes and devices. What a destination does
 * not take waits (bounded) and nothing blocks; a reader that left or a full
 * device is a failure the caller sees; the shared description's flags are
 * never changed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "monitor/relay.h"

/* Reads everything readable from fd now; returns the count. */
static size_t drain(int fd, char *out, size_t cap)
{
	size_t got = 0;
	ssize_t r;
	while (got < cap && (r = read(fd, out + got, cap - got)) > 0)
		got += (size_t)r;
	return got;
}

static void test_slow_pipe_holds_bytes_in_order(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	int cap = fcntl(p[1], F_GETPIPE_SZ); /* 64 KiB by default */
	struct relay r;
	relay_init(&r, p[1]);
	assert_int_equal(r.error, 0);
	assert_int_equal(r.mode, RELAY_NONBLOCK);
	/* our own description: the shared one stays blocking */
	assert_int_equal(fcntl(p[1], F_GETFL) & O_NONBLOCK, 0);
	static char a[RELAY_BUF], b[RELAY_BUF], out[3 * RELAY_BUF];
	memset(a, 'a', sizeof(a));
	memset(b, 'b', sizeof(b));
	relay_put(&r, a, sizeof(a));
	relay_put(&r, b, sizeof(b)); /* the pipe is full: this waits */
	assert_true(relay_pending(&r));
	assert_int_equal(relay_fd(&r), r.wfd);
	size_t got = drain(p[0], out, sizeof(out));
	assert_int_equal(got, (size_t)cap);
	while (relay_pending(&r)) {
		struct pollfd pf = { .fd = relay_fd(&r), .events = POLLOUT };
		assert_int_equal(poll(&pf, 1, 1000), 1);
		relay_wake(&r, pf.revents);
		got += drain(p[0], out + got, sizeof(out) - got);
	}
	got += drain(p[0], out + got, sizeof(out) - got);
	assert_int_equal(r.error, 0);
	assert_int_equal(got, 2 * RELAY_BUF);
	assert_memory_equal(out, a, sizeof(a));
	assert_memory_equal(out + RELAY_BUF, b, sizeof(b));
	relay_release(&r);
	close(p[0]);
	close(p[1]);
}

/* perfhunt's stdout a socket (a service manager's journal): sent
 * MSG_DONTWAIT, the rest held as for a pipe, then EPIPE once the peer left. */
static void test_socket(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	struct relay r;
	relay_init(&r, sv[1]);
	assert_int_equal(r.mode, RELAY_SOCKET);
	static char a[RELAY_BUF], out[RELAY_BUF];
	memset(a, 's', sizeof(a));
	size_t put = 0, got = 0;
	while (!relay_pending(&r) && put < 64 * sizeof(a)) { /* until the socket's buffer is full */
		relay_put(&r, a, sizeof(a));
		put += sizeof(a);
	}
	assert_true(relay_pending(&r));
	assert_int_equal(fcntl(sv[1], F_GETFL) & O_NONBLOCK, 0);
	while (relay_pending(&r)) {
		ssize_t n = read(sv[0], out, sizeof(out));
		if (n > 0)
			got += (size_t)n;
		struct pollfd pf = { .fd = relay_fd(&r), .events = POLLOUT };
		if (poll(&pf, 1, 0) == 1)
			relay_wake(&r, pf.revents);
	}
	ssize_t n;
	while ((n = read(sv[0], out, sizeof(out))) > 0)
		got += (size_t)n;
	assert_int_equal(r.error, 0);
	assert_int_equal(got, put);
	close(sv[0]);
	relay_put(&r, "x\n", 2);
	assert_int_equal(r.error, EPIPE);
	relay_release(&r);
	close(sv[1]);
}

static void test_reader_gone(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct relay r;
	relay_init(&r, p[1]);
	close(p[0]);
	/* nothing pending: poll says POLLERR, which is the failure */
	struct pollfd pf = { .fd = relay_fd(&r), .events = 0 };
	assert_int_equal(poll(&pf, 1, 1000), 1);
	assert_true(pf.revents & POLLERR);
	relay_wake(&r, pf.revents);
	assert_int_equal(r.error, EPIPE);
	assert_int_equal(relay_fd(&r), -1);
	assert_false(relay_pending(&r));
	relay_release(&r);

	/* a write finds it too (perfhunt ignores SIGPIPE; so does this test) */
	assert_int_equal(pipe(p), 0);
	relay_init(&r, p[1]);
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	relay_put(&r, "x\n", 2);
	assert_int_equal(r.error, EPIPE);
	relay_release(&r);
	close(p[1]);
}

static void test_full_device_and_bad_fds(void **state)
{
	(void)state;
	struct relay r;
	int fd = open("/dev/full", O_WRONLY);
	assert_true(fd >= 0);
	relay_init(&r, fd);
	assert_int_equal(r.mode, RELAY_PLAIN);
	relay_put(&r, "x\n", 2);
	assert_int_equal(r.error, ENOSPC);
	relay_release(&r);
	close(fd);

	fd = open("/dev/null", O_RDONLY); /* open, but not for writing */
	relay_init(&r, fd);
	assert_int_equal(r.error, EBADF);
	relay_release(&r);
	close(fd);

	relay_init(&r, fd); /* closed */
	assert_int_equal(r.error, EBADF);
	relay_release(&r);

	/* a relay that copies nothing never fails */
	r = (struct relay){ .dst_fd = -1, .wfd = -1 };
	relay_put(&r, "x\n", 2);
	assert_int_equal(r.error, 0);
	assert_int_equal(relay_fd(&r), -1);
	relay_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_pipe_holds_bytes_in_order),
		cmocka_unit_test(test_socket),
		cmocka_unit_test(test_reader_gone),
		cmocka_unit_test(test_full_device_and_bad_fds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
