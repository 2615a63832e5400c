/* detect_markdown: change points as a markdown table, for a pull request or a wiki. */
#ifndef PERFHUNT_DETECT_MARKDOWN_H
#define PERFHUNT_DETECT_MARKDOWN_H

#include <stdio.h>

#include "stats/detect.h"

/* Writes the document to out; -1 when writing failed. */
int detect_markdown_write(const struct detect_series *s, size_t n, const struct detect_context *c, FILE *out);

#endif
