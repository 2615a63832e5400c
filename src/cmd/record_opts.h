/* record_opts: the options and the orchestration shared by every command that
 * records a tree (run, watch): sampling, output files, probes, history.
 * One parser and one executor, so `run` and `watch` cannot drift apart.
 */
#ifndef PERFHUNT_RECORD_OPTS_H
#define PERFHUNT_RECORD_OPTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fleet/fleet.h"
#include "monitor/launch.h"
#include "probe/probe.h"
#include "record/csv.h"
#include "session/session.h"
#include "util/err.h"
#include "util/parse.h"
#include "util/parseopt.h"

/* The files of one run's record: --export-folded, --export-speedscope and
 * --export-trace (NULL: not asked). run and watch write them of the run they
 * record, show of a stored one; bench and bisect-check refuse them. */
struct record_opts_exports {
	const char *folded_path, *speedscope_path, *trace_path;
	bool refused; /* the rows refuse them: bench, bisect-check */
};

/* How a command's tree is started and found, beside the shared options:
 * set by run, bench and bisect-check after parsing, for the record's
 * options.words. */
struct record_opts_target {
	bool shell;                                /* --shell */
	pid_t attach_pid;                          /* --attach PID as given (0: none) */
	const char *attach_name, *attach_pidfile;  /* --attach-name, --attach-pidfile */
};

struct record_opts {
	int interval_ms;
	const char *json_path;
	const char *csv_path;
	enum csv_format csv_format;
	bool pss;
	bool cgroup;
	bool quiet;
	bool probes;
	struct probe_config probe_cfg;
	const char **tags;   /* NULL-terminated */
	size_t ntags;
	bool save;
	const char *kind;    /* "run" or "watch" */
	pid_t attach_pid;    /* watch */
	double duration_ms;  /* watch */
	bool gpu;            /* sample GPU memory when NVML is present */
	bool counters;       /* perf_event_open counters (run only) */
	const char *events;  /* -e LIST, NULL = default */
	bool discard_output; /* bench: parse the command's output, do not show it */
	int stdout_fd;       /* bench --output FILE: the command's stdout copied here (> 2; 0: none) */
	pid_t daemon_pid;    /* run --attach: also sample this tree for the command's lifetime */
	double idle_ms;      /* run --attach: settle period before the command */
	double timeout_ms;   /* bench --timeout: kill a run's tree after this long (0 = never) */
	char **probe_logs;   /* --probe-log FILE... (NULL-terminated) */
	size_t nlogs;
	bool probe_time_arrival; /* --probe-time arrival: ignore log timestamps */
	struct fleet_opts fleet; /* --export-openmetrics, --push, --push-job, --push-label */
	const char **push_labels; /* name, value, ..., NULL */
	size_t npush_labels;
	double push_every_ms;    /* watch --push-every: live samples to the gateway */
	bool profile;            /* --profile: on-CPU stacks through perf */
	bool gpu_trace;          /* --gpu-trace: CUDA activity through the collector */
	int profile_hz;          /* --profile-hz (default 99) */
	struct profbatch *profile_batch; /* bench --profile: the one perf its runs share (bench's), or NULL */
	struct record_opts_exports exports; /* --export-folded/-speedscope/-trace */
	int rows_for;            /* the enum record_opts_for the rows were made for */
	struct record_opts_target target;
	const char *time_format; /* run -f, -v, -p: GNU time's lines instead of the summary */
	const char *time_path;   /* ... into this file (-o with a format), else stderr */
	bool time_append;        /* -a: appended to time_path */
	const char *counter_sep; /* run -x SEP: perf stat's -x lines of the counters instead of the summary */
	size_t default_prefixes, default_lane_keys; /* probe_cfg's own, before --probe/--lane-key */
};

/* The command a table of the shared options is for: what it shows of them.
 * bench and bisect-check accept but hide the per-run files (-o, --csv,
 * refused after parsing); bisect-check also hides what it has no use for,
 * watch the options that need a command perfhunt starts (--cgroup, counters). */
