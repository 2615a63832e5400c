/* report_run: the report page of one run record (perfhunt.run/1).
 *
 * Reads the record's "samples" table by column name (columns may be absent
 * or null: older records, no --pss, no GPU), turns per-interval deltas into
 * rates, and lays out header, memory/fault/CPU charts on one time axis, the
 * phase lanes under them, the phase and lane tables, and, for a record with a
 * profile, a flame graph per phase (the largest REPORT_RUN_FLAMES, linked from
 * the lanes and the phase table) and one for the whole run.
 */
#include "export/report_page.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/flamegraph.h"
#include "export/phase_table.h"
#include "export/phases_text.h"
#include "export/report_chart.h"
#include "export/report_gpu.h"
#include "export/summary.h"
#include "record/profile_json.h"
#include "util/escape.h"
#include "util/units.h"
#include "util/xalloc.h"

enum { C_RSS, C_ANON, C_FILE, C_SHMEM, C_SWAP, C_PSS, C_GPU, C_MINFLT, C_MAJFLT, C_USER, C_SYS, C_MEM, C_SPAN,
       C_MEM_MIN, C_MEM_MAX, C_N };
static const char *const report_run_cols[C_N] = {
	"rss_kb", "anon_kb", "file_kb", "shmem_kb", "swap_kb", "pss_kb", "gpu_mib",
	"minflt", "majflt", "user_ms", "sys_ms", "mem_kb", "span_ms", "mem_min_kb", "mem_max_kb",
};

struct report_run_data {
	size_t n;
	double *t;
	double *col[C_N];  /* NULL when the column is absent; gpu converted to KB */
	double t_max_ms, interval_ms;
};

static void report_run_data_release(struct report_run_data *d)
{
	free(d->t);
	for (int c = 0; c < C_N; c++)
		free(d->col[c]);
}

static int report_run_data_load(const json_t *rec, struct report_run_data *d, struct err *e)
{
	memset(d, 0, sizeof(*d));
	const json_t *samples = json_object_get(rec, "samples");
	const json_t *cols = json_object_get(samples, "columns");
	const json_t *rows = json_object_get(samples, "rows");
	const json_t *summary = json_object_get(rec, "summary");
	if (json_is_array(cols) && json_is_array(rows) && json_array_size(rows) > 0) {
		long idx_t = -1, idx[C_N];
		for (int c = 0; c < C_N; c++)
			idx[c] = -1;
		size_t i;
		json_t *v;
		json_array_foreach(cols, i, v) {
			const char *name = json_string_value(v);
			if (!name)
				continue;
			if (!strcmp(name, "t_ms"))
				idx_t = (long)i;
			for (int c = 0; c < C_N; c++)
				if (!strcmp(name, report_run_cols[c]))
					idx[c] = (long)i;
		}
		if (idx_t < 0)
			return err_set(e, "record samples have no \"t_ms\" column");
		d->n = json_array_size(rows);
		d->t = xcalloc(d->n, sizeof(double));
		for (int c = 0; c < C_N; c++)
			if (idx[c] >= 0)
				d->col[c] = xcalloc(d->n, sizeof(double));
		json_array_foreach(rows, i, v) {
			json_t *tv = json_array_get(v, (size_t)idx_t);
			if (!json_is_number(tv)) {
				report_run_data_release(d);
				return err_set(e, "record sample row %zu has no time", i + 1);
			}
			d->t[i] = json_number_value(tv);
			for (int c = 0; c < C_N; c++) {
				if (!d->col[c])
					continue;
				json_t *x = json_array_get(v, (size_t)idx[c]);
				d->col[c][i] = json_is_number(x) ? json_number_value(x) : NAN;
				if (c == C_GPU)
					d->col[c][i] *= 1024; /* MiB -> KB, one axis for all memory */
			}
		}
	}
	d->interval_ms = report_page_num(summary, "interval_ms");
	if (!(d->interval_ms > 0))
		d->interval_ms = report_page_num(json_object_get(rec, "options"), "interval_ms");
	if (!(d->interval_ms > 0) && d->n > 1)
		d->interval_ms = (d->t[d->n - 1] - d->t[0]) / (double)(d->n - 1);
	if (!(d->interval_ms > 0))
		d->interval_ms = 100;

	double wall_ms = report_page_num(summary, "wall_s") * 1000;
	d->t_max_ms = wall_ms > 0 ? wall_ms : 0;
	if (d->n > 0 && d->t[d->n - 1] > d->t_max_ms)
		d->t_max_ms = d->t[d->n - 1];
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rec, "phases"), i, p) {
		double end = report_page_num(p, "end_ms");
		if (end > d->t_max_ms)
			d->t_max_ms = end;
	}
	if (!(d->t_max_ms > 0))
		d->t_max_ms = 1000;
	return 0;
}

/* A column worth drawing: present and not zero or empty throughout. */
static int report_run_has(const struct report_run_data *d, int c)
{
	if (!d->col[c])
		return 0;
	for (size_t i = 0; i < d->n; i++)
		if (d->col[c][i] > 0)
			return 1;
	return 0;
}

/* Rows were merged: some row's envelope is wider than its value. */
static bool report_run_merged(const struct report_run_data *d)
{
	if (!d->col[C_MEM_MIN] || !d->col[C_MEM_MAX])
		return false;
	for (size_t i = 0; i < d->n; i++)
		if (d->col[C_MEM_MIN][i] < d->col[C_MEM_MAX][i])
			return true;
	return false;
}

/* The phases that get a flame graph: those of the profile with samples, the
 * largest first, at most REPORT_RUN_FLAMES; the rest are listed by name. */
#define REPORT_RUN_FLAMES 12
#define REPORT_RUN_LISTED 200         /* phases past the graphs named, at most */

struct report_run_phase {
	const char *name;
	double samples;
};

