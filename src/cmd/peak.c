/* peak: perfhunt peak [--column NAME|N] [--json] FILE...
 *
 * The one-pass answer to `sort -t, -k2 -n FILE | tail -1`: the scan itself is
 * record/csvpeak; this file opens each file (or stdin for "-"), reports the
 * malformed lines it skipped on stderr, and prints one line per file, as text
 * or as one JSON object per line.
 */
#include "cmd/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/csvpeak.h"
#include "util/clock.h"
#include "util/parse.h"
#include "util/units.h"
#include "util/xalloc.h"

static const char usage_text[] =
	"usage: perfhunt peak [--column NAME|N] [--json] FILE...\n"
	"\n"
	"Prints the peak row of each timeline CSV (perfhunt's, or the headerless\n"
	"epoch_ms,rss_kb,rss_gib of a 1 s sampler) in one pass. FILE '-' is stdin.\n"
	"Malformed lines are skipped and reported on stderr.\n"
	"\n";

static const char usage_footer[] =
	"Exit status: 0 when every file had a peak, 1 when a file could not be read\n"
	"or had no valid row, 2 on a usage error.\n";

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

/* Human form of a value, by the unit suffix of its column name; NULL when it has none. */
static const char *human_value(const char *name, double v, char *buf, size_t n)
{
	if (!name)
		return NULL;
	if (ends_with(name, "_kb"))
		return units_kb(v, buf, n);
	if (ends_with(name, "_mib"))
		return units_kb(v * 1024, buf, n);
	if (ends_with(name, "_gib"))
		return units_kb(v * 1048576, buf, n);
	if (ends_with(name, "_bytes"))
		return units_kb(v / 1024, buf, n);
	if (ends_with(name, "_ms"))
		return units_ms(v, buf, n);
	return NULL;
}

static void report_bad(const char *file, const struct csvpeak *s)
{
	if (!s->bad)
		return;
	fprintf(stderr, "perfhunt: %s: skipped %" PRIu64 " malformed line%s of %" PRIu64 ":", file,
		s->bad, s->bad == 1 ? "" : "s", s->lines);
	size_t kept = s->bad < CSVPEAK_BAD_KEPT ? (size_t)s->bad : CSVPEAK_BAD_KEPT;
	for (size_t i = 0; i < kept; i++) {
		char why[96];
		csvpeak_bad_describe(s, &s->bad_first[i], why, sizeof(why));
		fprintf(stderr, "%s line %" PRIu64 " (%s)", i ? "," : "", s->bad_first[i].line, why);
	}
	fprintf(stderr, "%s\n", s->bad > kept ? ", ..." : "");
}

/* A JSON string of bytes that may not be UTF-8: invalid bytes become '?'. */
static json_t *json_bytes(const char *p, size_t n)
{
	json_t *j = json_stringn(p, n);
	if (j)
		return j;
	char *copy = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		copy[i] = (unsigned char)p[i] < 0x80 ? p[i] : '?';
	j = json_stringn(copy, n);
	free(copy);
	return j;
}

static int print_json(const char *file, const struct csvpeak *s, const char *raw, double v,
		      const char *human)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", json_bytes(file, strlen(file)));
	json_object_set_new(o, "column", s->column_name ? json_bytes(s->column_name, strlen(s->column_name)) : json_null());
	json_object_set_new(o, "column_index", json_integer((json_int_t)s->column));
	bool integral = !memchr(raw, '.', s->value_len);
	json_object_set_new(o, "value", integral ? json_integer(s->peak.negative ? -(json_int_t)s->peak.int_part
							     : (json_int_t)s->peak.int_part)
				   : json_real(v));
	json_object_set_new(o, "raw", json_bytes(raw, s->value_len));
	json_object_set_new(o, "human", human ? json_string(human) : json_null());
	if (s->has_time) {
		char when[40];
		clock_format_rfc3339(s->peak_epoch_ms, when, sizeof(when));
		json_object_set_new(o, "epoch_ms", json_integer(s->peak_epoch_ms));
		json_object_set_new(o, "time", json_string(when));
		json_object_set_new(o, "since_first_ms", json_integer(s->peak_epoch_ms - s->first_epoch_ms));
	}
	json_object_set_new(o, "line", json_integer((json_int_t)s->peak_line));
	json_object_set_new(o, "row", json_bytes(s->row, s->row_len));
	json_object_set_new(o, "lines", json_integer((json_int_t)s->lines));
	json_object_set_new(o, "rows", json_integer((json_int_t)s->rows));
	json_object_set_new(o, "bad_lines", json_integer((json_int_t)s->bad));
	json_t *first = json_array();
	for (size_t i = 0; i < s->bad && i < CSVPEAK_BAD_KEPT; i++)
		json_array_append_new(first, json_integer((json_int_t)s->bad_first[i].line));
	json_object_set_new(o, "bad_line_numbers", first);
	int rc = json_dumpf(o, stdout, JSON_COMPACT);
	json_decref(o);
	putchar('\n');
	return rc;
}

