/* report_site: pages of the static trend site (perfhunt history site).
 *
 * index.html lists the benchmarks and every change point; bench-N.html draws
 * one chart per metric of benchmark N over the commits; the points either
 * side of a change and the latest ones (every point with --all-runs) link to
 * runs/ID.html, the report of their first run (report_html). Markup only:
 * the command writes the files.
 */
#ifndef PERFHUNT_REPORT_SITE_H
#define PERFHUNT_REPORT_SITE_H

#include <stddef.h>

#include "export/svg.h"
#include "stats/detect.h"

/* Splits series s[0..n) (sorted by benchmark) into benchmarks: starts[b] is
 * the first series of benchmark b, starts[count] = n (starts has n + 1
 * slots). Returns the count. */
size_t report_site_benches(const struct detect_series *s, size_t n, size_t *starts);
/* The index page of the nbench benchmarks report_site_benches found. */
void report_site_index(const struct detect_series *s, const struct detect_context *c,
		       const size_t *starts, size_t nbench, struct svg *out);
/* The latest points of each series that link to their run's report. */
#define REPORT_SITE_LATEST 5
/* 1 when point i of s is marked and links to its first run's report: the
 * points either side of a change point, the REPORT_SITE_LATEST latest, or
 * every point when all_runs. */
int report_site_linked(const struct detect_series *s, size_t i, int all_runs);
/* The page of one benchmark: series s[from..to), by what changed last
 * (regressions, improvements, shifts, each largest first; then the others in
 * their order), the constant ones listed apart, folded. */
void report_site_bench(const struct detect_series *s, size_t from, size_t to, const struct detect_context *c,
		       int all_runs, struct svg *out);

#endif
