/* tasks: the threads of one member process, beyond its leader.
 *
 * /proc/PID/status and /proc/PID/schedstat describe the leader thread only,
 * so a process's context switches and its time on a CPU, waiting for one or
 * blocked are the sums over /proc/PID/task/TID/. Each thread's schedstat and
 * status stay open and are pread like the member's own files; task/ is listed
 * again only when the thread count moved or a thread vanished. A thread that
 * exits keeps its last reading (its counters never go backwards).
 */
#ifndef PERFHUNT_TASKS_H
#define PERFHUNT_TASKS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Thread time and switches, summed over threads, since each was measured. */
struct tasks_time {
	uint64_t oncpu_ns, runnable_ns, alive_ns, vcsw, ivcsw;
	uint64_t iowait_ticks;     /* waiting for block I/O (delay accounting), clock ticks */
};

/* Kept-open fds shared by every reader of one tree. */
struct tasks_fds {
	size_t kept, budget;
};

/* Converts stat's starttime (clock ticks since boot) to CLOCK_MONOTONIC ns. */
struct tasks_clock {
	int64_t boot_minus_mono_ns;
	int64_t tick_ns;
};

struct task;

struct tasks {
	struct task *v;            /* live threads other than the leader */
	size_t n, cap;
	struct tasks_time gone;    /* threads that exited, to their last reading */
	uint64_t listings;         /* task/ directory reads */
	uint64_t rr;               /* readings so far: the turn of the threads' status */
	bool blkio;                /* also read each thread's block-I/O wait (delay accounting is on) */
};

/* Reads a file of the process at dirfd (tid 0) or of its thread tid
 * (task/TID/name) through *fd, opened at first use and kept open while fds
 * allow. Returns the bytes read (NUL-terminated), 0 if the task is gone,
 * -1 if unreadable. */
ssize_t tasks_pread(int dirfd, pid_t tid, const char *name, int *fd, struct tasks_fds *fds, char *buf,
		    size_t n);
/* Whether the kernel's delay accounting (which splits blocked time by I/O)
 * is on: kernel.task_delayacct 1, 0, or -1 when it cannot be read. */
int tasks_delayacct(int procfs_fd);
/* The process's task/ directory (closedir it), or NULL. */
DIR *tasks_opendir(int dirfd);
void tasks_clock_init(struct tasks_clock *c);
/* When a task that started at starttime_ticks began, give or take half a tick. */
int64_t tasks_born_ns(const struct tasks_clock *c, uint64_t starttime_ticks);
void tasks_release(struct tasks *ts, struct tasks_fds *fds);
/* Reads every known thread's schedstat (and status when status_due, for a
 * thread that ran since; beyond 16 threads in turn, one in 8 each time;
 * status_all: every one that ran) and lists
 * task/ when nthreads (stat's count, the leader included) differs from what is
 * known or a thread vanished. A thread that started before history_ticks
 * (stat's starttime) counts from its first reading. alive_from_ns: the
 * previous reading of this member (0: none); a new thread is alive from its
 * start. */
void tasks_read(struct tasks *ts, int dirfd, pid_t pid, uint64_t nthreads, bool status_due, bool status_all,
		uint64_t history_ticks, int64_t alive_from_ns, int64_t now_ns,
		const struct tasks_clock *clk, struct tasks_fds *fds);
/* Adds the threads' figures (live and gone) to *out. */
void tasks_sum(const struct tasks *ts, struct tasks_time *out);
/* A thread's exit record (taskstats): its final context switches, its
 * exit elapsed_us after its start, so that it is alive until then rather
 * than until the reading that finds it gone, and its final on-CPU and
 * run-queue ns, so that the time since its last reading is not all taken
 * for blocked (taken where they are not behind that reading and add no more
 * than the time since it). Returns true if it was known. (Its block-I/O wait
 * stays at its last reading: on this kernel the record's blkio_delay_total
 * was seen holding the time since boot.) */
bool tasks_exited(struct tasks *ts, pid_t tid, uint64_t nvcsw, uint64_t nivcsw, uint64_t elapsed_us, uint64_t run_ns,
		  uint64_t run_delay_ns);

#endif
