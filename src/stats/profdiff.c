/* profdiff: frames and call paths of two sets of profiles, tested run by run.
 *
 * A phase's frames are a family of their own, corrected by Benjamini and
 * Hochberg: a profile has hundreds of frames, and Holm's correction over them
 * could never name one at 5 + 5 runs (the exact test's smallest p is then
 * 2/252); when nothing changed the chance that any frame is named is still at
 * most alpha, and otherwise at most alpha of the frames named are expected to
 * be noise. The family is made small without looking at which side a run is
 * on: frames with the same per-run values (the callers that hold every sample
 * of their callee) are one test, and a frame whose most extreme arrangement of
 * its pooled values could not reach alpha (one sample in one run) is left out
 * (Gilbert, 2005, after Tarone, 1990). Both depend only on the pooled runs,
 * which the permutation null fixes, so the bound holds. */
#include "stats/profdiff.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define MAX_FRAMES 100

const char *profdiff_state_name(enum profdiff_state s)
{
	switch (s) {
	case PROFDIFF_GROWN: return "grown";
	case PROFDIFF_SHRUNK: return "shrunk";
	case PROFDIFF_UNTESTED: return "not tested";
	default: return "within noise";
	}
}

bool profdiff_frame_kernel(const char *name)
{
	size_t len = strlen(name);
	return len >= 4 && !strcmp(name + len - 4, "_[k]");
}

void profdiff_frame_label(const char *name, char *buf, size_t n, bool *kernel)
{
	size_t len = strlen(name);
	bool k = profdiff_frame_kernel(name);
	if (kernel)
		*kernel = k;
	snprintf(buf, n, "%.*s", (int)(k ? len - 4 : len), name);
}

/* Whether s is, to its end, a chain of clone suffixes (each ".NAME" or
 * ".NAME.N"). */
static bool clone_chain(const char *s)
{
	static const char *const names[] = { "constprop", "isra", "part", "cold", "lto_priv", "llvm" };
	if (!*s)
		return false;
	while (*s) {
		if (*s != '.')
			return false;
		s++;
		size_t k = 0, nn = sizeof(names) / sizeof(names[0]);
		for (; k < nn; k++) {
			size_t l = strlen(names[k]);
			if (!strncmp(s, names[k], l) && (s[l] == '.' || s[l] == '\0')) {
				s += l;
				break;
			}
		}
		if (k == nn)
			return false;
		if (s[0] == '.' && isdigit((unsigned char)s[1])) /* its number */
			for (s++; isdigit((unsigned char)*s); s++)
				;
	}
	return true;
}

/* Cuts the clone suffixes off a frame name, in place. */
static void strip_clone(char *f)
{
	size_t len = strlen(f);
	bool k = profdiff_frame_kernel(f);
	if (k)
		f[len -= 4] = '\0';
	for (char *dot = strchr(f, '.'); dot; dot = strchr(dot + 1, '.'))
		if (dot > f && clone_chain(dot)) {
			*dot = '\0';
			len = (size_t)(dot - f);
			break;
		}
	if (k)
		memcpy(f + len, "_[k]", 5);
}

void profdiff_function_name(const char *frame, char *buf, size_t n)
{
	if (!n)
		return;
	char *copy = xstrdup(frame);
	strip_clone(copy);
	snprintf(buf, n, "%s", copy);
	free(copy);
}

void profdiff_thread_pattern(const char *name, char *buf, size_t n)
{
	size_t len = strlen(name), cut = len;
	while (cut > 0 && isdigit((unsigned char)name[cut - 1]))
		cut--;
	if (cut == len || cut == 0)
		snprintf(buf, n, "%s", name);
	else
		snprintf(buf, n, "%.*s*", (int)cut, name);
}

/* The roots of stacks rooted at their thread's name: names that share a
 * pattern with another ("provd-w0" .. "provd-w3") are compared as the
 * pattern, so a frame summed over a pool's threads is neither split by them
 * nor labelled with one of them. */
