/* fdio: writing a whole buffer to a file descriptor, retrying short writes
 * and EINTR — the one loop every record writer uses.
 */
#ifndef PERFHUNT_FDIO_H
#define PERFHUNT_FDIO_H

#include <stddef.h>

/* Returns 0, or -1 with errno set (ENOSPC, EPIPE, ...). */
int fdio_write_all(int fd, const void *buf, size_t n);

#endif
