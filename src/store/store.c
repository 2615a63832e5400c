/* store: the run history in SQLite (see store.h for the contract).
 *
 * A record is validated, kept whole as record_json (sample rows stripped:
 * they can be large and the timeline CSV holds them), and spread over plain
 * tables. Every write is one BEGIN IMMEDIATE transaction, so a concurrent
 * writer waits on the busy timeout instead of failing half-way; WAL mode lets
 * readers go on meanwhile. SQLite's result codes become one line each.
 */
#include "store/store.h"
#include "record/git.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stats/metrics.h"
#include "util/parse.h"
#include "util/xalloc.h"

struct store {
	sqlite3 *db;
	char *path;
	int busy_timeout_ms;
};

/* Migration i brings the schema from version i to i + 1; append only. */
static const char *const store_migrations[] = {
	"CREATE TABLE benches ("
	" id INTEGER PRIMARY KEY,"
	" started_at TEXT,"
	" summary TEXT);"
	"CREATE TABLE runs ("
	" id INTEGER PRIMARY KEY,"
	" started_at TEXT NOT NULL,"
	" command TEXT NOT NULL,"
	" kind TEXT NOT NULL,"
	" exit_status INTEGER,"
	" git_commit TEXT,"
	" git_dirty INTEGER,"
	" hostname TEXT,"
	" wall_s REAL, user_s REAL, sys_s REAL,"
	" peak_rss_kb INTEGER, peak_tree_rss_kb INTEGER, cgroup_peak_kb INTEGER,"
	" minflt INTEGER, majflt INTEGER,"
	" bench_id INTEGER REFERENCES benches(id),"
	" record_json TEXT NOT NULL);"
	"CREATE INDEX runs_commit ON runs(git_commit);"
	"CREATE INDEX runs_bench ON runs(bench_id);"
	"CREATE TABLE metrics ("
	" run_id INTEGER NOT NULL REFERENCES runs(id),"
	" name TEXT NOT NULL,"
	" value REAL NOT NULL,"
	" PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
	"CREATE INDEX metrics_name ON metrics(name);"
	"CREATE TABLE phases ("
	" run_id INTEGER NOT NULL REFERENCES runs(id),"
	" name TEXT NOT NULL,"
	" lane TEXT NOT NULL DEFAULT '',"
	" start_ms REAL, end_ms REAL);"
	"CREATE INDEX phases_run ON phases(run_id);"
	"CREATE TABLE tags ("
	" run_id INTEGER NOT NULL REFERENCES runs(id),"
	" tag TEXT NOT NULL,"
	" PRIMARY KEY (run_id, tag)) WITHOUT ROWID;"
	"CREATE INDEX tags_tag ON tags(tag);",
};
#define STORE_SCHEMA_VERSION ((int)(sizeof(store_migrations) / sizeof(store_migrations[0])))

/* Turns an SQLite failure into one line that names the database and the cause. */
static int store_fail(const struct store *s, int rc, const char *doing, struct err *e)
{
	const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(e, "history database '%s' is locked by another process "
			       "(gave up after %d ms while %s)", s->path, s->busy_timeout_ms, doing);
	case SQLITE_NOTADB:
		return err_set(e, "'%s' is not a perfhunt history database (file is not a database)",
			       s->path);
	case SQLITE_CORRUPT:
		return err_set(e, "history database '%s' is corrupt (%s)", s->path, msg);
	case SQLITE_READONLY:
		return err_set(e, "history database '%s' is read-only (%s)", s->path, msg);
	case SQLITE_CANTOPEN:
		return err_set(e, "cannot open history database '%s' (%s)", s->path, msg);
	case SQLITE_FULL:
		return err_set(e, "history database '%s': disk full while %s", s->path, doing);
	default:
		return err_set(e, "history database '%s': %s: %s", s->path, doing, msg);
	}
}

static int store_exec(struct store *s, const char *sql, const char *doing, struct err *e)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : store_fail(s, rc, doing, e);
}

static int store_prepare(struct store *s, const char *sql, sqlite3_stmt **st, struct err *e)
{
	int rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL);
	return rc == SQLITE_OK ? 0 : store_fail(s, rc, "preparing a query", e);
}

