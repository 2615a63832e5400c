/* recshape: type checks of run, bench and compare records (see recshape.h).
 *
 * Each record kind is a short list of (member, allowed types) rules, applied
 * to members that are present; arrays name the type of their elements. The
 * error names the member by its path (commands[0].runs[2].summary), as jq does.
 */
#include "record/recshape.h"

#include <stdio.h>
#include <string.h>

enum {
	T_OBJ = 1,
	T_ARR = 2,
	T_STR = 4,
	T_NUM = 8,
	T_BOOL = 16,
	T_NULL = 32,
	T_REQUIRED = 64, /* the member must be present */
};

struct recshape_rule {
	const char *key;
	unsigned types;
	unsigned each; /* for an array: the type of every element, 0 = any */
};

static const char *recshape_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

static unsigned recshape_type(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return T_OBJ;
	case JSON_ARRAY: return T_ARR;
	case JSON_STRING: return T_STR;
	case JSON_INTEGER:
	case JSON_REAL: return T_NUM;
	case JSON_TRUE:
	case JSON_FALSE: return T_BOOL;
	default: return T_NULL;
	}
}

static int recshape_fail(const char *where, const char *key, const json_t *v, unsigned types, struct err *e)
{
	static const struct { unsigned t; const char *name; } names[] = {
		{ T_OBJ, "an object" }, { T_ARR, "an array" }, { T_STR, "a string" },
		{ T_NUM, "a number" }, { T_BOOL, "a boolean" }, { T_NULL, "null" },
	};
	char want[96] = "";
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (types & names[i].t)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%s", *want ? " or " : "",
				 names[i].name);
	if (!v)
		return err_set(e, "%s%s%s is missing (%s expected)", where, *where ? "." : "", key, want);
	return err_set(e, "%s%s%s is %s, expected %s", where, *where ? "." : "", key, recshape_type_name(v), want);
}

/* Applies rules to object o (named where); elements of arrays are named key[i]. */
static int recshape_apply(const json_t *o, const char *where, const struct recshape_rule *rules, size_t n,
			  struct err *e)
{
	for (size_t r = 0; r < n; r++) {
		const json_t *v = json_object_get(o, rules[r].key);
		if (!v) {
			if (rules[r].types & T_REQUIRED)
				return recshape_fail(where, rules[r].key, NULL, rules[r].types, e);
			continue;
		}
		if (!(recshape_type(v) & rules[r].types))
			return recshape_fail(where, rules[r].key, v, rules[r].types, e);
		if (!json_is_array(v) || !rules[r].each)
			continue;
		size_t i;
		const json_t *x;
		json_array_foreach(v, i, x) {
			if (!(recshape_type(x) & rules[r].each)) {
				char key[96];
				snprintf(key, sizeof(key), "%s[%zu]", rules[r].key, i);
				return recshape_fail(where, key, x, rules[r].each, e);
			}
		}
	}
	return 0;
}

/* Every element of the array o[key] (objects) against rules. */
static int recshape_each(const json_t *o, const char *where, const char *key, const struct recshape_rule *rules,
			 size_t n, struct err *e)
{
	size_t i;
	const json_t *x;
	json_array_foreach(json_object_get(o, key), i, x) {
		char path[160];
		snprintf(path, sizeof(path), "%s%s%s[%zu]", where, *where ? "." : "", key, i);
		if (recshape_apply(x, path, rules, n, e) < 0)
			return -1;
	}
	return 0;
}

#define N(a) (sizeof(a) / sizeof(*(a)))
#define NUM (T_NUM | T_NULL)
#define STR (T_STR | T_NULL)

