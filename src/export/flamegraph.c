/* flamegraph: folded stacks to a bounded tree, and a tree to SVG (see flamegraph.h).
 *
 * The stacks go into a trie keyed by (parent, frame) in one hash table, so a
 * hundred thousand distinct roots cost no sibling scans; each node's value is
 * inclusive, so a child is never wider than its parent and a cut by value
 * keeps the tree connected. The writer lays nodes out from their preorder
 * alone (a cursor per depth), root at the bottom as flamegraph.pl draws it.
 */
#include "export/flamegraph.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/report_chart.h"
#include "record/profile_json.h"
#include "util/units.h"
#include "util/xalloc.h"

#define FG_NAME_MAX 1024   /* bytes of a name kept (tooltips and labels need no more) */
#define FG_X0 8            /* frames span [FG_X0, REPORT_CHART_W - FG_X0] */
#define FG_W (REPORT_CHART_W - 2 * FG_X0)
#define FG_FRAME_H 17
#define FG_TOP 46          /* below the title and the legend */
#define FG_MIN_PX 0.25     /* narrower frames (and what they hold) are not drawn */
#define FG_CHAR_PX 6.4     /* about one character of the 11 px label font */

static const char fg_ellipsis[] = "\u2026";

const char flamegraph_css[] =
	"svg.flame .f rect{stroke:#fff;stroke-width:.5}svg.flame .f:hover rect{stroke:#000;stroke-width:1}"
	"svg.flame .f text{font-size:11px;pointer-events:none}svg text.flegend{font-size:11px}svg text.fnote{fill:#444}"
	"svg.flame .fgrow rect,rect.fgrow{fill:#D6604D}svg.flame .fshrink rect,rect.fshrink{fill:#4393C3}"
	"svg.flame .fsame rect,rect.fsame{fill:#C8C8C8}svg.flame a .f rect{cursor:pointer}";

/* ---- folded stacks to nodes ---- */

struct fg_tnode {
	const char *name; /* into the stack's string (or fg_ellipsis) */
	uint32_t len;
	int32_t child, next; /* first child, next sibling; -1 = none */
	int depth;
	double value;
};

struct fg_trie {
	struct fg_tnode *v; /* v[0] is the root above the root level */
	size_t n, cap;
	int32_t *slots;     /* open addressing over (parent, name): node index or -1 */
	size_t nslots;
	int32_t *parent;    /* parent of each node, for the table's key */
};

static uint64_t fg_hash(int32_t parent, const char *p, size_t n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	return h ^ (h >> 29);
}

static void fg_trie_rehash(struct fg_trie *t)
{
	free(t->slots);
	t->nslots = t->nslots ? t->nslots * 2 : 1024;
	t->slots = xmalloc(t->nslots * sizeof(*t->slots));
	memset(t->slots, 0xff, t->nslots * sizeof(*t->slots));
	for (size_t i = 1; i < t->n; i++) {
		size_t j = fg_hash(t->parent[i], t->v[i].name, t->v[i].len) & (t->nslots - 1);
		while (t->slots[j] >= 0)
			j = (j + 1) & (t->nslots - 1);
		t->slots[j] = (int32_t)i;
	}
}

/* The child of parent named p[0..n), made when new. */
static int32_t fg_trie_child(struct fg_trie *t, int32_t parent, const char *p, size_t n)
{
	if ((t->n + 1) * 2 > t->nslots)
		fg_trie_rehash(t);
	size_t j = fg_hash(parent, p, n) & (t->nslots - 1);
	for (; t->slots[j] >= 0; j = (j + 1) & (t->nslots - 1)) {
		const struct fg_tnode *c = &t->v[t->slots[j]];
		if (t->parent[t->slots[j]] == parent && c->len == n && !memcmp(c->name, p, n))
			return t->slots[j];
	}
	if (t->n == t->cap) {
		size_t cap = t->cap;
		void *v = t->v;
		xgrow(&v, &cap, t->n + 1, sizeof(*t->v));
		t->v = v;
		t->parent = xrealloc(t->parent, cap * sizeof(*t->parent));
		t->cap = cap;
	}
	int32_t i = (int32_t)t->n++;
	t->v[i] = (struct fg_tnode){ p, (uint32_t)n, -1, t->v[parent].child, t->v[parent].depth + 1, 0 };
	t->parent[i] = parent;
	t->v[parent].child = i;
	t->slots[j] = i;
	return i;
}

