/* trace: a record as Chrome trace-event JSON (--export-trace), the format
 * Perfetto's UI and chrome://tracing open.
 *
 * Process 1 is the run: its phases as complete ("X") slices, one thread
 * (track) per lane, plus a further track of the lane where a phase overlaps
 * another of it without nesting (the slices of one track must nest, for the
 * format and Perfetto); and its timelines as counter ("C") events: memory,
 * faults and CPU per interval, GPU memory where sampled. Process 2 holds the
 * profile's timed samples with their stacks, one track per sampled thread:
 * the thread's CPU profile as Chrome writes one ("Profile" and "ProfileChunk"
 * events, which DevTools draws as a flame chart), and the same stacks as the
 * format's top-level "stackFrames" and "samples". Times are microseconds since the
 * recording started (the record's t_ms x 1000). Records without a profile
 * export too.
 */
#ifndef PERFHUNT_TRACE_H
#define PERFHUNT_TRACE_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

/* -1 (e filled) on a record that is not a run record. */
int trace_write(const json_t *rec, FILE *out, struct err *e);

#endif
