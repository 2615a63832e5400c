/* statefile: the registry of background monitors (`watch --detach`).
 *
 * Each detached monitor owns <dir>/<ID>.json (its PID, its start time in
 * clock ticks since boot, its target) and <ID>.log (its summary). `stop`
 * trusts a state file only when the PID it names is alive AND has the
 * recorded start time, so a stale file never makes us signal a process that
 * merely reused the PID. The directory is private (0700, owned by us, not a
 * symlink); files are created with O_EXCL and mode 0600.
 */
#ifndef PERFHUNT_STATEFILE_H
#define PERFHUNT_STATEFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

struct monitor_state {
	char id[32];
	pid_t pid;
	uint64_t starttime_ticks;
	pid_t target_pid;
	char target[256];
	char started_at[40];
	char log_path[4200];
};

enum monitor_liveness { MONITOR_RUNNING, MONITOR_FINISHED, MONITOR_STALE };

/* $PERFHUNT_STATE_DIR, else $XDG_RUNTIME_DIR/perfhunt, else /tmp/perfhunt-UID; created 0700. */
int statefile_dir(char *out, size_t n, struct err *e);
/* Start time of a live process from /proc/PID/stat; -1 if it is gone. */
int statefile_proc_starttime(pid_t pid, uint64_t *ticks);
/* Registers the calling process as monitor ID (fills s->pid, starttime, id, log_path). */
int statefile_register(const char *dir, struct monitor_state *s, struct err *e);
/* Marks a registered monitor as finished (its summary is complete in the log). */
void statefile_mark_done(const char *dir, const char *id);
/* Lists monitors (newest last); *out is malloc'd, caller frees. */
int statefile_list(const char *dir, struct monitor_state **out, size_t *n, struct err *e);
enum monitor_liveness statefile_liveness(const char *dir, const struct monitor_state *s);
/* statefile_claim's answer when another `stop` holds the monitor. */
enum { STATEFILE_CLAIMED_ELSEWHERE = 1 };
/* Claims monitor ID for one `stop`: an exclusive lock on its state file,
 * held in *fd until that is closed (or the stopper dies). 0 claimed;
 * STATEFILE_CLAIMED_ELSEWHERE when another stop holds it or has already
 * removed it; -1 with e filled. */
int statefile_claim(const char *dir, const char *id, int *fd, struct err *e);
/* Removes the state, log and done files of ID. */
void statefile_remove(const char *dir, const char *id);

#endif
