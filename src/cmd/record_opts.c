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
#include "util/xalloc.h"

enum {
	OPT_INTERVAL = 500, OPT_CSV, OPT_CSV_FORMAT, OPT_PSS, OPT_CGROUP, OPT_PROBE, OPT_LANE_KEY,
	OPT_NO_PROBES, OPT_TAG, OPT_NO_SAVE, OPT_GPU, OPT_COUNTERS, OPT_PROBE_LOG, OPT_PROBE_TIME,
	OPT_OPENMETRICS, OPT_PUSH, OPT_PUSH_JOB, OPT_PUSH_LABEL,
};

static const struct option shared[] = {
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "output", required_argument, NULL, 'o' },
	{ "csv", required_argument, NULL, OPT_CSV },
	{ "csv-format", required_argument, NULL, OPT_CSV_FORMAT },
	{ "pss", no_argument, NULL, OPT_PSS },
	{ "cgroup", required_argument, NULL, OPT_CGROUP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "lane-key", required_argument, NULL, OPT_LANE_KEY },
	{ "no-probes", no_argument, NULL, OPT_NO_PROBES },
	{ "tag", required_argument, NULL, OPT_TAG },
	{ "no-save", no_argument, NULL, OPT_NO_SAVE },
	{ "gpu", required_argument, NULL, OPT_GPU },
	{ "counters", no_argument, NULL, OPT_COUNTERS },
	{ "events", required_argument, NULL, 'e' },
	{ "probe-log", required_argument, NULL, OPT_PROBE_LOG },
	{ "probe-time", required_argument, NULL, OPT_PROBE_TIME },
	{ "export-openmetrics", required_argument, NULL, OPT_OPENMETRICS },
	{ "push", required_argument, NULL, OPT_PUSH },
	{ "push-job", required_argument, NULL, OPT_PUSH_JOB },
	{ "push-label", required_argument, NULL, OPT_PUSH_LABEL },
};

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

struct option *record_opts_longopts(const struct option *extra)
{
	size_t ne = 0;
	while (extra[ne].name)
		ne++;
	size_t ns = sizeof(shared) / sizeof(shared[0]);
	struct option *all = xcalloc(ns + ne + 1, sizeof(*all));
	memcpy(all, shared, sizeof(shared));
	memcpy(all + ns, extra, ne * sizeof(*extra));
	return all;
}

int record_opts_parse(struct record_opts *o, int c, const char *arg, struct err *e)
{
	int64_t v;
	switch (c) {
	case OPT_INTERVAL:
		if (parse_i64(arg, 1, 3600000, &v, "--interval", e) < 0)
			return -1;
		o->interval_ms = (int)v;
		return 1;
	case 'o':
		o->json_path = arg;
		return 1;
	case OPT_CSV:
		o->csv_path = arg;
		return 1;
	case OPT_CSV_FORMAT:
		if (!strcmp(arg, "full"))
			o->csv_format = CSV_FULL;
		else if (!strcmp(arg, "seed"))
			o->csv_format = CSV_SEED;
		else
			return err_set(e, "--csv-format: expected full or seed, got '%s'", arg);
		return 1;
	case OPT_PSS:
		o->pss = true;
		return 1;
	case OPT_CGROUP:
		if (!strcmp(arg, "auto"))
			o->cgroup = true;
		else if (!strcmp(arg, "off"))
			o->cgroup = false;
		else
			return err_set(e, "--cgroup: expected auto or off, got '%s'", arg);
		return 1;
	case 'q':
		o->quiet = true;
		return 1;
	case OPT_PROBE:
		return probe_config_add_prefix(&o->probe_cfg, arg, e) < 0 ? -1 : 1;
	case OPT_LANE_KEY:
		return probe_config_add_lane_key(&o->probe_cfg, arg, e) < 0 ? -1 : 1;
	case OPT_NO_PROBES:
		o->probes = false;
		return 1;
	case OPT_TAG:
		if (!*arg)
			return err_set(e, "--tag: empty tag");
		o->tags = xrealloc(o->tags, (o->ntags + 2) * sizeof(*o->tags));
		o->tags[o->ntags++] = arg;
		o->tags[o->ntags] = NULL;
		return 1;
	case OPT_NO_SAVE:
		o->save = false;
		return 1;
	case OPT_GPU:
		if (!strcmp(arg, "auto"))
			o->gpu = true;
		else if (!strcmp(arg, "off"))
			o->gpu = false;
		else
			return err_set(e, "--gpu: expected auto or off, got '%s'", arg);
		return 1;
	case OPT_COUNTERS:
		o->counters = true;
		return 1;
	case OPT_PROBE_LOG:
		if (!*arg)
			return err_set(e, "--probe-log: empty file name");
		o->probe_logs = xrealloc(o->probe_logs, (o->nlogs + 2) * sizeof(*o->probe_logs));
		o->probe_logs[o->nlogs++] = (char *)arg;
		o->probe_logs[o->nlogs] = NULL;
		return 1;
	case OPT_OPENMETRICS:
		o->fleet.openmetrics_path = arg;
		return 1;
	case OPT_PUSH:
		if (strncmp(arg, "http://", 7) && strncmp(arg, "https://", 8))
			return err_set(e, "--push: expected an http:// or https:// URL, got '%s'", arg);
		o->fleet.push_url = arg;
		return 1;
	case OPT_PUSH_JOB:
		if (!*arg)
			return err_set(e, "--push-job: empty job name");
		o->fleet.job = arg;
		return 1;
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
		return 1;
	}
	case OPT_PROBE_TIME:
		if (!strcmp(arg, "auto"))
			o->probe_time_arrival = false;
		else if (!strcmp(arg, "arrival"))
			o->probe_time_arrival = true;
		else
			return err_set(e, "--probe-time: expected auto or arrival, got '%s'", arg);
		return 1;
	case 'e':
		if (counters_check_events(arg, e) < 0)
			return -1;
		o->events = arg;
		o->counters = true;
		return 1;
	}
	return 0;
}

