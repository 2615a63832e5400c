/* compare_json: the perfhunt.compare/1 record of a comparison.
 *
 * The shape is the contract in docs/FORMATS.md, read back by `perfhunt
 * report`; numbers that do not exist are written as null so the file is
 * always valid JSON.
 */
#include "export/compare_json.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/compare_text.h"
#include "record/command.h"

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A phase's profile comparison: sizes, the line, the hot path, the frames. */
static json_t *profile_json(const struct profdiff *d)
{
	if (!d)
		return json_null();
	char line[1024];
	json_t *frames = json_array(), *path = json_array();
	for (size_t i = 0; i < d->n_frames; i++) {
		const struct profdiff_frame *f = &d->frames[i];
		json_array_append_new(frames, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s}",
			"frame", f->name, "base_ms", num(f->base_ms), "new_ms", num(f->new_ms),
			"delta_ms", num(f->delta_ms), "self_base_ms", num(f->self_base_ms),
			"self_new_ms", num(f->self_new_ms), "p_value", num(f->p_value),
			"p_adjusted", num(f->p_adjusted),
			"p_test", f->test == STATS_MWU_NONE ? json_null() : json_string(stats_mwu_method_name(f->test)),
			"state", profdiff_state_name(f->state)));
	}
	for (size_t i = 0; i < d->n_hot; i++)
		json_array_append_new(path, json_string(d->nodes[d->hot[i]].name));
	json_t *nodes = json_array();
	for (size_t i = 0; i < d->n_nodes; i++) {
		const struct profdiff_node *nd = &d->nodes[i];
		json_array_append_new(nodes, json_pack("{s:s, s:i, s:o, s:o, s:s}", "frame", nd->name, "depth", nd->depth,
						       "base_ms", num(nd->base_ms), "new_ms", num(nd->new_ms),
						       "state", profdiff_state_name(nd->state)));
	}
	json_t *o = json_pack("{s:I, s:I, s:o, s:o, s:I, s:s, s:o, s:o, s:s, s:o, s:o}",
		"base_runs", (json_int_t)d->base_runs, "new_runs", (json_int_t)d->new_runs,
		"base_cpu_ms", num(d->base_ms), "new_cpu_ms", num(d->new_ms),
		"tests", (json_int_t)d->n_tests, "line", compare_text_code(d, line, sizeof(line)),
		"hot_path", path, "hot_delta_ms", num(d->hot_delta_ms), "hot_state", profdiff_state_name(d->hot_state),
		"frames", frames, "nodes", nodes);
	if (d->offcpu) /* the phase's blocked time, compared where it blocked */
		json_object_set_new(o, "offcpu", json_true());
	return o;
}

