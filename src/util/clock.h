/* clock: the two clocks perfhunt uses.
 *
 * Durations and sample times come from CLOCK_MONOTONIC, so a stepped system
 * clock never bends a timeline; wall-clock (epoch) time is only a label,
 * taken once at the start and advanced by monotonic deltas.
 */
#ifndef PERFHUNT_CLOCK_H
#define PERFHUNT_CLOCK_H

#include <stdint.h>
#include <stddef.h>

int64_t clock_mono_ns(void);
int64_t clock_epoch_ms(void);
/* CPU time this process has used so far (user + sys), in ns. */
int64_t clock_self_cpu_ns(void);
/* Formats epoch ms as RFC 3339 UTC with milliseconds ("2026-11-30T08:12:31.123Z"),
 * floored before 1970 ("1969-12-31T23:59:50.973Z" for -9027). */
void clock_format_rfc3339(int64_t epoch_ms, char *buf, size_t n);

#endif