struct root_fold {
	char *name, *as;
	size_t names;  /* distinct names folded into as */
};

struct root_folds {
	struct root_fold *v;
	size_t n;
};

static struct root_fold *fold_find(const struct root_folds *rf, const char *name)
{
	for (size_t i = 0; i < rf->n; i++)
		if (!strcmp(rf->v[i].name, name))
			return &rf->v[i];
	return NULL;
}

/* The root frame of a stored stack: its first frame, past the run's phase root. */
static size_t root_span(const char *stack, bool run, const char **root)
{
	if (run && stack[0] == '[' && (!strncmp(stack, "[phase:", 7) || !strncmp(stack, "[no phase]", 10))) {
		const char *semi = strchr(stack, ';');
		if (!semi)
			return 0;
		stack = semi + 1;
	}
	*root = stack;
	return strcspn(stack, ";");
}

static void folds_build(struct root_folds *rf, const json_t *const *runs, size_t nr, const char *phase)
{
	memset(rf, 0, sizeof(*rf));
	size_t cap = 0;
	for (size_t r = 0; r < nr; r++) {
		const json_t *stacks = phase ? json_object_get(json_object_get(json_object_get(runs[r], "phases"), phase),
							       "stacks")
					     : json_object_get(json_object_get(runs[r], "run"), "stacks");
		size_t i;
		const json_t *st;
		json_array_foreach(stacks, i, st) {
			const char *stack = json_string_value(json_object_get(st, "stack")), *root;
			size_t len = stack ? root_span(stack, !phase, &root) : 0;
			if (!len || root[0] == '[') /* a marker, not a thread's name */
				continue;
			char *name = xstrndup(root, len);
			if (fold_find(rf, name)) {
				free(name);
				continue;
			}
			if (rf->n == cap) {
				cap = cap ? 2 * cap : 16;
				rf->v = xrealloc(rf->v, cap * sizeof(*rf->v));
			}
			char pat[PROFDIFF_LABEL];
			profdiff_thread_pattern(name, pat, sizeof(pat));
			rf->v[rf->n++] = (struct root_fold){ .name = name, .as = xstrdup(pat) };
		}
	}
	for (size_t i = 0; i < rf->n; i++)
		for (size_t j = 0; j < rf->n; j++)
			rf->v[i].names += !strcmp(rf->v[i].as, rf->v[j].as);
	for (size_t i = 0; i < rf->n; i++)
		if (rf->v[i].names < 2) {
			free(rf->v[i].as);
			rf->v[i].as = xstrdup(rf->v[i].name);
		}
}

static void folds_release(struct root_folds *rf)
{
	for (size_t i = 0; i < rf->n; i++) {
		free(rf->v[i].name);
		free(rf->v[i].as);
	}
	free(rf->v);
}

/* One frame (parent SIZE_MAX) or call-tree node (parent its node), with its
 * per-run milliseconds: v[0..runs), self[0..runs). */
struct entry {
	size_t parent;
	char *name;
	double *v, *self;
	uint64_t mark;  /* the last stack that counted it (a recursive frame counts once) */
	double leaf_w, leaf_dist_w; /* samples, and samples times frames between it and the leaf */
};

struct table {
	struct entry *e;
	size_t n, cap_e;
	size_t *slots; /* index + 1, 0 free */
	size_t cap;
	size_t runs;
};

static uint64_t key_hash(size_t parent, const char *name)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)parent * 0x9e3779b97f4a7c15ull;
	for (const unsigned char *s = (const unsigned char *)name; *s; s++)
		h = (h ^ *s) * 1099511628211ull;
	return h;
}

static void table_rehash(struct table *t)
{
	free(t->slots);
	t->cap = t->cap ? t->cap * 2 : 256;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < t->n; i++) {
		size_t j = key_hash(t->e[i].parent, t->e[i].name) & (t->cap - 1);
		while (t->slots[j])
			j = (j + 1) & (t->cap - 1);
		t->slots[j] = i + 1;
	}
}

