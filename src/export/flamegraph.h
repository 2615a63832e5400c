/* flamegraph: inline-SVG flame graphs for the self-contained report pages.
 *
 * Two steps, so that two callers share the drawing: a run's folded stacks
 * become preorder nodes (flamegraph_nodes_from_stacks), and any preorder
 * nodes — those, or a differential tree built elsewhere — become one
 * <figure> (flamegraph_write). Both are bounded whatever the input: depth,
 * node and rect caps, and values that are 0, negative or not finite skipped.
 */
#ifndef PERFHUNT_FLAMEGRAPH_H
#define PERFHUNT_FLAMEGRAPH_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "export/svg.h"
#include "util/err.h"

#define FLAMEGRAPH_DEPTH_MAX 64    /* levels drawn; deeper frames merge into one "…" frame */
#define FLAMEGRAPH_NODES_MAX 2000  /* nodes flamegraph_nodes_from_stacks returns at most */
#define FLAMEGRAPH_RECTS_MAX 4000  /* rects flamegraph_write draws at most */
#define FLAMEGRAPH_VALUE_MAX 1e300 /* larger counts are skipped (sums stay finite) */
#define FLAMEGRAPH_MIN_FRACTION 0.001 /* reports merge narrower frames: about a pixel */

enum flamegraph_state { FLAMEGRAPH_PLAIN, FLAMEGRAPH_GROWN, FLAMEGRAPH_SHRUNK, FLAMEGRAPH_SAME };

struct flamegraph_node {
	const char *name;      /* folded frame name; a "_[k]" suffix marks a kernel frame */
	int depth;             /* 0 at the root level; nodes in preorder, children follow their parent */
	double value;          /* width weight (inclusive): samples, or ms */
	double base, nw;       /* differential only: per-run ms of each side (shown in the tooltip) */
	enum flamegraph_state state;
	bool off;              /* off-CPU: the "[off-cpu]" marker frame or above it (its own colour) */
};

struct flamegraph_opts {
	const char *id;        /* the HTML id of the figure (anchor for links) */
	const char *title;     /* e.g. "phase pin — 312 samples (3.12 s CPU)" */
	const char *unit;      /* "samples" or "ms", for tooltips */
	double ms_per_unit;    /* tooltips show ms too when > 0 */
	bool differential;     /* colour by state, not by kind */
	/* a frame's link, or NULL for none (the whole run's [phase:NAME] frames
	 * lead to their phase's graph) */
	const char *(*href)(void *arg, const char *frame);
	void *href_arg;
	size_t merged;         /* frames the nodes left out (flamegraph_nodes.merged),
	                        * said with those the drawing leaves out */
};

struct flamegraph_nodes {
	struct flamegraph_node *v; /* n nodes in preorder, siblings by name */
	size_t n;
	double total;              /* the root level's sum: the graph's full width */
	size_t merged;             /* frames not returned: narrower than min_fraction, or past the node cap */
	size_t deep;               /* stacks deeper than FLAMEGRAPH_DEPTH_MAX, cut into "…" */
	size_t skipped;            /* entries skipped: no string stack, no frame, count not in (0, VALUE_MAX] */
	char *pool;                /* owned: the names */
};

/* CSS of the flame graphs, for the page's stylesheet. */
extern const char flamegraph_css[];

/* Preorder nodes from a record's folded stacks (a JSON array of {"stack","count"}
 * or, off-CPU, {"stack","ms"}, root first, ';'-joined; frames from an
 * "[off-cpu]" marker up are marked off); frames narrower than min_fraction of the total are merged
 * into their parent (bounded output). out's arrays are malloc'd; the names are
 * copies in out->pool (1024 bytes at most, a cut marked "…"), so they outlive
 * stacks; flamegraph_nodes_free frees both. Fails only when stacks is not an array. */
int flamegraph_nodes_from_stacks(const json_t *stacks, double min_fraction,
				 struct flamegraph_nodes *out, struct err *e);
void flamegraph_nodes_free(struct flamegraph_nodes *n);
/* Writes one <figure id=...><svg>...</svg></figure> to the report's svg writer. */
void flamegraph_write(struct svg *s, const struct flamegraph_node *nodes, size_t n,
		      const struct flamegraph_opts *o);
/* The HTML id of NAME's flame graph: prefix then NAME with every byte outside
 * [A-Za-z0-9_-] written ".XX" (hex), so distinct names keep distinct ids; a long
 * NAME is cut and a hash of the whole appended. Caller frees. */
char *flamegraph_id(const char *prefix, const char *name);

#endif
