/* store_sqlite: the history in an SQLite file (the default backend).
 *
 * WAL mode lets readers go on while one writer holds BEGIN IMMEDIATE; a
 * writer waits on the busy timeout instead of failing half-way. SQLite binds
 * the shared queries' $1..$N by name, and gets strpos() and string_agg(), so
 * store.c writes each query once in the spelling PostgreSQL also reads.
 * A run's connection closes without SQLite's checkpoint (its fsyncs are most
 * of a short run's cost): a detached child folds the WAL into the file a few
 * milliseconds later, holding a shared flock on the file meanwhile so that a
 * synchronous close (every history command) can wait for it. Runs in quick
 * succession share a fold: one that finds a fold still pending (not yet
 * begun) leaves its frames to it.
 */
#include "store/store_db.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dynlib.h"
#include "util/fsafe.h"
#include "util/xalloc.h"

#define DB(s) ((sqlite3 *)(s)->conn)

/* libsqlite3, loaded when a history is opened (see util/dynlib.h): a run
 * with --no-save does not pay for mapping and relocating it at start. */
#define SQ3_FNS(X) X(aggregate_context) X(bind_double) X(bind_int64) X(bind_null) X(bind_parameter_index) X(bind_text) X(busy_timeout) X(close) X(column_count) X(column_double) X(column_int64) X(column_text) X(column_type) X(create_function) X(db_config) X(errcode) X(errmsg) X(errstr) X(exec) X(extended_result_codes) X(finalize) X(open_v2) X(prepare_v2) X(result_int64) X(result_null) X(result_text) X(step) X(value_text)
static struct {
#define SQ3_PTR(n) __typeof__(sqlite3_##n) *n;
	SQ3_FNS(SQ3_PTR)
#undef SQ3_PTR
} sq3;

static int sq3_load(struct err *e)
{
#define SQ3_NAME(n) "sqlite3_" #n,
	static const char *const names[] = { SQ3_FNS(SQ3_NAME) };
#undef SQ3_NAME
	static int loaded;
	if (loaded)
		return 0;
	_Static_assert(sizeof(sq3) == sizeof(names) / sizeof(names[0]) * sizeof(void (*)(void)), "one pointer per name");
	if (dynlib_load("libsqlite3.so.0", names, (void **)&sq3, sizeof(names) / sizeof(names[0]), e) < 0)
		return -1;
	loaded = 1;
	return 0;
}

/* Turns an SQLite failure into one line that names the database and the cause. */
static int sq_fail(const struct store *s, int rc, const char *doing, struct err *e)
{
	const char *msg = s->conn ? sq3.errmsg(DB(s)) : sq3.errstr(rc);
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

static int sq_exec(struct store *s, const char *sql, const char *doing, struct err *e)
{
	int rc = sq3.exec(DB(s), sql, NULL, NULL, NULL);
	return rc == SQLITE_OK ? 0 : sq_fail(s, rc, doing, e);
}

static int sq_query(struct store *s, const char *sql, const struct store_val *p, int np,
		    struct store_res *out, const char *doing, struct err *e)
{
	sqlite3_stmt *st = NULL;
	int rc = sq3.prepare_v2(DB(s), sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, doing, e);
	for (int k = 0; k < np; k++) {
		char name[16];
		snprintf(name, sizeof(name), "$%d", k + 1);
		int idx = sq3.bind_parameter_index(st, name);
		if (idx == 0)
			continue;
		if (p[k].is_null)
			sq3.bind_null(st, idx);
		else if (p[k].type == STORE_INT)
			sq3.bind_int64(st, idx, p[k].i);
		else if (p[k].type == STORE_REAL)
			sq3.bind_double(st, idx, p[k].d);
		else
			sq3.bind_text(st, idx, p[k].s, -1, SQLITE_STATIC);
	}
	while ((rc = sq3.step(st)) == SQLITE_ROW) {
		if (!out)
			continue;
		size_t cols = (size_t)sq3.column_count(st);
		struct store_cell *c = store_res_add_row(out, cols);
		for (size_t j = 0; j < cols; j++) {
			int t = sq3.column_type(st, (int)j);
			c[j].is_null = t == SQLITE_NULL;
			if (t == SQLITE_INTEGER) {
				c[j].type = STORE_INT;
				c[j].i = sq3.column_int64(st, (int)j);
				c[j].s = xstrdup((const char *)sq3.column_text(st, (int)j));
			} else if (t == SQLITE_FLOAT) {
				c[j].type = STORE_REAL;
				c[j].d = sq3.column_double(st, (int)j);
			} else if (t != SQLITE_NULL) {
				c[j].type = STORE_TEXT;
				const unsigned char *txt = sq3.column_text(st, (int)j);
				c[j].s = xstrdup(txt ? (const char *)txt : "");
			}
		}
	}
	sq3.finalize(st);
	if (rc != SQLITE_DONE) {
		if (out)
			store_res_free(out);
		return sq_fail(s, rc, doing, e);
	}
	return 0;
}

static int sq_begin(struct store *s, const char *doing, struct err *e)
{
	return sq_exec(s, "BEGIN IMMEDIATE", doing, e);
}

static int sq_migration_begin(struct store *s, struct err *e)
{
	return sq_exec(s, "BEGIN IMMEDIATE", "creating the schema", e);
}

static void sq_rollback(struct store *s)
{
	sq3.exec(DB(s), "ROLLBACK", NULL, NULL, NULL);
}

static void sq_set_timeout(struct store *s, int timeout_ms)
{
	sq3.busy_timeout(DB(s), timeout_ms);
}

static int sq_version(struct store *s, int *out, struct err *e)
{
	struct store_res r = { 0 };
	if (sq_query(s, "PRAGMA user_version", NULL, 0, &r, "reading the schema version", e))
		return -1;
	*out = r.rows ? (int)store_res_i64(&r, 0, 0) : 0;
	store_res_free(&r);
	return 0;
}

static int sq_version_set(struct store *s, int v, struct err *e)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return sq_exec(s, sql, "setting the schema version", e);
}

