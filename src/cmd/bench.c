/* bench: perfhunt bench [options] -- CMD [ARG...] [::: CMD2 ...]
 *
 * Parses options, expands parameter lists and plans the interleaved schedule
 * (src/stats/bench_plan.c), runs every slot through record_opts_capture so
 * each run is a full run record (exact peaks, faults, phases of that run
 * alone), then hands the finished perfhunt.bench/1 record to the exporters
 * and the history. Nothing here computes a statistic.
 */
#include "cmd/cmd.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/record_opts.h"
#include "monitor/monitor.h"
#include "export/bench_csv.h"
#include "export/bench_gobench.h"
#include "export/bench_markdown.h"
#include "export/bench_text.h"
#include "record/command.h"
#include "record/jsonio.h"
#include "stats/bench_plan.h"
#include "stats/bench_record.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/units.h"
#include "util/xalloc.h"

extern char **environ;

static const char usage_text[] =
	"usage: perfhunt bench [options] [--] CMD [ARG...] [::: CMD2 [ARG...] ...]\n"
	"       perfhunt bench [options] --shell 'CMD1' ['CMD2' ...]\n"
	"\n"
	"Runs each command N times, every run recorded as `perfhunt run` records it\n"
	"(wall and CPU time, exact memory peaks, faults, phases), and prints per\n"
	"command the median, mean ± σ, min … max, peak RSS, user/sys and top phases,\n"
	"with outliers flagged and, for several commands, how much faster the\n"
	"fastest ran. Several commands run interleaved in shuffled blocks, so drift\n"
	"hits each alike. The command's output is discarded; its probes are parsed.\n"
	"\n"
	"options:\n";

static const char usage_footer[] =
	"Exit status: 0; 1 when a command exits non-zero or a run times out (without\n"
	"-i), or a file or the history cannot be written; 126/127 when a command\n"
	"cannot be started; 2 on a usage error.\n";

struct bench_cli {
	struct record_opts ro;
	int64_t runs, warmup;
	bool interleave, shell, ignore_failure;
	uint64_t seed;
	const char *prepare, *conclude, *setup, *cleanup;
	const char *json_path, *csv_path, *md_path, *go_path;
	const char *attach_name, *attach_pidfile;
	size_t timed_out;             /* runs killed at --timeout */
	struct bench_params params;
};

/* -L NAME V1,V2,... (two words) or -L NAME=V1,V2,... */
static int parameter_list_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg,
			      struct err *e)
{
	const char *eq = strchr(arg, '=');
	const char *list = eq ? eq + 1 : parseopt_take_word(st);
	if (!list)
		return err_set(e, "-L %s: no values (-L NAME V1,V2,...)", arg);
	char *name = eq ? xstrndup(arg, (size_t)(eq - arg)) : xstrdup(arg);
	int rc = bench_params_add(row->value, name, list, e);
	free(name);
	return rc;
}

/* Parses the options; returns the number of command words (moved to
 * argv[0..n)), or -1 when cmd_bench is done with *status. */