/* Runs a statement that returns no rows (or ignores them) and resets it. */
static int store_step_done(struct store *s, sqlite3_stmt *st, const char *doing, struct err *e)
{
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_fail(s, rc, doing, e);
}

static int store_user_version(struct store *s, int *out, struct err *e)
{
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, "PRAGMA user_version", &st, e))
		return -1;
	int rc = sqlite3_step(st);
	*out = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : store_fail(s, rc, "reading the schema version", e);
}

static int store_migrate(struct store *s, struct err *e)
{
	int v;
	if (store_user_version(s, &v, e))
		return -1;
	if (v > STORE_SCHEMA_VERSION)
		return err_set(e, "history database '%s' has schema version %d, newer than this "
			       "perfhunt knows (%d)", s->path, v, STORE_SCHEMA_VERSION);
	if (v == STORE_SCHEMA_VERSION)
		return 0;
	if (store_exec(s, "BEGIN IMMEDIATE", "creating the schema", e))
		return -1;
	/* Another process may have migrated while we waited for the lock. */
	if (store_user_version(s, &v, e))
		goto fail;
	for (int i = v; i < STORE_SCHEMA_VERSION; i++) {
		char doing[64];
		snprintf(doing, sizeof(doing), "migrating the schema to version %d", i + 1);
		if (store_exec(s, store_migrations[i], doing, e))
			goto fail;
	}
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION);
	if (store_exec(s, sql, "setting the schema version", e) ||
	    store_exec(s, "COMMIT", "creating the schema", e))
		goto fail;
	return 0;
fail:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int store_default_path(const char *path_or_null, char *buf, size_t n, struct err *e)
{
	const char *env = getenv("PERFHUNT_DB");
	const char *p = path_or_null && *path_or_null ? path_or_null : env && *env ? env : NULL;
	if (p) {
		if ((size_t)snprintf(buf, n, "%s", p) >= n)
			return err_set(e, "history database path too long: '%s'", p);
		return 0;
	}
	char cwd[PATH_MAX], top[PATH_MAX];
	if (!getcwd(cwd, sizeof(cwd)))
		return err_sys(e, "cannot find the current directory");
	const char *base = git_toplevel(top, sizeof(top)) == 0 ? top : cwd;
	if ((size_t)snprintf(buf, n, "%s/.perfhunt/history.db", strcmp(base, "/") ? base : "") >= n)
		return err_set(e, "history database path too long under '%s'", base);
	return 0;
}

/* Creates dir and any missing parents, each with mode 0700. */
static int store_mkdirs(char *dir, struct err *e)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : err_set(e, "'%s' is not a directory", dir);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		int rc = store_mkdirs(dir, e);
		*slash = '/';
		if (rc)
			return rc;
	}
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		return err_sys(e, "cannot create directory '%s' for the history database", dir);
	return 0;
}

static char *store_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Percent-escapes a path for an SQLite file: URI. */
static char *store_uri(const char *path, const char *query)
{
	size_t n = strlen(path);
	char *out = xmalloc(3 * n + strlen(query) + 8);
	char *o = out + sprintf(out, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			o += sprintf(o, "%%%02X", (unsigned char)*p);
		else
			*o++ = *p;
	}
	sprintf(o, "?%s", query);
	return out;
}