static size_t table_get(struct table *t, size_t parent, const char *name)
{
	if ((t->n + 1) * 2 > t->cap)
		table_rehash(t);
	size_t j = key_hash(parent, name) & (t->cap - 1);
	for (; t->slots[j]; j = (j + 1) & (t->cap - 1)) {
		struct entry *x = &t->e[t->slots[j] - 1];
		if (x->parent == parent && !strcmp(x->name, name))
			return t->slots[j] - 1;
	}
	if (t->n == t->cap_e) {
		t->cap_e = t->cap_e ? 2 * t->cap_e : 256;
		t->e = xrealloc(t->e, t->cap_e * sizeof(*t->e));
	}
	t->e[t->n] = (struct entry){ .parent = parent, .name = xstrdup(name), .v = xcalloc(t->runs, sizeof(double)),
				     .self = xcalloc(t->runs, sizeof(double)) };
	t->slots[j] = ++t->n;
	return t->n - 1;
}

static void table_release(struct table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].name);
		free(t->e[i].v);
		free(t->e[i].self);
	}
	free(t->e);
	free(t->slots);
}

static double run_ms_per_sample(const json_t *prof)
{
	double ms = json_number_value(json_object_get(prof, "ms_per_sample"));
	double hz = json_number_value(json_object_get(prof, "frequency_hz"));
	if (!(ms > 0) && hz > 0)
		ms = 1000 / hz;
	return ms > 0 && isfinite(ms) ? ms : 0;
}

/* The stacks of phase (NULL: the run's, whose phase root is dropped). */
static const json_t *run_stacks(const json_t *prof, const char *phase)
{
	if (!phase)
		return json_object_get(json_object_get(prof, "run"), "stacks");
	return json_object_get(json_object_get(json_object_get(prof, "phases"), phase), "stacks");
}

/* How far from the leaf a frame sits, on average over its samples: the
 * callee of two frames on one path is the nearer, even in stacks that
 * perf unwound short of their root. */
static double leaf_distance(const struct entry *x)
{
	return x->leaf_w > 0 ? x->leaf_dist_w / x->leaf_w : 0;
}

/* Adds one run's stacks to both tables. */
static void add_run(struct table *frames, struct table *nodes, const json_t *prof, const char *phase, size_t r,
		    const struct root_folds *rf, uint64_t *serial, size_t **pos, size_t *cap)
{
	double ms = run_ms_per_sample(prof);
	size_t i;
	const json_t *st;
	json_array_foreach(run_stacks(prof, phase), i, st) {
		const char *stack = json_string_value(json_object_get(st, "stack"));
		/* a sample count, or an off-CPU stack's milliseconds */
		const json_t *wms = json_object_get(st, "ms");
		double w = wms ? json_number_value(wms) : (double)json_integer_value(json_object_get(st, "count")) * ms;
		if (!stack || !(w > 0) || !isfinite(w) || !strcmp(stack, "[other]") || !strcmp(stack, "[no stack]"))
			continue;
		char *copy = xstrdup(stack), *save = NULL;
		size_t parent = SIZE_MAX, n = 0;
		for (char *f = strtok_r(copy, ";", &save); f; f = strtok_r(NULL, ";", &save)) {
			if (!phase && !n && parent == SIZE_MAX && f[0] == '[' &&
			    (!strncmp(f, "[phase:", 7) || !strcmp(f, "[no phase]")))
				continue;
			const struct root_fold *fold = !n && rf ? fold_find(rf, f) : NULL;
			if (fold)
				f = fold->as;
			else
				strip_clone(f);
			parent = table_get(nodes, parent, f);
			nodes->e[parent].v[r] += w;
			if (n == *cap) {
				*cap = *cap ? 2 * *cap : 64;
				*pos = xrealloc(*pos, *cap * sizeof(**pos));
			}
			(*pos)[n++] = table_get(frames, SIZE_MAX, f);
		}
		/* from the leaf: a recursive frame counts once, at its deepest */
		++*serial;
		for (size_t k = n; k-- > 0;) {
			struct entry *x = &frames->e[(*pos)[k]];
			if (x->mark == *serial)
				continue;
			x->mark = *serial;
			x->v[r] += w;
			x->leaf_w += w;
			x->leaf_dist_w += w * (double)(n - 1 - k);
		}
		if (n) {
			frames->e[(*pos)[n - 1]].self[r] += w;
			nodes->e[parent].self[r] += w;
		}
		free(copy);
	}
}