static int parse_options(struct bench_cli *b, int argc, char **argv, int *status)
{
	int64_t seed = -1, attach = 0, idle_ms = (int64_t)b->ro.idle_ms;
	struct parseopt shared[RECORD_OPTS_NROWS];
	record_opts_rows(&b->ro, RECORD_OPTS_FOR_BENCH, shared);
	const struct parseopt table[] = {
		PARSEOPT_I64('n', "runs", &b->runs, "N", "timed runs per command (default 10)", 1, 1000000),
		PARSEOPT_I64('w', "warmup", &b->warmup, "N", "untimed runs per command first (default 0)", 0, 1000000),
		PARSEOPT_CALLBACK('L', "parameter-list", &b->params, "NAME V1,V2,...",
				  "run once per value with {NAME} replaced in every\n"
				  "argument (also NAME=V1,V2); repeatable: every\ncombination", parameter_list_opt),
		PARSEOPT_STRING(0, "prepare", &b->prepare, "CMD", "shell command before every run (not measured)"),
		PARSEOPT_STRING(0, "conclude", &b->conclude, "CMD", "shell command after every run (not measured)"),
		PARSEOPT_STRING(0, "setup", &b->setup, "CMD", "shell command once before the bench"),
		PARSEOPT_STRING(0, "cleanup", &b->cleanup, "CMD", "shell command once after the bench"),
		PARSEOPT_FLAG(0, "shell", &b->shell, "commands are shell strings: each argument one command\n"
			      "(or the words between ::: joined)"),
		PARSEOPT_FLAG('i', "ignore-failure", &b->ignore_failure, "keep going when a command exits non-zero"),
		PARSEOPT_CLEAR(0, "no-interleave", &b->interleave, "all runs of the first command, then the next"),
		PARSEOPT_I64(0, "seed", &seed, "N", "seed of the interleaved order (default: random,\nrecorded)", 0,
			     INT64_MAX),
		PARSEOPT_STRING(0, "export-json", &b->json_path, "FILE", "perfhunt.bench/1 record with every run"),
		PARSEOPT_STRING(0, "export-csv", &b->csv_path, "FILE", "one row per run: parameters and every metric"),
		PARSEOPT_STRING(0, "export-markdown", &b->md_path, "FILE", "the results table in markdown"),
		PARSEOPT_STRING(0, "export-gobench", &b->go_path, "FILE", "Go benchmark format, for benchstat"),
		PARSEOPT_I64(0, "attach", &attach, "PID", "also record this daemon's tree for each run's lifetime",
			     1, 0x7fffffff),
		PARSEOPT_STRING(0, "attach-name", &b->attach_name, "NAME", "the daemon by process name"),
		PARSEOPT_STRING(0, "attach-pidfile", &b->attach_pidfile, "FILE", "the daemon by pidfile"),
		PARSEOPT_I64(0, "idle-ms", &idle_ms, "MS", "sample the daemon this long before each run\n(default 500)",
			     0, 3600000),
		PARSEOPT_CALLBACK(0, "timeout", &b->ro.timeout_ms, "TIME",
				  "kill a run's tree after TIME (e.g. 30s): recorded as\nfailed, with its partial timeline; the bench goes on",
				  cmd_opt_duration),
		PARSEOPT_GROUP("recording options, as for 'perfhunt run':"),
		PARSEOPT_INCLUDE(shared),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "bench", .usage = usage_text, .footer = usage_footer,
					  .table = table, .flags = PARSEOPT_STOP_AT_OPERAND };
	int n = cmd_parse_options(&opts, argc, argv, status);
	if (n < 0)
		return -1;
	if (seed >= 0)
		b->seed = (uint64_t)seed;
	b->ro.daemon_pid = (pid_t)attach;
	b->ro.idle_ms = (double)idle_ms;
	if (b->ro.json_path || b->ro.csv_path) {
		*status = cmd_usage_error("bench", "%s is per run; use --export-json or --export-csv",
					  b->ro.json_path ? "--output" : "--csv");
		return -1;
	}
	if ((b->ro.daemon_pid > 0) + (b->attach_name != NULL) + (b->attach_pidfile != NULL) > 1) {
		*status = cmd_usage_error("bench", "give one of --attach, --attach-name, --attach-pidfile");
		return -1;
	}
	if (b->runs * (b->warmup + 1) > 10000000) {
		*status = cmd_usage_error("bench", "--runs %lld with --warmup %lld is too many runs",
					  (long long)b->runs, (long long)b->warmup);
		return -1;
	}
	return n;
}

/* Splits the words after the options into command templates (NULL-terminated
 * argv each): groups separated by ":::"; with --shell, each group joined into
 * one script, or each word a script when there is no ":::". */
static int split_commands(const struct bench_cli *b, char **words, int n, char ***tmpl, size_t *ntmpl)
{
	bool sep = false;
	for (int i = 0; i < n; i++)
		sep |= !strcmp(words[i], ":::");
	*ntmpl = 0;
	for (int i = 0; i < n;) {
		int j = i;
		if (b->shell && !sep)
			j = i + 1;
		else
			while (j < n && strcmp(words[j], ":::"))
				j++;
		if (j == i)
			return cmd_usage_error("bench", "an empty command around ':::'");
		char **argv = xcalloc((size_t)(j - i) + 1, sizeof(*argv));
		if (b->shell) {
			argv[0] = xjoin(words + i, (size_t)(j - i), " ");
		} else {
			for (int k = i; k < j; k++)
				argv[k - i] = xstrdup(words[k]);
		}
		tmpl[(*ntmpl)++] = argv;
		bool at_sep = j < n && !strcmp(words[j], ":::");
		if (at_sep && j + 1 == n)
			return cmd_usage_error("bench", "an empty command after ':::'");
		i = j + at_sep;
	}
	return 0;
}