json_t *compare_json_record(const struct comparison *c, const char *base_label, const char *new_label)
{
	json_t *metrics = json_array(), *phases = json_array();
	for (size_t i = 0; i < c->n_metrics; i++) {
		const struct comparison_metric *m = &c->metrics[i];
		json_array_append_new(metrics, json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:b, s:o, s:s}",
			"name", m->name, "base", num(m->base_median), "new", num(m->new_median),
			"delta_pct", num(m->delta_pct), "ci_low", num(m->ci_low), "ci_high", num(m->ci_high),
			"p_value", num(m->p_value), "p_adjusted", num(m->p_adjusted),
			"verdict", stats_verdict_name(m->verdict),
			"n_base", (json_int_t)m->n_base, "n_new", (json_int_t)m->n_new, "p_exact", m->test == STATS_MWU_EXACT,
			"p_test", m->test == STATS_MWU_NONE ? json_null() : json_string(stats_mwu_method_name(m->test)),
			"family", comparison_family_name(m->family)));
		json_object_set_new(json_array_get(metrics, i), "runs_needed",
				    m->runs_needed == 0 ? json_null()
				    : m->runs_needed == SIZE_MAX ? json_integer(-1) : json_integer((json_int_t)m->runs_needed));
	}
	for (size_t i = 0; i < c->n_phases; i++) {
		const struct comparison_phase *p = &c->phases[i];
		json_t *reasons = json_array();
		for (size_t k = 0; k < p->n_reasons; k++) {
			const struct comparison_reason *r = &p->reasons[k];
			json_t *o = json_pack("{s:s, s:o, s:o}", "metric", r->key, "base", num(r->base), "new", num(r->nw));
			if (!strcmp(r->key, "h2d_copy_ms")) /* the copies changed kind */
				json_object_update_new(o, json_pack("{s:o, s:s, s:o, s:s, s:o}", "bytes", num(r->bytes),
								    "base_copies", r->base_pageable ? "pageable" : "pinned",
								    "base_gbps", num(r->base_gbps), "new_copies",
								    r->new_pageable ? "pageable" : "pinned", "new_gbps",
								    num(r->new_gbps)));
			json_array_append_new(reasons, o);
		}
		json_array_append_new(phases, json_pack("{s:s, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:s, s:b, s:o}",
			"name", p->name, "parent", p->parent ? json_string(p->parent) : json_null(),
			"depth", p->depth, "base_ms", num(p->base_ms), "new_ms", num(p->new_ms),
			"delta_ms", num(p->delta_ms), "delta_pct", num(p->delta_pct), "share_pct", num(p->share_pct),
			"verdict", stats_verdict_name(p->verdict), "changed", p->changed, "reasons", reasons));
		json_object_set_new(json_array_get(phases, json_array_size(phases) - 1), "leading",
				    json_boolean(p->leading));
		if (p->profile)
			json_object_set_new(json_array_get(phases, json_array_size(phases) - 1), "profile",
					    profile_json(p->profile));
	}
	json_t *families = json_object();
	char *bc = c->base_command ? command_text(c->base_command) : NULL;
	char *nc = c->new_command ? command_text(c->new_command) : NULL;
	for (int f = 0; f < COMPARISON_FAMILIES; f++) {
		char note[512];
		compare_text_small_n(c, (enum comparison_family)f, note, sizeof(note));
		json_object_set_new(families, comparison_family_name((enum comparison_family)f),
				    json_pack("{s:s, s:s, s:I, s:o}", "metrics", compare_text_family_what((enum comparison_family)f),
					      "correction", "holm", "tests", (json_int_t)c->family_tests[f],
					      "too_few_runs", note[0] ? json_string(note) : json_null()));
	}
	json_t *rec = json_pack("{s:s, s:{s:s, s:I, s:o}, s:{s:s, s:I, s:o}, s:f, s:f, s:o, s:o, s:o, s:{s:o}, s:o, s:I, s:I}",
		"schema", "perfhunt.compare/1",
		"base", "label", base_label, "n", (json_int_t)c->base_runs,
		"command", bc ? json_string(bc) : json_null(),
		"new", "label", new_label, "n", (json_int_t)c->new_runs,
		"command", nc ? json_string(nc) : json_null(),
		"threshold_pct", c->threshold * 100, "alpha", c->alpha,
		"families", families, "metrics", metrics, "phases", phases,
		"geomean", "ratio", num(c->geomean),
		"wall_delta_ms", num(c->wall_delta_ms),
		"regressed", (json_int_t)c->regressed, "improved", (json_int_t)c->improved);
	json_object_set_new(rec, "profiled", json_pack("{s:I, s:I}", "base", (json_int_t)c->base_profiled, "new",
						       (json_int_t)c->new_profiled));
	if (c->run_profile)
		json_object_set_new(rec, "run_profile", profile_json(c->run_profile));
	/* each side's host (its first run's), so a report can say they differ */
	json_object_set(json_object_get(rec, "base"), "host", c->base_host ? c->base_host : json_null());
	json_object_set(json_object_get(rec, "new"), "host", c->new_host ? c->new_host : json_null());
	free(bc);
	free(nc);
	return rec;
}
