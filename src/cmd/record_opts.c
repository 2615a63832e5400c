/* record_opts: parse the shared recording options, run the monitor, write
 * the records and print the summary, for `run` and `watch` alike.
 */
#include "cmd/record_opts.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "counters/counters.h"
#include "export/summary.h"
#include "monitor/monitor.h"
#include "monitor/probefeed.h"
#include "record/jsonio.h"
#include "record/phases_json.h"
#include "record/runrec.h"
#include "store/store.h"
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
	o->ready_fd = -1;
	fleet_opts_init(&o->fleet);
	o->push_labels = xcalloc(1, sizeof(*o->push_labels));
	o->idle_ms = 500;
	probe_config_init(&o->probe_cfg);
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
	OPT_PUSH, OPT_PUSH_LABEL, OPT_EVENTS,
};

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
	bool b;
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

void record_opts_rows(struct record_opts *o, enum record_opts_for cmd, struct parseopt rows[RECORD_OPTS_NROWS])
{
	const bool bench = cmd == RECORD_OPTS_FOR_BENCH, bisect = cmd == RECORD_OPTS_FOR_BISECT;
	/* -o and --csv are per run: bench and bisect-check refuse them after parsing */
	const unsigned per_run = bench || bisect ? PARSEOPT_HIDDEN : 0;
	const unsigned not_bisect = bisect ? PARSEOPT_HIDDEN : 0; /* quiet already, saved only with --save, no push */
	/* a cgroup and counters need a command perfhunt starts: watch accepts and ignores them */
	const unsigned launched = cmd == RECORD_OPTS_FOR_WATCH ? PARSEOPT_HIDDEN : 0;
	const struct parseopt r[RECORD_OPTS_NROWS] = {
		PARSEOPT_INT(0, "interval", &o->interval_ms, "MS", "sampling interval (default 100, minimum 1)", 1,
			     3600000),
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'o', .long_name = "output", .value = &o->json_path,
		  .argh = "FILE", .help = "write the JSON run record to FILE", .flags = per_run },
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "csv", .value = &o->csv_path, .argh = "FILE",
		  .help = "write the timeline CSV (every sample) to FILE", .flags = per_run },
		ROW(0, "csv-format", "F", "full (default), or seed: epoch_ms,rss_kb,rss_gib\nwith no header",
		    OPT_CSV_FORMAT, per_run),
		PARSEOPT_FLAG(0, "pss", &o->pss, "also sample PSS (smaps_rollup; costlier,\ntime-budgeted)"),
		ROW(0, "cgroup", "MODE", "auto (default): exact whole-tree peak from a\nmemory cgroup; off",
		    OPT_CGROUP, launched),
		{ .type = PARSEOPT_TYPE_FLAG, .short_name = 'q', .long_name = "quiet", .value = &o->quiet,
		  .help = bench ? "no progress bar and no notes on stderr" : "no summary", .flags = not_bisect,
		  .defval = 1 },
		ROW(0, "probe", "PREFIX", "also parse lines starting 'PREFIX:'\n(default PERFHUNT, CUZK_TIMING)",
		    OPT_PROBE, 0),
		ROW(0, "lane-key", "KEY", "a probe key that names a lane\n(default gpu_tid, tid, worker)",
		    OPT_LANE_KEY, 0),
		PARSEOPT_CLEAR(0, "no-probes", &o->probes, "leave the command's stdout/stderr untouched,\n"
			       "no probe parsing"),
		ROW(0, "probe-log", "FILE", "follow FILE like tail -F and parse probe lines in it\n(repeatable)",
		    OPT_PROBE_LOG, PARSEOPT_NONEMPTY),
		ROW(0, "probe-time", "MODE", "auto (default): a log line's leading timestamp dates\n"
		    "its probe; arrival: when it was read", OPT_PROBE_TIME, 0),
		ROW(0, "tag", "NAME", bench || bisect ? "tag the runs in the history (repeatable)"
					    : "tag the run in the history (repeatable)", OPT_TAG, PARSEOPT_NONEMPTY),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "no-save", .value = &o->save,
		  .help = bench ? "do not store the bench in the history" : "do not store the run in the history",
		  .flags = not_bisect },
		ROW(0, "gpu", "MODE", "auto (default): sample GPU memory when an NVIDIA\ndriver is present; off",
		    OPT_GPU, 0),
		{ .type = PARSEOPT_TYPE_FLAG, .long_name = "counters", .value = &o->counters, .defval = 1,
		  .help = "count perf events over the tree (software always,\nhardware where present)",
		  .flags = launched },
		ROW('e', "events", "LIST", "perf event names to count (implies --counters)", OPT_EVENTS, launched),
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "export-openmetrics", .value = &o->fleet.openmetrics_path,
		  .argh = "FILE", .help = "the summary as OpenMetrics text\n(node_exporter textfile)",
		  .flags = not_bisect },
		ROW(0, "push", "URL", "push the summary to a Prometheus Pushgateway", OPT_PUSH, not_bisect),
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "push-job", .value = &o->fleet.job, .argh = "NAME",
		  .help = "the gateway's job (default perfhunt)", .flags = PARSEOPT_NONEMPTY | not_bisect },
		ROW(0, "push-label", "K=V", "a grouping label of the push (repeatable)", OPT_PUSH_LABEL, not_bisect),
		PARSEOPT_END(),
	};
	memcpy(rows, r, sizeof(r));
}

