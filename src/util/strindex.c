/* strindex: strings to indices by open addressing (FNV-1a, linear probing).
 *
 * The table doubles when half full, so a probe sequence stays short; nothing
 * is ever removed, which keeps probing simple (no tombstones).
 */
#include "util/strindex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static size_t slot_of(const char *key, size_t cap)
{
	uint64_t h = 14695981039346656037u;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++)
		h = (h ^ *p) * 1099511628211u;
	return (size_t)(h & (cap - 1));
}

static void place(struct strindex_slot *slots, size_t cap, const char *key, size_t value)
{
	size_t i = slot_of(key, cap);
	while (slots[i].key)
		i = (i + 1) & (cap - 1);
	slots[i] = (struct strindex_slot){ key, value };
}

void strindex_release(struct strindex *x)
{
	free(x->slots);
	memset(x, 0, sizeof(*x));
}

size_t strindex_get(const struct strindex *x, const char *key)
{
	if (!x->cap)
		return STRINDEX_NONE;
	for (size_t i = slot_of(key, x->cap); x->slots[i].key; i = (i + 1) & (x->cap - 1))
		if (!strcmp(x->slots[i].key, key))
			return x->slots[i].value;
	return STRINDEX_NONE;
}

void strindex_put(struct strindex *x, const char *key, size_t value)
{
	if (2 * (x->n + 1) > x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 64;
		struct strindex_slot *slots = xcalloc(cap, sizeof(*slots));
		for (size_t i = 0; i < x->cap; i++)
			if (x->slots[i].key)
				place(slots, cap, x->slots[i].key, x->slots[i].value);
		free(x->slots);
		x->slots = slots;
		x->cap = cap;
	}
	place(x->slots, x->cap, key, value);
	x->n++;
}
