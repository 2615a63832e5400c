/* record_opts: parse the shared recording options, run the monitor, write
 * the records and print the summary, for `run` and `watch` alike.
 */
#include "cmd/record_opts.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "counters/counters.h"
#include "export/profile_folded.h"
#include "export/speedscope.h"
#include "export/perfstat.h"
#include "export/summary.h"
#include "export/time_format.h"
#include "export/trace.h"
#include "util/fsafe.h"
#include "util/xalloc.h"

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->interval_ms = 100;
	o->csv_format = CSV_FULL;
	o->cgroup = true;
	o->probes = true;
	o->save = true;
	o->kind = "run";
	o->gpu = true;
	o->tags = xcalloc(1, sizeof(*o->tags));
	o->probe_logs = xcalloc(1, sizeof(*o->probe_logs));
	fleet_opts_init(&o->fleet);
	o->push_labels = xcalloc(1, sizeof(*o->push_labels));
	o->idle_ms = 500;
	o->profile_hz = 99;
	probe_config_init(&o->probe_cfg);
	o->default_prefixes = o->probe_cfg.n_prefixes;
	o->default_lane_keys = o->probe_cfg.n_lane_keys;
}

void record_opts_release(struct record_opts *o)
{
	free(o->tags);
	free(o->probe_logs);
	for (size_t i = 0; i < o->npush_labels; i += 2)
		free((char *)o->push_labels[i]); /* the names; values point into argv */
	free(o->push_labels);
	probe_config_release(&o->probe_cfg);
}

enum {
	OPT_CSV_FORMAT = 1, OPT_CGROUP, OPT_PROBE, OPT_LANE_KEY, OPT_TAG, OPT_GPU, OPT_PROBE_LOG, OPT_PROBE_TIME,
	OPT_PUSH, OPT_PUSH_LABEL, OPT_EVENTS, OPT_INTERVAL,
};

/* The profile exports are files of one run: bench and bisect-check refuse them. */
static int export_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct record_opts_exports *x = row->value;
	char opt[64];
	snprintf(opt, sizeof(opt), "--%s", row->long_name);
	if (x->refused)
		return err_set(e, "%s is not available here: it writes one run's profile (run, watch, or show RUN)",
			       opt);
	if (!*arg)
		return err_set(e, "%s: expected a file name", opt);
	const char **to[] = { &x->folded_path, &x->speedscope_path, &x->trace_path };
	*to[row->defval] = arg;
	return 0;
}

void record_opts_export_rows(struct record_opts_exports *x, unsigned flags,
			     struct parseopt rows[RECORD_OPTS_EXPORT_NROWS])
{
	const struct parseopt r[RECORD_OPTS_EXPORT_NROWS] = {
		PARSEOPT_CALLBACK(0, "export-folded", x, "FILE",
				  "the profile as folded stacks, rooted at their\nphases (flamegraph.pl)", export_opt),
		PARSEOPT_CALLBACK(0, "export-speedscope", x, "FILE",
				  "the profile as speedscope JSON: one profile per\nphase and the run", export_opt),
		PARSEOPT_CALLBACK(0, "export-trace", x, "FILE",
				  "the run as Chrome trace-event JSON (Perfetto):\nphases, counters, sampled stacks",
				  export_opt),
		PARSEOPT_END(),
	};
	memcpy(rows, r, sizeof(r));
	for (int i = 0; i < RECORD_OPTS_EXPORT_NROWS - 1; i++) {
		rows[i].flags = flags;
		rows[i].defval = i; /* which of x's paths */
	}
}

/* arg is one of two words: *second = whether it is the second; else an error naming opt. */
static int two_words(const char *opt, const char *arg, const char *first, const char *second, bool *is_second,
		     struct err *e)
{
	if (strcmp(arg, first) && strcmp(arg, second))
		return err_set(e, "%s: expected %s or %s, got '%s'", opt, first, second, arg);
	*is_second = !strcmp(arg, second);
	return 0;
}

