/* netlink: kernel push notifications about processes, when we may have them.
 *
 * procevents: the process-events connector (PROC_EVENT_FORK/EXIT) tells us of
 * every fork as it happens, so discovery costs nothing per sample and no
 * short-lived child is missed. exitstats: taskstats exit records carry each
 * exiting task's hiwater_rss, so even grandchildren that live between two
 * samples get an exact peak. Both need CAP_NET_ADMIN (root); callers fall
 * back to polling /proc when open fails.
 */
#ifndef PERFHUNT_NETLINK_H
#define PERFHUNT_NETLINK_H

#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct procevents_handler {
	void (*on_fork)(pid_t parent_tgid, pid_t child_tgid, void *arg);
	void (*on_exit)(pid_t tgid, void *arg);
	void *arg;
};

/* Returns a socket fd to poll, or -1 (e filled). It hears every event until
 * procevents_filter_forks: attaching the filter compiles a BPF program
 * (~60 us), which the caller may do once the command runs. */
int procevents_open(struct err *e);
/* Keeps only process forks in the kernel (a socket filter). */
void procevents_filter_forks(int fd);
/* Drains pending events. Returns 0, or -1 if events were lost (ENOBUFS): rescan. */
int procevents_read(int fd, const struct procevents_handler *h);

struct exit_record {
	pid_t pid, ppid, tgid;
	char comm[32];
	uint64_t hiwater_rss_kb;
	uint64_t utime_us, stime_us, minflt, majflt, nvcsw, nivcsw, read_char, write_char;
	uint64_t elapsed_us;  /* from the task's start to its exit */
	/* its time on a CPU and waiting for one, ns (sum_exec_runtime and
	 * sched_info.run_delay: schedstat's first two fields, at its exit) */
	uint64_t run_ns, run_delay_ns;
	int whole_group; /* 1: aggregate of a thread group, 0: one task */
};

struct exitstats {
	int fd;
	uint16_t family;
	char cpumask[32];
};

int exitstats_open(struct exitstats *x, struct err *e);
/* Drains pending exit records, calling fn for each. Returns 0 or -1 if records were lost. */
int exitstats_read(struct exitstats *x, void (*fn)(const struct exit_record *r, void *arg), void *arg);
void exitstats_close(struct exitstats *x);

#endif
