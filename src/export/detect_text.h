/* detect_text: change points for the terminal (perfhunt history detect).
 *
 * Also the one place that turns a change point into the words every export
 * shares — the commit labels, the "before -> after" values in the metric's
 * unit, and the two git bisect lines — so the markdown, the JSON and the
 * site say exactly what the terminal says.
 */
#ifndef PERFHUNT_DETECT_TEXT_H
#define PERFHUNT_DETECT_TEXT_H

#include <stdbool.h>
#include <stdio.h>

#include "stats/detect.h"

/* A point for a label: its commit's first 10 hex digits, or "run ID" when
 * it has no commit. */
char *detect_text_point(const struct detect_point *p, char *buf, size_t n);
/* For a reported regression whose two commits are not known neighbours,
 * the lines that localise it: "git bisect start NEW OLD" and "git bisect run
 * perfhunt bisect-check --baseline @commit:OLD --metric M --threshold T --
 * COMMAND" (the threshold half the detected change). Returns 1 with both
 * lines (caller frees), 0 when there is nothing to bisect. */
int detect_text_bisect(const struct detect_series *s, size_t k, char **start, char **run);
/* Counts the reported change points of every series: all, and regressions. */
void detect_text_count(const struct detect_series *s, size_t n, size_t *changes, size_t *regressions);
/* Writes the report; colour (regressions red, improvements green) only when
 * color. -1 when writing failed. */
int detect_text_write(const struct detect_series *s, size_t n, const struct detect_context *c, bool color,
		      FILE *out);

#endif