struct report_run_flames {
	struct report_run_phase *v; /* n, sorted; the first ng have a graph */
	size_t n, ng;
	char *href[REPORT_RUN_FLAMES]; /* "#flame-NAME" of each graphed phase */
};

static int report_run_by_samples(const void *a, const void *b)
{
	const struct report_run_phase *x = a, *y = b;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void report_run_flames_load(const json_t *rec, struct report_run_flames *f)
{
	memset(f, 0, sizeof(*f));
	const json_t *phases = json_object_get(json_object_get(rec, "profile"), "phases");
	if (!json_is_object(phases))
		return;
	f->v = xcalloc(json_object_size(phases) + 1, sizeof(*f->v));
	const char *name;
	json_t *p;
	json_object_foreach((json_t *)phases, name, p) {
		double n = report_page_num(p, "samples");
		if (n > 0 && json_array_size(json_object_get(p, "stacks")))
			f->v[f->n++] = (struct report_run_phase){ name, n };
	}
	qsort(f->v, f->n, sizeof(*f->v), report_run_by_samples);
	f->ng = f->n < REPORT_RUN_FLAMES ? f->n : REPORT_RUN_FLAMES;
	for (size_t i = 0; i < f->ng; i++) {
		char *id = flamegraph_id("flame-", f->v[i].name);
		f->href[i] = xasprintf("#%s", id);
		free(id);
	}
}

static void report_run_flames_release(struct report_run_flames *f)
{
	for (size_t i = 0; i < f->ng; i++)
		free(f->href[i]);
	free(f->v);
}

/* The link to phase name's flame graph, or NULL when it has none. */
static const char *report_run_flame_href(const struct report_run_flames *f, const char *name)
{
	for (size_t i = 0; i < f->ng; i++)
		if (!strcmp(f->v[i].name, name))
			return f->href[i];
	return NULL;
}

static void report_run_add(struct report_chart *c, const char *name, const char *key, const char *color,
			   const double *v)
{
	c->series[c->nseries++] = (struct report_series){ name, key, color, v };
}

/* A phase's parallelism and the split of its threads' time, in shares. */
static void report_run_thread_cells(struct svg *s, const json_t *t)
{
	char a[96];
	double on = report_page_num(t, "oncpu_ms"), wait = report_page_num(t, "runnable_ms");
	double blocked = report_page_num(t, "blocked_ms"), all = on + wait + blocked;
	double par = report_page_num(t, "parallelism");
	snprintf(a, sizeof(a), isnan(par) ? "-" : "%.2f", par);
	report_page_cell(s, a, 0);
	if (all > 0)
		snprintf(a, sizeof(a), "%.0f %% / %.0f %% / %.0f %%", 100 * on / all, 100 * wait / all,
			 100 * blocked / all);
	else
		snprintf(a, sizeof(a), "-");
	report_page_cell(s, a, 0);
}

/* The tree a record's timeline is of: every chart says which it shows. */
static const char *report_run_tree(const json_t *rec)
{
	if (json_object_get(rec, "trees"))
		return "the attached daemon's tree";
	return !strcmp(report_page_str(rec, "kind"), "watch") ? "the watched tree" : "the command's tree";
}

/* title: at least 96 bytes, kept while c is drawn */
static void report_run_memory_chart(const json_t *rec, const struct report_run_data *d,
				    struct report_chart *c, char *title, char *label, size_t label_n)
{
	/* the tree's memory (a shared page once: the sampled peak's measure), then the sums */
	static const struct { int col; const char *name, *key; int color; } mem[] = {
		{ C_MEM, "tree", "tree", 7 }, { C_RSS, "RSS", "rss", 0 }, { C_ANON, "anon", "anon", 1 }, { C_FILE, "file", "file", 2 },
		{ C_SHMEM, "shmem", "shmem", 4 }, { C_SWAP, "swap", "swap", 5 }, { C_PSS, "PSS", "pss", 3 },
		{ C_GPU, "GPU", "gpu", 6 },
	};
	memset(c, 0, sizeof(*c));
	c->id = "memory";
	snprintf(title, 96, "Memory of %s (every process)", report_run_tree(rec));
	c->title = title;
	c->unit = REPORT_UNIT_KB;
	c->t_max_ms = d->t_max_ms;
	c->n = d->n;
	c->t_ms = d->t;
	for (size_t k = 0; k < sizeof(mem) / sizeof(mem[0]); k++)
		if (report_run_has(d, mem[k].col) || (mem[k].col == C_RSS && d->col[C_RSS]))
			report_run_add(c, mem[k].name, mem[k].key, report_chart_palette[mem[k].color],
				       d->col[mem[k].col]);
	/* the tree line's envelope, where rows were merged (a long watch):
	 * how low the tree's memory went between the kept rows' maxima */
	if (c->nseries && c->series[0].v == d->col[C_MEM] && report_run_merged(d)) {
		c->band_lo = d->col[C_MEM_MIN];
		c->band_hi = d->col[C_MEM_MAX];
	}

	/* the marker names the peak of the line drawn: with a daemon, the
	 * timeline is the daemon's, and so is the peak (the CSV's, too) */
	const json_t *summary = json_object_get(rec, "summary");
	const json_t *daemon = json_object_get(json_object_get(rec, "trees"), "daemon");
	const json_t *src = daemon ? daemon : summary;
	double peak_kb = report_page_num(src, daemon ? "peak_rss_kb" : "peak_tree_rss_kb");
	double at_ms = report_page_num(src, "peak_at_ms");
	const char *phase = report_page_str(src, "peak_phase");
	if (daemon)
		c->title = "Memory (the attached daemon's tree)";
	if (!(peak_kb > 0) || isnan(at_ms)) { /* older record: the largest sampled value */
		int col = d->col[C_MEM] ? C_MEM : C_RSS;
		peak_kb = NAN;
		for (size_t i = 0; d->col[col] && i < d->n; i++)
			if (isnan(peak_kb) || d->col[col][i] > peak_kb) {
				peak_kb = d->col[col][i];
				at_ms = d->t[i];
			}
	}
	if (!isnan(peak_kb)) {
		char v[48], t[48];
		snprintf(label, label_n, "%speak %s at %s%s%s", daemon ? "daemon " : "",
			 report_chart_value(REPORT_UNIT_KB, peak_kb, v, sizeof(v)),
			 report_chart_value(REPORT_UNIT_MS, at_ms, t, sizeof(t)), *phase ? " in " : "", phase);
		c->marker = 1;
		c->marker_t_ms = at_ms;
		c->marker_v = peak_kb;
		c->marker_label = label;
	}
}

int report_run_memory_svg(const json_t *rec, struct svg *s, struct err *e)
{
	struct report_run_data d;
	if (report_run_data_load(rec, &d, e) < 0)
		return -1;
	struct report_chart c;
	char label[256], title[96];
	report_run_memory_chart(rec, &d, &c, title, label, sizeof(label));
	c.style = report_page_chart_css;
	svg_raw(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	report_chart_draw(s, &c);
	report_run_data_release(&d);
	return 0;
}

/* One entry of "peaks": a row label that says which tree and how it was
 * measured, the sample and phases it names, and a flat top's span. */
static void report_run_peak_row(const json_t *p, struct svg *s)
{
	char a[64], b[64], c[64], d[64], line[512];
	const char *scope = report_page_str(p, "scope"), *note = report_page_str(p, "note");
	const char *comm = report_page_str(p, "comm"), *phase = report_page_str(p, "phase");
	bool exact = json_is_true(json_object_get(p, "exact"));
	double at = report_page_num(p, "at_ms");
	int n = snprintf(line, sizeof(line), "%s \u2014 %s, %s%s%s%s%s%s%s%s%s",
			 report_chart_value(REPORT_UNIT_KB, report_page_num(p, "kb"), a, sizeof(a)),
			 report_page_str(p, "method"), exact ? "exact" : !strcmp(scope, "process") ? "not measured" : "sampled",
			 *comm ? ", " : "", comm,
			 *note ? ", " : "", note, isnan(at) ? "" : " at ",
			 isnan(at) ? "" : report_chart_value(REPORT_UNIT_MS, at, b, sizeof(b)), *phase ? " in " : "", phase);
	const json_t *f = json_object_get(p, "flat");
	if (f && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, "; flat within 1 %% from %s to %s (%.0f samples)",
			      report_chart_value(REPORT_UNIT_MS, report_page_num(f, "from_ms"), c, sizeof(c)),
			      report_chart_value(REPORT_UNIT_MS, report_page_num(f, "to_ms"), d, sizeof(d)),
			      report_page_num(f, "samples"));
	if (!strcmp(scope, "daemon") && n > 0 && (size_t)n < sizeof(line))
		snprintf(line + n, sizeof(line) - (size_t)n, "; %s above its idle %s",
			 report_chart_value(REPORT_UNIT_KB, report_page_num(p, "above_idle_kb"), c, sizeof(c)),
			 report_chart_value(REPORT_UNIT_KB, report_page_num(p, "idle_kb"), d, sizeof(d)));
	const char *label = !strcmp(scope, "process") ? "peak (largest process)"
			    : !strcmp(scope, "tree") ? (exact ? "peak (whole tree, exact)" : "peak (tree, sampled)")
			    : !strcmp(scope, "client") ? "peak (client)"
			    : !strcmp(scope, "daemon") ? "peak (daemon)"
			    : !strcmp(scope, "both") ? "peak (both trees)" : "peak";
	report_page_row(s, label, line);
}

/* "minor · major" of one tree. */
static void report_run_pair(const json_t *o, const char *k1, const char *k2, const char *w1, const char *w2,
			    enum report_unit unit, double scale, char *buf, size_t n)
{
	char a[64], b[64];
	snprintf(buf, n, "%s %s \u00b7 %s %s", report_chart_value(unit, report_page_num(o, k1) * scale, a, sizeof(a)), w1,
		 report_chart_value(unit, report_page_num(o, k2) * scale, b, sizeof(b)), w2);
}

/* Faults, CPU, context switches and I/O: the client's and, beside them, the daemon's. */
static void report_run_costs(const json_t *summary, const json_t *daemon, struct svg *s)
{
	static const struct { const char *label, *k1, *k2, *w1, *w2; int unit; double scale; } rows[] = {
		{ "page faults", "minflt", "majflt", "minor", "major", REPORT_UNIT_COUNT, 1 },
		{ "CPU", "user_s", "sys_s", "user", "sys", REPORT_UNIT_MS, 1000 },
		{ "context switches", "vcsw", "ivcsw", "voluntary", "involuntary", REPORT_UNIT_COUNT, 1 },
		{ "I/O", "read_bytes", "write_bytes", "read", "written", REPORT_UNIT_KB, 1.0 / 1024 },
	};
	char mine[256], theirs[256], line[600];
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!daemon && i > 0)
			break; /* the time row has the CPU; one tree keeps its old header */
		report_run_pair(summary, rows[i].k1, rows[i].k2, rows[i].w1, rows[i].w2, (enum report_unit)rows[i].unit,
				rows[i].scale, mine, sizeof(mine));
		if (daemon) {
			report_run_pair(daemon, rows[i].k1, rows[i].k2, rows[i].w1, rows[i].w2,
					(enum report_unit)rows[i].unit, rows[i].scale, theirs, sizeof(theirs));
			snprintf(line, sizeof(line), "client %s \u2014 daemon %s", mine, theirs);
		} else {
			snprintf(line, sizeof(line), "%s", mine);
		}
		report_page_row(s, rows[i].label, line);
	}
	if (daemon && json_object_get(daemon, "gpu_peak_mib")) {
		char a[64];
		snprintf(line, sizeof(line), "daemon %s",
			 report_chart_value(REPORT_UNIT_KB, report_page_num(daemon, "gpu_peak_mib") * 1024, a, sizeof(a)));
		report_page_row(s, "GPU memory", line);
	}
	const json_t *h = daemon ? json_object_get(daemon, "at_attach") : json_object_get(summary, "at_attach");
	if (h) {
		report_run_pair(h, "user_s", "sys_s", "user", "sys", REPORT_UNIT_MS, 1000, mine, sizeof(mine));
		report_run_pair(h, "minflt", "majflt", "minor", "major faults", REPORT_UNIT_COUNT, 1, theirs, sizeof(theirs));
		snprintf(line, sizeof(line), "%s \u00b7 %s (its lifetime until perfhunt attached, in no sample)", mine, theirs);
		report_page_row(s, "before attach", line);
	}
}

