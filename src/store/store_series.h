/* store_series: the history read as series over commits, for change points.
 *
 * One series per benchmark (command) and metric, each point a commit: in the
 * order of the branch's first-parent history when the caller passes it (runs
 * at commits off that history are left out), else by recording time. Dirty
 * runs (a work tree that was not its commit) and non-finite values are left
 * out and counted, so every series the detector sees is plain numbers.
 */
#ifndef PERFHUNT_STORE_SERIES_H
#define PERFHUNT_STORE_SERIES_H

#include <stddef.h>

#include "stats/detect.h"
#include "store/store.h"
#include "util/err.h"

struct store_series_filter {
	const char *bench;               /* substring of the command, or NULL */
	const char *const *metrics;      /* exact names, or a prefix ending in '*' */
	size_t n_metrics;
	const char *const *phases;       /* phase NAME selects phase:NAME and phase:NAME.* */
	size_t n_phases;                 /* no metrics and no phases: every metric */
	const char *const *order;        /* commits, oldest first (first-parent), or NULL */
	size_t n_order;
};

/* Series matching f, sorted by benchmark then metric; fills the counts and
 * first_parent of ctx (nothing else). When f->order is given but no stored
 * commit is on it, the points fall back to recording time (first_parent 0).
 * Caller frees with detect_series_free. */
int store_series_load(struct store *s, const struct store_series_filter *f,
		      struct detect_series **out, size_t *n, struct detect_context *ctx,
		      struct err *e);

#endif
