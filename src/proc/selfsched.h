/* selfsched: how long the calling thread has waited for a CPU.
 *
 * The monitor blocks in poll() until a line of the command's arrives; the
 * line was written when the monitor was woken, and the monitor ran only
 * once a CPU was free for it. The kernel counts that wait in the thread's
 * schedstat (its second field, run_delay in ns): read before and after the
 * poll, it says how long the line waited before the monitor could read it,
 * which a clock read after poll() returns cannot see. The file is opened once
 * and read with pread, as the sampler reads /proc.
 */
#ifndef PERFHUNT_SELFSCHED_H
#define PERFHUNT_SELFSCHED_H

#include <stdint.h>

/* The calling thread's schedstat, or -1 where the kernel has none. */
int selfsched_open(void);
/* Nanoseconds the thread has waited on a run queue, or -1. */
int64_t selfsched_wait_ns(int fd);

#endif
