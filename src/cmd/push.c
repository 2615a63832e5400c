/* push: perfhunt push --gateway URL [--job NAME] [--label K=V]... RECORD.json
 *
 * Sends a run or bench record's figures (the OpenMetrics text of
 * export/openmetrics) to a Prometheus Pushgateway, replacing the group's last
 * push; or, with --export-openmetrics, writes that text for node_exporter's
 * textfile collector. The HTTP, timeouts and retries are fleet/push.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/openmetrics.h"
#include "fleet/fleet.h"
#include "record/jsonio.h"
#include "util/parse.h"
#include "util/url.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt push --gateway URL [--job NAME] [--label NAME=VALUE]... RECORD.json\n"
	"       perfhunt push --export-openmetrics FILE RECORD.json\n"
	"\n"
	"Pushes the figures of a run or bench record to a Prometheus Pushgateway\n"
	"(PUT URL/metrics/job/NAME/instance/HOST[/NAME/VALUE...]: the group's previous\n"
	"push is replaced). RECORD '-' is stdin.\n"
	"\n";

static const char usage_footer[] =
	"Exit status: 0 when pushed (and written), 1 when the record cannot be read,\n"
	"the file cannot be written or the gateway cannot be reached or refuses the\n"
	"push, 2 on a usage error.\n";

/* The --label values: names (allocated) and values (in argv), as fleet_opts wants them. */
struct push_labels {
	const char **labels; /* name, value, ..., NULL */
	size_t n;            /* labels */
};

static int label_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct push_labels *l = row->value;
	char *name;
	const char *value;
	if (fleet_parse_label(arg, &name, &value, e) < 0)
		return -1;
	l->labels = xrealloc(l->labels, (2 * l->n + 3) * sizeof(*l->labels));
	l->labels[2 * l->n] = name;
	l->labels[2 * l->n + 1] = value;
	l->labels[2 * ++l->n] = NULL;
	return 0;
}

/* --timeout SEC: the whole attempt; the connection within it. */
static int timeout_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct push_opts *p = row->value;
	double sec;
	if (parse_double(arg, 0.001, 3600, &sec, "--timeout", e) < 0)
		return -1;
	p->total_timeout_ms = (long)(sec * 1000);
	if (p->connect_timeout_ms > p->total_timeout_ms)
		p->connect_timeout_ms = p->total_timeout_ms;
	return 0;
}

int cmd_push(int argc, char **argv)
{
	struct fleet_opts fo;
	fleet_opts_init(&fo);
	struct push_labels labels = { .labels = xcalloc(1, sizeof(*labels.labels)) };
	const struct parseopt table[] = {
		PARSEOPT_STRING('g', "gateway", &fo.push_url, "URL", "the Pushgateway, e.g. http://pushgateway:9091"),
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'j', .long_name = "job", .value = &fo.job,
		  .argh = "NAME", .help = "the job (default perfhunt)", .flags = PARSEOPT_NONEMPTY },
		PARSEOPT_CALLBACK('l', "label", &labels, "NAME=VALUE", "a grouping label (repeatable); instance\n"
				  "defaults to the record's hostname", label_opt),
		PARSEOPT_CALLBACK('t', "timeout", &fo.push, "SEC", "give up an attempt after SEC seconds (default 10)",
				  timeout_opt),
		PARSEOPT_INT('r', "retries", &fo.push.retries, "N", "retry connection errors and 5xx answers N times,\n"
			     "waiting 0.25 s, 0.5 s, 1 s ... (default 3)", 0, 10),
		PARSEOPT_STRING('o', "export-openmetrics", &fo.openmetrics_path, "FILE",
				"also write the text to FILE ('-': stdout),\natomically; without --gateway, only that"),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "push", .usage = usage_text, .footer = usage_footer,
					  .table = table };
	struct err e = { 0 };
	int status = -1;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	fo.labels = labels.labels;
	if (status < 0 && !fo.push_url && !fo.openmetrics_path)
		status = cmd_usage_error("push", "needs --gateway URL (or --export-openmetrics FILE)");
	if (status < 0 && n != 1)
		status = cmd_usage_error("push", n == 0 ? "needs a RECORD.json" : "takes one RECORD.json");
	if (status < 0) {
		json_t *rec = NULL;
		if (jsonio_read(argv[0], "perfhunt.", &rec, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
		} else if (fleet_after_record(&fo, rec, NULL, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
		} else {
			if (fo.push_url) {
				char *shown = url_redact(fo.push_url);
				fprintf(stderr, "perfhunt: pushed %s to %s (job %s)\n", argv[0],
					shown, fo.job ? fo.job : FLEET_DEFAULT_JOB);
				free(shown);
			}
			status = cmd_finish_stdout(PH_EXIT_OK);
		}
		json_decref(rec);
	}
	for (size_t i = 0; i < labels.n; i++)
		free((char *)labels.labels[2 * i]);
	free(labels.labels);
	return status;
}
