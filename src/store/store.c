/* store: the run history behind one interface (see store.h for the contract).
 *
 * Everything both backends share lives here: the schema and its migrations,
 * how a record is validated, stripped of its sample rows and spread over the
 * tables, and every query — written once with $1..$N parameters in the SQL
 * that SQLite and PostgreSQL both read (store_sqlite.c, store_pg.c). Rows go
 * in batches, so a run with thousands of phases costs a few round trips to a
 * remote PostgreSQL, not thousands.
 */
#include "store/store.h"
#include "store/store_db.h"
#include "record/command.h"
#include "record/git.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats/bench_record.h"
#include "stats/metrics.h"
#include "util/fsafe.h"
#include "util/parse.h"
#include "util/url.h"
#include "util/quote.h"
#include "util/xalloc.h"

/* Migration i brings the schema from version i to i + 1; append only. One
 * text for both engines: @ID@ is the key column (SQLite's rowid alias,
 * PostgreSQL's BIGSERIAL) and @NOROWID@ SQLite's WITHOUT ROWID; BIGINT and
 * DOUBLE PRECISION have SQLite's INTEGER and REAL affinities. */
static const char *const store_migrations[] = {
	"CREATE TABLE benches ("
	" id @ID@,"
	" started_at TEXT,"
	" summary TEXT);"
	"CREATE TABLE runs ("
	" id @ID@,"
	" started_at TEXT NOT NULL,"
	" command TEXT NOT NULL,"
	" kind TEXT NOT NULL,"
	" exit_status INTEGER,"
	" git_commit TEXT,"
	" git_dirty INTEGER,"
	" hostname TEXT,"
	" wall_s DOUBLE PRECISION, user_s DOUBLE PRECISION, sys_s DOUBLE PRECISION,"
	" peak_rss_kb BIGINT, peak_tree_rss_kb BIGINT, cgroup_peak_kb BIGINT,"
	" minflt BIGINT, majflt BIGINT,"
	" bench_id BIGINT REFERENCES benches(id),"
	" record_json TEXT NOT NULL);"
	"CREATE INDEX runs_commit ON runs(git_commit);"
	"CREATE INDEX runs_bench ON runs(bench_id);"
	"CREATE TABLE metrics ("
	" run_id BIGINT NOT NULL REFERENCES runs(id),"
	" name TEXT NOT NULL,"
	" value DOUBLE PRECISION NOT NULL,"
	" PRIMARY KEY (run_id, name))@NOROWID@;"
	"CREATE INDEX metrics_name ON metrics(name);"
	"CREATE TABLE phases ("
	" run_id BIGINT NOT NULL REFERENCES runs(id),"
	" name TEXT NOT NULL,"
	" lane TEXT NOT NULL DEFAULT '',"
	" start_ms DOUBLE PRECISION, end_ms DOUBLE PRECISION);"
	"CREATE INDEX phases_run ON phases(run_id);"
	"CREATE TABLE tags ("
	" run_id BIGINT NOT NULL REFERENCES runs(id),"
	" tag TEXT NOT NULL,"
	" PRIMARY KEY (run_id, tag))@NOROWID@;"
	"CREATE INDEX tags_tag ON tags(tag);",
	/* 2: an index on metrics(name) put each of a run's ~20 metrics in a
	 * leaf of its own, so a run's commit wrote ~20 more pages; a trend
	 * finds its rows through the key (run_id, name) instead. */
	"DROP INDEX IF EXISTS metrics_name;",
};
#define STORE_SCHEMA_VERSION ((int)(sizeof(store_migrations) / sizeof(store_migrations[0])))

/* Rows per INSERT when a run's metrics, phases or tags are written. */
#define STORE_BATCH_ROWS 100

int store_schema_version(void)
{
	return STORE_SCHEMA_VERSION;
}

/* ---- results ---- */

struct store_cell *store_res_add_row(struct store_res *r, size_t cols)
{
	r->cols = cols;
	r->cells = xrealloc(r->cells, (r->rows + 1) * (cols ? cols : 1) * sizeof(*r->cells));
	struct store_cell *c = &r->cells[r->rows * cols];
	memset(c, 0, cols * sizeof(*c));
	r->rows++;
	return c;
}

void store_res_free(struct store_res *r)
{
	for (size_t i = 0; i < r->rows * r->cols; i++)
		free(r->cells[i].s);
	free(r->cells);
	memset(r, 0, sizeof(*r));
}

/* Run IDs per window of store_each_window: ~20 metric rows per run keep a
 * window's result near a few MB. */
#define STORE_WINDOW_RUNS 4096

int store_each_window(struct store *s, const char *sql, struct store_val *p, int np,
		      int (*fn)(const struct store_res *r, void *arg), void *arg, const char *doing,
		      struct err *e)
{
	struct store_res r = { 0 };
	if (s->be->query(s, "SELECT coalesce(max(id), 0) FROM runs", NULL, 0, &r, doing, e))
		return -1;
	int64_t last = r.rows ? store_res_i64(&r, 0, 0) : 0;
	store_res_free(&r);
	int rc = 0;
	for (int64_t from = 0; from < last && rc == 0; from += STORE_WINDOW_RUNS) {
		p[0] = (struct store_val){ .type = STORE_INT, .i = from };
		p[1] = (struct store_val){ .type = STORE_INT, .i = from + STORE_WINDOW_RUNS };
		if (s->be->query(s, sql, p, np, &r, doing, e))
			return -1;
		if (r.rows)
			rc = fn(&r, arg);
		store_res_free(&r);
	}
	return rc;
}

