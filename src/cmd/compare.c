/* compare: perfhunt compare [options] BASE NEW — is the change real, how
 * large, and which phase explains it.
 *
 * Each side is loaded by store_ref_load() alone (files, comma lists of files, and
 * later history references), the statistics come from src/stats/comparison.c
 * and the output from src/export/compare_*.c; this file only parses options,
 * wires them together and picks the exit status.
 */
#include "cmd/cmd.h"

#include <getopt.h>
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
	"\n"
	"BASE and NEW are run records (perfhunt.run/1), bench records\n"
	"(perfhunt.bench/1), or comma-separated lists of record files (a,b,c).\n"
	"They may also be history references: @last, @last~N, @tag:NAME,\n"
	"@bench:ID, @commit:PREFIX or a run ID (see 'perfhunt history').\n"
	"\n"
	"options:\n"
	"      --threshold PCT       smallest change that matters, in percent (default 2)\n"
	"      --alpha A             significance level (default 0.05)\n"
	"      --metric NAME         compare only this metric (repeatable), e.g.\n"
	"                            wall_s, peak_rss_kb, phase:pin_abc\n"
	"      --command NAME|INDEX  command of a bench record (default: the first)\n"
	"      --export-json FILE    write a perfhunt.compare/1 record\n"
	"      --export-markdown FILE  write a markdown table\n"
	"      --fail-on-regression  exit 1 when any metric regressed\n"
	"  -q, --quiet               print no table (exports are still written)\n"
	"  -h, --help                show this help\n"
	"\n"
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
	enum { OPT_THRESHOLD = 256, OPT_ALPHA, OPT_METRIC, OPT_COMMAND, OPT_JSON, OPT_MARKDOWN, OPT_FAIL };
	static const struct option longopts[] = {
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "command", required_argument, NULL, OPT_COMMAND },
		{ "export-json", required_argument, NULL, OPT_JSON },
		{ "export-markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "fail-on-regression", no_argument, NULL, OPT_FAIL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct comparison_opts o;
	comparison_opts_init(&o);
	const char **only = xcalloc((size_t)argc + 1, sizeof(*only));
	const char *command = NULL, *json_path = NULL, *md_path = NULL;
	bool fail_on_regression = false, quiet = false;
	struct err e = { 0 };
	struct metrics_set base, nw;
	struct comparison c;
	int status = PH_EXIT_OK, opt;
	double v;

	metrics_set_init(&base);
	metrics_set_init(&nw);
	memset(&c, 0, sizeof(c));
	o.only = only;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_THRESHOLD:
			if (parse_double(optarg, 0, 100, &v, "--threshold", &e) < 0) {
				status = cmd_usage_error("compare", "%s", e.msg);
				goto out;
			}
			o.threshold = v / 100;
			break;
		case OPT_ALPHA:
			if (parse_double(optarg, 0, 1, &v, "--alpha", &e) < 0 || v == 0) {
				status = cmd_usage_error("compare", "--alpha: expected a number in (0, 1], got '%s'", optarg);
				goto out;
			}
			o.alpha = v;
			break;
		case OPT_METRIC:
			only[o.n_only++] = optarg;
			break;
		case OPT_COMMAND:
			command = optarg;
			break;
		case OPT_JSON:
			json_path = optarg;
			break;
		case OPT_MARKDOWN:
			md_path = optarg;
			break;
		case OPT_FAIL:
			fail_on_regression = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			status = cmd_finish_stdout(PH_EXIT_OK);
			goto out;
		case ':':
			status = cmd_usage_error("compare", "option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			if (optopt)
				status = cmd_usage_error("compare", "unknown option '-%c'", optopt);
			else
				status = cmd_usage_error("compare", "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (argc - optind != 2) {
		status = cmd_usage_error("compare", "expected BASE and NEW, got %d argument%s",
					 argc - optind, argc - optind == 1 ? "" : "s");
		goto out;
	}
	const char *base_arg = argv[optind], *new_arg = argv[optind + 1];
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
	free(only);
	return status;
}
