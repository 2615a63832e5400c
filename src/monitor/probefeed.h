/* probefeed: the bridge from the child's output streams to phases.
 *
 * The monitor hands over raw bytes per stream with their arrival time; this
 * splits them into lines (one splitter per stream, so stdout and stderr never
 * interleave mid-line), parses probe lines and feeds the phase set. It also
 * labels each sample with the phases open at that moment.
 */
#ifndef PERFHUNT_PROBEFEED_H
#define PERFHUNT_PROBEFEED_H

#include "monitor/monitor.h"
#include "probe/linebuf.h"
#include "probe/phases.h"
#include "probe/probe.h"
#include "counters/counters.h"

struct probefeed {
	const struct probe_config *config; /* borrowed */
	struct phase_set phases;
	struct linebuf *lines;         /* by stream: 1..3, then one per probe log */
	size_t nstreams;
	bool log_time;                 /* use a log line's leading timestamp (--probe-time auto) */
	double now_ms;                 /* arrival time of the bytes being split */
	double epoch_offset_ms;        /* epoch ms at t_ms = 0, for log timestamps */
	int stream;
	bool marker_seen;              /* a phase began or ended since the last probefeed_take_marker */
	unsigned pings;                /* "ping" lines on $PERFHUNT_FD since the last probefeed_take_pings */
	/* counters read at begin=/end= markers (NULL: none) */
	struct counters *counters;
	struct marker_counters *open, *done;
	size_t n_open, cap_open, n_done, cap_done;
};

/* nlogs: probe log files followed (streams MONITOR_LOG + i). */
void probefeed_init(struct probefeed *f, const struct probe_config *config, size_t nlogs, bool log_time);
void probefeed_release(struct probefeed *f);
/* monitor hooks; on_output with buf NULL: bytes of that stream were skipped */
void probefeed_on_output(void *arg, int stream, const char *buf, size_t n, double t_ms);
void probefeed_label(void *arg, struct sample *s);
/* True once after a probe began or ended a phase (a begin=/end= marker, a
 * duration probe): the monitor samples then, so that end is exact. */
bool probefeed_take_marker(struct probefeed *f);
/* The "ping" lines read on $PERFHUNT_FD since the last call: each asks for
 * "ack" once a sample is taken after it (include/perfhunt/probe.h). */
unsigned probefeed_take_pings(struct probefeed *f);
/* Ends open lines and phases at end_ms and computes the statistics. */
void probefeed_finish(struct probefeed *f, double end_ms);
/* The record's "phase_counters": counters over each marked phase (new reference). */
json_t *probefeed_counters_json(const struct probefeed *f);

#endif
