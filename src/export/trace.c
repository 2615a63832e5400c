/* trace: the trace events built as one JSON array from the record's
 * phases, sample rows (by column name), profile timeline and GPU slices. */
#include "export/trace.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/command.h"
#include "util/xalloc.h"

enum { TRACE_RUN_PID = 1, TRACE_SAMPLES_PID = 2, TRACE_GPU_PID = 3 };

static json_t *meta(const char *what, int pid, int tid, const char *name)
{
	return json_pack("{s:s, s:s, s:i, s:i, s:{s:s}}", "name", what, "ph", "M", "pid", pid, "tid", tid, "args",
			 "name", name);
}

/* Tracks of one lane: a phase that overlaps as many others of its lane
 * without nesting takes a track each, up to this; past it the phase is left
 * out of the trace and counted (otherData.phases_left_out). */
#define TRACE_LANE_TRACKS_MAX 64

/* One track of a lane: the ends (ns) of the slices open on it, innermost last. */
struct track {
	int tid;
	int64_t *open_end_ns;
	size_t nopen, cap;
};

/* A lane and its tracks, in order of first use. */
struct lane {
	const char *name;
	struct track *t;           /* up to TRACE_LANE_TRACKS_MAX */
	size_t n;
};

struct tracks {
	struct lane *lanes;        /* sorted by name */
	size_t n_lanes;
	int n_tids;
	size_t left_out;
	json_t *events;            /* where a new track's thread_name goes */
};

/* The track of a slice [start_ns, end_ns] of lane, the slices coming in order
 * of start (the longer first at one start): the lane's first track where it
 * nests in what is open, else a new track of the lane ("LANE (2)") — Perfetto
 * and the format want the complete events of one thread to nest, and two
 * phases of one lane may overlap (duration probes, markers closed out of
 * order). Tracks are numbered 1, 2, ... in order of first use; -1 when the
 * lane has all its tracks and none holds the slice. */
static int track_for(struct tracks *ts, struct lane *l, int64_t start_ns, int64_t end_ns)
{
	struct track *t = NULL;
	for (size_t i = 0; i < l->n && !t; i++) {
		struct track *c = &l->t[i];
		while (c->nopen && c->open_end_ns[c->nopen - 1] <= start_ns)
			c->nopen--; /* ended before this start: closed for every later slice too */
		if (!c->nopen || end_ns <= c->open_end_ns[c->nopen - 1])
			t = c;
	}
	if (!t && l->n == TRACE_LANE_TRACKS_MAX) {
		ts->left_out++;
		return -1;
	}
	if (!t) {
		if (!l->t)
			l->t = xcalloc(TRACE_LANE_TRACKS_MAX, sizeof(*l->t));
		t = &l->t[l->n++];
		*t = (struct track){ .tid = ++ts->n_tids };
		char name[300];
		if (l->n > 1)
			snprintf(name, sizeof(name), "%s (%zu)", l->name[0] ? l->name : "phases", l->n);
		else
			snprintf(name, sizeof(name), "%s", l->name[0] ? l->name : "phases");
		json_array_append_new(ts->events, meta("thread_name", TRACE_RUN_PID, t->tid, name));
	}
	if (t->nopen == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 4;
		t->open_end_ns = xrealloc(t->open_end_ns, t->cap * sizeof(*t->open_end_ns));
	}
	t->open_end_ns[t->nopen++] = end_ns;
	return t->tid;
}

static int cmp_lane(const void *a, const void *b)
{
	return strcmp(((const struct lane *)a)->name, ((const struct lane *)b)->name);
}

/* The lanes of the slices' lane names (and "", the phases without one), once each. */
static void lanes_init(struct tracks *ts, const char *const *names, size_t n)
{
	ts->lanes = xcalloc(n + 1, sizeof(*ts->lanes));
	ts->lanes[ts->n_lanes++].name = "";
	for (size_t i = 0; i < n; i++)
		ts->lanes[ts->n_lanes++].name = names[i];
	qsort(ts->lanes, ts->n_lanes, sizeof(*ts->lanes), cmp_lane);
	size_t k = 0;
	for (size_t i = 0; i < ts->n_lanes; i++)
		if (!k || strcmp(ts->lanes[k - 1].name, ts->lanes[i].name))
			ts->lanes[k++] = ts->lanes[i];
	ts->n_lanes = k;
}

static struct lane *lane_of(const struct tracks *ts, const char *name)
{
	struct lane key = { .name = name };
	return bsearch(&key, ts->lanes, ts->n_lanes, sizeof(*ts->lanes), cmp_lane);
}