/* Runs a --prepare/--conclude/--setup/--cleanup shell command, its stdout
 * discarded and stderr shown; 0 when it exited 0, else prints why and -1. */
static int run_hook(const char *what, const char *script)
{
	char sh[] = "sh", dash_c[] = "-c";
	char *script_copy = xstrdup(script);
	char *argv[] = { sh, dash_c, script_copy, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	free(script_copy);
	if (rc != 0) {
		fprintf(stderr, "perfhunt bench: cannot run the %s command: %s\n", what, strerror(rc));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	fprintf(stderr, "perfhunt bench: the %s command failed (status %d): %s\n", what,
		WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), script);
	return -1;
}

struct progress {
	bool on;
	size_t done, total;
	int64_t start_ns;
};

static void progress_draw(struct progress *p, const char *name, bool warmup)
{
	enum { WIDTH = 24 };
	if (!p->on)
		return;
	char bar[WIDTH + 1], eta[48] = "";
	size_t fill = p->total ? p->done * WIDTH / p->total : 0;
	for (size_t i = 0; i < WIDTH; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[WIDTH] = '\0';
	if (p->done > 0) {
		double left_ms = (double)(clock_mono_ns() - p->start_ns) / 1e6 / (double)p->done *
				 (double)(p->total - p->done);
		char t[32];
		snprintf(eta, sizeof(eta), "  ETA %s", units_ms(left_ms, t, sizeof(t)));
	}
	/* the end of a long command tells most; never cut a UTF-8 sequence */
	size_t len = strlen(name);
	const char *tail = len > 40 ? name + len - 39 : name;
	while ((*tail & 0xC0) == 0x80)
		tail++;
	fprintf(stderr, "\r\033[K  [%s] %zu/%zu%s  %s%s%s", bar, p->done, p->total, eta, warmup ? "warmup: " : "",
		tail != name ? "…" : "", tail);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->on) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
}

static int markdown_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_markdown_write(rec, f) < 0 ? err_set(e, "write error") : 0;
}

static json_t *options_json(const struct bench_cli *b)
{
	json_t *o = json_pack("{s:I, s:I, s:b, s:I, s:b, s:b, s:i}", "runs", (json_int_t)b->runs, "warmup",
			      (json_int_t)b->warmup, "interleave", b->interleave, "seed", (json_int_t)b->seed, "shell",
			      b->shell, "ignore_failure", b->ignore_failure, "interval_ms", b->ro.interval_ms);
	if (b->ro.timeout_ms > 0)
		json_object_set_new(o, "timeout_s", json_real(b->ro.timeout_ms / 1000));
	if (b->ro.daemon_pid > 0) /* each run attaches to this daemon for the command's lifetime */
		json_object_set_new(o, "attach_pid", json_integer(b->ro.daemon_pid));
	const char *keys[] = { "prepare", "conclude", "setup", "cleanup" };
	const char *vals[] = { b->prepare, b->conclude, b->setup, b->cleanup };
	for (size_t i = 0; i < 4; i++)
		if (vals[i])
			json_object_set_new(o, keys[i], json_string(vals[i]));
	return o;
}

/* Name of a planned command: the script itself, or the argv shell-quoted. */
static char *command_name(const struct bench_cli *b, char **argv, json_t *jargv)
{
	if (b->shell)
		return xstrdup(argv[0]);
	char *s = command_text(jargv);
	return s ? s : xstrdup("?");
}