int record_opts_getopt(struct record_opts *o, const char *cmd, int argc, char **argv,
		       const char *extra_short, const struct option *longopts)
{
	char shortopts[64];
	bool plus = extra_short[0] == '+';
	snprintf(shortopts, sizeof(shortopts), "%s%s%s", plus ? "+" : "", RECORD_OPTS_SHORT,
		 extra_short + plus);
	opterr = 0; /* one line of our own instead of getopt's */
	for (;;) {
		optopt = 0;
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == -1)
			return -1;
		if (c == '?' || c == ':') {
			if (optopt && optopt < 256) /* a short option */
				cmd_usage_error(cmd, "unknown option or missing value: '-%c'", optopt);
			else
				cmd_usage_error(cmd, "unknown option or missing value: '%s'",
						optind > 0 && optind <= argc ? argv[optind - 1] : "");
			return -2;
		}
		struct err e;
		int rc = record_opts_parse(o, c, optarg, &e);
		if (rc < 0) {
			cmd_usage_error(cmd, "%s", e.msg);
			return -2;
		}
		if (rc == 0)
			return c;
	}
}

int record_opts_number(const char *cmd, const char *opt, const char *arg, int64_t min, int64_t max,
		       int64_t *out)
{
	struct err e;
	if (parse_i64(arg, min, max, out, opt, &e) < 0) {
		cmd_usage_error(cmd, "%s", e.msg);
		return -1;
	}
	return 0;
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
		.discard_output = o->discard_output,
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

/* How a recording command shows a recording: warnings as they come, the
 * summary once the record exists, then where it was saved. */
struct shown {
	const struct record_opts *o;
	const struct record_watch *w;
	bool summary;
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

static void show_summary(void *arg, const json_t *rec)
{
	struct shown *sh = arg;
	if (!sh->summary || sh->o->quiet)
		return;
	fflush(stdout);
	summary_print(rec, stderr);
}

static void show_saved(void *arg, int64_t id)
{
	struct shown *sh = arg;
	if (sh->summary && !sh->o->quiet)
		fprintf(stderr, "  %-17s run %lld (compare with @last, see 'perfhunt history')\n", "saved",
			(long long)id);
}

static int record(const struct session_config *c, struct shown *sh, json_t **rec)
{
	struct session_hooks h = { .arg = sh, .started = show_started, .warn = show_warning,
				   .recorded = show_summary, .saved = show_saved };
	struct session_outcome out;
	struct err e;
	if (session_record(c, &h, &out, &e) < 0) {
		if (sh->w && sh->w->failed)
			sh->w->failed(sh->w->arg, e.msg);
		*rec = NULL;
		return cmd_fail(out.status, &e);
	}
	*rec = out.rec;
	return out.status;
}

int record_opts_execute(const struct record_opts *o, const struct launch_opts *launch,
			uint64_t memory_limit_bytes, char *const *record_argv, const struct record_watch *w)
{
	struct session_config c;
	record_opts_session(o, launch, memory_limit_bytes, record_argv, &c);
	struct shown sh = { .o = o, .w = w, .summary = true };
	json_t *rec;
	int status = record(&c, &sh, &rec);
	json_decref(rec);
	return status;
}

int record_opts_capture(const struct record_opts *o, const struct launch_opts *launch,
			char *const *record_argv, bool save, json_t **rec)
{
	struct session_config c;
	record_opts_session(o, launch, 0, record_argv, &c);
	c.save = save;
	c.kept = true;
	c.fleet = NULL; /* the caller's record of all runs goes to the fleet */
	struct shown sh = { .o = o };
	return record(&c, &sh, rec);
}
