/* record_opts: the options and the orchestration shared by every command that
 * records a tree (run, watch): sampling, output files, probes, history.
 * One parser and one executor, so `run` and `watch` cannot drift apart.
 */
#ifndef PERFHUNT_RECORD_OPTS_H
#define PERFHUNT_RECORD_OPTS_H

#include <getopt.h>
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
};

#define RECORD_OPTS_SHORT "o:qe:"
#define RECORD_OPTS_HELP \
	"      --interval MS      sampling interval (default 100, minimum 1)\n" \
	"  -o, --output FILE      write the JSON run record to FILE\n" \
	"      --csv FILE         write the timeline CSV (every sample) to FILE\n" \
	"      --csv-format F     full (default) or seed (epoch_ms,rss_kb,rss_gib, no header)\n" \
	"      --pss              also sample PSS (smaps_rollup; costlier, time-budgeted)\n" \
	"      --cgroup MODE      auto (default): exact whole-tree peak from a memory cgroup; off\n" \
	"  -q, --quiet            no summary\n" \
	"      --probe PREFIX     also parse lines holding 'PREFIX:' (default PERFHUNT, CUZK_TIMING)\n" \
	"      --lane-key KEY     a probe key that names a lane (default gpu_tid, tid, worker)\n" \
	"      --no-probes        leave the command's stdout/stderr untouched, no probe parsing\n" \
	"      --probe-log FILE   follow FILE like tail -F and parse probe lines in it (repeatable)\n" \
	"      --probe-time MODE  auto (default): a log line's leading timestamp dates its probe; arrival\n" \
	"      --tag NAME         tag the run in the history (repeatable)\n" \
	"      --no-save          do not store the run in the history\n" \
	"      --gpu MODE         auto (default): sample GPU memory when an NVIDIA driver is present; off\n" \
	"      --counters         count perf events over the tree (software always, hardware where present)\n" \
	"  -e, --events LIST      perf event names to count (implies --counters)\n" \
	"      --export-openmetrics FILE  the summary as OpenMetrics text (node_exporter textfile)\n" \
	"      --push URL         push the summary to a Prometheus Pushgateway\n" \
	"      --push-job NAME    the gateway's job (default perfhunt); --push-label K=V adds a label\n"

void record_opts_init(struct record_opts *o);
void record_opts_release(struct record_opts *o);
/* getopt_long table: the shared options followed by extra (terminated); caller frees. */
struct option *record_opts_longopts(const struct option *extra);
/* getopt_long over the shared options and a command's own: returns the next
 * option that is not a shared one (for the command's switch), -1 at the end,
 * or -2 after printing a usage error. extra_short: the command's own short
 * options ("+" first to stop at the first operand). */
int record_opts_getopt(struct record_opts *o, const char *cmd, int argc, char **argv,
		       const char *extra_short, const struct option *longopts);
/* A whole-number option value in [min, max]; prints the usage error and
 * returns -1 when it is not one. */
int record_opts_number(const char *cmd, const char *opt, const char *arg, int64_t min, int64_t max,
		       int64_t *out);
/* Handles option c if it is a shared one: 1 handled, 0 not ours, -1 bad value (e filled). */
int record_opts_parse(struct record_opts *o, int c, const char *arg, struct err *e);
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
 * Returns the run's exit status. */
int record_opts_capture(const struct record_opts *o, const struct launch_opts *launch,
			char *const *record_argv, bool save, json_t **rec);

#endif
