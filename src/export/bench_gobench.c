/* bench_gobench: the Go benchmark text format, one result line per run.
 *
 * Units follow benchstat's own: "sec/op" for wall time, "-sec/op" for other
 * times (seconds, as benchstat turns "ns/op" into "sec/op" itself and then
 * keeps a run whose time rounds to 0 ns apart from the others), "-B" for
 * sizes in bytes, "/op" for counts. Values are the shortest decimals that read
 * back exactly. Every metric compare knows is written (phases as
 * phase-NAME-sec/op), so a benchstat table holds the figures compare would.
 */
#include "export/bench_gobench.h"

#include <ctype.h>
#include <string.h>

#include "stats/bench_record.h"
#include "stats/metrics.h"
#include "util/units.h"
#include "util/xalloc.h"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || strchr("._:=,+-", c);
}

char *bench_gobench_name(const char *command, char *buf, size_t n)
{
	static const char prefix[] = "Benchmark";
	size_t len = 0;
	if (n < sizeof(prefix) + 1) {
		if (n)
			buf[0] = '\0';
		return buf;
	}
	memcpy(buf, prefix, sizeof(prefix) - 1);
	len = sizeof(prefix) - 1;
	/* drop the program's directory: "/usr/bin/sleep 1" names "sleep" */
	size_t word = strcspn(command, " \t");
	for (size_t i = word; i-- > 0;)
		if (command[i] == '/') {
			command += i + 1;
			break;
		}
	for (const char *s = command; *s && len + 1 < n; s++) {
		char c = name_char(*s) ? *s : '_';
		if (c == '_' && buf[len - 1] == '_')
			continue;
		if (len == sizeof(prefix) - 1) {
			if (c == '_')
				continue;
			c = (char)toupper((unsigned char)c);
		}
		buf[len++] = c;
	}
	while (len > sizeof(prefix) - 1 && buf[len - 1] == '_')
		len--;
	if (len == sizeof(prefix) - 1)
		buf[len++] = '_';
	buf[len] = '\0';
	/* "Name-12": benchstat would strip "-12" as a GOMAXPROCS suffix */
	size_t d = len;
	while (d > 0 && isdigit((unsigned char)buf[d - 1]))
		d--;
	if (d < len && d > 0 && buf[d - 1] == '-')
		buf[d - 1] = '_';
	return buf;
}

/* The Go unit of a metric, and the factor from perfhunt's unit to it. */
static void unit_of(const char *metric, char *unit, size_t n, double *factor)
{
	size_t len = strlen(metric);
	*factor = 1;
	if (!strcmp(metric, "wall_s")) {
		snprintf(unit, n, "sec/op");
	} else if (!strncmp(metric, "phase:", 6) && !metrics_phase_resource(metric)) {
		snprintf(unit, n, "phase-%s-sec/op", metric + 6);
		*factor = 1e-3;
	} else if (len > 2 && !strcmp(metric + len - 2, "_s")) {
		snprintf(unit, n, "%.*s-sec/op", (int)(len - 2), metric);
	} else if (len > 3 && !strcmp(metric + len - 3, "_kb")) {
		snprintf(unit, n, "%.*s-B", (int)(len - 3), metric);
		*factor = 1024;
	} else if (len > 4 && !strcmp(metric + len - 4, "_mib")) {
		snprintf(unit, n, "%.*s-B", (int)(len - 4), metric);
		*factor = 1048576;
	} else {
		snprintf(unit, n, "%s/op", metric);
	}
	for (char *u = unit; *u; u++)
		if (*u == '_' || isspace((unsigned char)*u))
			*u = '-';
}

struct line_arg {
	FILE *out;
	const char *name;
};

static int run_line(const json_t *run, const struct metrics_set *ms, size_t j, void *arg)
{
	(void)run;
	(void)j;
	const struct line_arg *l = arg;
	fprintf(l->out, "%s 1", l->name);
	for (size_t k = 0; k < ms->n; k++) {
		char unit[200];
		double factor;
		unit_of(ms->items[k].name, unit, sizeof(unit), &factor);
		char num[UNITS_SHORTEST_MAX];
		fprintf(l->out, " %s %s", units_shortest(ms->items[k].values[0] * factor, num, sizeof(num)), unit);
	}
	fputc('\n', l->out);
	return 0;
}

int bench_gobench_write(const json_t *rec, const struct bench_runs *src, FILE *out, struct err *e)
{
	json_t *cmds = json_object_get(rec, "commands"), *cmd;
	size_t i, nc = json_array_size(cmds);
	char (*names)[256] = xcalloc(nc + 1, sizeof(*names));
	int rc = 0;
	const char *cpu = json_string_value(json_object_get(json_object_get(rec, "host"), "cpu_model"));
	const char *commit = json_string_value(json_object_get(json_object_get(rec, "git"), "commit"));
	if (cpu && *cpu)
		fprintf(out, "cpu: %s\n", cpu);
	if (commit && *commit)
		fprintf(out, "commit: %s\n", commit);
	json_array_foreach(cmds, i, cmd) {
		const char *name = json_string_value(json_object_get(cmd, "name"));
		bench_gobench_name(name ? name : "", names[i], sizeof(names[i]) - 24);
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], names[i])) {
				snprintf(names[i] + strlen(names[i]), 24, "_%zu", i + 1);
				break;
			}
		struct line_arg l = { out, names[i] };
		if ((rc = bench_record_each_run(src, rec, i, run_line, &l, e)) < 0)
			goto out;
	}
	if (ferror(out))
		rc = err_set(e, "write error");
out:
	free(names);
	return rc;
}
