/* compare_rows: the order compare's tables list their metrics in.
 *
 * A compare of a dozen phases holds ~13 resources per phase (phase:NAME.minflt,
 * .user_s, .oncpu_ms, ...): listed flat they bury the few rows that matter.
 * The HTML report and the markdown export list each phase's resources under
 * the phase's own row, the changed ones first, and fold a group that did not
 * change; both take this one order, so the two cannot disagree.
 */
#ifndef PERFHUNT_COMPARE_ROWS_H
#define PERFHUNT_COMPARE_ROWS_H

#include <stdbool.h>
#include <stddef.h>

enum compare_row_kind {
	COMPARE_ROW_PLAIN,    /* a metric outside any group */
	COMPARE_ROW_PHASE,    /* a phase's duration (phase:NAME) heading its resources */
	COMPARE_ROW_RESOURCE, /* a resource of the phase row above it */
};

struct compare_row {
	size_t metric;              /* index in the caller's metrics */
	enum compare_row_kind kind;
	size_t group;               /* 1, 2, ... for a phase row and its resources; 0 outside a group */
	/* a phase row's: its resources, how many of them changed, and whether
	 * its group opens (the phase or one of its resources changed) */
	size_t resources, changed;
	bool open;
};

/* Orders metrics names[0..n) (changed[i]: metric i regressed or improved)
 * into rows[0..n): each phase resource right after its phase's row, its
 * changed ones first, in their order otherwise; a phase row heads a group
 * only when it has resources. A resource whose phase has no row keeps its
 * place. Every metric is in rows exactly once. */
void compare_rows_order(const char *const *names, const bool *changed, size_t n, struct compare_row *rows);

#endif