uint32_t store_name(struct store_names *t, const char *key)
{
	size_t i = strindex_get(&t->index, key);
	if (i != STRINDEX_NONE)
		return (uint32_t)i;
	xgrow((void **)&t->keys, &t->cap, t->n + 1, sizeof(*t->keys));
	t->keys[t->n] = xstrdup(key);
	strindex_put(&t->index, t->keys[t->n], t->n);
	return (uint32_t)t->n++;
}

void store_names_free(struct store_names *t)
{
	strindex_release(&t->index);
	for (size_t i = 0; i < t->n; i++)
		free(t->keys[i]);
	free(t->keys);
	memset(t, 0, sizeof(*t));
}

static const struct store_cell *store_cell_at(const struct store_res *r, size_t row, size_t col)
{
	return &r->cells[row * r->cols + col];
}

int store_res_null(const struct store_res *r, size_t row, size_t col)
{
	return store_cell_at(r, row, col)->is_null;
}

int64_t store_res_i64(const struct store_res *r, size_t row, size_t col)
{
	const struct store_cell *c = store_cell_at(r, row, col);
	if (c->is_null)
		return 0;
	if (c->type == STORE_INT)
		return c->i;
	if (c->type == STORE_REAL)
		return (int64_t)llround(c->d);
	return strtoll(c->s, NULL, 10);
}

double store_res_double(const struct store_res *r, size_t row, size_t col)
{
	const struct store_cell *c = store_cell_at(r, row, col);
	if (c->is_null)
		return NAN;
	if (c->type == STORE_INT)
		return (double)c->i;
	if (c->type == STORE_REAL)
		return c->d;
	return strtod(c->s, NULL);
}

const char *store_res_text(const struct store_res *r, size_t row, size_t col)
{
	const struct store_cell *c = store_cell_at(r, row, col);
	return c->is_null ? NULL : c->s;
}

/* ---- parameters ---- */

static struct store_val store_int(int64_t v)
{
	return (struct store_val){ .type = STORE_INT, .i = v };
}

static struct store_val store_real(double v)
{
	return (struct store_val){ .type = STORE_REAL, .d = v };
}

/* Text, or a NULL of type text for a NULL pointer. */
static struct store_val store_text(const char *v)
{
	return (struct store_val){ .type = STORE_TEXT, .s = v, .is_null = v == NULL };
}

/* A JSON number as an integer (as_int) or a real; NULL when absent. */
static struct store_val store_num(json_t *v, int as_int)
{
	if (json_is_integer(v))
		return as_int ? store_int(json_integer_value(v)) : store_real((double)json_integer_value(v));
	if (json_is_real(v))
		return as_int ? store_int((int64_t)llround(json_real_value(v))) : store_real(json_real_value(v));
	struct store_val n = as_int ? store_int(0) : store_real(0);
	n.is_null = 1;
	return n;
}

static struct store_val store_str(json_t *v)
{
	return store_text(json_string_value(v));
}

#define Q(s, sql, p, out, doing, e) \
	(s)->be->query((s), (sql), (p), (int)(sizeof(p) / sizeof((p)[0])), (out), (doing), (e))

/* ---- schema ---- */

/* The migration's SQL in the backend's dialect. Caller frees. */
static char *store_dialect(const char *sql, int pg)
{
	static const char *const words[][3] = {
		{ "@ID@", "INTEGER PRIMARY KEY", "BIGSERIAL PRIMARY KEY" },
		{ "@NOROWID@", " WITHOUT ROWID", "" },
	};
	char *out = xstrdup(sql);
	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		char *at;
		while ((at = strstr(out, words[w][0]))) {
			char *next = xasprintf("%.*s%s%s", (int)(at - out), out, words[w][pg ? 2 : 1],
					       at + strlen(words[w][0]));
			free(out);
			out = next;
		}
	}
	return out;
}

int store_migrate(struct store *s, struct err *e)
{
	int v;
	if (s->be->version(s, &v, e))
		return -1;
	if (v > STORE_SCHEMA_VERSION)
		return err_set(e, "history database '%s' has schema version %d, newer than this "
			       "perfhunt knows (%d)", s->path, v, STORE_SCHEMA_VERSION);
	if (v == STORE_SCHEMA_VERSION)
		return 0;
	if (s->be->migration_begin(s, e))
		return -1;
	/* Another process may have migrated while we waited for the lock. */
	if (s->be->version(s, &v, e))
		goto fail;
	for (int i = v; i < STORE_SCHEMA_VERSION; i++) {
		char doing[64];
		snprintf(doing, sizeof(doing), "migrating the schema to version %d", i + 1);
		char *sql = store_dialect(store_migrations[i], s->be->pg);
		int rc = s->be->exec(s, sql, doing, e);
		free(sql);
		if (rc)
			goto fail;
	}
	if (s->be->version_set(s, STORE_SCHEMA_VERSION, e) ||
	    s->be->exec(s, "COMMIT", "creating the schema", e))
		goto fail;
	return 0;
fail:
	s->be->rollback(s);
	return -1;
}

/* ---- opening ---- */

int store_is_url(const char *p)
{
	return !strncmp(p, "postgresql://", 13) || !strncmp(p, "postgres://", 11);
}

/* $XDG_DATA_HOME/perfhunt/history.db, else ~/.local/share/perfhunt/history.db
 * (the XDG base directory rules: a relative $XDG_DATA_HOME is ignored). */
