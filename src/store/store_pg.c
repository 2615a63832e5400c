/* store_pg: the history in a PostgreSQL database, shared by a team ($PERFHUNT_DB
 * = postgresql://...), through libpq.
 *
 * The tables and queries are store.c's, the same as SQLite's. Each write is
 * one transaction, so concurrent writers (a fleet of benches) never see half a
 * record; ids come from BIGSERIAL sequences. Migrations take an advisory lock,
 * so two perfhunts meeting an empty database create the schema once. The
 * schema version is the row of perfhunt_schema. Waiting for a lock is bounded
 * by lock_timeout (the busy timeout), connecting by connect_timeout (10 s,
 * unless the URL says otherwise). libpq's notices are dropped: libraries
 * never print.
 */
#include "store/store_db.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/dynlib.h"
#include "util/xalloc.h"

#define PG(s) ((PGconn *)(s)->conn)
/* Arbitrary key of the advisory lock that serialises migrations ("perf"). */
#define PG_MIGRATION_LOCK 0x70657266

/* The first line of libpq's message, without its "ERROR:  " prefix. */
/* libpq, loaded when a postgresql:// history is opened (see util/dynlib.h). */
static struct {
	PGconn *(*connectdbParams)(const char *const *keywords, const char *const *values, int expand_dbname);
	ConnStatusType (*status)(const PGconn *conn);
	char *(*errorMessage)(const PGconn *conn);
	PQnoticeProcessor (*setNoticeProcessor)(PGconn *conn, PQnoticeProcessor proc, void *arg);
	void (*finish)(PGconn *conn);
	PGresult *(*exec)(PGconn *conn, const char *query);
	PGresult *(*execParams)(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat);
	ExecStatusType (*resultStatus)(const PGresult *res);
	char *(*resultErrorField)(const PGresult *res, int fieldcode);
	int (*ntuples)(const PGresult *res);
	int (*nfields)(const PGresult *res);
	char *(*getvalue)(const PGresult *res, int tup_num, int field_num);
	int (*getisnull)(const PGresult *res, int tup_num, int field_num);
	void (*clear)(PGresult *res);
} pq;

static int pq_load(struct err *e)
{
	static const char *const names[] = {
		"PQconnectdbParams",
		"PQstatus",
		"PQerrorMessage",
		"PQsetNoticeProcessor",
		"PQfinish",
		"PQexec",
		"PQexecParams",
		"PQresultStatus",
		"PQresultErrorField",
		"PQntuples",
		"PQnfields",
		"PQgetvalue",
		"PQgetisnull",
		"PQclear",
	};
	static int loaded;
	if (loaded)
		return 0;
	if (dynlib_load("libpq.so.5", names, (void **)&pq, sizeof(names) / sizeof(names[0]), e) < 0)
		return -1;
	loaded = 1;
	return 0;
}

static void pg_message(const char *msg, char *buf, size_t n)
{
	if (!msg || !*msg)
		msg = "unknown error";
	if (!strncmp(msg, "ERROR:  ", 8))
		msg += 8;
	snprintf(buf, n, "%.*s", (int)strcspn(msg, "\n"), msg);
}

static int pg_fail(const struct store *s, PGresult *res, const char *doing, struct err *e)
{
	char msg[300];
	const char *state = res ? pq.resultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *primary = res ? pq.resultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	pg_message(primary ? primary : pq.errorMessage(PG(s)), msg, sizeof(msg));
	if (pq.status(PG(s)) != CONNECTION_OK)
		return err_set(e, "history database '%s': connection lost while %s (%s)", s->path,
			       doing, msg);
	if (state && !strcmp(state, "55P03"))
		return err_set(e, "history database '%s' is locked by another process "
			       "(gave up after %d ms while %s)", s->path, s->busy_timeout_ms, doing);
	if (state && !strcmp(state, "42501"))
		return err_set(e, "history database '%s' is read-only for this user (%s)", s->path, msg);
	if (state && !strcmp(state, "53100"))
		return err_set(e, "history database '%s': disk full while %s", s->path, doing);
	return err_set(e, "history database '%s': %s: %s", s->path, doing, msg);
}

static int pg_done(struct store *s, PGresult *res, struct store_res *out, const char *doing,
		   struct err *e)
{
	ExecStatusType st = pq.resultStatus(res);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		pg_fail(s, res, doing, e);
		pq.clear(res);
		return -1;
	}
	if (out && st == PGRES_TUPLES_OK) {
		int rows = pq.ntuples(res), cols = pq.nfields(res);
		for (int r = 0; r < rows; r++) {
			struct store_cell *c = store_res_add_row(out, (size_t)cols);
			for (int j = 0; j < cols; j++) {
				c[j].type = STORE_TEXT;
				c[j].is_null = pq.getisnull(res, r, j);
				if (!c[j].is_null)
					c[j].s = xstrdup(pq.getvalue(res, r, j));
			}
		}
	}
	pq.clear(res);
	return 0;
}

