/* phases: turns timestamped probes into phases, lanes and their statistics.
 *
 * A duration field (`pin_abc_ms=5733` arriving at t) is the phase pin_abc over
 * [t - 5733, t]; `begin=NAME` / `end=NAME` markers open and close a phase; a
 * lane key on the line (`gpu_tid=0`) puts the phase on that lane. Everything
 * the set keeps is bounded (probes, phases, open phases, lanes, bytes), and
 * what does not fit is counted, so a chatty program cannot exhaust memory:
 * past the cap on listed phases each one still counts in its name's
 * statistics (a compact per-name aggregate), it is only not listed.
 */
#ifndef PERFHUNT_PHASES_H
#define PERFHUNT_PHASES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "probe/probe.h"
#include "util/strindex.h"

enum phase_source { PHASE_DURATION, PHASE_MARKER, PHASE_NVTX };

struct phase {
	char *name;
	int lane;                  /* index into phase_set.lanes, -1 for none */
	double start_ms, end_ms;
	double duration_ms;        /* as reported for a duration probe (even if clamped); end - start for markers */
	enum phase_source source;
	bool clamped;              /* the duration reached before the run's start: start_ms set to 0 */
	bool unfinished;           /* begin= without end=, closed by phase_set_finish */
	struct probe values;       /* the line's other fields (not durations, not the lane) */
};

struct phase_stat {
	const char *name;          /* points into a phase */
	size_t count;
	double total_ms, median_ms, min_ms, max_ms;
	double first_start_ms;
};

struct lane_stat {
	const char *lane;          /* "gpu_tid=0" */
	size_t phases;
	double start_ms, span_ms, busy_ms, busy_pct;
	size_t gaps;
	double longest_gap_ms;
};

struct stored_probe {
	double t_ms;
	char stream[8];            /* "stdout", "stderr", "fd", "log" */
	struct probe p;
};

/* Phases past the cap, per name: enough for phase_stats, nothing per phase
 * but one float (for the median), itself bounded. */
struct phase_agg {
	char *name;
	size_t count;
	double total_ms, min_ms, max_ms, first_start_ms;
	float *durations;
	size_t n_durations, cap_durations;
};

/* A line that named a prefix but held no usable pair, as reported. */
#define PHASE_UNPARSED_KEEP 3
#define PHASE_UNPARSED_TEXT 128
struct unparsed_line {
	char stream[8];
	uint64_t line;             /* 1-based, in its stream */
	char text[PHASE_UNPARSED_TEXT]; /* printable ASCII: other bytes as \xNN, cut with "..." */
};

struct phase_set {
	/* limits, set by phase_set_init; a caller may lower them before use */
	size_t max_probes, max_phases, max_open, max_lanes, max_bytes;
	size_t max_aggs, max_agg_durations;

	struct stored_probe *probes;
	size_t n_probes, cap_probes;
	struct phase *phases;      /* finished phases, in the order they ended */
	size_t n_phases, cap_phases;
	struct phase *open;        /* begin= seen, end= not yet: a stack */
	size_t n_open, cap_open;
	char **lanes;
	struct strindex lane_index; /* lanes by "key=value" */
	size_t n_lanes, cap_lanes;
	struct phase_agg *aggs;    /* phases past max_phases (or max_bytes), by name */
	struct strindex agg_index; /* aggs by name */
	size_t n_aggs, cap_aggs, agg_durations;
	size_t bytes;              /* memory held by probes and phases */
	double last_t_ms;
	bool ends_sorted;          /* phases[] is sorted by end_ms (t_ms never went back) */

	/* counters of what was not kept or did not match */
	uint64_t probes_seen, probes_dropped, phases_dropped, phases_aggregated;
	uint64_t unmatched_ends, ignored_tokens, clamped, unfinished;
	uint64_t unparsed;         /* lines with a prefix but no usable pair */
	uint64_t stamps_ignored;   /* leading timestamps outside the run (set by the feed) */
	struct unparsed_line unparsed_first[PHASE_UNPARSED_KEEP];
	size_t n_unparsed_first;

	/* filled by phase_set_finish */
	struct phase_stat *stats;
	size_t n_stats;
	struct lane_stat *lane_stats;
	size_t n_lane_stats;
};

/* Listed probes and phases: in the record's JSON tree a listed phase costs
 * about 2 KiB and a probe about 1.4 KiB, so the lists stop at 10 000 phases
 * and 5 000 probes (perfhunt's peak RSS about 32 MiB at 100 000 probe lines,
 * docs/RELIABILITY.md); past them probes are counted and phases aggregated
 * per name. */
#define PHASE_SET_MAX_PROBES 5000
#define PHASE_SET_MAX_PHASES 10000
#define PHASE_SET_MAX_AGGS 4096
#define PHASE_SET_MAX_AGG_DURATIONS (1u << 20)
#define PHASE_SET_MAX_OPEN 1024
#define PHASE_SET_MAX_LANES 4096
#define PHASE_SET_MAX_BYTES (64u << 20)
/* A phase name longer than this (a begin=, end= or duration key) is cut to
 * it, the last three bytes "...": the one rule for every marker, so the same
 * long name in begin= and end= (whose lines are cut at different points)
 * still matches, and the cut shows. */
#define PHASE_NAME_MAX 1024

void phase_set_init(struct phase_set *s);
void phase_set_release(struct phase_set *s);
/* Records p (copied), seen at t_ms since the run's start on stream, and
 * derives its phases. Returns the number of phases the line completed, or -1
 * when t_ms is not a finite number (nothing recorded). */
int phase_set_add_probe(struct phase_set *s, const struct probe *p, double t_ms, const char *stream);
/* Records a finished phase that came from no probe line (an NVTX range of
 * the GPU trace): name, lane "lane_key=lane_value" (lane_key NULL: no lane),
 * times in ms since the run's start. Returns 1 when it is listed, 0 when it
 * was aggregated or dropped like any phase past the caps. */
int phase_set_add_range(struct phase_set *s, const char *name, const char *lane_key, const char *lane_value,
			double start_ms, double end_ms, enum phase_source source);
/* Counts a line of stream that named a prefix but held no usable pair
 * (PROBE_UNPARSED); the first PHASE_UNPARSED_KEEP are kept, quoted, with
 * their line numbers. */
void phase_set_add_unparsed(struct phase_set *s, const char *stream, uint64_t line_no,
			    const char *line, size_t n);
/* Closes the phases still open at end_ms (marked unfinished) and computes
 * the per-name and per-lane statistics. */
void phase_set_finish(struct phase_set *s, double end_ms);

/* Names of the phases covering t_ms (start <= t < end; open phases cover all
 * t >= start), outermost first, each name once, joined by '+'. What does not
 * fit in n - 1 bytes is cut visibly: the text ends in "…" (U+2026, 3 bytes;
 * n >= 4). Returns strlen(buf). */
size_t phase_set_active_at(const struct phase_set *s, double t_ms, char *buf, size_t n);
/* Same for the phases that overlap the window [t0_ms, t1_ms]. */
size_t phase_set_overlapping(const struct phase_set *s, double t0_ms, double t1_ms, char *buf, size_t n);
/* [t0_ms, t1_ms) cut at every start and end of a phase inside it: fn gets
 * each part in time order with the names phase_set_active_at gives at its
 * start ("" for none). A span of many phases is cut at each of them, with
 * no bound on how many. */
typedef void (*phase_part_fn)(void *arg, double from_ms, double to_ms, const char *phases);
void phase_set_split(const struct phase_set *s, double t0_ms, double t1_ms, phase_part_fn fn, void *arg);

#endif
