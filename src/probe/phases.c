/* phases: phase derivation, lookup by time, and per-name and per-lane stats.
 *
 * Every phase is completed when a line arrives (the duration line, or end=),
 * so with non-decreasing arrival times the finished phases are already sorted
 * by end: "which phases cover t" is a binary search plus a short scan, cheap
 * enough to ask at every sample. Statistics are computed once, at the end.
 */
#include "probe/phases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "util/xalloc.h"

void phase_set_init(struct phase_set *s)
{
	memset(s, 0, sizeof(*s));
	s->max_probes = PHASE_SET_MAX_PROBES;
	s->max_phases = PHASE_SET_MAX_PHASES;
	s->max_open = PHASE_SET_MAX_OPEN;
	s->max_lanes = PHASE_SET_MAX_LANES;
	s->max_bytes = PHASE_SET_MAX_BYTES;
	s->max_aggs = PHASE_SET_MAX_AGGS;
	s->max_agg_durations = PHASE_SET_MAX_AGG_DURATIONS;
	s->ends_sorted = true;
}

static void phase_release(struct phase *ph)
{
	free(ph->name);
	probe_release(&ph->values);
}

void phase_set_release(struct phase_set *s)
{
	for (size_t i = 0; i < s->n_probes; i++)
		probe_release(&s->probes[i].p);
	for (size_t i = 0; i < s->n_phases; i++)
		phase_release(&s->phases[i]);
	for (size_t i = 0; i < s->n_open; i++)
		phase_release(&s->open[i]);
	for (size_t i = 0; i < s->n_lanes; i++)
		free(s->lanes[i]);
	for (size_t i = 0; i < s->n_aggs; i++) {
		free(s->aggs[i].name);
		free(s->aggs[i].durations);
	}
	free(s->aggs);
	strindex_release(&s->agg_index);
	strindex_release(&s->lane_index);
	free(s->probes);
	free(s->phases);
	free(s->open);
	free(s->lanes);
	free(s->stats);
	free(s->lane_stats);
	memset(s, 0, sizeof(*s));
}

static bool is_marker(const char *key)
{
	return !strcmp(key, "begin") || !strcmp(key, "end");
}

/* Fields that travel with a phase: not durations, not the lane, not markers. */
static bool attached(const struct probe *p, size_t i)
{
	const struct probe_field *f = &p->fields[i];
	return f->kind != PROBE_DURATION && (int)i != p->lane && !is_marker(f->key);
}

/* out = the attached fields of a, then of b (either may be NULL). */
static void values_build(struct probe *out, const struct probe *a, const struct probe *b)
{
	const struct probe *src[2] = { a, b };
	size_t count = 0, bytes = 0;
	memset(out, 0, sizeof(*out));
	out->lane = -1;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; src[k] && i < src[k]->n_fields; i++)
			if (attached(src[k], i)) {
				count++;
				bytes += strlen(src[k]->fields[i].key) + strlen(src[k]->fields[i].text) + 2;
			}
	if (!count)
		return;
	out->buf = xmalloc(bytes);
	out->buf_len = bytes;
	out->fields = xmalloc(count * sizeof(*out->fields));
	char *w = out->buf;
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; src[k] && i < src[k]->n_fields; i++) {
			if (!attached(src[k], i))
				continue;
			struct probe_field *f = &out->fields[out->n_fields++];
			*f = src[k]->fields[i];
			size_t kl = strlen(f->key) + 1, tl = strlen(f->text) + 1;
			memcpy(w, f->key, kl);
			f->key = w;
			w += kl;
			memcpy(w, f->text, tl);
			f->text = w;
			w += tl;
		}
}

static size_t probe_cost(const struct probe *p)
{
	return p->buf_len + p->n_fields * sizeof(*p->fields);
}

static size_t phase_cost(const struct phase *ph)
{
	return sizeof(*ph) + strlen(ph->name) + 1 + probe_cost(&ph->values);
}

