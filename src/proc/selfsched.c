/* selfsched: the monitor thread's own run-queue wait, from its schedstat. */
#include "proc/selfsched.h"

#include <fcntl.h>
#include <unistd.h>

#include "proc/procfs.h"

int selfsched_open(void)
{
	return open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
}

int64_t selfsched_wait_ns(int fd)
{
	char buf[96];
	struct procfs_schedstat st;
	ssize_t n = fd >= 0 ? pread(fd, buf, sizeof(buf), 0) : -1;
	if (n <= 0 || procfs_parse_schedstat(buf, (size_t)n, &st) < 0)
		return -1;
	return (int64_t)st.wait_ns;
}
