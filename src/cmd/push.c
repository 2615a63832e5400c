/* push: perfhunt push --gateway URL [--job NAME] [--label K=V]... RECORD.json
 *
 * Sends a run or bench record's figures (the OpenMetrics text of
 * export/openmetrics) to a Prometheus Pushgateway, replacing the group's last
 * push; or, with --export-openmetrics, writes that text for node_exporter's
 * textfile collector. The HTTP, timeouts and retries are fleet/push.
 */
#include "cmd/cmd.h"

#include <getopt.h>
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
	"\n"
	"  -g, --gateway URL         the Pushgateway, e.g. http://pushgateway:9091\n"
	"  -j, --job NAME            the job (default perfhunt)\n"
	"  -l, --label NAME=VALUE    a grouping label (repeatable); instance defaults to\n"
	"                            the record's hostname\n"
	"  -t, --timeout SEC         give up an attempt after SEC seconds (default 10)\n"
	"  -r, --retries N           retry connection errors and 5xx answers N times,\n"
	"                            waiting 0.25 s, 0.5 s, 1 s ... (default 3)\n"
	"  -o, --export-openmetrics FILE  also write the text to FILE ('-': stdout),\n"
	"                            atomically; without --gateway, only that\n"
	"  -h, --help                show this help\n"
	"\n"
	"Exit status: 0 when pushed (and written), 1 when the record cannot be read,\n"
	"the file cannot be written or the gateway cannot be reached or refuses the\n"
	"push, 2 on a usage error.\n";

int cmd_push(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "gateway", required_argument, NULL, 'g' },
		{ "job", required_argument, NULL, 'j' },
		{ "label", required_argument, NULL, 'l' },
		{ "timeout", required_argument, NULL, 't' },
		{ "retries", required_argument, NULL, 'r' },
		{ "export-openmetrics", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct fleet_opts fo;
	fleet_opts_init(&fo);
	fo.labels = xcalloc(2 * (size_t)argc + 1, sizeof(*fo.labels));
	char **names = xcalloc((size_t)argc + 1, sizeof(*names));
	size_t nlabels = 0;
	struct err e = { 0 };
	int c, status = -1;
	opterr = 0;
	optind = 1;
	while (status < 0 && (c = getopt_long(argc, argv, ":g:j:l:t:r:o:h", longopts, NULL)) != -1) {
		double sec;
		int64_t n;
		switch (c) {
		case 'g':
			fo.push_url = optarg;
			break;
		case 'j':
			if (!*optarg)
				status = cmd_usage_error("push", "--job needs a non-empty name");
			fo.job = optarg;
			break;
		case 'l':
			if (fleet_parse_label(optarg, &names[nlabels], &fo.labels[2 * nlabels + 1], &e)) {
				status = cmd_usage_error("push", "%s", e.msg);
				break;
			}
			fo.labels[2 * nlabels] = names[nlabels];
			nlabels++;
			break;
		case 't':
			if (parse_double(optarg, 0.001, 3600, &sec, "--timeout", &e))
				status = cmd_usage_error("push", "%s", e.msg);
			fo.push.total_timeout_ms = (long)(sec * 1000);
			if (fo.push.connect_timeout_ms > fo.push.total_timeout_ms)
				fo.push.connect_timeout_ms = fo.push.total_timeout_ms;
			break;
		case 'r':
			if (parse_i64(optarg, 0, 10, &n, "--retries", &e))
				status = cmd_usage_error("push", "%s", e.msg);
			fo.push.retries = (int)n;
			break;
		case 'o':
			fo.openmetrics_path = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			status = cmd_finish_stdout(PH_EXIT_OK);
			break;
		case ':':
			status = cmd_usage_error("push", "option '%s' needs a value", argv[optind - 1]);
			break;
		default:
			status = optopt ? cmd_usage_error("push", "unknown option '-%c'", optopt)
					: cmd_usage_error("push", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (status < 0 && !fo.push_url && !fo.openmetrics_path)
		status = cmd_usage_error("push", "needs --gateway URL (or --export-openmetrics FILE)");
	if (status < 0 && argc - optind != 1)
		status = cmd_usage_error("push", argc == optind ? "needs a RECORD.json"
							      : "takes one RECORD.json");
	if (status < 0) {
		json_t *rec = NULL;
		if (jsonio_read(argv[optind], "perfhunt.", &rec, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
		} else if (fleet_after_record(&fo, rec, &e)) {
			status = cmd_fail(PH_EXIT_FAIL, &e);
		} else {
			if (fo.push_url) {
				char *shown = url_redact(fo.push_url);
				fprintf(stderr, "perfhunt: pushed %s to %s (job %s)\n", argv[optind],
					shown, fo.job ? fo.job : FLEET_DEFAULT_JOB);
				free(shown);
			}
			status = cmd_finish_stdout(PH_EXIT_OK);
		}
		json_decref(rec);
	}
	for (size_t i = 0; i < nlabels; i++)
		free(names[i]);
	free(names);
	free(fo.labels);
	return status;
}