/* Runs the schedule; returns the exit status (0 when every slot ran). */
static int execute(struct bench_cli *b, struct bench_plan_cmd *cmds, size_t ncmd, json_t *rec)
{
	size_t nslots = ncmd * (size_t)(b->runs + b->warmup);
	struct bench_slot *slots = xcalloc(nslots, sizeof(*slots));
	size_t *done = xcalloc(2 * ncmd, sizeof(*done)); /* timed, warmup runs per command */
	bench_plan_schedule(ncmd, (size_t)b->runs, (size_t)b->warmup, b->interleave, b->seed, slots);
	struct progress pr = { .on = !b->ro.quiet && isatty(STDERR_FILENO), .total = nslots,
			       .start_ns = clock_mono_ns() };
	json_t *order = json_array();
	int status = PH_EXIT_OK;
	monitor_keep_sockets(true); /* one family lookup and registration for all runs */
	for (size_t s = 0; s < nslots && status == PH_EXIT_OK; s++) {
		struct bench_plan_cmd *c = &cmds[slots[s].cmd];
		const json_t *jc = json_array_get(json_object_get(rec, "commands"), slots[s].cmd);
		const char *name = json_string_value(json_object_get(jc, "name"));
		progress_draw(&pr, name, slots[s].warmup);
		if (b->prepare) {
			char *script = bench_params_subst(&b->params, c->combo, b->prepare);
			int rc = run_hook("--prepare", script);
			free(script);
			if (rc < 0) {
				status = PH_EXIT_FAIL;
				break;
			}
		}
		struct launch_opts lo = { .argv = c->argv, .shell = b->shell, .capture = true,
					  .probe_fd = b->ro.probes };
		json_t *run = NULL;
		int st = record_opts_capture(&b->ro, &lo, c->argv, false, &run, NULL);
		pr.done++;
		if (!run) { /* not startable (126/127, message printed) or the monitor failed */
			progress_clear(&pr);
			status = st ? st : PH_EXIT_FAIL;
			break;
		}
		if (b->conclude) {
			char *script = bench_params_subst(&b->params, c->combo, b->conclude);
			int rc = run_hook("--conclude", script);
			free(script);
			if (rc < 0)
				status = PH_EXIT_FAIL;
		}
		bool interrupted = st == 128 + SIGINT || st == 128 + SIGTERM;
		if (json_is_true(json_object_get(json_object_get(run, "exit"), "timed_out"))) {
			/* killed at --timeout: kept apart with its timeline, and the bench goes on */
			progress_clear(&pr);
			if (!b->ro.quiet)
				fprintf(stderr, "perfhunt bench: '%s' timed out (%s %zu of %lld): its tree was killed\n", name,
					slots[s].warmup ? "warmup" : "run", done[2 * slots[s].cmd + slots[s].warmup] + 1,
					(long long)(slots[s].warmup ? b->warmup : b->runs));
			done[2 * slots[s].cmd + slots[s].warmup]++;
			b->timed_out++;
			if (slots[s].warmup)
				json_decref(run);
			else
				bench_record_add_failed(rec, slots[s].cmd, run);
			continue;
		}
		if (st != 0 && (!b->ignore_failure || interrupted)) {
			progress_clear(&pr);
			fprintf(stderr, "perfhunt bench: '%s' %s with status %d (%s %zu of %lld)%s\n", name,
				interrupted ? "was interrupted" : "exited", st, slots[s].warmup ? "warmup" : "run",
				done[2 * slots[s].cmd + slots[s].warmup] + 1, (long long)(slots[s].warmup ? b->warmup : b->runs),
				interrupted ? "" : "; pass -i to ignore failures");
			if (!interrupted)
				fprintf(stderr, "perfhunt bench: its output was discarded; see it with: perfhunt run%s -- %s\n",
					b->shell ? " --shell" : "", name);
			json_decref(run);
			status = PH_EXIT_FAIL;
			break;
		}
		done[2 * slots[s].cmd + slots[s].warmup]++;
		if (slots[s].warmup) {
			json_decref(run);
			continue;
		}
		bench_record_add_run(rec, slots[s].cmd, run);
		json_array_append_new(order, json_integer((json_int_t)slots[s].cmd));
	}
	monitor_keep_sockets(false);
	progress_clear(&pr);
	json_object_set_new(rec, "order", order);
	free(slots);
	free(done);
	return status;
}