/* Index of the lane "key=value", added if new; -1 when the lane table is full. */
static int lane_intern(struct phase_set *s, const struct probe_field *f)
{
	size_t kl = strlen(f->key), tl = strlen(f->text);
	char *name = xasprintf("%s=%s", f->key, f->text);
	size_t at = strindex_get(&s->lane_index, name);
	if (at != STRINDEX_NONE || s->n_lanes >= s->max_lanes || s->bytes + kl + tl + 2 > s->max_bytes) {
		free(name);
		return at != STRINDEX_NONE ? (int)at : -1;
	}
	xgrow((void **)&s->lanes, &s->cap_lanes, s->n_lanes + 1, sizeof(*s->lanes));
	s->lanes[s->n_lanes] = name;
	strindex_put(&s->lane_index, name, s->n_lanes);
	s->bytes += kl + tl + 2;
	return (int)s->n_lanes++;
}

/* A phase past the cap: folded into its name's aggregate (or dropped when
 * the table of names is full). Unfinished phases have no true duration. */
static void aggregate_phase(struct phase_set *s, const struct phase *ph)
{
	size_t at = strindex_get(&s->agg_index, ph->name);
	struct phase_agg *a = at == STRINDEX_NONE ? NULL : &s->aggs[at];
	if (!a) {
		if (ph->unfinished || s->n_aggs >= s->max_aggs) {
			s->phases_dropped++;
			return;
		}
		xgrow((void **)&s->aggs, &s->cap_aggs, s->n_aggs + 1, sizeof(*s->aggs));
		a = &s->aggs[s->n_aggs++];
		memset(a, 0, sizeof(*a));
		a->name = xstrdup(ph->name);
		strindex_put(&s->agg_index, a->name, s->n_aggs - 1);
		a->min_ms = a->max_ms = ph->duration_ms;
		a->first_start_ms = ph->start_ms;
	}
	if (ph->unfinished) {
		s->phases_dropped++;
		return;
	}
	s->phases_aggregated++;
	a->count++;
	a->total_ms += ph->duration_ms;
	if (ph->duration_ms < a->min_ms)
		a->min_ms = ph->duration_ms;
	if (ph->duration_ms > a->max_ms)
		a->max_ms = ph->duration_ms;
	if (ph->start_ms < a->first_start_ms)
		a->first_start_ms = ph->start_ms;
	if (s->agg_durations < s->max_agg_durations) {
		xgrow((void **)&a->durations, &a->cap_durations, a->n_durations + 1, sizeof(*a->durations));
		a->durations[a->n_durations++] = (float)ph->duration_ms;
		s->agg_durations++;
	}
}

/* Moves ph into the finished list (or, when full, into its name's aggregate). */
static bool finish_phase(struct phase_set *s, struct phase *ph)
{
	size_t cost = phase_cost(ph);
	if (s->n_phases >= s->max_phases || s->bytes + cost > s->max_bytes) {
		aggregate_phase(s, ph);
		phase_release(ph);
		return false;
	}
	if (s->n_phases && ph->end_ms < s->phases[s->n_phases - 1].end_ms)
		s->ends_sorted = false;
	xgrow((void **)&s->phases, &s->cap_phases, s->n_phases + 1, sizeof(*s->phases));
	s->phases[s->n_phases++] = *ph;
	s->bytes += cost;
	return true;
}

static void store_probe(struct phase_set *s, const struct probe *p, double t_ms, const char *stream)
{
	size_t cost = sizeof(struct stored_probe) + probe_cost(p);
	if (s->n_probes >= s->max_probes || s->bytes + cost > s->max_bytes) {
		s->probes_dropped++;
		return;
	}
	xgrow((void **)&s->probes, &s->cap_probes, s->n_probes + 1, sizeof(*s->probes));
	struct stored_probe *sp = &s->probes[s->n_probes++];
	sp->t_ms = t_ms;
	/* printable ASCII only: the name goes into JSON as it is */
	size_t k = 0;
	for (; stream && stream[k] && k + 1 < sizeof(sp->stream); k++)
		sp->stream[k] = (stream[k] > 0x20 && stream[k] < 0x7f) ? stream[k] : '_';
	sp->stream[k] = '\0';
	probe_copy(&sp->p, p);
	s->bytes += cost;
}