static void report_run_header(const json_t *rec, struct svg *s)
{
	char a[64], b[64], c[64], line[512];
	const json_t *summary = json_object_get(rec, "summary");
	const json_t *host = json_object_get(rec, "host");
	const json_t *git = json_object_get(rec, "git");
	const json_t *ex = json_object_get(rec, "exit");
	char *cmd = report_page_command(json_object_get(rec, "command"));

	svg_raw(s, "<h1>perfhunt run report</h1>\n<p><code>");
	svg_text(s, cmd);
	svg_raw(s, "</code></p>\n<table class=\"meta\">\n");
	free(cmd);
	report_page_row(s, "started", report_page_str(rec, "started_at"));
	if (json_is_object(host)) {
		report_chart_value(REPORT_UNIT_KB, report_page_num(host, "memory_kb"), a, sizeof(a));
		snprintf(line, sizeof(line), "%s \u00b7 Linux %s \u00b7 %s \u00b7 %.0f cores \u00b7 %s",
			 report_page_str(host, "hostname"), report_page_str(host, "kernel"),
			 report_page_str(host, "cpu_model"), report_page_num(host, "cores"), a);
		report_page_row(s, "host", line);
	}
	if (json_is_object(git)) {
		snprintf(line, sizeof(line), "%.12s%s", report_page_str(git, "commit"),
			 json_is_true(json_object_get(git, "dirty")) ? " (dirty)" : "");
		report_page_row(s, "git commit", line);
	}
	if (json_is_object(ex)) {
		const char *sig = report_page_str(ex, "signal_name");
		snprintf(line, sizeof(line), "%.0f%s%s%s", report_page_num(ex, "status"), *sig ? " (killed by " : "",
			 sig, *sig ? ")" : "");
		report_page_row(s, "exit status", line);
	}
	snprintf(line, sizeof(line), "wall %s \u00b7 user %s \u00b7 sys %s \u00b7 CPU %.0f %%",
		 report_chart_value(REPORT_UNIT_MS, report_page_num(summary, "wall_s") * 1000, a, sizeof(a)),
		 report_chart_value(REPORT_UNIT_MS, report_page_num(summary, "user_s") * 1000, b, sizeof(b)),
		 report_chart_value(REPORT_UNIT_MS, report_page_num(summary, "sys_s") * 1000, c, sizeof(c)),
		 report_page_num(summary, "cpu_pct"));
	report_page_row(s, "time", line);

	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(rec, "peaks"), i, p)
		report_run_peak_row(p, s);
	if (!json_array_size(json_object_get(rec, "peaks"))) {
		snprintf(line, sizeof(line), "%s \u2014 %s", report_chart_value(REPORT_UNIT_KB, report_page_num(summary, "peak_rss_kb"), a, sizeof(a)),
			 report_page_str(summary, "peak_rss_method"));
		report_page_row(s, "peak (process)", line);
	}
	report_run_costs(summary, json_object_get(json_object_get(rec, "trees"), "daemon"), s);
	if (!isnan(report_page_num(summary, "max_procs"))) {
		snprintf(line, sizeof(line), "%.0f processes \u00b7 %.0f threads (max)",
			 report_page_num(summary, "max_procs"), report_page_num(summary, "max_threads"));
		report_page_row(s, "tree", line);
	}
	if (!isnan(report_page_num(summary, "samples"))) {
		snprintf(line, sizeof(line), "%.0f every %s", report_page_num(summary, "samples"),
			 report_chart_value(REPORT_UNIT_MS, report_page_num(summary, "interval_ms"), a, sizeof(a)));
		report_page_row(s, "samples", line);
	}
	json_array_foreach(json_object_get(rec, "notes"), i, p)
		if (json_is_string(p))
			report_page_row(s, "note", json_string_value(p));
	if (summary_fault_note(rec, line, sizeof(line)))
		report_page_row(s, "note", line);
	svg_raw(s, "</table>\n");
}

