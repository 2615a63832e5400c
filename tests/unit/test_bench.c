/* Unit tests of the pure parts of perfhunt bench: parameter expansion
 * (several -L, substitution, errors), the interleaved schedule (determinism
 * for a seed, balance of every block), the bench record's statistics and
 * outlier flags, and the exports (terminal, markdown, CSV, Go benchmark
 * format, including the sanitising of benchmark names).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "export/bench_csv.h"
#include "export/bench_gobench.h"
#include "export/bench_markdown.h"
#include "export/bench_text.h"
#include "record/benchspool.h"
#include "record/jsonio.h"
#include "stats/bench_plan.h"
#include "stats/bench_record.h"

static void test_params_errors(void **state)
{
	(void)state;
	struct bench_params p;
	struct err e;
	bench_params_init(&p);
	assert_int_equal(bench_params_add(&p, "", "1,2", &e), -1);
	assert_int_equal(bench_params_add(&p, "a b", "1,2", &e), -1);
	assert_non_null(strstr(e.msg, "letters"));
	assert_int_equal(bench_params_add(&p, "N", "", &e), -1);
	assert_int_equal(bench_params_add(&p, "N", "1,,2", &e), -1);
	assert_non_null(strstr(e.msg, "empty value"));
	assert_int_equal(bench_params_add(&p, "N", "1,", &e), -1);
	assert_int_equal(p.n, 0);
	assert_int_equal(bench_params_add(&p, "N", "1,2", &e), 0);
	assert_int_equal(bench_params_add(&p, "N", "3", &e), -1);
	assert_non_null(strstr(e.msg, "twice"));
	assert_int_equal(bench_params_count(&p), 2);
	bench_params_release(&p);
}

static void test_params_product(void **state)
{
	(void)state;
	struct bench_params p;
	struct err e;
	bench_params_init(&p);
	assert_int_equal(bench_params_count(&p), 1);
	assert_int_equal(bench_params_add(&p, "A", "x,y", &e), 0);
	assert_int_equal(bench_params_add(&p, "B_2", "1,2,3", &e), 0);
	assert_int_equal(bench_params_count(&p), 6);
	/* the last -L varies fastest */
	const char *want[6][2] = { { "x", "1" }, { "x", "2" }, { "x", "3" }, { "y", "1" }, { "y", "2" }, { "y", "3" } };
	for (size_t k = 0; k < 6; k++) {
		assert_string_equal(bench_params_value(&p, k, 0), want[k][0]);
		assert_string_equal(bench_params_value(&p, k, 1), want[k][1]);
	}
	char *s = bench_params_subst(&p, 4, "{A}-{B_2}/{A}{C} {B} {B_2");
	assert_string_equal(s, "y-2/y{C} {B} {B_2");
	free(s);
	s = bench_params_subst(&p, 0, "");
	assert_string_equal(s, "");
	free(s);

	char *t1[] = { "sleep", "{A}.{B_2}", NULL };
	char *t2[] = { "echo", "{B_2}", NULL };
	char **tmpl[] = { t1, t2 };
	struct bench_plan_cmd *cmds;
	size_t n;
	assert_int_equal(bench_plan_expand(tmpl, 2, &p, &cmds, &n, &e), 0);
	assert_int_equal(n, 12);
	assert_string_equal(cmds[0].argv[1], "x.1");
	assert_string_equal(cmds[5].argv[1], "y.3");
	assert_int_equal(cmds[5].combo, 5);
	assert_string_equal(cmds[6].argv[0], "echo");
	assert_string_equal(cmds[8].argv[1], "3");
	assert_int_equal(cmds[8].template_i, 1);
	assert_null(cmds[8].argv[2]);
	bench_plan_free(cmds, n);

	/* {A} in no template is an error, not six identical commands */
	char **only2[] = { t2 };
	assert_int_equal(bench_plan_expand(only2, 1, &p, &cmds, &n, &e), -1);
	assert_non_null(strstr(e.msg, "{A} appears in no command"));
	bench_params_release(&p);

	/* without parameters: one command per template */
	bench_params_init(&p);
	assert_int_equal(bench_plan_expand(tmpl, 2, &p, &cmds, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_string_equal(cmds[1].argv[1], "{B_2}");
	bench_plan_free(cmds, n);
}

static void test_params_bound(void **state)
{
	(void)state;
	struct bench_params p;
	struct err e;
	bench_params_init(&p);
	char list[4096] = "0";
	for (int i = 1; i < 200; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ",%d", i);
	assert_int_equal(bench_params_add(&p, "A", list, &e), 0);
	assert_int_equal(bench_params_add(&p, "B", list, &e), 0);
	assert_int_equal(bench_params_add(&p, "C", list, &e), 0);
	char *t[] = { "x", "{A}{B}{C}", NULL };
	char **tmpl[] = { t };
	struct bench_plan_cmd *cmds;
	size_t n;
	assert_int_equal(bench_plan_expand(tmpl, 1, &p, &cmds, &n, &e), -1);
	assert_non_null(strstr(e.msg, "too many"));
	bench_params_release(&p);
}

static void test_schedule(void **state)
{
	(void)state;
	enum { NC = 3, RUNS = 20, WARM = 2, TOTAL = NC * (RUNS + WARM) };
	struct bench_slot a[TOTAL], b[TOTAL], c[TOTAL];
	assert_int_equal(bench_plan_schedule(NC, RUNS, WARM, true, 42, a), TOTAL);
	assert_int_equal(bench_plan_schedule(NC, RUNS, WARM, true, 42, b), TOTAL);
	assert_int_equal(bench_plan_schedule(NC, RUNS, WARM, true, 43, c), TOTAL);
	bool differs = false;
	for (size_t i = 0; i < TOTAL; i++) {
		assert_int_equal(a[i].cmd, b[i].cmd);
		assert_int_equal(a[i].warmup, b[i].warmup);
		differs |= a[i].cmd != c[i].cmd;
	}
	assert_true(differs);
	/* every block holds each command once; warmup blocks come first */
	size_t first_in_block[NC] = { 0 };
	for (size_t blk = 0; blk < RUNS + WARM; blk++) {
		int seen[NC] = { 0 };
		for (size_t k = 0; k < NC; k++) {
			const struct bench_slot *s = &a[blk * NC + k];
			seen[s->cmd]++;
			assert_int_equal(s->warmup, blk < WARM);
			if (k == 0)
				first_in_block[s->cmd]++;
		}
		for (size_t k = 0; k < NC; k++)
			assert_int_equal(seen[k], 1);
	}
	/* shuffled, not rotated: over 22 blocks each command leads at least once */
	for (size_t k = 0; k < NC; k++)
		assert_true(first_in_block[k] > 0);

	struct bench_slot d[2 * (3 + 1)];
	assert_int_equal(bench_plan_schedule(2, 3, 1, false, 42, d), 8);
	const size_t want[8] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	for (size_t i = 0; i < 8; i++) {
		assert_int_equal(d[i].cmd, want[i]);
		assert_int_equal(d[i].warmup, i % 4 == 0);
	}
}

static void test_gobench_name(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(bench_gobench_name("sleep 0.1", buf, sizeof(buf)), "BenchmarkSleep_0.1");
	assert_string_equal(bench_gobench_name("/usr/lib/phwork sleep:20", buf, sizeof(buf)), "BenchmarkPhwork_sleep:20");
	assert_string_equal(bench_gobench_name("'a b'  |c/d", buf, sizeof(buf)), "BenchmarkA_b_c_d");
	assert_string_equal(bench_gobench_name("make -j 4 -k-12", buf, sizeof(buf)), "BenchmarkMake_-j_4_-k_12");
	assert_string_equal(bench_gobench_name("", buf, sizeof(buf)), "Benchmark_");
	assert_string_equal(bench_gobench_name("   ", buf, sizeof(buf)), "Benchmark_");
	assert_string_equal(bench_gobench_name("Zstd -19 x", buf, sizeof(buf)), "BenchmarkZstd_-19_x");
	char small[14];
	assert_string_equal(bench_gobench_name("abcdefghij", small, sizeof(small)), "BenchmarkAbcd");
}

static json_t *fake_run(double wall_s, double rss_kb, int status, double load_ms)
{
	json_t *r = json_pack("{s:s, s:s, s:{s:f, s:f, s:f, s:f, s:i}, s:{s:i}, s:{s:s, s:s}, s:{s:[[i]]}}", "schema",
			      "perfhunt.run/1", "started_at", "2026-01-01T00:00:00.000Z", "summary", "wall_s", wall_s,
			      "user_s", wall_s / 2, "sys_s", 0.001, "peak_rss_kb", rss_kb, "minflt", 100, "exit",
			      "status", status, "host", "hostname", "h", "cpu_model", "Test CPU", "samples", "rows", 1);
	if (load_ms > 0)
		json_object_set_new(r, "phases", json_pack("[{s:s, s:f, s:f}]", "name", "load", "start_ms", 1.0,
							   "end_ms", 1.0 + load_ms));
	return r;
}

static json_t *fake_bench(void)
{
	json_t *rec = bench_record_new("2026-01-01T00:00:00.000Z", json_pack("{s:i}", "runs", 6));
	size_t a = bench_record_add_command(rec, "sleep 0.1", json_pack("[s, s]", "sleep", "0.1"),
					    json_pack("{s:s}", "T", "0.1"));
	size_t b = bench_record_add_command(rec, "sleep|0.2", json_pack("[s]", "sleep|0.2"), NULL);
	const double wa[] = { 0.100, 0.101, 0.099, 0.100, 0.102, 0.300 }; /* last: an outlier */
	for (size_t i = 0; i < 6; i++) {
		bench_record_add_run(rec, a, fake_run(wa[i], 1024, 0, i % 2 ? 10 : 0));
		bench_record_add_run(rec, b, fake_run(0.2 + 0.001 * (double)i, 2048, 0, 0));
	}
	return rec;
}

static void test_record(void **state)
{
	(void)state;
	struct err e;
	json_t *rec = fake_bench();
	assert_int_equal(bench_record_finish(rec, NULL, &e), 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(rec, "host"), "hostname")), "h");
	json_t *run0 = json_array_get(json_object_get(json_array_get(json_object_get(rec, "commands"), 0), "runs"), 0);
	assert_null(json_object_get(json_object_get(run0, "samples"), "rows"));
	assert_true(fabs(bench_record_stat(rec, 0, "wall_s", "median") - 0.1005) < 1e-12);
	assert_int_equal((int)bench_record_stat(rec, 0, "wall_s", "n"), 6);
	assert_true(fabs(bench_record_stat(rec, 0, "phase:load", "median") - 5) < 1e-12);
	assert_true(isnan(bench_record_stat(rec, 1, "phase:load", "median")));
	assert_true(isnan(bench_record_stat(rec, 5, "wall_s", "median")));
	json_t *out = json_object_get(json_array_get(json_object_get(rec, "commands"), 0), "outliers");
	assert_int_equal(json_array_size(json_object_get(out, "runs")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(out, "runs"), 0)), 6);
	out = json_object_get(json_array_get(json_object_get(rec, "commands"), 1), "outliers");
	assert_int_equal(json_array_size(json_object_get(out, "runs")), 0);
	assert_int_equal(bench_record_fastest(rec), 0);
	double ratio, sd;
	assert_true(bench_record_relative(rec, 1, 0, &ratio, &sd));
	double ma = 0.1005, mb = 0.2025; /* medians */
	assert_true(fabs(ratio - mb / ma) < 1e-9);
	assert_true(sd > 0);
	json_decref(rec);

	/* a run without wall_s is an error naming the command */
	rec = bench_record_new("x", NULL);
	bench_record_add_command(rec, "x", json_pack("[s]", "x"), NULL);
	bench_record_add_run(rec, 0, json_pack("{s:s, s:{}}", "schema", "perfhunt.run/1", "summary"));
	assert_int_equal(bench_record_finish(rec, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "bench command 1"));
	json_decref(rec);
}