/* The shared options with more to do than store a value: row->defval says which. */
static int record_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct record_opts *o = row->value;
	bool b = false; /* gcc -O3 cannot see that two_words sets it when it returns 0 */
	switch (row->defval) {
	case OPT_CSV_FORMAT:
		if (two_words("--csv-format", arg, "full", "seed", &b, e) < 0)
			return -1;
		o->csv_format = b ? CSV_SEED : CSV_FULL;
		return 0;
	case OPT_CGROUP:
		if (two_words("--cgroup", arg, "auto", "off", &b, e) < 0)
			return -1;
		o->cgroup = !b;
		return 0;
	case OPT_GPU:
		if (two_words("--gpu", arg, "auto", "off", &b, e) < 0)
			return -1;
		o->gpu = !b;
		return 0;
	case OPT_PROBE_TIME:
		return two_words("--probe-time", arg, "auto", "arrival", &o->probe_time_arrival, e);
	case OPT_PROBE:
		return probe_config_add_prefix(&o->probe_cfg, arg, e);
	case OPT_LANE_KEY:
		return probe_config_add_lane_key(&o->probe_cfg, arg, e);
	case OPT_TAG:
		o->tags = xrealloc(o->tags, (o->ntags + 2) * sizeof(*o->tags));
		o->tags[o->ntags++] = arg;
		o->tags[o->ntags] = NULL;
		return 0;
	case OPT_PROBE_LOG:
		o->probe_logs = xrealloc(o->probe_logs, (o->nlogs + 2) * sizeof(*o->probe_logs));
		o->probe_logs[o->nlogs++] = (char *)arg;
		o->probe_logs[o->nlogs] = NULL;
		return 0;
	case OPT_PUSH:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return err_set(e, "--push: expected an http:// or https:// URL, got '%s'", arg);
		o->fleet.push_url = arg;
		return 0;
	case OPT_PUSH_LABEL: {
		char *name;
		const char *value;
		if (fleet_parse_label(arg, &name, &value, e) < 0)
			return -1;
		o->push_labels = xrealloc(o->push_labels, (o->npush_labels + 3) * sizeof(*o->push_labels));
		o->push_labels[o->npush_labels++] = name;
		o->push_labels[o->npush_labels++] = value;
		o->push_labels[o->npush_labels] = NULL;
		o->fleet.labels = o->push_labels;
		return 0;
	}
	case OPT_INTERVAL: {
		/* a bare number is milliseconds, as it always was; "50ms", "0.2s" as everywhere */
		double ms;
		if (parse_duration_ms(arg, 1, &ms, "--interval", e) < 0)
			return -1;
		if (!(ms >= 1 && ms <= 3600000))
			return err_set(e, "--interval: expected 1 ms to 1 h, got '%s'", arg);
		/* the sampler's timer counts whole ms: 1.5 is refused, not rounded to 2 */
		if (ms != (double)(int)ms)
			return err_set(e, "--interval: '%s' is not a whole number of milliseconds", arg);
		o->interval_ms = (int)ms;
		return 0;
	}
	case OPT_EVENTS:
		if (counters_check_events(arg, e) < 0)
			return -1;
		o->events = arg;
		o->counters = true;
		return 0;
	}
	return err_set(e, "unknown shared option %d", (int)row->defval);
}

#define ROW(s, l, a, h, code, fl) \
	{ .type = PARSEOPT_TYPE_CALLBACK, .short_name = (s), .long_name = (l), .value = o, .argh = (a), \
	  .help = (h), .flags = (fl), .defval = (code), .cb = record_opt }

void record_opts_attach_rows(struct record_opts *o, int64_t *attach, const char **name, const char **pidfile,
			     struct parseopt rows[RECORD_OPTS_ATTACH_NROWS])
{
	const struct parseopt r[] = {
		PARSEOPT_I64(0, "attach", attach, "PID", "also record this daemon's tree for each run's lifetime",
			     1, 0x7fffffff),
		PARSEOPT_STRING(0, "attach-name", name, "NAME", "the daemon by process name"),
		PARSEOPT_STRING(0, "attach-pidfile", pidfile, "FILE", "the daemon by pidfile"),
		PARSEOPT_DURATION(0, "idle-ms", &o->idle_ms, "TIME",
				  "sample the daemon this long before each run\n(default 500 ms)", 1, 0, 3600000),
		PARSEOPT_END(),
	};
	memcpy(rows, r, sizeof(r));
}

