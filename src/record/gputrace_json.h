/* gputrace_json: the GPU side of a run record from the trace of run --gpu-trace:
 * phases[].gpu, phase_stats[].gpu and the record's "gpu_trace" member
 * (docs/FORMATS.md, "GPU activity").
 */
#ifndef PERFHUNT_GPUTRACE_JSON_H
#define PERFHUNT_GPUTRACE_JSON_H

#include <jansson.h>
#include <stdint.h>

#include "gputrace/gputrace.h"

/* Kernels and copies listed in "gpu_trace.slices" (for the trace export): the
 * longest this many, about 60 bytes each in the record. */
#define GPUTRACE_JSON_SLICES 20000

/* Adds each phase instance's GPU activity as phases[].gpu and each name's as
 * phase_stats[].gpu to obj (the object phase_set_to_json made); t0_ns is the
 * monotonic time of the run's start (start_ms 0). */
void gputrace_json_add_phases(json_t *obj, const struct gputrace *t, int64_t t0_ns);
/* The record's "gpu_trace" member (new reference): processes, whole-run totals. */
json_t *gputrace_json_run(const struct gputrace *t, int64_t t0_ns, int64_t end_ns);

#endif
