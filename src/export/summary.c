/* summary: a readable `time -v` — every figure named with how it was obtained.
 * Where two sources disagree (perf's page-faults event against the task's
 * fault counts) the summary says which one it uses and why they differ.
 * Every string from the record (command, process names, phases, notes) is
 * printed through util/quote, so an escape sequence in it shows as text. */
#include "export/summary.h"

#include <math.h>
#include <stdbool.h>
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

static void counters_line(const char *label, const json_t *counters, struct quote_pool *q, FILE *out);

/* "; flat within 1 % from A to B (N samples)" when the top is a plateau: its
 * first sample is the one named, the span says how long it lasted. */
static void flat_text(const json_t *pk, FILE *out)
{
	const json_t *f = json_object_get(pk, "flat");
	char a[48], b[48];
	if (f)
		fprintf(out, "; flat within 1 %% from %s to %s (%.0f samples)", units_ms(num(f, "from_ms"), a, sizeof a),
			units_ms(num(f, "to_ms"), b, sizeof b), num(f, "samples"));
}

static void phase_text(const json_t *pk, struct quote_pool *q, FILE *out)
{
	const char *ph = quote_pool_c(q, str(pk, "phase"));
	if (*ph)
		fprintf(out, ", in phase %s", ph);
}

/* One entry of "peaks", worded by its scope: each names its own sample and phases. */
static void peak_line(const json_t *pk, const json_t *sum, struct quote_pool *q, FILE *out)
{
	char a[48], b[48], c[48], d[48];
	units_kb(num(pk, "kb"), a, sizeof a);
	const char *scope = str(pk, "scope");
	bool exact = json_is_true(json_object_get(pk, "exact"));
	if (!strcmp(scope, "process") && !exact && !json_object_get(pk, "bound")) {
		/* no source measured it (a watched zombie): no figure, no method */
		fprintf(out, "  %-17s %-12s largest single process: not measured (no process of the tree "
			"was read alive, none was waited for)\n", "peak RSS", "-");
		return;
	}
	if (!strcmp(scope, "process")) {
		fprintf(out, "  %-17s %-12s largest single process", "peak RSS", a);
		if (num(pk, "pid") > 0)
			fprintf(out, " (%s, pid %.0f)", quote_pool_c(q, str(pk, "comm")), num(pk, "pid"));
		/* a bound is said to be one: the method's words say which */
		fprintf(out, "; %s: %s", exact ? "exact" : "a bound, not exact", quote_pool_c(q, str(pk, "method")));
		if (num(pk, "at_least_kb") > 0)
			fprintf(out, "; at least %s", units_kb(num(pk, "at_least_kb"), b, sizeof b));
		if (json_is_true(json_object_get(pk, "before_attach")))
			fprintf(out, "; reached before perfhunt attached");
		else if (*str(pk, "phase"))
			fprintf(out, "; reached during %s", quote_pool_c(q, str(pk, "phase")));
		fputc('\n', out);
		return;
	}
	if (exact) {
		fprintf(out, "  %-17s %-12s whole tree; exact: %s (%s)\n", "peak tree", a,
			quote_pool_c(q, str(pk, "method")), quote_pool_c(q, str(pk, "note")));
		return;
	}
	units_ms(num(pk, "at_ms"), b, sizeof b);
	if (json_is_false(json_object_get(pk, "inside"))) {
		fprintf(out, "  %-17s %-12s no sample inside the run: --interval %.0f ms is longer than it (the "
			"exact peaks above hold)\n", "sampled peak", "-", num(sum, "interval_ms"));
		return;
	}
	if (!strcmp(scope, "daemon")) {
		fprintf(out, "  %-17s %-12s the attached daemon's tree at %s, %s above its idle %s", "daemon peak", a, b,
			units_kb(num(pk, "above_idle_kb"), c, sizeof c), units_kb(num(pk, "idle_kb"), d, sizeof d));
	} else if (!strcmp(scope, "client")) {
		fprintf(out, "  %-17s %-12s the command's tree at %s", "client peak", a, b);
	} else if (!strcmp(scope, "both")) {
		fprintf(out, "  %-17s %-12s both trees summed at %s", "both trees peak", a, b);
	} else if (!strncmp(str(pk, "method"), "sampled: ", 9)) {
		fprintf(out, "  %-17s %-12s the tree's memory, a shared page once (%s), at %s", "sampled peak", a,
			quote_pool_c(q, str(pk, "method") + 9), b);
	} else { /* a record from before the tree's memory was counted once */
		fprintf(out, "  %-17s %-12s sum of the tree's RSS at %s", "sampled peak", a, b);
	}
	phase_text(pk, q, out);
	flat_text(pk, out);
	if ((!strcmp(scope, "tree") || !strcmp(scope, "both")) && num(sum, "samples_stretched") > 0)
		fprintf(out, " (%.0f samples every %.0f ms, stretched to %.1f ms on average)", num(sum, "samples"),
			num(sum, "interval_ms"), num(sum, "effective_interval_ms"));
	else if (!strcmp(scope, "tree") || !strcmp(scope, "both"))
		fprintf(out, " (%.0f samples every %.0f ms)", num(sum, "samples"), num(sum, "interval_ms"));
	fputc('\n', out);
}

