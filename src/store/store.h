/* store: the run history, an SQLite database (or a team's PostgreSQL
 * database, when $PERFHUNT_DB is a postgresql:// URL) a user can also query by hand.
 *
 * Every run and bench record is kept whole (record_json) and also spread over
 * plain tables (runs, metrics, phases, tags, benches) so `sqlite3` answers
 * questions without perfhunt. WAL mode, a busy timeout and one transaction per
 * write let two benches record at once without losing or corrupting runs;
 * the schema carries a version and is brought forward by ordered migrations.
 */
#ifndef PERFHUNT_STORE_H
#define PERFHUNT_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "stats/bench_record.h"
#include "util/err.h"

struct store;

/* Default wait for a lock held by another writer before giving up. */
#define STORE_BUSY_TIMEOUT_MS 10000

/* Opens (creating it and its directory, mode 0700, when missing) the history
 * database: path_or_null, else $PERFHUNT_DB, else .perfhunt/history.db at the
 * git top level found by walking up from the current directory, else the
 * per-user one, $XDG_DATA_HOME/perfhunt/history.db (~/.local/share/perfhunt/).
 * ":memory:" gives a private in-memory database; a postgresql:// (or
 * postgres://) URL a PostgreSQL database, whose tables are created on first
 * use (the database itself must exist). An SQLite file perfhunt would write
 * must pass store_check_location. Caller owns *out; store_close releases it. */
int store_open(struct store **out, const char *path_or_null, struct err *e);
/* Like store_open, but never creates anything: a missing database is an
 * error, and a database the caller cannot write is opened for reading. */
int store_open_existing(struct store **out, const char *path_or_null, struct err *e);
void store_close(struct store *s);
/* store_close after a run or bench was added, for a process about to exit:
 * SQLite's checkpoint (the WAL folded into the file, with its fsyncs) runs
 * in a detached process started here instead of before the caller's exit;
 * the committed write is already visible to every reader. A database this
 * connection created is folded here, so the file alone holds its schema. */
void store_close_detached(struct store *s);
/* Returns once the SQLite file at path_or_null holds every committed run (no
 * detached fold still running; waits at most the busy timeout): after it, a
 * copy of the file alone is complete. Nothing to wait for with PostgreSQL. */
void store_settle(const char *path_or_null);
/* The path or URL in use, any password replaced by *** (borrowed). */
const char *store_path(const struct store *s);
/* "SQLite" or "PostgreSQL". */
const char *store_backend_name(const struct store *s);
/* How long a write waits for another writer's lock (tests use a short one). */
void store_set_busy_timeout_ms(struct store *s, int timeout_ms);
/* True when path names a PostgreSQL database (a postgresql:// URL), not a file. */
int store_is_url(const char *path);
/* Fills buf with the path store_open would use for path_or_null. */
int store_default_path(const char *path_or_null, char *buf, size_t n, struct err *e);

/* Where store_locate found the database. */
enum store_origin {
	STORE_ORIGIN_ARG,  /* the caller's path_or_null */
	STORE_ORIGIN_ENV,  /* $PERFHUNT_DB */
	STORE_ORIGIN_REPO, /* .perfhunt/history.db at the git work tree's top level */
	STORE_ORIGIN_USER, /* per-user: $XDG_DATA_HOME/perfhunt/ (~/.local/share/perfhunt/) */
};
/* store_default_path, also saying where the choice came from (origin may be NULL). */
int store_locate(const char *path_or_null, char *buf, size_t n, enum store_origin *origin,
		 struct err *e);
/* The origin in words, for `history --path` ("from $PERFHUNT_DB", ...). */
const char *store_origin_text(enum store_origin o);
/* 0 when perfhunt may write an SQLite history at path (which need not exist):
 * it and every directory above it belong to us or root (or, under sudo, the
 * user who ran sudo), none is writable by other users except a sticky
 * directory above the database's own — as ssh's StrictModes and git's
 * safe.directory ($PERFHUNT_SAFE_DIRECTORY vouches for a tree, see fsafe.h);
 * a URL and :memory: always pass. Otherwise -1, e saying why and how to
 * override. */
int store_check_location(const char *path, struct err *e);

/* Stores one perfhunt.run/1 record (borrowed, not modified) with the tags in
 * the record plus the NULL-terminated tags (may be NULL); bench_id is 0 for
 * none. *out_id (may be NULL) receives the new run's ID. One transaction. */
int store_add_run(struct store *s, json_t *run_record, const char *const *tags,
		  int64_t bench_id, int64_t *out_id, struct err *e);
/* Stores one perfhunt.bench/1 record and every run of it, read from src one at
 * a time (NULL: the runs in the record), in one transaction. */
int store_add_bench(struct store *s, json_t *bench_record, const struct bench_runs *src, const char *const *tags,
		    int64_t *out_bench_id, struct err *e);


struct store_filter {
	const char *command;   /* substring of the command text, or NULL */
	const char *tag;       /* exact tag, or NULL */
	const char *commit;    /* commit prefix, or NULL */
	int64_t limit;         /* at most this many rows; 0 = all */
};

/* One line of `history list`; strings owned by the array. */
struct store_row {
	int64_t id;
	int64_t bench_id;      /* 0 when not part of a bench */
	char *started_at;
	char *command;
	char *kind;
	char *git_commit;      /* NULL outside a repository */
	int git_dirty;
	int exit_status;
	double wall_s;
	int64_t peak_rss_kb;
	char *tags;            /* comma-separated, "" when none */
};

/* Runs matching f (may be NULL), newest (last stored) first. Caller frees
 * *rows with store_rows_free. */
int store_list(struct store *s, const struct store_filter *f,
	       struct store_row **rows, size_t *n, struct err *e);
void store_rows_free(struct store_row *rows, size_t n);

/* The stored record of run id; caller owns *out (json_decref). */
int store_get_run(struct store *s, int64_t id, json_t **out, struct err *e);

/* Resolves a history reference to its run records, oldest first:
 * "@last" (the newest run, or every run of the newest bench), "@last~N",
 * "@tag:NAME", "@bench:ID", "@commit:PREFIX", or a run ID ("42" or "@42").
 * Caller frees with store_records_free. No match is an error. */
int store_resolve(struct store *s, const char *ref, json_t ***records, size_t *n,
		  struct err *e);
void store_records_free(json_t **records, size_t n);
/* store_resolve on the default history ($PERFHUNT_DB, ...), opened for the call
 * and closed again; never creates a database. */
int store_resolve_default(const char *ref, json_t ***records, size_t *n, struct err *e);

/* One commit's values of a metric, for `history trend`. */
struct store_trend_point {
	char *commit;          /* "" for runs outside a repository */
	int dirty;
	double *values;        /* one per run, in storage order */
	size_t n;
};

/* Values of metric (a name in the metrics table) grouped by commit and dirty
 * flag, commits in the order they first appear; command filters by substring
 * (may be NULL). Caller frees with store_trend_free. */
int store_trend(struct store *s, const char *metric, const char *command,
		struct store_trend_point **points, size_t *n, struct err *e);
void store_trend_free(struct store_trend_point *points, size_t n);

/* Calls fn(record, arg) for every stored bench (a perfhunt.bench/1 record
 * with its runs, each under the command whose argv it ran) and every run
 * outside a bench (perfhunt.run/1), in the order they were stored: what
 * store_add_bench and store_add_run take back. Records are borrowed for the
 * call. A non-zero return of fn stops the export and is returned. */
int store_export(struct store *s, int (*fn)(json_t *record, void *arg), void *arg,
		 struct err *e);

#endif