void record_opts_rows(struct record_opts *o, enum record_opts_for cmd, struct parseopt rows[RECORD_OPTS_NROWS])
{
	const bool bench = cmd == RECORD_OPTS_FOR_BENCH, bisect = cmd == RECORD_OPTS_FOR_BISECT;
	const bool hunt = cmd == RECORD_OPTS_FOR_HUNT;
	/* -o and --csv are per run: bench, bisect-check and bisect refuse them after parsing
	 * (bench reads --output as hyperfine's: where the commands' output goes) */
	const unsigned per_run = bench || bisect || hunt ? PARSEOPT_HIDDEN : 0;
	/* quiet already, saved only with --save (bisect: always), no push */
	const unsigned not_bisect = bisect || hunt ? PARSEOPT_HIDDEN : 0;
	const unsigned no_profile = bisect ? PARSEOPT_HIDDEN : 0; /* bisect's culprits name the code */
	/* a cgroup and counters need a command perfhunt starts: watch accepts and ignores them */
	const unsigned launched = cmd == RECORD_OPTS_FOR_WATCH ? PARSEOPT_HIDDEN : 0;
	o->rows_for = (int)cmd;
	const struct parseopt r[] = {
		ROW(0, "interval", "TIME", "sampling interval: 50ms, 0.5s; a bare number is ms\n(default 100, minimum 1; stretched where a sample takes\nmore than half a core)",
		    OPT_INTERVAL, 0),
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'o', .long_name = "output", .value = &o->json_path,
		  .argh = bench ? "WHERE" : "FILE",
		  .help = bench ? "where the commands' output goes, as hyperfine's:\nnull or pipe (default: read for probes, not\n"
				  "shown), inherit (as --show-output), or a path\nwith a '/': each run's stdout, the file truncated\n"
				  "first (stderr dropped)"
				: "write the JSON run record to FILE",
		  .flags = bench ? 0 : per_run },
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "csv", .value = &o->csv_path, .argh = "FILE",
		  .help = "write the timeline CSV (every sample) to FILE\n(-: stdout)", .flags = per_run },
		ROW(0, "csv-format", "F", "full (default), or seed: epoch_ms,rss_kb,rss_gib\nwith no header",
		    OPT_CSV_FORMAT, per_run),
		PARSEOPT_FLAG(0, "pss", &o->pss, "also sample every process's PSS (smaps_rollup;\ncostlier, 20 ms budget per sample)"),
		ROW(0, "cgroup", "MODE", "auto (default): the tree's memory at each\nsample and its exact peak from a memory\ncgroup; off (the tree's PSS instead)",
		    OPT_CGROUP, launched),
		{ .type = PARSEOPT_TYPE_FLAG, .short_name = 'q', .long_name = "quiet", .value = &o->quiet,
		  .help = bench ? "no progress bar and no notes on stderr" : "no summary", .flags = not_bisect,
		  .defval = 1 },
		ROW(0, "probe", "PREFIX", "also parse lines holding 'PREFIX:'\n(default PERFHUNT, CUZK_TIMING)",
		    OPT_PROBE, 0),
		ROW(0, "lane-key", "KEY", "a probe key that names a lane\n(default gpu_tid, tid, worker)",
		    OPT_LANE_KEY, 0),
		PARSEOPT_CLEAR(0, "no-probes", &o->probes, "leave the command's stdout/stderr untouched,\n"
			       "no probe parsing"),
		ROW(0, "probe-log", "FILE", "follow FILE like tail -F and parse probe lines in it,\n"
		    "JSON-lines and logfmt records by their message (repeatable)",
		    OPT_PROBE_LOG, PARSEOPT_NONEMPTY),
		ROW(0, "probe-time", "MODE", "auto (default): a log line's leading timestamp, or a\n"
		    "record's time field, dates its probe; arrival: when\nit was read", OPT_PROBE_TIME, 0),
		ROW(0, "tag", "NAME", bench || bisect || hunt ? "tag the runs in the history (repeatable)"
					    : "tag the run in the history (repeatable)", OPT_TAG, PARSEOPT_NONEMPTY),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "no-save", .value = &o->save,
		  .help = bench ? "do not store the bench in the history" : "do not store the run in the history",
		  .flags = not_bisect },
		ROW(0, "gpu", "MODE", "auto (default): sample GPU memory, the tree's and each\nprocess's, when an NVIDIA driver is present; off",
		    OPT_GPU, 0),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "counters", .value = &o->counters, .defval = 1,
		  .help = "count perf events over the tree (software always,\nhardware where present)",
		  .flags = launched },
		ROW('e', "events", "LIST", "perf events to count, as perf stat -e takes them:\n"
		    "cycles:u, r003c, cpu/cycles/, sched:sched_switch,\n{a,b} (implies --counters)", OPT_EVENTS, launched),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "gpu-trace", .value = &o->gpu_trace, .defval = 1,
		  .help = "record the CUDA processes' kernels, copies, GPU memory\nand NVTX ranges (CUPTI), per phase",
		  .flags = launched },
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "export-openmetrics", .value = &o->fleet.openmetrics_path,
		  .argh = "FILE", .help = "the summary as OpenMetrics text\n(node_exporter textfile)",
		  .flags = not_bisect },
		ROW(0, "push", "URL", "push the summary to a Prometheus Pushgateway", OPT_PUSH, not_bisect),
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "push-job", .value = &o->fleet.job, .argh = "NAME",
		  .help = "the gateway's job (default perfhunt)", .flags = PARSEOPT_NONEMPTY | not_bisect },
		ROW(0, "push-label", "K=V", "a grouping label of the push (repeatable)", OPT_PUSH_LABEL, not_bisect),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "profile", .value = &o->profile, .defval = 1,
		  .help = "sample on-CPU stacks (user and kernel) of the tree\nwith perf, and the stacks its threads blocked on\nwith how long, per phase, into the record",
		  .flags = no_profile },
		{ .type = PARSEOPT_TYPE_INT, .long_name = "profile-hz", .value = &o->profile_hz, .argh = "HZ",
		  .help = "samples per second of --profile (default 99)", .min = 1, .max = 10000, .flags = no_profile },
		PARSEOPT_END(), /* the export rows from here */
	};
	_Static_assert(sizeof(r) / sizeof(r[0]) == RECORD_OPTS_NROWS - RECORD_OPTS_EXPORT_NROWS + 1,
		       "RECORD_OPTS_NROWS counts the rows and the export rows");
	memcpy(rows, r, sizeof(r));
	o->exports.refused = bench || bisect || hunt;
	record_opts_export_rows(&o->exports, per_run, rows + RECORD_OPTS_NROWS - RECORD_OPTS_EXPORT_NROWS);
}