static const struct recshape_rule recshape_run[] = {
	{ "command", T_ARR | T_STR, T_STR }, { "summary", T_OBJ, 0 },
	{ "kind", T_STR, 0 }, { "started_at", STR, 0 }, { "ended", STR, 0 },
	{ "exit", T_OBJ | T_NULL, 0 }, { "host", T_OBJ | T_NULL, 0 }, { "git", T_OBJ | T_NULL, 0 },
	{ "options", T_OBJ | T_NULL, 0 }, { "tags", T_ARR, T_STR }, { "notes", T_ARR, T_STR },
	{ "peaks", T_ARR, T_OBJ }, { "phases", T_ARR, T_OBJ }, { "phase_stats", T_ARR, T_OBJ },
	{ "lanes", T_ARR, T_OBJ }, { "probes", T_ARR, T_OBJ }, { "probe_info", T_OBJ | T_NULL, 0 },
	{ "counters", T_OBJ | T_NULL, 0 }, { "samples", T_OBJ | T_NULL, 0 },
};
static const struct recshape_rule recshape_summary[] = {
	{ "wall_s", NUM, 0 }, { "user_s", NUM, 0 }, { "sys_s", NUM, 0 }, { "cpu_pct", NUM, 0 },
	{ "peak_rss_kb", NUM, 0 }, { "peak_rss_method", STR, 0 }, { "peak_rss_pid", NUM, 0 },
	{ "peak_rss_comm", STR, 0 }, { "peak_tree_rss_kb", NUM, 0 }, { "peak_at_ms", NUM, 0 },
	{ "peak_phase", STR, 0 }, { "cgroup_peak_kb", NUM, 0 }, { "cgroup_method", STR, 0 },
	{ "pss_peak_kb", NUM, 0 }, { "gpu_peak_mib", NUM, 0 }, { "minflt", NUM, 0 }, { "majflt", NUM, 0 },
	{ "vcsw", NUM, 0 }, { "ivcsw", NUM, 0 }, { "read_bytes", NUM, 0 }, { "write_bytes", NUM, 0 },
	{ "max_procs", NUM, 0 }, { "max_threads", NUM, 0 }, { "samples", NUM, 0 }, { "interval_ms", NUM, 0 },
	{ "monitor_cpu_s", NUM, 0 }, { "tree_mem_method", STR, 0 },
};
static const struct recshape_rule recshape_exit[] = {
	{ "code", NUM, 0 }, { "signal", NUM, 0 }, { "status", NUM, 0 }, { "signal_name", STR, 0 },
	{ "core_dumped", T_BOOL | T_NULL, 0 }, { "oom_killed", T_BOOL | T_NULL, 0 },
};
static const struct recshape_rule recshape_host[] = {
	{ "hostname", STR, 0 }, { "kernel", STR, 0 }, { "cpu_model", STR, 0 }, { "cores", NUM, 0 },
	{ "memory_kb", NUM, 0 },
};
static const struct recshape_rule recshape_git[] = { { "commit", STR, 0 }, { "dirty", T_BOOL | T_NULL, 0 } };
static const struct recshape_rule recshape_peak[] = {
	{ "scope", STR, 0 }, { "kb", NUM, 0 }, { "method", STR, 0 }, { "exact", T_BOOL | T_NULL, 0 },
	{ "pid", NUM, 0 }, { "comm", STR, 0 }, { "phase", STR, 0 }, { "note", STR, 0 }, { "at_ms", NUM, 0 },
	{ "idle_kb", NUM, 0 }, { "above_idle_kb", NUM, 0 }, { "bound", STR, 0 }, { "at_least_kb", NUM, 0 },
	{ "before_attach", T_BOOL, 0 },
};
static const struct recshape_rule recshape_phase[] = {
	{ "name", STR, 0 }, { "lane", STR, 0 }, { "start_ms", NUM, 0 }, { "end_ms", NUM, 0 },
};
static const struct recshape_rule recshape_phase_stat[] = {
	{ "name", STR, 0 }, { "count", NUM, 0 }, { "total_ms", NUM, 0 }, { "median_ms", NUM, 0 },
	{ "min_ms", NUM, 0 }, { "max_ms", NUM, 0 },
};
static const struct recshape_rule recshape_lane[] = {
	{ "lane", STR, 0 }, { "phases", NUM, 0 }, { "busy_ms", NUM, 0 }, { "busy_pct", NUM, 0 },
	{ "span_ms", NUM, 0 }, { "gaps", NUM, 0 }, { "longest_gap_ms", NUM, 0 },
};
static const struct recshape_rule recshape_samples[] = {
	{ "columns", T_ARR, T_STR }, { "rows", T_ARR, T_ARR },
};

static int recshape_run_check(const json_t *rec, const char *where, struct err *e)
{
	char path[160];
	static const struct {
		const char *key;
		const struct recshape_rule *rules;
		size_t n;
	} members[] = {
		{ "summary", recshape_summary, N(recshape_summary) }, { "exit", recshape_exit, N(recshape_exit) },
		{ "host", recshape_host, N(recshape_host) }, { "git", recshape_git, N(recshape_git) },
		{ "samples", recshape_samples, N(recshape_samples) },
	}, lists[] = {
		{ "peaks", recshape_peak, N(recshape_peak) }, { "phases", recshape_phase, N(recshape_phase) },
		{ "phase_stats", recshape_phase_stat, N(recshape_phase_stat) },
		{ "lanes", recshape_lane, N(recshape_lane) },
	};
	if (recshape_apply(rec, where, recshape_run, N(recshape_run), e) < 0)
		return -1;
	for (size_t i = 0; i < N(members); i++) {
		snprintf(path, sizeof(path), "%s%s%s", where, *where ? "." : "", members[i].key);
		if (recshape_apply(json_object_get(rec, members[i].key), path, members[i].rules, members[i].n, e) < 0)
			return -1;
	}
	for (size_t i = 0; i < N(lists); i++)
		if (recshape_each(rec, where, lists[i].key, lists[i].rules, lists[i].n, e) < 0)
			return -1;
	const char *name;
	const json_t *v;
	json_object_foreach((json_t *)json_object_get(rec, "counters"), name, v)
		if (!json_is_object(v)) {
			snprintf(path, sizeof(path), "%s%scounters", where, *where ? "." : "");
			return recshape_fail(path, name, v, T_OBJ, e);
		}
	return 0;
}

