/* store_series: series over commits from the metrics and runs tables (see store_series.h).
 *
 * One query reads every (run, metric, value) row; grouping and ordering are
 * done here with byte-wise comparisons, not in SQL, so SQLite and PostgreSQL
 * (whose text collation follows the server's locale) give the same series in
 * the same order. Commits are looked up in the first-parent list by binary
 * search over a sorted copy.
 */
#include "store/store_series.h"
#include "store/store_db.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/metrics.h"
#include "stats/stats.h"
#include "util/xalloc.h"

struct ss_row {
	int64_t id, position;
	const char *command, *commit, *started_at, *name;
	double value;
	int dirty;
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

/* Order inside one series: by first-parent position, or by commit (each
 * run without one on its own), then by run. */
static int ss_row_key_cmp(const struct ss_row *a, const struct ss_row *b, int first_parent)
{
	if (first_parent) {
		if (a->position != b->position)
			return a->position < b->position ? -1 : 1;
	} else {
		int ca = *a->commit != 0, cb = *b->commit != 0;
		if (ca != cb)
			return ca ? -1 : 1;
		if (ca) {
			int c = strcmp(a->commit, b->commit);
			if (c)
				return c;
		} else if (a->id != b->id) {
			return a->id < b->id ? -1 : 1;
		}
	}
	return (a->id > b->id) - (a->id < b->id);
}

/* qsort_r comparison; arg points at the first-parent flag. */
static int ss_row_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ss_row *a = pa, *b = pb;
	int c = strcmp(a->command, b->command);
	if (!c)
		c = strcmp(a->name, b->name);
	return c ? c : ss_row_key_cmp(a, b, *(const int *)arg);
}

static int ss_same_point(const struct ss_row *a, const struct ss_row *b, int first_parent)
{
	if (first_parent)
		return a->position == b->position;
	return *a->commit ? !strcmp(a->commit, b->commit) : a->id == b->id;
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
static void ss_build(struct detect_series *s, const struct ss_row *rows, size_t n, int first_parent)
{
	size_t cap = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && ss_same_point(&rows[i], &rows[j], first_parent))
			j++;
		xgrow((void **)&s->points, &cap, s->n + 1, sizeof(*s->points));
		struct detect_point *p = &s->points[s->n++];
		memset(p, 0, sizeof(*p));
		p->commit = xstrdup(rows[i].commit);
		p->position = first_parent ? rows[i].position : -1;
		p->run_ids = xcalloc(j - i, sizeof(*p->run_ids));
		p->values = xcalloc(j - i, sizeof(*p->values));
		const char *first = rows[i].started_at;
		for (size_t k = i; k < j; k++) {
			p->run_ids[p->n] = rows[k].id;
			p->values[p->n++] = rows[k].value;
			if (strcmp(rows[k].started_at, first) < 0)
				first = rows[k].started_at;
		}
		p->started_at = xstrdup(first);
		p->median = stats_median(p->values, p->n);
		p->min = stats_min(p->values, p->n);
		p->max = stats_max(p->values, p->n);
		i = j;
	}
	if (!first_parent)
		qsort(s->points, s->n, sizeof(*s->points), ss_point_time_cmp);
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
	struct store_val p[] = { { .type = STORE_TEXT, .s = f ? f->bench : NULL, .is_null = !f || !f->bench } };
	struct store_res r = { 0 };
	if (s->be->query(s, "SELECT r.id, r.command, coalesce(r.git_commit, ''), coalesce(r.git_dirty, 0),"
			 " r.started_at, m.name, m.value FROM metrics m JOIN runs r ON r.id = m.run_id"
			 " WHERE ($1 IS NULL OR strpos(r.command, $1) > 0) ORDER BY r.id",
			 p, 1, &r, "reading series", e))
		return -1;

	struct ss_commit *order = NULL;
	size_t norder = f && f->order ? f->n_order : 0;
	if (norder) {
		order = xcalloc(norder, sizeof(*order));
		for (size_t i = 0; i < norder; i++)
			order[i] = (struct ss_commit){ f->order[i], (int64_t)i };
		qsort(order, norder, sizeof(*order), ss_commit_cmp);
	}
	struct ss_row *rows = xcalloc(r.rows ? r.rows : 1, sizeof(*rows));
	size_t nrows = 0, on_history = 0;
	int64_t last_id = 0;
	for (size_t i = 0; i < r.rows; i++) {
		const char *name = store_res_text(&r, i, 5);
		/* identifiers, perfhunt's own work and its settings are no series */
		if (!name || !metrics_is_measurement(name) || !ss_wanted(f, name))
			continue;
		struct ss_row *row = &rows[nrows];
		row->id = store_res_i64(&r, i, 0);
		row->command = store_res_text(&r, i, 1) ? store_res_text(&r, i, 1) : "";
		row->commit = store_res_text(&r, i, 2) ? store_res_text(&r, i, 2) : "";
		row->dirty = store_res_i64(&r, i, 3) != 0;
		row->started_at = store_res_text(&r, i, 4) ? store_res_text(&r, i, 4) : "";
		row->name = name;
		row->value = store_res_double(&r, i, 6);
		row->position = -1;
		if (norder && *row->commit) {
			struct ss_commit key = { row->commit, 0 };
			struct ss_commit *hit = bsearch(&key, order, norder, sizeof(*order), ss_commit_cmp);
			if (hit)
				row->position = hit->position;
		}
		int new_run = row->id != last_id;
		last_id = row->id;
		if (new_run) {
			info->runs++;
			info->dirty_runs += row->dirty;
		}
		if (row->dirty)
			continue;
		if (!isfinite(row->value)) {
			info->nonfinite_values++;
			continue;
		}
		on_history += row->position >= 0;
		nrows++;
	}
	int first_parent = norder > 0 && on_history > 0;
	info->first_parent = first_parent;
	if (first_parent) {
		/* runs whose commit is not on the branch's first-parent history */
		size_t keep = 0;
		last_id = 0;
		for (size_t i = 0; i < nrows; i++) {
			if (rows[i].position < 0) {
				info->off_history_runs += rows[i].id != last_id;
				last_id = rows[i].id;
				continue;
			}
			rows[keep++] = rows[i];
		}
		nrows = keep;
	}
	qsort_r(rows, nrows, sizeof(*rows), ss_row_cmp, &first_parent);

	size_t cap = 0;
	for (size_t i = 0; i < nrows;) {
		size_t j = i + 1;
		while (j < nrows && !strcmp(rows[i].command, rows[j].command) && !strcmp(rows[i].name, rows[j].name))
			j++;
		xgrow((void **)out, &cap, *n + 1, sizeof(**out));
		struct detect_series *sr = &(*out)[(*n)++];
		memset(sr, 0, sizeof(*sr));
		sr->bench = xstrdup(rows[i].command);
		sr->metric = xstrdup(rows[i].name);
		ss_build(sr, rows + i, j - i, first_parent);
		i = j;
	}
	ss_options(s, *out, *n);
	free(rows);
	free(order);
	store_res_free(&r);
	return 0;
}
