/* summary: the end-of-run summary on the terminal, from a run record.
 * Used by `run` and `watch` at exit and by `show` for a stored record, so the
 * three always print the same figures with the same words.
 */
#ifndef PERFHUNT_SUMMARY_H
#define PERFHUNT_SUMMARY_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

void summary_print(const json_t *record, FILE *out);
/* A record's "command" for a terminal: its words quoted as a shell reads them
 * (sh -c 'kill -SEGV $$'), control characters as $'\e...'. Caller frees. */
char *summary_command_text(const json_t *command);
/* RSS over time as one terminal line with its scale (show), from the record's samples. */
void summary_print_sparkline(const json_t *record, FILE *out);

/* Where counters were read and perf's page-faults event (or minor-faults +
 * major-faults) differs from the task's minflt + majflt by more than
 * SUMMARY_FAULTS_DIFF_PCT and SUMMARY_FAULTS_DIFF_MIN faults, writes the one
 * line that says so and why into buf and returns true; false (buf untouched)
 * otherwise. Faults the kernel takes on the task's behalf inside a system
 * call (mlock, MAP_POPULATE, get_user_pages behind cudaHostRegister) count in
 * minflt but are no perf page-faults events. */
#define SUMMARY_FAULTS_DIFF_PCT 10
#define SUMMARY_FAULTS_DIFF_MIN 1000
bool summary_fault_note(const json_t *record, char *buf, size_t n);

#endif
