/* fdio: the short-write loop, and the one-read file reader. */
#include "util/fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int fdio_write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

ssize_t fdio_read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t r = read(fd, buf, n - 1);
	int saved = errno;
	close(fd);
	errno = saved;
	if (r >= 0)
		buf[r] = 0;
	return r;
}