#undef ROW

/* Appends a word (formatted) to the NULL-terminated list *w of *n words. */
static void word(char ***w, size_t *n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void word(char ***w, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s;
	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	va_end(ap);
	*w = xrealloc(*w, (*n + 2) * sizeof(**w));
	(*w)[(*n)++] = s;
	(*w)[*n] = NULL;
}

char **record_opts_words(const struct record_opts *o)
{
	struct record_opts defaults;
	record_opts_init(&defaults);
	char **w = xcalloc(1, sizeof(*w));
	size_t n = 0;
	const struct record_opts_target *t = &o->target;
	if (t->shell)
		word(&w, &n, "--shell");
	if (t->attach_name)
		word(&w, &n, "--attach-name=%s", t->attach_name);
	else if (t->attach_pidfile)
		word(&w, &n, "--attach-pidfile=%s", t->attach_pidfile);
	else if (t->attach_pid > 0)
		word(&w, &n, "--attach=%d", (int)t->attach_pid);
	if ((t->attach_name || t->attach_pidfile || t->attach_pid > 0) && o->idle_ms != defaults.idle_ms)
		word(&w, &n, "--idle-ms=%.0f", o->idle_ms);
	if (o->interval_ms != defaults.interval_ms)
		word(&w, &n, "--interval=%d", o->interval_ms);
	if (o->pss)
		word(&w, &n, "--pss");
	if (!o->cgroup)
		word(&w, &n, "--cgroup=off");
	if (!o->gpu)
		word(&w, &n, "--gpu=off");
	if (!o->probes)
		word(&w, &n, "--no-probes");
	for (size_t i = o->default_prefixes; i < o->probe_cfg.n_prefixes; i++)
		word(&w, &n, "--probe=%s", o->probe_cfg.prefixes[i]);
	for (size_t i = o->default_lane_keys; i < o->probe_cfg.n_lane_keys; i++)
		word(&w, &n, "--lane-key=%s", o->probe_cfg.lane_keys[i]);
	for (size_t i = 0; i < o->nlogs; i++)
		word(&w, &n, "--probe-log=%s", o->probe_logs[i]);
	if (o->probe_time_arrival)
		word(&w, &n, "--probe-time=arrival");
	if (o->events)
		word(&w, &n, "--events=%s", o->events);
	else if (o->counters)
		word(&w, &n, "--counters");
	if (o->gpu_trace)
		word(&w, &n, "--gpu-trace");
	if (o->profile)
		word(&w, &n, "--profile");
	if (o->profile && o->profile_hz != defaults.profile_hz)
		word(&w, &n, "--profile-hz=%d", o->profile_hz);
	record_opts_release(&defaults);
	return w;
}

int record_opts_check_outputs(const struct record_opts *o, const char *const *more, size_t n)
{
	const char *own[] = { o->json_path, o->fleet.openmetrics_path, o->exports.folded_path,
			      o->exports.speedscope_path, o->exports.trace_path };
	const size_t nown = sizeof(own) / sizeof(own[0]);
	const char **files = xcalloc(nown + n, sizeof(*files));
	memcpy(files, own, sizeof(own));
	if (n)
		memcpy(files + nown, more, n * sizeof(*more));
	const struct session_outputs out = { .files = files, .nfiles = nown + n, .stream = o->csv_path,
					     .history = o->save };
	int status = cmd_check_outputs(&out);
	free(files);
	return status;
}

void record_opts_session(const struct record_opts *o, const struct launch_opts *launch,
			 uint64_t memory_limit_bytes, char *const *record_argv, struct session_config *c)
{
	*c = (struct session_config){
		.kind = o->kind,
		.launch = launch,
		.record_argv = record_argv,
		.memory_limit_bytes = memory_limit_bytes,
		.interval_ms = o->interval_ms,
		.json_path = o->json_path,
		.csv_path = o->csv_path,
		.csv_format = o->csv_format,
		.pss = o->pss,
		.cgroup = o->cgroup,
		.gpu = o->gpu,
		.probes = o->probes,
		.probe_cfg = &o->probe_cfg,
		.probe_logs = o->probe_logs,
		.nlogs = o->nlogs,
		.probe_time_arrival = o->probe_time_arrival,
		.counters = o->counters,
		.events = o->events,
		.profile = o->profile,
		.gpu_trace = o->gpu_trace,
		.profile_hz = o->profile_hz,
		.profile_batch = o->profile_batch,
		.discard_output = o->discard_output,
		.stdout_fd = o->stdout_fd,
		.attach_pid = o->attach_pid,
		.duration_ms = o->duration_ms,
		.daemon_pid = o->daemon_pid,
		.idle_ms = o->idle_ms,
		.timeout_ms = o->timeout_ms,
		.tags = o->tags,
		.save = o->save,
		.fleet = &o->fleet,
		.push_every_ms = o->push_every_ms,
	};
}

/* How a recording command shows a recording: warnings as they come; once
 * the run is stored and every file written, the summary, then where it was
 * saved. The summary is rendered last, outside the session's shield: a
 * signal while it prints ends perfhunt as the signal does, with nothing lost. */
struct shown {
	const struct record_opts *o;
	const struct record_watch *w;
	const struct record_opts_exports *exports; /* run and watch write them; a bench's runs do not */
	bool summary;
	int64_t saved_id;        /* 0: not saved */
};

static void show_started(void *arg)
{
	struct shown *sh = arg;
	if (sh->w && sh->w->started)
		sh->w->started(sh->w->arg);
}

static void show_warning(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "perfhunt: %s\n", msg);
}