static int store_connect(struct store *s, int create, struct err *e)
{
	int readonly = 0, memory = !strcmp(s->path, ":memory:");
	if (!memory) {
		struct stat st;
		int exists = stat(s->path, &st) == 0;
		if (!exists && errno != ENOENT)
			return err_sys(e, "cannot open history database '%s'", s->path);
		if (exists && S_ISDIR(st.st_mode))
			return err_set(e, "history database '%s' is a directory", s->path);
		char *dir = store_dirname(s->path);
		int rc = 0;
		if (!exists && !create) {
			rc = err_set(e, "no history database at '%s' (runs are stored by 'perfhunt run', "
				     "'perfhunt bench' or 'perfhunt history import')", s->path);
		} else if (!exists) {
			rc = store_mkdirs(dir, e);
			if (!rc && access(dir, W_OK) != 0)
				rc = err_set(e, "cannot create history database '%s': directory '%s' is "
					     "read-only", s->path, dir);
		} else if (access(s->path, W_OK) != 0 || access(dir, W_OK) != 0) {
			if (create)
				rc = err_set(e, "history database '%s' is read-only (%s is not writable)",
					     s->path, access(s->path, W_OK) ? "the file" : "its directory");
			readonly = 1;
		}
		free(dir);
		if (rc)
			return rc;
	}
	int flags = readonly ? SQLITE_OPEN_READONLY
			     : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	int rc = sqlite3_open_v2(s->path, &s->db, flags, NULL);
	if (rc != SQLITE_OK)
		return store_fail(s, rc, "opening", e);
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, s->busy_timeout_ms);
	if (readonly) {
		int v;
		if (store_user_version(s, &v, e) == 0)
			goto check;
		/* A WAL database in a directory we cannot write: SQLite cannot make
		 * its shared-memory file, so read the file as it is on disk (the
		 * last writer checkpointed it when it closed). */
		sqlite3_close(s->db);
		char *uri = store_uri(s->path, "mode=ro&immutable=1");
		rc = sqlite3_open_v2(uri, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
		free(uri);
		if (rc != SQLITE_OK)
			return store_fail(s, rc, "opening", e);
		sqlite3_extended_result_codes(s->db, 1);
check:
		if (store_user_version(s, &v, e))
			return -1;
		if (v != STORE_SCHEMA_VERSION)
			return err_set(e, "history database '%s' has schema version %d, this perfhunt "
				       "reads version %d (open it once with write access to upgrade)",
				       s->path, v, STORE_SCHEMA_VERSION);
		return 0;
	}
	if (!memory) {
		sqlite3_stmt *st = NULL;
		if (store_prepare(s, "PRAGMA journal_mode = WAL", &st, e))
			return -1;
		rc = sqlite3_step(st);
		const unsigned char *mode = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
		int wal = mode && !strcmp((const char *)mode, "wal");
		sqlite3_finalize(st);
		if (rc != SQLITE_ROW)
			return store_fail(s, rc, "switching to WAL mode", e);
		if (!wal)
			return err_set(e, "history database '%s': cannot switch to WAL mode", s->path);
	}
	if (store_exec(s, "PRAGMA foreign_keys = ON", "opening", e))
		return -1;
	return store_migrate(s, e);
}