static int store_user_path(char *buf, size_t n, struct err *e)
{
	const char *xdg = getenv("XDG_DATA_HOME");
	if (xdg && xdg[0] == '/') {
		if ((size_t)snprintf(buf, n, "%s/perfhunt/history.db", xdg) >= n)
			return err_set(e, "history database path too long under '%s'", xdg);
		return 0;
	}
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd *pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
	}
	if (!home)
		return err_set(e, "no home directory for the per-user history (set $HOME, "
			       "$XDG_DATA_HOME or $PERFHUNT_DB)");
	if ((size_t)snprintf(buf, n, "%s/.local/share/perfhunt/history.db",
			     strcmp(home, "/") ? home : "") >= n)
		return err_set(e, "history database path too long under '%s'", home);
	return 0;
}

int store_locate(const char *path_or_null, char *buf, size_t n, enum store_origin *origin,
		 struct err *e)
{
	enum store_origin o_unused;
	origin = origin ? origin : &o_unused;
	const char *env = getenv("PERFHUNT_DB");
	*origin = path_or_null && *path_or_null ? STORE_ORIGIN_ARG : STORE_ORIGIN_ENV;
	const char *p = path_or_null && *path_or_null ? path_or_null : env && *env ? env : NULL;
	if (p) {
		if ((size_t)snprintf(buf, n, "%s", p) >= n)
			return err_set(e, "history database path too long: '%s'", p);
		return 0;
	}
	char top[PATH_MAX];
	if (git_toplevel(top, sizeof(top)) == 0) {
		*origin = STORE_ORIGIN_REPO;
		if ((size_t)snprintf(buf, n, "%s/.perfhunt/history.db", strcmp(top, "/") ? top : "") >= n)
			return err_set(e, "history database path too long under '%s'", top);
		return 0;
	}
	*origin = STORE_ORIGIN_USER;
	return store_user_path(buf, n, e);
}

int store_default_path(const char *path_or_null, char *buf, size_t n, struct err *e)
{
	return store_locate(path_or_null, buf, n, NULL, e);
}

const char *store_origin_text(enum store_origin o)
{
	switch (o) {
	case STORE_ORIGIN_ARG:
		return "from the command line";
	case STORE_ORIGIN_ENV:
		return "from $PERFHUNT_DB";
	case STORE_ORIGIN_REPO:
		return "at the top level of the git work tree";
	case STORE_ORIGIN_USER:
		return "per-user, not inside a git work tree: $XDG_DATA_HOME/perfhunt/, "
		       "default ~/.local/share/perfhunt/";
	}
	return "?";
}

int store_check_location(const char *path, struct err *e)
{
	if (store_is_url(path) || !strcmp(path, ":memory:"))
		return 0;
	/* a device, FIFO or socket is no database: SQLite would open
	 * /dev/null and create /dev/null-journal beside it (as root, 0666) */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return err_set(e, "refusing the history database '%s': not a regular file (%s); set "
			       "PERFHUNT_DB to a file's path", path, fsafe_kind(st.st_mode));
	struct err why;
	char entry[PATH_MAX];
	if (fsafe_check_path(path, FSAFE_TRUSTED_NO_STICKY, entry, sizeof(entry), &why) == 0)
		return 0;
	return err_set(e, "refusing the history database '%s': %s; set PERFHUNT_SAFE_DIRECTORY=%s "
		       "to trust it, or PERFHUNT_DB to choose another", path, why.msg, entry);
}

static int store_open_mode(struct store **out, const char *path_or_null, int create, struct err *e)
{
	*out = NULL;
	char path[PATH_MAX];
	if (store_default_path(path_or_null, path, sizeof(path), e))
		return -1;
	struct store *s = xcalloc(1, sizeof(*s));
	s->be = store_is_url(path) ? &store_pg_backend : &store_sqlite_backend;
	s->target = xstrdup(path);
	s->path = url_redact(path);
	s->busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;
	if (s->be->connect(s, create, e)) {
		store_close(s);
		return -1;
	}
	*out = s;
	return 0;
}

int store_open(struct store **out, const char *path_or_null, struct err *e)
{
	return store_open_mode(out, path_or_null, 1, e);
}

int store_open_existing(struct store **out, const char *path_or_null, struct err *e)
{
	return store_open_mode(out, path_or_null, 0, e);
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->conn)
		s->be->close(s);
	free(s->target);
	free(s->path);
	free(s);
}

void store_close_detached(struct store *s)
{
	if (!s)
		return;
	if (s->conn) {
		if (s->be->close_detached)
			s->be->close_detached(s);
		else
			s->be->close(s);
	}
	s->conn = NULL;
	store_close(s);
}

