/* probefeed: child output -> lines -> probes -> phases. */
#include "monitor/probefeed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/logtail.h"
#include "util/clock.h"
#include "util/xalloc.h"

/* Counters over one marked phase: begin snapshot, then the delta at its end. */
struct marker_counters {
	char name[64], lane[64];
	double start_ms, end_ms;
	struct counter_values v;
};

enum { MAX_MARKER_COUNTERS = 10000 };

static const char *const stream_names[4] = { "", "stdout", "stderr", "fd" };

static const char *stream_name(int stream)
{
	return stream < MONITOR_LOG ? stream_names[stream] : "log";
}

/* At begin=/end= markers, read the counters: the phase gets its own counts. */
static void marker_counters(struct probefeed *f, const struct probe *p)
{
	int b = probe_find(p, "begin"), e = probe_find(p, "end");
	if (b < 0 && e < 0)
		return;
	const char *lane = p->lane >= 0 ? p->fields[p->lane].text : "";
	struct counter_values now;
	if (counters_read(f->counters, &now, NULL) < 0)
		return;
	if (b >= 0 && f->n_open < 1024) {
		xgrow((void **)&f->open, &f->cap_open, f->n_open + 1, sizeof(*f->open));
		struct marker_counters *m = &f->open[f->n_open++];
		snprintf(m->name, sizeof(m->name), "%s", p->fields[b].text);
		snprintf(m->lane, sizeof(m->lane), "%s", lane);
		m->start_ms = f->now_ms;
		m->v = now;
	}
	if (e < 0)
		return;
	for (size_t i = f->n_open; i-- > 0;) {
		struct marker_counters *m = &f->open[i];
		if (strcmp(m->name, p->fields[e].text) || strcmp(m->lane, lane))
			continue;
		if (f->n_done < MAX_MARKER_COUNTERS) {
			xgrow((void **)&f->done, &f->cap_done, f->n_done + 1, sizeof(*f->done));
			struct marker_counters *d = &f->done[f->n_done++];
			*d = *m;
			d->end_ms = f->now_ms;
			counters_delta(&m->v, &now, &d->v);
		}
		f->open[i] = f->open[--f->n_open];
		break;
	}
}

/* The time of a probe whose line carries a leading timestamp: the stamp,
 * but no earlier than it could be (a stamp of whole seconds says "within
 * this second": arrival, when it falls inside, is the finer figure). A stamp
 * whose whole resolution lies before the run's start (a line written before
 * the run, read during it), or more than a second after the line was read,
 * is not this run's time or is a wrong clock or zone: arrival is kept, and
 * counted. Nothing is dated before the run's start. */
static double stamped_time(struct probefeed *f, double epoch_ms, double res_ms)
{
	double stamp = epoch_ms - f->epoch_offset_ms, arrival = f->now_ms;
	if (!(stamp + res_ms > 0 && stamp <= arrival + 1e3)) {
		f->phases.stamps_ignored++;
		return arrival;
	}
	double t = arrival < stamp + res_ms ? arrival : stamp + res_ms;
	t = t > stamp ? t : stamp;
	return t > 0 ? t : 0;
}

static void on_line(void *ctx, const char *line, size_t n, bool truncated)
{
	struct probefeed *f = ctx;
	(void)truncated;
	/* colour sequences may wrap the timestamp too: one clean copy for both */
	char *clean = NULL;
	if (n && memchr(line, 0x1b, n)) {
		clean = xmalloc(n);
		n = probe_strip_ansi(line, n, clean);
		line = clean;
	}
	struct probe p;
	bool fd = f->stream == MONITOR_PROBE_FD;
	/* "ping" on our descriptor: a marker before it waits for its sample */
	if (fd && n == 4 && !memcmp(line, "ping", 4)) {
		f->pings++;
		free(clean);
		return;
	}
	int ok = fd ? probe_parse_fd_line(f->config, line, n, &p) : probe_parse_line(f->config, line, n, &p);
	if (ok == 1) {
		double t_ms = f->now_ms, epoch_ms, res_ms;
		/* a logger's line may carry its own time: more exact than a late read of a
		 * log; a structured record's is its time field, a text line's its start */
		const char *stamp = p.time[0] ? p.time : line;
		size_t stamp_len = p.time[0] ? strlen(p.time) : n;
		if (!fd && f->log_time &&
		    logtail_leading_time(stamp, stamp_len, f->now_ms + f->epoch_offset_ms, &epoch_ms, &res_ms))
			t_ms = stamped_time(f, epoch_ms, res_ms);
		if (f->counters)
			marker_counters(f, &p);
		/* a phase begins or ends here: the monitor samples at once */
		if (phase_set_add_probe(&f->phases, &p, t_ms, stream_name(f->stream)) > 0 ||
		    probe_find(&p, "begin") >= 0)
			f->marker_seen = true;
		probe_release(&p);
	} else if (ok == PROBE_UNPARSED) {
		phase_set_add_unparsed(&f->phases, stream_name(f->stream), f->lines[f->stream].lines, line, n);
	}
	free(clean);
}

void probefeed_init(struct probefeed *f, const struct probe_config *config, size_t nlogs, bool log_time)
{
	memset(f, 0, sizeof(*f));
	f->config = config;
	f->log_time = log_time;
	f->nstreams = MONITOR_LOG + nlogs;
	f->lines = xcalloc(f->nstreams, sizeof(*f->lines));
	phase_set_init(&f->phases);
	for (size_t i = 1; i < f->nstreams; i++)
		linebuf_init(&f->lines[i], 0, on_line, f);
}

void probefeed_release(struct probefeed *f)
{
	for (size_t i = 1; i < f->nstreams; i++)
		linebuf_release(&f->lines[i]);
	free(f->lines);
	phase_set_release(&f->phases);
	free(f->open);
	free(f->done);
}

void probefeed_on_output(void *arg, int stream, const char *buf, size_t n, double t_ms)
{
	struct probefeed *f = arg;
	if (stream < 1 || (size_t)stream >= f->nstreams)
		return;
	f->now_ms = t_ms;
	f->epoch_offset_ms = (double)clock_epoch_ms() - t_ms;
	f->stream = stream;
	if (!buf) /* a log follower skipped bytes: the line in progress is gone */
		linebuf_discard(&f->lines[stream]);
	else
		linebuf_feed(&f->lines[stream], buf, n);
}

unsigned probefeed_take_pings(struct probefeed *f)
{
	unsigned n = f->pings;
	f->pings = 0;
	return n;
}

bool probefeed_take_marker(struct probefeed *f)
{
	bool seen = f->marker_seen;
	f->marker_seen = false;
	return seen;
}

void probefeed_label(void *arg, struct sample *s)
{
	struct probefeed *f = arg;
	phase_set_active_at(&f->phases, s->t_ms, s->phase, sizeof(s->phase));
}

void probefeed_finish(struct probefeed *f, double end_ms)
{
	f->now_ms = end_ms;
	for (size_t i = 1; i < f->nstreams; i++) {
		f->stream = (int)i;
		linebuf_flush(&f->lines[i]);
	}
	phase_set_finish(&f->phases, end_ms);
}

json_t *probefeed_counters_json(const struct probefeed *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->n_done; i++) {
		const struct marker_counters *d = &f->done[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:f, s:f, s:o}", "name", d->name, "lane",
						   d->lane, "start_ms", d->start_ms, "end_ms", d->end_ms,
						   "counters", counters_to_json(&d->v)));
	}
	return a;
}