void phase_set_add_unparsed(struct phase_set *s, const char *stream, uint64_t line_no,
			    const char *line, size_t n)
{
	s->unparsed++;
	if (s->n_unparsed_first >= PHASE_UNPARSED_KEEP)
		return;
	struct unparsed_line *u = &s->unparsed_first[s->n_unparsed_first++];
	snprintf(u->stream, sizeof(u->stream), "%s", stream ? stream : "");
	u->line = line_no;
	/* printable ASCII only (JSON and a terminal take it as it is) */
	size_t w = 0, room = sizeof(u->text) - 4; /* "..." and the NUL */
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)line[i];
		bool plain = ch >= 0x20 && ch < 0x7f && ch != '\\';
		size_t need = plain ? 1 : 4;
		if (w + need > room) {
			memcpy(u->text + w, "...", 3);
			w += 3;
			break;
		}
		if (plain)
			u->text[w++] = (char)ch;
		else
			w += (size_t)snprintf(u->text + w, 5, "\\x%02x", ch);
	}
	u->text[w] = '\0';
}

/* The name a phase gets from len bytes of s: as is, or cut to
 * PHASE_NAME_MAX with "..." at its end. Caller frees. */
static char *phase_name(const char *s, size_t len)
{
	if (len <= PHASE_NAME_MAX)
		return xstrndup(s, len);
	char *name = xmalloc(PHASE_NAME_MAX + 1);
	memcpy(name, s, PHASE_NAME_MAX - 3);
	memcpy(name + PHASE_NAME_MAX - 3, "...", 4);
	return name;
}

static void open_phase(struct phase_set *s, const struct probe *p, const char *name,
		       int lane, double t_ms)
{
	if (s->n_open >= s->max_open) {
		s->phases_dropped++;
		return;
	}
	xgrow((void **)&s->open, &s->cap_open, s->n_open + 1, sizeof(*s->open));
	struct phase *ph = &s->open[s->n_open++];
	memset(ph, 0, sizeof(*ph));
	ph->name = phase_name(name, strlen(name));
	ph->lane = lane;
	ph->start_ms = ph->end_ms = t_ms;
	ph->source = PHASE_MARKER;
	values_build(&ph->values, p, NULL);
}

static int close_phase(struct phase_set *s, const struct probe *p, const char *name,
		       int lane, double t_ms)
{
	char *cut = phase_name(name, strlen(name));
	for (size_t i = s->n_open; i-- > 0;) {
		struct phase *o = &s->open[i];
		if (o->lane != lane || strcmp(o->name, cut))
			continue;
		free(cut);
		struct phase ph = *o;
		memmove(o, o + 1, (s->n_open - i - 1) * sizeof(*o));
		s->n_open--;
		ph.end_ms = t_ms < ph.start_ms ? ph.start_ms : t_ms;
		ph.duration_ms = ph.end_ms - ph.start_ms;
		struct probe merged;
		values_build(&merged, &ph.values, p);
		probe_release(&ph.values);
		ph.values = merged;
		return finish_phase(s, &ph);
	}
	free(cut);
	s->unmatched_ends++;
	return 0;
}

