/* bisect-check: perfhunt bisect-check --baseline REF [options] -- CMD
 *
 * A `git bisect run` script in one command: runs CMD N times (each a full run
 * record, output discarded), compares one metric with the baseline through
 * the same comparison `perfhunt compare` uses, prints one line and exits the
 * way git bisect reads it: 0 good, 1 bad (regressed), 125 skip (CMD failed),
 * and 128 (abort the bisect) when the question itself is wrong — a bad
 * option, an unreadable baseline, an unknown metric — so no commit is judged
 * on a mistake.
 */
#include "cmd/cmd.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/record_opts.h"
#include "export/compare_text.h"
#include "record/command.h"
#include "stats/comparison.h"
#include "stats/metrics.h"
#include "store/store_ref.h"
#include "store/store.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt bisect-check --baseline REF [options] [--] CMD [ARG...]\n"
	"\n"
	"For 'git bisect run': runs CMD N times and compares one metric with the\n"
	"baseline. Prints one line saying what it decided and why, and exits\n"
	"  0    same or better (this commit is good)\n"
	"  1    regressed beyond the threshold (bad)\n"
	"  125  CMD failed: non-zero exit, killed, not found (git bisect skips it)\n"
	"  128  bad usage, unreadable baseline or unknown metric (aborts the bisect)\n"
	"\n"
	"REF: a run or bench record file, or a history reference (@tag:NAME, @last,\n"
	"@bench:ID, @commit:PREFIX, a run ID), as for 'perfhunt compare'.\n"
	"\n"
	"options:\n"
	"      --baseline REF     what good looks like (required)\n"
	"  -n, --runs N           runs of CMD (default 5)\n"
	"      --metric NAME      metric to judge (default wall_s), e.g. peak_rss_kb,\n"
	"                         user_s, phase:NAME, a counter with --counters,\n"
	"                         daemon.peak_rss_kb with --attach\n"
	"      --threshold PCT    smallest change that counts, in percent (default 2)\n"
	"      --alpha A          significance level (default 0.05)\n"
	"      --command NAME|INDEX  command of a bench baseline (default: the first)\n"
	"      --shell            CMD is a shell command: sh -c \"CMD ARG...\"\n"
	"      --interval MS, --pss, --cgroup MODE, --gpu MODE, --counters, -e LIST,\n"
	"      --probe PREFIX, --lane-key KEY, --probe-log FILE   as for 'perfhunt run'\n"
	"      --attach PID, --attach-name NAME, --attach-pidfile FILE, --idle-ms MS\n"
	"                         each run also records this daemon (metrics daemon.*),\n"
	"                         as for 'perfhunt bench'\n"
	"      --save             also store the runs in the history (not by default)\n"
	"  -h, --help             show this help\n"
	"\n"
	"The verdict is compare's: regressed when the whole 95 % CI of the ratio\n"
	"NEW/BASE lies above 1 + threshold and the p-value is below alpha; with one\n"
	"run on a side, when the delta alone exceeds the threshold. Same and\n"
	"inconclusive count as good (raise -n when unsure).\n";

enum {
	OPT_BASELINE = 1000, OPT_METRIC, OPT_THRESHOLD, OPT_ALPHA, OPT_COMMAND, OPT_SHELL, OPT_SAVE, OPT_ATTACH,
	OPT_ATTACH_NAME, OPT_ATTACH_PIDFILE, OPT_IDLE,
};

/* Runs CMD n times into *set; PH_EXIT_OK, or PH_EXIT_BISECT_SKIP after saying why. */
static int run_new(struct record_opts *ro, const struct launch_opts *lo, char *const *record_argv,
		   const char *shown, int64_t n, struct metrics_set *set)
{
	json_t **runs = xcalloc((size_t)n, sizeof(*runs));
	int64_t have = 0;
	int status = PH_EXIT_OK;
	struct err e;
	for (; have < n; have++) {
		int st = record_opts_capture(ro, lo, record_argv, ro->save, &runs[have]);
		if (!runs[have] || st != 0) {
			printf("bisect-check: skip (125): '%s' %s (run %lld of %lld)\n", shown,
			       runs[have] ? "exited non-zero" : "could not run", (long long)have + 1, (long long)n);
			printf("bisect-check: exit status %d; see its output with: perfhunt run%s -- %s\n", st,
			       lo->shell ? " --shell" : "", shown);
			json_decref(runs[have]);
			status = PH_EXIT_BISECT_SKIP;
			break;
		}
	}
	if (status == PH_EXIT_OK && metrics_from_records(runs, (size_t)have, set, &e) < 0) {
		printf("bisect-check: skip (125): %s\n", e.msg);
		status = PH_EXIT_BISECT_SKIP;
	}
	for (int64_t i = 0; i < have; i++)
		json_decref(runs[i]);
	free(runs);
	return status;
}