/* qsort_r: vectors of *(size_t *)runs values */
static int cmp_vector(const void *a, const void *b, void *runs)
{
	const double *x = **(const double *const *const *)a, *y = **(const double *const *const *)b;
	for (size_t i = 0; i < *(size_t *)runs; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The smallest p the pooled values could give: the new side holding the
 * largest (or the smallest) of them. */
static double min_achievable_p(const double *v, size_t nb, size_t nn)
{
	size_t r = nb + nn;
	double *s = xmalloc(r * sizeof(*s));
	memcpy(s, v, r * sizeof(*s));
	qsort(s, r, sizeof(*s), cmp_double);
	double lo = stats_mann_whitney_p(s, nn, s + nn, nb, NULL);
	double hi = stats_mann_whitney_p(s, nb, s + nb, nn, NULL);
	free(s);
	return lo < hi ? lo : hi;
}

/* p and Benjamini–Hochberg adjusted p (NAN where not tested) of each vector
 * v[i][0..nb+nn) over the reduced family; returns the family's size. */
static size_t test_family(double *const *v, size_t m, size_t nb, size_t nn, double alpha, double *p, double *padj,
			  enum stats_mwu_method *method)
{
	for (size_t i = 0; i < m; i++) {
		p[i] = padj[i] = NAN;
		method[i] = STATS_MWU_NONE;
	}
	if (nb < 2 || nn < 2 || m == 0)
		return 0;
	/* groups of identical vectors, one representative each */
	double *const **order = xmalloc(m * sizeof(*order));
	for (size_t i = 0; i < m; i++)
		order[i] = &v[i];
	size_t runs = nb + nn;
	qsort_r(order, m, sizeof(*order), cmp_vector, &runs);
	size_t *group = xmalloc(m * sizeof(*group)); /* vector index -> representative slot */
	size_t *rep = xmalloc(m * sizeof(*rep));     /* slot -> a vector index */
	size_t ng = 0;
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || cmp_vector(&order[i - 1], &order[i], &runs))
			rep[ng++] = (size_t)(order[i] - v);
		group[order[i] - v] = ng - 1;
	}
	double *gp = xmalloc(ng * sizeof(*gp)), *gmin = xmalloc(ng * sizeof(*gmin));
	enum stats_mwu_method *gm = xmalloc(ng * sizeof(*gm));
	for (size_t g = 0; g < ng; g++) {
		const double *x = v[rep[g]];
		gp[g] = stats_mann_whitney_p(x, nb, x + nb, nn, &gm[g]);
		gmin[g] = min_achievable_p(x, nb, nn);
	}
	/* only what could reach alpha at all counts towards the family */
	double *tp = xmalloc(ng * sizeof(*tp));
	size_t nt = 0;
	for (size_t g = 0; g < ng; g++)
		tp[g] = gmin[g] <= alpha ? (nt++, gp[g]) : NAN;
	stats_bh(tp, ng, tp);
	for (size_t i = 0; i < m; i++) {
		size_t g = group[i];
		p[i] = gp[g];
		padj[i] = tp[g];
		method[i] = gm[g];
	}
	free(order);
	free(group);
	free(rep);
	free(gp);
	free(gmin);
	free(gm);
	free(tp);
	return nt;
}

static double side_median(const double *v, size_t n)
{
	return n ? stats_median(v, n) : 0;
}

static double side_mean(const double *v, size_t n)
{
	return n ? stats_mean(v, n) : 0;
}

