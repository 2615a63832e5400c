/* xalloc: allocation that cannot return NULL.
 *
 * perfhunt's allocations are small and bounded; running out of memory for
 * them is not a condition the tool can report usefully, so these abort with a
 * message instead of threading ENOMEM through every caller (as git does).
 */
#ifndef PERFHUNT_XALLOC_H
#define PERFHUNT_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grows *p (holding *cap elements of size elem) to hold at least need. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Joins n words with sep between them (a shell command from its words); caller frees. */
char *xjoin(char *const *words, size_t n, const char *sep);
/* A copy of a NULL-terminated list of strings (NULL for NULL); free it with xstrv_free. */
char **xstrv_dup(char *const *v);
/* Frees each string of a NULL-terminated list, then the list (NULL is fine). */
void xstrv_free(char **v);
/* Returns a newly allocated formatted string; caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
