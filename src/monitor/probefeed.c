/* probefeed: child output -> lines -> probes -> phases. */
#include "monitor/probefeed.h"

#include <string.h>

static const char *const stream_names[4] = { "", "stdout", "stderr", "fd" };

static void on_line(void *ctx, const char *line, size_t n, bool truncated)
{
	struct probefeed *f = ctx;
	(void)truncated;
	struct probe p;
	int ok = f->stream == MONITOR_PROBE_FD ? probe_parse_fd_line(f->config, line, n, &p)
					       : probe_parse_line(f->config, line, n, &p);
	if (ok == 1) {
		phase_set_add_probe(&f->phases, &p, f->now_ms, stream_names[f->stream]);
		probe_release(&p);
	}
}

void probefeed_init(struct probefeed *f, struct probe_config *config)
{
	memset(f, 0, sizeof(*f));
	f->config = config;
	phase_set_init(&f->phases);
	for (int i = 1; i < 4; i++)
		linebuf_init(&f->lines[i], 0, on_line, f);
}

void probefeed_release(struct probefeed *f)
{
	for (int i = 1; i < 4; i++)
		linebuf_release(&f->lines[i]);
	phase_set_release(&f->phases);
}

void probefeed_on_output(void *arg, enum monitor_stream s, const char *buf, size_t n, double t_ms)
{
	struct probefeed *f = arg;
	f->now_ms = t_ms;
	f->stream = s;
	linebuf_feed(&f->lines[s], buf, n);
}

void probefeed_label(void *arg, struct sample *s)
{
	struct probefeed *f = arg;
	phase_set_active_at(&f->phases, s->t_ms, s->phase, sizeof(s->phase));
}

void probefeed_finish(struct probefeed *f, double end_ms)
{
	f->now_ms = end_ms;
	for (int i = 1; i < 4; i++) {
		f->stream = i;
		linebuf_flush(&f->lines[i]);
	}
	phase_set_finish(&f->phases, end_ms);
}