static const struct recshape_rule recshape_bench[] = {
	{ "commands", T_ARR | T_REQUIRED, T_OBJ }, { "host", T_OBJ | T_NULL, 0 }, { "git", T_OBJ | T_NULL, 0 },
	{ "options", T_OBJ | T_NULL, 0 }, { "started_at", STR, 0 },
};
static const struct recshape_rule recshape_bench_cmd[] = {
	{ "name", STR, 0 }, { "command", T_ARR | T_STR, T_STR }, { "runs", T_ARR, T_OBJ },
};

static int recshape_bench_check(const json_t *rec, struct err *e)
{
	if (recshape_apply(rec, "", recshape_bench, N(recshape_bench), e) < 0 ||
	    recshape_each(rec, "", "commands", recshape_bench_cmd, N(recshape_bench_cmd), e) < 0)
		return -1;
	size_t i, j;
	const json_t *c, *r;
	json_array_foreach(json_object_get(rec, "commands"), i, c) json_array_foreach(json_object_get(c, "runs"), j, r) {
		char path[64];
		snprintf(path, sizeof(path), "commands[%zu].runs[%zu]", i, j);
		if (recshape_run_check(r, path, e) < 0)
			return -1;
	}
	return 0;
}

static const struct recshape_rule recshape_compare[] = {
	{ "metrics", T_ARR | T_REQUIRED, T_OBJ }, { "phases", T_ARR, T_OBJ }, { "base", T_OBJ | T_NULL, 0 },
	{ "new", T_OBJ | T_NULL, 0 }, { "geomean", T_OBJ | T_NULL, 0 }, { "threshold_pct", NUM, 0 },
	{ "alpha", NUM, 0 },
};
static const struct recshape_rule recshape_compare_metric[] = {
	{ "name", STR, 0 }, { "verdict", STR, 0 }, { "base", NUM, 0 }, { "new", NUM, 0 },
	{ "delta_pct", NUM, 0 }, { "ci_low", NUM, 0 }, { "ci_high", NUM, 0 }, { "p_value", NUM, 0 },
	{ "p_adjusted", NUM, 0 },
};
static const struct recshape_rule recshape_compare_phase[] = {
	{ "name", STR, 0 }, { "base_ms", NUM, 0 }, { "new_ms", NUM, 0 }, { "delta_ms", NUM, 0 },
	{ "share_pct", NUM, 0 },
};
static const struct recshape_rule recshape_compare_side[] = { { "label", STR, 0 }, { "n", NUM, 0 } };

static int recshape_compare_check(const json_t *rec, struct err *e)
{
	if (recshape_apply(rec, "", recshape_compare, N(recshape_compare), e) < 0 ||
	    recshape_each(rec, "", "metrics", recshape_compare_metric, N(recshape_compare_metric), e) < 0 ||
	    recshape_each(rec, "", "phases", recshape_compare_phase, N(recshape_compare_phase), e) < 0 ||
	    recshape_apply(json_object_get(rec, "base"), "base", recshape_compare_side, N(recshape_compare_side), e) < 0 ||
	    recshape_apply(json_object_get(rec, "new"), "new", recshape_compare_side, N(recshape_compare_side), e) < 0)
		return -1;
	return 0;
}

int recshape_check(const json_t *rec, unsigned need, struct err *e)
{
	if (!json_is_object(rec))
		return err_set(e, "not a perfhunt record (not a JSON object)");
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	if (!schema)
		return err_set(e, "not a perfhunt record: no \"schema\" field");
	if (!strcmp(schema, "perfhunt.run/1")) {
		if ((need & RECSHAPE_SUMMARY) && !json_object_get(rec, "summary"))
			return recshape_fail("", "summary", NULL, T_OBJ, e);
		return recshape_run_check(rec, "", e);
	}
	if (!strcmp(schema, "perfhunt.bench/1"))
		return recshape_bench_check(rec, e);
	if (!strcmp(schema, "perfhunt.compare/1"))
		return recshape_compare_check(rec, e);
	return 0;
}
