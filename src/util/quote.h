/* quote: user-controlled text made safe for a terminal, and commands quoted as a shell reads them.
 *
 * A command, tag, phase name, hostname or process name can hold an escape
 * sequence ("\e]0;pwned\a" retitles the window, "\e[2J" clears it). Everything
 * perfhunt prints for a person goes through here: text that holds no control
 * character is printed as is; otherwise it is shown in double quotes with C
 * escapes, as git quotes paths. Files and JSON keep the exact bytes.
 */
#ifndef PERFHUNT_QUOTE_H
#define PERFHUNT_QUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* true when s holds a byte a terminal could act on: C0 controls, DEL, UTF-8
 * C1 controls (U+0080..U+009F), bidirectional overrides, or invalid UTF-8. */
bool quote_needed(const char *s);
/* s as is when !quote_needed(s), else "..." with \" \\ \t \n \r \a \b \f \v
 * and \ooo (octal, one per byte) escapes. Caller frees. */
char *quote_c(const char *s);
/* A message for a terminal: s as is when !quote_needed(s), else its unsafe
 * bytes escaped as quote_c does them, without quotes around the whole (the
 * message's own quoting of names stays readable). Caller frees. */
char *quote_message(const char *s);
/* Writes quote_c(s) to f; returns what fputs returns. */
int quote_fputs(const char *s, FILE *f);

/* Quoted strings a printer needs until it returns: quote_pool_c gives s
 * itself when it needs no quoting, else a quoted copy the pool owns until
 * quote_pool_release. Zero-initialise (struct quote_pool p = { 0 }). */
struct quote_pool {
	char **held;
	size_t n, cap;
};
const char *quote_pool_c(struct quote_pool *p, const char *s);
void quote_pool_release(struct quote_pool *p);

/* A shell line being built: s (NULL while empty, then the caller's to free)
 * holds len bytes and a terminating NUL in cap. Zero-initialise. Appending
 * keeps the length and grows the buffer geometrically, so a line of N words
 * costs O(total length), not O(N x length). */
struct quote_line {
	char *s;
	size_t len, cap;
};
/* Appends word to l, after a space unless l is empty, quoted as a POSIX
 * shell reads it: as is when it needs nothing, else in single quotes ('\''
 * for a quote). With term, a word that needs quote_needed escapes is written
 * $'...' (bash, zsh, ksh93: \e for ESC), so the line can be shown on a
 * terminal and pasted back. */
void quote_shell(struct quote_line *l, const char *word, bool term);

#endif
