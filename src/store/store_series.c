/* store_series: series over commits from the metrics and runs tables (see store_series.h).
 *
 * The (run, metric, value) rows are read a window of runs at a time and kept
 * as 16 bytes each (run, series, value), commits, commands and metric names
 * once each, so a history of 10^5 runs is read in tens of MB; grouping and
 * ordering are done here with byte-wise comparisons, not in SQL, so SQLite
 * and PostgreSQL (whose text collation follows the server's locale) give the
 * same series in the same order. Commits are looked up in the first-parent
 * list by binary search over a sorted copy.
 */
#include "store/store_series.h"
#include "store/store_db.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/metrics.h"
#include "stats/stats.h"
#include "util/xalloc.h"

/* One run that has a wanted metric. */
struct ss_run {
	int64_t id, position;   /* position: in the first-parent list, -1 off it */
	uint32_t commit, started; /* in ss_acc's commits and started */
	int dirty;
};

/* One value: 16 bytes, however long the run's command and commit. */
struct ss_row {
	uint32_t run, series;
	double value;
};

struct ss_commit {
	const char *commit;
	int64_t position;
};

static int ss_commit_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct ss_commit *)pa)->commit, ((const struct ss_commit *)pb)->commit);
}

static int ss_wanted(const struct store_series_filter *f, const char *name)
{
	if (!f || (f->n_metrics == 0 && f->n_phases == 0))
		return 1;
	for (size_t i = 0; i < f->n_metrics; i++) {
		const char *m = f->metrics[i];
		size_t len = strlen(m);
		if (len && m[len - 1] == '*' ? !strncmp(name, m, len - 1) : !strcmp(name, m))
			return 1;
	}
	if (strncmp(name, "phase:", 6))
		return 0;
	for (size_t i = 0; i < f->n_phases; i++) {
		size_t len = strlen(f->phases[i]);
		if (!strncmp(name + 6, f->phases[i], len) && (name[6 + len] == 0 || name[6 + len] == '.'))
			return 1;
	}
	return 0;
}

/* Everything read, and what orders it. */
struct ss_acc {
	const struct store_series_filter *f;
	const struct ss_commit *order;
	size_t norder, on_history;
	struct store_names commits, started, commands, names, series;
	uint32_t *series_cmd, *series_name; /* per series: its command and name */
	size_t series_cap;
	struct ss_run *runs;
	size_t nruns, runs_cap;
	struct ss_row *rows;
	size_t nrows, rows_cap;
	struct detect_context *info;
	/* for sorting */
	uint32_t *series_rank, *commit_rank;
	int first_parent;
};

static int ss_rank_cmp(const void *pa, const void *pb, void *arg)
{
	char **keys = arg;
	return strcmp(keys[*(const uint32_t *)pa], keys[*(const uint32_t *)pb]);
}

static int ss_series_rank_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ss_acc *a = arg;
	uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
	int c = strcmp(a->commands.keys[a->series_cmd[x]], a->commands.keys[a->series_cmd[y]]);
	return c ? c : strcmp(a->names.keys[a->series_name[x]], a->names.keys[a->series_name[y]]);
}

/* rank[i]: the place of item i of n in the order of cmp (over indices). */
static uint32_t *ss_ranks(size_t n, int (*cmp)(const void *, const void *, void *), void *arg)
{
	uint32_t *by = xcalloc(n ? n : 1, sizeof(*by)), *rank = xcalloc(n ? n : 1, sizeof(*rank));
	for (size_t i = 0; i < n; i++)
		by[i] = (uint32_t)i;
	qsort_r(by, n, sizeof(*by), cmp, arg);
	for (size_t i = 0; i < n; i++)
		rank[by[i]] = (uint32_t)i;
	free(by);
	return rank;
}

/* Order inside one series: by first-parent position, or by commit (each
 * run without one on its own), then by run. */