/* Prints the decision line; returns 0 (good) or 1 (bad). */
static int decide(const struct comparison *c, const char *baseline)
{
	const struct comparison_metric *m = &c->metrics[0];
	char base[48], nw[48], pct[32];
	bool bad;
	const char *why;
	if (m->verdict == STATS_NO_SIGNIFICANCE) {
		bad = isfinite(m->delta_pct) ? m->delta_pct > c->threshold * 100 : m->new_median > m->base_median;
		why = bad ? "regressed by the delta alone (one run on a side: no significance)"
			  : "within the threshold by the delta alone (one run on a side: no significance)";
	} else {
		bad = m->verdict == STATS_REGRESSED;
		why = stats_verdict_label(m->verdict);
	}
	printf("bisect-check: %s (%d): %s %s: median %s (%s, %zu runs) -> %s (%zu runs), %s", bad ? "bad" : "good",
	       bad ? 1 : 0, m->name, why, compare_text_value(m->name, m->base_median, base, sizeof(base)), baseline,
	       m->n_base, compare_text_value(m->name, m->new_median, nw, sizeof(nw)), m->n_new,
	       compare_text_pct(m->delta_pct, pct, sizeof(pct)));
	if (isfinite(m->ci_low))
		printf(", CI of ratio %.3f–%.3f, p %.3g", m->ci_low, m->ci_high, m->p_value);
	printf(", threshold %g %%", c->threshold * 100);
	if (m->verdict == STATS_INCONCLUSIVE && m->ci_low > 1 + c->threshold)
		printf("; slower, but too few runs for p < %g: raise -n (and the baseline's runs)", c->alpha);
	putchar('\n');
	return bad ? 1 : 0;
}

