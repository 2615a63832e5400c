/* compare: perfhunt compare [options] BASE NEW — is the change real, how
 * large, and which phase explains it.
 *
 * Each side is loaded by store_ref_load() alone (files, comma lists of files, and
 * later history references), the statistics come from src/stats/comparison.c
 * and the output from src/export/compare_*.c; this file only parses options,
 * wires them together and picks the exit status.
 */
#include "cmd/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_json.h"
#include "export/compare_markdown.h"
#include "export/compare_text.h"
#include "record/jsonio.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "store/store_ref.h"
#include "util/parse.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt compare [options] BASE NEW\n"
	"\n"
	"Compares two sets of runs metric by metric (wall, user and sys time, peaks,\n"
	"faults, counters, each phase's total): medians, delta, 95 % bootstrap CI of\n"
	"the ratio NEW/BASE, Mann-Whitney U p-value and a verdict; then the phases\n"
	"ranked by the share of the wall-time delta they explain.\n"
	"p is exact (permutation distribution, ties included) up to 50 runs a side,\n"
	"else the normal approximation; the test column says which. Holm's correction\n"
	"is applied within two families: primary (wall_s and phase durations) and\n"
	"secondary (resources and counters).\n"
	"Runs recorded with --profile on both sides add a code: line under each\n"
	"changed phase: the frames whose CPU time changed, tested run by run.\n"
	"\n"
	"BASE and NEW are run records (perfhunt.run/1), bench records\n"
	"(perfhunt.bench/1), hyperfine's --export-json results (each result a\n"
	"command, its times the runs), or comma-separated lists of record files (a,b,c).\n"
	"They may also be history references: @last, @last~N, @tag:NAME,\n"
	"@bench:ID, @commit:PREFIX or a run ID (see 'perfhunt history').\n"
	"\n"
	"options:\n";

static const char usage_footer[] =
	"Verdicts: regressed / improved (the whole CI beyond the threshold and the\n"
	"adjusted p below alpha), same (the CI within the threshold), inconclusive\n"
	"(run more). With one run on a side only deltas are shown.\n"
	"Exit status: 0, 1 on an unreadable record or (with --fail-on-regression) a\n"
	"regression, 2 on a usage error.\n";

static int write_markdown_file(const char *path, const struct comparison *c, const char *base,
			   const char *nw, struct err *e)
{
	/* Built in memory, then written atomically like every record: a full
	 * disk leaves no half table, a symlink planted at path is replaced. */
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return err_sys(e, "cannot write '%s'", path);
	int rc = compare_markdown_write(c, base, nw, f);
	if (fclose(f) != 0 || rc < 0)
		rc = err_sys(e, "cannot write '%s'", path);
	else
		rc = jsonio_write_bytes(path, buf, n, e);
	free(buf);
	return rc;
}

static int write_json_file(const char *path, const struct comparison *c, const char *base,
			   const char *nw, struct err *e)
{
	json_t *rec = compare_json_record(c, base, nw);
	if (!rec)
		return err_set(e, "cannot write '%s': a file name is not valid UTF-8", path);
	char *text = json_dumps(rec, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(rec);
	if (!text)
		return err_set(e, "cannot write '%s': out of memory", path);
	char *whole = xasprintf("%s\n", text);
	free(text);
	int rc = jsonio_write_bytes(path, whole, strlen(whole), e); /* atomic, as above */
	free(whole);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct comparison_opts o;
	comparison_opts_init(&o);
	struct parseopt_list only = { 0 };
	const char *command = NULL, *json_path = NULL, *md_path = NULL;
	bool fail_on_regression = false, quiet = false;
	struct err e = { 0 };
	struct metrics_set base, nw;
	struct comparison c;
	int status = PH_EXIT_OK;

	metrics_set_init(&base);
	metrics_set_init(&nw);
	memset(&c, 0, sizeof(c));
	const struct parseopt table[] = {
		PARSEOPT_CALLBACK(0, "threshold", &o.threshold, "PCT",
				  "smallest change that matters, in percent (default 2)", cmd_opt_threshold),
		PARSEOPT_CALLBACK(0, "alpha", &o.alpha, "A", "significance level (default 0.05)", cmd_opt_alpha),
		PARSEOPT_LIST(0, "metric", &only, "NAME", "compare only this metric (repeatable), e.g.\n"
			      "wall_s, peak_rss_kb, phase:pin_abc"),
		PARSEOPT_STRING(0, "command", &command, "NAME|INDEX", "command of a bench record (default: the first)"),
		PARSEOPT_STRING(0, "export-json", &json_path, "FILE", "write a perfhunt.compare/1 record"),
		PARSEOPT_STRING(0, "export-markdown", &md_path, "FILE", "write a markdown table"),
		PARSEOPT_FLAG(0, "fail-on-regression", &fail_on_regression, "exit 1 when any metric regressed"),
		PARSEOPT_FLAG('q', "quiet", &quiet, "print no table (exports are still written)"),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "compare", .usage = usage_text, .footer = usage_footer,
					  .table = table };
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		goto out;
	o.only = only.items;
	o.n_only = only.n;
	if (n != 2) {
		status = cmd_usage_error("compare", "expected BASE and NEW, got %d argument%s", n, n == 1 ? "" : "s");
		goto out;
	}
	const char *base_arg = argv[0], *new_arg = argv[1];
	const char *files[] = { json_path, md_path };
	const struct session_outputs outputs = { .files = files, .nfiles = 2 };
	if ((status = cmd_check_outputs(&outputs)) != 0)
		goto out;
	if (store_ref_load(base_arg, command, &base, &e) < 0 || store_ref_load(new_arg, command, &nw, &e) < 0 ||
	    comparison_run(&base, &nw, &o, &c, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (!quiet && compare_text_write(&c, base_arg, new_arg, cmd_use_color(1), stdout) < 0)
		status = PH_EXIT_FAIL;
	if (json_path && write_json_file(json_path, &c, base_arg, new_arg, &e) < 0)
		status = cmd_fail(PH_EXIT_FAIL, &e);
	if (md_path && write_markdown_file(md_path, &c, base_arg, new_arg, &e) < 0)
		status = cmd_fail(PH_EXIT_FAIL, &e);
	if (status == PH_EXIT_OK && fail_on_regression && c.regressed > 0)
		status = PH_EXIT_FAIL;
	status = cmd_finish_stdout(status);
out:
	comparison_release(&c);
	metrics_set_release(&base);
	metrics_set_release(&nw);
	parseopt_list_release(&only);
	return status;
}