int phase_set_add_range(struct phase_set *s, const char *name, const char *lane_key, const char *lane_value,
			double start_ms, double end_ms, enum phase_source source)
{
	if (!isfinite(start_ms) || !isfinite(end_ms))
		return 0;
	struct phase ph;
	memset(&ph, 0, sizeof(ph));
	ph.lane = -1;
	if (lane_key) {
		struct probe_field f = { .key = lane_key, .text = lane_value ? lane_value : "" };
		if ((ph.lane = lane_intern(s, &f)) < 0) {
			s->phases_dropped++;
			return 0;
		}
	}
	ph.values.lane = -1;
	ph.name = phase_name(name, strlen(name));
	ph.start_ms = start_ms;
	ph.end_ms = end_ms < start_ms ? start_ms : end_ms;
	ph.duration_ms = ph.end_ms - ph.start_ms;
	ph.source = source;
	return finish_phase(s, &ph);
}

int phase_set_add_probe(struct phase_set *s, const struct probe *p, double t_ms, const char *stream)
{
	if (!isfinite(t_ms))
		return -1;
	s->probes_seen++;
	s->ignored_tokens += p->ignored;
	if (t_ms < s->last_t_ms)
		s->ends_sorted = false;
	s->last_t_ms = t_ms;
	store_probe(s, p, t_ms, stream);

	int lane = -1;
	if (p->lane >= 0) {
		lane = lane_intern(s, &p->fields[p->lane]);
		if (lane < 0) {
			/* no room for another lane: the line's phases cannot be placed */
			for (size_t i = 0; i < p->n_fields; i++)
				s->phases_dropped += p->fields[i].kind == PROBE_DURATION ||
						     !strcmp(p->fields[i].key, "begin");
			return 0;
		}
	}
	int done = 0;
	for (size_t i = 0; i < p->n_fields; i++) {
		const struct probe_field *f = &p->fields[i];
		if (f->kind == PROBE_DURATION && (int)i != p->lane) {
			struct phase ph;
			memset(&ph, 0, sizeof(ph));
			ph.name = phase_name(f->key, strlen(f->key) - f->unit_len);
			ph.lane = lane;
			ph.end_ms = t_ms;
			ph.duration_ms = f->scaled;
			ph.start_ms = t_ms - f->scaled;
			if (ph.start_ms < 0) {
				ph.start_ms = 0;
				ph.clamped = true;
			}
			/* never ending before it starts, nor before the run */
			if (ph.end_ms < ph.start_ms)
				ph.end_ms = ph.start_ms;
			ph.source = PHASE_DURATION;
			values_build(&ph.values, p, NULL);
			if (finish_phase(s, &ph)) {
				s->clamped += ph.clamped;
				done++;
			}
		} else if (!strcmp(f->key, "begin")) {
			open_phase(s, p, f->text, lane, t_ms);
		} else if (!strcmp(f->key, "end")) {
			done += close_phase(s, p, f->text, lane, t_ms);
		}
	}
	return done;
}

