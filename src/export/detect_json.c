/* detect_json: the perfhunt.detect/1 record of history detect.
 *
 * Numbers stay numbers in their stored unit (seconds, KiB, ms); a value that
 * does not exist (a change from 0, the spread of one point) is null, never a
 * string, so a CI script can read every field with one type. The bisect
 * lines are the terminal's, word for word.
 */
#include "export/detect_json.h"

#include <math.h>
#include <stdlib.h>

#include "export/detect_text.h"

static json_t *detect_json_num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *detect_json_side(const struct detect_series *s, size_t from, size_t to, double median, double mad)
{
	size_t runs = 0;
	for (size_t i = from; i < to; i++)
		runs += s->points[i].n;
	return json_pack("{s:o, s:o, s:I, s:I, s:s, s:s}", "median", detect_json_num(median), "mad",
			 detect_json_num(mad), "points", (json_int_t)(to - from), "runs", (json_int_t)runs,
			 "first_commit", s->points[from].commit, "last_commit", s->points[to - 1].commit);
}

static json_t *detect_json_change(const struct detect_series *s, size_t k)
{
	const struct changepoint *c = &s->cp.items[k];
	const struct detect_point *old = &s->points[c->index - 1], *nw = &s->points[c->index];
	int64_t between;
	int adjacent = detect_adjacent(s, k, &between);
	json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:f, s:f}",
			      "direction", detect_direction_name(s->directions[k]), "index", (json_int_t)c->index,
			      "new_commit", nw->commit, "old_commit", old->commit, "new_started_at", nw->started_at,
			      "old_started_at", old->started_at, "new_run", (json_int_t)nw->run_ids[0], "old_run",
			      (json_int_t)old->run_ids[0], "adjacent", adjacent < 0 ? json_null() : json_boolean(adjacent),
			      "commits_between", between < 0 ? json_null() : json_integer(between), "before",
			      detect_json_side(s, c->before_start, c->index, c->before_median, c->before_mad), "after",
			      detect_json_side(s, c->index, c->after_end, c->after_median, c->after_mad), "p_value",
			      c->p_value, "q", c->q);
	if (!o)
		return NULL;
	json_object_set_new(o, "change_pct", detect_json_num(100 * c->rel_change));
	char *start, *run;
	if (detect_text_bisect(s, k, &start, &run)) {
		json_object_set_new(o, "bisect", json_pack("{s:s, s:s}", "start", start, "run", run));
		free(start);
		free(run);
	} else {
		json_object_set_new(o, "bisect", json_null());
	}
	return o;
}

json_t *detect_json_record(const struct detect_series *s, size_t n, const struct detect_context *c)
{
	static const char *const better[] = { "lower", "neither", "higher" };
	json_t *series = json_array();
	for (size_t i = 0; i < n; i++) {
		size_t runs = 0;
		for (size_t p = 0; p < s[i].n; p++)
			runs += s[i].points[p].n;
		json_t *changes = json_array();
		for (size_t k = 0; k < s[i].cp.n; k++) {
			if (!detect_reported(&s[i], k))
				continue;
			json_t *ch = detect_json_change(&s[i], k);
			if (!ch) {
				json_decref(changes);
				json_decref(series);
				return NULL;
			}
			json_array_append_new(changes, ch);
		}
		json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:o}", "bench", s[i].bench, "metric",
				      s[i].metric, "better", better[detect_better(s[i].metric) + 1], "points",
				      (json_int_t)s[i].n, "runs", (json_int_t)runs, "tests", (json_int_t)s[i].cp.tests,
				      "merged", (json_int_t)s[i].cp.merged, "changes", changes);
		if (!o) {
			json_decref(series);
			return NULL;
		}
		json_array_append_new(series, o);
	}
	return json_pack("{s:s, s:s, s:f, s:I, s:f, s:I, s:I, s:o, s:{s:I, s:I, s:I, s:I}, s:o}", "schema",
			 "perfhunt.detect/1", "order", c->first_parent ? "first-parent" : "recorded", "alpha",
			 c->opts.alpha, "min_segment", (json_int_t)c->opts.min_segment, "min_magnitude_pct",
			 c->opts.min_magnitude * 100, "permutations", (json_int_t)c->opts.permutations, "seed",
			 (json_int_t)c->opts.seed, "since", c->since ? json_string(c->since) : json_null(), "runs",
			 "read", (json_int_t)c->runs, "dirty", (json_int_t)c->dirty_runs, "off_history",
			 (json_int_t)c->off_history_runs, "nonfinite_values", (json_int_t)c->nonfinite_values,
			 "series", series);
}