/* Adds one stack of count samples; returns 1 when it was cut at the depth cap, -1 when it has no frame. */
static int fg_trie_add(struct fg_trie *t, const char *stack, double count)
{
	if (!*stack)
		return -1;
	int32_t at = 0;
	int deep = 0;
	t->v[0].value += count;
	for (const char *p = stack;;) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		if (t->v[at].depth == FLAMEGRAPH_DEPTH_MAX - 2 && semi) {
			at = fg_trie_child(t, at, fg_ellipsis, strlen(fg_ellipsis));
			t->v[at].value += count;
			deep = 1;
			break;
		}
		if (n > UINT32_MAX)
			n = UINT32_MAX;
		at = fg_trie_child(t, at, p, n);
		t->v[at].value += count;
		if (!semi)
			break;
		p = semi + 1;
	}
	return deep;
}

struct fg_sort {
	const char *name;
	uint32_t len;
	int32_t i;
};

static int fg_by_name(const void *a, const void *b)
{
	const struct fg_sort *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int fg_by_value_desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x < y) - (x > y);
}

struct fg_emit {
	const struct fg_trie *t;
	double min_value, cut; /* keep value >= min_value; above cut always, at cut while ties last */
	size_t ties;
	struct flamegraph_nodes *out;
	size_t *name_off;      /* each output node's name in the pool */
	size_t pool_len, pool_cap;
};

/* Copies at most FG_NAME_MAX bytes of the name, cut on a UTF-8 boundary, into the pool. */
static size_t fg_pool_add(struct fg_emit *em, const char *p, size_t n)
{
	int cut = n > FG_NAME_MAX;
	if (cut) {
		n = FG_NAME_MAX;
		while (n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80)
			n--;
	}
	size_t need = em->pool_len + n + sizeof(fg_ellipsis) + 1;
	if (need > em->pool_cap) {
		void *pool = em->out->pool;
		xgrow(&pool, &em->pool_cap, need, 1);
		em->out->pool = pool;
	}
	size_t off = em->pool_len;
	memcpy(em->out->pool + off, p, n);
	if (cut) {
		memcpy(em->out->pool + off + n, fg_ellipsis, strlen(fg_ellipsis));
		n += strlen(fg_ellipsis);
	}
	em->out->pool[off + n] = '\0';
	em->pool_len = off + n + 1;
	return off;
}

static int fg_keep(struct fg_emit *em, double v)
{
	if (v < em->min_value || !(v >= em->cut))
		return 0;
	if (v > em->cut)
		return 1;
	if (!em->ties)
		return 0;
	em->ties--;
	return 1;
}

/* Emits node i's children, by name, each followed by its own (depth <= 64). */
static void fg_emit_children(struct fg_emit *em, int32_t i)
{
	const struct fg_trie *t = em->t;
	size_t nc = 0;
	for (int32_t c = t->v[i].child; c >= 0; c = t->v[c].next)
		nc++;
	if (!nc)
		return;
	struct fg_sort *kids = xmalloc(nc * sizeof(*kids));
	nc = 0;
	for (int32_t c = t->v[i].child; c >= 0; c = t->v[c].next)
		kids[nc++] = (struct fg_sort){ t->v[c].name, t->v[c].len, c };
	qsort(kids, nc, sizeof(*kids), fg_by_name);
	for (size_t k = 0; k < nc; k++) {
		const struct fg_tnode *c = &t->v[kids[k].i];
		if (!fg_keep(em, c->value))
			continue;
		struct flamegraph_nodes *o = em->out;
		em->name_off[o->n] = fg_pool_add(em, c->name, c->len);
		o->v[o->n++] = (struct flamegraph_node){ NULL, c->depth, c->value, NAN, NAN, FLAMEGRAPH_PLAIN };
		fg_emit_children(em, kids[k].i);
	}
	free(kids);
}

