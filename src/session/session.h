/* session: one recording, from a const configuration to a kept record.
 *
 * The pipeline every recording command shares (run, watch, bench's runs,
 * bisect-check): run the monitor over the tree, feed probes, counters and GPU
 * into phases, build the perfhunt.run/1 record, write its files, store it in
 * the history and hand it to the fleet. It never prints: problems that do not
 * stop the recording reach the caller through hooks.warn, the rest as errors;
 * the command layer decides what the user sees and the exit status.
 */
#ifndef PERFHUNT_SESSION_H
#define PERFHUNT_SESSION_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fleet/fleet.h"
#include "monitor/launch.h"
#include "probe/probe.h"
#include "record/csv.h"
#include "session/profbatch.h"
#include "util/err.h"

/* What to record and where the record goes; read, never written. */
struct session_config {
	const char *kind;                  /* "run" or "watch" */
	const struct launch_opts *launch;  /* run mode: the command; NULL: watch attach_pid */
	char *const *record_argv;          /* the command as the record names it */
	uint64_t memory_limit_bytes;       /* with the cgroup: a hard limit (0 = none) */
	int interval_ms;
	const char *json_path;             /* -o, or NULL */
	const char *csv_path;              /* --csv, or NULL */
	enum csv_format csv_format;
	bool pss, cgroup, gpu;
	bool probes;                       /* parse the command's output for probes */
	const struct probe_config *probe_cfg;
	char *const *probe_logs;           /* NULL-terminated, or NULL */
	size_t nlogs;
	bool probe_time_arrival;           /* ignore log lines' own timestamps */
	bool counters;                     /* perf_event_open counters */
	const char *events;                /* -e LIST, NULL = default */
	bool profile;                      /* --profile: on-CPU stacks through perf */
	bool gpu_trace;                    /* --gpu-trace: CUDA activity through the collector */
	int profile_hz;                    /* --profile-hz */
	struct profbatch *profile_batch;   /* --profile in a bench: the one perf its runs share, which
					    * fills in the record's profile after the last run (the
					    * caller's, see profbatch.h); NULL: a perf of the run's own */
	bool discard_output;               /* parse the command's output, do not show it */
	int stdout_fd;                     /* with discard_output: the command's stdout copied here (> 2;
					    * 0: none), as bench --output FILE asks */
	pid_t attach_pid;                  /* watch: the root of the tree */
	double duration_ms;                /* watch: stop after this long (0 = until it exits) */
	pid_t daemon_pid;                  /* run --attach: also this tree, for the command's lifetime */
	double idle_ms;                    /* run --attach: settle period before the command */
	double timeout_ms;                 /* run mode: kill the command's tree after this long (0 = never) */
	const char *const *tags;           /* NULL-terminated, or NULL */
	char *const *option_words;         /* the options that record again like this (the record's
					    * options.words), NULL-terminated, or NULL */
	bool save;                         /* store the record in the history */
	bool kept;                         /* the caller keeps the record (a bench's runs): read host and git */
	const struct fleet_opts *fleet;    /* --export-openmetrics / --push, or NULL */
	double push_every_ms;              /* watch --push-every: live samples to the gateway */
};

/* Where the caller sees the recording happen; every hook may be NULL. */
struct session_hooks {
	void *arg;
	/* sampling runs: from now on nothing the tree does is missed */
	void (*started)(void *arg);
	/* a problem that does not stop the recording (one line, no prefix) */
	void (*warn)(void *arg, const char *msg);
	/* the record was stored in the history as run id */
	void (*saved)(void *arg, int64_t id);
	/* the record is written, stored and pushed: the caller writes its own
	 * files of it now, still shielded from a stop signal; returns the
	 * status given (or 1 where a file failed). Nothing is rendered here: a
	 * summary comes after session_record returns, where a signal stops it
	 * and never the save. */
	int (*kept)(void *arg, const json_t *rec, int status);
};

/* Exit statuses a shell gives when a command cannot be started. */
enum { SESSION_NOEXEC = 126, SESSION_NOTFOUND = 127 };

struct session_outcome {
	json_t *rec;      /* the run record (caller json_decref's it), NULL when nothing ran */
	int status;       /* the exit status the recording gives: the command's, or perfhunt's */
	int signal;       /* SIGINT/TERM/HUP/QUIT perfhunt received meanwhile (passed on to the
			   * command, what stopped the monitor, or one absorbed while the
			   * record was kept), the last one; 0 if none */
};

/* Records once. Returns 0 with out->rec set; or -1 with e filled and
 * out->status the exit status (127 not found, 126 not executable, 128+N
 * interrupted before the command started, 1 otherwise). Failures to write a
 * file, store or push after the record exists are warnings that make
 * out->status 1 where the command succeeded. */
int session_record(const struct session_config *c, const struct session_hooks *h,
		   struct session_outcome *out, struct err *e);

#endif
