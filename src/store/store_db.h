/* store_db: the two history backends (SQLite, PostgreSQL) behind store.h.
 *
 * store.c holds everything that is the same on both: the schema and its
 * migrations (one SQL text with two dialect words), what a record becomes in
 * the tables, every query of list, show, resolve, trend and export. A backend
 * only connects, runs SQL with $1..$N parameters and returns rows, and maps
 * its engine's errors to one line. Not for use outside src/store.
 */
#ifndef PERFHUNT_STORE_DB_H
#define PERFHUNT_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/strindex.h"

enum store_type { STORE_INT, STORE_REAL, STORE_TEXT };

/* A parameter ($k is p[k - 1]); s is borrowed. */
struct store_val {
	enum store_type type;
	int is_null;
	int64_t i;
	double d;
	const char *s;
};

/* A result cell: typed where the engine says (SQLite), text otherwise. */
struct store_cell {
	enum store_type type;
	int is_null;
	int64_t i;
	double d;
	char *s; /* owned; set for STORE_TEXT, and for SQLite integers */
};

struct store_res {
	struct store_cell *cells; /* rows * cols, row-major */
	size_t rows, cols;
};

struct store;

struct store_backend {
	const char *name;
	/* Opens s->conn for s->target; create as in store_open. Migrates. */
	int (*connect)(struct store *s, int create, struct err *e);
	void (*close)(struct store *s);
	/* Closes after a write, leaving the engine's end-of-session work to a
	 * detached process (NULL: close does it all). */
	void (*close_detached)(struct store *s);
	/* One statement with parameters; rows into *out when out is non-NULL. */
	int (*query)(struct store *s, const char *sql, const struct store_val *p, int np,
		     struct store_res *out, const char *doing, struct err *e);
	/* Statements without parameters (a migration), no rows. */
	int (*exec)(struct store *s, const char *sql, const char *doing, struct err *e);
	/* Starts a write transaction that waits for other writers (busy timeout). */
	int (*begin)(struct store *s, const char *doing, struct err *e);
	void (*rollback)(struct store *s);
	void (*set_timeout)(struct store *s, int timeout_ms);
	/* Schema version: 0 for an empty database. */
	int (*version)(struct store *s, int *out, struct err *e);
	/* Begins the migration transaction, exclusive among perfhunts. */
	int (*migration_begin)(struct store *s, struct err *e);
	int (*version_set)(struct store *s, int v, struct err *e);
	/* 1 for PostgreSQL's dialect of the schema, 0 for SQLite's. */
	int pg;
};

struct store {
	const struct store_backend *be;
	void *conn;
	char *target; /* the file path or the connection URL (with any password) */
	char *path;   /* what messages and store_path show (password hidden) */
	int busy_timeout_ms;
	int close_here; /* SQLite: fold the WAL at close, here (a new, read-only or memory db) */
};

extern const struct store_backend store_sqlite_backend;
extern const struct store_backend store_pg_backend;

/* Waits (up to timeout_ms) until no detached process is folding the WAL of
 * the SQLite file at path into it: the file alone then holds every run. */
void store_sqlite_wait_folds(const char *path, int timeout_ms);

/* Brings the schema to the current version (called by each connect). */
int store_migrate(struct store *s, struct err *e);
/* The version this perfhunt writes. */
int store_schema_version(void);

/* Result accessors (row, column); a NULL cell reads 0, NAN or NULL. */
int store_res_null(const struct store_res *r, size_t row, size_t col);
int64_t store_res_i64(const struct store_res *r, size_t row, size_t col);
double store_res_double(const struct store_res *r, size_t row, size_t col);
const char *store_res_text(const struct store_res *r, size_t row, size_t col);
void store_res_free(struct store_res *r);
/* Adds a row of cols cells to r and returns it (backends fill it). */
struct store_cell *store_res_add_row(struct store_res *r, size_t cols);

/* Runs sql over the runs table a window of run IDs at a time, oldest first,
 * calling fn with each window's rows: sql's $1 and $2 bound the window
 * ("r.id > $1 AND r.id <= $2"); p[0] and p[1] are set here, the rest are
 * the caller's. What a history read holds at once is one window's rows,
 * however many runs the history has. A non-zero return of fn stops. */
int store_each_window(struct store *s, const char *sql, struct store_val *p, int np,
		      int (*fn)(const struct store_res *r, void *arg), void *arg, const char *doing,
		      struct err *e);

/* Distinct strings, each numbered in the order first seen: a commit or a
 * command named by 10^5 rows is kept once (found through a strindex). */
struct store_names {
	struct strindex index;
	char **keys; /* keys[i]: the i-th distinct string (owned) */
	size_t n, cap;
};
/* The number of key, a copy of it added when new. */
uint32_t store_name(struct store_names *t, const char *key);
void store_names_free(struct store_names *t);

#endif