int flamegraph_nodes_from_stacks(const json_t *stacks, double min_fraction, struct flamegraph_nodes *out,
				 struct err *e)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_array(stacks))
		return err_set(e, "profile stacks are not an array");
	struct fg_trie t = { 0 };
	t.cap = 256;
	t.v = xmalloc(t.cap * sizeof(*t.v));
	t.parent = xmalloc(t.cap * sizeof(*t.parent));
	t.v[0] = (struct fg_tnode){ "", 0, -1, -1, -1, 0 };
	t.parent[0] = -1;
	t.n = 1;
	fg_trie_rehash(&t);

	size_t i;
	json_t *st;
	json_array_foreach(stacks, i, st) {
		const char *stack = json_string_value(json_object_get(st, "stack"));
		json_t *cv = json_object_get(st, "count");
		if (!cv)
			cv = json_object_get(st, "ms"); /* an off-CPU stack's weight */
		double count = json_is_number(cv) ? json_number_value(cv) : NAN;
		int r = stack && count > 0 && count <= FLAMEGRAPH_VALUE_MAX ? fg_trie_add(&t, stack, count) : -1;
		if (r < 0)
			out->skipped++;
		out->deep += r > 0;
	}
	out->total = t.v[0].value;

	if (!(min_fraction >= 0))
		min_fraction = 0;
	struct fg_emit em = { .t = &t, .min_value = min_fraction * out->total, .cut = 0, .ties = SIZE_MAX, .out = out };
	if (em.min_value <= 0)
		em.min_value = 0;
	/* past the node cap: keep the FLAMEGRAPH_NODES_MAX widest (inclusive values, so still a tree) */
	size_t cand = 0;
	for (size_t k = 1; k < t.n; k++)
		cand += t.v[k].value >= em.min_value;
	if (cand > FLAMEGRAPH_NODES_MAX) {
		double *vals = xmalloc(cand * sizeof(*vals));
		size_t m = 0, above = 0;
		for (size_t k = 1; k < t.n; k++)
			if (t.v[k].value >= em.min_value)
				vals[m++] = t.v[k].value;
		qsort(vals, m, sizeof(*vals), fg_by_value_desc);
		em.cut = vals[FLAMEGRAPH_NODES_MAX - 1];
		for (size_t k = 0; k < m && vals[k] > em.cut; k++)
			above++;
		em.ties = FLAMEGRAPH_NODES_MAX - above;
		free(vals);
	}
	size_t nout = cand < FLAMEGRAPH_NODES_MAX ? cand : FLAMEGRAPH_NODES_MAX;
	out->v = xcalloc(nout ? nout : 1, sizeof(*out->v));
	em.name_off = xcalloc(nout ? nout : 1, sizeof(*em.name_off));
	fg_emit_children(&em, 0);
	out->merged = t.n - 1 - out->n;
	int off_depth = -1; /* the depth of the "[off-cpu]" frame the preorder walk is above */
	for (size_t k = 0; k < out->n; k++) {
		struct flamegraph_node *nd = &out->v[k];
		nd->name = out->pool + em.name_off[k];
		if (off_depth >= 0 && nd->depth <= off_depth)
			off_depth = -1;
		if (off_depth < 0 && !strcmp(nd->name, PROFILE_JSON_OFFCPU))
			off_depth = nd->depth;
		nd->off = off_depth >= 0;
	}
	free(em.name_off);
	free(t.v);
	free(t.parent);
	free(t.slots);
	return 0;
}

void flamegraph_nodes_free(struct flamegraph_nodes *n)
{
	free(n->v);
	free(n->pool);
	memset(n, 0, sizeof(*n));
}

/* ---- nodes to SVG ---- */

enum fg_kind { FG_USER, FG_KERNEL, FG_META, FG_OFF };

static enum fg_kind fg_kind(const char *name, size_t *shown_len)
{
	size_t n = strlen(name);
	*shown_len = n;
	if (n > 4 && !strcmp(name + n - 4, "_[k]")) {
		*shown_len = n - 4;
		return FG_KERNEL;
	}
	if ((n >= 2 && name[0] == '[' && name[n - 1] == ']') || !strcmp(name, fg_ellipsis))
		return FG_META;
	return FG_USER;
}

/* A colour of the kind's family, hashed from the name so a function keeps it
 * from graph to graph: warm red–yellow for user code (flamegraph.pl's "hot"),
 * teal–blue for the kernel, grey–lilac for perfhunt's own frames, blue–violet
 * for off-CPU frames (time blocked, not running). */
