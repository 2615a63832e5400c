/* Unit tests of the other tools' output formats perfhunt writes from a run
 * record (export/time_format.c, export/perfstat.c) and of hyperfine's JSON
 * read as a bench (record/hyperfine.c): exact strings, since scripts parse
 * them, including GNU time's cut (not rounded) hundredths, %E past an hour,
 * unknown directives and escapes, and a hyperfine file's runs and errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/perfstat.h"
#include "export/time_format.h"
#include "record/hyperfine.h"

/* What fn writes of rec, as a string the caller frees. */
static char *render(const json_t *rec, const char *arg, int (*fn)(const json_t *, const char *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(fn(rec, arg, f), 0);
	fclose(f);
	return buf;
}

static json_t *record(double wall_s, int code, int sig)
{
	return json_pack("{s:[s,s], s:{s:i, s:i}, s:{s:f, s:f, s:f, s:i, s:i, s:i, s:i, s:i}}", "command", "sh", "-c",
			 "exit", "code", code, "signal", sig, "summary", "wall_s", wall_s, "user_s", 1.239, "sys_s", 0.5,
			 "peak_rss_kb", 2048, "minflt", 70, "majflt", 1, "vcsw", 3, "ivcsw", 4);
}

static void test_gnu_time_directives(void **state)
{
	(void)state;
	json_t *rec = record(2.999, 0, 0);
	char *s = render(rec, "%e|%E|%U|%S|%P|%M|%F|%R|%w|%c|%x|%C|%X|%I|%%|%q\\t\\n\\\\\\z", time_format_write);
	assert_string_equal(s, "2.99|0:02.99|1.23|0.50|57%|2048|1|70|3|4|0|sh -c|0|-|%|?q\t\n\\?\\z\n");
	free(s);
	json_decref(rec);
	rec = record(3725.5, 3, 0);
	s = render(rec, "%E %x", time_format_write);
	assert_string_equal(s, "Command exited with non-zero status 3\n1:02:05 3\n");
	free(s);
	json_decref(rec);
	rec = record(0.0004, 0, 9);
	s = render(rec, "%P", time_format_write);
	assert_string_equal(s, "Command terminated by signal 9\n?%\n");
	free(s);
	s = render(rec, time_format_verbose, time_format_write);
	assert_non_null(strstr(s, "\tMaximum resident set size (kbytes): 2048\n"));
	assert_non_null(strstr(s, "\tExit status: 0\n"));
	free(s);
	json_decref(rec);
}

static void test_perf_stat_lines(void **state)
{
	(void)state;
	json_t *rec = json_pack("{s:{s:{s:i, s:s, s:b}, s:{s:i, s:b}, s:{s:n, s:s}, s:{s:i, s:b}}}", "counters",
				"task-clock", "value", 568092, "unit", "ns", "scaled", 0, "page-faults", "value", 48,
				"scaled", 0, "cycles", "value", "status", "not supported", "instructions", "value", 10,
				"scaled", 1);
	char *s = render(rec, ";", perfstat_write);
	assert_string_equal(s, "0.57;msec;task-clock;;100.00;;\n48;;page-faults;;100.00;;\n"
			       "<not supported>;;cycles;;;;\n10;;instructions;;;;\n");
	free(s);
	json_decref(rec);
}

static void test_hyperfine_results(void **state)
{
	(void)state;
	struct err e;
	json_t *bench = NULL;
	json_t *hf = json_loads("{\"results\": [{\"command\": \"sleep 0.1\", \"mean\": 0.1, \"times\": [0.1, 0.12],"
				"\"exit_codes\": [0, 2], \"user\": 0.001, \"parameters\": {\"n\": \"1\"}}]}", 0, NULL);
	assert_true(hyperfine_is(hf));
	assert_int_equal(hyperfine_to_bench(hf, &bench, &e), 0);
	json_t *cmd = json_array_get(json_object_get(bench, "commands"), 0);
	assert_string_equal(json_string_value(json_object_get(cmd, "name")), "sleep 0.1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(cmd, "parameters"), "n")), "1");
	json_t *runs = json_object_get(cmd, "runs");
	assert_int_equal(json_array_size(runs), 2);
	json_t *run2 = json_array_get(runs, 1);
	assert_true(json_real_value(json_object_get(json_object_get(run2, "summary"), "wall_s")) == 0.12);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(run2, "exit"), "code")), 2);
	/* its results[] in hyperfine's shape again: the same times */
	json_t *r = json_array_get(json_object_get(bench, "results"), 0);
	assert_true(json_equal(json_object_get(r, "times"), json_object_get(json_array_get(json_object_get(hf, "results"), 0), "times")));
	json_decref(bench);
	json_decref(hf);

	hf = json_loads("{\"results\": [{\"command\": \"x\", \"times\": [0.1], \"exit_codes\": [0, 0]}]}", 0, NULL);
	assert_int_equal(hyperfine_to_bench(hf, &bench, &e), -1);
	assert_string_equal(e.msg, "hyperfine result 1: \"exit_codes\" is not one per time");
	json_decref(hf);
	hf = json_loads("{\"schema\": \"perfhunt.run/1\", \"results\": []}", 0, NULL);
	assert_false(hyperfine_is(hf));
	json_decref(hf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gnu_time_directives),
		cmocka_unit_test(test_perf_stat_lines),
		cmocka_unit_test(test_hyperfine_results),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
