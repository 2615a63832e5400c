/* report: perfhunt report [-o FILE.html] [--svg FILE.svg] RECORD.json
 *
 * Reads a run, bench or compare record, asks export/report for the HTML page
 * (or the memory chart alone as SVG) and writes it atomically. The default
 * output is the record's path with .html instead of .json.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/report.h"
#include "export/svg.h"
#include "record/jsonio.h"
#include "record/recshape.h"
#include "util/xalloc.h"

static const char report_usage[] =
	"usage: perfhunt report [-o FILE.html] [--svg FILE.svg] RECORD.json\n"
	"\n"
	"Writes one self-contained HTML report (inline SVG, no network) of a run,\n"
	"bench or compare record: memory, page faults, CPU and phase lanes on one\n"
	"time axis for a run; distributions for a bench; deltas with confidence\n"
	"intervals for a compare.\n"
	"\n"
	"  -o, --output FILE   write the HTML page here (default: RECORD with .html;\n"
	"                      - for standard output)\n"
	"      --svg FILE      write the memory chart of a run record alone, as SVG\n"
	"                      (only the SVG is written unless -o is given too)\n"
	"  -h, --help          show this help\n";

/* RECORD.json -> RECORD.html; other names get .html appended. */
static char *report_default_output(const char *in)
{
	size_t n = strlen(in);
	if (n > 5 && !strcmp(in + n - 5, ".json"))
		return xasprintf("%.*s.html", (int)(n - 5), in);
	return xasprintf("%s.html", in);
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *svg_out = NULL;
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			svg_out = optarg;
			break;
		case 'h':
			fputs(report_usage, stdout);
			return cmd_finish_stdout(PH_EXIT_OK);
		default:
			if (optopt)
				return cmd_usage_error("report", "option -%c needs a value or is unknown", optopt);
			return cmd_usage_error("report", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error("report", argc == optind ? "a record file is needed"
								: "only one record file is accepted");
	if ((out && !*out) || (svg_out && !*svg_out))
		return cmd_usage_error("report", "an output file name is empty");

	const char *in = argv[optind];
	struct err e = { { 0 } };
	json_t *rec = NULL;
	struct svg page, chart;
	svg_init(&page);
	svg_init(&chart);
	char *html_path = NULL;
	int status = PH_EXIT_FAIL;
	if (jsonio_read(in, "perfhunt.", &rec, &e) < 0)
		goto out;
	if (recshape_check(rec, 0, &e) < 0) {
		err_wrap(&e, "cannot read '%s'", in);
		goto out;
	}
	if (svg_out) {
		if (report_memory_svg(rec, &chart, &e) < 0 || svg_save(&chart, svg_out, &e) < 0)
			goto out;
	}
	if (out || !svg_out) {
		html_path = out ? xstrdup(out) : report_default_output(strcmp(in, "-") ? in : "report.json");
		if (report_html(rec, &page, &e) < 0 || svg_save(&page, html_path, &e) < 0)
			goto out;
		if (strcmp(html_path, "-"))
			fprintf(stderr, "perfhunt: wrote %s\n", html_path);
	}
	status = PH_EXIT_OK;
out:
	if (status != PH_EXIT_OK)
		cmd_fail(status, &e);
	free(html_path);
	svg_release(&page);
	svg_release(&chart);
	json_decref(rec);
	return cmd_finish_stdout(status);
}