static void show_saved(void *arg, int64_t id)
{
	struct shown *sh = arg;
	sh->saved_id = id;
}

static int write_exports(void *arg, const json_t *rec, int status)
{
	struct shown *sh = arg;
	return sh->exports ? record_opts_write_exports(sh->exports, rec, status) : status;
}

/* run -f FORMAT: GNU time's lines, to -o FILE (-a: appended) or stderr;
 * returns status, or PH_EXIT_FAIL where it was 0 when they cannot be written. */
static int show_time_format(const struct record_opts *o, const json_t *rec, int status)
{
	struct err e;
	const char *path = o->time_path;
	bool std = !path || !strcmp(path, "-");
	FILE *f = std ? (path ? stdout : stderr) : NULL;
	if (!f && fsafe_check_output(path, &e) < 0)
		return cmd_fail(status ? status : PH_EXIT_FAIL, &e);
	if (!f && !(f = fopen(path, o->time_append ? "a" : "w"))) {
		err_sys(&e, "cannot write '%s'", path);
		return cmd_fail(status ? status : PH_EXIT_FAIL, &e);
	}
	fflush(stdout);
	int rc = time_format_write(rec, o->time_format, f);
	if ((std ? fflush(f) : fclose(f)) != 0)
		rc = -1;
	if (rc < 0 && !std) {
		err_set(&e, "cannot write '%s'", path);
		return cmd_fail(status ? status : PH_EXIT_FAIL, &e);
	}
	return rc < 0 && !status ? PH_EXIT_FAIL : status;
}

