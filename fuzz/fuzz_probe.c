/* fuzz_probe: libFuzzer target for the probe path of `perfhunt run`.
 *
 * The bytes go through linebuf in chunks whose sizes the input picks, every
 * line through both probe parsers, every probe into a phase set with tight
 * limits and times that sometimes step back; then lookups, finish, the JSON
 * members and the text table. Lines that name a prefix without a pair go to
 * the unparsed count; every line also goes through the ANSI stripper.
 * Invariants are checked, so a wrong answer aborts like a crash does.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/phases_text.h"
#include "probe/linebuf.h"
#include "probe/phases.h"
#include "record/phases_json.h"

/* phase_set_split's parts: each starts where the last ended, none empty,
 * each names what phase_set_active_at names at its start. */
struct split_check {
	double at;
	size_t parts;
	const struct phase_set *set;
};

static void split_part(void *arg, double from_ms, double to_ms, const char *phases)
{
	struct split_check *sc = arg;
	char names[512];
	phase_set_active_at(sc->set, from_ms, names, sizeof(names));
	if (from_ms != sc->at || !(to_ms > from_ms) || strcmp(names, phases))
		abort();
	sc->at = to_ms;
	sc->parts++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct ctx {
	struct probe_config cfg;
	struct phase_set set;
	size_t max_line;
	double t_ms;
	unsigned lines;
};

static void check_probe(const struct probe *p)
{
	if (!p->n_fields || p->lane >= (int)p->n_fields)
		abort();
	for (size_t i = 0; i < p->n_fields; i++) {
		const struct probe_field *f = &p->fields[i];
		if (!*f->key || !*f->text || strlen(f->key) > PROBE_NAME_MAX)
			abort();
		for (const char *c = f->text; *c; c++)
			if (*c < 0x21 || *c > 0x7e)
				abort();
		if (f->kind != PROBE_VALUE && (!f->numeric || !(f->scaled >= 0) || !isfinite(f->scaled)))
			abort();
	}
}

static void on_line(void *arg, const char *line, size_t n, bool truncated)
{
	struct ctx *c = arg;
	if (n > c->max_line || (truncated && n != c->max_line))
		abort();
	struct probe p;
	c->lines++;
	/* the stripper never grows a line and leaves no ESC behind */
	char *clean = malloc(n + 1);
	if (!clean)
		abort();
	size_t cn = probe_strip_ansi(line, n, clean);
	if (cn > n || memchr(clean, 0x1b, cn))
		abort();
	free(clean);
	int r = c->lines % 2 ? probe_parse_line(&c->cfg, line, n, &p)
			     : probe_parse_fd_line(&c->cfg, line, n, &p);
	if (r != 1) {
		if (p.fields || p.buf || (r != 0 && r != PROBE_UNPARSED))
			abort();
		if (r == PROBE_UNPARSED)
			phase_set_add_unparsed(&c->set, c->lines % 2 ? "stdout" : "fd", c->lines, line, n);
		return;
	}
	check_probe(&p);
	/* arrival times mostly advance; every 7th line steps back */
	c->t_ms += c->lines % 7 ? (double)(n % 50) : -30.0;
	phase_set_add_probe(&c->set, &p, c->t_ms, c->lines % 3 ? "stdout" : "fd");
	probe_release(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;
	if (!sink && !(sink = fopen("/dev/null", "w")))
		abort();
	if (size < 2)
		return 0;
	struct ctx c;
	memset(&c, 0, sizeof(c));
	probe_config_init(&c.cfg);
	probe_config_add_prefix(&c.cfg, "FZ", NULL);
	probe_config_add_lane_key(&c.cfg, "lane_s", NULL);
	phase_set_init(&c.set);
	c.set.max_probes = 64;
	c.set.max_phases = 64;
	c.set.max_open = 8;
	c.set.max_lanes = 8;
	c.set.max_bytes = 1 << 16;
	c.set.max_aggs = 4;
	c.set.max_agg_durations = 16;
	c.max_line = 1 + data[0] * 4u;
	size_t step = 1 + data[1] % 64;
	data += 2;
	size -= 2;

	struct linebuf b;
	linebuf_init(&b, c.max_line, on_line, &c);
	for (size_t at = 0; at < size; at += step)
		linebuf_feed(&b, (const char *)data + at, size - at < step ? size - at : step);
	linebuf_flush(&b);
	if (b.cap > c.max_line || b.lines != c.lines)
		abort();
	linebuf_release(&b);

	char names[64];
	for (double t = -10; t < c.t_ms + 20; t += 17) {
		size_t len = phase_set_active_at(&c.set, t, names, sizeof(names));
		if (len >= sizeof(names) || len != strlen(names))
			abort();
		phase_set_overlapping(&c.set, t + 5, t - 5, names, sizeof(names));
	}
	/* a span cut at the phases' ends: parts in order, adding up to it, open
	 * phases still open */
	struct split_check sc = { -10, 0, &c.set };
	phase_set_split(&c.set, -10, c.t_ms + 20, split_part, &sc);
	if (sc.parts && sc.at != c.t_ms + 20)
		abort();
	phase_set_finish(&c.set, c.t_ms + 1);
	if (c.set.n_open || c.set.n_phases > c.set.max_phases || c.set.n_probes > c.set.max_probes ||
	    c.set.bytes > c.set.max_bytes || c.set.agg_durations > c.set.max_agg_durations ||
	    c.set.n_unparsed_first > PHASE_UNPARSED_KEEP || c.set.n_unparsed_first > c.set.unparsed)
		abort();
	for (size_t i = 0; i < c.set.n_unparsed_first; i++) {
		const char *u = c.set.unparsed_first[i].text;
		if (strlen(u) >= PHASE_UNPARSED_TEXT)
			abort();
		for (; *u; u++)
			if (*u < 0x20 || *u > 0x7e)
				abort();
	}
	/* every finished phase is in the statistics, listed or aggregated */
	uint64_t counted = 0, finished = 0;
	for (size_t i = 0; i < c.set.n_stats; i++)
		counted += c.set.stats[i].count;
	for (size_t i = 0; i < c.set.n_phases; i++)
		finished += !c.set.phases[i].unfinished;
	if (counted != finished + c.set.phases_aggregated)
		abort();
	for (size_t i = 0; i < c.set.n_lane_stats; i++) {
		const struct lane_stat *l = &c.set.lane_stats[i];
		if (l->busy_ms > l->span_ms + 1e-6 * (1 + l->span_ms) || l->busy_pct > 100.0001)
			abort();
	}
	json_t *o = phase_set_to_json(&c.set);
	if (!o || json_array_size(json_object_get(o, "phases")) != c.set.n_phases)
		abort();
	char *text = json_dumps(o, JSON_COMPACT);
	if (!text)
		abort();
	free(text);
	if (phases_text_print(o, sink, NULL) < 0)
		abort();
	json_decref(o);
	phase_set_release(&c.set);
	probe_config_release(&c.cfg);
	return 0;
}