/* Comparators of phase indices, for qsort_r with the phase array as context. */
static int cmp_by_name(const void *a, const void *b, void *ctx)
{
	const struct phase *ph = ctx;
	const struct phase *x = &ph[*(const size_t *)a], *y = &ph[*(const size_t *)b];
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

static int cmp_by_lane(const void *a, const void *b, void *ctx)
{
	const struct phase *ph = ctx;
	const struct phase *x = &ph[*(const size_t *)a], *y = &ph[*(const size_t *)b];
	if (x->lane != y->lane)
		return (x->lane > y->lane) - (x->lane < y->lane);
	return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

static int cmp_stat_start(const void *a, const void *b)
{
	const struct phase_stat *x = a, *y = b;
	if (x->first_start_ms != y->first_start_ms)
		return (x->first_start_ms > y->first_start_ms) - (x->first_start_ms < y->first_start_ms);
	return strcmp(x->name, y->name);
}

static const struct phase_agg *agg_find(const struct phase_set *s, const char *name)
{
	size_t at = strindex_get(&s->agg_index, name);
	return at == STRINDEX_NONE ? NULL : &s->aggs[at];
}

/* One name's statistics: k durations of listed phases in tmp, then those
 * kept by its aggregate a (NULL: none). tmp has room for both. */
static void fill_stat(struct phase_stat *st, const char *name, double first_start_ms,
		      size_t listed, double *tmp, size_t k, const struct phase_agg *a)
{
	memset(st, 0, sizeof(*st));
	st->name = name;
	st->first_start_ms = first_start_ms;
	for (size_t i = 0; i < k; i++)
		st->total_ms += tmp[i];
	st->count = listed;
	if (a) {
		for (size_t d = 0; d < a->n_durations; d++)
			tmp[k++] = a->durations[d];
		st->total_ms += a->total_ms;
		st->count += a->count;
		if (!listed || a->first_start_ms < st->first_start_ms)
			st->first_start_ms = a->first_start_ms;
	}
	st->min_ms = k ? stats_min(tmp, k) : a->min_ms;
	st->max_ms = k ? stats_max(tmp, k) : a->max_ms;
	if (a && a->min_ms < st->min_ms)
		st->min_ms = a->min_ms;
	if (a && a->max_ms > st->max_ms)
		st->max_ms = a->max_ms;
	st->median_ms = k ? stats_median(tmp, k) : (a->min_ms + a->max_ms) / 2;
}

/* Per-name statistics over the listed phases and, for a name that went past
 * the cap, its aggregate too. */
static void compute_stats(struct phase_set *s, size_t *idx, double *tmp)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_phases; i++)
		if (!s->phases[i].unfinished) /* a cut-off phase has no true duration */
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_by_name, s->phases);
	s->stats = xrealloc(s->stats, (n + s->n_aggs + 1) * sizeof(*s->stats));
	s->n_stats = 0;
	bool *merged = xcalloc(s->n_aggs + 1, sizeof(*merged));
	for (size_t i = 0; i < n;) {
		const struct phase *first = &s->phases[idx[i]];
		size_t j = i;
		for (; j < n && !strcmp(s->phases[idx[j]].name, first->name); j++)
			tmp[j - i] = s->phases[idx[j]].duration_ms;
		const struct phase_agg *a = agg_find(s, first->name);
		if (a)
			merged[a - s->aggs] = true;
		fill_stat(&s->stats[s->n_stats++], first->name, first->start_ms, j - i, tmp, j - i, a);
		i = j;
	}
	for (size_t m = 0; m < s->n_aggs; m++) /* names seen only past the cap */
		if (!merged[m] && s->aggs[m].count)
			fill_stat(&s->stats[s->n_stats++], s->aggs[m].name, s->aggs[m].first_start_ms, 0,
				  tmp, 0, &s->aggs[m]);
	free(merged);
	qsort(s->stats, s->n_stats, sizeof(*s->stats), cmp_stat_start);
}

static void compute_lanes(struct phase_set *s, size_t *idx)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n_phases; i++)
		if (s->phases[i].lane >= 0)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), cmp_by_lane, s->phases);
	s->lane_stats = xrealloc(s->lane_stats, (n ? n : 1) * sizeof(*s->lane_stats));
	s->n_lane_stats = 0;
	for (size_t i = 0; i < n;) {
		const struct phase *ph = &s->phases[idx[i]];
		int lane = ph->lane;
		struct lane_stat *ls = &s->lane_stats[s->n_lane_stats++];
		memset(ls, 0, sizeof(*ls));
		ls->lane = s->lanes[lane];
		ls->start_ms = ph->start_ms;
		double cur_start = ph->start_ms, cur_end = ph->end_ms, last_end = ph->end_ms;
		size_t j = i;
		for (; j < n && s->phases[idx[j]].lane == lane; j++) {
			const struct phase *q = &s->phases[idx[j]];
			if (q->end_ms > last_end)
				last_end = q->end_ms;
			if (q->start_ms > cur_end) {
				double gap = q->start_ms - cur_end;
				ls->gaps++;
				if (gap > ls->longest_gap_ms)
					ls->longest_gap_ms = gap;
				ls->busy_ms += cur_end - cur_start;
				cur_start = q->start_ms;
				cur_end = q->end_ms;
			} else if (q->end_ms > cur_end) {
				cur_end = q->end_ms;
			}
		}
		ls->busy_ms += cur_end - cur_start;
		ls->phases = j - i;
		ls->span_ms = last_end - ls->start_ms;
		ls->busy_pct = ls->span_ms > 0 ? 100.0 * ls->busy_ms / ls->span_ms : 0;
		i = j;
	}
}