void store_settle(const char *path_or_null)
{
	char path[PATH_MAX];
	struct err e;
	if (store_default_path(path_or_null, path, sizeof(path), &e) == 0 && !store_is_url(path) &&
	    strcmp(path, ":memory:"))
		store_sqlite_wait_folds(path, STORE_BUSY_TIMEOUT_MS);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

const char *store_backend_name(const struct store *s)
{
	return s->be->name;
}

void store_set_busy_timeout_ms(struct store *s, int timeout_ms)
{
	s->busy_timeout_ms = timeout_ms;
	s->be->set_timeout(s, timeout_ms);
}

/* ---- writing ---- */

/* The record as stored: sample rows stripped, tags merged. */
static char *store_record_text(json_t *rec, json_t *tags)
{
	json_t *copy = json_copy(rec);
	json_t *samples = json_object_get(rec, "samples");
	if (json_is_object(samples) && json_object_get(samples, "rows")) {
		json_t *sc = json_copy(samples);
		json_object_del(sc, "rows");
		json_object_set_new(copy, "samples", sc);
	}
	if (json_array_size(tags))
		json_object_set(copy, "tags", tags);
	char *text = json_dumps(copy, JSON_COMPACT);
	json_decref(copy);
	return text;
}

/* Inserts rows of width columns (p holds rows * width values) into
 * "INSERT INTO head VALUES", STORE_BATCH_ROWS rows per statement. */
static int store_insert_rows(struct store *s, const char *head, const struct store_val *p,
			     size_t rows, size_t width, const char *doing, struct err *e)
{
	for (size_t first = 0; first < rows; first += STORE_BATCH_ROWS) {
		size_t n = rows - first < STORE_BATCH_ROWS ? rows - first : STORE_BATCH_ROWS;
		char *sql = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&sql, &len);
		if (!f)
			return err_sys(e, "history database '%s': %s", s->path, doing);
		fprintf(f, "INSERT INTO %s VALUES ", head);
		for (size_t r = 0; r < n; r++) {
			fputs(r ? ",(" : "(", f);
			for (size_t c = 0; c < width; c++)
				fprintf(f, "%s$%zu", c ? ", " : "", r * width + c + 1);
			fputc(')', f);
		}
		fclose(f);
		int rc = s->be->query(s, sql, p + first * width, (int)(n * width), NULL, doing, e);
		free(sql);
		if (rc)
			return -1;
	}
	return 0;
}

/* Appends (id, name, value) unless name is already in the list. */
static void store_metric_row(struct store_val **p, size_t *n, size_t *cap, int64_t id,
			     const char *name, double value)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*p)[3 * i + 1].s, name))
			return;
	xgrow((void **)p, cap, 3 * (*n + 1), sizeof(**p));
	(*p)[3 * *n] = store_int(id);
	(*p)[3 * *n + 1] = store_text(name);
	(*p)[3 * *n + 2] = store_real(value);
	(*n)++;
}

/* Inserts the metrics, phases and tags rows of run id. */
static int store_add_details(struct store *s, int64_t id, json_t *rec, json_t *tags, struct err *e)
{
	/* Metric names and values are exactly what compare reads from a record
	 * (stats/metrics); other numeric summary fields are added after them. */
	struct metrics_set ms;
	if (metrics_from_records(&rec, 1, &ms, e))
		return -1;
	struct store_val *p = NULL;
	size_t n = 0, cap = 0;
	for (size_t m = 0; m < ms.n; m++)
		if (ms.items[m].n)
			store_metric_row(&p, &n, &cap, id, ms.items[m].name, ms.items[m].values[0]);
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(rec, "summary"), key, v)
		if (json_is_number(v))
			store_metric_row(&p, &n, &cap, id, key, json_number_value(v));
	int rc = store_insert_rows(s, "metrics(run_id, name, value)", p, n, 3, "storing a metric", e);
	metrics_set_release(&ms);
	n = 0;
	size_t i;
	json_array_foreach(json_object_get(rec, "phases"), i, v) {
		json_t *name = json_object_get(v, "name"), *lane = json_object_get(v, "lane");
		if (!json_is_string(name))
			continue;
		xgrow((void **)&p, &cap, 5 * (n + 1), sizeof(*p));
		struct store_val *row = &p[5 * n++];
		row[0] = store_int(id);
		row[1] = store_str(name);
		row[2] = store_text(json_is_string(lane) ? json_string_value(lane) : "");
		row[3] = store_num(json_object_get(v, "start_ms"), 0);
		row[4] = store_num(json_object_get(v, "end_ms"), 0);
	}
	if (!rc)
		rc = store_insert_rows(s, "phases(run_id, name, lane, start_ms, end_ms)", p, n, 5,
				       "storing a phase", e);
	n = 0;
	json_array_foreach(tags, i, v) {
		if (!json_is_string(v))
			continue;
		int dup = 0;
		for (size_t k = 0; k < n && !dup; k++)
			dup = !strcmp(p[2 * k + 1].s, json_string_value(v));
		if (dup)
			continue;
		xgrow((void **)&p, &cap, 2 * (n + 1), sizeof(*p));
		p[2 * n] = store_int(id);
		p[2 * n + 1] = store_str(v);
		n++;
	}
	if (!rc)
		rc = store_insert_rows(s, "tags(run_id, tag)", p, n, 2, "storing a tag", e);
	free(p);
	return rc;
}

/* Inserts one run inside the caller's transaction. outer (a bench record, or
 * NULL) supplies started_at, git and host when the run lacks them. */
