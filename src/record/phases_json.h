/* phases_json: the run record's "phases", "phase_stats", "lanes", "probes"
 * and "probe_info" members (docs/FORMATS.md), built from a phase set.
 */
#ifndef PERFHUNT_PHASES_JSON_H
#define PERFHUNT_PHASES_JSON_H

#include <jansson.h>
#include "monitor/track.h"
#include "probe/phases.h"

/* A record number: whole numbers as integers, others rounded to 1e-3. */
json_t *phases_json_number(double v);
/* A new object (caller owns the reference) holding the five members; call
 * phase_set_finish first so that open phases and statistics are included.
 * The caller merges it into the record with json_object_update. */
json_t *phase_set_to_json(const struct phase_set *s);
/* Adds what the measured tree consumed inside each phase instance of obj
 * (the object phase_set_to_json made) as phases[].resources, and per name as
 * phase_stats[].resources (totals, maxima, per-instance medians); with a
 * client track (run --attach) the command's own as client_resources. A
 * phase of one process (phase_pid; with a GPU trace, phases[].gpu.pid: add
 * the trace's figures first) is charged that process's GPU memory. */
void phases_json_add_resources(json_t *obj, const struct track *measured, const struct track *client);

#endif
