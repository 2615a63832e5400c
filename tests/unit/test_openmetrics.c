/* Unit tests of src/export/openmetrics: records and live samples as text.
 *
 * The exact text of a fixture record is compared byte for byte (escaping of
 * quotes, backslashes and newlines in a label included); every output is also
 * checked against the exposition grammar here, and — where Debian's promtool
 * is installed — by Prometheus' own parser and linter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export/openmetrics.h"

static json_t *load(const char *path)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j)
		fail_msg("cannot load %s: %s", path, je.text);
	return j;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strdup(buf);
}

static int name_char(int c, int first)
{
	return isalpha(c) || c == '_' || c == ':' || (!first && isdigit(c));
}

/* Checks the text against the exposition grammar: metadata before samples,
 * each family's samples together and named after it, label values escaped,
 * a number after each sample, "# EOF" last. Returns NULL or what is wrong. */
static const char *grammar_error(const char *text)
{
	static char why[256];
	char family[128] = "", seen[64][128];
	int nseen = 0, eof = 0, line_no = 0;
	const char *p = text;
	while (*p) {
		const char *end = strchr(p, '\n');
		if (!end)
			return "last line has no newline";
		line_no++;
		if (eof)
			return "text after # EOF";
		char line[4096];
		size_t n = (size_t)(end - p);
		if (n >= sizeof(line))
			return "line too long";
		memcpy(line, p, n);
		line[n] = '\0';
		p = end + 1;
		if (!strcmp(line, "# EOF")) {
			eof = 1;
			continue;
		}
		char kw[8], name[128], rest[512];
		if (line[0] == '#') {
			if (sscanf(line, "# %7s %127s %511[^\n]", kw, name, rest) != 3)
				goto bad;
			if (strcmp(kw, "TYPE") && strcmp(kw, "UNIT") && strcmp(kw, "HELP"))
				goto bad;
			if (!strcmp(kw, "TYPE")) {
				if (strcmp(rest, "gauge"))
					goto bad;
				for (int i = 0; i < nseen; i++)
					if (!strcmp(seen[i], name))
						goto bad; /* a family split in two */
				snprintf(family, sizeof(family), "%s", name);
				snprintf(seen[nseen++ % 64], sizeof(seen[0]), "%s", name);
			} else if (strcmp(name, family)) {
				goto bad;
			}
			if (!strcmp(kw, "UNIT")) {
				size_t fl = strlen(family), ul = strlen(rest);
				if (fl <= ul || strcmp(family + fl - ul, rest) || family[fl - ul - 1] != '_')
					goto bad; /* OpenMetrics: the name ends with _UNIT */
			}
			continue;
		}
		const char *q = line;
		size_t k = 0;
		while (name_char((unsigned char)*q, q == line))
			name[k++] = *q++;
		name[k] = '\0';
		if (!k || strcmp(name, family))
			goto bad;
		if (*q == '{') {
			q++;
			while (*q != '}') {
				if (!name_char((unsigned char)*q, 1))
					goto bad;
				while (name_char((unsigned char)*q, 0))
					q++;
				if (*q++ != '=' || *q++ != '"')
					goto bad;
				while (*q != '"') {
					if (!*q || *q == '\n')
						goto bad;
					if (*q == '\\') {
						q++;
						if (*q != '\\' && *q != '"' && *q != 'n')
							goto bad;
					}
					q++;
				}
				q++;
				if (*q == ',')
					q++;
				else if (*q != '}')
					goto bad;
			}
			q++;
		}
		if (*q++ != ' ')
			goto bad;
		char *num_end;
		strtod(q, &num_end);
		if (num_end == q || *num_end)
			goto bad;
		continue;
bad:
		snprintf(why, sizeof(why), "line %d: '%.200s'", line_no, line);
		return why;
	}
	return eof ? NULL : "no # EOF";
}