static int save(const struct bench_cli *b, json_t *rec)
{
	struct err e;
	struct store *st;
	int64_t id;
	if (store_open(&st, NULL, &e) < 0 || (store_add_bench(st, rec, b->ro.tags, &id, &e) < 0 && (store_close(st), 1))) {
		fprintf(stderr, "perfhunt: bench not saved to the history: %s\n", e.msg);
		return PH_EXIT_FAIL;
	}
	store_close_detached(st);
	if (!b->ro.quiet)
		fprintf(stderr, "saved bench %lld (compare with @bench:%lld or @last, see 'perfhunt history')\n",
			(long long)id, (long long)id);
	return PH_EXIT_OK;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_cli b = { .runs = 10, .interleave = true };
	record_opts_init(&b.ro);
	bench_params_init(&b.params);
	b.ro.discard_output = true;
	b.seed = (uint64_t)(clock_epoch_ms() ^ getpid()) & 0x7fffffff;
	char ***tmpl = xcalloc((size_t)argc + 1, sizeof(*tmpl));
	size_t ntmpl = 0, ncmd = 0;
	struct bench_plan_cmd *cmds = NULL;
	json_t *rec = NULL;
	struct err e;
	int status = PH_EXIT_USAGE;

	int nwords = parse_options(&b, argc, argv, &status);
	if (nwords < 0)
		goto out;
	if (nwords == 0) {
		status = cmd_usage_error("bench", "no command given");
		goto out;
	}
	if ((status = split_commands(&b, argv, nwords, tmpl, &ntmpl)) != 0)
		goto out;
	b.ro.target = (struct record_opts_target){ b.shell, b.ro.daemon_pid, b.attach_name, b.attach_pidfile };
	if ((status = cmd_find_daemon(b.attach_name, b.attach_pidfile, &b.ro.daemon_pid, &e)) != 0) {
		cmd_fail(status, &e);
		goto out;
	}
	if (bench_plan_expand(tmpl, ntmpl, &b.params, &cmds, &ncmd, &e) < 0) {
		status = cmd_usage_error("bench", "%s", e.msg);
		goto out;
	}
	const char *files[] = { b.json_path, b.csv_path, b.md_path, b.go_path };
	if ((status = record_opts_check_outputs(&b.ro, files, sizeof(files) / sizeof(files[0]))) != 0)
		goto out;
	char started[40];
	clock_format_rfc3339(clock_epoch_ms(), started, sizeof(started));
	rec = bench_record_new(started, options_json(&b));
	for (size_t i = 0; i < ncmd; i++) {
		json_t *jargv = json_array(), *params = json_object();
		for (char **a = cmds[i].argv; *a; a++)
			json_array_append_new(jargv, json_string(*a));
		for (size_t k = 0; k < b.params.n; k++)
			json_object_set_new(params, b.params.items[k].name,
					    json_string(bench_params_value(&b.params, cmds[i].combo, k)));
		char *name = command_name(&b, cmds[i].argv, jargv);
		bench_record_add_command(rec, name, jargv, params);
		free(name);
	}
	if (b.setup && run_hook("--setup", b.setup) < 0) {
		status = PH_EXIT_FAIL;
		goto out;
	}
	status = execute(&b, cmds, ncmd, rec);
	if (b.cleanup && run_hook("--cleanup", b.cleanup) < 0 && status == PH_EXIT_OK)
		status = PH_EXIT_FAIL;
	if (status != PH_EXIT_OK)
		goto out;
	if (bench_record_finish(rec, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	if (bench_text_write(rec, cmd_use_color(STDOUT_FILENO), stdout) < 0)
		status = PH_EXIT_FAIL;
	if (b.json_path && jsonio_write(b.json_path, rec, &e) < 0) {
		status = cmd_fail(PH_EXIT_FAIL, &e);
		/* a long bench's record is not lost to a full disk */
		char *elsewhere = jsonio_write_elsewhere(rec, "bench", &e);
		if (elsewhere)
			fprintf(stderr, "perfhunt: the bench record was written to '%s' instead\n", elsewhere);
		else
			cmd_fail(status, &e);
		free(elsewhere);
	}
	const struct cmd_export ex[] = { { b.csv_path, bench_csv_write }, { b.md_path, markdown_fn },
					 { b.go_path, bench_gobench_write } };
	status = cmd_write_exports(ex, sizeof(ex) / sizeof(ex[0]), rec, status);
	if (b.timed_out && !b.ignore_failure && status == PH_EXIT_OK)
		status = PH_EXIT_FAIL; /* recorded and reported, but the bench did not run clean */
	fflush(stdout);
	if (b.ro.save && save(&b, rec) != PH_EXIT_OK)
		status = PH_EXIT_FAIL;
	/* local records first, then the network: a gateway that is down loses nothing */
	if ((b.ro.fleet.openmetrics_path || b.ro.fleet.push_url) && fleet_after_record(&b.ro.fleet, rec, &e) < 0)
		status = cmd_fail(PH_EXIT_FAIL, &e);
	status = cmd_finish_stdout(status);
out:
	json_decref(rec);
	bench_plan_free(cmds, ncmd);
	for (size_t i = 0; i < ntmpl; i++) {
		for (char **a = tmpl[i]; *a; a++)
			free(*a);
		free(tmpl[i]);
	}
	free(tmpl);
	bench_params_release(&b.params);
	record_opts_release(&b.ro);
	return status;
}
