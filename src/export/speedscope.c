/* speedscope: frames are interned in one object (name -> index), each
 * profile's samples are arrays of indexes root first, weights in ms.
 * The run's profile is its samples in time order (the record's timeline,
 * where it holds every sample), so speedscope's "Time Order" view is the
 * run's chronology; the phases' profiles are merged stacks, as recorded. */
#include "export/speedscope.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "record/command.h"
#include "util/xalloc.h"

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

/* A profile being built: its samples and their weights. */
struct profile {
	json_t *samples, *weights;
	double total;
	json_t *index, *frames;
};

static void add_sample(struct profile *pr, const char *stack, double weight)
{
	json_t *idx = json_array();
	for (const char *p = stack; *p;) {
		const char *semi = strchr(p, ';');
		size_t len = semi ? (size_t)(semi - p) : strlen(p);
		json_array_append_new(idx, json_integer((json_int_t)frame_index(pr->index, pr->frames, p, len)));
		p += len + (semi ? 1 : 0);
	}
	json_array_append_new(pr->samples, idx);
	json_array_append_new(pr->weights, json_real(weight));
	pr->total += weight;
}

static json_t *profile_json(const char *name, struct profile *pr)
{
	return json_pack("{s:s, s:s, s:s, s:f, s:f, s:o, s:o}", "type", "sampled", "name", name, "unit", "milliseconds",
			 "startValue", 0.0, "endValue", pr->total, "samples", pr->samples, "weights", pr->weights);
}

/* A list of merged stacks ({"stack", "count"}), each once with its weight. */
static json_t *sampled(const char *name, const json_t *list, double ms, json_t *index, json_t *frames)
{
	struct profile pr = { .samples = json_array(), .weights = json_array(), .index = index, .frames = frames };
	size_t i;
	const json_t *s;
	json_array_foreach(json_object_get(list, "stacks"), i, s) {
		const char *stack = json_string_value(json_object_get(s, "stack"));
		json_int_t n = json_integer_value(json_object_get(s, "count"));
		if (stack && n > 0)
			add_sample(&pr, stack, (double)n * ms);
	}
	return profile_json(name, &pr);
}

struct timed {
	double t_ms;
	const char *stack;
	size_t index;
};

static int timed_cmp(const void *a, const void *b)
{
	const struct timed *x = a, *y = b;
	if (x->t_ms != y->t_ms)
		return x->t_ms < y->t_ms ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The run's samples in time order from the timeline, or NULL where it does
 * not hold them all (a sample past its bound, or a record whose timeline
 * kept no stacks). */
static json_t *chronological(const json_t *timeline, double ms, json_t *index, json_t *frames)
{
	const json_t *tl = json_object_get(timeline, "samples"), *stacks = json_object_get(timeline, "stacks");
	if (!json_array_size(tl) || !json_is_array(stacks) || json_integer_value(json_object_get(timeline, "dropped")))
		return NULL;
	struct timed *v = xcalloc(json_array_size(tl), sizeof(*v));
	size_t n = 0, i;
	const json_t *s;
	json_array_foreach(tl, i, s) {
		const char *stack = json_string_value(json_array_get(stacks, (size_t)json_integer_value(json_array_get(s, 3))));
		double t = json_number_value(json_array_get(s, 0));
		if (stack && stack[0] && t >= 0)
			v[n++] = (struct timed){ t, stack, i };
	}
	qsort(v, n, sizeof(*v), timed_cmp);
	struct profile pr = { .samples = json_array(), .weights = json_array(), .index = index, .frames = frames };
	for (i = 0; i < n; i++)
		add_sample(&pr, v[i].stack, ms);
	free(v);
	return profile_json("run (rooted at phases, in time order)", &pr);
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
	json_t *ordered = chronological(json_object_get(p, "timeline"), ms, index, frames);
	json_array_append_new(profiles, ordered ? ordered : sampled("run (rooted at phases)", run, ms, index, frames));
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