static int ss_row_key_cmp(const struct ss_acc *a, const struct ss_row *x, const struct ss_row *y)
{
	const struct ss_run *rx = &a->runs[x->run], *ry = &a->runs[y->run];
	if (a->first_parent) {
		if (rx->position != ry->position)
			return rx->position < ry->position ? -1 : 1;
	} else {
		int cx = *a->commits.keys[rx->commit] != 0, cy = *a->commits.keys[ry->commit] != 0;
		if (cx != cy)
			return cx ? -1 : 1;
		if (cx) {
			uint32_t kx = a->commit_rank[rx->commit], ky = a->commit_rank[ry->commit];
			if (kx != ky)
				return kx < ky ? -1 : 1;
		}
	}
	return (rx->id > ry->id) - (rx->id < ry->id);
}

/* qsort_r comparison: by series, then ss_row_key_cmp. */
static int ss_row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ss_acc *a = arg;
	const struct ss_row *x = pa, *y = pb;
	uint32_t sx = a->series_rank[x->series], sy = a->series_rank[y->series];
	if (sx != sy)
		return sx < sy ? -1 : 1;
	return ss_row_key_cmp(a, x, y);
}

static int ss_same_point(const struct ss_acc *a, const struct ss_row *x, const struct ss_row *y)
{
	const struct ss_run *rx = &a->runs[x->run], *ry = &a->runs[y->run];
	if (a->first_parent)
		return rx->position == ry->position;
	return *a->commits.keys[rx->commit] ? rx->commit == ry->commit : rx->id == ry->id;
}

static int ss_point_time_cmp(const void *pa, const void *pb)
{
	const struct detect_point *a = pa, *b = pb;
	int c = strcmp(a->started_at, b->started_at);
	if (c)
		return c;
	return (a->run_ids[0] > b->run_ids[0]) - (a->run_ids[0] < b->run_ids[0]);
}

/* The points of rows[0..n) (one series, sorted by ss_row_cmp). */
static void ss_build(struct detect_series *s, const struct ss_acc *a, const struct ss_row *rows, size_t n)
{
	size_t cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && ss_same_point(a, &rows[i], &rows[j]))
			j++;
		xgrow((void **)&s->points, &cap, s->n + 1, sizeof(*s->points));
		struct detect_point *p = &s->points[s->n++];
		memset(p, 0, sizeof(*p));
		const struct ss_run *first_run = &a->runs[rows[i].run];
		p->commit = xstrdup(a->commits.keys[first_run->commit]);
		p->position = a->first_parent ? first_run->position : -1;
		p->run_ids = xcalloc(j - i, sizeof(*p->run_ids));
		p->values = xcalloc(j - i, sizeof(*p->values));
		const char *first = a->started.keys[first_run->started];
		for (size_t k = i; k < j; k++) {
			const struct ss_run *run = &a->runs[rows[k].run];
			p->run_ids[p->n] = run->id;
			p->values[p->n++] = rows[k].value;
			if (strcmp(a->started.keys[run->started], first) < 0)
				first = a->started.keys[run->started];
		}
		p->started_at = xstrdup(first);
		p->median = stats_median(p->values, p->n);
		p->min = stats_min(p->values, p->n);
		p->max = stats_max(p->values, p->n);
		i = j;
	}
	if (s->n < cap) /* a series of 10^5 points gives back its unused tail */
		s->points = xrealloc(s->points, s->n * sizeof(*s->points));
	if (!a->first_parent)
		qsort(s->points, s->n, sizeof(*s->points), ss_point_time_cmp);
}

/* One window of rows (ordered by run): each wanted, finite value of a clean
 * run kept; the context's counts taken. */