static int store_insert_run(struct store *s, json_t *rec, const char *const *extra_tags,
			    int64_t bench_id, json_t *outer, int64_t *out_id, struct err *e)
{
	if (!json_is_object(rec))
		return err_set(e, "run record is not a JSON object");
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	if (!schema || strcmp(schema, "perfhunt.run/1"))
		return err_set(e, "not a perfhunt.run/1 record (schema '%s')", schema ? schema : "");
	char *command = command_text(json_object_get(rec, "command"));
	if (!command)
		return err_set(e, "run record has no command (expected an array of strings)");
	json_t *started = json_object_get(rec, "started_at");
	if (!json_is_string(started) && outer)
		started = json_object_get(outer, "started_at");
	if (!json_is_string(started)) {
		free(command);
		return err_set(e, "run record has no started_at");
	}
	json_t *git = json_object_get(rec, "git");
	if (!git && outer)
		git = json_object_get(outer, "git");
	json_t *host = json_object_get(rec, "host");
	if (!host && outer)
		host = json_object_get(outer, "host");
	json_t *kind = json_object_get(rec, "kind");
	json_t *exitv = json_object_get(rec, "exit");
	json_t *sum = json_object_get(rec, "summary");

	/* Tags: the record's own plus the caller's, as one array. */
	json_t *tags = json_array();
	size_t i;
	json_t *t;
	json_array_foreach(json_object_get(rec, "tags"), i, t)
		if (json_is_string(t))
			json_array_append(tags, t);
	for (const char *const *p = extra_tags; p && *p; p++)
		json_array_append_new(tags, json_string(*p));

	char *text = store_record_text(rec, tags);
	int rc = -1;
	if (!text) {
		err_set(e, "run record cannot be serialised");
		goto out;
	}
	json_t *status = json_object_get(exitv, "status");
	json_t *dirty = json_object_get(git, "dirty");
	struct store_val p[17] = {
		store_str(started),
		store_text(command),
		store_text(json_is_string(kind) ? json_string_value(kind) : "run"),
		store_num(status ? status : json_object_get(exitv, "code"), 1),
		store_str(json_object_get(git, "commit")),
		json_is_boolean(dirty) ? store_int(json_is_true(dirty)) : store_num(NULL, 1),
		store_str(json_object_get(host, "hostname")),
		store_num(json_object_get(sum, "wall_s"), 0),
		store_num(json_object_get(sum, "user_s"), 0),
		store_num(json_object_get(sum, "sys_s"), 0),
		store_num(json_object_get(sum, "peak_rss_kb"), 1),
		store_num(json_object_get(sum, "peak_tree_rss_kb"), 1),
		store_num(json_object_get(sum, "cgroup_peak_kb"), 1),
		store_num(json_object_get(sum, "minflt"), 1),
		store_num(json_object_get(sum, "majflt"), 1),
		bench_id > 0 ? store_int(bench_id) : store_num(NULL, 1),
		store_text(text),
	};
	struct store_res r = { 0 };
	if (Q(s, "INSERT INTO runs(started_at, command, kind, exit_status, git_commit,"
	      " git_dirty, hostname, wall_s, user_s, sys_s, peak_rss_kb, peak_tree_rss_kb,"
	      " cgroup_peak_kb, minflt, majflt, bench_id, record_json) VALUES"
	      " ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)"
	      " RETURNING id", p, &r, "storing a run", e))
		goto out;
	int64_t id = r.rows ? store_res_i64(&r, 0, 0) : 0;
	store_res_free(&r);
	if (store_add_details(s, id, rec, tags, e))
		goto out;
	if (out_id)
		*out_id = id;
	rc = 0;
out:
	free(text);
	free(command);
	json_decref(tags);
	return rc;
}

static int store_commit(struct store *s, int rc, struct err *e)
{
	if (rc == 0 && s->be->exec(s, "COMMIT", "committing", e) == 0)
		return 0;
	s->be->rollback(s);
	return -1;
}

int store_add_run(struct store *s, json_t *run_record, const char *const *tags,
		  int64_t bench_id, int64_t *out_id, struct err *e)
{
	if (s->be->begin(s, "storing a run", e))
		return -1;
	int rc = store_insert_run(s, run_record, tags, bench_id, NULL, out_id, e);
	return store_commit(s, rc, e);
}

int store_add_bench(struct store *s, json_t *bench, const struct bench_runs *src, const char *const *tags,
		    int64_t *out_bench_id, struct err *e)
{
	if (!json_is_object(bench))
		return err_set(e, "bench record is not a JSON object");
	const char *schema = json_string_value(json_object_get(bench, "schema"));
	if (!schema || strcmp(schema, "perfhunt.bench/1"))
		return err_set(e, "not a perfhunt.bench/1 record (schema '%s')", schema ? schema : "");
	json_t *commands = json_object_get(bench, "commands");
	if (!json_is_array(commands))
		return err_set(e, "bench record has no commands array");

	/* The summary keeps everything but the runs, which get rows of their own. */
	json_t *summary = json_deep_copy(bench);
	size_t i;
	json_t *c;
	json_array_foreach(json_object_get(summary, "commands"), i, c)
		json_object_del(c, "runs");
	char *text = json_dumps(summary, JSON_COMPACT);
	json_decref(summary);
	if (!text)
		return err_set(e, "bench record cannot be serialised");

	int rc = -1;
	if (s->be->begin(s, "storing a bench", e)) {
		free(text);
		return -1;
	}
	struct store_val p[] = { store_str(json_object_get(bench, "started_at")), store_text(text) };
	struct store_res r = { 0 };
	if (Q(s, "INSERT INTO benches(started_at, summary) VALUES ($1, $2) RETURNING id", p, &r,
	      "storing a bench", e))
		goto out;
	int64_t bench_id = r.rows ? store_res_i64(&r, 0, 0) : 0;
	store_res_free(&r);
	/* the runs one at a time: a bench being run reads them back from its spool */
	for (i = 0; i < json_array_size(commands); i++) {
		size_t n = bench_runs_count(src, bench, i);
		for (size_t j = 0; j < n; j++) {
			json_t *run = bench_runs_load(src, bench, i, j, e);
			int bad = !run || store_insert_run(s, run, tags, bench_id, bench, NULL, e);
			json_decref(run);
			if (bad) {
				err_wrap(e, "bench command %zu, run %zu", i + 1, j + 1);
				goto out;
			}
		}
	}
	if (out_bench_id)
		*out_bench_id = bench_id;
	rc = 0;
out:
	free(text);
	return store_commit(s, rc, e);
}