/* The GPU side of a phase name (run --gpu-trace): busy time, its share of the
 * phase's total time, and the kernel that took most of it. */
static void report_run_gpu_cells(struct svg *s, const json_t *stat)
{
	char a[64], line[600];
	const json_t *g = json_object_get(stat, "gpu");
	if (!json_is_object(g)) {
		for (int i = 0; i < 3; i++)
			report_page_cell(s, "-", 0);
		return;
	}
	double busy = report_page_num(g, "busy_ms"), total = report_page_num(stat, "total_ms");
	report_page_cell(s, report_chart_value(REPORT_UNIT_MS, isnan(busy) ? 0 : busy, a, sizeof(a)), 0);
	snprintf(a, sizeof(a), total > 0 && busy >= 0 ? "%.0f %%" : "-", total > 0 ? 100 * busy / total : 0);
	report_page_cell(s, a, 0);
	const json_t *k = json_array_get(json_object_get(g, "kernels"), 0);
	if (json_is_object(k)) {
		snprintf(line, sizeof(line), "%s %s (%.0f)", report_page_str(k, "name"),
			 report_chart_value(REPORT_UNIT_MS, report_page_num(k, "ms"), a, sizeof(a)),
			 report_page_num(k, "launches"));
		report_page_cell(s, line, 1);
	} else {
		report_page_cell(s, "-", 0);
	}
}