static int ss_take(const struct store_res *r, void *arg)
{
	struct ss_acc *a = arg;
	struct detect_context *info = a->info;
	int64_t last_id = a->nruns ? a->runs[a->nruns - 1].id : 0;
	for (size_t i = 0; i < r->rows; i++) {
		const char *name = store_res_text(r, i, 5);
		/* identifiers, perfhunt's own work and its settings are no series */
		if (!name || !metrics_is_measurement(name) || !ss_wanted(a->f, name))
			continue;
		int64_t id = store_res_i64(r, i, 0);
		if (id != last_id || !a->nruns) {
			last_id = id;
			const char *commit = store_res_text(r, i, 2) ? store_res_text(r, i, 2) : "";
			const char *started = store_res_text(r, i, 4) ? store_res_text(r, i, 4) : "";
			xgrow((void **)&a->runs, &a->runs_cap, a->nruns + 1, sizeof(*a->runs));
			struct ss_run *run = &a->runs[a->nruns++];
			*run = (struct ss_run){ .id = id, .position = -1, .dirty = store_res_i64(r, i, 3) != 0,
						.commit = store_name(&a->commits, commit),
						.started = store_name(&a->started, started) };
			if (a->norder && *commit) {
				struct ss_commit key = { commit, 0 };
				const struct ss_commit *hit = bsearch(&key, a->order, a->norder, sizeof(*a->order),
								      ss_commit_cmp);
				if (hit)
					run->position = hit->position;
			}
			info->runs++;
			info->dirty_runs += run->dirty;
		}
		const struct ss_run *run = &a->runs[a->nruns - 1];
		if (run->dirty)
			continue;
		double value = store_res_double(r, i, 6);
		if (!isfinite(value)) {
			info->nonfinite_values++;
			continue;
		}
		uint32_t cmd = store_name(&a->commands, store_res_text(r, i, 1) ? store_res_text(r, i, 1) : "");
		uint32_t nm = store_name(&a->names, name);
		char key[32];
		snprintf(key, sizeof(key), "%" PRIu32 " %" PRIu32, cmd, nm);
		uint32_t series = store_name(&a->series, key);
		if (series >= a->series_cap) {
			size_t cap = a->series_cap;
			xgrow((void **)&a->series_cmd, &cap, (size_t)series + 1, sizeof(*a->series_cmd));
			xgrow((void **)&a->series_name, &a->series_cap, (size_t)series + 1, sizeof(*a->series_name));
		}
		a->series_cmd[series] = cmd;
		a->series_name[series] = nm;
		a->on_history += run->position >= 0;
		xgrow((void **)&a->rows, &a->rows_cap, a->nrows + 1, sizeof(*a->rows));
		a->rows[a->nrows++] = (struct ss_row){ (uint32_t)(a->nruns - 1), series, value };
	}
	return 0;
}

/* The words of a record's options.words (a NULL-terminated copy), or NULL. */
static char **ss_words(const char *record_json)
{
	json_t *rec = record_json ? json_loads(record_json, 0, NULL) : NULL;
	const json_t *words = json_object_get(json_object_get(rec, "options"), "words");
	char **out = NULL;
	if (json_is_array(words)) {
		size_t n = 0, i;
		const json_t *w;
		out = xcalloc(json_array_size(words) + 1, sizeof(*out));
		json_array_foreach(words, i, w)
			if (json_is_string(w))
				out[n++] = xstrdup(json_string_value(w));
	}
	json_decref(rec);
	return out;
}

/* Each series' options: those of its newest run's record. The series of
 * one command share their runs, so a record is read once for all of them. */
static void ss_options(struct store *s, struct detect_series *series, size_t n)
{
	int64_t last_id = -1;
	char **last = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct detect_point *p = series[i].n ? &series[i].points[series[i].n - 1] : NULL;
		if (!p || !p->n)
			continue;
		int64_t id = p->run_ids[0];
		for (size_t k = 1; k < p->n; k++)
			id = p->run_ids[k] > id ? p->run_ids[k] : id;
		if (id != last_id) {
			struct store_val v[] = { { .type = STORE_INT, .i = id } };
			struct store_res r = { 0 };
			char **words = NULL;
			if (s->be->query(s, "SELECT record_json FROM runs WHERE id = $1", v, 1, &r, "reading a run", NULL) == 0) {
				words = r.rows ? ss_words(store_res_text(&r, 0, 0)) : NULL;
				store_res_free(&r);
			}
			xstrv_free(last);
			last = words;
			last_id = id;
		}
		series[i].options = xstrv_dup(last);
	}
	xstrv_free(last);
}