static enum profdiff_state decide(double delta, double padj, size_t nb, size_t nn, double floor_ms, double alpha)
{
	if (nb < 2 || nn < 2)
		return PROFDIFF_UNTESTED;
	if (!(padj < alpha) || fabs(delta) < floor_ms)
		return PROFDIFF_NOISE;
	return delta > 0 ? PROFDIFF_GROWN : PROFDIFF_SHRUNK;
}

static double weight(const struct entry *x, size_t nb, size_t nn)
{
	return (side_mean(x->v, nb) + side_mean(x->v + nb, nn)) / 2;
}

struct sides {
	const struct entry *e;
	size_t nb, nn;
	const double *delta;
};

/* qsort_r over entry indices: children of one parent together, widest first */
static int cmp_child(const void *a, const void *b, void *arg)
{
	const struct sides *c = arg;
	const struct entry *x = &c->e[*(const size_t *)a], *y = &c->e[*(const size_t *)b];
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	double wx = weight(x, c->nb, c->nn), wy = weight(y, c->nb, c->nn);
	if (wx != wy)
		return wx > wy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The tree, preorder, without the nodes below PROFDIFF_MIN_SHARE. */
static void build_nodes(struct profdiff *d, const struct table *t, size_t nb, size_t nn, double floor_ms,
			double alpha)
{
	double total = 0;
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].parent == SIZE_MAX)
			total += weight(&t->e[i], nb, nn);
	if (!(total > 0))
		return;
	size_t *kept = xmalloc((t->n ? t->n : 1) * sizeof(*kept)), nk = 0;
	for (size_t i = 0; i < t->n; i++)
		if (weight(&t->e[i], nb, nn) >= PROFDIFF_MIN_SHARE * total)
			kept[nk++] = i;
	struct sides c = { t->e, nb, nn, NULL };
	qsort_r(kept, nk, sizeof(*kept), cmp_child, &c);
	/* first child of each entry in kept's order; roots are those of SIZE_MAX */
	size_t *first = xmalloc((t->n + 1) * sizeof(*first));
	for (size_t i = 0; i <= t->n; i++)
		first[i] = SIZE_MAX;
	for (size_t i = nk; i-- > 0;) {
		size_t par = t->e[kept[i]].parent;
		first[par == SIZE_MAX ? t->n : par] = i;
	}
	/* depth-first through the kept entries: a stack of positions in kept */
	size_t *stack = xmalloc((nk + 1) * sizeof(*stack)), ns = 0;
	size_t *node_of = xmalloc((t->n ? t->n : 1) * sizeof(*node_of)); /* entry -> node, SIZE_MAX: none */
	for (size_t i = 0; i < t->n; i++)
		node_of[i] = SIZE_MAX;
	d->nodes = xcalloc(nk ? nk : 1, sizeof(*d->nodes));
	size_t *src = xmalloc((nk ? nk : 1) * sizeof(*src));
	if (first[t->n] != SIZE_MAX)
		stack[ns++] = first[t->n];
	while (ns && d->n_nodes < PROFDIFF_MAX_NODES) {
		size_t at = stack[--ns];
		size_t ei = kept[at];
		const struct entry *x = &t->e[ei];
		/* the next sibling after this one, then this one's children on top */
		if (at + 1 < nk && t->e[kept[at + 1]].parent == x->parent)
			stack[ns++] = at + 1;
		if (x->parent != SIZE_MAX && node_of[x->parent] == SIZE_MAX)
			continue; /* its parent was cut */
		struct profdiff_node *nd = &d->nodes[d->n_nodes];
		nd->name = xstrdup(x->name);
		nd->parent = x->parent == SIZE_MAX ? SIZE_MAX : node_of[x->parent];
		nd->depth = nd->parent == SIZE_MAX ? 0 : d->nodes[nd->parent].depth + 1;
		nd->base_ms = side_mean(x->v, nb);
		nd->new_ms = side_mean(x->v + nb, nn);
		node_of[ei] = d->n_nodes;
		src[d->n_nodes++] = ei;
		if (first[ei] != SIZE_MAX)
			stack[ns++] = first[ei];
	}
	free(stack);
	/* the nodes' own family */
	double **vec = xmalloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*vec));
	double *p = xmalloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*p));
	double *padj = xmalloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*padj));
	enum stats_mwu_method *meth = xmalloc((d->n_nodes ? d->n_nodes : 1) * sizeof(*meth));
	for (size_t i = 0; i < d->n_nodes; i++)
		vec[i] = t->e[src[i]].v;
	d->n_node_tests = test_family(vec, d->n_nodes, nb, nn, alpha, p, padj, meth);
	for (size_t i = 0; i < d->n_nodes; i++) {
		const double *v = t->e[src[i]].v;
		double delta = side_median(v + nb, nn) - side_median(v, nb);
		d->nodes[i].p_adjusted = padj[i];
		d->nodes[i].state = decide(delta, padj[i], nb, nn, floor_ms, alpha);
		/* Where perf unwound some of a function's stacks short of their
		 * root, one call path is split into several, each too noisy to
		 * test; the function's change over all of them (its frame's test)
		 * then colours the paths that moved its way by at least the floor. */
		double moved = d->nodes[i].new_ms - d->nodes[i].base_ms;
		if (d->nodes[i].state == PROFDIFF_NOISE && fabs(moved) >= floor_ms) {
			for (size_t f = 0; f < d->n_frames; f++)
				if (!strcmp(d->frames[f].name, d->nodes[i].name)) {
					enum profdiff_state fs = d->frames[f].state;
					if ((fs == PROFDIFF_GROWN && moved > 0) || (fs == PROFDIFF_SHRUNK && moved < 0))
						d->nodes[i].state = fs;
					break;
				}
		}
	}
	free(vec);
	free(p);
	free(padj);
	free(meth);
	free(src);
	free(node_of);
	free(first);
	free(kept);
}

