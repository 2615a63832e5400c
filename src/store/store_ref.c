/* store_ref: record files and history references to a metric set.
 *
 * A leading '@' or an all-digit argument is a history reference resolved by
 * the store (opened read-only: looking something up never creates a
 * database); anything else is a record file or a comma-separated list.
 */
#include "store/store_ref.h"

#include <stdlib.h>
#include <string.h>

#include "record/command.h"
#include "record/hyperfine.h"
#include "record/jsonio.h"
#include "stats/bench_record.h"
#include "store/store.h"
#include "util/xalloc.h"

int store_ref_read_file(const char *path, json_t **out, struct err *e)
{
	json_t *v;
	if (jsonio_read(path, NULL, &v, e) < 0)
		return -1;
	int rc = 0;
	if (hyperfine_is(v)) {
		rc = hyperfine_to_bench(v, out, e);
		if (rc < 0)
			err_wrap(e, "cannot read '%s'", path);
		json_decref(v);
		return rc;
	}
	const char *schema = json_string_value(json_object_get(v, "schema"));
	if (!schema || strncmp(schema, "perfhunt.", 9)) {
		err_set(e, "cannot read '%s': schema is '%s', expected perfhunt... (or hyperfine's results)", path,
			schema ? schema : "(none)");
		json_decref(v); /* after the message: schema points into v */
		return -1;
	}
	*out = v;
	return 0;
}

bool store_ref_is_history(const char *arg)
{
	return arg[0] == '@' || (arg[0] && strspn(arg, "0123456789") == strlen(arg));
}

/* The runs of a bench record as jsonio_read_runs reads them: those of
 * command want into s (when take), the others let go; a file that is not a
 * perfhunt bench (or names its schema after its commands) is kept whole. */
struct run_taker {
	struct metrics_set *s;
	const char *path;
	size_t want, taken;
	bool take, whole; /* whole: stdin with a named command (no second reading) */
};

static bool is_bench(const json_t *rec)
{
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	return schema && !strcmp(schema, "perfhunt.bench/1");
}

static int take_run(json_t *run, const json_t *top, const json_t *cmd, size_t command, size_t index, void *arg,
		    struct err *e)
{
	struct run_taker *t = arg;
	(void)cmd;
	(void)index;
	if (t->whole || !is_bench(top))
		return 1;
	if (!t->take || command != t->want)
		return 0;
	t->taken++;
	if (metrics_stream_add(t->s, run, e) < 0) {
		err_wrap(e, "cannot read '%s'", t->path);
		return -1;
	}
	return 0;
}

/* A run or bench record file's runs into s, read by the one record reader
 * (jsonio: its bounds, duplicate keys refused) as show and report read it;
 * a bench run by run, so only its metrics are held (a named command costs a
 * first reading that finds where it is; stdin, read once, is held whole
 * then). Errors read "cannot read 'PATH': ...". */
static int load_file(struct metrics_set *s, const char *path, const char *command, struct err *e)
{
	json_t *root = NULL, **runs = NULL;
	size_t n, first = s->n;
	struct run_taker t = { .s = s, .path = path, .take = !command, .whole = command && !strcmp(path, "-") };
	int rc = jsonio_read_runs(path, take_run, &t, &root, e);
	if (rc < 0)
		return -1;
	if (command && is_bench(root) && !t.whole) {
		rc = metrics_command_index(root, command, &t.want, e);
		json_decref(root);
		root = NULL;
		t.take = true;
		if (rc == 0 && jsonio_read_runs(path, take_run, &t, &root, e) < 0)
			return -1;
	}
	if (rc == 0 && t.taken > 0) {
		metrics_stream_end(s, first);
	} else if (rc == 0) {
		if (hyperfine_is(root)) { /* a user's hyperfine results are a baseline as they are */
			json_t *bench = NULL;
			rc = hyperfine_to_bench(root, &bench, e);
			json_decref(root);
			root = bench;
		}
		if (rc == 0)
			rc = metrics_runs_of(root, command, &runs, &n, e);
		if (rc == 0)
			rc = metrics_add_records(s, runs, n, e);
	}
	if (rc < 0)
		err_wrap(e, "cannot read '%s'", path);
	free(runs);
	json_decref(root);
	return rc;
}

int store_ref_load(const char *arg, const char *command, struct metrics_set *out, struct err *e)
{
	metrics_set_init(out);
	if (store_ref_is_history(arg)) {
		json_t **recs;
		size_t n;
		int rc = store_resolve_default(arg, &recs, &n, e);
		if (rc == 0)
			rc = metrics_add_records(out, recs, n, e);
		store_records_free(recs, n);
		if (rc < 0)
			metrics_set_release(out);
		return rc;
	}
	char *list = xstrdup(arg), *save = NULL;
	int rc = 0;
	size_t files = 0;
	for (char *path = strtok_r(list, ",", &save); path && rc == 0; path = strtok_r(NULL, ",", &save)) {
		rc = load_file(out, path, command, e);
		files++;
	}
	free(list);
	if (rc == 0 && files == 0)
		rc = err_set(e, "cannot read '%s': no file named", arg);
	if (rc < 0)
		metrics_set_release(out);
	return rc;
}

/* Several stored runs as one bench record: a command per distinct command. */
static int bench_of(json_t **recs, size_t n, json_t **out, struct err *e)
{
	const char *started = json_string_value(json_object_get(recs[0], "started_at"));
	json_t *rec = bench_record_new(started ? started : "", NULL);
	json_t *names = json_array();
	for (size_t i = 0; i < n; i++) {
		json_t *cmd = json_object_get(recs[i], "command");
		size_t at = json_array_size(names);
		for (size_t k = 0; k < json_array_size(names); k++)
			if (json_equal(json_array_get(names, k), cmd))
				at = k;
		if (at == json_array_size(names)) {
			char *name = command_text(cmd);
			bench_record_add_command(rec, name ? name : "?", json_is_array(cmd) ? json_incref(cmd) : json_array(),
						 NULL);
			free(name);
			json_array_append(names, cmd ? cmd : json_null());
		}
		bench_record_add_run(rec, at, json_incref(recs[i]));
	}
	json_decref(names);
	if (bench_record_finish(rec, NULL, e) < 0) {
		json_decref(rec);
		return -1;
	}
	*out = rec;
	return 0;
}

int store_ref_record(const char *arg, json_t **out, struct err *e)
{
	if (!store_ref_is_history(arg))
		return store_ref_read_file(arg, out, e);
	json_t **recs;
	size_t n;
	int rc = store_resolve_default(arg, &recs, &n, e);
	if (rc == 0 && n == 0)
		rc = err_set(e, "'%s' names no run", arg);
	if (rc == 0 && n == 1)
		*out = json_incref(recs[0]);
	else if (rc == 0)
		rc = bench_of(recs, n, out, e);
	store_records_free(recs, n);
	return rc;
}

