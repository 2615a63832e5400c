/* phase_pid: the process a phase belongs to, where it names one.
 *
 * A probe phase names its process by a `pid=N` value on its lines or its
 * lane `pid=N` (--lane-key pid), and every phase of a lane one of whose
 * phases named a process belongs to it too (a worker names its pid once, on
 * its first line). A lane that named two processes belongs to neither. The
 * caller says which pids count (the processes the GPU trace or NVML saw), so
 * the GPU trace and the NVML figures of a phase follow one rule.
 */
#ifndef PERFHUNT_PHASE_PID_H
#define PERFHUNT_PHASE_PID_H

#include <jansson.h>
#include <stdbool.h>

/* Whether pid is one of the processes the caller can charge. */
typedef bool phase_pid_known_fn(void *arg, long pid);

struct phase_pid_lane {
	const char *lane; /* borrowed from the phases array */
	int pid;          /* -1: the lane named two processes */
};

struct phase_pids {
	struct phase_pid_lane *v;
	size_t n;
	phase_pid_known_fn *known;
	void *arg;
};

/* Binds the lanes of phases (a record's "phases" array, which must outlive
 * l) to the known processes their phases name. */
void phase_pids_bind(struct phase_pids *l, const json_t *phases, phase_pid_known_fn *known, void *arg);
void phase_pids_release(struct phase_pids *l);
/* The known process phase ph names, else its lane's; 0 for none. */
int phase_pids_of(const struct phase_pids *l, const json_t *ph);

#endif