static void fg_color(enum fg_kind k, const char *name, size_t n, char *buf, size_t bn)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	double a = (h & 0xff) / 255.0, b = ((h >> 8) & 0xff) / 255.0, c = ((h >> 16) & 0xff) / 255.0;
	int r, g, bl;
	if (k == FG_KERNEL) {
		r = 40 + (int)(70 * a), g = 160 + (int)(55 * b), bl = 190 + (int)(50 * c);
	} else if (k == FG_OFF) { /* blocked: blue–violet, as off-CPU flame graphs are drawn */
		r = 90 + (int)(60 * a), g = 100 + (int)(50 * b), bl = 200 + (int)(55 * c);
	} else if (k == FG_META) {
		r = 190 + (int)(25 * a), g = 185 + (int)(20 * a), bl = 215 + (int)(20 * b);
	} else {
		r = 205 + (int)(50 * c), g = 50 + (int)(180 * a), bl = (int)(55 * b);
	}
	snprintf(buf, bn, "#%02x%02x%02x", r, g, bl);
}

/* The first n bytes of text cut to at most max (>= 1) code points and to what
 * fits in bn bytes, on a code point's boundary, "…" marking a cut, into buf. */
static const char *fg_fit(const char *text, size_t n, size_t max, char *buf, size_t bn)
{
	size_t cps = 0, cut = 0, start = 0, len = n;
	int cutting = 0;
	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)text[i] & 0xC0) != 0x80) {
			if (cps == max - 1)
				cut = i;
			if (cps == max) {
				len = cut;
				cutting = 1;
				break;
			}
			cps++;
			start = i;
		}
		if (i + 1 + sizeof(fg_ellipsis) > bn) { /* a byte past room for the cut mark and NUL */
			len = start;
			cutting = 1;
			break;
		}
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (cutting)
		strcat(buf, fg_ellipsis);
	return buf;
}

/* "59 samples, 596 ms" or "596 ms" */
static void fg_value_text(const struct flamegraph_opts *o, double v, char *buf, size_t n)
{
	char ms[64];
	const char *unit = o->unit && *o->unit ? o->unit : "samples";
	if (!strcmp(unit, "ms")) {
		snprintf(buf, n, "%s", units_ms(v, ms, sizeof(ms)));
		return;
	}
	int k = v == floor(v) && v < 1e15 ? snprintf(buf, n, "%.0f %s", v, unit) : snprintf(buf, n, "%.4g %s", v, unit);
	if (o->ms_per_unit > 0 && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, ", %s", units_ms(v * o->ms_per_unit, ms, sizeof(ms)));
}

struct fg_rect {
	size_t i;    /* node index */
	double x, w; /* in px */
	int depth;
};

/* Lays the nodes out from their preorder; returns the rects to draw (at most
 * FLAMEGRAPH_RECTS_MAX), the total width and how many frames were not drawn. */
static struct fg_rect *fg_layout(const struct flamegraph_node *nodes, size_t n, size_t *nr, double *total,
				 int *max_depth, size_t *hidden)
{
	*total = 0;
	*nr = 0;
	*max_depth = -1;
	*hidden = 0;
	for (size_t i = 0; i < n; i++)
		if (nodes[i].depth == 0 && nodes[i].value > 0 && nodes[i].value <= FLAMEGRAPH_VALUE_MAX)
			*total += nodes[i].value;
	if (!(*total > 0) || !isfinite(*total))
		return NULL;
	double scale = FG_W / *total;
	struct fg_rect *r = xmalloc((n < FLAMEGRAPH_RECTS_MAX ? n : FLAMEGRAPH_RECTS_MAX) * sizeof(*r) + 1);
	double next[FLAMEGRAPH_DEPTH_MAX + 1], end[FLAMEGRAPH_DEPTH_MAX + 1];
	next[0] = 0;
	end[0] = *total;
	int depth_ok = -1;    /* depth of the last node laid out: a node may be at most one deeper */
	int skip_below = -1;  /* a node left out takes its subtree with it */
	for (size_t i = 0; i < n; i++) {
		int d = nodes[i].depth;
		if (skip_below >= 0) {
			if (d > skip_below) {
				(*hidden)++;
				continue;
			}
			skip_below = -1;
		}
		if (d < 0 || d > depth_ok + 1 || d >= FLAMEGRAPH_DEPTH_MAX) {
			(*hidden)++;
			if (d >= 0)
				skip_below = d;
			continue;
		}
		double v = nodes[i].value, x = next[d];
		double w = v > 0 && v <= FLAMEGRAPH_VALUE_MAX ? fmin(v, end[d] - x) : 0;
		if (!(w > 0) || *nr == FLAMEGRAPH_RECTS_MAX || w * scale < FG_MIN_PX) {
			(*hidden)++;
			skip_below = d;
			depth_ok = d - 1; /* its siblings may follow, its children are left out */
			if (w > 0)
				next[d] = x + w;
			continue;
		}
		depth_ok = d;
		next[d] = x + w;
		next[d + 1] = x;
		end[d + 1] = x + w;
		r[(*nr)++] = (struct fg_rect){ i, FG_X0 + x * scale, w * scale, d };
		if (d > *max_depth)
			*max_depth = d;
	}
	return r;
}

