/* Unit tests of src/store: the SQLite history on real temporary files.
 *
 * Records come from the CLI fixtures (tests/cli/data/history); the database is
 * checked both through the store API and with plain SQL, as a user would.
 * Error paths are made for real: a corrupt file, a read-only file (as an
 * unprivileged user when run as root), a lock held by a second connection,
 * and two processes writing at once.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_db.h"

/* Relative to tests/unit, the working directory meson gives us. */
static const char fixtures[] = "../cli/data/history";
static char tmpdir[256];

static json_t *fixture(const char *name)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", fixtures, name);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	if (!j)
		fail_msg("cannot load fixture %s: %s", path, je.text);
	return j;
}

static void db_path(char *buf, size_t n, const char *name)
{
	snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* One value from plain SQL on the database file, as `sqlite3` would see it. */
static double sql_value(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	double v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : NAN;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void add_fixture(struct store *s, const char *name, int64_t *id)
{
	struct err e = { 0 };
	json_t *j = fixture(name);
	const char *schema = json_string_value(json_object_get(j, "schema"));
	int rc = !strcmp(schema, "perfhunt.bench/1") ? store_add_bench(s, j, NULL, NULL, id, &e)
						      : store_add_run(s, j, NULL, 0, id, &e);
	if (rc)
		fail_msg("adding %s: %s", name, e.msg);
	json_decref(j);
}

/* Stores every fixture: runs 1-3 base (commit a1b2..), 4-5 new (b7c8..,
 * the second dirty), 6 quoted (no git), bench 1 = runs 7-8 (b7c8..). */
static struct store *filled_store(const char *name)
{
	char path[PATH_MAX];
	db_path(path, sizeof(path), name);
	unlink(path);
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open(&s, path, &e))
		fail_msg("%s", e.msg);
	static const char *const names[] = { "base-1.json", "base-2.json", "base-3.json",
					     "new-1.json", "new-2.json", "quoted.json", "bench.json" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		add_fixture(s, names[i], NULL);
	return s;
}

static void test_open_creates_directory_and_schema(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "new/deeper/history.db");
	struct store *s = NULL;
	struct err e = { 0 };
	assert_int_equal(store_open(&s, path, &e), 0);
	assert_string_equal(store_path(s), path);
	store_close(s);
	struct stat st;
	char dir[PATH_MAX];
	db_path(dir, sizeof(dir), "new/deeper");
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_true(sql_value(path, "PRAGMA user_version") == store_schema_version());
	assert_true(sql_value(path, "SELECT count(*) FROM sqlite_master WHERE name IN "
			      "('runs','metrics','phases','tags','benches')") == 5);
	/* Opening again keeps the schema (no second migration). */
	assert_int_equal(store_open(&s, path, &e), 0);
	store_close(s);
	assert_true(sql_value(path, "PRAGMA user_version") == store_schema_version());
}

static void test_migrates_empty_file_and_refuses_newer(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "empty.db");
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	struct store *s = NULL;
	struct err e = { 0 };
	assert_int_equal(store_open(&s, path, &e), 0);
	store_close(s);
	assert_true(sql_value(path, "PRAGMA user_version") == store_schema_version());

	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_open(&s, path, &e), -1);
	assert_null(s);
	char want[96];
	snprintf(want, sizeof(want), "schema version 99, newer than this perfhunt knows (%d)",
		 store_schema_version());
	assert_non_null(strstr(e.msg, want));
}

/* A history of schema 1 (with its index on metrics.name) opens as the current
 * schema: the index is gone, every run and metric stays, a trend still reads. */
static void test_migrates_version_1(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "v1.db");
	struct store *s = filled_store("v1.db");
	store_close(s);
	double runs = sql_value(path, "SELECT count(*) FROM runs");
	double metrics = sql_value(path, "SELECT count(*) FROM metrics");
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE INDEX metrics_name ON metrics(name); PRAGMA user_version = 1",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	struct err e = { 0 };
	assert_int_equal(store_open(&s, path, &e), 0);
	struct store_trend_point *p = NULL;
	size_t n = 0;
	assert_int_equal(store_trend(s, "wall_s", NULL, &p, &n, &e), 0);
	assert_int_equal(n, 4);
	store_trend_free(p, n);
	store_close(s);
	assert_true(sql_value(path, "PRAGMA user_version") == store_schema_version());
	assert_true(sql_value(path, "SELECT count(*) FROM sqlite_master WHERE name = 'metrics_name'") == 0);
	assert_true(sql_value(path, "SELECT count(*) FROM runs") == runs);
	assert_true(sql_value(path, "SELECT count(*) FROM metrics") == metrics);
	assert_true(metrics > runs);
}

