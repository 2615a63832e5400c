/* report: perfhunt report [-o FILE.html] [--svg FILE.svg] RECORD.json
 *
 * Reads a run, bench or compare record, asks export/report for the HTML page
 * (or the memory chart alone as SVG) and writes it atomically. The default
 * output is named after the input (RECORD.html, report-ID.html for a history
 * reference or stdin) and replaces only a page perfhunt wrote; -o replaces
 * whatever the user names.
 */
#include "cmd/cmd.h"

#include <errno.h>
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

/* The default output, named after the input: RECORD.json -> RECORD.html
 * (other names get .html appended); a history reference or stdin, which name
 * no file, gives report-ID.html for a stored run (its history ID) or
 * report-YYYYMMDDTHHMMSSZ.html from when the record started, so @last and
 * @tag:good never write over each other's page. */
static char *report_default_output(const char *in, const json_t *rec)
{
	if (strcmp(in, "-") && !store_ref_is_history(in)) {
		size_t n = strlen(in);
		if (n > 5 && !strcmp(in + n - 5, ".json"))
			return xasprintf("%.*s.html", (int)(n - 5), in);
		return xasprintf("%s.html", in);
	}
	const json_t *id = json_object_get(rec, "history_id");
	if (json_is_integer(id))
		return xasprintf("report-%" JSON_INTEGER_FORMAT ".html", json_integer_value(id));
	const char *at = json_string_value(json_object_get(rec, "started_at"));
	char stamp[32];
	size_t k = 0;
	for (; at && *at && k < sizeof(stamp) - 1; at++) /* 2026-11-30T08:12:31.123Z: 20261130T081231123Z */
		if ((*at >= '0' && *at <= '9') || *at == 'T' || *at == 'Z')
			stamp[k++] = *at;
	stamp[k] = 0;
	return k ? xasprintf("report-%s.html", stamp) : xstrdup("report.html");
}

/* A default output is written over only when it is a page perfhunt wrote
 * (its generator tag near the top): never over a file the user made
 * unless they name it with -o. 0, or -1 with e saying why. */
static int report_may_replace(const char *path, struct err *e)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return errno == ENOENT ? 0 : err_sys(e, "cannot write '%s'", path);
	char head[1024];
	size_t n = fread(head, 1, sizeof(head) - 1, f);
	fclose(f);
	head[n] = 0;
	if (strstr(head, "<meta name=\"generator\" content=\"perfhunt "))
		return 0;
	return err_set(e, "refusing to overwrite '%s': perfhunt did not write it (name it with -o to replace it)",
		       path);
}

int cmd_report(int argc, char **argv)
{
	const char *out = NULL, *svg_out = NULL;
	const struct parseopt table[] = {
		{ .type = PARSEOPT_TYPE_STRING, .short_name = 'o', .long_name = "output", .value = &out,
		  .argh = "FILE", .flags = PARSEOPT_NONEMPTY,
		  .help = "write the HTML page here, replacing any file (default:\nRECORD with .html, report-ID.html for a history\nreference or -, never over a file perfhunt did not\nwrite; - for standard output)" },
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
	char *html_path = out ? xstrdup(out) : NULL;
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
	if (!out && !svg_out) { /* named after the record, so known only now */
		html_path = report_default_output(in, rec);
		const char *page_file[] = { html_path };
		const struct session_outputs page_out = { .files = page_file, .nfiles = 1 };
		if (session_check_outputs(&page_out, &e) < 0 || report_may_replace(html_path, &e) < 0) {
			status = PH_EXIT_USAGE;
			goto out;
		}
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
