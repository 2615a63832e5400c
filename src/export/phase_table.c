/* phase_table: the rows of phase tables and the nesting of phase names.
 *
 * The nesting is stats/nesting's sorted sweep over the record's phases (the
 * names interned once by a sort), so a table of thousands of nested phases
 * costs O(P log P), not the P^3 of a pairwise search. The rows are the names
 * with the most time, up to a bound, their parents found by binary search.
 */
#include "export/phase_table.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "stats/nesting.h"
#include "util/xalloc.h"

struct nest_name {
	const char *name;
	const char *parent;
};

struct phase_nest {
	struct nest_name *names;  /* sorted by name */
	size_t n_names;
};

static int cmp_num(double a, double b)
{
	return (a > b) - (a < b);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const struct nest_name *)elem)->name);
}

struct phase_nest *phase_nest_new(const json_t *phases)
{
	struct phase_nest *t = xcalloc(1, sizeof(*t));
	size_t n = 0, i;
	const json_t *ph;
	const char **names = xcalloc(json_array_size(phases) + 1, sizeof(*names));
	struct nesting_span *spans = xcalloc(json_array_size(phases) + 1, sizeof(*spans));
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		if (!json_is_object(ph) || !name)
			continue;
		names[n] = name;
		spans[n++] = (struct nesting_span){ .start_ms = json_number_value(json_object_get(ph, "start_ms")),
						    .end_ms = json_number_value(json_object_get(ph, "end_ms")) };
	}
	/* each name once, sorted; each span's name by binary search */
	const char **sorted = xcalloc(n + 1, sizeof(*sorted));
	memcpy(sorted, names, n * sizeof(*names));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	t->names = xcalloc(n + 1, sizeof(*t->names));
	for (i = 0; i < n; i++)
		if (!t->n_names || strcmp(t->names[t->n_names - 1].name, sorted[i]))
			t->names[t->n_names++].name = sorted[i];
	for (i = 0; i < n; i++)
		spans[i].name = (size_t)((const struct nest_name *)bsearch(names[i], t->names, t->n_names,
									  sizeof(*t->names), cmp_name_key) - t->names);
	size_t *parent = xcalloc(t->n_names + 1, sizeof(*parent));
	nesting_parents(spans, n, t->n_names, parent);
	for (i = 0; i < t->n_names; i++)
		t->names[i].parent = parent[i] == NESTING_NONE ? NULL : t->names[parent[i]].name;
	free(parent);
	free(sorted);
	free(spans);
	free(names);
	return t;
}

void phase_nest_free(struct phase_nest *t)
{
	if (!t)
		return;
	free(t->names);
	free(t);
}

const char *phase_nest_parent(const struct phase_nest *t, const char *name)
{
	const struct nest_name *n = bsearch(name, t->names, t->n_names, sizeof(*t->names), cmp_name_key);
	return n ? n->parent : NULL;
}

struct ranked {
	const json_t *o;
	double v;
	size_t index;
};

static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = cmp_num(y->v, x->v);
	return c ? c : cmp_num((double)x->index, (double)y->index);
}

static int cmp_index(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	return cmp_num((double)x->index, (double)y->index);
}

/* The objs with the max largest values of key, in their order, into kept. */
static size_t pick(const json_t *const *objs, size_t n, const char *key, size_t max, const json_t **kept)
{
	struct ranked *r = xcalloc(n + 1, sizeof(*r));
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ .o = objs[i], .v = json_number_value(json_object_get(objs[i], key)), .index = i };
	if (n > max) { /* the largest, back in their order */
		qsort(r, n, sizeof(*r), cmp_ranked);
		n = max;
		qsort(r, n, sizeof(*r), cmp_index);
	}
	for (size_t i = 0; i < n; i++)
		kept[i] = r[i].o;
	free(r);
	return n;
}

size_t phase_table_pick(const json_t *rows, const char *key, size_t max, const json_t **kept)
{
	size_t n = 0, i;
	const json_t *o;
	const json_t **objs = xcalloc(json_array_size(rows) + 1, sizeof(*objs));
	json_array_foreach(rows, i, o)
		if (json_is_object(o))
			objs[n++] = o;
	n = pick(objs, n, key, max, kept);
	free(objs);
	return n;
}

struct row_key {
	const char *name;
	size_t row;
};

static int cmp_row_key(const void *a, const void *b)
{
	const struct row_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : cmp_num((double)x->row, (double)y->row);
}

static int cmp_row_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct row_key *)elem)->name);
}

void phase_rows_init(struct phase_rows *pr, const json_t *stats, const json_t *phases, size_t max)
{
	memset(pr, 0, sizeof(*pr));
	size_t total = json_array_size(stats), i;
	const json_t *o;
	const json_t **named = xcalloc(total + 1, sizeof(*named));
	size_t n_named = 0;
	json_array_foreach(stats, i, o)
		if (json_is_object(o) && json_is_string(json_object_get(o, "name")))
			named[n_named++] = o;
	pr->stat = xcalloc((n_named < max ? n_named : max) + 1, sizeof(*pr->stat));
	pr->n = pick(named, n_named, "total_ms", max, pr->stat);
	if (pr->n < n_named) {
		size_t k = 0;
		for (i = 0; i < n_named; i++) { /* both in the record's order */
			if (k < pr->n && named[i] == pr->stat[k]) {
				k++;
				continue;
			}
			pr->left_out++;
			pr->left_out_count += json_number_value(json_object_get(named[i], "count"));
			pr->left_out_ms += json_number_value(json_object_get(named[i], "total_ms"));
		}
	}
	free(named);
	/* each row's parent row: a name looked up among the rows, the first row of a name */
	struct row_key *keys = xcalloc(pr->n + 1, sizeof(*keys));
	for (i = 0; i < pr->n; i++)
		keys[i] = (struct row_key){ .name = json_string_value(json_object_get(pr->stat[i], "name")), .row = i };
	qsort(keys, pr->n, sizeof(*keys), cmp_row_key);
	struct phase_nest *t = phase_nest_new(phases);
	pr->parent = xcalloc(pr->n + 1, sizeof(*pr->parent));
	for (i = 0; i < pr->n; i++) {
		const char *p = phase_nest_parent(t, json_string_value(json_object_get(pr->stat[i], "name")));
		const struct row_key *k = p ? bsearch(p, keys, pr->n, sizeof(*keys), cmp_row_name) : NULL;
		while (k && k > keys && !strcmp(k[-1].name, p))
			k--; /* bsearch finds any row of the name: the first */
		pr->parent[i] = k ? k->row : PHASE_ROWS_NONE;
	}
	phase_nest_free(t);
	free(keys);
}

void phase_rows_release(struct phase_rows *pr)
{
	free(pr->stat);
	free(pr->parent);
	memset(pr, 0, sizeof(*pr));
}