/* |delta| largest first; ties (a frame and the callers that hold all of
 * its samples) deepest first, so the list reads from the code that moved */
static int cmp_frame(const void *a, const void *b, void *arg)
{
	const struct sides *c = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	double x = fabs(c->delta[i]), y = fabs(c->delta[j]);
	if (x != y)
		return x > y ? -1 : 1;
	double li = leaf_distance(&c->e[i]), lj = leaf_distance(&c->e[j]);
	if (li != lj)
		return li < lj ? -1 : 1;
	return strcmp(c->e[i].name, c->e[j].name);
}

/* Where a thread's stack starts when perf unwound it whole. */
static bool thread_entry(const char *frame)
{
	static const char *const entries[] = { "_start", "clone", "clone3", "__clone", "__clone3", "start_thread",
					       "thread_start", "__libc_start_main" };
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (!strcmp(frame, entries[i]))
			return true;
	return false;
}

/* The frame that carries the change: of the frames holding three quarters
 * of the largest change (by the means, which add up), the nearest the leaf; then the
 * call path of its node that moved most. The names carry it even where
 * perf unwound some stacks short of their root. */
static void find_hot(struct profdiff *d, const struct table *t, size_t nb, size_t nn, double s)
{
	double top = 0;
	for (size_t i = 0; i < t->n; i++) {
		double dm = s * (side_mean(t->e[i].v + nb, nn) - side_mean(t->e[i].v, nb));
		top = dm > top ? dm : top;
	}
	if (!(top > 0))
		return;
	const struct entry *hot = NULL;
	double hot_d = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct entry *x = &t->e[i];
		double dm = s * (side_mean(x->v + nb, nn) - side_mean(x->v, nb));
		if (dm >= 0.75 * top && (!hot || leaf_distance(x) < leaf_distance(hot) ||
					 (leaf_distance(x) == leaf_distance(hot) && dm > hot_d))) {
			hot = x;
			hot_d = dm;
		}
	}
	/* its node that moved most, preferring a path perf unwound to a
	 * thread's entry, then one to a known root: a failed unwind ends in
	 * "[unknown]+0x..." frames read from whatever lay on the stack, or
	 * stops short (a blocked thread's stack often does, in libc); among
	 * the paths that carry a quarter of the largest one's move at least (a
	 * whole path that barely moved, a sleep beside the lock's wait, never
	 * stands for a cut one that carries the change) */
	double top_dm = 0;
	for (size_t i = 0; i < d->n_nodes; i++)
		if (!strcmp(d->nodes[i].name, hot->name))
			top_dm = fmax(top_dm, s * (d->nodes[i].new_ms - d->nodes[i].base_ms));
	size_t at = SIZE_MAX;
	double best = 0;
	int best_rank = 0;
	for (size_t i = 0; i < d->n_nodes; i++) {
		if (strcmp(d->nodes[i].name, hot->name) ||
		    (top_dm > 0 && s * (d->nodes[i].new_ms - d->nodes[i].base_ms) < 0.25 * top_dm))
			continue;
		bool known = true;
		size_t outer = i; /* the outermost frame below the process and markers */
		for (size_t k = i; k != SIZE_MAX; k = d->nodes[k].parent) {
			const char *nm = d->nodes[k].name;
			known &= strncmp(nm, "[unknown]", 9) != 0;
			if (nm[0] != '[' && !(d->process_root && d->nodes[k].parent == SIZE_MAX))
				outer = k;
		}
		int rank = known ? 1 + thread_entry(d->nodes[outer].name) : 0;
		double dm = s * (d->nodes[i].new_ms - d->nodes[i].base_ms);
		if (at == SIZE_MAX || rank > best_rank || (rank == best_rank && dm > best)) {
			at = i;
			best = dm;
			best_rank = rank;
		}
	}
	if (at == SIZE_MAX)
		return; /* its nodes were all below the tree's bound */
	size_t depth = (size_t)d->nodes[at].depth + 1;
	d->hot = xmalloc(depth * sizeof(*d->hot));
	d->n_hot = depth;
	for (size_t i = at, k = depth; k-- > 0; i = d->nodes[i].parent)
		d->hot[k] = i;
	d->hot_delta_ms = side_median(hot->v + nb, nn) - side_median(hot->v, nb);
	for (size_t i = 0; i < d->n_frames; i++)
		if (!strcmp(d->frames[i].name, hot->name))
			d->hot_state = d->frames[i].state;
}

