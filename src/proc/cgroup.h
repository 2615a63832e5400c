/* cgroup: a memory cgroup around the measured tree, for an exact tree peak.
 *
 * The kernel keeps a high-water mark of a cgroup's charged memory (v2
 * memory.peak, v1 memory.max_usage_in_bytes), which no sampler can miss.
 * It counts page cache as well as process memory — the summary says so.
 * v2 is used where its memory controller is available, else v1; where
 * neither can be created (not root, no controller) the caller notes why.
 */
#ifndef PERFHUNT_CGROUP_H
#define PERFHUNT_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct cgroup {
	int version;        /* 1 or 2; 0 when none */
	char dir[PATH_MAX + 64]; /* the cgroup we made */
	char parent[PATH_MAX];
};

/* Creates a fresh memory cgroup below the caller's own, named
 * perfhunt-PID-START-N (our PID, our start time in clock ticks since boot, a
 * sequence number). First removes the empty ones beside it that a perfhunt
 * now gone made (a SIGKILLed run cannot remove its own). */
int cgroup_create(struct cgroup *cg, struct err *e);
/* Parses a cgroup name perfhunt made: perfhunt-PID-START-N, or an older
 * perfhunt's perfhunt-PID-N (then *has_start is false). -1 for other names. */
int cgroup_parse_name(const char *name, pid_t *pid, uint64_t *start_ticks, bool *has_start);
/* Removes each empty cgroup (any empty directory: rmdir refuses the rest) in
 * parent whose name cgroup_parse_name reads and whose owner is gone: its PID
 * is not alive, or alive with another start time (PID reuse). A live PID with
 * an old-style name may be its owner, so that one stays. Returns the number
 * removed. One with processes still in it (a killed run's survivors) stays. */
int cgroup_reap_stale(const char *parent);
int cgroup_add_pid(const struct cgroup *cg, pid_t pid, struct err *e);
/* cgroup.procs opened for writing (close-on-exec): a child writes "0" to it to join. */
int cgroup_procs_open(const struct cgroup *cg, struct err *e);
/* The cgroup's directory opened (close-on-exec), for clone3's
 * CLONE_INTO_CGROUP: v2 only, -1 otherwise. */
int cgroup_dir_open(const struct cgroup *cg, struct err *e);
/* Optional hard limit (bytes), for tests of OOM handling. */
int cgroup_set_limit(const struct cgroup *cg, uint64_t bytes, struct err *e);
/* Whether a limit of bytes can be enforced here: creates a cgroup, sets the
 * limit and removes it. 0, or -1 with e saying why not (not root, no memory
 * controller), so a limit is refused before a command runs unbounded. */
int cgroup_check_limit(uint64_t bytes, struct err *e);
int cgroup_peak_kb(const struct cgroup *cg, uint64_t *kb, struct err *e);
/* The cgroup's charged memory now, each page once however many processes
 * map it (v2 memory.current, v1 memory.usage_in_bytes; the counter whose
 * high-water mark cgroup_peak_kb reads): the file is opened once and read
 * with one pread per sample. cgroup_usage_kb returns 0, or -1 unreadable. */
int cgroup_usage_open(const struct cgroup *cg, struct err *e);
int cgroup_usage_kb(int fd, uint64_t *kb);
/* "cgroup v2 memory.current" or "cgroup v1 memory.usage_in_bytes" */
const char *cgroup_usage_method(const struct cgroup *cg);
/* "cgroup v1 memory.max_usage_in_bytes" or "cgroup v2 memory.peak" */
const char *cgroup_method(const struct cgroup *cg);
/* Processes the kernel's OOM killer ended in this cgroup (v1 memory.oom_control,
 * v2 memory.events oom_kill). */
int cgroup_oom_kills(const struct cgroup *cg, uint64_t *n, struct err *e);
/* Moves any remaining processes to the parent and removes the cgroup. */
void cgroup_destroy(struct cgroup *cg);

#endif