static void test_default_path(void **state)
{
	(void)state;
	char buf[PATH_MAX], want[PATH_MAX + 64], cwd[PATH_MAX];
	struct err e = { 0 };
	assert_int_equal(store_default_path("/x/y.db", buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "/x/y.db");
	setenv("PERFHUNT_DB", "/env/h.db", 1);
	assert_int_equal(store_default_path(NULL, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "/env/h.db");
	unsetenv("PERFHUNT_DB");

	/* Inside a repository: the top level, found from a subdirectory. */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	char repo[PATH_MAX];
	db_path(repo, sizeof(repo), "repo");
	mkdir(repo, 0700);
	snprintf(want, sizeof(want), "%s/.git", repo);
	mkdir(want, 0700);
	snprintf(want, sizeof(want), "%s/src", repo);
	mkdir(want, 0700);
	assert_int_equal(chdir(want), 0);
	assert_int_equal(store_default_path(NULL, buf, sizeof(buf), &e), 0);
	snprintf(want, sizeof(want), "%s/.perfhunt/history.db", repo);
	assert_string_equal(buf, want);
	enum store_origin origin;
	assert_int_equal(store_locate(NULL, buf, sizeof(buf), &origin, &e), 0);
	assert_int_equal(origin, STORE_ORIGIN_REPO);
	/* Outside one: the per-user database, never a .perfhunt/ in the current
	 * directory. $XDG_DATA_HOME when absolute, else ~/.local/share. */
	assert_int_equal(chdir(tmpdir), 0);
	char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("XDG_DATA_HOME", "/xdg/data", 1);
	assert_int_equal(store_locate(NULL, buf, sizeof(buf), &origin, &e), 0);
	assert_string_equal(buf, "/xdg/data/perfhunt/history.db");
	assert_int_equal(origin, STORE_ORIGIN_USER);
	setenv("XDG_DATA_HOME", "relative/data", 1); /* invalid by the XDG rules: ignored */
	setenv("HOME", "/home/someone", 1);
	assert_int_equal(store_default_path(NULL, buf, sizeof(buf), &e), 0);
	assert_string_equal(buf, "/home/someone/.local/share/perfhunt/history.db");
	unsetenv("XDG_DATA_HOME");
	unsetenv("HOME"); /* then the password database's home */
	assert_int_equal(store_default_path(NULL, buf, sizeof(buf), &e), 0);
	assert_non_null(strstr(buf, "/.local/share/perfhunt/history.db"));
	if (old_home)
		setenv("HOME", old_home, 1);
	free(old_home);
	setenv("PERFHUNT_DB", "/env/h.db", 1);
	assert_int_equal(store_locate(NULL, buf, sizeof(buf), &origin, &e), 0);
	assert_int_equal(origin, STORE_ORIGIN_ENV);
	assert_int_equal(store_locate("/x.db", buf, sizeof(buf), &origin, &e), 0);
	assert_int_equal(origin, STORE_ORIGIN_ARG);
	unsetenv("PERFHUNT_DB");
	assert_int_equal(chdir(cwd), 0);
}

static void test_add_list_get(void **state)
{
	(void)state;
	struct store *s = filled_store("list.db");
	struct store_row *rows = NULL;
	size_t n = 0;
	struct err e = { 0 };
	assert_int_equal(store_list(s, NULL, &rows, &n, &e), 0);
	assert_int_equal(n, 8);
	assert_int_equal(rows[0].id, 8); /* newest first */
	assert_int_equal(rows[0].bench_id, 1);
	assert_string_equal(rows[0].command, "sleep 0.1");
	assert_int_equal(rows[7].id, 1);
	assert_string_equal(rows[7].tags, "baseline");
	assert_string_equal(rows[7].git_commit, "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678");
	assert_true(rows[7].wall_s == 88.9);
	assert_int_equal(rows[7].peak_rss_kb, 1048576);
	assert_string_equal(rows[2].command, "sh -c 'echo '\\''hi there'\\'' $HOME'");
	assert_null(rows[2].git_commit);
	assert_int_equal(rows[3].git_dirty, 1);
	store_rows_free(rows, n);

	struct store_filter f = { .tag = "baseline" };
	assert_int_equal(store_list(s, &f, &rows, &n, &e), 0);
	assert_int_equal(n, 3);
	store_rows_free(rows, n);
	f = (struct store_filter){ .commit = "b7c8" };
	assert_int_equal(store_list(s, &f, &rows, &n, &e), 0);
	assert_int_equal(n, 4);
	store_rows_free(rows, n);
	f = (struct store_filter){ .command = "prover", .limit = 2 };
	assert_int_equal(store_list(s, &f, &rows, &n, &e), 0);
	assert_int_equal(n, 2);
	assert_int_equal(rows[0].id, 5);
	store_rows_free(rows, n);
	f = (struct store_filter){ .command = "prover", .tag = "pinned" };
	assert_int_equal(store_list(s, &f, &rows, &n, &e), 0);
	assert_int_equal(n, 1);
	store_rows_free(rows, n);

	json_t *rec = NULL;
	assert_int_equal(store_get_run(s, 1, &rec, &e), 0);
	assert_int_equal(json_integer_value(json_object_get(rec, "history_id")), 1);
	assert_string_equal(json_string_value(json_object_get(rec, "schema")), "perfhunt.run/1");
	json_t *samples = json_object_get(rec, "samples");
	assert_true(json_is_object(samples));
	assert_null(json_object_get(samples, "rows")); /* stripped */
	assert_non_null(json_object_get(samples, "columns"));
	json_decref(rec);
	assert_int_equal(store_get_run(s, 99, &rec, &e), -1);
	assert_non_null(strstr(e.msg, "no run 99"));
	store_close(s);

	/* Metrics and phases, as plain SQL sees them. */
	char path[PATH_MAX];
	db_path(path, sizeof(path), "list.db");
	assert_true(sql_value(path, "SELECT value FROM metrics WHERE run_id = 1 AND name = 'wall_s'")
		    == 88.9);
	assert_true(sql_value(path, "SELECT value FROM metrics WHERE run_id = 4 AND "
			      "name = 'phase:pin_abc'") == 5733);
	assert_true(sql_value(path, "SELECT value FROM metrics WHERE run_id = 1 AND "
			      "name = 'instructions'") == 123456789);
	assert_true(sql_value(path, "SELECT value FROM metrics WHERE run_id = 1 AND "
			      "name = 'cpu_pct'") == 90);
	assert_true(sql_value(path, "SELECT count(*) FROM phases WHERE run_id = 2") == 2);
	assert_true(sql_value(path, "SELECT count(*) FROM phases WHERE lane = 'gpu_tid=0'") == 8);
	assert_true(sql_value(path, "SELECT count(*) FROM runs WHERE bench_id = 1") == 2);
	assert_true(sql_value(path, "SELECT count(*) FROM benches WHERE summary NOT LIKE '%\"runs\":[%'"
			      " AND summary LIKE '%stats%'") == 1);
	assert_true(sql_value(path, "SELECT exit_status FROM runs WHERE id = 1") == 0);
	assert_true(sql_value(path, "SELECT count(*) FROM runs WHERE record_json LIKE '%\"rows\"%'")
		    == 0);
}

static size_t resolve_count(struct store *s, const char *ref, int64_t *first_id, struct err *e)
{
	json_t **recs = NULL;
	size_t n = 0;
	if (store_resolve(s, ref, &recs, &n, e))
		return 0;
	*first_id = json_integer_value(json_object_get(recs[0], "history_id"));
	store_records_free(recs, n);
	return n;
}

static void test_resolve(void **state)
{
	(void)state;
	struct store *s = filled_store("resolve.db");
	struct err e = { 0 };
	int64_t id = 0;
	assert_int_equal(resolve_count(s, "@last", &id, &e), 2); /* the whole bench */
	assert_int_equal(id, 7);
	assert_int_equal(resolve_count(s, "@last~0", &id, &e), 2);
	assert_int_equal(resolve_count(s, "@last~1", &id, &e), 1);
	assert_int_equal(id, 6);
	assert_int_equal(resolve_count(s, "@last~2", &id, &e), 1);
	assert_int_equal(id, 5);
	assert_int_equal(resolve_count(s, "@tag:baseline", &id, &e), 3);
	assert_int_equal(id, 1);
	assert_int_equal(resolve_count(s, "3", &id, &e), 1);
	assert_int_equal(id, 3);
	assert_int_equal(resolve_count(s, "@4", &id, &e), 1);
	assert_int_equal(id, 4);
	assert_int_equal(resolve_count(s, "@bench:1", &id, &e), 2);
	assert_int_equal(resolve_count(s, "@commit:A1B2C3", &id, &e), 3);
	assert_int_equal(resolve_count(s, "@commit:b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f80", &id, &e),
			 4);

	assert_int_equal(resolve_count(s, "@last~8", &id, &e), 0);
	assert_string_not_equal(e.msg, "");
	assert_non_null(strstr(e.msg, "no stored run matches '@last~8'"));
	assert_int_equal(resolve_count(s, "@tag:nope", &id, &e), 0);
	assert_non_null(strstr(e.msg, "no stored run matches '@tag:nope'"));
	assert_int_equal(resolve_count(s, "@commit:", &id, &e), 0);
	assert_non_null(strstr(e.msg, "expected a hexadecimal commit prefix"));
	assert_int_equal(resolve_count(s, "@commit:'or'1", &id, &e), 0);
	assert_int_equal(resolve_count(s, "@last~x", &id, &e), 0);
	assert_non_null(strstr(e.msg, "@last~N"));
	assert_int_equal(resolve_count(s, "@yesterday", &id, &e), 0);
	assert_non_null(strstr(e.msg, "unknown history reference '@yesterday'"));
	assert_int_equal(resolve_count(s, "0", &id, &e), 0);
	assert_int_equal(resolve_count(s, "@bench:7", &id, &e), 0);

	/* A prefix shared by two commits is ambiguous, not a silent union. */
	json_t *j = fixture("base-1.json");
	json_object_set_new(json_object_get(j, "git"), "commit",
			    json_string("a1b2ffffffffffffffffffffffffffffffffffff"));
	assert_int_equal(store_add_run(s, j, NULL, 0, NULL, &e), 0);
	json_decref(j);
	assert_int_equal(resolve_count(s, "@commit:a1b2", &id, &e), 0);
	assert_non_null(strstr(e.msg, "commit prefix 'a1b2' is ambiguous"));
	assert_int_equal(resolve_count(s, "@commit:a1b2c", &id, &e), 3);
	store_close(s);
}

static void test_tags_and_bad_records(void **state)
{
	(void)state;
	struct store *s = NULL;
	struct err e = { 0 };
	assert_int_equal(store_open(&s, ":memory:", &e), 0);
	json_t *j = fixture("base-1.json");
	const char *const tags[] = { "ci", "baseline", NULL };
	int64_t id = 0;
	assert_int_equal(store_add_run(s, j, tags, 0, &id, &e), 0);
	assert_int_equal(id, 1);
	json_t **recs = NULL;
	size_t n = 0;
	assert_int_equal(store_resolve(s, "@tag:ci", &recs, &n, &e), 0);
	assert_int_equal(n, 1);
	/* The stored record carries every tag once. */
	json_t *rt = json_object_get(recs[0], "tags");
	assert_int_equal(json_array_size(rt), 3);
	store_records_free(recs, n);
	struct store_row *rows = NULL;
	assert_int_equal(store_list(s, NULL, &rows, &n, &e), 0);
	assert_string_equal(rows[0].tags, "baseline,ci");
	store_rows_free(rows, n);

	json_t *bad = fixture("not-a-record.json");
	assert_int_equal(store_add_run(s, bad, NULL, 0, NULL, &e), -1);
	assert_string_equal(e.msg, "not a perfhunt.run/1 record (schema 'something/else')");
	assert_int_equal(store_add_bench(s, bad, NULL, NULL, NULL, &e), -1);
	assert_string_equal(e.msg, "not a perfhunt.bench/1 record (schema 'something/else')");
	json_decref(bad);
	json_object_set_new(j, "command", json_pack("[s,i]", "x", 3));
	assert_int_equal(store_add_run(s, j, NULL, 0, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "no command"));
	json_object_set_new(j, "command", json_pack("[s]", "x"));
	json_object_set_new(json_object_get(j, "summary"), "wall_s", json_string("fast"));
	assert_int_equal(store_add_run(s, j, NULL, 0, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "wall_s"));
	json_decref(j);
	json_t *arr = json_array();
	assert_int_equal(store_add_run(s, arr, NULL, 0, NULL, &e), -1);
	json_decref(arr);

	/* A bench with one bad run stores nothing at all. */
	json_t *b = fixture("bench.json");
	json_t *run2 = json_array_get(json_object_get(json_array_get(
		json_object_get(b, "commands"), 0), "runs"), 1);
	json_object_del(run2, "summary");
	assert_int_equal(store_add_bench(s, b, NULL, NULL, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "bench command 1, run 2"));
	json_decref(b);
	assert_int_equal(store_list(s, NULL, &rows, &n, &e), 0);
	assert_int_equal(n, 1);
	store_rows_free(rows, n);
	assert_int_equal(store_resolve(s, "@bench:1", &recs, &n, &e), -1);
	store_close(s);
}

static void test_trend(void **state)
{
	(void)state;
	struct store *s = filled_store("trend.db");
	struct store_trend_point *p = NULL;
	size_t n = 0;
	struct err e = { 0 };
	assert_int_equal(store_trend(s, "wall_s", NULL, &p, &n, &e), 0);
	assert_int_equal(n, 4);
	assert_string_equal(p[0].commit, "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678");
	assert_int_equal(p[0].n, 3);
	assert_true(p[0].values[1] == 89.3);
	assert_string_equal(p[1].commit, "b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f80");
	assert_int_equal(p[1].dirty, 0);
	assert_int_equal(p[1].n, 3); /* new-1 and the two bench runs */
	assert_int_equal(p[2].dirty, 1);
	assert_int_equal(p[2].n, 1);
	assert_string_equal(p[3].commit, "");
	store_trend_free(p, n);
	assert_int_equal(store_trend(s, "phase:pin_abc", "prover", &p, &n, &e), 0);
	assert_int_equal(n, 3);
	assert_int_equal(p[1].n, 1);
	assert_true(p[1].values[0] == 5733);
	store_trend_free(p, n);
	assert_int_equal(store_trend(s, "wall_ms", NULL, &p, &n, &e), -1);
	assert_non_null(strstr(e.msg, "no stored run has metric 'wall_ms'; known: "));
	assert_non_null(strstr(e.msg, "wall_s"));
	store_close(s);
}

static void test_corrupt_file(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "corrupt.db");
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 64; i++)
		fputs("this is a timeline csv, not a database\n", f);
	fclose(f);
	struct store *s = NULL;
	struct err e = { 0 };
	assert_int_equal(store_open(&s, path, &e), -1);
	char want[PATH_MAX + 100];
	snprintf(want, sizeof(want), "'%s' is not a perfhunt history database (file is not a database)",
		 path);
	assert_string_equal(e.msg, want);
	assert_int_equal(store_open_existing(&s, path, &e), -1);
	assert_string_equal(e.msg, want);

	db_path(path, sizeof(path), "missing.db");
	assert_int_equal(store_open_existing(&s, path, &e), -1);
	assert_non_null(strstr(e.msg, "no history database at"));
	assert_int_equal(access(path, F_OK), -1); /* nothing created */
}