/* ---- reading ---- */

static char *store_dup(const struct store_res *r, size_t row, size_t col)
{
	const char *t = store_res_text(r, row, col);
	return t ? xstrdup(t) : NULL;
}

int store_list(struct store *s, const struct store_filter *f, struct store_row **rows,
	       size_t *n, struct err *e)
{
	*rows = NULL;
	*n = 0;
	struct store_val p[] = {
		store_text(f ? f->command : NULL),
		store_text(f ? f->tag : NULL),
		store_text(f ? f->commit : NULL),
		store_int(f && f->limit > 0 ? f->limit : INT64_MAX),
	};
	struct store_res r = { 0 };
	if (Q(s, "SELECT r.id, coalesce(r.bench_id, 0), r.started_at, r.command, r.kind,"
	      " r.git_commit, coalesce(r.git_dirty, 0), coalesce(r.exit_status, 0),"
	      " r.wall_s, coalesce(r.peak_rss_kb, -1),"
	      " coalesce((SELECT string_agg(tag, ',') FROM"
	      "  (SELECT tag FROM tags t WHERE t.run_id = r.id ORDER BY tag) AS ordered), '')"
	      " FROM runs r"
	      " WHERE ($1 IS NULL OR strpos(r.command, $1) > 0)"
	      " AND ($2 IS NULL OR EXISTS (SELECT 1 FROM tags t"
	      "      WHERE t.run_id = r.id AND t.tag = $2))"
	      " AND ($3 IS NULL OR substr(r.git_commit, 1, length($3)) = $3)"
	      " ORDER BY r.id DESC LIMIT $4", p, &r, "listing runs", e))
		return -1;
	*rows = xcalloc(r.rows ? r.rows : 1, sizeof(**rows));
	for (size_t i = 0; i < r.rows; i++) {
		struct store_row *o = &(*rows)[i];
		o->id = store_res_i64(&r, i, 0);
		o->bench_id = store_res_i64(&r, i, 1);
		o->started_at = store_dup(&r, i, 2);
		o->command = store_dup(&r, i, 3);
		o->kind = store_dup(&r, i, 4);
		o->git_commit = store_dup(&r, i, 5);
		o->git_dirty = (int)store_res_i64(&r, i, 6);
		o->exit_status = (int)store_res_i64(&r, i, 7);
		o->wall_s = store_res_double(&r, i, 8);
		o->peak_rss_kb = store_res_i64(&r, i, 9);
		o->tags = store_dup(&r, i, 10);
	}
	*n = r.rows;
	store_res_free(&r);
	return 0;
}

void store_rows_free(struct store_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].started_at);
		free(rows[i].command);
		free(rows[i].kind);
		free(rows[i].git_commit);
		free(rows[i].tags);
	}
	free(rows);
}

/* Parses a stored record; NULL (and an error naming the run) when unreadable. */
static json_t *store_parse_record(struct store *s, int64_t id, const char *text, struct err *e)
{
	json_error_t jerr;
	json_t *rec = text ? json_loads(text, 0, &jerr) : NULL;
	if (!json_is_object(rec)) {
		json_decref(rec);
		err_set(e, "history database '%s': run %lld has an unreadable record", s->path,
			(long long)id);
		return NULL;
	}
	return rec;
}

/* Loads the records of the runs selected by where (one parameter $1: text when
 * text_arg is non-NULL, else int_arg), oldest first. */
static int store_fetch(struct store *s, const char *where, const char *text_arg, int64_t int_arg,
		       json_t ***records, size_t *n, struct err *e)
{
	char sql[512];
	snprintf(sql, sizeof(sql), "SELECT id, bench_id, record_json FROM runs WHERE %s ORDER BY id",
		 where);
	struct store_val p[] = { text_arg ? store_text(text_arg) : store_int(int_arg) };
	struct store_res r = { 0 };
	if (Q(s, sql, p, &r, "reading runs", e))
		return -1;
	*records = xcalloc(r.rows ? r.rows : 1, sizeof(**records));
	*n = 0;
	for (size_t i = 0; i < r.rows; i++) {
		int64_t id = store_res_i64(&r, i, 0);
		json_t *rec = store_parse_record(s, id, store_res_text(&r, i, 2), e);
		if (!rec) {
			store_records_free(*records, *n);
			*records = NULL;
			*n = 0;
			store_res_free(&r);
			return -1;
		}
		/* Where the record came from, for labels (not stored). */
		json_object_set_new(rec, "history_id", json_integer(id));
		if (!store_res_null(&r, i, 1))
			json_object_set_new(rec, "history_bench_id", json_integer(store_res_i64(&r, i, 1)));
		(*records)[(*n)++] = rec;
	}
	store_res_free(&r);
	return 0;
}

void store_records_free(json_t **records, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(records[i]);
	free(records);
}

int store_get_run(struct store *s, int64_t id, json_t **out, struct err *e)
{
	json_t **recs = NULL;
	size_t n = 0;
	*out = NULL;
	if (store_fetch(s, "id = $1", NULL, id, &recs, &n, e))
		return -1;
	if (n == 0) {
		free(recs);
		return err_set(e, "no run %lld in history database '%s'", (long long)id, s->path);
	}
	*out = recs[0];
	free(recs);
	return 0;
}