/* Why the cgroup's exact whole-tree figure disagrees with the others, in plain words. */
static void cgroup_why(const json_t *rec, FILE *out)
{
	const json_t *sum = json_object_get(rec, "summary");
	double cg = num(sum, "cgroup_peak_kb"), proc = num(sum, "peak_rss_kb"), sampled = -1;
	char a[48], b[48];
	size_t i;
	json_t *pk;
	json_array_foreach(json_object_get(rec, "peaks"), i, pk)
		if (!json_is_true(json_object_get(pk, "exact")) && !json_is_false(json_object_get(pk, "inside")) &&
		    (!strcmp(str(pk, "scope"), "tree") || !strcmp(str(pk, "scope"), "client")))
			sampled = num(pk, "kb");
	if (!json_object_get(sum, "cgroup_peak_kb"))
		return;
	if (cg < proc)
		fprintf(out, "  %-17s the cgroup's whole-tree peak (%s) is below the largest process's (%s): a\n"
			     "  %-17s process's RSS counts the shared pages it maps (libraries, files), but the\n"
			     "  %-17s cgroup is charged only for pages the tree brought in itself\n",
			"why", units_kb(cg, a, sizeof a), units_kb(proc, b, sizeof b), "", "");
	else if (sampled >= 0 && cg - sampled > sampled && cg - sampled > 4096)
		fprintf(out, "  %-17s the cgroup's whole-tree peak (%s) is mostly page cache: %s more than\n"
			     "  %-17s the tree's sampled RSS, the files it read or wrote, which the kernel keeps\n",
			"why", units_kb(cg, a, sizeof a), units_kb(cg - sampled, b, sizeof b), "");
}

/* "user 2.34 s, sys 0.1 s, 396.92 k minor faults, ..." of a history object. */
static void history_line(const char *label, const json_t *h, FILE *out)
{
	char a[48], b[48], c[48];
	if (!h || !(num(h, "user_s") + num(h, "sys_s") + num(h, "minflt") + num(h, "vcsw") > 0))
		return;
	fprintf(out, "  %-17s user %s, sys %s, %s minor faults: its lifetime until perfhunt attached, in no sample\n",
		label, units_ms(num(h, "user_s") * 1000, a, sizeof a), units_ms(num(h, "sys_s") * 1000, b, sizeof b),
		units_count(num(h, "minflt"), c, sizeof c));
}

/* Writes cell padded to width columns (one per UTF-8 code point: "µs"). */
static void cell(FILE *out, const char *text, int width)
{
	int cols = 0;
	for (const char *p = text; *p; p++)
		cols += (*p & 0xC0) != 0x80;
	fprintf(out, "%s%*s", text, width > cols ? width - cols : 0, "");
}

/* With an attached daemon: each tree's costs side by side. */
/* Where a tree's thread time went, short: "0.29 parallel, 10.3 s blocked,
 * 32.3 s waiting for a CPU" (NULL for a record without thread states). */
static const char *thread_time_text(const json_t *o, char *buf, size_t n)
{
	char a[48], b[48];
	if (!json_is_number(json_object_get(o, "oncpu_ms")))
		return NULL;
	int w = snprintf(buf, n, "%.2f parallel, %s blocked", num(o, "parallelism"),
			 units_ms(num(o, "blocked_ms"), a, sizeof a));
	if (w > 0 && (size_t)w < n && json_is_number(json_object_get(o, "iowait_ms")))
		w += snprintf(buf + w, n - (size_t)w, " (%s of it waiting for I/O)", units_ms(num(o, "iowait_ms"), a, sizeof a));
	if (w > 0 && (size_t)w < n)
		snprintf(buf + w, n - (size_t)w, ", %s waiting for a CPU", units_ms(num(o, "runnable_ms"), b, sizeof b));
	return buf;
}

