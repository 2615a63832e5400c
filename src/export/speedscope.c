/* speedscope: frames are interned in one object (name -> index), each
 * profile's samples are arrays of indexes root first, weights in ms. */
#include "export/speedscope.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "record/command.h"

static size_t frame_index(json_t *index, json_t *frames, const char *name, size_t len)
{
	char *key = strndup(name, len);
	if (!key)
		abort();
	json_t *v = json_object_get(index, key);
	size_t at;
	if (v) {
		at = (size_t)json_integer_value(v);
	} else {
		at = json_array_size(frames);
		json_object_set_new(index, key, json_integer((json_int_t)at));
		json_array_append_new(frames, json_pack("{s:s}", "name", key));
	}
	free(key);
	return at;
}

static json_t *sampled(const char *name, const json_t *list, double ms, json_t *index, json_t *frames)
{
	json_t *samples = json_array(), *weights = json_array();
	double total = 0;
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(list, "stacks"), i, s) {
		const char *stack = json_string_value(json_object_get(s, "stack"));
		json_int_t n = json_integer_value(json_object_get(s, "count"));
		if (!stack || n <= 0)
			continue;
		json_t *idx = json_array();
		for (const char *p = stack; *p;) {
			const char *semi = strchr(p, ';');
			size_t len = semi ? (size_t)(semi - p) : strlen(p);
			json_array_append_new(idx, json_integer((json_int_t)frame_index(index, frames, p, len)));
			p += len + (semi ? 1 : 0);
		}
		json_array_append_new(samples, idx);
		json_array_append_new(weights, json_real((double)n * ms));
		total += (double)n * ms;
	}
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:o, s:o}", "type", "sampled", "name", name, "unit", "milliseconds",
			 "startValue", 0.0, "endValue", total, "samples", samples, "weights", weights);
}

int speedscope_write(const json_t *rec, FILE *out, struct err *e)
{
	const json_t *p = json_object_get(rec, "profile");
	const json_t *run = json_object_get(p, "run");
	if (!json_is_object(run))
		return err_set(e, "the record has no profile (record it with --profile)");
	double ms = json_number_value(json_object_get(p, "ms_per_sample"));
	if (!(ms > 0))
		ms = 1;
	json_t *index = json_object(), *frames = json_array(), *profiles = json_array();
	json_array_append_new(profiles, sampled("run (rooted at phases)", run, ms, index, frames));
	const char *name;
	const json_t *ph;
	json_object_foreach((json_t *)json_object_get(p, "phases"), name, ph) {
		char title[300];
		snprintf(title, sizeof(title), "phase %s", name);
		json_array_append_new(profiles, sampled(title, ph, ms, index, frames));
	}
	char *line = command_text(json_object_get(rec, "command"));
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "%s", line ? line : "");
	free(line);
	json_t *doc = json_pack("{s:s, s:{s:o}, s:o, s:s, s:i, s:s}", "$schema", SPEEDSCOPE_SCHEMA, "shared", "frames",
				frames, "profiles", profiles, "name", cmd[0] ? cmd : "perfhunt", "activeProfileIndex", 0,
				"exporter", "perfhunt");
	json_decref(index);
	int rc = json_dumpf(doc, out, JSON_COMPACT | JSON_REAL_PRECISION(10)) < 0 ? err_set(e, "cannot write the speedscope JSON") : 0;
	fputc('\n', out);
	json_decref(doc);
	return rc;
}