/* A phase of the record, its times rounded to whole nanoseconds so that a
 * slice's ts + dur is its end exactly and nesting survives the rounding. */
struct slice {
	const json_t *ph;
	const char *name, *lane;
	int64_t start_ns, end_ns;
	size_t index;
};

static int slice_cmp(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	if (x->end_ns != y->end_ns)
		return x->end_ns > y->end_ns ? -1 : 1; /* the enclosing one first */
	return x->index < y->index ? -1 : x->index > y->index;
}

static double us(int64_t ns)
{
	return (double)ns / 1000;
}

/* The phases as slices; returns how many were left out (a lane out of tracks). */
static size_t add_phases(const json_t *rec, json_t *events)
{
	const json_t *phases = json_object_get(rec, "phases");
	struct slice *sl = xcalloc(json_array_size(phases) + 1, sizeof(*sl));
	size_t n = 0, i;
	const json_t *ph;
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		const char *lane = json_string_value(json_object_get(ph, "lane"));
		double start = json_number_value(json_object_get(ph, "start_ms"));
		double end = json_number_value(json_object_get(ph, "end_ms"));
		if (!name || !(end >= start) || !(fabs(start) < 1e12 && fabs(end) < 1e12))
			continue; /* beyond 30 years (a damaged record): no nanosecond count holds it */
		sl[n++] = (struct slice){ .ph = ph, .name = name, .lane = lane ? lane : "", .index = i,
					  .start_ns = llround(start * 1e6), .end_ns = llround(end * 1e6) };
	}
	qsort(sl, n, sizeof(*sl), slice_cmp);
	const char **names = xcalloc(n + 1, sizeof(*names));
	for (i = 0; i < n; i++)
		names[i] = sl[i].lane;
	struct tracks ts = { .events = events };
	lanes_init(&ts, names, n);
	free(names);
	track_for(&ts, lane_of(&ts, ""), 0, 0); /* track 1: the phases without a lane, named first */
	for (i = 0; i < n; i++) {
		int tid = track_for(&ts, lane_of(&ts, sl[i].lane), sl[i].start_ns, sl[i].end_ns);
		if (tid < 0)
			continue;
		json_t *args = json_object();
		const json_t *res = json_object_get(sl[i].ph, "resources");
		if (json_is_object(res))
			json_object_update(args, (json_t *)res);
		json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i, s:o}", "name", sl[i].name,
							"cat", "phase", "ph", "X", "ts", us(sl[i].start_ns), "dur",
							us(sl[i].end_ns - sl[i].start_ns), "pid", TRACE_RUN_PID, "tid",
							tid, "args", args));
	}
	for (i = 0; i < ts.n_lanes; i++) {
		for (size_t k = 0; k < ts.lanes[i].n; k++)
			free(ts.lanes[i].t[k].open_end_ns);
		free(ts.lanes[i].t);
	}
	free(ts.lanes);
	free(sl);
	return ts.left_out;
}

static int column(const json_t *cols, const char *name)
{
	size_t i;
	const json_t *c;
	json_array_foreach(cols, i, c) {
		const char *s = json_string_value(c);
		if (s && !strcmp(s, name))
			return (int)i;
	}
	return -1;
}

/* One counter track per group: its series are the named columns of a row. */
static void add_counters(const json_t *rec, json_t *events)
{
	static const struct {
		const char *track;
		const char *cols[4];
	} groups[] = {
		{ "memory (KiB)", { "rss_kb", "anon_kb", "file_kb", "shmem_kb" } },
		{ "page faults per interval", { "minflt", "majflt", NULL, NULL } },
		{ "CPU (ms per interval)", { "user_ms", "sys_ms", NULL, NULL } },
		{ "GPU memory (MiB)", { "gpu_mib", NULL, NULL, NULL } },
	};
	const json_t *samples = json_object_get(rec, "samples");
	const json_t *cols = json_object_get(samples, "columns");
	int t = column(cols, "t_ms");
	if (t < 0)
		return;
	size_t i;
	const json_t *row;
	json_array_foreach(json_object_get(samples, "rows"), i, row) {
		double t_ms = json_number_value(json_array_get(row, (size_t)t));
		for (size_t g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
			json_t *args = json_object();
			for (size_t k = 0; k < 4 && groups[g].cols[k]; k++) {
				int c = column(cols, groups[g].cols[k]);
				const json_t *v = c >= 0 ? json_array_get(row, (size_t)c) : NULL;
				if (json_is_number(v))
					json_object_set_new(args, groups[g].cols[k], json_real(json_number_value(v)));
			}
			if (!json_object_size(args)) {
				json_decref(args);
				continue;
			}
			json_array_append_new(events, json_pack("{s:s, s:s, s:f, s:i, s:o}", "name", groups[g].track, "ph",
								"C", "ts", t_ms * 1000, "pid", TRACE_RUN_PID, "args",
								args));
		}
	}
}