/* strpos(haystack, needle): 1-based position or 0, as PostgreSQL's. */
static void sq_strpos(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	const char *h = (const char *)sq3.value_text(argv[0]);
	const char *n = (const char *)sq3.value_text(argv[1]);
	if (!h || !n) {
		sq3.result_null(ctx);
		return;
	}
	const char *at = strstr(h, n);
	sq3.result_int64(ctx, at ? (sqlite3_int64)(at - h) + 1 : 0);
}

struct sq_agg {
	char *buf;
	size_t len, cap;
	int any;
};

/* string_agg(value, separator): values joined in input order, as PostgreSQL's. */
static void sq_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	struct sq_agg *a = sq3.aggregate_context(ctx, sizeof(*a));
	const char *v = (const char *)sq3.value_text(argv[0]);
	const char *sep = (const char *)sq3.value_text(argv[1]);
	if (!a || !v)
		return;
	size_t vl = strlen(v), sl = a->any && sep ? strlen(sep) : 0;
	xgrow((void **)&a->buf, &a->cap, a->len + vl + sl + 1, 1);
	memcpy(a->buf + a->len, sep ? sep : "", sl);
	memcpy(a->buf + a->len + sl, v, vl + 1);
	a->len += sl + vl;
	a->any = 1;
}

static void sq_agg_final(sqlite3_context *ctx)
{
	struct sq_agg *a = sq3.aggregate_context(ctx, 0);
	if (!a || !a->any) {
		sq3.result_null(ctx);
		return;
	}
	sq3.result_text(ctx, a->buf, (int)a->len, free);
}

/* Creates dir and any missing parents, each with mode 0700. */
static int sq_mkdirs(char *dir, struct err *e)
{
	struct stat st;
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : err_set(e, "'%s' is not a directory", dir);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		int rc = sq_mkdirs(dir, e);
		*slash = '/';
		if (rc)
			return rc;
	}
	if (mkdir(dir, 0700) != 0) {
		if (errno != EEXIST)
			return err_sys(e, "cannot create directory '%s' for the history database", dir);
		return 0;
	}
	fsafe_sudo_adopt(dir);
	return 0;
}

static char *sq_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* Percent-escapes a path for an SQLite file: URI. */
static char *sq_uri(const char *path, const char *query)
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

/* Connections open in this process: a file descriptor of the database may
 * be opened and closed beside SQLite's (for the fold's flock) only when none
 * is, since closing any descriptor of a file drops the process's fcntl locks
 * on it, SQLite's included. */
static _Atomic int sq_open_count;