/* Runs an exporter into a string; caller frees. */
static char *render(int (*fn)(const json_t *, FILE *, struct err *), const json_t *rec)
{
	char *buf = NULL;
	size_t len = 0;
	struct err e;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(rec, f, &e), 0);
	fclose(f);
	return buf;
}

static int csv_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_csv_write(rec, NULL, f, e);
}

static int gobench_fn(const json_t *rec, FILE *f, struct err *e)
{
	return bench_gobench_write(rec, NULL, f, e);
}

static int markdown_fn(const json_t *rec, FILE *f, struct err *e)
{
	(void)e;
	return bench_markdown_write(rec, f);
}

static int text_fn(const json_t *rec, FILE *f, struct err *e)
{
	(void)e;
	const struct bench_text_style plain = { .color = false };
	return bench_text_write(rec, NULL, &plain, f);
}

static size_t count_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void test_exports(void **state)
{
	(void)state;
	struct err e;
	json_t *rec = fake_bench();
	assert_int_equal(bench_record_finish(rec, NULL, &e), 0);

	char *csv = render(csv_fn, rec);
	assert_int_equal(count_lines(csv), 13);
	assert_true(!strncmp(csv, "command,parameter_T,run,started_at,exit_status,wall_s,user_s,sys_s,peak_rss_kb,minflt,phase:load\n",
			     strlen("command,parameter_T,run,started_at,exit_status,wall_s,user_s,sys_s,peak_rss_kb,minflt,phase:load\n")));
	assert_non_null(strstr(csv, "\nsleep 0.1,0.1,1,2026-01-01T00:00:00.000Z,0,0.1,0.05,0.001,1024,100,0\n"));
	assert_non_null(strstr(csv, "\nsleep 0.1,0.1,2,2026-01-01T00:00:00.000Z,0,0.101,0.0505,0.001,1024,100,10\n"));
	assert_non_null(strstr(csv, "\nsleep|0.2,,6,"));
	free(csv);

	char *md = render(markdown_fn, rec);
	assert_int_equal(count_lines(md), 4);
	assert_true(!strncmp(md, "| command | median | mean ± σ | min | max | peak RSS | relative |\n", strlen("| command | median | mean ± σ | min | max | peak RSS | relative |\n")));
	assert_non_null(strstr(md, "\n|:---|---:|---:|---:|---:|---:|---:|\n"));
	assert_non_null(strstr(md, "| `sleep\\|0.2` |"));
	assert_non_null(strstr(md, "| 1.00 |\n"));
	free(md);

	char *go = render(gobench_fn, rec);
	assert_int_equal(count_lines(go), 13);
	assert_true(!strncmp(go, "cpu: Test CPU\n", 14));
	assert_non_null(strstr(go, "\nBenchmarkSleep_0.1 1 0.1 sec/op 0.05 user-sec/op 0.001 sys-sec/op "
				   "1048576 peak-rss-B 100 minflt/op\n"));
	assert_non_null(strstr(go, "\nBenchmarkSleep_0.1 1 0.101 sec/op 0.0505 user-sec/op 0.001 sys-sec/op "
				   "1048576 peak-rss-B 100 minflt/op 0.01 phase-load-sec/op\n"));
	assert_non_null(strstr(go, "\nBenchmarkSleep_0.2 1 0.2 sec/op"));
	regex_t re;
	assert_int_equal(regcomp(&re, "^Benchmark[^a-z[:space:]][^[:space:]]* 1( [0-9][0-9.e+-]* [^[:space:]]+)+$",
				 REG_EXTENDED | REG_NOSUB), 0);
	size_t bench_lines = 0;
	for (char *save = NULL, *line = strtok_r(go, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "Benchmark", 9)) {
			assert_int_equal(regexec(&re, line, 0, NULL, 0), 0);
			bench_lines++;
		}
	regfree(&re);
	assert_int_equal(bench_lines, 12);
	free(go);

	char *txt = render(text_fn, rec);
	assert_non_null(strstr(txt, "Benchmark 1: sleep 0.1\n"));
	assert_non_null(strstr(txt, "1 outlier in wall time"));
	assert_non_null(strstr(txt, "consider --warmup or a quieter machine"));
	assert_non_null(strstr(txt, "load 5.00 ms   (median total per run)"));
	assert_non_null(strstr(txt, "times faster than sleep|0.2\n"));
	free(txt);
	json_decref(rec);
}