#undef ROW

struct hooks_ctx {
	struct csv_writer *csv;
	struct probefeed *feed;
	const struct record_opts *ro;
	struct counters *counters;
	char counters_error[600];
	char *const *argv;       /* the recorded command, for live pushes */
	double last_push_ms;
	bool push_failed;
};

/* watch --push-every: the latest sample to the gateway, without stalling the
 * sampler (short timeout, no retries); a failure is said once. */
static void push_live(struct hooks_ctx *c, const struct sample *s)
{
	const struct record_opts *o = c->ro;
	if (c->last_push_ms && s->t_ms - c->last_push_ms < o->push_every_ms)
		return;
	c->last_push_ms = s->t_ms ? s->t_ms : 1;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	struct err e;
	if (fleet_push_live(&o->fleet, s, o->interval_ms, c->argv && c->argv[0] ? c->argv[0] : "", host,
			    &e) < 0 && !c->push_failed) {
		c->push_failed = true;
		fprintf(stderr, "perfhunt: live push failed (recording goes on): %s\n", e.msg);
	}
}

/* Sampling runs: a parent waiting for a detached monitor may return now. */
static void ctx_started(void *arg)
{
	struct hooks_ctx *c = arg;
	struct record_opts *o = (struct record_opts *)c->ro;
	if (o->ready_fd < 0)
		return;
	dprintf(o->ready_fd, "K%s", o->ready_msg ? o->ready_msg : "");
	close(o->ready_fd);
	o->ready_fd = -1;
	fleet_opts_init(&o->fleet);
	o->push_labels = xcalloc(1, sizeof(*o->push_labels));
}

/* The command is forked, not yet exec'd: counting starts at its exec. */
static void ctx_spawn(void *arg, pid_t pid)
{
	struct hooks_ctx *c = arg;
	struct err e;
	if (!c->ro->counters)
		return;
	if (counters_open(&c->counters, pid, c->ro->events, &e) < 0)
		snprintf(c->counters_error, sizeof(c->counters_error), "counters not recorded: %s", e.msg);
	else if (c->feed)
		c->feed->counters = c->counters;
}

static int ctx_sample(void *arg, const struct sample *s, const struct sample *client)
{
	struct hooks_ctx *c = arg;
	if (c->ro->push_every_ms > 0 && c->ro->fleet.push_url)
		push_live(c, s);
	return c->csv ? csv_write(c->csv, s, client) : 0;
}

static void ctx_label(void *arg, struct sample *s)
{
	struct hooks_ctx *c = arg;
	if (c->feed)
		probefeed_label(c->feed, s);
}

static void ctx_output(void *arg, int s, const char *buf, size_t n, double t_ms)
{
	struct hooks_ctx *c = arg;
	if (c->feed)
		probefeed_on_output(c->feed, s, buf, n, t_ms);
}