static void report_run_tables(const json_t *rec, const struct report_run_flames *f, struct svg *s)
{
	char a[64];
	size_t i;
	json_t *p;
	const json_t *stats = json_object_get(rec, "phase_stats");
	const json_t *phases = json_object_get(rec, "phases");
	if (json_array_size(stats)) {
		bool res = false, gpu = false, threads = false, traced = false;
		json_array_foreach(stats, i, p) {
			const json_t *t = json_object_get(json_object_get(p, "resources"), "total");
			traced |= json_is_object(json_object_get(p, "gpu"));
			res |= t != NULL;
			gpu |= json_object_get(t, "gpu_growth_mib") != NULL;
			threads |= json_object_get(t, "parallelism") != NULL;
		}
		svg_raw(s, "<h2>Phases</h2>\n<table><tr><th class=\"l\">phase</th><th>count</th><th>total</th>"
			   "<th>median</th><th>min</th><th>max</th>");
		if (res)
			svg_printf(s, "<th>CPU</th><th>sys</th><th>minor faults</th><th>RSS growth</th>%s%s",
				   gpu ? "<th>GPU growth</th>" : "",
				   threads ? "<th>parallelism</th><th>thread time: on a CPU / waiting for one / blocked</th>"
					   : "");
		if (traced)
			svg_raw(s, "<th>GPU busy</th><th>GPU busy %</th><th>top kernel (time, launches)</th>");
		svg_raw(s, "</tr>\n");
		struct phase_rows pr;
		phase_rows_init(&pr, stats, phases, PHASE_TABLE_ROWS_MAX);
		for (size_t r = 0; r < pr.n; r++) {
			p = (json_t *)pr.stat[r];
			/* nested phases indented under the one that holds them */
			int depth = 0;
			for (size_t up = pr.parent[r]; up != PHASE_ROWS_NONE && depth < 3; depth++)
				up = pr.parent[up];
			svg_printf(s, "<tr class=\"depth%d\">", depth);
			const char *href = report_run_flame_href(f, report_page_str(p, "name"));
			if (href) {
				svg_raw(s, "<td class=\"l\"><a href=\"");
				svg_text(s, href);
				svg_raw(s, "\">");
				svg_text(s, report_page_str(p, "name"));
				svg_raw(s, "</a></td>");
			} else {
				report_page_cell(s, report_page_str(p, "name"), 1);
			}
			snprintf(a, sizeof(a), "%.0f", report_page_num(p, "count"));
			report_page_cell(s, a, 0);
			static const char *k[] = { "total_ms", "median_ms", "min_ms", "max_ms" };
			for (int j = 0; j < 4; j++)
				report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(p, k[j]), a, sizeof(a)), 0);
			const json_t *t = json_object_get(json_object_get(p, "resources"), "total");
			if (res) {
				double user = report_page_num(t, "user_ms"), sys = report_page_num(t, "sys_ms");
				double cpu = (isnan(user) ? 0 : user) + (isnan(sys) ? 0 : sys);
				report_page_cell(s, report_chart_value(REPORT_UNIT_MS, cpu, a, sizeof(a)), 0);
				snprintf(a, sizeof(a), cpu > 0 ? "%.0f %%" : "-", cpu > 0 ? 100 * sys / cpu : 0);
				report_page_cell(s, a, 0);
				report_page_cell(s, report_chart_value(REPORT_UNIT_COUNT, report_page_num(t, "minflt"), a, sizeof(a)), 0);
				double g = report_page_num(t, "rss_growth_kb");
				report_page_cell(s, phases_text_growth(isnan(g) ? 0 : g, a, sizeof(a)), 0);
				if (gpu) {
					g = report_page_num(t, "gpu_growth_mib");
					report_page_cell(s, phases_text_growth(isnan(g) ? 0 : g * 1024, a, sizeof(a)), 0);
				}
				if (threads)
					report_run_thread_cells(s, t);
			}
			if (traced)
				report_run_gpu_cells(s, p);
			svg_raw(s, "</tr>\n");
		}
		svg_raw(s, "</table>\n");
		if (pr.left_out) {
			char c[2][32];
			svg_printf(s, "<p class=\"note\">... and %s more phase names (%s instances, %s in all), listed in the record</p>\n",
				   units_count((double)pr.left_out, c[0], sizeof(c[0])),
				   units_count(pr.left_out_count, c[1], sizeof(c[1])),
				   report_chart_value(REPORT_UNIT_MS, pr.left_out_ms, a, sizeof(a)));
		}
		phase_rows_release(&pr);
	}
	const json_t *lanes = json_object_get(rec, "lanes");
	if (json_array_size(lanes)) {
		svg_raw(s, "<h2>Lanes</h2>\n<table><tr><th class=\"l\">lane</th><th>busy</th><th>busy %</th>"
			   "<th>span</th><th>gaps</th><th>longest gap</th></tr>\n");
		const json_t **kept = xcalloc(PHASE_TABLE_ROWS_MAX, sizeof(*kept));
		size_t n = phase_table_pick(lanes, "busy_ms", PHASE_TABLE_ROWS_MAX, kept);
		for (size_t r = 0; r < n; r++) {
			p = (json_t *)kept[r];
			svg_raw(s, "<tr>");
			report_page_cell(s, report_page_str(p, "lane"), 1);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(p, "busy_ms"), a, sizeof(a)), 0);
			snprintf(a, sizeof(a), "%.1f %%", report_page_num(p, "busy_pct"));
			report_page_cell(s, a, 0);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(p, "span_ms"), a, sizeof(a)), 0);
			snprintf(a, sizeof(a), "%.0f", report_page_num(p, "gaps"));
			report_page_cell(s, a, 0);
			report_page_cell(s, report_chart_value(REPORT_UNIT_MS, report_page_num(p, "longest_gap_ms"), a, sizeof(a)), 0);
			svg_raw(s, "</tr>\n");
		}
		svg_raw(s, "</table>\n");
		if (n < json_array_size(lanes)) {
			char c[32];
			svg_printf(s, "<p class=\"note\">... and %s more lanes, listed in the record</p>\n",
				   units_count((double)(json_array_size(lanes) - n), c, sizeof(c)));
		}
		free(kept);
	}
}