static void costs_table(const json_t *sum, const json_t *d, FILE *out)
{
	char a[48], b[48], c[96], e[96];
	fprintf(out, "  %-17s %-24s daemon (pid %.0f)\n", "", "client", num(d, "pid"));
	snprintf(c, sizeof c, "%s / %s", units_ms(num(sum, "user_s") * 1000, a, sizeof a),
		 units_ms(num(sum, "sys_s") * 1000, b, sizeof b));
	snprintf(e, sizeof e, "%s / %s", units_ms(num(d, "user_s") * 1000, a, sizeof a),
		 units_ms(num(d, "sys_s") * 1000, b, sizeof b));
	fprintf(out, "  %-17s ", "CPU user / sys");
	cell(out, c, 25);
	fprintf(out, "%s\n", e);
	static const struct { const char *label, *k1, *k2, *unit; } rows[] = {
		{ "page faults", "minflt", "majflt", "minor / major" },
		{ "context switches", "vcsw", "ivcsw", "voluntary / involuntary" },
		{ "I/O", "read_bytes", "write_bytes", "read / written" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		bool bytes = !strcmp(rows[i].label, "I/O");
		const json_t *src[2] = { sum, d };
		char text[2][96];
		for (int k = 0; k < 2; k++) {
			double x = num(src[k], rows[i].k1), y = num(src[k], rows[i].k2);
			if (bytes)
				snprintf(text[k], sizeof text[k], "%s / %s", units_kb(x / 1024, a, sizeof a),
					 units_kb(y / 1024, b, sizeof b));
			else
				snprintf(text[k], sizeof text[k], "%s / %s", units_count(x, a, sizeof a),
					 units_count(y, b, sizeof b));
		}
		fprintf(out, "  %-17s ", rows[i].label);
		cell(out, text[0], 25);
		cell(out, text[1], 25);
		fprintf(out, "(%s)\n", rows[i].unit);
	}
	char tc[160], td[160];
	if (thread_time_text(sum, tc, sizeof tc) && thread_time_text(d, td, sizeof td)) {
		fprintf(out, "  %-17s %s\n  %-17s %s (daemon)\n", "thread time", tc, "", td);
	}
	if (json_object_get(d, "gpu_peak_mib"))
		fprintf(out, "  %-17s %-24s %s (includes the CUDA context)\n", "peak GPU memory", "not sampled",
			units_kb(num(d, "gpu_peak_mib") * 1024, a, sizeof a));
	history_line("daemon before", json_object_get(d, "at_attach"), out);
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
	struct quote_line line = { 0 };
	size_t i;
	json_t *arg;
	json_array_foreach(cmd, i, arg)
		quote_shell(&line, json_is_string(arg) ? json_string_value(arg) : "?", true);
	return line.s ? line.s : xstrdup("?");
}

void summary_print(const json_t *rec, FILE *out)
{
	const json_t *sum = json_object_get(rec, "summary");
	const json_t *ex = json_object_get(rec, "exit");
	char a[48], b[48], c[48];

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

	const json_t *daemon = json_object_get(json_object_get(rec, "trees"), "daemon");
	json_t *pk;
	json_array_foreach(json_object_get(rec, "peaks"), i, pk)
		peak_line(pk, sum, &q, out);
	cgroup_why(rec, out);
	if (json_object_get(sum, "pss_peak_kb"))
		fprintf(out, "  %-17s %s\n", "peak PSS", units_kb(num(sum, "pss_peak_kb"), a, sizeof a));
	if (json_object_get(sum, "gpu_peak_mib"))
		fprintf(out, "  %-17s %s (includes the CUDA context)\n", "peak GPU memory",
			units_kb(num(sum, "gpu_peak_mib") * 1024, a, sizeof a));
	if (daemon) {
		costs_table(sum, daemon, out);
	} else {
		fprintf(out, "  %-17s %s minor, %s major\n", "page faults",
			units_count(num(sum, "minflt"), a, sizeof a), units_count(num(sum, "majflt"), b, sizeof b));
		fprintf(out, "  %-17s %s voluntary, %s involuntary\n", "context switches",
			units_count(num(sum, "vcsw"), a, sizeof a), units_count(num(sum, "ivcsw"), b, sizeof b));
		fprintf(out, "  %-17s %s read, %s written\n", "I/O",
			units_kb(num(sum, "read_bytes") / 1024, a, sizeof a),
			units_kb(num(sum, "write_bytes") / 1024, b, sizeof b));
		history_line("before attach", json_object_get(sum, "at_attach"), out);
	}
	char tt[160];
	if (!daemon && thread_time_text(sum, tt, sizeof tt))
		fprintf(out, "  %-17s %s on a CPU: %s\n", "thread time", units_ms(num(sum, "oncpu_ms"), a, sizeof a), tt);
	/* polled discovery (no process-events connector) misses what lives between two scans */
	bool lower_bound = json_is_false(json_object_get(sum, "procs_seen_complete"));
	if (num(sum, "procs_seen") > 0)
		fprintf(out, "  %-17s %s%.0f processes in all%s; at most %.0f processes and %.0f threads at once\n",
			"tree", lower_bound ? "at least " : "", num(sum, "procs_seen"),
			lower_bound ? " (short-lived ones missed without the process-events connector)" : "",
			num(sum, "max_procs"), num(sum, "max_threads"));
	else
		fprintf(out, "  %-17s %.0f processes, %.0f threads at most\n", "tree", num(sum, "max_procs"),
			num(sum, "max_threads"));
	double samples = num(sum, "samples");
	fprintf(out, "  %-17s %s CPU for %.0f samples (%s per sample)\n", "monitor",
		units_ms(num(sum, "monitor_cpu_s") * 1000, a, sizeof a), samples,
		units_ms(samples > 0 ? num(sum, "monitor_cpu_s") * 1000 / samples : 0, b, sizeof b));

	counters_line(daemon ? "counters (client)" : "counters", json_object_get(rec, "counters"), &q, out);
	if (daemon)
		counters_line("counters (daemon)", json_object_get(daemon, "counters"), &q, out);
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

static void counters_line(const char *label, const json_t *counters, struct quote_pool *q, FILE *out)
{
	char a[48];
	const char *name;
	json_t *cv;
	int shown = 0;
	json_object_foreach((json_t *)counters, name, cv) {
		const char *status = str(cv, "status");
		if (shown++)
			fprintf(out, ", %s ", quote_pool_c(q, name));
		else
			fprintf(out, "  %-17s %s ", label, quote_pool_c(q, name));
		if (!strcmp(status, "counted")) {
			if (!strcmp(str(cv, "unit"), "ns"))
				fputs(units_ms(num(cv, "value") / 1e6, a, sizeof a), out);
			else
				fputs(units_count(num(cv, "value"), a, sizeof a), out);
			if (json_is_true(json_object_get(cv, "scaled")))
				fputs(" (scaled)", out);
		} else {
			fprintf(out, "<%s>", quote_pool_c(q, status));
		}
	}
	if (shown)
		fputc('\n', out);
}

void summary_print_sparkline(const json_t *rec, FILE *out)
{
	const json_t *samples = json_object_get(rec, "samples");
	const json_t *cols = json_object_get(samples, "columns");
	const json_t *rows = json_object_get(samples, "rows");
	size_t n = json_array_size(rows), t_col = (size_t)-1, rss_col = (size_t)-1, i;
	bool mem = false; /* the tree's memory, a shared page once; an older record's RSS sum */
	json_t *c;
	json_array_foreach(cols, i, c) {
		const char *name = json_string_value(c);
		if (name && !strcmp(name, "t_ms"))
			t_col = i;
		if (name && (!strcmp(name, "mem_kb") || (!mem && !strcmp(name, "rss_kb")))) {
			rss_col = i;
			mem = !strcmp(name, "mem_kb");
		}
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
	fprintf(out, "  %-17s %s\n  %-17s 0 .. %s; max %s at %s\n", mem ? "memory" : "RSS", line, "", units_ms(end, a, sizeof a),
		units_kb(max, b, sizeof b), units_ms(max_t, d, sizeof d));
	free(v);
}