/* bisect (HUNT) stores every run and pushes none: it hides what bisect-check
 * hides but --profile. */
enum record_opts_for {
	RECORD_OPTS_FOR_RUN, RECORD_OPTS_FOR_WATCH, RECORD_OPTS_FOR_BENCH, RECORD_OPTS_FOR_BISECT, RECORD_OPTS_FOR_HUNT
};
#define RECORD_OPTS_NROWS 28

void record_opts_init(struct record_opts *o);
void record_opts_release(struct record_opts *o);
/* Fills rows with the shared options (END-terminated), their values written
 * into o, for a command's table: PARSEOPT_INCLUDE(rows). */
void record_opts_rows(struct record_opts *o, enum record_opts_for cmd, struct parseopt rows[RECORD_OPTS_NROWS]);
/* Fills rows with the options that name the daemon each run also records
 * (END-terminated): --attach PID into *attach, --attach-name and
 * --attach-pidfile into *name and *pidfile, --idle-ms into o->idle_ms. One
 * table for bench and bisect, so both read them alike. */
#define RECORD_OPTS_ATTACH_NROWS 5
void record_opts_attach_rows(struct record_opts *o, int64_t *attach, const char **name, const char **pidfile,
			     struct parseopt rows[RECORD_OPTS_ATTACH_NROWS]);
/* Fills rows with the three export options (END-terminated), their values
 * written into x, each row with flags (PARSEOPT_HIDDEN). */
#define RECORD_OPTS_EXPORT_NROWS 4
void record_opts_export_rows(struct record_opts_exports *x, unsigned flags,
			     struct parseopt rows[RECORD_OPTS_EXPORT_NROWS]);
/* Writes the exports x asks for of the run record rec: a failure is said on
 * stderr and makes status PH_EXIT_FAIL where it was 0. Returns the status. */
int record_opts_write_exports(const struct record_opts_exports *x, const json_t *rec, int status);
/* Checks, before anything runs, every file these options write (-o, --csv,
 * the exports, --export-openmetrics), the history where the run is saved,
 * and more[0..n) (NULL entries skipped): 0, or the error said and
 * PH_EXIT_USAGE. */
int record_opts_check_outputs(const struct record_opts *o, const char *const *more, size_t n);
/* The words that record again as o does, each one bisect-check accepts and
 * each an option with its value ("--interval=10", "--probe-log=app.log",
 * "--attach-name=cuzkd"), only where o differs from the defaults.
 * NULL-terminated; the caller frees it with xstrv_free. */
char **record_opts_words(const struct record_opts *o);
/* The session configuration of these options (borrowing from o). */
void record_opts_session(const struct record_opts *o, const struct launch_opts *launch,
			 uint64_t memory_limit_bytes, char *const *record_argv, struct session_config *c);

/* watch --detach: told when sampling runs, or why it could not start. */
struct record_watch {
	void *arg;
	void (*started)(void *arg);
	void (*failed)(void *arg, const char *msg);
};

/* Records once (launch != NULL: run mode; else watch o->attach_pid): warnings
 * on stderr, the summary unless --quiet, the history and the fleet. w may be
 * NULL. Returns the exit status perfhunt should give. */
int record_opts_execute(const struct record_opts *o, const struct launch_opts *launch,
			uint64_t memory_limit_bytes, char *const *record_argv, const struct record_watch *w);
/* One run of a command that keeps the records itself (bench, bisect-check):
 * warnings only, stored in the history only with save, never pushed; *rec
 * gets the record (caller json_decref's it) or NULL when nothing ran.
 * Returns the run's exit status; *signal (when non-NULL) the signal perfhunt
 * received meanwhile, or 0 (a run the user cancelled, not a failed one). */
int record_opts_capture(const struct record_opts *o, const struct launch_opts *launch,
			char *const *record_argv, bool save, json_t **rec, int *signal);

#endif
