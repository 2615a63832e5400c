/* report: perfhunt report [-o FILE.html] [--svg FILE.svg] RECORD.json
 *
 * Reads a run, bench or compare record, asks export/report for the HTML page
 * (or the memory chart alone as SVG) and writes it atomically. The default
 * output is the record's path with .html instead of .json.
 */
#include "cmd/cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/report.h"
#include "export/svg.h"
#include "record/jsonio.h"
#include "record/recshape.h"
#include "store/store_ref.h"
#include "util/xalloc.h"

static const char report_usage[] =
	"usage: perfhunt report [-o FILE.html] [--svg FILE.svg] RECORD.json\n"
	"\n"
	"Writes one self-contained HTML report (inline SVG, no network) of a run,\n"
	"bench or compare record: memory, page faults, CPU and phase lanes on one\n"
	"time axis for a run; distributions for a bench; deltas with confidence\n"
	"intervals for a compare.\n"
	"\n";

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
	const char *out = NULL, *svg_out = NULL;
	const struct parseopt table[] = {
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'o', .long_name = "output", .value = &out,
		  .argh = "FILE", .flags = PARSEOPT_NONEMPTY,
		  .help = "write the HTML page here (default: RECORD with .html;\n- for standard output)" },
		{ .type = PARSEOPT_TYPE_STRING, .long_name = "svg", .value = &svg_out, .argh = "FILE",
		  .flags = PARSEOPT_NONEMPTY, .help = "write the memory chart of a run record alone, as SVG\n"
						      "(only the SVG is written unless -o is given too)" },
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "report", .usage = report_usage, .table = table };
	int status = PH_EXIT_FAIL;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		return status;
	if (n != 1)
		return cmd_usage_error("report", n == 0 ? "a record file is needed" : "only one record file is accepted");

	const char *in = argv[0];
	char *html_path = NULL;
	if (out || !svg_out)
		html_path = out ? xstrdup(out)
				: report_default_output(strcmp(in, "-") && !store_ref_is_history(in) ? in : "report.json");
	const char *files[] = { html_path, svg_out };
	const struct session_outputs outputs = { .files = files, .nfiles = 2 };
	if ((status = cmd_check_outputs(&outputs)) != 0) {
		free(html_path);
		return status;
	}
	status = PH_EXIT_FAIL;
	struct err e = { { 0 } };
	json_t *rec = NULL;
	struct svg page, chart;
	svg_init(&page);
	svg_init(&chart);
	if (store_ref_record(in, &rec, &e) < 0)
		goto out;
	if (recshape_check(rec, 0, &e) < 0) {
		err_wrap(&e, "cannot read '%s'", in);
		goto out;
	}
	if (svg_out) {
		if (report_memory_svg(rec, &chart, &e) < 0 || svg_save(&chart, svg_out, &e) < 0)
			goto out;
	}
	if (html_path) {
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
