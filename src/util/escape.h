/* escape: user text made one well-formed field of a file other tools read.
 *
 * Phase names, commands, parameters and labels come from the measured program
 * or its user. Written raw they break a file's structure (a ',' shifts every
 * CSV column, a ';' makes fake frames) or reach the program that opens it (a
 * spreadsheet formula, HTML in a pull request). Each format has one writer
 * here, used by every export of that format; docs/FORMATS.md states the rules.
 */
#ifndef PERFHUNT_ESCAPE_H
#define PERFHUNT_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Bytes escape_csv may need for a text of len bytes, its NUL included. */
#define ESCAPE_CSV_BYTES(len) (2 * (len) + 3)
/* s as one RFC 4180 field into out (ESCAPE_CSV_BYTES(strlen(s)) bytes); returns
 * its length. A field holding ',', '"', CR or LF is quoted, '"' doubled. A
 * cell a spreadsheet would evaluate (first byte '=', '+', '-', '@', tab or CR)
 * is neutralised as OWASP recommends: quoted, with a "'" before it; a plain
 * decimal number ("-1.5", "+2") is a value, not a formula, and stays as it is. */
size_t escape_csv(char *out, const char *s);
/* escape_csv(s) written to f; returns what fputs returns. */
int escape_csv_fputs(const char *s, FILE *f);

/* s as the text of a markdown table cell (GitHub Flavored Markdown): '<', '>'
 * and '&' as HTML entities; '\', '|', '`', '*', '[', ']', '~' and a '_' that
 * could open or close emphasis after a backslash; a line break or other
 * control byte as a space. Nothing in the cell is HTML or markdown structure. */
void escape_markdown(const char *s, FILE *f);
/* s as the text of a code span (inside backquotes) in a table cell: HTML is
 * not read there, so only what ends the span or the cell is changed: '`' as
 * "'", '|' as "\|", a line break or other control byte as a space. */
void escape_markdown_code(const char *s, FILE *f);

/* Bytes escape_frame may need for a name of len bytes, its NUL included. */
#define ESCAPE_FRAME_BYTES(len) (3 * (len) + 1)
/* name as part of one frame of a folded stack ("a;b;c COUNT"): '%', ';' and
 * control bytes (line breaks) as %XX, so a name never makes frames or lines of
 * its own; out holds ESCAPE_FRAME_BYTES(strlen(name)). Returns the length. */
size_t escape_frame(char *out, const char *name);
/* Undoes escape_frame on the n bytes at s into out (n + 1 bytes); returns the length. */
size_t escape_frame_decode(char *out, const char *s, size_t n);

#endif
