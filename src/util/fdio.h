/* fdio: writing a whole buffer to a file descriptor, retrying short writes
 * and EINTR — the one loop every record writer uses; and reading a small
 * kernel file (/proc, sysfs, tracefs, cgroupfs) whole in one read.
 */
#ifndef PERFHUNT_FDIO_H
#define PERFHUNT_FDIO_H

#include <stddef.h>
#include <sys/types.h>

/* Returns 0, or -1 with errno set (ENOSPC, EPIPE, ...). */
int fdio_write_all(int fd, const void *buf, size_t n);
/* Reads at most n - 1 bytes of path with one read() into buf and ends them
 * with a NUL. Returns the bytes read, or -1 with errno set (ENOENT, EACCES, ...). */
ssize_t fdio_read_small(const char *path, char *buf, size_t n);

#endif