static void build_frames(struct profdiff *d, const struct table *t, size_t nb, size_t nn, double floor_ms,
			 double alpha)
{
	size_t m = t->n ? t->n : 1;
	double **vec = xmalloc(m * sizeof(*vec)), *p = xmalloc(m * sizeof(*p)), *padj = xmalloc(m * sizeof(*padj));
	double *delta = xmalloc(m * sizeof(*delta));
	enum stats_mwu_method *meth = xmalloc(m * sizeof(*meth));
	size_t *order = xmalloc(m * sizeof(*order));
	for (size_t i = 0; i < t->n; i++) {
		vec[i] = t->e[i].v;
		delta[i] = side_median(vec[i] + nb, nn) - side_median(vec[i], nb);
		order[i] = i;
	}
	d->n_tests = test_family(vec, t->n, nb, nn, alpha, p, padj, meth);
	struct sides c = { t->e, nb, nn, delta };
	qsort_r(order, t->n, sizeof(*order), cmp_frame, &c);
	size_t keep = t->n < MAX_FRAMES ? t->n : MAX_FRAMES;
	d->frames = xcalloc(keep ? keep : 1, sizeof(*d->frames));
	for (size_t k = 0; k < keep; k++) {
		size_t i = order[k];
		const struct entry *x = &t->e[i];
		d->frames[d->n_frames++] = (struct profdiff_frame){
			.name = xstrdup(x->name),
			.base_ms = side_median(x->v, nb),
			.new_ms = side_median(x->v + nb, nn),
			.delta_ms = delta[i],
			.self_base_ms = side_median(x->self, nb),
			.self_new_ms = side_median(x->self + nb, nn),
			.p_value = p[i],
			.p_adjusted = padj[i],
			.test = meth[i],
			.state = decide(delta[i], padj[i], nb, nn, floor_ms, alpha),
		};
	}
	free(vec);
	free(p);
	free(padj);
	free(delta);
	free(meth);
	free(order);
}