static int sq_open(struct store *s, const char *name, int flags, struct err *e)
{
	sqlite3 *db = NULL;
	int rc = sq3.open_v2(name, &db, flags, NULL);
	s->conn = db;
	if (db)
		sq_open_count++;
	if (rc != SQLITE_OK)
		return sq_fail(s, rc, "opening", e);
	sq3.extended_result_codes(db, 1);
	sq3.busy_timeout(db, s->busy_timeout_ms);
	sq3.create_function(db, "strpos", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				sq_strpos, NULL, NULL);
	sq3.create_function(db, "string_agg", 2, SQLITE_UTF8, NULL, NULL, sq_agg_step,
				sq_agg_final);
	return 0;
}

static void sq_close_only(struct store *s)
{
	sq3.close(DB(s));
	s->conn = NULL;
	sq_open_count--;
}

/* Closes (the last connection checkpoints), then waits for detached folds:
 * once a history command returns, the file alone holds every run. */
static void sq_close(struct store *s)
{
	sq_close_only(s);
	if (!s->close_here)
		store_sqlite_wait_folds(s->target, s->busy_timeout_ms);
}

void store_sqlite_wait_folds(const char *path, int timeout_ms)
{
	if (sq_open_count > 0)
		return;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	for (int waited_ms = 0; flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK &&
				waited_ms < timeout_ms; waited_ms++) {
		struct timespec ts = { 0, 1000000L };
		nanosleep(&ts, NULL);
	}
	close(fd);
}

/* A fold is pending from its fork until it begins: its child holds a write
 * lock on this byte of history.db (an open file description lock, far past
 * SQLite's lock bytes at 1 GiB), taken by the run that forked it. It waits
 * SQ_FOLD_PENDING_MS first, so that runs committing meanwhile need no fold
 * of their own: a burst of runs pays one fold, not one each. */
#define SQ_FOLD_PENDING_BYTE ((off_t)1 << 62)
#define SQ_FOLD_PENDING_MS 10

/* Takes the pending-fold lock on fd: true unless a pending fold holds it
 * (where the kernel or the file system has no such locks, every run
 * folds, as before). */
static bool sq_fold_claim(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = SQ_FOLD_PENDING_BYTE,
			    .l_len = 1 };
	return fcntl(fd, F_OFD_SETLK, &fl) == 0 || (errno != EAGAIN && errno != EACCES);
}

/* The fold begins: frames committed from now on need a fold of their own. */
static void sq_fold_begin(int fd)
{
	struct flock fl = { .l_type = F_UNLCK, .l_whence = SEEK_SET, .l_start = SQ_FOLD_PENDING_BYTE,
			    .l_len = 1 };
	fcntl(fd, F_OFD_SETLK, &fl);
}

/* PRAGMA wal_checkpoint(PASSIVE) until the frames the WAL held at the first
 * try are in the file (1: not after timeout_ms) — not every frame: runs may
 * go on appending, and their own folds follow. PASSIVE takes no writer lock:
 * a run committing meanwhile never waits on the fold's fsyncs (a reader or
 * another fold holds it back for a moment, hence the retries). */