/* Runs in a child: as an unprivileged user when we are root, so file modes
 * bind as they do for users. */
static int readonly_child(const char *ro_file, const char *ro_dir_db)
{
	if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
		return 10;
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open(&s, ro_file, &e) != -1 || !strstr(e.msg, "is read-only (the file is not writable)"))
		return 11;
	if (store_open(&s, ro_dir_db, &e) != -1 || !strstr(e.msg, "read-only"))
		return 12;
	/* Reading still works, in both places. */
	const char *paths[] = { ro_file, ro_dir_db };
	for (int i = 0; i < 2; i++) {
		if (store_open_existing(&s, paths[i], &e) != 0) {
			fprintf(stderr, "%s\n", e.msg);
			return 13 + i;
		}
		json_t **recs = NULL;
		size_t n = 0;
		int rc = store_resolve(s, "@last", &recs, &n, &e);
		store_records_free(recs, n);
		store_close(s);
		if (rc || n != 1)
			return 15;
	}
	return 0;
}

static void test_read_only(void **state)
{
	(void)state;
	char file[PATH_MAX], dir[PATH_MAX], indir[PATH_MAX];
	db_path(file, sizeof(file), "ro.db");
	db_path(dir, sizeof(dir), "rodir");
	db_path(indir, sizeof(indir), "rodir/history.db");
	const char *paths[] = { file, indir };
	for (int i = 0; i < 2; i++) {
		struct store *s = NULL;
		struct err e = { 0 };
		if (store_open(&s, paths[i], &e))
			fail_msg("%s", e.msg);
		add_fixture(s, "base-1.json", NULL);
		store_close(s);
	}
	assert_int_equal(chmod(file, 0444), 0);
	assert_int_equal(chmod(indir, 0666), 0);
	assert_int_equal(chmod(dir, 0555), 0);
	assert_int_equal(chmod(tmpdir, 0755), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(readonly_child(file, indir));
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	chmod(dir, 0700);
	chmod(tmpdir, 0700);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_locked(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "locked.db");
	struct store *s = NULL;
	struct err e = { 0 };
	assert_int_equal(store_open(&s, path, &e), 0);
	store_set_busy_timeout_ms(s, 50);
	sqlite3 *other = NULL;
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE; INSERT INTO benches(summary) "
				      "VALUES ('held')", NULL, NULL, NULL), SQLITE_OK);
	json_t *j = fixture("base-2.json");
	assert_int_equal(store_add_run(s, j, NULL, 0, NULL, &e), -1);
	char want[PATH_MAX + 120];
	snprintf(want, sizeof(want), "history database '%s' is locked by another process "
		 "(gave up after 50 ms while storing a run)", path);
	assert_string_equal(e.msg, want);
	/* Readers are not blocked by the writer (WAL). */
	struct store_row *rows = NULL;
	size_t n = 9;
	assert_int_equal(store_list(s, NULL, &rows, &n, &e), 0);
	assert_int_equal(n, 0);
	store_rows_free(rows, n);
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	assert_int_equal(store_add_run(s, j, NULL, 0, NULL, &e), 0);
	json_decref(j);
	store_close(s);
}