/* The runs of one side that have a profile. */
static size_t profiled(const json_t *runs, const json_t **out)
{
	size_t n = 0, i;
	const json_t *prof;
	json_array_foreach(runs, i, prof)
		if (json_is_object(prof))
			out[n++] = prof;
	return n;
}

struct profdiff *profdiff_phase(const json_t *base, const json_t *nw, const char *phase, double ref_ms,
				double threshold, double alpha)
{
	size_t cap = json_array_size(base) + json_array_size(nw);
	if (!cap)
		return NULL;
	const json_t **runs = xmalloc(cap * sizeof(*runs));
	size_t nb = profiled(base, runs);
	size_t nn = profiled(nw, runs + nb);
	if (!nb || !nn) {
		free(runs);
		return NULL;
	}
	struct table frames = { .runs = nb + nn }, nodes = { .runs = nb + nn };
	uint64_t serial = 0;
	double floor_ms = 0;
	double *cpu = xcalloc(nb + nn, sizeof(*cpu));
	size_t *pos = NULL, npos = 0;
	bool process_root = true;
	for (size_t r = 0; r < nb + nn; r++) {
		const char *root = json_string_value(json_object_get(runs[r], "stacks_root"));
		process_root &= root && !strcmp(root, "process");
	}
	struct root_folds rf = { 0 };
	if (process_root)
		folds_build(&rf, runs, nb + nn, phase);
	for (size_t r = 0; r < nb + nn; r++) {
		add_run(&frames, &nodes, runs[r], phase, r, process_root ? &rf : NULL, &serial, &pos, &npos);
		double ms = run_ms_per_sample(runs[r]);
		if (ms > floor_ms)
			floor_ms = ms; /* at least one sample a run */
		const json_t *table = phase ? json_object_get(json_object_get(runs[r], "phases"), phase)
					    : json_object_get(runs[r], "run");
		const json_t *total_ms = json_object_get(table, "ms"); /* off-CPU */
		cpu[r] = total_ms ? json_number_value(total_ms)
				  : (double)json_integer_value(json_object_get(phase ? table : runs[r], "samples")) * ms;
	}
	if (isfinite(ref_ms) && threshold * ref_ms > floor_ms)
		floor_ms = threshold * ref_ms;
	struct profdiff *d = xcalloc(1, sizeof(*d));
	d->phase = xstrdup(phase ? phase : "");
	d->base_runs = nb;
	d->new_runs = nn;
	d->process_root = process_root;
	d->base_ms = side_median(cpu, nb);
	d->new_ms = side_median(cpu + nb, nn);

	build_frames(d, &frames, nb, nn, floor_ms, alpha);
	build_nodes(d, &nodes, nb, nn, floor_ms, alpha);
	double dir = side_mean(cpu + nb, nn) - side_mean(cpu, nb);
	find_hot(d, &frames, nb, nn, dir > 0 ? 1 : dir < 0 ? -1 : 0);
	for (size_t i = 0; process_root && d->n_hot && i < rf.n; i++)
		if (!strcmp(rf.v[i].as, d->nodes[d->hot[0]].name))
			d->hot_threads = rf.v[i].names;
	folds_release(&rf);
	table_release(&frames);
	table_release(&nodes);
	free(pos);
	free(cpu);
	free(runs);
	return d;
}

void profdiff_free(struct profdiff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_frames; i++)
		free(d->frames[i].name);
	for (size_t i = 0; i < d->n_nodes; i++)
		free(d->nodes[i].name);
	free(d->frames);
	free(d->nodes);
	free(d->hot);
	free(d->phase);
	free(d);
}
