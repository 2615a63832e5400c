/* summary: a readable `time -v` — every figure named with how it was obtained.
 * Where two sources disagree (perf's page-faults event against the task's
 * fault counts) the summary says which one it uses and why they differ.
 * Every string from the record (command, process names, phases, notes) is
 * printed through util/quote, so an escape sequence in it shows as text. */
#include "export/summary.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export/phases_text.h"
#include "export/sparkline.h"
#include "util/quote.h"
#include "util/units.h"
#include "util/xalloc.h"

static double num(const json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static const char *str(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* A counted event's value, or -1. */
static double counted(const json_t *counters, const char *event)
{
	const json_t *cv = json_object_get(counters, event);
	const json_t *v = json_object_get(cv, "value");
	return !strcmp(str(cv, "status"), "counted") && json_is_number(v) ? json_number_value(v) : -1;
}

bool summary_fault_note(const json_t *rec, char *buf, size_t n)
{
	const json_t *sum = json_object_get(rec, "summary"), *counters = json_object_get(rec, "counters");
	const json_t *minflt = json_object_get(sum, "minflt"), *majflt = json_object_get(sum, "majflt");
	if (!json_is_object(counters) || !json_is_number(minflt))
		return false;
	double task = json_number_value(minflt) + (json_is_number(majflt) ? json_number_value(majflt) : 0);
	const char *what = "page-faults";
	double perf = counted(counters, what);
	if (perf < 0) {
		double minor = counted(counters, "minor-faults"), major = counted(counters, "major-faults");
		if (minor < 0 || major < 0)
			return false;
		perf = minor + major;
		what = "minor-faults + major-faults";
	}
	double diff = fabs(perf - task);
	if (diff <= SUMMARY_FAULTS_DIFF_MIN || diff <= task * SUMMARY_FAULTS_DIFF_PCT / 100)
		return false;
	char a[48], b[48];
	snprintf(buf, n, "perf counted %s %s events but the task counters %s faults (minflt + majflt, "
		 "the figures shown): faults the kernel takes for a task inside a system call (mlock, "
		 "MAP_POPULATE, get_user_pages) count there, not as perf events",
		 units_count(perf, a, sizeof a), what, units_count(task, b, sizeof b));
	return true;
}

/* Once per record: lines that named a probe prefix but gave nothing, with
 * the first few quoted (a silent zero is the worst answer). */
static void warn_unparsed(const json_t *rec, FILE *out)
{
	const json_t *info = json_object_get(rec, "probe_info");
	double n = num(info, "unparsed");
	if (!(n > 0))
		return;
	fprintf(out, "  warning: %.0f line%s named a probe prefix but held no usable key=value pair%s\n", n,
		n == 1 ? "" : "s", n == 1 ? ":" : "; the first:");
	size_t i;
	json_t *u;
	json_array_foreach(json_object_get(info, "unparsed_lines"), i, u) {
		if (i >= 3)
			break;
		/* the text is stored as printable ASCII already */
		fprintf(out, "    %s line %.0f: %s\n", str(u, "stream"), num(u, "line"), str(u, "text"));
	}
}

char *summary_command_text(const json_t *cmd)
{
	if (json_is_string(cmd)) /* a --shell script */
		return quote_c(json_string_value(cmd));
	char *line = NULL;
	size_t i;
	json_t *arg;
	json_array_foreach(cmd, i, arg)
		line = quote_shell(line, json_is_string(arg) ? json_string_value(arg) : "?", true);
	return line ? line : xstrdup("?");
}

void summary_print(const json_t *rec, FILE *out)
{
	const json_t *sum = json_object_get(rec, "summary");
	const json_t *ex = json_object_get(rec, "exit");
	char a[48], b[48], c[48], d[48];

	struct quote_pool q = { 0 };
	size_t i;

	char *cmd = summary_command_text(json_object_get(rec, "command"));
	fprintf(out, "perfhunt: %s\n", cmd);
	free(cmd);

	if (!strcmp(str(rec, "kind"), "watch"))
		fprintf(out, "  %-17s %s\n", "ended", quote_pool_c(&q, str(rec, "ended")));
	else if (num(ex, "signal") > 0)
		fprintf(out, "  %-17s killed by %s%s (status %.0f)%s\n", "exit", quote_pool_c(&q, str(ex, "signal_name")),
			json_is_true(json_object_get(ex, "oom_killed")) ? ", out of memory (the cgroup's OOM killer)" : "",
			num(ex, "status"),
			json_is_true(json_object_get(ex, "core_dumped")) ? ", core dumped" : "");
	else
		fprintf(out, "  %-17s %.0f\n", "exit status", num(ex, "code"));

	double wall = num(sum, "wall_s");
	fprintf(out, "  %-17s %s   user %s   sys %s   CPU %.0f %%\n", "wall",
		units_ms(wall * 1000, a, sizeof a), units_ms(num(sum, "user_s") * 1000, b, sizeof b),
		units_ms(num(sum, "sys_s") * 1000, c, sizeof c), num(sum, "cpu_pct"));

	json_t *pk;
	json_array_foreach(json_object_get(rec, "peaks"), i, pk) {
		units_kb(num(pk, "kb"), a, sizeof a);
		const char *scope = str(pk, "scope");
		if (!strcmp(scope, "process") && json_is_false(json_object_get(pk, "exact"))) {
			/* no source measured it (a watched zombie): no figure, no method */
			fprintf(out, "  %-17s %-12s largest single process: not measured (no process of the tree "
				"was read alive, none was waited for)\n", "peak RSS", "-");
		} else if (!strcmp(scope, "process")) {
			fprintf(out, "  %-17s %-12s largest single process", "peak RSS", a);
			if (num(pk, "pid") > 0)
				fprintf(out, " (%s, pid %.0f)", quote_pool_c(&q, str(pk, "comm")), num(pk, "pid"));
			fprintf(out, "; exact: %s", quote_pool_c(&q, str(pk, "method")));
			if (*str(pk, "phase"))
				fprintf(out, "; reached during %s", quote_pool_c(&q, str(pk, "phase")));
			fputc('\n', out);
		} else if (json_is_true(json_object_get(pk, "exact"))) {
			fprintf(out, "  %-17s %-12s whole tree; exact: %s (%s)\n", "peak tree", a,
				quote_pool_c(&q, str(pk, "method")), quote_pool_c(&q, str(pk, "note")));
		} else if (!strcmp(scope, "daemon")) {
			fprintf(out, "  %-17s %-12s the attached daemon's tree at %s, %s above its idle %s",
				"daemon peak", a, units_ms(num(pk, "at_ms"), b, sizeof b),
				units_kb(num(pk, "above_idle_kb"), c, sizeof c),
				units_kb(num(pk, "idle_kb"), d, sizeof d));
			const char *ph = quote_pool_c(&q, str(pk, "phase"));
			if (*ph)
				fprintf(out, ", in phase %s", ph);
			fputc('\n', out);
		} else {
			fprintf(out, "  %-17s %-12s sum of the tree's RSS at %s", "sampled peak", a,
				units_ms(num(pk, "at_ms"), b, sizeof b));
			const char *ph = quote_pool_c(&q, str(pk, "phase"));
			if (*ph)
				fprintf(out, ", in phase %s", ph);
			fprintf(out, " (%.0f samples every %.0f ms)\n", num(sum, "samples"), num(sum, "interval_ms"));
		}
	}
	if (json_object_get(sum, "pss_peak_kb"))
		fprintf(out, "  %-17s %s\n", "peak PSS", units_kb(num(sum, "pss_peak_kb"), a, sizeof a));
	if (json_object_get(sum, "gpu_peak_mib"))
		fprintf(out, "  %-17s %s (includes the CUDA context)\n", "peak GPU memory",
			units_kb(num(sum, "gpu_peak_mib") * 1024, a, sizeof a));
	fprintf(out, "  %-17s %s minor, %s major\n", "page faults",
		units_count(num(sum, "minflt"), a, sizeof a), units_count(num(sum, "majflt"), b, sizeof b));
	fprintf(out, "  %-17s %s voluntary, %s involuntary\n", "context switches",
		units_count(num(sum, "vcsw"), a, sizeof a), units_count(num(sum, "ivcsw"), b, sizeof b));
	fprintf(out, "  %-17s %.0f processes, %.0f threads at most\n", "tree", num(sum, "max_procs"),
		num(sum, "max_threads"));
	fprintf(out, "  %-17s %s read, %s written\n", "I/O",
		units_kb(num(sum, "read_bytes") / 1024, a, sizeof a),
		units_kb(num(sum, "write_bytes") / 1024, b, sizeof b));
	double samples = num(sum, "samples");
	fprintf(out, "  %-17s %s CPU for %.0f samples (%s per sample)\n", "monitor",
		units_ms(num(sum, "monitor_cpu_s") * 1000, a, sizeof a), samples,
		units_ms(samples > 0 ? num(sum, "monitor_cpu_s") * 1000 / samples : 0, b, sizeof b));

	const char *name;
	json_t *cv;
	int shown = 0;
	json_object_foreach((json_t *)json_object_get(rec, "counters"), name, cv) {
		const char *status = str(cv, "status");
		fprintf(out, "%s%s ", shown++ ? ", " : "  counters          ", quote_pool_c(&q, name));
		if (!strcmp(status, "counted")) {
			if (!strcmp(str(cv, "unit"), "ns"))
				fputs(units_ms(num(cv, "value") / 1e6, a, sizeof a), out);
			else
				fputs(units_count(num(cv, "value"), a, sizeof a), out);
			if (json_is_true(json_object_get(cv, "scaled")))
				fputs(" (scaled)", out);
		} else {
			fprintf(out, "<%s>", quote_pool_c(&q, status));
		}
	}
	if (shown)
		fputc('\n', out);
	char note[400];
	if (summary_fault_note(rec, note, sizeof(note)))
		fprintf(out, "  note: %s\n", note);
	json_t *n;
	json_array_foreach(json_object_get(rec, "notes"), i, n)
		fprintf(out, "  note: %s\n", quote_pool_c(&q, json_is_string(n) ? json_string_value(n) : "?"));
	phases_text_print(rec, out, NULL);
	warn_unparsed(rec, out);
	quote_pool_release(&q);
}

void summary_print_sparkline(const json_t *rec, FILE *out)
{
	const json_t *samples = json_object_get(rec, "samples");
	const json_t *cols = json_object_get(samples, "columns");
	const json_t *rows = json_object_get(samples, "rows");
	size_t n = json_array_size(rows), t_col = (size_t)-1, rss_col = (size_t)-1, i;
	json_t *c;
	json_array_foreach(cols, i, c) {
		const char *name = json_string_value(c);
		if (name && !strcmp(name, "t_ms"))
			t_col = i;
		if (name && !strcmp(name, "rss_kb"))
			rss_col = i;
	}
	if (n < 2 || t_col == (size_t)-1 || rss_col == (size_t)-1)
		return;
	double *v = xcalloc(n, sizeof(*v));
	double max = 0, max_t = 0;
	for (i = 0; i < n; i++) {
		const json_t *row = json_array_get(rows, i);
		v[i] = json_number_value(json_array_get(row, rss_col));
		if (v[i] > max) {
			max = v[i];
			max_t = json_number_value(json_array_get(row, t_col));
		}
	}
	double end = json_number_value(json_array_get(json_array_get(rows, n - 1), t_col));
	char line[64 * 3 + 1], a[32], b[32], d[32];
	sparkline(v, n, 64, line, sizeof(line));
	fprintf(out, "  %-17s %s\n  %-17s 0 .. %s; max %s at %s\n", "RSS", line, "", units_ms(end, a, sizeof a),
		units_kb(max, b, sizeof b), units_ms(max_t, d, sizeof d));
	free(v);
}
