/* perfscript: the text `perf script` prints, turned back into samples.
 *
 * perfhunt asks perf for a fixed field list (PERFSCRIPT_FIELDS) and reads
 * its output one line at a time: a header line per sample (command name, pid/tid, time in
 * seconds on the recording clock, period, event) followed by one indented
 * line per frame, leaf first, and a blank line; with --show-switch-events,
 * context switch records ("... PERF_RECORD_SWITCH OUT preempt") are lines of
 * their own, delivered as records without a stack; with --show-task-events,
 * so are forks (PERF_RECORD_FORK), while its COMM and EXIT lines are read
 * and passed over. The text is untrusted input
 * (a symbol name can hold anything): a line that fits no shape is counted,
 * never a crash, and every name is bounded.
 */
#ifndef PERFHUNT_PERFSCRIPT_H
#define PERFHUNT_PERFSCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The -F list the parser expects (with --ns). */
#define PERFSCRIPT_FIELDS "comm,pid,tid,time,event,period,ip,sym,dso"

#define PERFSCRIPT_MAX_FRAMES 256
#define PERFSCRIPT_NAME 160

struct perfscript_frame {
	uint64_t ip;
	char sym[PERFSCRIPT_NAME];   /* "[unknown]" when perf could not name it */
	char dso[PERFSCRIPT_NAME];   /* the mapping's path, "[kernel.kallsyms]", "inlined", or "" */
	bool kernel;                 /* a kernel frame */
};

/* What a record is: a sample (with its stack), or one of perf's context
 * switch records (--switch-events, --show-switch-events: no stack). */
enum perfscript_kind {
	PERFSCRIPT_SAMPLE,
	PERFSCRIPT_SWITCH_OUT,       /* the thread left the CPU, blocked or yielding */
	PERFSCRIPT_SWITCH_PREEMPT,   /* it left the CPU preempted: still runnable */
	PERFSCRIPT_SWITCH_IN,        /* it came back on a CPU */
	PERFSCRIPT_FORK,             /* pid/tid was made by ppid (a thread: pid == ppid) */
};

struct perfscript_sample {
	enum perfscript_kind kind;
	char comm[64];               /* the thread's command name, "" when perf gave none */
	int32_t pid, tid;
	int32_t ppid;                /* PERFSCRIPT_FORK: the parent's pid; else 0 */
	int64_t time_ns;             /* on the clock perf recorded with (-k mono) */
	uint64_t period;
	char event[64];
	struct perfscript_frame frames[PERFSCRIPT_MAX_FRAMES]; /* leaf first */
	size_t nframes;
	bool truncated;              /* more frames than PERFSCRIPT_MAX_FRAMES */
};

/* Called for each complete sample; it may not keep the pointer. */
typedef void (*perfscript_fn)(void *arg, const struct perfscript_sample *s);

struct perfscript {
	perfscript_fn fn;
	void *arg;
	struct perfscript_sample cur;
	bool in_sample;
	uint64_t samples, bad_lines;
};

void perfscript_init(struct perfscript *p, perfscript_fn fn, void *arg);
/* One line of output, without its newline (a trailing '\n' is ignored). */
void perfscript_line(struct perfscript *p, const char *line, size_t n);
/* A whole buffer: split into lines and fed in order. */
void perfscript_feed(struct perfscript *p, const char *buf, size_t n);
/* Ends the last sample (output need not end with a blank line). */
void perfscript_finish(struct perfscript *p);

/* A sample's command name as the root frame of its folded stack (FlameGraph's
 * convention): ';' and control bytes become '_', "[unknown process]" if none. */
void perfscript_comm_name(const struct perfscript_sample *sm, char *buf, size_t n);
/* The same from a record's command name ("" for none). */
void perfscript_comm_frame(const char *comm, char *buf, size_t n);
/* A frame's name for a folded stack: the symbol, or "dso+0xIP" (the
 * mapping's base name) where the symbol is unknown; kernel frames get the
 * FlameGraph suffix "_[k]"; ';' and control bytes become '_'. */
void perfscript_frame_name(const struct perfscript_frame *f, char *buf, size_t n);

#endif