#define CONCURRENT_RUNS 200

static int writer_child(const char *path, const char *tag)
{
	struct store *s = NULL;
	struct err e = { 0 };
	if (store_open(&s, path, &e)) {
		fprintf(stderr, "%s: %s\n", tag, e.msg);
		return 1;
	}
	json_t *j = fixture("base-2.json");
	json_object_set_new(j, "tags", json_pack("[s]", tag));
	for (int i = 0; i < CONCURRENT_RUNS; i++) {
		json_object_set_new(json_object_get(j, "summary"), "wall_s", json_real(i));
		if (store_add_run(s, j, NULL, 0, NULL, &e)) {
			fprintf(stderr, "%s run %d: %s\n", tag, i, e.msg);
			return 1;
		}
	}
	json_decref(j);
	store_close(s);
	return 0;
}

static void test_two_writers(void **state)
{
	(void)state;
	char path[PATH_MAX];
	db_path(path, sizeof(path), "concurrent/history.db");
	pid_t pids[2];
	static const char *const tags[] = { "writer-a", "writer-b" };
	/* Both start on a database that does not exist yet. */
	for (int i = 0; i < 2; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0)
			_exit(writer_child(path, tags[i]));
	}
	for (int i = 0; i < 2; i++) {
		int status = 0;
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_true(sql_value(path, "SELECT count(*) FROM runs") == 2 * CONCURRENT_RUNS);
	assert_true(sql_value(path, "SELECT count(*) FROM tags WHERE tag = 'writer-a'")
		    == CONCURRENT_RUNS);
	assert_true(sql_value(path, "SELECT count(DISTINCT run_id) FROM metrics WHERE name = 'wall_s'")
		    == 2 * CONCURRENT_RUNS);
	assert_true(sql_value(path, "SELECT sum(value) FROM metrics m JOIN tags t USING (run_id)"
			      " WHERE t.tag = 'writer-b' AND m.name = 'wall_s'")
		    == CONCURRENT_RUNS * (CONCURRENT_RUNS - 1) / 2);
	assert_true(sql_value(path, "PRAGMA integrity_check") == 0); /* "ok" reads as 0 */
}