int cmd_bisect_check(int argc, char **argv)
{
	static const struct option extra[] = {
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "runs", required_argument, NULL, 'n' },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "command", required_argument, NULL, OPT_COMMAND },
		{ "shell", no_argument, NULL, OPT_SHELL },
		{ "save", no_argument, NULL, OPT_SAVE },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "attach-name", required_argument, NULL, OPT_ATTACH_NAME },
		{ "attach-pidfile", required_argument, NULL, OPT_ATTACH_PIDFILE },
		{ "idle-ms", required_argument, NULL, OPT_IDLE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct record_opts ro;
	struct comparison_opts co;
	struct metrics_set base, nw;
	struct comparison c;
	struct option *longopts = record_opts_longopts(extra);
	const char *baseline = NULL, *metric = "wall_s", *command = NULL;
	const char *attach_name = NULL, *attach_pidfile = NULL;
	int64_t iv;
	char *script = NULL;
	bool shell = false;
	int64_t runs = 5;
	double v;
	struct err e;
	int status = PH_EXIT_BISECT_ABORT, opt;

	record_opts_init(&ro);
	ro.discard_output = true;
	ro.quiet = true;
	ro.save = false;
	comparison_opts_init(&co);
	metrics_set_init(&base);
	metrics_set_init(&nw);
	memset(&c, 0, sizeof(c));
	optind = 0;
	while ((opt = getopt_long(argc, argv, "+" RECORD_OPTS_SHORT "n:h", longopts, NULL)) != -1) {
		int r = record_opts_parse(&ro, opt, optarg, &e);
		if (r < 0)
			goto usage;
		if (r > 0)
			continue;
		switch (opt) {
		case OPT_BASELINE:
			baseline = optarg;
			break;
		case 'n':
			if (parse_i64(optarg, 1, 100000, &runs, "--runs", &e) < 0)
				goto usage;
			break;
		case OPT_METRIC:
			metric = optarg;
			break;
		case OPT_THRESHOLD:
			if (parse_double(optarg, 0, 100, &v, "--threshold", &e) < 0)
				goto usage;
			co.threshold = v / 100;
			break;
		case OPT_ALPHA:
			if (parse_double(optarg, 0, 1, &v, "--alpha", &e) < 0 || v == 0) {
				err_set(&e, "--alpha: expected a number in (0, 1], got '%s'", optarg);
				goto usage;
			}
			co.alpha = v;
			break;
		case OPT_COMMAND:
			command = optarg;
			break;
		case OPT_SHELL:
			shell = true;
			break;
		case OPT_SAVE:
			ro.save = true;
			break;
		case OPT_ATTACH:
			if (parse_i64(optarg, 1, 0x7fffffff, &iv, "--attach", &e) < 0)
				goto usage;
			ro.daemon_pid = (pid_t)iv;
			break;
		case OPT_ATTACH_NAME:
			attach_name = optarg;
			break;
		case OPT_ATTACH_PIDFILE:
			attach_pidfile = optarg;
			break;
		case OPT_IDLE:
			if (parse_i64(optarg, 0, 3600000, &iv, "--idle-ms", &e) < 0)
				goto usage;
			ro.idle_ms = (double)iv;
			break;
		case 'h':
			fputs(usage_text, stdout);
			status = cmd_finish_stdout(PH_EXIT_OK);
			goto out;
		default:
			fprintf(stderr, "(see 'perfhunt bisect-check --help'; exit 128 aborts git bisect run)\n");
			goto out;
		}
	}
	if (!baseline) {
		err_set(&e, "--baseline REF is required");
		goto usage;
	}
	if (optind >= argc) {
		err_set(&e, "no command given");
		goto usage;
	}
	if (ro.json_path || ro.csv_path) {
		err_set(&e, "%s is not available here", ro.json_path ? "--output" : "--csv");
		goto usage;
	}
	if ((ro.daemon_pid > 0) + (attach_name != NULL) + (attach_pidfile != NULL) > 1) {
		err_set(&e, "give one of --attach, --attach-name, --attach-pidfile");
		goto usage;
	}
	if (cmd_find_daemon(attach_name, attach_pidfile, &ro.daemon_pid, &e) < 0) {
		fprintf(stderr, "perfhunt bisect-check: %s (exit 128 aborts git bisect run)\n", e.msg);
		goto out;
	}
	/* The baseline first: a wrong reference must stop the bisect before any run. */
	if (store_ref_load(baseline, command, &base, &e) < 0) {
		fprintf(stderr, "perfhunt bisect-check: baseline: %s (exit 128 aborts git bisect run)\n", e.msg);
		goto out;
	}
	if (!metrics_find(&base, metric) && strncmp(metric, "phase:", 6)) {
		fprintf(stderr, "perfhunt bisect-check: the baseline has no metric '%s' (exit 128 aborts git bisect run)\n",
			metric);
		goto out;
	}
	char **cmd = argv + optind;
	char *shell_argv[2] = { NULL, NULL };
	if (shell)
		shell_argv[0] = script = xjoin(cmd, (size_t)(argc - optind), " ");
	char *const *record_argv = shell ? shell_argv : cmd;
	struct launch_opts lo = { .argv = record_argv, .shell = shell, .capture = true, .probe_fd = ro.probes };
	json_t *jargv = json_array();
	for (char *const *a = cmd; *a; a++)
		json_array_append_new(jargv, json_string(*a));
	char *shown = shell ? xstrdup(script) : command_text(jargv);
	json_decref(jargv);
	status = run_new(&ro, &lo, record_argv, shown ? shown : cmd[0], runs, &nw);
	free(shown);
	if (status != PH_EXIT_OK)
		goto out;
	co.only = &metric;
	co.n_only = 1;
	if (comparison_run(&base, &nw, &co, &c, &e) < 0) {
		fprintf(stderr, "perfhunt bisect-check: %s (exit 128 aborts git bisect run)\n", e.msg);
		status = PH_EXIT_BISECT_ABORT;
		goto out;
	}
	status = cmd_finish_stdout(decide(&c, baseline));
	goto out;
usage:
	fprintf(stderr, "perfhunt bisect-check: %s (see 'perfhunt bisect-check --help'; exit 128 aborts git bisect run)\n",
		e.msg);
	status = PH_EXIT_BISECT_ABORT;
out:
	comparison_release(&c);
	metrics_set_release(&base);
	metrics_set_release(&nw);
	free(script);
	free(longopts);
	record_opts_release(&ro);
	return status;
}