static void fg_tooltip(struct svg *s, const struct flamegraph_node *nd, size_t shown,
		       double total, const struct flamegraph_opts *o)
{
	static const char *const states[] = { "", "grown", "shrunk", "within noise" };
	char name[FG_NAME_MAX + 8], val[160], a[64], b[64];
	fg_fit(nd->name, shown, FG_NAME_MAX, name, sizeof(name));
	fg_value_text(o, nd->value, val, sizeof(val));
	double pct = 100 * nd->value / total;
	svg_raw(s, "<title>");
	svg_text(s, name);
	svg_textf(s, "%s%s \u2014 %s, %.*f %% of the graph", nd->off ? " [off-CPU]" : "",
		  shown < strlen(nd->name) ? " [kernel]" : "", val,
		  pct < 0.1 ? 3 : pct < 10 ? 2 : 1, pct);
	if (o->differential && (isfinite(nd->base) || isfinite(nd->nw))) {
		unsigned st = (unsigned)nd->state < 4 ? (unsigned)nd->state : 0;
		svg_textf(s, "; per run %s \u2192 %s%s%s", isfinite(nd->base) ? units_ms(nd->base, a, sizeof(a)) : "\u2013",
			  isfinite(nd->nw) ? units_ms(nd->nw, b, sizeof(b)) : "\u2013", st ? ", " : "", states[st]);
	}
	svg_raw(s, "</title>");
}