void phase_set_finish(struct phase_set *s, double end_ms)
{
	if (!isfinite(end_ms))
		end_ms = s->last_t_ms;
	for (size_t i = 0; i < s->n_open; i++) {
		struct phase ph = s->open[i];
		ph.end_ms = end_ms < ph.start_ms ? ph.start_ms : end_ms;
		ph.duration_ms = ph.end_ms - ph.start_ms;
		ph.unfinished = true;
		if (finish_phase(s, &ph))
			s->unfinished++;
	}
	s->n_open = 0;
	size_t *idx = xmalloc((s->n_phases ? s->n_phases : 1) * sizeof(*idx));
	double *tmp = xmalloc((s->n_phases + s->agg_durations + 1) * sizeof(*tmp));
	compute_stats(s, idx, tmp);
	compute_lanes(s, idx);
	free(idx);
	free(tmp);
}

/* Phases overlapping [t0, t1] with start <= t1 and end > t0 (open ones:
 * start <= t1), at most max; m NULL: only counted. */
#define MATCH_MAX 256

static size_t collect(const struct phase_set *s, double t0, double t1,
		      const struct phase **m, size_t max)
{
	size_t k = 0, from = 0;
	if (s->ends_sorted) {
		size_t lo = 0, hi = s->n_phases;
		while (lo < hi) { /* first phase with end > t0 */
			size_t mid = lo + (hi - lo) / 2;
			if (s->phases[mid].end_ms > t0)
				hi = mid;
			else
				lo = mid + 1;
		}
		from = lo;
	}
	for (size_t i = from; i < s->n_phases && k < max; i++) {
		const struct phase *ph = &s->phases[i];
		if (ph->start_ms <= t1 && ph->end_ms > t0) {
			if (m)
				m[k] = ph;
			k++;
		}
	}
	for (size_t i = 0; i < s->n_open && k < max; i++)
		if (s->open[i].start_ms <= t1) {
			if (m)
				m[k] = &s->open[i];
			k++;
		}
	return k;
}

static size_t join_names(const struct phase **m, size_t k, char *buf, size_t n)
{
	/* outermost (earliest start) first; insertion sort, k is small */
	for (size_t i = 1; i < k; i++) {
		const struct phase *x = m[i];
		size_t j = i;
		while (j > 0 && (m[j - 1]->start_ms > x->start_ms ||
				 (m[j - 1]->start_ms == x->start_ms && m[j - 1]->end_ms < x->end_ms))) {
			m[j] = m[j - 1];
			j--;
		}
		m[j] = x;
	}
	size_t len = 0;
	if (!n)
		return 0;
	buf[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(m[j]->name, m[i]->name);
		if (seen)
			continue;
		size_t nl = strlen(m[i]->name), sep = len ? 1 : 0;
		if (len + sep + nl + 1 > n) {
			/* no room for the whole name: as much as fits, then "…" (U+2026), so the
			 * cut shows and no phase is missing without a trace */
			static const char more[] = "\u2026";
			if (sep && len + 1 < n)
				buf[len++] = '+';
			size_t take = n - 1 - len < nl ? n - 1 - len : nl;
			memcpy(buf + len, m[i]->name, take);
			len += take;
			if (n - 1 >= sizeof(more) - 1) {
				len = n - 1 - (sizeof(more) - 1);
				memcpy(buf + len, more, sizeof(more) - 1);
				len += sizeof(more) - 1;
			}
			buf[len] = '\0';
			break;
		}
		if (sep)
			buf[len++] = '+';
		memcpy(buf + len, m[i]->name, nl + 1);
		len += nl;
	}
	return len;
}

