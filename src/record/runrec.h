/* runrec: the perfhunt.run/1 record (docs/FORMATS.md) built from a monitor
 * result — the one place that decides which peak figure is reported with
 * which method, so the summary, the JSON and the history agree.
 */
#ifndef PERFHUNT_RUNREC_H
#define PERFHUNT_RUNREC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "monitor/monitor.h"

struct runrec_input {
	const char *kind;                 /* "run" or "watch" */
	char *const *argv;                /* command (NULL-terminated) */
	const char *const *tags;          /* NULL-terminated, may be NULL */
	char *const *option_words;        /* options.words: NULL-terminated, may be NULL */
	const struct monitor_opts *opts;
	const char *cgroup_mode;          /* "auto" or "off" */
	const struct monitor_result *r;
	const char *csv_path;             /* NULL when no CSV was written */
	json_t *phases;                   /* borrowed: {"phases","phase_stats","lanes","probes"} or NULL */
	json_t *counters;                 /* borrowed, or NULL */
	json_t *extra_notes;              /* borrowed array of strings, or NULL */
	const char *peak_phase;           /* phase(s) at the sampled peak */
	int exit_status;                  /* what perfhunt exits with for this run */
	const char *ended;                /* watch: why recording ended */
	const char *daemon_peak_phase;    /* with an attached daemon: phase(s) at its peak */
	const char *combined_peak_phase;  /* with an attached daemon: phase(s) at the two trees' summed peak */
	json_t *daemon_counters;          /* borrowed: counters over the daemon's tree, or NULL */
	const char *process_peak_phase;   /* phases overlapping the exact peak's window */
	bool not_kept;                    /* the record goes nowhere: skip git and host, which cost ("git", "host": null) */
};

/* A flat top: the samples next to a sampled peak that stay within 1 % of it. */
#define RUNREC_FLAT_SAMPLES 3  /* this many samples within 1 %: the top is flat */
struct runrec_flat {
	bool flat;
	double from_ms, to_ms;
	size_t samples;
};
/* The run of samples around the one at peak_at_ms within 1 % below it. */
void runrec_flat_top(const struct timeline *tl, double peak_at_ms, struct runrec_flat *out);

/* Returns a new record (caller json_decref's it). */
json_t *runrec_build(const struct runrec_input *in);
/* The sample window [*from_ms, *to_ms] the exact single-process peak fell in:
 * where VmHWM last grew, or after the last sample when the exit figure is larger. */
void runrec_process_peak_window(const struct monitor_result *r, double *from_ms, double *to_ms);
/* The method of a process peak no source measured (every process of the tree
 * was gone or a zombie when read, and none was waited for): "exact" is false. */
#define RUNREC_NO_METHOD "none"
/* The "largest single process" figure, chosen from r: its method in words
 * (with "at most" / "at least" where the figure is a bound), its process, and
 * whether the method proves it. Strings point into r or are constants. */
struct runrec_peak {
	uint64_t kb;
	const char *method;
	pid_t pid;
	const char *comm;
	bool exact;
	const char *bound;      /* !exact and measured: "at most" or "at least"; else NULL */
	uint64_t at_least_kb;   /* "at most": the largest figure known below it (0: none) */
};
void runrec_process_peak(const struct monitor_result *r, struct runrec_peak *pk);

#endif
