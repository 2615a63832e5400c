/* procfs: parsers of /proc/PID files, pure functions over a byte buffer.
 *
 * The sampler reads each file with one pread into a stack buffer and hands
 * the bytes here; nothing in this file does I/O, so every parser can be
 * unit-tested on captured text and fuzzed. Each returns 0, or -1 when the
 * bytes are not the file it expects (a truncated or foreign file).
 */
#ifndef PERFHUNT_PROCFS_H
#define PERFHUNT_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct procfs_stat {
	char comm[64];
	char state;
	pid_t ppid;
	uint64_t minflt, majflt;
	uint64_t utime_ticks, stime_ticks;
	uint64_t num_threads;
	uint64_t starttime_ticks; /* with the PID, identifies a process across PID reuse */
	uint64_t vsize_bytes;     /* 0 once an exiting process has dropped its memory */
	uint64_t blkio_ticks;     /* delayacct_blkio_ticks (procfs_parse_stat_blkio only): this task's
	                           * wait for block I/O (0 without delay accounting) */
};

struct procfs_status {
	uint64_t rss_kb, anon_kb, file_kb, shmem_kb, swap_kb, hwm_kb;
	uint64_t vcsw, ivcsw;
	uint64_t threads;
	uid_t uid;
};

struct procfs_io {
	uint64_t rchar, wchar;
};

/* schedstat: one task's nanoseconds on a CPU and waiting on a run queue,
 * and how many times it was run (the three fields of /proc/PID/schedstat). */
struct procfs_schedstat {
	uint64_t oncpu_ns, wait_ns, runs;
};

/* statm: sizes in pages. resident = anon + file + shmem; shared = file + shmem. */
struct procfs_statm {
	uint64_t size_pages, resident_pages, shared_pages;
};

/* stat up to vsize (field 23); blkio_ticks is 0 */
int procfs_parse_stat(const char *buf, size_t n, struct procfs_stat *out);
/* The same, and blkio_ticks (field 42) where the line has it */
int procfs_parse_stat_blkio(const char *buf, size_t n, struct procfs_stat *out);
int procfs_parse_status(const char *buf, size_t n, struct procfs_status *out);
int procfs_parse_io(const char *buf, size_t n, struct procfs_io *out);
int procfs_parse_statm(const char *buf, size_t n, struct procfs_statm *out);
int procfs_parse_schedstat(const char *buf, size_t n, struct procfs_schedstat *out);
/* Pss of smaps_rollup, in KB. */
int procfs_parse_smaps_rollup(const char *buf, size_t n, uint64_t *pss_kb);
/* Space-separated PIDs of task/TID/children; calls fn for each. Returns count. */
int procfs_parse_children(const char *buf, size_t n, void (*fn)(pid_t pid, void *arg), void *arg);

#endif