static int sq_fold(sqlite3 *db, int timeout_ms)
{
	long long want = -1;
	for (int waited_ms = 0;; waited_ms += 5) {
		sqlite3_stmt *st = NULL;
		long long log = -1, done = -1;
		if (sq3.prepare_v2(db, "PRAGMA wal_checkpoint(PASSIVE)", -1, &st, NULL) == SQLITE_OK &&
		    sq3.step(st) == SQLITE_ROW && sq3.column_int64(st, 0) == 0) {
			log = sq3.column_int64(st, 1);
			done = sq3.column_int64(st, 2);
		}
		sq3.finalize(st);
		if (want < 0 && log >= 0)
			want = log;
		/* a WAL shorter than at first was restarted: all of it was in the file */
		if (want >= 0 && log >= 0 && (done >= want || log < want))
			return 0;
		if (waited_ms >= timeout_ms)
			return 1;
		struct timespec ts = { 0, 5 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

/* The detached child: no descriptor of perfhunt's but the lock's, no
 * terminal, no signal blocked. It waits while pending, then ends the
 * pending state: every commit before that is in the WAL it folds (a run
 * that commits later finds no pending fold and forks its own). A fresh
 * connection (none was open at the fork) folds the WAL into the file. Then
 * it restarts the WAL itself: one transaction that changes nothing
 * (user_version set to itself) writes and syncs the new WAL header here, so
 * the next run's commit only appends to it, without an fsync. Skipped when
 * another perfhunt is writing (it restarts the WAL then). The connection
 * closes without a checkpoint, leaving that one-page WAL beside the file.
 * Never returns. */
static void __attribute__((noreturn)) sq_fold_child(const char *target, int lock_fd, int timeout_ms)
{
	setsid();
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int lk = fcntl(lock_fd, F_DUPFD_CLOEXEC, 3);
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		dup2(null, fd);
	for (int fd = 3; fd < lk; fd++)
		close(fd);
	if (lk >= 0)
		close_range((unsigned)lk + 1, ~0U, 0);
	prctl(PR_SET_NAME, "perfhunt-fold");
	struct timespec pending = { 0, SQ_FOLD_PENDING_MS * 1000000L };
	nanosleep(&pending, NULL);
	sq_fold_begin(lk);
	/* A history deleted or replaced meanwhile is not this fold's: opening
	 * the new file's WAL beside the old one's pages would mix two databases. */
	struct stat was, now;
	if (fstat(lk, &was) != 0 || was.st_nlink == 0 || stat(target, &now) != 0 ||
	    now.st_dev != was.st_dev || now.st_ino != was.st_ino)
		_exit(0);
	sqlite3 *db = NULL;
	if (sq3.open_v2(target, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		/* the restarted WAL cut to its one page (no fsync), not left at its
		 * largest write's length */
		sq3.exec(db, "PRAGMA synchronous = NORMAL; PRAGMA journal_size_limit = 8192", NULL, NULL, NULL);
		if (sq_fold(db, timeout_ms) == 0 && sq3.exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) == SQLITE_OK) {
			sqlite3_stmt *st = NULL;
			char sql[64];
			if (sq3.prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
			    sq3.step(st) == SQLITE_ROW) {
				snprintf(sql, sizeof(sql), "PRAGMA user_version = %lld",
					 (long long)sq3.column_int64(st, 0));
				sq3.finalize(st);
				st = NULL;
				sq3.exec(db, sql, NULL, NULL, NULL);
			}
			sq3.finalize(st);
			sq3.exec(db, "COMMIT", NULL, NULL, NULL);
		}
		sq3.db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	}
	sq3.close(db);
	_exit(0);
}

/* Commit is done (visible to readers, safe from a crash of perfhunt): close
 * without the checkpoint and fork the child that does it, unless a pending
 * fold will take these frames too. Where no child can be made, the WAL
 * stays; the next fold or close (any perfhunt's) folds it. */
static void sq_close_detached(struct store *s)
{
	if (s->close_here) {
		sq_close(s);
		return;
	}
	sq3.db_config(DB(s), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sq_close_only(s);
	if (sq_open_count > 0)
		return; /* another connection folds at its close */
	/* read-write: the pending-fold lock is a write lock */
	int fd = open(s->target, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (!sq_fold_claim(fd)) {
		close(fd);
		return;
	}
	/* shared: folds may overlap; a waiter holds it exclusively for an instant */
	for (int tries = 0; flock(fd, LOCK_SH | LOCK_NB) != 0 && tries < 100; tries++) {
		struct timespec ts = { 0, 100000L };
		nanosleep(&ts, NULL);
	}
	pid_t pid = fork();
	if (pid == 0)
		sq_fold_child(s->target, fd, s->busy_timeout_ms);
	close(fd);
}

static int sq_connect(struct store *s, int create, struct err *e)
{
	if (sq3_load(e) < 0)
		return -1;
	int readonly = 0, memory = !strcmp(s->target, ":memory:"), created = 0;
	if (!memory) {
		struct stat st;
		int exists = stat(s->target, &st) == 0;
		if (!exists && errno != ENOENT)
			return err_sys(e, "cannot open history database '%s'", s->path);
		if (exists && S_ISDIR(st.st_mode))
			return err_set(e, "history database '%s' is a directory", s->path);
		char *dir = sq_dirname(s->target);
		int rc = 0;
		struct stat lst;
		if (!exists && !create && lstat(s->target, &lst) == 0) {
			/* a link to nowhere: planted, or of someone who moved the file */
			rc = store_check_location(s->target, e);
			if (!rc)
				rc = err_set(e, "no history database at '%s' (a symbolic link to nothing)",
					     s->path);
		} else if (!exists && !create) {
			rc = err_set(e, "no history database at '%s' (runs are stored by 'perfhunt run', "
				     "'perfhunt bench' or 'perfhunt history import')", s->path);
		} else if (!exists) {
			created = 1;
			/* Checked before anything is made, and again once the
			 * directories exist: one may have been made by someone else
			 * meanwhile (mkdir's EEXIST is accepted). */
			rc = store_check_location(s->target, e);
			if (!rc)
				rc = sq_mkdirs(dir, e);
			if (!rc && access(dir, W_OK) != 0)
				rc = err_set(e, "cannot create history database '%s': directory '%s' is "
					     "read-only", s->path, dir);
			if (!rc)
				rc = store_check_location(s->target, e);
		} else if (access(s->target, W_OK) != 0 || access(dir, W_OK) != 0) {
			if (create)
				rc = err_set(e, "history database '%s' is read-only (%s is not writable)",
					     s->path, access(s->target, W_OK) ? "the file" : "its directory");
			readonly = 1; /* SQLite writes nothing beside it then */
		} else {
			rc = store_check_location(s->target, e);
		}
		free(dir);
		if (rc)
			return rc;
	}
	s->close_here = memory || readonly || created;
	int flags = readonly ? SQLITE_OPEN_READONLY
			     : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sq_open(s, s->target, flags, e))
		return -1;
	if (readonly) {
		int v;
		if (sq_version(s, &v, e) != 0) {
			/* A WAL database in a directory we cannot write: SQLite cannot make
			 * its shared-memory file, so read the file as it is on disk (the
			 * last writer checkpointed it when it closed). */
			sq_close_only(s);
			char *uri = sq_uri(s->target, "mode=ro&immutable=1");
			int rc = sq_open(s, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, e);
			free(uri);
			if (rc || sq_version(s, &v, e))
				return -1;
		}
		if (v != store_schema_version())
			return err_set(e, "history database '%s' has schema version %d, this perfhunt "
				       "reads version %d (open it once with write access to upgrade)",
				       s->path, v, store_schema_version());
		return 0;
	}
	if (!memory) {
		/* Two processes meeting a new database both switch it to WAL; SQLite
		 * answers the loser with BUSY (its busy handler is not used for that
		 * lock) or a transient I/O error while the other creates the WAL file.
		 * Retry within the busy timeout: WAL is persistent, one switch wins. */
		int wal = 0, rc;
		for (int waited_ms = 0;; waited_ms += 20) {
			struct store_res r = { 0 };
			rc = sq_query(s, "PRAGMA journal_mode = WAL", NULL, 0, &r, "switching to WAL mode", e);
			const char *mode = rc == 0 && r.rows ? store_res_text(&r, 0, 0) : NULL;
			wal = mode && !strcmp(mode, "wal");
			store_res_free(&r);
			int code = sq3.errcode(DB(s)) & 0xff; /* primary result code */
			bool transient = code == SQLITE_BUSY || code == SQLITE_LOCKED || code == SQLITE_IOERR;
			if (wal || rc == 0 || !transient || waited_ms >= s->busy_timeout_ms)
				break;
			struct timespec ts = { 0, 20 * 1000000L };
			nanosleep(&ts, NULL);
		}
		if (!wal)
			return rc ? -1 /* e says why */
				  : err_set(e, "history database '%s': cannot switch to WAL mode", s->path);
		if (created) { /* a new history in a sudo user's .perfhunt/ is theirs, with its WAL */
			static const char *const sfx[] = { "", "-wal", "-shm" };
			for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++) {
				char *f = xasprintf("%s%s", s->target, sfx[i]);
				fsafe_sudo_adopt(f);
				free(f);
			}
		}
	}
	if (sq_exec(s, "PRAGMA foreign_keys = ON", "opening", e) ||
	    sq_exec(s, "PRAGMA temp_store = MEMORY", "opening", e))
		return -1;
	/* In WAL mode NORMAL syncs at checkpoints, not at every commit: a run's
	 * one transaction costs no fsync, and a crash of perfhunt (not of the
	 * machine) loses nothing committed. */
	if (!memory && sq_exec(s, "PRAGMA synchronous = NORMAL", "opening", e))
		return -1;
	return store_migrate(s, e);
}

const struct store_backend store_sqlite_backend = {
	.name = "SQLite",
	.connect = sq_connect,
	.close = sq_close,
	.close_detached = sq_close_detached,
	.query = sq_query,
	.exec = sq_exec,
	.begin = sq_begin,
	.rollback = sq_rollback,
	.set_timeout = sq_set_timeout,
	.version = sq_version,
	.migration_begin = sq_migration_begin,
	.version_set = sq_version_set,
	.pg = 0,
};
