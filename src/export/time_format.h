/* time_format: a run record as GNU time prints it (run -f FORMAT, run -v).
 *
 * GNU time's % directives (%e %U %S %M %x %C ...) and backslash escapes, each
 * filled from the run record's figures: perfhunt measures the tree as wait4
 * does for GNU time, so a script that parsed `time -f` output reads
 * perfhunt's. The figures Linux never keeps (ru_ixrss, ru_nswap, ...) are 0,
 * as GNU time prints them on Linux; the file system's block counts (%I,
 * %O), which perfhunt does not read, are "-".
 */
#ifndef PERFHUNT_TIME_FORMAT_H
#define PERFHUNT_TIME_FORMAT_H

#include <jansson.h>
#include <stdio.h>

/* GNU time's default format, and its -v long listing. */
extern const char time_format_default[];
extern const char time_format_verbose[];

/* Writes, as GNU time does, "Command exited with non-zero status N" (or
 * "Command terminated by signal N") when the command failed, then format
 * with its directives filled from rec and a final newline. An unknown
 * directive is written "?" and its character, as GNU time does. Returns 0,
 * or -1 on a write error. */
int time_format_write(const json_t *rec, const char *format, FILE *out);

#endif