static int store_open_mode(struct store **out, const char *path_or_null, int create, struct err *e)
{
	*out = NULL;
	char path[PATH_MAX];
	if (store_default_path(path_or_null, path, sizeof(path), e))
		return -1;
	struct store *s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;
	if (store_connect(s, create, e)) {
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
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

void store_set_busy_timeout_ms(struct store *s, int timeout_ms)
{
	s->busy_timeout_ms = timeout_ms;
	sqlite3_busy_timeout(s->db, timeout_ms);
}

/* ---- writing ---- */

/* Appends word to *buf quoted for a POSIX shell, only when it needs it. */
static void store_shell_quote(char **buf, size_t *len, size_t *cap, const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	size_t wl = strlen(word);
	int plain = wl > 0 && strspn(word, safe) == wl;
	xgrow((void **)buf, cap, *len + 4 * wl + 4, 1);
	char *o = *buf + *len;
	if (*len)
		*o++ = ' ';
	if (plain) {
		memcpy(o, word, wl);
		o += wl;
	} else {
		*o++ = '\'';
		for (const char *p = word; *p; p++) {
			if (*p == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *p;
			}
		}
		*o++ = '\'';
	}
	*o = '\0';
	*len = (size_t)(o - *buf);
}

char *store_command_text(json_t *cmd)
{
	if (json_is_string(cmd))
		return xstrdup(json_string_value(cmd));
	if (!json_is_array(cmd) || json_array_size(cmd) == 0)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	size_t i;
	json_t *w;
	json_array_foreach(cmd, i, w) {
		if (!json_is_string(w)) {
			free(buf);
			return NULL;
		}
		store_shell_quote(&buf, &len, &cap, json_string_value(w));
	}
	return buf;
}

/* Binds a JSON number (as an integer when as_int) or NULL when absent. */
static void store_bind_num(sqlite3_stmt *st, int idx, json_t *v, int as_int)
{
	if (json_is_integer(v))
		sqlite3_bind_int64(st, idx, json_integer_value(v));
	else if (json_is_real(v) && as_int)
		sqlite3_bind_int64(st, idx, (sqlite3_int64)llround(json_real_value(v)));
	else if (json_is_real(v))
		sqlite3_bind_double(st, idx, json_real_value(v));
	else
		sqlite3_bind_null(st, idx);
}

static void store_bind_str(sqlite3_stmt *st, int idx, json_t *v)
{
	if (json_is_string(v))
		sqlite3_bind_text(st, idx, json_string_value(v), -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, idx);
}

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

static int store_add_metric(struct store *s, sqlite3_stmt *st, int64_t id, const char *name,
			    double value, struct err *e)
{
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(st, 3, value);
	return store_step_done(s, st, "storing a metric", e);
}

/* Inserts the metrics, phases and tags rows of run id. */
static int store_add_details(struct store *s, int64_t id, json_t *rec, json_t *tags, struct err *e)
{
	sqlite3_stmt *met = NULL, *ph = NULL, *tg = NULL, *extra = NULL;
	int rc = -1;
	if (store_prepare(s, "INSERT OR REPLACE INTO metrics(run_id, name, value) VALUES (?, ?, ?)",
			  &met, e) ||
	    store_prepare(s, "INSERT INTO phases(run_id, name, lane, start_ms, end_ms) "
			  "VALUES (?, ?, ?, ?, ?)", &ph, e) ||
	    store_prepare(s, "INSERT OR IGNORE INTO tags(run_id, tag) VALUES (?, ?)", &tg, e) ||
	    store_prepare(s, "INSERT OR IGNORE INTO metrics(run_id, name, value) VALUES (?, ?, ?)",
			  &extra, e))
		goto out;
	/* Metric names and values are exactly what compare reads from a record
	 * (stats/metrics); other numeric summary fields are added after them. */
	struct metrics_set ms;
	if (metrics_from_records(&rec, 1, &ms, e))
		goto out;
	for (size_t m = 0; m < ms.n; m++) {
		if (ms.items[m].n == 0)
			continue;
		if (store_add_metric(s, met, id, ms.items[m].name, ms.items[m].values[0], e)) {
			metrics_set_release(&ms);
			goto out;
		}
	}
	metrics_set_release(&ms);
	const char *key;
	json_t *v;
	json_object_foreach(json_object_get(rec, "summary"), key, v) {
		if (json_is_number(v) && store_add_metric(s, extra, id, key, json_number_value(v), e))
			goto out;
	}
	size_t i;
	json_array_foreach(json_object_get(rec, "phases"), i, v) {
		json_t *name = json_object_get(v, "name"), *lane = json_object_get(v, "lane");
		if (!json_is_string(name))
			continue;
		sqlite3_bind_int64(ph, 1, id);
		store_bind_str(ph, 2, name);
		sqlite3_bind_text(ph, 3, json_is_string(lane) ? json_string_value(lane) : "", -1,
				  SQLITE_TRANSIENT);
		store_bind_num(ph, 4, json_object_get(v, "start_ms"), 0);
		store_bind_num(ph, 5, json_object_get(v, "end_ms"), 0);
		if (store_step_done(s, ph, "storing a phase", e))
			goto out;
	}
	json_array_foreach(tags, i, v) {
		sqlite3_bind_int64(tg, 1, id);
		store_bind_str(tg, 2, v);
		if (store_step_done(s, tg, "storing a tag", e))
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(met);
	sqlite3_finalize(ph);
	sqlite3_finalize(tg);
	sqlite3_finalize(extra);
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
	char *command = store_command_text(json_object_get(rec, "command"));
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
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (!text) {
		err_set(e, "run record cannot be serialised");
		goto out;
	}
	if (store_prepare(s, "INSERT INTO runs(started_at, command, kind, exit_status, git_commit,"
			  " git_dirty, hostname, wall_s, user_s, sys_s, peak_rss_kb, peak_tree_rss_kb,"
			  " cgroup_peak_kb, minflt, majflt, bench_id, record_json) VALUES"
			  " (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
			  &st, e))
		goto out;
	store_bind_str(st, 1, started);
	sqlite3_bind_text(st, 2, command, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 3, json_is_string(kind) ? json_string_value(kind) : "run", -1,
			  SQLITE_TRANSIENT);
	json_t *status = json_object_get(exitv, "status");
	store_bind_num(st, 4, status ? status : json_object_get(exitv, "code"), 1);
	store_bind_str(st, 5, json_object_get(git, "commit"));
	json_t *dirty = json_object_get(git, "dirty");
	if (json_is_boolean(dirty))
		sqlite3_bind_int(st, 6, json_is_true(dirty));
	store_bind_str(st, 7, json_object_get(host, "hostname"));
	static const char *const real_cols[] = { "wall_s", "user_s", "sys_s" };
	static const char *const int_cols[] = { "peak_rss_kb", "peak_tree_rss_kb", "cgroup_peak_kb",
						"minflt", "majflt" };
	for (int c = 0; c < 3; c++)
		store_bind_num(st, 8 + c, json_object_get(sum, real_cols[c]), 0);
	for (int c = 0; c < 5; c++)
		store_bind_num(st, 11 + c, json_object_get(sum, int_cols[c]), 1);
	if (bench_id > 0)
		sqlite3_bind_int64(st, 16, bench_id);
	sqlite3_bind_text(st, 17, text, -1, SQLITE_TRANSIENT);
	if (store_step_done(s, st, "storing a run", e))
		goto out;
	int64_t id = sqlite3_last_insert_rowid(s->db);
	if (store_add_details(s, id, rec, tags, e))
		goto out;
	if (out_id)
		*out_id = id;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(text);
	free(command);
	json_decref(tags);
	return rc;
}

static int store_commit(struct store *s, int rc, struct err *e)
{
	if (rc == 0 && store_exec(s, "COMMIT", "committing", e) == 0)
		return 0;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

int store_add_run(struct store *s, json_t *run_record, const char *const *tags,
		  int64_t bench_id, int64_t *out_id, struct err *e)
{
	if (store_exec(s, "BEGIN IMMEDIATE", "storing a run", e))
		return -1;
	int rc = store_insert_run(s, run_record, tags, bench_id, NULL, out_id, e);
	return store_commit(s, rc, e);
}

int store_add_bench(struct store *s, json_t *bench, const char *const *tags,
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

	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (store_exec(s, "BEGIN IMMEDIATE", "storing a bench", e)) {
		free(text);
		return -1;
	}
	if (store_prepare(s, "INSERT INTO benches(started_at, summary) VALUES (?, ?)", &st, e))
		goto out;
	store_bind_str(st, 1, json_object_get(bench, "started_at"));
	sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
	if (store_step_done(s, st, "storing a bench", e))
		goto out;
	int64_t bench_id = sqlite3_last_insert_rowid(s->db);
	json_array_foreach(commands, i, c) {
		size_t j;
		json_t *run;
		json_array_foreach(json_object_get(c, "runs"), j, run) {
			if (store_insert_run(s, run, tags, bench_id, bench, NULL, e)) {
				err_wrap(e, "bench command %zu, run %zu", i + 1, j + 1);
				goto out;
			}
		}
	}
	if (out_bench_id)
		*out_bench_id = bench_id;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(text);
	return store_commit(s, rc, e);
}

/* ---- reading ---- */

static char *store_col_dup(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	return t ? xstrdup((const char *)t) : NULL;
}

int store_list(struct store *s, const struct store_filter *f, struct store_row **rows,
	       size_t *n, struct err *e)
{
	*rows = NULL;
	*n = 0;
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, "SELECT r.id, coalesce(r.bench_id, 0), r.started_at, r.command, r.kind,"
			  " r.git_commit, coalesce(r.git_dirty, 0), coalesce(r.exit_status, 0),"
			  " r.wall_s, coalesce(r.peak_rss_kb, -1),"
			  " coalesce((SELECT group_concat(tag, ',') FROM"
			  "  (SELECT tag FROM tags t WHERE t.run_id = r.id ORDER BY tag)), '')"
			  " FROM runs r"
			  " WHERE (?1 IS NULL OR instr(r.command, ?1) > 0)"
			  " AND (?2 IS NULL OR EXISTS (SELECT 1 FROM tags t"
			  "      WHERE t.run_id = r.id AND t.tag = ?2))"
			  " AND (?3 IS NULL OR substr(r.git_commit, 1, length(?3)) = ?3)"
			  " ORDER BY r.id DESC LIMIT ?4", &st, e))
		return -1;
	if (f && f->command)
		sqlite3_bind_text(st, 1, f->command, -1, SQLITE_STATIC);
	if (f && f->tag)
		sqlite3_bind_text(st, 2, f->tag, -1, SQLITE_STATIC);
	if (f && f->commit)
		sqlite3_bind_text(st, 3, f->commit, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, f && f->limit > 0 ? f->limit : -1);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		xgrow((void **)rows, &cap, *n + 1, sizeof(**rows));
		struct store_row *r = &(*rows)[(*n)++];
		r->id = sqlite3_column_int64(st, 0);
		r->bench_id = sqlite3_column_int64(st, 1);
		r->started_at = store_col_dup(st, 2);
		r->command = store_col_dup(st, 3);
		r->kind = store_col_dup(st, 4);
		r->git_commit = store_col_dup(st, 5);
		r->git_dirty = sqlite3_column_int(st, 6);
		r->exit_status = sqlite3_column_int(st, 7);
		r->wall_s = sqlite3_column_type(st, 8) == SQLITE_NULL ? NAN
								    : sqlite3_column_double(st, 8);
		r->peak_rss_kb = sqlite3_column_int64(st, 9);
		r->tags = store_col_dup(st, 10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return store_fail(s, rc, "listing runs", e);
	}
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

/* Loads the records of the runs selected by where (one parameter: text when
 * text_arg is non-NULL, else int_arg), oldest first. */
static int store_fetch(struct store *s, const char *where, const char *text_arg, int64_t int_arg,
		       json_t ***records, size_t *n, struct err *e)
{
	char sql[512];
	snprintf(sql, sizeof(sql), "SELECT id, bench_id, record_json FROM runs WHERE %s ORDER BY id",
		 where);
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, sql, &st, e))
		return -1;
	if (text_arg)
		sqlite3_bind_text(st, 1, text_arg, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(st, 1, int_arg);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *text = (const char *)sqlite3_column_text(st, 2);
		json_error_t jerr;
		json_t *rec = text ? json_loads(text, 0, &jerr) : NULL;
		if (!json_is_object(rec)) {
			json_decref(rec);
			sqlite3_finalize(st);
			store_records_free(*records, *n);
			*records = NULL;
			*n = 0;
			return err_set(e, "history database '%s': run %lld has an unreadable record",
				       s->path, (long long)id);
		}
		/* Where the record came from, for labels (not stored). */
		json_object_set_new(rec, "history_id", json_integer(id));
		if (sqlite3_column_type(st, 1) != SQLITE_NULL)
			json_object_set_new(rec, "history_bench_id",
					    json_integer(sqlite3_column_int64(st, 1)));
		xgrow((void **)records, &cap, *n + 1, sizeof(**records));
		(*records)[(*n)++] = rec;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_records_free(*records, *n);
		*records = NULL;
		*n = 0;
		return store_fail(s, rc, "reading runs", e);
	}
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
	if (store_fetch(s, "id = ?1", NULL, id, &recs, &n, e))
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
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, "SELECT max(id) AS m, bench_id FROM runs"
			  " GROUP BY coalesce(bench_id, -id) ORDER BY m DESC LIMIT 1 OFFSET ?1",
			  &st, e))
		return -1;
	sqlite3_bind_int64(st, 1, back);
	int rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		if (rc == SQLITE_DONE)
			return 0;
		return store_fail(s, rc, "resolving @last", e);
	}
	int in_bench = sqlite3_column_type(st, 1) != SQLITE_NULL;
	int64_t id = sqlite3_column_int64(st, in_bench ? 1 : 0);
	sqlite3_finalize(st);
	return store_fetch(s, in_bench ? "bench_id = ?1" : "id = ?1", NULL, id, records, n, e);
}