/* A timeline sample: when, on which thread, its stack "process;root;...;leaf". */
struct tsample {
	int64_t t_us;
	int tid;
	const char *stack;
	size_t index;
};

static int tsample_cmp(const void *a, const void *b)
{
	const struct tsample *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->t_us != y->t_us)
		return x->t_us < y->t_us ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The sampled stacks, the format's two ways over one set of call-tree nodes
 * (a tree per thread, a node per frame under its parent, ids unique in the
 * trace): each thread's "Profile" and "ProfileChunk" events (the CPU profile
 * Chrome DevTools shows as a flame chart under the thread), and the
 * top-level "stackFrames" and "samples" of the Trace Event Format. */
struct cpu_trees {
	json_t *index;             /* "PARENT\x1fFRAME" -> node id */
	json_t *frames, *samples;  /* the document's stackFrames and samples */
	json_int_t next_id;
};

/* The node of frame name (len bytes) under parent, made on first use; a
 * thread's root node ("(root)", parent 0) is no stack frame, and the frames
 * right under it have no parent there. */
static json_int_t node_for(struct cpu_trees *ct, json_t *nodes, json_int_t root, json_int_t parent, const char *name,
			   size_t len)
{
	char *key = xmalloc(len + 32);
	int kl = snprintf(key, 32, "%lld\x1f", (long long)parent);
	memcpy(key + kl, name, len);
	key[(size_t)kl + len] = '\0';
	const json_t *at = parent ? json_object_get(ct->index, key) : NULL; /* a root: each thread its own */
	json_int_t id = at ? json_integer_value(at) : ++ct->next_id;
	if (!at) {
		if (parent)
			json_object_set_new_nocheck(ct->index, key, json_integer(id));
		json_t *frame = json_pack("{s:s%, s:s, s:s, s:i, s:i, s:s}", "functionName", name, len, "url", "",
					  "scriptId", "0", "lineNumber", -1, "columnNumber", -1, "codeType", "other");
		json_t *node = json_pack("{s:I, s:o}", "id", id, "callFrame", frame);
		if (parent) {
			json_object_set_new(node, "parent", json_integer(parent));
			json_t *sf = json_pack("{s:s%, s:s}", "name", name, len, "category", "perfhunt");
			if (parent != root)
				json_object_set_new(sf, "parent", json_integer(parent));
			char idk[24];
			snprintf(idk, sizeof(idk), "%lld", (long long)id);
			json_object_set_new(ct->frames, idk, sf);
		}
		json_array_append_new(nodes, node);
	}
	free(key);
	return id;
}

/* One thread's samples (in time order) as its CPU profile. */
static void add_thread_profile(struct cpu_trees *ct, const struct tsample *v, size_t n, const char *event,
			       json_t *events)
{
	json_t *nodes = json_array(), *ids = json_array(), *deltas = json_array();
	json_int_t root = node_for(ct, nodes, 0, 0, "(root)", 6);
	for (size_t i = 0; i < n; i++) {
		json_int_t id = root;
		for (const char *p = v[i].stack; *p;) {
			const char *semi = strchr(p, ';');
			size_t len = semi ? (size_t)(semi - p) : strlen(p);
			if (len)
				id = node_for(ct, nodes, root, id, p, len);
			p += len + (semi ? 1 : 0);
		}
		json_array_append_new(ids, json_integer(id));
		json_array_append_new(deltas, json_integer(i ? v[i].t_us - v[i - 1].t_us : 0));
		json_array_append_new(ct->samples, json_pack("{s:i, s:i, s:I, s:s, s:I, s:i}", "pid", TRACE_SAMPLES_PID,
							     "tid", v[i].tid, "ts", (json_int_t)v[i].t_us, "name",
							     event, "sf", id, "weight", 1));
	}
	char pid[32];
	snprintf(pid, sizeof(pid), "0x%x", (unsigned)v[0].tid);
	json_int_t t0 = v[0].t_us;
	json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:{s:{s:I}}}", "name", "Profile",
						"cat", "disabled-by-default-v8.cpu_profiler", "ph", "P", "id", pid,
						"pid", TRACE_SAMPLES_PID, "tid", v[0].tid, "ts", t0, "args", "data",
						"startTime", t0));
	json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:I, s:{s:{s:{s:o, s:o}, s:o}}}",
						"name", "ProfileChunk", "cat", "disabled-by-default-v8.cpu_profiler",
						"ph", "P", "id", pid, "pid", TRACE_SAMPLES_PID, "tid", v[0].tid, "ts",
						t0, "args", "data", "cpuProfile", "nodes", nodes, "samples", ids,
						"timeDeltas", deltas));
}

