/* profdiff: which code a phase's time changed in — the profiles of two sets
 * of runs, frame by frame, with the statistics every other metric gets.
 *
 * Per run, each frame's inclusive CPU time in the phase (the samples whose
 * stack holds it, times the run's ms per sample) is one value; the exact
 * Mann–Whitney test compares the runs of both sides and the phase's frames
 * are corrected as one family (Benjamini–Hochberg, see profdiff.c), so a frame
 * seen in one sample of one run is never painted as a change. No I/O:
 * records in, plain structs out.
 */
#ifndef PERFHUNT_PROFDIFF_H
#define PERFHUNT_PROFDIFF_H

#include <jansson.h>
#include <stddef.h>

#include "stats/stats.h"

enum profdiff_state {
	PROFDIFF_NOISE,     /* no change beyond the noise (or too small to matter) */
	PROFDIFF_GROWN,
	PROFDIFF_SHRUNK,
	PROFDIFF_UNTESTED,  /* fewer than two runs with a profile on a side: deltas only */
};
/* "within noise", "grown", "shrunk", "not tested" */
const char *profdiff_state_name(enum profdiff_state s);

struct profdiff_frame {
	char *name;                 /* folded frame name; "_[k]" ends a kernel frame */
	double base_ms, new_ms;     /* medians over runs of its inclusive CPU ms */
	double delta_ms;            /* new_ms - base_ms */
	double self_base_ms, self_new_ms; /* medians of its time as the leaf */
	double p_value, p_adjusted; /* p_adjusted: Benjamini–Hochberg; NAN: not tested */
	enum stats_mwu_method test;
	enum profdiff_state state;
};

/* The call tree of both sides merged, preorder (children follow their
 * parent, widest first). Means per run, so children add up to at most
 * their parent; nodes below PROFDIFF_MIN_SHARE of the phase are left out. */
struct profdiff_node {
	char *name;
	int depth;                  /* 0 at a stack's root */
	size_t parent;              /* index of the parent node, or SIZE_MAX */
	double base_ms, new_ms;     /* means over runs */
	double p_adjusted;
	enum profdiff_state state;
};

#define PROFDIFF_MIN_SHARE 0.005
#define PROFDIFF_MAX_NODES 4000

struct profdiff {
	char *phase;                /* the phase name, or "" for the whole run */
	size_t base_runs, new_runs; /* runs with a profile on each side */
	double base_ms, new_ms;     /* medians of the CPU ms sampled in the phase */
	size_t n_tests;             /* the frames' family: distinct testable frames */
	bool process_root;          /* every run's stacks start at their process's name */
	bool offcpu;                /* the profiles are off-CPU ones: ms blocked (set by the caller) */
	struct profdiff_frame *frames; /* by |delta_ms|, largest first */
	size_t n_frames;
	struct profdiff_node *nodes;
	size_t n_nodes, n_node_tests;
	/* The path that carries the change: node indices, root first, down to
	 * the deepest frame holding three quarters of the largest change of a
	 * frame (by the means, which add up). n_hot 0: none. */
	size_t *hot;
	size_t n_hot;
	double hot_delta_ms;        /* median delta of the hot frame's inclusive time */
	size_t hot_threads;         /* thread names folded into the hot path's root (process_root), 0 or 1: one */
	enum profdiff_state hot_state;
};

/* Compares phase (NULL: the whole run) over the runs' profiles: base and nw
 * are arrays with one entry per run, the run's "profile" object or null (a
 * run recorded without --profile is left out). A frame grows or shrinks when
 * its adjusted p is below alpha and its median moved by at least threshold
 * of ref_ms (the phase's median duration) and one sample a run. NULL when a
 * side has no run with a profile. Caller frees with profdiff_free. */
struct profdiff *profdiff_phase(const json_t *base, const json_t *nw, const char *phase, double ref_ms,
				double threshold, double alpha);
void profdiff_free(struct profdiff *d);

#define PROFDIFF_LABEL 200
/* A frame as compare counts it: the function, without the clone suffixes a
 * compiler adds to a copy of it (".constprop.N", ".isra.N", ".part.N",
 * ".cold", ".lto_priv.N", ".llvm.N", in any chain); "_[k]" kept. The record
 * keeps the exact name. */
void profdiff_function_name(const char *frame, char *buf, size_t n);
/* A thread name's pattern: its trailing digits as '*' ("provd-w3" ->
 * "provd-w*"); the name itself where it ends in none. */
void profdiff_thread_pattern(const char *name, char *buf, size_t n);
/* Whether a folded frame name is a kernel frame (FlameGraph's "_[k]" suffix). */
bool profdiff_frame_kernel(const char *name);
/* The frame named in a profdiff: "_[k]" removed, *kernel set (may be NULL). */
void profdiff_frame_label(const char *name, char *buf, size_t n, bool *kernel);

#endif