/* The group (a bench, or a run outside one) `back` places before the newest. */
static int store_resolve_last(struct store *s, int64_t back, json_t ***records, size_t *n,
			      struct err *e)
{
	struct store_val p[] = { store_int(back) };
	struct store_res r = { 0 };
	if (Q(s, "SELECT max(id) AS m, max(bench_id) FROM runs"
	      " GROUP BY coalesce(bench_id, -id) ORDER BY m DESC LIMIT 1 OFFSET $1",
	      p, &r, "resolving @last", e))
		return -1;
	if (r.rows == 0) {
		store_res_free(&r);
		return 0;
	}
	int in_bench = !store_res_null(&r, 0, 1);
	int64_t id = store_res_i64(&r, 0, in_bench ? 1 : 0);
	store_res_free(&r);
	return store_fetch(s, in_bench ? "bench_id = $1" : "id = $1", NULL, id, records, n, e);
}

/* Resolves @commit:PREFIX, refusing a prefix shared by several commits. */
static int store_resolve_commit(struct store *s, const char *prefix, json_t ***records,
				size_t *n, struct err *e)
{
	if (!*prefix || strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return err_set(e, "'@commit:%s': expected a hexadecimal commit prefix", prefix);
	struct store_val p[] = { store_text(prefix) };
	struct store_res r = { 0 };
	if (Q(s, "SELECT DISTINCT git_commit FROM runs"
	      " WHERE substr(git_commit, 1, length($1)) = lower($1) LIMIT 3", p, &r,
	      "resolving a commit", e))
		return -1;
	char found[2][48] = { "", "" };
	for (size_t i = 0; i < r.rows && i < 2; i++)
		snprintf(found[i], sizeof(found[i]), "%s", store_res_text(&r, i, 0));
	size_t count = r.rows;
	store_res_free(&r);
	if (count > 1)
		return err_set(e, "commit prefix '%s' is ambiguous (%.12s, %.12s%s)", prefix,
			       found[0], found[1], count > 2 ? ", ..." : "");
	if (count == 0)
		return 0;
	return store_fetch(s, "git_commit = $1", found[0], 0, records, n, e);
}

int store_resolve(struct store *s, const char *ref, json_t ***records, size_t *n, struct err *e)
{
	*records = NULL;
	*n = 0;
	const char *r = ref[0] == '@' ? ref + 1 : ref;
	int64_t v;
	int rc;
	if (*r && strspn(r, "0123456789") == strlen(r)) {
		if (parse_i64(r, 1, INT64_MAX, &v, "run ID", e))
			return -1;
		rc = store_fetch(s, "id = $1", NULL, v, records, n, e);
	} else if (!strcmp(r, "last")) {
		rc = store_resolve_last(s, 0, records, n, e);
	} else if (!strncmp(r, "last~", 5)) {
		if (parse_i64(r + 5, 0, INT64_MAX, &v, "@last~N", e))
			return -1;
		rc = store_resolve_last(s, v, records, n, e);
	} else if (!strncmp(r, "tag:", 4) && r[4]) {
		rc = store_fetch(s, "id IN (SELECT run_id FROM tags WHERE tag = $1)", r + 4, 0,
				 records, n, e);
	} else if (!strncmp(r, "bench:", 6)) {
		if (parse_i64(r + 6, 1, INT64_MAX, &v, "@bench:ID", e))
			return -1;
		rc = store_fetch(s, "bench_id = $1", NULL, v, records, n, e);
	} else if (!strncmp(r, "commit:", 7)) {
		rc = store_resolve_commit(s, r + 7, records, n, e);
	} else {
		return err_set(e, "unknown history reference '%s' (expected @last, @last~N, @tag:NAME, "
			       "@bench:ID, @commit:PREFIX or a run ID)", ref);
	}
	if (rc)
		return -1;
	if (*n == 0) {
		free(*records);
		*records = NULL;
		return err_set(e, "no stored run matches '%s' in '%s'", ref, s->path);
	}
	return 0;
}

/* Names of stored metrics, comma-separated, for an error message. */
static void store_metric_names(struct store *s, char *buf, size_t len)
{
	struct store_res r = { 0 };
	buf[0] = '\0';
	if (s->be->query(s, "SELECT DISTINCT name FROM metrics ORDER BY name LIMIT 40", NULL, 0,
			 &r, "listing metrics", NULL))
		return;
	size_t used = 0;
	for (size_t i = 0; i < r.rows && used + 8 < len; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
				 store_res_text(&r, i, 0));
		used = w > 0 && used + (size_t)w < len ? used + (size_t)w : len - 1;
	}
	store_res_free(&r);
}

struct store_trend_acc {
	struct store_names keys; /* dirty flag and commit: one point each */
	struct store_trend_point *points;
	size_t n, cap;
};

static int store_trend_rows(const struct store_res *r, void *arg)
{
	struct store_trend_acc *a = arg;
	for (size_t row = 0; row < r->rows; row++) {
		const char *commit = store_res_text(r, row, 0);
		int dirty = store_res_i64(r, row, 1) != 0;
		char *key = xasprintf("%d%s", dirty, commit ? commit : "");
		uint32_t i = store_name(&a->keys, key);
		free(key);
		if (i == a->n) {
			xgrow((void **)&a->points, &a->cap, a->n + 1, sizeof(*a->points));
			a->points[a->n++] = (struct store_trend_point){ .commit = xstrdup(commit ? commit : ""),
									.dirty = dirty };
		}
		struct store_trend_point *pt = &a->points[i];
		if ((pt->n & (pt->n - 1)) == 0) /* capacity doubles at powers of two */
			pt->values = xrealloc(pt->values, (pt->n ? 2 * pt->n : 1) * sizeof(double));
		pt->values[pt->n++] = store_res_double(r, row, 2);
	}
	return 0;
}

