/* bisect_text: the terminal report of a perfhunt.bisect/1 record.
 *
 * One pure function from the record to text, so what `perfhunt bisect`
 * prints at the end and what its --export-json file holds cannot disagree.
 */
#ifndef PERFHUNT_BISECT_TEXT_H
#define PERFHUNT_BISECT_TEXT_H

#include <jansson.h>
#include <stdio.h>

/* Writes the tested commits, the skipped ones, the culprit table, the pairs
 * left undecided and the revert line. -1 when writing failed. */
int bisect_text_write(const json_t *rec, FILE *out);

#endif