size_t phase_set_active_at(const struct phase_set *s, double t_ms, char *buf, size_t n)
{
	const struct phase *m[MATCH_MAX];
	return join_names(m, collect(s, t_ms, t_ms, m, MATCH_MAX), buf, n);
}

size_t phase_set_overlapping(const struct phase_set *s, double t0_ms, double t1_ms, char *buf, size_t n)
{
	if (t1_ms < t0_ms) {
		double t = t0_ms;
		t0_ms = t1_ms;
		t1_ms = t;
	}
	const struct phase *m[MATCH_MAX];
	return join_names(m, collect(s, t0_ms, t1_ms, m, MATCH_MAX), buf, n);
}

static int cmp_ms(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_start(const void *a, const void *b)
{
	const struct phase *x = *(const struct phase *const *)a, *y = *(const struct phase *const *)b;
	return (x->start_ms > y->start_ms) - (x->start_ms < y->start_ms);
}

/* A phase of the open list (no pointer arithmetic on a null one) */
static bool still_open(const struct phase_set *s, const struct phase *p)
{
	return s->n_open && p >= s->open && p < s->open + s->n_open;
}

void phase_set_split(const struct phase_set *s, double t0_ms, double t1_ms, phase_part_fn fn, void *arg)
{
	if (!(t1_ms > t0_ms))
		return;
	/* the phases overlapping the span, by their starts; the cuts inside it
	 * (counted first: a blocked interval is cut here, and most cross few) */
	size_t cap = collect(s, t0_ms, t1_ms, NULL, SIZE_MAX);
	const struct phase **ov = xmalloc((cap ? cap : 1) * sizeof(*ov));
	double *cut = xmalloc((2 * cap + 2) * sizeof(*cut));
	size_t k = collect(s, t0_ms, t1_ms, ov, cap), nc = 0;
	cut[nc++] = t0_ms;
	for (size_t i = 0; i < k; i++) {
		bool open = still_open(s, ov[i]);
		if (ov[i]->start_ms > t0_ms && ov[i]->start_ms < t1_ms)
			cut[nc++] = ov[i]->start_ms;
		if (!open && ov[i]->end_ms > t0_ms && ov[i]->end_ms < t1_ms)
			cut[nc++] = ov[i]->end_ms;
	}
	cut[nc++] = t1_ms;
	qsort(cut, nc, sizeof(*cut), cmp_ms);
	qsort(ov, k, sizeof(*ov), cmp_start);
	/* one sweep: the phases active at each part's start come in by their
	 * starts and leave at their ends */
	const struct phase **act = xmalloc((k ? k : 1) * sizeof(*act)), **tmp = xmalloc((k ? k : 1) * sizeof(*tmp));
	size_t na = 0, next = 0;
	char names[512];
	for (size_t i = 0; i + 1 < nc; i++) {
		double a = cut[i];
		if (!(cut[i + 1] > a))
			continue;
		size_t kept = 0;
		for (size_t j = 0; j < na; j++) {
			bool open = still_open(s, act[j]);
			if (open || act[j]->end_ms > a)
				act[kept++] = act[j];
		}
		na = kept;
		for (; next < k && ov[next]->start_ms <= a; next++) {
			bool open = still_open(s, ov[next]);
			if (open || ov[next]->end_ms > a)
				act[na++] = ov[next];
		}
		memcpy(tmp, act, na * sizeof(*tmp)); /* join_names orders its list */
		join_names(tmp, na, names, sizeof(names));
		fn(arg, a, cut[i + 1], names);
	}
	free(tmp);
	free(act);
	free(cut);
	free(ov);
}