static void fg_legend(struct svg *s, const struct flamegraph_opts *o, int meta, int off)
{
	static const char *const plain[][2] = { { "#EB7F1E", "user" }, { "#4BB4D7", "kernel" }, { "#CDC3E1", "[phase], [other]" },
						{ "#7A82E6", "off-CPU (blocked)" } };
	static const char *const diff[][2] = { { "fgrow", "grown" }, { "fshrink", "shrunk" }, { "fsame", "within noise" } };
	double x = FG_X0;
	svg_raw(s, "<g class=\"flegend\">");
	for (int i = 0; i < (!o->differential && off ? 4 : 3); i++) {
		if (!o->differential && i == 2 && !meta)
			continue;
		const char *label = o->differential ? diff[i][1] : plain[i][1];
		if (o->differential)
			svg_printf(s, "<rect class=\"%s\" x=\"%.0f\" y=\"27\" width=\"12\" height=\"12\"/>", diff[i][0], x);
		else
			svg_printf(s, "<rect x=\"%.0f\" y=\"27\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, plain[i][0]);
		svg_printf(s, "<text class=\"flegend\" x=\"%.0f\" y=\"37\">%s</text>", x + 16, label);
		x += 16 + 6.5 * (double)strlen(label) + 14;
	}
	svg_printf(s, "<text class=\"flegend fnote\" x=\"%.0f\" y=\"37\">root at the bottom; "
		   "a frame is as wide as the %s under it, callees above their caller</text></g>\n", x + 6,
		   o->differential ? "time" : "samples");
}

void flamegraph_write(struct svg *s, const struct flamegraph_node *nodes, size_t n, const struct flamegraph_opts *o)
{
	size_t nr, hidden;
	double total;
	int max_depth;
	struct fg_rect *r = fg_layout(nodes, n, &nr, &total, &max_depth, &hidden);
	hidden += o->merged;
	int h = FG_TOP + (max_depth + 1) * FG_FRAME_H + (hidden ? 22 : 8);
	if (!nr)
		h = FG_TOP + 24;
	int meta = 0, off = 0;
	for (size_t k = 0; k < nr; k++) {
		size_t shown;
		off |= nodes[r[k].i].off;
		meta |= !nodes[r[k].i].off && fg_kind(nodes[r[k].i].name ? nodes[r[k].i].name : "", &shown) == FG_META;
	}

	svg_raw(s, "<figure class=\"flame\"");
	if (o->id && *o->id) {
		svg_raw(s, " id=\"");
		svg_text(s, o->id);
		svg_raw(s, "\"");
	}
	svg_printf(s, ">\n<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart flame%s\" viewBox=\"0 0 %d %d\" "
		   "role=\"img\"><title>", o->differential ? " differential" : "", REPORT_CHART_W, h);
	const char *title = o->title ? o->title : "flame graph";
	svg_text(s, title);
	svg_raw(s, "</title><text class=\"ctitle\" x=\"8\" y=\"18\">");
	svg_text(s, title);
	svg_raw(s, "</text>\n");
	fg_legend(s, o, meta, off);
	if (!nr)
		svg_printf(s, "<text class=\"note\" x=\"8\" y=\"%d\">no samples to draw</text>\n", FG_TOP + 14);
	for (size_t k = 0; k < nr; k++) {
		const struct flamegraph_node *nd = &nodes[r[k].i];
		if (!nd->name)
			continue;
		size_t shown;
		enum fg_kind kind = fg_kind(nd->name, &shown);
		if (nd->off)
			kind = FG_OFF;
		static const char *const kinds[] = { "fu", "fk", "fm", "fo" };
		static const char *const states[] = { "fsame", "fgrow", "fshrink", "fsame" };
		double y = FG_TOP + (double)(max_depth - r[k].depth) * FG_FRAME_H;
		const char *link = o->href ? o->href(o->href_arg, nd->name) : NULL;
		if (link) {
			svg_raw(s, "<a href=\"");
			svg_text(s, link);
			svg_raw(s, "\">");
		}
		if (o->differential)
			svg_printf(s, "<g class=\"f %s %s\">", kinds[kind],
				   states[(unsigned)nd->state < 4 ? (unsigned)nd->state : 0]);
		else
			svg_printf(s, "<g class=\"f %s\">", kinds[kind]);
		fg_tooltip(s, nd, shown, total, o);
		svg_printf(s, "<rect x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\"", r[k].x, y, r[k].w, FG_FRAME_H - 1);
		if (!o->differential) {
			char col[16];
			fg_color(kind, nd->name, shown, col, sizeof(col));
			svg_printf(s, " fill=\"%s\"", col);
		}
		svg_raw(s, "/>");
		double fit = (r[k].w - 6) / FG_CHAR_PX;
		if (fit >= 3) {
			char label[4 * 160 + 8];
			fg_fit(nd->name, shown, fit > 150 ? 150 : (size_t)fit, label, sizeof(label));
			/* a nested viewport clips the label to its frame, whatever the font's widths */
			svg_printf(s, "<svg x=\"%.2f\" y=\"%.0f\" width=\"%.2f\" height=\"%d\"><text x=\"3\" y=\"12\">",
				   r[k].x, y, r[k].w, FG_FRAME_H - 1);
			svg_text(s, label);
			svg_raw(s, "</text></svg>");
		}
		svg_raw(s, link ? "</g></a>\n" : "</g>\n");
	}
	if (hidden)
		svg_printf(s, "<text class=\"clamped\" x=\"8\" y=\"%d\">%zu frame%s too narrow, too deep or past "
			   "%d rects not drawn</text>\n", h - 6, hidden, hidden == 1 ? "" : "s", FLAMEGRAPH_RECTS_MAX);
	svg_raw(s, "</svg>\n</figure>\n");
	free(r);
}

char *flamegraph_id(const char *prefix, const char *name)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = strlen(name), keep = n > 64 ? 48 : n;
	char *id = xmalloc(strlen(prefix) + 3 * keep + 24);
	char *p = stpcpy(id, prefix);
	for (size_t i = 0; i < keep; i++) {
		unsigned char c = (unsigned char)name[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
			*p++ = (char)c;
		} else {
			*p++ = '.';
			*p++ = hex[c >> 4];
			*p++ = hex[c & 15];
		}
	}
	if (keep < n)
		sprintf(p, "..%016llx", (unsigned long long)fg_hash(0, name, n));
	else
		*p = '\0';
	return id;
}
