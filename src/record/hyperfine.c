/* hyperfine: hyperfine's JSON results to a perfhunt.bench/1 record.
 *
 * hyperfine keeps, per run, the wall time ("times") and the exit code
 * ("exit_codes"); each becomes one run record with those two figures, so
 * compare's statistics over runs see exactly hyperfine's samples. Bounds:
 * the record reader's (jsonio) already limit the size; a time must be a
 * finite number of seconds, not negative.
 */
#include "record/hyperfine.h"

#include <math.h>
#include <stdio.h>

#include "stats/bench_record.h"

bool hyperfine_is(const json_t *v)
{
	return json_is_object(v) && !json_object_get(v, "schema") && json_is_array(json_object_get(v, "results"));
}

/* One of hyperfine's runs as a run record: its command, wall time and exit code. */
static json_t *run_of(const char *command, double wall_s, const json_t *code)
{
	json_int_t c = json_is_integer(code) ? json_integer_value(code) : 0;
	return json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:i, s:I}, s:{s:f}}", "schema", "perfhunt.run/1", "kind", "run",
			 "source", "hyperfine", "command", command, "exit", "code", c, "signal", 0, "status", c,
			 "summary", "wall_s", wall_s);
}

static int add_result(json_t *rec, const json_t *r, size_t index, struct err *e)
{
	const char *command = json_string_value(json_object_get(r, "command"));
	const json_t *times = json_object_get(r, "times"), *codes = json_object_get(r, "exit_codes");
	const json_t *params = json_object_get(r, "parameters");
	if (!json_is_object(r) || !command)
		return err_set(e, "hyperfine result %zu has no \"command\"", index + 1);
	if (!json_is_array(times) || json_array_size(times) == 0)
		return err_set(e, "hyperfine result %zu ('%.64s') has no \"times\"", index + 1, command);
	if (codes && (!json_is_array(codes) || json_array_size(codes) != json_array_size(times)))
		return err_set(e, "hyperfine result %zu: \"exit_codes\" is not one per time", index + 1);
	json_t *jparams = json_object();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)params, key, v) {
		if (json_is_string(v))
			json_object_set(jparams, key, v);
		else if (json_is_number(v)) /* hyperfine writes strings; a number written by another tool */
			json_object_set_new(jparams, key, json_sprintf("%g", json_number_value(v)));
	}
	size_t cmd = bench_record_add_command(rec, command, json_string(command), jparams);
	json_t *cmd_j = json_array_get(json_object_get(rec, "commands"), cmd);
	json_object_set_new(cmd_j, "hyperfine", json_pack("{s:O?, s:O?}", "user", json_object_get(r, "user"), "system",
							  json_object_get(r, "system")));
	size_t i;
	json_array_foreach(times, i, v) {
		double t = json_number_value(v);
		if (!json_is_number(v) || !isfinite(t) || t < 0)
			return err_set(e, "hyperfine result %zu ('%.64s'): time %zu is not a number of seconds", index + 1,
				       command, i + 1);
		bench_record_add_run(rec, cmd, run_of(command, t, json_array_get(codes, i)));
	}
	return 0;
}

int hyperfine_to_bench(const json_t *hf, json_t **out, struct err *e)
{
	const json_t *results = json_object_get(hf, "results");
	if (!hyperfine_is(hf) || json_array_size(results) == 0)
		return err_set(e, "not hyperfine's results (no \"results\" array)");
	json_t *rec = bench_record_new("", json_pack("{s:s}", "source", "hyperfine"));
	size_t i;
	json_t *r;
	json_array_foreach(results, i, r)
		if (add_result(rec, r, i, e) < 0) {
			json_decref(rec);
			return -1;
		}
	if (bench_record_finish(rec, NULL, e) < 0) {
		json_decref(rec);
		return err_wrap(e, "hyperfine results");
	}
	*out = rec;
	return 0;
}