/* A history where another user could have put it is refused before anything
 * is made there; $PERFHUNT_SAFE_DIRECTORY vouches for a tree. */
static void test_refuses_open_locations(void **state)
{
	(void)state;
	char dir[PATH_MAX], path[PATH_MAX + 32];
	struct store *s = NULL;
	struct err e = { 0 };
	db_path(dir, sizeof(dir), "open777");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(path, sizeof(path), "%s/.perfhunt/history.db", dir);
	assert_int_equal(store_open(&s, path, &e), -1);
	assert_null(s);
	char want[PATH_MAX * 3 + 200];
	snprintf(want, sizeof(want), "refusing the history database '%s': '%s' is writable by "
		 "other users (mode 0777); set PERFHUNT_SAFE_DIRECTORY=%s to trust it, or "
		 "PERFHUNT_DB to choose another", path, dir, dir);
	assert_string_equal(e.msg, want);
	snprintf(want, sizeof(want), "%s/.perfhunt", dir);
	assert_int_equal(access(want, F_OK), -1); /* nothing made */
	assert_int_equal(store_check_location(path, &e), -1);
	setenv("PERFHUNT_SAFE_DIRECTORY", dir, 1);
	assert_int_equal(store_check_location(path, &e), 0);
	assert_int_equal(store_open(&s, path, &e), 0);
	store_close(s);
	s = NULL;
	unsetenv("PERFHUNT_SAFE_DIRECTORY");
	/* the existing database is refused too, for reading as for writing */
	assert_int_equal(store_open_existing(&s, path, &e), -1);
	/* a sticky directory (like /tmp) may be above the database, not hold it:
	 * SQLite's -wal and -shm files beside it could be planted */
	db_path(dir, sizeof(dir), "sticky");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(chmod(dir, 01777), 0);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	assert_int_equal(store_open(&s, path, &e), -1);
	assert_non_null(strstr(e.msg, "(mode 1777; sticky, but they could plant files beside ours)"));
	snprintf(path, sizeof(path), "%s/mine/history.db", dir);
	if (store_open(&s, path, &e))
		fail_msg("%s", e.msg);
	store_close(s);
	/* URLs and :memory: are not files */
	assert_int_equal(store_check_location(":memory:", &e), 0);
	assert_int_equal(store_check_location("postgresql://u@h/db", &e), 0);
}

