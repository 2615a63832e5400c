/* report_site: pages of the static trend site (perfhunt history site).
 *
 * index.html lists the benchmarks and every change point; bench-N.html draws
 * one chart per metric of benchmark N over the commits; each point links to
 * runs/ID.html, the report of its first run (report_html). Markup only: the
 * command writes the files.
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
/* The page of one benchmark: series s[from..to). */
void report_site_bench(const struct detect_series *s, size_t from, size_t to, const struct detect_context *c,
		       struct svg *out);

#endif