static int pg_query(struct store *s, const char *sql, const struct store_val *p, int np,
		    struct store_res *out, const char *doing, struct err *e)
{
	/* Typed parameters: "$1 IS NULL" must know its type even when NULL. */
	Oid *types = xcalloc((size_t)np + 1, sizeof(Oid));
	const char **vals = xcalloc((size_t)np + 1, sizeof(char *));
	char (*num)[32] = xcalloc((size_t)np + 1, sizeof(*num));
	for (int k = 0; k < np; k++) {
		types[k] = p[k].type == STORE_INT ? 20 /* int8 */ : p[k].type == STORE_REAL ? 701 /* float8 */ : 25 /* text */;
		if (p[k].is_null)
			continue;
		if (p[k].type == STORE_INT)
			snprintf(num[k], sizeof(num[k]), "%lld", (long long)p[k].i);
		else if (p[k].type == STORE_REAL)
			snprintf(num[k], sizeof(num[k]), "%.17g", p[k].d);
		vals[k] = p[k].type == STORE_TEXT ? p[k].s : num[k];
	}
	PGresult *res = pq.execParams(PG(s), sql, np, types, vals, NULL, NULL, 0);
	free(types);
	free(vals);
	free(num);
	return pg_done(s, res, out, doing, e);
}

static int pg_exec(struct store *s, const char *sql, const char *doing, struct err *e)
{
	return pg_done(s, pq.exec(PG(s), sql), NULL, doing, e);
}

static int pg_begin(struct store *s, const char *doing, struct err *e)
{
	return pg_exec(s, "BEGIN", doing, e);
}

static void pg_rollback(struct store *s)
{
	pq.clear(pq.exec(PG(s), "ROLLBACK"));
}

static void pg_set_timeout(struct store *s, int timeout_ms)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "SET lock_timeout = %d", timeout_ms);
	pq.clear(pq.exec(PG(s), sql));
}

static int pg_version(struct store *s, int *out, struct err *e)
{
	struct store_res r = { 0 };
	*out = 0;
	if (pg_query(s, "SELECT to_regclass('perfhunt_schema') IS NOT NULL", NULL, 0, &r,
		     "reading the schema version", e))
		return -1;
	int exists = r.rows && !strcmp(store_res_text(&r, 0, 0), "t");
	store_res_free(&r);
	if (!exists)
		return 0;
	if (pg_query(s, "SELECT coalesce(max(version), 0) FROM perfhunt_schema", NULL, 0, &r,
		     "reading the schema version", e))
		return -1;
	*out = (int)store_res_i64(&r, 0, 0);
	store_res_free(&r);
	return 0;
}

static int pg_migration_begin(struct store *s, struct err *e)
{
	char sql[96];
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock(%d)", PG_MIGRATION_LOCK);
	if (pg_exec(s, "BEGIN", "creating the schema", e))
		return -1;
	if (pg_exec(s, sql, "creating the schema", e) ||
	    pg_exec(s, "CREATE TABLE IF NOT EXISTS perfhunt_schema (version INTEGER NOT NULL)",
		    "creating the schema", e)) {
		pg_rollback(s);
		return -1;
	}
	return 0;
}

static int pg_version_set(struct store *s, int v, struct err *e)
{
	char sql[96];
	snprintf(sql, sizeof(sql), "DELETE FROM perfhunt_schema; INSERT INTO perfhunt_schema VALUES (%d)", v);
	return pg_exec(s, sql, "setting the schema version", e);
}

static void pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void pg_close(struct store *s)
{
	if (s->conn)
		pq.finish(PG(s));
	s->conn = NULL;
}

static int pg_connect(struct store *s, int create, struct err *e)
{
	/* Earlier keywords are overridden by the URL's own (expand_dbname). */
	const char *const keys[] = { "connect_timeout", "application_name", "dbname", NULL };
	const char *const vals[] = { "10", "perfhunt", s->target, NULL };
	if (pq_load(e) < 0)
		return err_wrap(e, "cannot open history database '%s'", s->path);
	s->conn = pq.connectdbParams(keys, vals, 1);
	if (!s->conn)
		return err_set(e, "cannot connect to history database '%s': out of memory", s->path);
	if (pq.status(PG(s)) != CONNECTION_OK) {
		char msg[300];
		pg_message(pq.errorMessage(PG(s)), msg, sizeof(msg));
		return err_set(e, "cannot connect to history database '%s': %s", s->path, msg);
	}
	pq.setNoticeProcessor(PG(s), pg_quiet, NULL);
	pg_set_timeout(s, s->busy_timeout_ms);
	if (!create) {
		int v;
		if (pg_version(s, &v, e))
			return -1;
		if (v == 0)
			return err_set(e, "no history database at '%s' (no perfhunt tables there; runs "
				       "are stored by 'perfhunt run', 'perfhunt bench' or 'perfhunt "
				       "history import')", s->path);
	}
	return store_migrate(s, e);
}

const struct store_backend store_pg_backend = {
	.name = "PostgreSQL",
	.connect = pg_connect,
	.close = pg_close,
	.query = pg_query,
	.exec = pg_exec,
	.begin = pg_begin,
	.rollback = pg_rollback,
	.set_timeout = pg_set_timeout,
	.version = pg_version,
	.migration_begin = pg_migration_begin,
	.version_set = pg_version_set,
	.pg = 1,
};