int store_series_load(struct store *s, const struct store_series_filter *f,
		      struct detect_series **out, size_t *n, struct detect_context *info,
		      struct err *e)
{
	*out = NULL;
	*n = 0;
	info->first_parent = 0;
	info->runs = info->dirty_runs = info->off_history_runs = info->nonfinite_values = 0;
	struct store_val p[] = { { 0 }, { 0 },
				 { .type = STORE_TEXT, .s = f ? f->bench : NULL, .is_null = !f || !f->bench } };
	struct ss_acc a = { .f = f, .info = info };
	struct ss_commit *order = NULL;
	a.norder = f && f->order ? f->n_order : 0;
	if (a.norder) {
		order = xcalloc(a.norder, sizeof(*order));
		for (size_t i = 0; i < a.norder; i++)
			order[i] = (struct ss_commit){ f->order[i], (int64_t)i };
		qsort(order, a.norder, sizeof(*order), ss_commit_cmp);
		a.order = order;
	}
	int rc = store_each_window(s, "SELECT r.id, r.command, coalesce(r.git_commit, ''), coalesce(r.git_dirty, 0),"
				   " r.started_at, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
				   " WHERE r.id > $1 AND r.id <= $2 AND ($3 IS NULL OR strpos(r.command, $3) > 0)"
				   " ORDER BY r.id", p, 3, ss_take, &a, "reading series", e);
	if (rc == 0) {
		a.first_parent = a.norder > 0 && a.on_history > 0;
		info->first_parent = a.first_parent;
		if (a.first_parent) {
			/* runs whose commit is not on the branch's first-parent history */
			size_t keep = 0;
			uint32_t last = UINT32_MAX;
			for (size_t i = 0; i < a.nrows; i++) {
				if (a.runs[a.rows[i].run].position < 0) {
					info->off_history_runs += a.rows[i].run != last;
					last = a.rows[i].run;
					continue;
				}
				a.rows[keep++] = a.rows[i];
			}
			a.nrows = keep;
		}
		a.series_rank = ss_ranks(a.series.n, ss_series_rank_cmp, &a);
		a.commit_rank = ss_ranks(a.commits.n, ss_rank_cmp, a.commits.keys);
		if (a.nrows) /* an empty history has no rows array at all */
			qsort_r(a.rows, a.nrows, sizeof(*a.rows), ss_row_cmp, &a);
		size_t cap = 0;
		for (size_t i = 0; i < a.nrows;) {
			size_t j = i + 1;
			while (j < a.nrows && a.rows[j].series == a.rows[i].series)
				j++;
			xgrow((void **)out, &cap, *n + 1, sizeof(**out));
			struct detect_series *sr = &(*out)[(*n)++];
			memset(sr, 0, sizeof(*sr));
			sr->bench = xstrdup(a.commands.keys[a.series_cmd[a.rows[i].series]]);
			sr->metric = xstrdup(a.names.keys[a.series_name[a.rows[i].series]]);
			ss_build(sr, &a, a.rows + i, j - i);
			i = j;
		}
		ss_options(s, *out, *n);
	}
	free(a.series_rank);
	free(a.commit_rank);
	free(a.rows);
	free(a.runs);
	free(a.series_cmd);
	free(a.series_name);
	store_names_free(&a.commits);
	store_names_free(&a.started);
	store_names_free(&a.commands);
	store_names_free(&a.names);
	store_names_free(&a.series);
	free(order);
	return rc;
}
