/* strindex: a table from strings to indices, for the sets that look names up
 * once per line or per metric (phase names past the list's cap, lanes, the
 * series of compare): O(1) where a scan of the set made them quadratic.
 *
 * Open addressing, at most half full; the keys are borrowed, so a key must
 * stay where it is for as long as the table is used.
 */
#ifndef PERFHUNT_STRINDEX_H
#define PERFHUNT_STRINDEX_H

#include <stddef.h>

#define STRINDEX_NONE ((size_t)-1)

struct strindex_slot {
	const char *key;   /* NULL: empty */
	size_t value;
};

struct strindex {
	struct strindex_slot *slots;
	size_t cap, n;
};

/* A zeroed struct strindex is an empty table. */
void strindex_release(struct strindex *x);
/* The value of key, or STRINDEX_NONE. */
size_t strindex_get(const struct strindex *x, const char *key);
/* Adds key (borrowed, not yet in x) with value. */
void strindex_put(struct strindex *x, const char *key, size_t value);

#endif
