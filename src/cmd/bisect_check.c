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

#include <math.h>
#include <signal.h>
#include <stdint.h>
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
	"  128+N  cancelled by signal N (SIGINT, SIGTERM, SIGHUP: aborts the bisect)\n"
	"\n"
	"REF: a run or bench record file, or a history reference (@tag:NAME, @last,\n"
	"@bench:ID, @commit:PREFIX, a run ID), as for 'perfhunt compare'.\n"
	"\n"
	"options:\n";

static const char usage_footer[] =
	"The verdict is compare's: regressed when the whole 95 % CI of the ratio\n"
	"NEW/BASE lies above 1 + threshold and the p-value is below alpha; with one\n"
	"run on a side, when the delta alone exceeds the threshold. Same and\n"
	"inconclusive count as good (raise -n when unsure).\n";

/* Runs CMD n times into *set; PH_EXIT_OK, or PH_EXIT_BISECT_SKIP after saying
 * why, or 128+N when perfhunt received signal N meanwhile. */
static int run_new(struct record_opts *ro, const struct launch_opts *lo, char *const *record_argv,
		   const char *shown, int64_t n, struct metrics_set *set)
{
	json_t **runs = xcalloc((size_t)n, sizeof(*runs));
	int64_t have = 0;
	int status = PH_EXIT_OK;
	struct err e;
	for (; have < n; have++) {
		int sig = 0;
		int st = record_opts_capture(ro, lo, record_argv, ro->save, &runs[have], &sig);
		if (sig) {
			/* the user cancelled: not a commit to skip, a bisect to stop
			 * (git bisect run aborts on a status above 127) */
			printf("bisect-check: cancelled (%d): SIG%s received during run %lld of %lld\n", 128 + sig,
			       sigabbrev_np(sig), (long long)have + 1, (long long)n);
			/* out now: a second signal (`timeout` sends one to the
			 * process and one to its group) ends perfhunt as the
			 * signal does, with the same 128+N, the line said */
			fflush(stdout);
			json_decref(runs[have]);
			status = 128 + sig;
			break;
		}
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
		why = compare_text_verdict(m);
	}
	compare_text_value_pair(m->name, m->base_median, m->new_median, base, nw, sizeof(base));
	printf("bisect-check: %s (%d): %s %s: median %s (%s, %zu runs) -> %s (%zu runs), %s", bad ? "bad" : "good",
	       bad ? 1 : 0, m->name, why, base, baseline, m->n_base, nw, m->n_new,
	       compare_text_pct(m->delta_pct, pct, sizeof(pct)));
	if (isfinite(m->ci_low))
		printf(", CI of ratio %.3f–%.3f, p %.3g", m->ci_low, m->ci_high, m->p_value);
	printf(", threshold %g %%", c->threshold * 100);
	if (m->verdict == STATS_INCONCLUSIVE && m->ci_low > 1 + c->threshold) {
		if (m->runs_needed && m->runs_needed != SIZE_MAX)
			printf("; slower, but %zu + %zu runs cannot reach p < %g: at least %zu + %zu can (raise -n "
			       "and the baseline's runs)", m->n_base, m->n_new, c->alpha, m->runs_needed,
			       m->runs_needed);
		else
			printf("; slower, but too few runs for p < %g: raise -n (and the baseline's runs)", c->alpha);
	}
	putchar('\n');
	return bad ? 1 : 0;
}

int cmd_bisect_check(int argc, char **argv)
{
	struct record_opts ro;
	struct comparison_opts co;
	struct metrics_set base, nw;
	struct comparison c;
	const char *baseline = NULL, *metric = "wall_s", *command = NULL;
	const char *attach_name = NULL, *attach_pidfile = NULL;
	char *script = NULL;
	bool shell = false;
	int64_t runs = 5;
	struct err e;
	int status = PH_EXIT_BISECT_ABORT;

	record_opts_init(&ro);
	ro.discard_output = true;
	ro.quiet = true;
	ro.save = false;
	comparison_opts_init(&co);
	metrics_set_init(&base);
	metrics_set_init(&nw);
	memset(&c, 0, sizeof(c));
	int64_t attach = 0;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&ro, RECORD_OPTS_FOR_BISECT, shared);
	struct parseopt attach_rows[RECORD_OPTS_ATTACH_NROWS];
	record_opts_attach_rows(&ro, &attach, &attach_name, &attach_pidfile, attach_rows);
	const struct parseopt table[] = {
		PARSEOPT_STRING(0, "baseline", &baseline, "REF", "what good looks like (required)"),
		PARSEOPT_I64('n', "runs", &runs, "N", "runs of CMD (default 5)", 1, 100000),
		PARSEOPT_STRING(0, "metric", &metric, "NAME", "metric to judge (default wall_s), e.g. peak_rss_kb,\n"
				"user_s, phase:NAME, a counter with --counters,\ndaemon.peak_rss_kb with --attach"),
		PARSEOPT_CALLBACK(0, "threshold", &co.threshold, "PCT",
				  "smallest change that counts, in percent (default 2)", cmd_opt_threshold),
		PARSEOPT_CALLBACK(0, "alpha", &co.alpha, "A", "significance level (default 0.05)", cmd_opt_alpha),
		PARSEOPT_STRING(0, "command", &command, "NAME|INDEX", "command of a bench baseline (default: the first)"),
		PARSEOPT_FLAG(0, "shell", &shell, "CMD is a shell command: sh -c \"CMD ARG...\""),
		PARSEOPT_FLAG(0, "save", &ro.save, "also store the runs in the history (not by default)"),
		PARSEOPT_INCLUDE(attach_rows),
		PARSEOPT_GROUP("recording options, as for 'perfhunt run':"),
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "bisect-check", .usage = usage_text, .footer = usage_footer,
					  .table = table, .flags = PARSEOPT_STOP_AT_OPERAND,
					  .usage_status = PH_EXIT_BISECT_ABORT,
					  .usage_note = "exit 128 aborts git bisect run" };
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		goto out;
	ro.daemon_pid = (pid_t)attach;
	if (!baseline) {
		err_set(&e, "--baseline REF is required");
		goto usage;
	}
	if (n == 0) {
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
	ro.target = (struct record_opts_target){ shell, ro.daemon_pid, attach_name, attach_pidfile };
	if (cmd_find_daemon(attach_name, attach_pidfile, &ro.daemon_pid, &e) != 0) {
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
	char **cmd = argv;
	char *shell_argv[2] = { NULL, NULL };
	if (shell)
		shell_argv[0] = script = xjoin(cmd, (size_t)n, " ");
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
	/* another command or another host makes the verdict a comparison of two
	 * things: said on stderr, the decision stays git bisect's one line */
	fflush(stdout);
	compare_text_notes(&c, stderr);
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
	record_opts_release(&ro);
	return status;
}