int store_trend(struct store *s, const char *metric, const char *command,
		struct store_trend_point **points, size_t *n, struct err *e)
{
	*points = NULL;
	*n = 0;
	struct store_val p[] = { store_int(0), store_int(0), store_text(metric), store_text(command) };
	struct store_trend_acc a = { 0 };
	int rc = store_each_window(s, "SELECT coalesce(r.git_commit, ''), coalesce(r.git_dirty, 0), m.value"
				   " FROM metrics m JOIN runs r ON r.id = m.run_id"
				   " WHERE r.id > $1 AND r.id <= $2 AND m.name = $3"
				   " AND ($4 IS NULL OR strpos(r.command, $4) > 0) ORDER BY r.id",
				   p, 4, store_trend_rows, &a, "reading a trend", e);
	store_names_free(&a.keys);
	*points = a.points;
	*n = a.n;
	if (rc) {
		store_trend_free(*points, *n);
		*points = NULL;
		*n = 0;
		return -1;
	}
	if (*n == 0) {
		char names[320];
		store_metric_names(s, names, sizeof(names));
		return err_set(e, "no stored run has metric '%s'%s%s%s", metric,
			       command ? " for that command" : "", names[0] ? "; known: " : "", names);
	}
	return 0;
}

void store_trend_free(struct store_trend_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(points[i].commit);
		free(points[i].values);
	}
	free(points);
}

/* ---- export ---- */

/* The bench record of bench_id: its summary with each run put back under the
 * command it ran (the first command whose argv matches; the last if none). */
static json_t *store_bench_record(struct store *s, int64_t bench_id, struct err *e)
{
	struct store_val p[] = { store_int(bench_id) };
	struct store_res r = { 0 };
	if (Q(s, "SELECT summary FROM benches WHERE id = $1", p, &r, "exporting a bench", e))
		return NULL;
	json_error_t jerr;
	const char *text = r.rows ? store_res_text(&r, 0, 0) : NULL;
	json_t *bench = text ? json_loads(text, 0, &jerr) : NULL;
	store_res_free(&r);
	json_t *cmds = json_object_get(bench, "commands");
	if (!json_is_object(bench) || !json_is_array(cmds) || json_array_size(cmds) == 0) {
		json_decref(bench);
		err_set(e, "history database '%s': bench %lld has an unreadable summary", s->path,
			(long long)bench_id);
		return NULL;
	}
	size_t i;
	json_t *c;
	json_array_foreach(cmds, i, c)
		json_object_set_new(c, "runs", json_array());
	if (Q(s, "SELECT id, record_json FROM runs WHERE bench_id = $1 ORDER BY id", p, &r,
	      "exporting a bench", e)) {
		json_decref(bench);
		return NULL;
	}
	for (size_t row = 0; row < r.rows; row++) {
		json_t *run = store_parse_record(s, store_res_i64(&r, row, 0),
						 store_res_text(&r, row, 1), e);
		if (!run) {
			store_res_free(&r);
			json_decref(bench);
			return NULL;
		}
		json_t *home = json_array_get(cmds, json_array_size(cmds) - 1);
		json_array_foreach(cmds, i, c) {
			if (json_equal(json_object_get(c, "command"), json_object_get(run, "command"))) {
				home = c;
				break;
			}
		}
		json_array_append_new(json_object_get(home, "runs"), run);
	}
	store_res_free(&r);
	return bench;
}

int store_export(struct store *s, int (*fn)(json_t *record, void *arg), void *arg, struct err *e)
{
	/* Pages of runs by id keep memory bounded however large the history. */
	int64_t after = 0, *done = NULL;
	size_t ndone = 0, capdone = 0;
	int rc = 0;
	for (;;) {
		struct store_val p[] = { store_int(after) };
		struct store_res r = { 0 };
		if (Q(s, "SELECT id, bench_id, record_json FROM runs WHERE id > $1 ORDER BY id LIMIT 500",
		      p, &r, "exporting runs", e)) {
			rc = -1;
			break;
		}
		if (r.rows == 0) {
			store_res_free(&r);
			break;
		}
		for (size_t row = 0; row < r.rows && rc == 0; row++) {
			int64_t id = store_res_i64(&r, row, 0);
			after = id;
			json_t *rec;
			if (!store_res_null(&r, row, 1)) {
				int64_t b = store_res_i64(&r, row, 1);
				int seen = 0;
				for (size_t k = 0; k < ndone && !seen; k++)
					seen = done[k] == b;
				if (seen)
					continue;
				xgrow((void **)&done, &capdone, ndone + 1, sizeof(*done));
				done[ndone++] = b;
				rec = store_bench_record(s, b, e);
			} else {
				rec = store_parse_record(s, id, store_res_text(&r, row, 2), e);
			}
			if (!rec) {
				rc = -1;
				break;
			}
			rc = fn(rec, arg);
			json_decref(rec);
		}
		store_res_free(&r);
		if (rc)
			break;
	}
	free(done);
	return rc;
}

int store_resolve_default(const char *ref, json_t ***records, size_t *n, struct err *e)
{
	struct store *s = NULL;
	*records = NULL;
	*n = 0;
	int rc = store_open_existing(&s, NULL, e);
	if (rc == 0)
		rc = store_resolve(s, ref, records, n, e);
	store_close(s);
	return rc;
}
