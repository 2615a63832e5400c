/* profile_folded: a record's profile as folded stacks (--export-folded).
 *
 * The format of FlameGraph's stackcollapse scripts, which flamegraph.pl,
 * speedscope and inferno read: one line per stack, "frame;frame;frame COUNT",
 * root first. Each stack is rooted at the phases active at its samples
 * ("[phase:NAME]", nested ones joined by '+', or "[no phase]"), so a flame
 * graph splits by phase at once; '%', ';' and control bytes of a name are %XX
 * (util/escape's escape_frame), so a name never makes frames or lines of its
 * own. The record's bound applies: past it, "[other]".
 */
#ifndef PERFHUNT_PROFILE_FOLDED_H
#define PERFHUNT_PROFILE_FOLDED_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

/* -1 (e filled) when rec has no profile. */
int profile_folded_write(const json_t *rec, FILE *out, struct err *e);

#endif
