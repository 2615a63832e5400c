/* report_gpu: the GPU lanes of a run's HTML report (run --gpu-trace).
 *
 * Drawn under the phases on the same time axis, from gpu_trace.slices.
 */
#ifndef PERFHUNT_REPORT_GPU_H
#define PERFHUNT_REPORT_GPU_H

#include <jansson.h>

#include "export/svg.h"

/* Appends the GPU strip of rec (a figure of its own), or nothing when the
 * record has no GPU slices; t_max_ms is the phases' chart's span. */
void report_gpu_lanes(const json_t *rec, struct svg *s, double t_max_ms);

#endif