static void show_summary(const struct shown *sh, const json_t *rec)
{
	if (!rec || !sh->summary || sh->o->quiet || sh->o->time_format || sh->o->counter_sep)
		return;
	fflush(stdout);
	summary_print(rec, stderr);
	if (sh->saved_id)
		fprintf(stderr, "  %-17s run %lld (compare with @last, see 'perfhunt history')\n", "saved",
			(long long)sh->saved_id);
}

static int record(const struct session_config *c, struct shown *sh, json_t **rec, int *signal)
{
	struct session_hooks h = { .arg = sh, .started = show_started, .warn = show_warning,
				   .saved = show_saved, .kept = write_exports };
	struct session_outcome out;
	struct err e;
	/* the record says how to record it again (history detect's bisect line) */
	char **words = record_opts_words(sh->o);
	struct session_config with_words = *c;
	with_words.option_words = words;
	int rc = session_record(&with_words, &h, &out, &e);
	xstrv_free(words);
	if (signal)
		*signal = out.signal;
	if (rc < 0) {
		if (sh->w && sh->w->failed)
			sh->w->failed(sh->w->arg, e.msg);
		*rec = NULL;
		return cmd_fail(out.status, &e);
	}
	*rec = out.rec;
	return out.status;
}

int record_opts_write_exports(const struct record_opts_exports *x, const json_t *rec, int status)
{
	if (!rec)
		return status;
	const struct cmd_export ex[] = { { x->folded_path, profile_folded_write },
					 { x->speedscope_path, speedscope_write }, { x->trace_path, trace_write } };
	return cmd_write_exports(ex, sizeof(ex) / sizeof(ex[0]), rec, status);
}

int record_opts_execute(const struct record_opts *o, const struct launch_opts *launch,
			uint64_t memory_limit_bytes, char *const *record_argv, const struct record_watch *w)
{
	struct session_config c;
	record_opts_session(o, launch, memory_limit_bytes, record_argv, &c);
	struct shown sh = { .o = o, .w = w, .exports = &o->exports, .summary = true };
	json_t *rec;
	int status = record(&c, &sh, &rec, NULL);
	show_summary(&sh, rec);
	if (rec && o->time_format)
		status = show_time_format(o, rec, status);
	if (rec && o->counter_sep && (perfstat_write(rec, o->counter_sep, stderr) < 0 || fflush(stderr) != 0) && !status)
		status = PH_EXIT_FAIL;
	json_decref(rec);
	return status;
}

int record_opts_capture(const struct record_opts *o, const struct launch_opts *launch,
			char *const *record_argv, bool save, json_t **rec, int *signal)
{
	struct session_config c;
	record_opts_session(o, launch, 0, record_argv, &c);
	c.save = save;
	c.kept = true;
	c.fleet = NULL; /* the caller's record of all runs goes to the fleet */
	struct shown sh = { .o = o };
	return record(&c, &sh, rec, signal);
}