static int report_run_cmp_bar(const void *a, const void *b, void *ctx)
{
	const struct report_bar *bars = ctx, *x = &bars[*(const size_t *)a], *y = &bars[*(const size_t *)b];
	int c = strcmp(x->lane, y->lane);
	if (!c)
		c = (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
	if (!c)
		c = (x->end_ms < y->end_ms) - (x->end_ms > y->end_ms); /* the enclosing one first */
	return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

/* A bar inside a longer one of its lane goes a sub-row down (prove_total
 * no longer hides synth): its depth is the number of bars that hold it,
 * from one sweep per lane by start through a stack of the bars still open.
 * A bar of the same extent as the one below it on the stack sits beside it,
 * not under it (same[] is where such a run of equal bars starts). */
static void report_run_bar_depths(struct report_bar *bars, size_t nb)
{
	size_t *order = xcalloc(nb + 1, sizeof(*order)), *stack = xcalloc(nb + 1, sizeof(*stack));
	size_t *same = xcalloc(nb + 1, sizeof(*same)), depth = 0;
	for (size_t i = 0; i < nb; i++)
		order[i] = i;
	qsort_r(order, nb, sizeof(*order), report_run_cmp_bar, bars);
	for (size_t i = 0; i < nb; i++) {
		struct report_bar *a = &bars[order[i]];
		if (i && strcmp(bars[order[i - 1]].lane, a->lane))
			depth = 0;
		while (depth && bars[stack[depth - 1]].end_ms < a->end_ms)
			depth--;
		const struct report_bar *top = depth ? &bars[stack[depth - 1]] : NULL;
		same[depth] = top && top->start_ms == a->start_ms && top->end_ms == a->end_ms ? same[depth - 1] : depth;
		a->depth = same[depth] > 3 ? 3 : (int)same[depth];
		stack[depth++] = order[i];
	}
	free(order);
	free(stack);
	free(same);
}

/* What the profile could not see, in words: "" when nothing is missing. */
static char *report_run_problems(const json_t *pr)
{
	static const struct { const char *key, *one, *many; } k[] = {
		{ "lost_chunks", "perf lost %s chunk of samples", "perf lost %s chunks of samples" },
		{ "unnamed_frames", "%s sample has frames without a symbol (shown as MAPPING+0xADDR)",
		  "%s samples have frames without a symbol (shown as MAPPING+0xADDR)" },
		{ "kernel_only", "%s sample has no user stack (kernel frames only)",
		  "%s samples have no user stack (kernel frames only)" },
		{ "truncated", "%s stack was cut at its deepest frames", "%s stacks were cut at their deepest frames" },
		{ "unreadable_lines", "%s line of perf script was not understood",
		  "%s lines of perf script were not understood" },
		{ "phase_names_past_bound", "%s sample of phase names past the first 256 has no phase profile",
		  "%s samples of phase names past the first 256 have no phase profile" },
	};
	char *out = xstrdup("");
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		double v = report_page_num(pr, k[i].key);
		if (!(v > 0))
			continue;
		char part[160], c[32];
		snprintf(part, sizeof(part), v == 1 ? k[i].one : k[i].many, units_count(v, c, sizeof(c)));
		char *n = xasprintf("%s%s%s", out, *out ? "; " : "", part);
		free(out);
		out = n;
	}
	const char *kn = report_page_str(pr, "kernel");
	if (*kn) {
		char *n = xasprintf("%s%skernel frames: %s", out, *out ? "; " : "", kn);
		free(out);
		out = n;
	}
	return out;
}

/* The whole run's frame [phase:A+B] leads to the graph of its innermost
 * phase that has one (B, else A), or nowhere. */
static const char *report_run_phase_href(void *arg, const char *frame)
{
	const struct report_run_flames *f = arg;
	size_t n = strlen(frame);
	if (n < 9 || strncmp(frame, "[phase:", 7) || frame[n - 1] != ']')
		return NULL;
	const char *names = frame + 7;
	for (size_t end = n - 8; end > 0;) {
		size_t start = end;
		while (start > 0 && names[start - 1] != '+')
			start--;
		char *name = xmalloc(end - start + 1); /* the frame's names are escape_frame's */
		escape_frame_decode(name, names + start, end - start);
		const char *h = report_run_flame_href(f, name);
		free(name);
		if (h || start == 0)
			return h;
		end = start - 1;
	}
	return NULL;
}

/* One flame graph of a list of folded stacks ({"samples", "stacks", "merged"});
 * links: the phases' graphs that the whole run's phase frames lead to, or NULL. */
static void report_run_flame(struct svg *s, const json_t *list, const char *id, const char *what, double ms,
			     const struct report_run_flames *links)
{
	struct flamegraph_nodes nodes;
	if (flamegraph_nodes_from_stacks(json_object_get(list, "stacks"), FLAMEGRAPH_MIN_FRACTION, &nodes, NULL) < 0)
		return;
	char a[64], b[64], c[32];
	double samples = report_page_num(list, "samples"), merged = report_page_num(list, "merged");
	if (!(samples >= 0))
		samples = nodes.total;
	snprintf(b, sizeof(b), merged > 0 ? ", %s stacks in [other]" : "%s", merged > 0 ? units_count(merged, c, sizeof(c)) : "");
	char *title = xasprintf("%s \u2014 %s sample%s (%s CPU)%s", what, units_count(samples, a, sizeof(a)),
				samples == 1 ? "" : "s", report_chart_value(REPORT_UNIT_MS, samples * ms, c, sizeof(c)), b);
	struct flamegraph_opts o = { .id = id, .title = title, .unit = "samples", .ms_per_unit = ms,
				     .href = links ? report_run_phase_href : NULL, .href_arg = (void *)links,
				     .merged = nodes.merged };
	flamegraph_write(s, nodes.v, nodes.n, &o);
	free(title);
	flamegraph_nodes_free(&nodes);
}

/* A phase's wall-clock flame graph: its on-CPU samples as milliseconds and
 * the stacks its threads blocked on, by how long (async-profiler's wall
 * mode): the [off-cpu] frame and what stands on it drawn in their own
 * colour. Nothing where the phase has no off-CPU stacks. */
static void report_run_wall(struct svg *s, const json_t *on, const json_t *off, const char *name, double ms)
{
	if (!json_array_size(json_object_get(off, "stacks")))
		return;
	json_t *both = json_array();
	size_t i;
	const json_t *st;
	double on_ms = 0;
	json_array_foreach(json_object_get(on, "stacks"), i, st) {
		double w = json_number_value(json_object_get(st, "count")) * ms;
		on_ms += w;
		json_array_append_new(both, json_pack("{s:O, s:f}", "stack", json_object_get(st, "stack"), "ms", w));
	}
	json_array_foreach(json_object_get(off, "stacks"), i, st) {
		const char *stack = json_string_value(json_object_get(st, "stack"));
		if (stack && !strcmp(stack, "[other]"))
			json_array_append_new(both, json_pack("{s:s, s:O}", "stack", PROFILE_JSON_OFFCPU ";[other]", "ms",
							      json_object_get(st, "ms")));
		else
			json_array_append(both, (json_t *)st);
	}
	struct flamegraph_nodes nodes;
	if (flamegraph_nodes_from_stacks(both, FLAMEGRAPH_MIN_FRACTION, &nodes, NULL) == 0) {
		char a[32], b[32];
		char *id = flamegraph_id("wall-", name);
		char *title = xasprintf("phase %s, wall-clock \u2014 %s on a CPU (sampled), %s blocked (thread time)", name,
					report_chart_value(REPORT_UNIT_MS, on_ms, a, sizeof(a)),
					report_chart_value(REPORT_UNIT_MS, report_page_num(off, "ms"), b, sizeof(b)));
		struct flamegraph_opts o = { .id = id, .title = title, .unit = "ms", .merged = nodes.merged };
		flamegraph_write(s, nodes.v, nodes.n, &o);
		free(title);
		free(id);
		flamegraph_nodes_free(&nodes);
	}
	json_decref(both);
}

/* The "Profile" section: how the stacks were taken and what they miss, a flame
 * graph per phase (the largest first) and one for the whole run. */
static void report_run_profile(const json_t *rec, const struct report_run_flames *f, struct svg *s)
{
	const json_t *p = json_object_get(rec, "profile");
	if (!json_is_object(p))
		return;
	char a[64], b[64], c[32], d[32], line[768];
	double hz = report_page_num(p, "frequency_hz"), ms = report_page_num(p, "ms_per_sample");
	if (!(ms > 0) && hz > 0)
		ms = 1000 / hz;
	if (!(ms > 0))
		ms = 0;
	svg_raw(s, "<h2 id=\"profile\">Profile</h2>\n<table class=\"meta\">\n");
	const char *note = report_page_str(p, "event_note");
	snprintf(line, sizeof(line), "%.64s at %s Hz per thread, %.32s unwinding, user and kernel stacks%s%.256s%s",
		 report_page_str(p, "event"), units_count(hz, c, sizeof(c)), report_page_str(p, "unwinding"), *note ? " (" : "", note,
		 *note ? ")" : "");
	report_page_row(s, "sampling", line);
	double n = report_page_num(p, "samples");
	snprintf(line, sizeof(line), "%s, about %s of CPU (%s each); each list keeps its top %s stacks, the rest "
		 "summed into [other]", units_count(n, c, sizeof(c)), report_chart_value(REPORT_UNIT_MS, n * ms, a, sizeof(a)),
		 report_chart_value(REPORT_UNIT_MS, ms, b, sizeof(b)), units_count(report_page_num(p, "stack_bound"), d, sizeof(d)));
	report_page_row(s, "samples", line);
	char *missing = report_run_problems(json_object_get(p, "problems"));
	report_page_row(s, "not seen", *missing ? missing : "nothing reported: every sample read, unwound and named");
	free(missing);
	svg_raw(s, "</table>\n<p class=\"note\">A flame graph per phase, the largest first, then the whole run "
		   "(its stacks rooted at the phases of their sample). Each frame is a function, as wide as the "
		   "samples in it and in what it called; callees stand on their caller. User code is warm "
		   "red\u2013yellow, the kernel teal\u2013blue; hover a frame for its numbers. Where the threads' "
		   "blocking was recorded, a phase's wall-clock graph follows its own: the samples as milliseconds "
		   "on a CPU beside the stacks its threads blocked on, as wide as they waited, above the "
		   "[off-cpu] frame in blue\u2013violet.</p>\n");
	const json_t *phases = json_object_get(p, "phases");
	const json_t *off = json_object_get(json_object_get(p, "offcpu"), "phases");
	for (size_t i = 0; i < f->ng; i++) {
		char *what = xasprintf("phase %s", f->v[i].name);
		report_run_flame(s, json_object_get(phases, f->v[i].name), f->href[i] + 1, what, ms, NULL);
		report_run_wall(s, json_object_get(phases, f->v[i].name), json_object_get(off, f->v[i].name), f->v[i].name,
				ms);
		free(what);
	}
	if (f->n > f->ng) {
		svg_printf(s, "<p class=\"note\">%zu more phase%s, without a graph here: ", f->n - f->ng,
			   f->n - f->ng == 1 ? "" : "s");
		for (size_t i = f->ng; i < f->n && i < f->ng + REPORT_RUN_LISTED; i++) {
			svg_raw(s, i > f->ng ? ", " : "");
			svg_textf(s, "%s (%s sample%s)", f->v[i].name, units_count(f->v[i].samples, c, sizeof(c)),
				  f->v[i].samples == 1 ? "" : "s");
		}
		if (f->n > f->ng + REPORT_RUN_LISTED)
			svg_printf(s, " and %zu more", f->n - f->ng - REPORT_RUN_LISTED);
		svg_raw(s, ".</p>\n");
	}
	const json_t *run = json_object_get(p, "run");
	if (json_array_size(json_object_get(run, "stacks")))
		report_run_flame(s, run, "profile-run", "whole run", ms, f);
}

int report_run_html(const json_t *rec, struct svg *s, struct err *e)
{
	struct report_run_data d;
	if (report_run_data_load(rec, &d, e) < 0)
		return -1;
	char label[256], mem_title[96];
	char *cmd = report_page_command(json_object_get(rec, "command"));
	char *title = xasprintf("perfhunt report: %s", cmd);
	free(cmd);
	report_page_begin(s, title);
	free(title);
	report_run_header(rec, s);

	struct report_chart c;
	report_run_memory_chart(rec, &d, &c, mem_title, label, sizeof(label));
	c.hover = 1;
	svg_raw(s, "<figure>\n");
	report_chart_draw(s, &c);

	/* rates: each row's deltas over the time it covers — its span_ms (a row
	 * merged from two in a long run covers both: the time since the previous
	 * row kept would be one interval, and its CPU drew twice the cores), else
	 * the time since the previous row, never the nominal interval, so a sample
	 * taken late (the sampler blocked) is no spike */
	double *rate[3] = { NULL, NULL, NULL };
	for (int k = 0; k < 3; k++)
		rate[k] = xcalloc(d.n + 1, sizeof(double));
	for (size_t i = 0; i < d.n; i++) {
		double ms = d.col[C_SPAN] && d.col[C_SPAN][i] > 0 ? d.col[C_SPAN][i]
			    : i ? d.t[i] - d.t[i - 1] : d.interval_ms;
		if (!(ms > 0))
			ms = d.interval_ms;
		double sec = ms / 1000;
		rate[0][i] = d.col[C_MINFLT] ? d.col[C_MINFLT][i] / sec : NAN;
		rate[1][i] = d.col[C_MAJFLT] ? d.col[C_MAJFLT][i] / sec : NAN;
		double cpu = (d.col[C_USER] ? d.col[C_USER][i] : NAN) + (d.col[C_SYS] ? d.col[C_SYS][i] : 0);
		rate[2][i] = 100 * cpu / ms;
	}
	char faults_title[96], cpu_title[160];
	snprintf(faults_title, sizeof(faults_title), "Page faults per second, %s", report_run_tree(rec));
	/* CPU from nanosecond clocks: no row above the cores or the threads it had */
	snprintf(cpu_title, sizeof(cpu_title), "CPU of %s (user + sys, 100 %% = one core, at most %s)",
		 report_run_tree(rec), "its threads or the cores");
	if (d.col[C_MINFLT] || d.col[C_MAJFLT]) {
		memset(&c, 0, sizeof(c));
		c = (struct report_chart){ .id = "faults", .title = faults_title, .unit = REPORT_UNIT_RATE,
					   .t_max_ms = d.t_max_ms, .n = d.n, .t_ms = d.t, .hover = 1 };
		report_run_add(&c, "minor", "minflt", report_chart_palette[1], rate[0]);
		report_run_add(&c, "major", "majflt", report_chart_palette[5], rate[1]);
		svg_raw(s, "</figure>\n<figure>\n");
		report_chart_draw(s, &c);
	}
	if (d.col[C_USER]) {
		c = (struct report_chart){ .id = "cpu", .title = cpu_title,
					   .unit = REPORT_UNIT_PCT, .t_max_ms = d.t_max_ms, .n = d.n, .t_ms = d.t,
					   .hover = 1 };
		report_run_add(&c, "CPU", "cpu", report_chart_palette[3], rate[2]);
		svg_raw(s, "</figure>\n<figure>\n");
		report_chart_draw(s, &c);
	}
	for (int k = 0; k < 3; k++)
		free(rate[k]);

	struct report_run_flames flames;
	report_run_flames_load(rec, &flames);
	const json_t *phases = json_object_get(rec, "phases");
	size_t np = json_array_size(phases), nb = 0, i;
	json_t *p;
	struct report_bar *bars = xcalloc(np + 1, sizeof(*bars));
	json_array_foreach(phases, i, p) {
		double a = report_page_num(p, "start_ms"), b = report_page_num(p, "end_ms");
		if (isnan(a) || isnan(b))
			continue;
		const char *name = report_page_str(p, "name");
		bars[nb++] = (struct report_bar){ name, report_page_str(p, "lane"), a, b, 0,
						  report_run_flame_href(&flames, name) };
	}
	report_run_bar_depths(bars, nb);
	if (nb > 0) {
		svg_raw(s, "</figure>\n<figure>\n");
		report_chart_lanes(s, bars, nb, d.t_max_ms);
	}
	free(bars);
	svg_raw(s, "</figure>\n");
	report_gpu_lanes(rec, s, d.t_max_ms);
	if (d.n == 0)
		svg_raw(s, "<p class=\"note\">This record holds no samples.</p>\n");
	report_run_tables(rec, &flames, s);
	report_run_profile(rec, &flames, s);
	report_run_flames_release(&flames);
	report_page_end(s);
	report_run_data_release(&d);
	return 0;
}