/* Resolves @commit:PREFIX, refusing a prefix shared by several commits. */
static int store_resolve_commit(struct store *s, const char *prefix, json_t ***records,
				size_t *n, struct err *e)
{
	if (!*prefix || strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return err_set(e, "'@commit:%s': expected a hexadecimal commit prefix", prefix);
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, "SELECT DISTINCT git_commit FROM runs"
			  " WHERE substr(git_commit, 1, length(?1)) = lower(?1) LIMIT 3", &st, e))
		return -1;
	sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
	char found[2][48] = { "", "" };
	int count = 0, rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (count < 2)
			snprintf(found[count], sizeof(found[count]), "%s",
				 (const char *)sqlite3_column_text(st, 0));
		count++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_fail(s, rc, "resolving a commit", e);
	if (count > 1)
		return err_set(e, "commit prefix '%s' is ambiguous (%.12s, %.12s%s)", prefix,
			       found[0], found[1], count > 2 ? ", ..." : "");
	if (count == 0)
		return 0;
	return store_fetch(s, "git_commit = ?1", found[0], 0, records, n, e);
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
		rc = store_fetch(s, "id = ?1", NULL, v, records, n, e);
	} else if (!strcmp(r, "last")) {
		rc = store_resolve_last(s, 0, records, n, e);
	} else if (!strncmp(r, "last~", 5)) {
		if (parse_i64(r + 5, 0, INT64_MAX, &v, "@last~N", e))
			return -1;
		rc = store_resolve_last(s, v, records, n, e);
	} else if (!strncmp(r, "tag:", 4) && r[4]) {
		rc = store_fetch(s, "id IN (SELECT run_id FROM tags WHERE tag = ?1)", r + 4, 0,
				 records, n, e);
	} else if (!strncmp(r, "bench:", 6)) {
		if (parse_i64(r + 6, 1, INT64_MAX, &v, "@bench:ID", e))
			return -1;
		rc = store_fetch(s, "bench_id = ?1", NULL, v, records, n, e);
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
	sqlite3_stmt *st = NULL;
	buf[0] = '\0';
	if (sqlite3_prepare_v2(s->db, "SELECT DISTINCT name FROM metrics ORDER BY name LIMIT 40",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	size_t used = 0;
	while (sqlite3_step(st) == SQLITE_ROW && used + 8 < len) {
		int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
				 (const char *)sqlite3_column_text(st, 0));
		used = w > 0 && used + (size_t)w < len ? used + (size_t)w : len - 1;
	}
	sqlite3_finalize(st);
}

int store_trend(struct store *s, const char *metric, const char *command,
		struct store_trend_point **points, size_t *n, struct err *e)
{
	*points = NULL;
	*n = 0;
	sqlite3_stmt *st = NULL;
	if (store_prepare(s, "SELECT coalesce(r.git_commit, ''), coalesce(r.git_dirty, 0), m.value"
			  " FROM metrics m JOIN runs r ON r.id = m.run_id"
			  " WHERE m.name = ?1 AND (?2 IS NULL OR instr(r.command, ?2) > 0)"
			  " ORDER BY r.id", &st, e))
		return -1;
	sqlite3_bind_text(st, 1, metric, -1, SQLITE_STATIC);
	if (command)
		sqlite3_bind_text(st, 2, command, -1, SQLITE_STATIC);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *commit = (const char *)sqlite3_column_text(st, 0);
		int dirty = sqlite3_column_int(st, 1);
		size_t i = 0;
		while (i < *n && ((*points)[i].dirty != dirty || strcmp((*points)[i].commit, commit)))
			i++;
		if (i == *n) {
			xgrow((void **)points, &cap, *n + 1, sizeof(**points));
			(*points)[i] = (struct store_trend_point){ .commit = xstrdup(commit),
								   .dirty = dirty };
			(*n)++;
		}
		struct store_trend_point *p = &(*points)[i];
		if ((p->n & (p->n - 1)) == 0) /* capacity doubles at powers of two */
			p->values = xrealloc(p->values, (p->n ? 2 * p->n : 1) * sizeof(double));
		p->values[p->n++] = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_trend_free(*points, *n);
		*points = NULL;
		*n = 0;
		return store_fail(s, rc, "reading a trend", e);
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