/* Runs promtool check metrics on text; -1 when promtool is not installed. */
static int promtool_status(const char *text)
{
	const char *tool = "/usr/bin/promtool";
	if (access(tool, X_OK) != 0)
		return -1;
	char path[] = "/tmp/perfhunt-om.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "timeout 30 %s check metrics < %s", tool, path);
	int st = system(cmd);
	unlink(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static void check_valid(const char *text)
{
	const char *why = grammar_error(text);
	if (why)
		fail_msg("not valid exposition text: %s", why);
	int st = promtool_status(text);
	if (st < 0)
		printf("skipped: promtool check (/usr/bin/promtool from package prometheus is not installed)\n");
	else
		assert_int_equal(st, 0);
}

static void test_exact_text(void **state)
{
	(void)state;
	json_t *rec = load("data/openmetrics/run.json");
	char *want = slurp("data/openmetrics/run.prom");
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(openmetrics_from_record(rec, NULL, &text, &len, &e), 0);
	assert_int_equal(len, strlen(text));
	assert_string_equal(text, want);
	/* The escaped command: sh -c 'echo "a\b"<newline>exit 9'. */
	assert_non_null(strstr(text, "command=\"sh -c 'echo \\\"a\\\\b\\\"\\nexit 9'\""));
	check_valid(text);
	free(text);
	free(want);
	json_decref(rec);
}

static void test_escape(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	openmetrics_escape(f, "a\\b\"c\nd é");
	fclose(f);
	assert_string_equal(buf, "a\\\\b\\\"c\\nd é");
	free(buf);
}

static void test_bench_medians(void **state)
{
	(void)state;
	json_t *rec = load("../cli/data/history/bench.json");
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(openmetrics_from_record(rec, NULL, &text, &len, &e), 0);
	assert_non_null(strstr(text, "perfhunt_runs{command=\"sleep 0.1\","));
	assert_non_null(strstr(text, "} 2\n"));
	/* The median of the two runs' wall times (0.1 and 0.104). */
	assert_non_null(strstr(text, "perfhunt_wall_seconds{command=\"sleep 0.1\",host=\"h1\","
				     "commit=\"b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f80\"} 0.10200000000000001\n"));
	check_valid(text);
	free(text);
	json_decref(rec);
}

static void test_bad_records(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	json_t *j = json_pack("{s:s}", "schema", "perfhunt.compare/1");
	assert_int_equal(openmetrics_from_record(j, NULL, &text, &len, &e), -1);
	assert_non_null(strstr(e.msg, "unsupported schema 'perfhunt.compare/1'"));
	json_decref(j);
	j = json_pack("{s:s,s:[s]}", "schema", "perfhunt.run/1", "command", "x");
	assert_int_equal(openmetrics_from_record(j, NULL, &text, &len, &e), -1);
	assert_non_null(strstr(e.msg, "summary"));
	assert_null(text);
	json_decref(j);
	j = json_pack("{s:s,s:[]}", "schema", "perfhunt.bench/1", "commands");
	assert_int_equal(openmetrics_from_record(j, NULL, &text, &len, &e), -1);
	assert_string_equal(e.msg, "bench record has no commands");
	json_decref(j);
}

static void test_live(void **state)
{
	(void)state;
	struct sample s = { .rss_kb = 2048, .mem_kb = 1024, .mem_method = SAMPLE_MEM_PSS, .user_ms = 150, .sys_ms = 50, .minflt = 30,
			    .majflt = 1, .procs = 3, .threads = 7, .gpu_valid = true,
			    .gpu_mib = 1.5 };
	snprintf(s.phase, sizeof(s.phase), "load+pin_abc");
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	assert_int_equal(openmetrics_live(&s, 500, "prover", "gpu-01", &text, &len, &e), 0);
	assert_non_null(strstr(text, "perfhunt_live_rss_bytes{command=\"prover\",host=\"gpu-01\"} 2097152\n"));
	assert_non_null(strstr(text, "perfhunt_live_memory_bytes{method=\"pss\",command=\"prover\",host=\"gpu-01\"} 1048576\n"));
	assert_non_null(strstr(text, "perfhunt_live_cpu_ratio{command=\"prover\",host=\"gpu-01\"} 0.4\n"));
	assert_non_null(strstr(text, "perfhunt_live_page_faults_per_second{kind=\"minor\",command=\"prover\",host=\"gpu-01\"} 60\n"));
	assert_non_null(strstr(text, "perfhunt_live_page_faults_per_second{kind=\"major\",command=\"prover\",host=\"gpu-01\"} 2\n"));
	assert_non_null(strstr(text, "perfhunt_live_gpu_bytes{command=\"prover\",host=\"gpu-01\"} 1572864\n"));
	assert_non_null(strstr(text, "perfhunt_live_phase_active{phase=\"load\",command=\"prover\",host=\"gpu-01\"} 1\n"));
	assert_non_null(strstr(text, "perfhunt_live_phase_active{phase=\"pin_abc\",command=\"prover\",host=\"gpu-01\"} 1\n"));
	check_valid(text);
	free(text);
	/* a sample that covers 250 ms (a marker's came 250 ms after the last one) */
	s.span_ms = 250;
	assert_int_equal(openmetrics_live(&s, 500, "prover", "gpu-01", &text, &len, &e), 0);
	assert_non_null(strstr(text, "perfhunt_live_cpu_ratio{command=\"prover\",host=\"gpu-01\"} 0.8\n"));
	assert_non_null(strstr(text, "perfhunt_live_page_faults_per_second{kind=\"minor\",command=\"prover\",host=\"gpu-01\"} 120\n"));
	free(text);
	assert_int_equal(openmetrics_live(&s, 0, NULL, NULL, &text, &len, &e), -1);
	assert_non_null(strstr(e.msg, "positive interval"));
}

/* Values are the shortest decimals that read back exactly: a wall time read
 * from the record as 0.218883 is written so, never as its 17-digit
 * expansion; a value that is not that decimal keeps the digits it needs. */
static void test_value_format(void **state)
{
	(void)state;
	json_t *rec = load("data/openmetrics/run.json");
	json_t *summary = json_object_get(rec, "summary");
	char *text = NULL;
	size_t len = 0;
	struct err e = { 0 };
	json_object_set_new(summary, "wall_s", json_real(0.218883));
	json_object_set_new(summary, "user_s", json_real(0.1 + 0.2));
	assert_int_equal(openmetrics_from_record(rec, NULL, &text, &len, &e), 0);
	assert_non_null(strstr(text, "} 0.218883\n"));
	assert_null(strstr(text, "0.21888300000000005"));
	assert_non_null(strstr(text, "} 0.30000000000000004\n"));
	check_valid(text);
	free(text);
	json_decref(rec);
}

static void test_write_atomic(void **state)
{
	(void)state;
	char dir[] = "/tmp/perfhunt-omw.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/perfhunt.prom", dir);
	json_t *rec = load("data/openmetrics/run.json");
	struct err e = { 0 };
	assert_int_equal(openmetrics_write(path, rec, NULL, &e), 0);
	char *got = slurp(path), *want = slurp("data/openmetrics/run.prom");
	assert_string_equal(got, want);
	free(got);
	free(want);
	/* A directory that does not exist: an error naming it, no file. */
	char bad[160];
	snprintf(bad, sizeof(bad), "%s/missing/x.prom", dir);
	assert_int_equal(openmetrics_write(bad, rec, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "missing"));
	json_decref(rec);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_text),
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_bench_medians),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_live),
		cmocka_unit_test(test_value_format),
		cmocka_unit_test(test_write_atomic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