/* The profile's timeline: per thread a named track holding its CPU profile;
 * doc gets the stackFrames and samples. A record from before the timeline
 * kept stacks gives each sample its leaf frame alone. */
static void add_profile_samples(const json_t *rec, json_t *events, json_t *doc)
{
	const json_t *p = json_object_get(rec, "profile");
	const json_t *timeline = json_object_get(p, "timeline");
	const json_t *tl = json_object_get(timeline, "samples"), *stacks = json_object_get(timeline, "stacks");
	struct tsample *v = xcalloc(json_array_size(tl) + 1, sizeof(*v));
	size_t n = 0, i;
	const json_t *s;
	json_array_foreach(tl, i, s) {
		double t_ms = json_number_value(json_array_get(s, 0));
		const json_t *k = json_array_get(s, 3);
		const char *stack = json_string_value(json_is_integer(k) ? json_array_get(stacks, (size_t)json_integer_value(k))
									: json_array_get(s, 2));
		if (!(t_ms >= 0 && t_ms < 1e12) || !stack || !stack[0])
			continue;
		v[n++] = (struct tsample){ .t_us = llround(t_ms * 1000), .stack = stack, .index = i,
					   .tid = (int)json_integer_value(json_array_get(s, 1)) };
	}
	if (!n) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), tsample_cmp);
	const char *event = json_string_value(json_object_get(p, "event"));
	struct cpu_trees ct = { .index = json_object(), .frames = json_object(), .samples = json_array() };
	json_array_append_new(events, meta("process_name", TRACE_SAMPLES_PID, 0, "profile samples"));
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a; b < n && v[b].tid == v[a].tid;)
			b++;
		char name[32];
		snprintf(name, sizeof(name), "thread %d", v[a].tid);
		json_array_append_new(events, meta("thread_name", TRACE_SAMPLES_PID, v[a].tid, name));
		add_thread_profile(&ct, v + a, b - a, event && event[0] ? event : "cpu-clock", events);
	}
	json_object_set_new(doc, "stackFrames", ct.frames);
	json_object_set_new(doc, "samples", ct.samples);
	json_decref(ct.index);
	free(v);
}

/* Tracks of the GPU process past its devices' (2 a device, 64 devices): the
 * host threads' launching calls. */
#define TRACE_LAUNCH_TID0 1000

/* The launching call of a slice (its launch member, [tid, name, start_ms,
 * duration_ms]) on the track of its process and thread, once per call, and a
 * flow arrow from it to the slice (ph s at the call, f bound to the slice that
 * encloses its start), as Nsight Systems draws them. */
static void add_launch(const json_t *launch, int pid, double slice_start_ms, int slice_tid, json_t *threads,
		       json_t *calls, json_t *events, json_int_t *flow)
{
	json_int_t tid = json_integer_value(json_array_get(launch, 0));
	const char *name = json_string_value(json_array_get(launch, 1));
	double start = json_number_value(json_array_get(launch, 2)), dur = json_number_value(json_array_get(launch, 3));
	if (!name || !(dur >= 0) || !(fabs(start) < 1e12 && dur < 1e12))
		return;
	char key[64];
	snprintf(key, sizeof(key), "%d/%lld", pid, (long long)tid);
	json_t *track = json_object_get(threads, key);
	if (!track) {
		track = json_integer(TRACE_LAUNCH_TID0 + (json_int_t)json_object_size(threads));
		json_object_set_new(threads, key, track);
		char label[96];
		snprintf(label, sizeof(label), "process %d thread %lld: CUDA calls", pid, (long long)tid);
		json_array_append_new(events, meta("thread_name", TRACE_GPU_PID, (int)json_integer_value(track), label));
	}
	int at = (int)json_integer_value(track);
	snprintf(key, sizeof(key), "%d/%lld/%.3f", pid, (long long)tid, start);
	if (!json_object_get(calls, key)) {
		json_object_set_new(calls, key, json_true());
		json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i}", "name", name, "cat", "cuda_api",
							"ph", "X", "ts", start * 1000, "dur", dur * 1000, "pid",
							TRACE_GPU_PID, "tid", at));
	}
	++*flow;
	json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:I, s:f, s:i, s:i}", "name", "launch", "cat", "launch",
						"ph", "s", "id", *flow, "ts", start * 1000, "pid", TRACE_GPU_PID,
						"tid", at));
	json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:s, s:I, s:f, s:i, s:i}", "name", "launch", "cat",
						"launch", "ph", "f", "bp", "e", "id", *flow, "ts",
						slice_start_ms * 1000, "pid", TRACE_GPU_PID, "tid", slice_tid));
}