static void print_text(const char *file, const struct csvpeak *s, const char *raw, const char *human)
{
	printf("%s: ", file);
	if (s->column_name)
		printf("%s ", s->column_name);
	else
		printf("column %zu ", s->column);
	printf("%.*s", (int)s->value_len, raw);
	if (human)
		printf(" (%s)", human);
	if (s->has_time) {
		char when[40];
		clock_format_rfc3339(s->peak_epoch_ms, when, sizeof(when));
		printf(" at %s (+%" PRId64 " ms)", when, s->peak_epoch_ms - s->first_epoch_ms);
	}
	printf(", line %" PRIu64 ": %.*s\n", s->peak_line, (int)s->row_len, s->row);
}

/* Scans one file and prints its line; returns an exit status. */
static int peak_file(const char *path, size_t column, const char *name, bool json)
{
	const bool is_stdin = !strcmp(path, "-");
	const char *file = is_stdin ? "stdin" : path;
	struct err e = { 0 };
	struct csvpeak s;
	csvpeak_init(&s, column, name);
	int status = PH_EXIT_OK;
	int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err_sys(&e, "cannot open '%s'", path);
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	int rc = csvpeak_scan_fd(fd, file, &s, &e);
	if (!is_stdin)
		close(fd);
	if (rc < 0) {
		err_wrap(&e, "%s", file);
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	report_bad(file, &s);
	if (!s.found) {
		err_set(&e, "%s: no valid row in %" PRIu64 " line%s", file, s.lines, s.lines == 1 ? "" : "s");
		status = cmd_fail(PH_EXIT_FAIL, &e);
		goto out;
	}
	const char *raw = s.row + s.value_off;
	char *value_text = xstrndup(raw, s.value_len);
	double v = strtod(value_text, NULL);
	free(value_text);
	char hbuf[48];
	const char *human = human_value(s.column_name, v, hbuf, sizeof(hbuf));
	if (json)
		print_json(file, &s, raw, v, human);
	else
		print_text(file, &s, raw, human);
out:
	csvpeak_release(&s);
	return status;
}

struct column {
	size_t index; /* 1-based; 0: by name */
	const char *name;
};

/* --column NAME|N: a 1-based index when it starts with a digit, else a header name. */
static int column_opt(struct parseopt_state *st, const struct parseopt *row, const char *arg, struct err *e)
{
	(void)st;
	struct column *c = row->value;
	int64_t n;
	if (arg[0] >= '0' && arg[0] <= '9') {
		if (parse_i64(arg, 1, INT32_MAX, &n, "--column", e) < 0)
			return -1;
		c->index = (size_t)n;
		c->name = NULL;
	} else if (!arg[0]) {
		return err_set(e, "--column: expected a name or a 1-based index");
	} else {
		c->name = arg;
		c->index = 0;
	}
	return 0;
}

int cmd_peak(int argc, char **argv)
{
	struct column col = { 0 };
	bool json = false;
	const struct parseopt table[] = {
		PARSEOPT_CALLBACK('c', "column", &col, "NAME|N", "the column to maximise, by header name or 1-based\n"
				  "index (default: the tree_*_kb column of\nperfhunt's CSV, else 2, rss_kb)", column_opt),
		PARSEOPT_FLAG('j', "json", &json, "one JSON object per file, one per line"),
		PARSEOPT_END(),
	};
	const struct cmd_options opts = { .name = "peak", .usage = usage_text, .footer = usage_footer,
					  .table = table };
	int status = PH_EXIT_OK;
	int n = cmd_parse_options(&opts, argc, argv, &status);
	if (n < 0)
		return status;
	if (n == 0)
		return cmd_usage_error("peak", "expected at least one FILE");
	for (int i = 0; i < n; i++) {
		int rc = peak_file(argv[i], col.index, col.name, json);
		if (rc != PH_EXIT_OK)
			status = rc;
		/* Each line is whole before the next file's messages reach stderr. */
		fflush(stdout);
	}
	return cmd_finish_stdout(status);
}