int record_opts_capture(struct record_opts *o, const struct launch_opts *launch,
			uint64_t memory_limit_bytes, char *const *record_argv, json_t **rec_out)
{
	struct err e;
	struct csv_writer csv = { .fd = -1 };
	struct probefeed feed;
	struct hooks_ctx ctx = { .ro = o, .argv = record_argv };
	struct monitor_result r;
	int status = PH_EXIT_FAIL;
	bool have_result = false;
	json_t *rec = NULL, *phases = NULL;
	*rec_out = NULL;

	if (o->csv_path) {
		if (csv_open(&csv, o->csv_path, o->csv_format, o->daemon_pid > 0, &e) < 0)
			return cmd_fail(PH_EXIT_FAIL, &e);
		ctx.csv = &csv;
	}
	probefeed_init(&feed, &o->probe_cfg, o->nlogs, !o->probe_time_arrival);
	if (o->probes || o->nlogs)
		ctx.feed = &feed;

	/* output that is not shown must still be read (for probes): capture it */
	struct launch_opts lo;
	if (launch && o->discard_output && !launch->capture) {
		lo = *launch;
		lo.capture = true;
		launch = &lo;
	}
	struct monitor_opts mo = {
		.interval_ms = o->interval_ms,
		.pss = o->pss,
		.cgroup = o->cgroup && launch,
		.memory_limit_bytes = memory_limit_bytes,
		.launch = launch,
		.attach_pid = o->attach_pid,
		.duration_ms = o->duration_ms,
		.procfs = "/proc",
		.gpu = o->gpu,
		.discard_output = o->discard_output,
		.daemon_pid = o->daemon_pid,
		.idle_ms = o->idle_ms,
		.probe_logs = o->nlogs ? o->probe_logs : NULL,
		.hooks = { .arg = &ctx, .on_output = ctx_output, .label = ctx_label, .on_sample = ctx_sample,
			   .on_spawn = ctx_spawn, .on_started = ctx_started },
	};
	if (monitor_run(&mo, &r, &e) < 0) {
		if (o->ready_fd >= 0) { /* a detached monitor's parent prints the reason */
			dprintf(o->ready_fd, "E%s", e.msg);
			close(o->ready_fd);
			o->ready_fd = -1;
	fleet_opts_init(&o->fleet);
	o->push_labels = xcalloc(1, sizeof(*o->push_labels));
		}
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	have_result = true;
	if (launch && !r.started && !r.exec_errno) {
		/* interrupted while the daemon's idle level was being sampled */
		fprintf(stderr, "perfhunt: interrupted before the command started\n");
		status = 128 + (r.stop_signal ? r.stop_signal : SIGINT);
		goto out;
	}
	if (launch && !r.started) {
		/* Nothing ran: no record, and no CSV that looks like one. */
		if (o->csv_path) {
			csv_close(&csv, NULL);
			unlink(o->csv_path);
		}
		const char *what = launch->shell ? "/bin/sh" : launch->argv[0];
		if (r.exec_errno == ENOENT) {
			fprintf(stderr, "perfhunt: command not found: %s\n", what);
			status = PH_EXIT_NOTFOUND;
		} else {
			fprintf(stderr, "perfhunt: cannot execute '%s': %s\n", what, strerror(r.exec_errno));
			status = PH_EXIT_NOEXEC;
		}
		goto out;
	}

	if (o->push_every_ms > 0 && o->fleet.push_url) {
		char host[256] = "";
		gethostname(host, sizeof(host) - 1);
		struct err pe;
		if (fleet_live_end(&o->fleet, host, &pe) < 0 && !ctx.push_failed)
			fprintf(stderr, "perfhunt: live push failed: %s\n", pe.msg);
	}
	probefeed_finish(&feed, r.wall_ms);
	char peak_phase[256] = "", daemon_phase[256] = "";
	phase_set_active_at(&feed.phases, r.peak_at_ms, peak_phase, sizeof(peak_phase));
	if (r.daemon_attached)
		phase_set_active_at(&feed.phases, r.daemon.peak_at_ms, daemon_phase, sizeof(daemon_phase));
	/* the exact peak has no time: the phases overlapping the window it fell in */
	char process_phase[256] = "";
	double from_ms, to_ms;
	runrec_process_peak_window(&r, &from_ms, &to_ms);
	phase_set_overlapping(&feed.phases, from_ms, to_ms, process_phase, sizeof(process_phase));
	phases = phase_set_to_json(&feed.phases);

	status = r.exit_signal ? 128 + r.exit_signal : r.exit_code;
	if (!launch)
		status = PH_EXIT_OK;
	struct runrec_input in = {
		.kind = o->kind, .argv = record_argv, .tags = o->tags, .opts = &mo,
		.cgroup_mode = o->cgroup ? "auto" : "off", .r = &r, .csv_path = o->csv_path,
		.phases = phases, .peak_phase = peak_phase, .exit_status = status,
		.daemon_peak_phase = daemon_phase,
		.process_peak_phase = process_phase,
		/* only the summary will see this record: it shows no git commit */
		.not_kept = !o->json_path && !o->save && !o->fleet.openmetrics_path && !o->fleet.push_url,
	};
	char ended[64] = "";
	if (!launch) {
		if (r.target_exited)
			snprintf(ended, sizeof(ended), "the watched tree exited");
		else if (r.stop_signal)
			snprintf(ended, sizeof(ended), "stopped by SIG%s", sigabbrev_np(r.stop_signal));
		else
			snprintf(ended, sizeof(ended), "--duration reached");
		in.ended = ended;
	}
	json_t *counters = NULL, *notes = json_array();
	if (ctx.counters) {
		/* after wait4: the counts of every exited descendant are folded in */
		struct counter_values cv;
		if (counters_read(ctx.counters, &cv, &e) == 0)
			counters = counters_to_json(&cv);
		else
			json_array_append_new(notes, json_sprintf("counters not recorded: %s", e.msg));
	}
	if (ctx.counters_error[0])
		json_array_append_new(notes, json_string(ctx.counters_error));
	in.counters = counters;
	in.extra_notes = notes;
	rec = runrec_build(&in);
	json_decref(counters);
	json_decref(notes);
	if (ctx.counters)
		json_object_set_new(rec, "phase_counters", probefeed_counters_json(&feed));

	int write_failed = 0;
	if (o->csv_path) {
		if (r.write_errno) {
			fprintf(stderr, "perfhunt: cannot write '%s': %s (the timeline is incomplete)\n",
				o->csv_path, strerror(r.write_errno));
			write_failed = 1;
		}
		if (csv_close(&csv, &e) < 0) {
			cmd_fail(PH_EXIT_FAIL, &e);
			write_failed = 1;
		}
	}
	if (o->json_path && jsonio_write(o->json_path, rec, &e) < 0) {
		cmd_fail(PH_EXIT_FAIL, &e);
		write_failed = 1;
	}
	if (write_failed && status == 0)
		status = PH_EXIT_FAIL;
	*rec_out = json_incref(rec);
out:
	if (ctx.csv && csv.fd >= 0)
		csv_close(&csv, NULL);
	json_decref(rec);
	json_decref(phases);
	probefeed_release(&feed);
	counters_close(ctx.counters);
	if (have_result)
		monitor_result_release(&r);
	return status;
}

int record_opts_fleet(const struct record_opts *o, json_t *rec)
{
	struct err e;
	if (!o->fleet.openmetrics_path && !o->fleet.push_url)
		return 0;
	if (fleet_after_record(&o->fleet, rec, &e) < 0) {
		cmd_fail(PH_EXIT_FAIL, &e);
		return -1;
	}
	return 0;
}

int record_opts_save(const struct record_opts *o, json_t *rec)
{
	struct err e;
	struct store *st;
	int64_t id;
	if (store_open(&st, NULL, &e) < 0 || (store_add_run(st, rec, o->tags, 0, &id, &e) < 0 &&
					      (store_close(st), 1))) {
		fprintf(stderr, "perfhunt: run not saved to the history: %s\n", e.msg);
		return -1;
	}
	store_close(st);
	if (!o->quiet)
		fprintf(stderr, "  %-17s run %lld (compare with @last, see 'perfhunt history')\n", "saved",
			(long long)id);
	return 0;
}

int record_opts_execute(struct record_opts *o, const struct launch_opts *launch,
			uint64_t memory_limit_bytes, char *const *record_argv)
{
	json_t *rec;
	int status = record_opts_capture(o, launch, memory_limit_bytes, record_argv, &rec);
	if (rec && !o->quiet) {
		fflush(stdout);
		summary_print(rec, stderr);
	}
	if (rec && o->save && record_opts_save(o, rec) < 0 && status == 0)
		status = PH_EXIT_FAIL;
	/* local records first, then the network: a gateway that is down loses nothing */
	if (rec && record_opts_fleet(o, rec) < 0 && status == 0)
		status = PH_EXIT_FAIL;
	json_decref(rec);
	return status;
}