/* run --gpu-trace: each device's kernels and copies on two tracks of their
 * own (copy engines run beside the compute units), from gpu_trace.slices,
 * with flow arrows from their launches where the record has them. */
static void add_gpu(const json_t *rec, json_t *events)
{
	const json_t *slices = json_object_get(json_object_get(rec, "gpu_trace"), "slices");
	if (!json_array_size(slices))
		return;
	json_array_append_new(events, meta("process_name", TRACE_GPU_PID, 0, "GPU (--gpu-trace)"));
	bool named[2 * 64] = { false };
	json_t *threads = json_object(), *calls = json_object();
	json_int_t flow = 0;
	size_t i;
	const json_t *sl;
	json_array_foreach(slices, i, sl) {
		json_int_t dev = json_integer_value(json_array_get(sl, 0));
		const char *kind = json_string_value(json_array_get(sl, 1));
		const char *name = json_string_value(json_array_get(sl, 2));
		double start = json_number_value(json_array_get(sl, 3)), dur = json_number_value(json_array_get(sl, 4));
		if (!kind || !name || dev < 0 || dev >= 64 || !(dur >= 0) || !(fabs(start) < 1e12 && dur < 1e12))
			continue;
		bool kernel = !strcmp(kind, "kernel");
		int tid = (int)dev * 2 + (kernel ? 1 : 2);
		if (!named[tid - 1]) {
			char track[64];
			snprintf(track, sizeof(track), "GPU %d %s", (int)dev, kernel ? "kernels" : "copies");
			json_array_append_new(events, meta("thread_name", TRACE_GPU_PID, tid, track));
			named[tid - 1] = true;
		}
		json_array_append_new(events, json_pack("{s:s, s:s, s:s, s:f, s:f, s:i, s:i}", "name", name, "cat",
							kind, "ph", "X", "ts", start * 1000, "dur", dur * 1000,
							"pid", TRACE_GPU_PID, "tid", tid));
		const json_t *launch = json_array_get(sl, 6);
		if (json_is_array(launch))
			add_launch(launch, (int)json_integer_value(json_array_get(sl, 5)), start, tid, threads, calls,
				   events, &flow);
	}
	json_decref(threads);
	json_decref(calls);
}

int trace_write(const json_t *rec, FILE *out, struct err *e)
{
	const char *schema = json_string_value(json_object_get(rec, "schema"));
	if (!schema || strncmp(schema, "perfhunt.run/", 13))
		return err_set(e, "a trace is made of a run record (perfhunt.run/1)");
	json_t *events = json_array();
	char *line = command_text(json_object_get(rec, "command"));
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "%s", line ? line : "");
	free(line);
	char title[512];
	snprintf(title, sizeof(title), "perfhunt: %s", cmd[0] ? cmd : "run");
	json_array_append_new(events, meta("process_name", TRACE_RUN_PID, 0, title));
	size_t left_out = add_phases(rec, events);
	add_counters(rec, events);
	add_gpu(rec, events);
	json_t *doc = json_pack("{s:o, s:s, s:{s:s, s:O?}}", "traceEvents", events, "displayTimeUnit", "ms",
				"otherData", "generator", "perfhunt", "started_at", json_object_get(rec, "started_at"));
	add_profile_samples(rec, events, doc);
	if (left_out) /* the viewers show otherData as the trace's metadata */
		json_object_set_new(json_object_get(doc, "otherData"), "phases_left_out",
				    json_sprintf("%zu phases not drawn: each overlaps, without nesting, phases on "
						 "all %d tracks of its lane (the record lists them)", left_out,
						 TRACE_LANE_TRACKS_MAX));
	int rc = json_dumpf(doc, out, JSON_COMPACT | JSON_REAL_PRECISION(15)) < 0 ? err_set(e, "cannot write the trace JSON") : 0;
	fputc('\n', out);
	json_decref(doc);
	return rc;
}
