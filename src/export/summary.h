/* summary: the end-of-run summary on the terminal, from a run record.
 * Used by `run` and `watch` at exit and by `show` for a stored record, so the
 * three always print the same figures with the same words.
 */
#ifndef PERFHUNT_SUMMARY_H
#define PERFHUNT_SUMMARY_H

#include <jansson.h>
#include <stdio.h>

void summary_print(const json_t *record, FILE *out);
/* A record's "command" for a terminal: its words quoted as a shell reads them
 * (sh -c 'kill -SEGV $$'), control characters as $'\e...'. Caller frees. */
char *summary_command_text(const json_t *command);
/* RSS over time as one terminal line with its scale (show), from the record's samples. */
void summary_print_sparkline(const json_t *record, FILE *out);

#endif