/* As root: a .perfhunt/ owned by another user, and a history.db symlink
 * planted by one, are refused; the link's target is not created or touched. */
static void test_refuses_planted_history(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	char dir[PATH_MAX], path[PATH_MAX + 32], victim[PATH_MAX];
	struct store *s = NULL;
	struct err e = { 0 };
	db_path(dir, sizeof(dir), "planted");
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(chown(dir, 65534, 65534), 0);
	snprintf(path, sizeof(path), "%s/history.db", dir);
	assert_int_equal(store_open(&s, path, &e), -1);
	assert_non_null(strstr(e.msg, "planted' is owned by "));
	assert_non_null(strstr(e.msg, "(uid 65534), not by you or root"));
	/* under sudo, the directory of the user who ran it is theirs to use */
	setenv("SUDO_UID", "65534", 1);
	assert_int_equal(store_check_location(path, &e), 0);
	unsetenv("SUDO_UID");

	db_path(victim, sizeof(victim), "victim");
	db_path(path, sizeof(path), "link.db");
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(lchown(path, 65534, 65534), 0);
	assert_int_equal(store_open(&s, path, &e), -1);
	assert_non_null(strstr(e.msg, "link.db' is owned by "));
	assert_int_equal(access(victim, F_OK), -1);
	int fd = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "precious", 8), 8);
	close(fd);
	assert_int_equal(store_open(&s, path, &e), -1);
	struct stat st;
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 8);
}

static int setup_all(void **state)
{
	(void)state;
	const char *t = getenv("TMPDIR");
	if ((size_t)snprintf(tmpdir, sizeof(tmpdir), "%s/perfhunt-store.XXXXXX", t ? t : "/tmp")
	    >= sizeof(tmpdir))
		return -1;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown_all(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	unsetenv("PERFHUNT_DB");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_creates_directory_and_schema),
		cmocka_unit_test(test_migrates_empty_file_and_refuses_newer),
		cmocka_unit_test(test_migrates_version_1),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_refuses_open_locations),
		cmocka_unit_test(test_refuses_planted_history),
		cmocka_unit_test(test_add_list_get),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_tags_and_bad_records),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_corrupt_file),
		cmocka_unit_test(test_read_only),
		cmocka_unit_test(test_locked),
		cmocka_unit_test(test_two_writers),
	};
	return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
