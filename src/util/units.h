/* units: human-readable sizes and durations for terminal output and reports.
 * KB means KiB throughout perfhunt, as in the kernel's VmRSS.
 */
#ifndef PERFHUNT_UNITS_H
#define PERFHUNT_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Each writes "-" for a NaN or an infinity (as for a missing figure). */
/* "512 KiB", "1.50 MiB", "203.12 GiB" */
char *units_kb(double kb, char *buf, size_t n);
/* "850 µs", "12.3 ms", "4.21 s", "2 min 03 s", "1 h 02 min" */
char *units_ms(double ms, char *buf, size_t n);
/* "1.2 k", "3.4 M" for counts */
char *units_count(double v, char *buf, size_t n);

/* The shortest decimal that reads back as v, for the files other programs
 * read (OpenMetrics, Go benchmark lines, CSV): "0.218883", not
 * "0.21888300000000005"; "3" for an integer. %.15g, then %.16g and %.17g,
 * the first that strtod reads back exactly. A NaN is "NaN", an infinity
 * "+Inf" or "-Inf" (OpenMetrics' spelling, which strtod reads too). buf holds
 * at least UNITS_SHORTEST_MAX bytes. */
#define UNITS_SHORTEST_MAX 32
char *units_shortest(double v, char *buf, size_t n);

#endif