/* Renders an export of a bench whose runs are read from src. */
static char *render_runs(int (*fn)(const json_t *, const struct bench_runs *, FILE *, struct err *), const json_t *rec,
			 const struct bench_runs *src)
{
	char *buf = NULL;
	size_t len = 0;
	struct err e;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(fn(rec, src, f, &e), 0);
	fclose(f);
	return buf;
}

static int text_runs_fn(const json_t *rec, const struct bench_runs *src, FILE *f, struct err *e)
{
	(void)e;
	const struct bench_text_style plain = { .color = false };
	return bench_text_write(rec, src, &plain, f);
}

/* A bench whose runs went to the spool says what the same bench with its
 * runs in memory says: the same statistics, the same terminal text, CSV and
 * Go lines, and a record file with every run. */
static void test_spool(void **state)
{
	(void)state;
	struct err e;
	json_t *mem = fake_bench();
	assert_int_equal(bench_record_finish(mem, NULL, &e), 0);

	json_t *rec = bench_record_new("2026-01-01T00:00:00.000Z", json_pack("{s:i}", "runs", 6));
	bench_record_add_command(rec, "sleep 0.1", json_pack("[s, s]", "sleep", "0.1"), json_pack("{s:s}", "T", "0.1"));
	bench_record_add_command(rec, "sleep|0.2", json_pack("[s]", "sleep|0.2"), NULL);
	struct benchspool *sp;
	assert_int_equal(benchspool_new(&sp, 2, &e), 0);
	const double wa[] = { 0.100, 0.101, 0.099, 0.100, 0.102, 0.300 };
	for (size_t i = 0; i < 6; i++) {
		json_t *ra = fake_run(wa[i], 1024, 0, i % 2 ? 10 : 0), *rb = fake_run(0.2 + 0.001 * (double)i, 2048, 0, 0);
		bench_record_prepare_run(rec, ra);
		bench_record_prepare_run(rec, rb);
		assert_int_equal(benchspool_add(sp, 0, ra, &e), 0);
		assert_int_equal(benchspool_add(sp, 1, rb, &e), 0);
		json_decref(ra);
		json_decref(rb);
	}
	assert_int_equal(benchspool_add(sp, 2, mem, &e), -1); /* no third command */
	const struct bench_runs src = benchspool_runs(sp);
	assert_int_equal(bench_runs_count(&src, rec, 0), 6);
	assert_null(bench_runs_load(&src, rec, 0, 6, &e));
	assert_int_equal(bench_record_finish(rec, &src, &e), 0);
	assert_true(json_equal(json_object_get(rec, "results"), json_object_get(mem, "results")));
	for (size_t i = 0; i < 2; i++) {
		const json_t *a = json_array_get(json_object_get(rec, "commands"), i);
		const json_t *b = json_array_get(json_object_get(mem, "commands"), i);
		assert_true(json_equal(json_object_get(a, "stats"), json_object_get(b, "stats")));
		assert_true(json_equal(json_object_get(a, "outliers"), json_object_get(b, "outliers")));
		assert_int_equal(json_array_size(json_object_get(a, "runs")), 0); /* none held in memory */
	}
	int (*const fns[])(const json_t *, const struct bench_runs *, FILE *, struct err *) = {
		bench_csv_write, bench_gobench_write, text_runs_fn
	};
	for (size_t k = 0; k < sizeof(fns) / sizeof(fns[0]); k++) {
		char *a = render_runs(fns[k], rec, &src), *b = render_runs(fns[k], mem, NULL);
		assert_string_equal(a, b);
		free(a);
		free(b);
	}

	char path[] = "/tmp/perfhunt-test-spool-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(benchspool_write_record(path, rec, &src, &e), 0);
	json_t *back;
	assert_int_equal(jsonio_read(path, "perfhunt.bench/1", &back, &e), 0);
	unlink(path);
	const json_t *runs0 = json_object_get(json_array_get(json_object_get(back, "commands"), 0), "runs");
	assert_int_equal(json_array_size(runs0), 6);
	assert_true(fabs(json_real_value(json_object_get(json_object_get(json_array_get(runs0, 5), "summary"), "wall_s")) - 0.3) < 1e-12);
	/* the same record as the one held whole, written by jsonio_write */
	json_t *whole;
	assert_int_equal(jsonio_write(path, mem, &e), 0);
	assert_int_equal(jsonio_read(path, "perfhunt.bench/1", &whole, &e), 0);
	unlink(path);
	assert_true(json_equal(back, whole));
	json_decref(back);
	json_decref(whole);

	benchspool_free(sp);
	json_decref(rec);
	json_decref(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_params_errors),
		cmocka_unit_test(test_params_product),
		cmocka_unit_test(test_params_bound),
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_gobench_name),
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_exports),
		cmocka_unit_test(test_spool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
