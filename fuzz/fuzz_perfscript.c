/* fuzz_perfscript: libFuzzer target for the text of `perf script`.
 *
 * The bytes go through perfscript as perf's output would (whole and, split at
 * a byte the input picks, as two feeds); every sample's frames get their
 * folded names and go into a profile_json, switch records and context-switch
 * samples through offcpu into its off-CPU tables, whose JSON is built. Invariants
 * (bounded frame counts, names without ';' or newlines, both feeds giving the
 * same count) abort like a crash.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile/offcpu.h"
#include "profile/perfscript.h"
#include "profile/profiler.h"
#include "record/profile_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_fold {
	struct profile_json *pj;
	struct offcpu *off;
};

static void on_blocked(void *arg, int32_t tid, const char *comm, const char *stack, uint64_t period, int64_t out_ns,
		       int64_t in_ns)
{
	if (in_ns < out_ns || (!stack[0]) != !period)
		abort();
	char bare[PERFSCRIPT_NAME + 40];
	perfscript_comm_frame(comm, bare, sizeof(bare));
	strcat(bare, ";" PROFILE_JSON_OFFCPU);
	profile_json_add_offcpu(arg, tid % 2 ? "a" : "", stack[0] ? stack : bare, in_ns - out_ns, period);
}

static void on_sample(void *arg, const struct perfscript_sample *s)
{
	const struct fuzz_fold *f = arg;
	struct profile_json *pj = f->pj;
	if (s->kind != PERFSCRIPT_SAMPLE) {
		if (s->nframes)
			abort();
		offcpu_switch(f->off, s);
		return;
	}
	if (s->nframes > PERFSCRIPT_MAX_FRAMES)
		abort();
	char stack[1024] = "", name[PERFSCRIPT_NAME + 40] = "[no stack]";
	for (size_t i = 0; i < s->nframes; i++) {
		perfscript_frame_name(&s->frames[i], name, sizeof(name));
		if (strpbrk(name, ";\n"))
			abort();
		if (strlen(stack) + strlen(name) + 2 < sizeof(stack)) {
			if (stack[0])
				strcat(stack, ";");
			strcat(stack, name);
		}
	}
	if (PROFILER_IS_OFFCPU(s->event))
		offcpu_stack(f->off, s->tid, stack, s->period);
	else
		profile_json_add(pj, (double)s->time_ns / 1e6, s->tid, s->pid % 3 ? "a+b" : "", stack, name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile_json *pj = profile_json_new();
	struct fuzz_fold f = { pj, NULL };
	f.off = offcpu_new(on_blocked, pj);
	struct perfscript *whole = malloc(sizeof(*whole)), *split = malloc(sizeof(*split));
	if (!whole || !split)
		abort();
	perfscript_init(whole, on_sample, &f);
	perfscript_feed(whole, (const char *)data, size);
	perfscript_finish(whole);
	/* split at a newline: line by line, the same samples */
	perfscript_init(split, NULL, NULL);
	const char *nl = size ? memchr(data, '\n', size / 2 + 1) : NULL;
	size_t cut = nl ? (size_t)(nl - (const char *)data) + 1 : 0;
	perfscript_feed(split, (const char *)data, cut);
	perfscript_feed(split, (const char *)data + cut, size - cut);
	perfscript_finish(split);
	if (split->samples != whole->samples)
		abort();
	struct offcpu_counts oc = offcpu_counts(f.off);
	struct profile_json_meta m = { .event = "cpu-clock", .hz = 99, .offcpu = true, .offcpu_event = PROFILER_OFFCPU_EVENT,
				       .offcpu_period = PROFILER_OFFCPU_PERIOD, .offcpu_intervals = oc.intervals,
				       .offcpu_no_stack = oc.no_stack, .offcpu_sampled = oc.sampled, .offcpu_open = oc.open, .offcpu_dropped = oc.dropped };
	json_decref(profile_json_build(pj, &m));
	offcpu_free(f.off);
	profile_json_free(pj);
	free(whole);
	free(split);
	return 0;
}
