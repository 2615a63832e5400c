/* session: the recording pipeline, in the order a recording happens.
 *
 * session_record() reads as its story: open the outputs, run the monitor
 * (whose hooks write CSV rows, label samples with phases and push live
 * samples), turn the result into a record, write it, then keep it — the
 * history first, the network last, so a gateway that is down loses nothing.
 */
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters/counters.h"
#include "monitor/gpupoll.h"
#include "monitor/monitor.h"
#include "monitor/probefeed.h"
#include "monitor/track.h"
#include "profile/offcpu.h"
#include "profile/profiler.h"
#include "gputrace/gputrace.h"
#include "record/gputrace_json.h"
#include "record/jsonio.h"
#include "util/xalloc.h"
#include "record/phases_json.h"
#include "record/profile_json.h"
#include "record/runrec.h"
#include "session/profile_fold.h"
#include "store/store.h"

/* Points kept per tree for per-phase resources (~100 bytes each): past it
 * the track halves its resolution, keeping totals and maxima. */
enum { SESSION_TRACK_POINTS = 1 << 16 };

/* The history, opened on a thread of its own while the command runs:
 * loading libsqlite3, the file, its WAL and schema take about a millisecond,
 * which a short command would otherwise wait for after it ended. The thread
 * starts once the command has started (the first sample is taken): its
 * mappings would otherwise contend with the launch (the vfork'd child shares
 * perfhunt's memory until it execs), ~0.2 ms on a run of true. */
struct history_opener {
	pthread_t thread;
	bool started, joined;
	struct store *st;
	struct err e;
	double cpu_ms;            /* the thread's own CPU: not the monitor's */
};

static void *history_open_thread(void *arg)
{
	struct history_opener *o = arg;
	/* only one that exists: a command that never starts creates no history */
	if (store_open_existing(&o->st, NULL, &o->e) < 0)
		o->st = NULL;
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	o->cpu_ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
	return NULL;
}

static void history_open_start(struct history_opener *o)
{
	/* with every signal blocked: SIGCHLD must reach the monitor's signalfd,
	 * never this thread */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	o->started = pthread_create(&o->thread, NULL, history_open_thread, o) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Waits for the opener; the store, or NULL with e filled. Where it found
 * none (or failed) the history is opened here, created if need be, so the
 * errors are store_open's. */
static struct store *history_open_wait(struct history_opener *o, struct err *e)
{
	if (o->started && !o->joined) {
		pthread_join(o->thread, NULL);
		o->joined = true;
	}
	struct store *st = o->st;
	o->st = NULL;
	if (!st && store_open(&st, NULL, e) < 0)
		return NULL;
	return st;
}

/* The stop signals while a recording is kept. The monitor reads SIGINT,
 * SIGTERM, SIGHUP and SIGQUIT through its signalfd; once it returns, a
 * second ^C or `kill` (two `perfhunt stop` at once) would end perfhunt with
 * the run half written. So they are blocked from the start (one that comes
 * before the monitor runs is its first signal), and while the record is
 * built, written and stored the first that comes is absorbed: a third
 * signal in all, or SIGKILL, is the user's way out, and ends perfhunt as
 * the signal does by default. */
static const int shield_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
enum { SHIELD_N = sizeof(shield_signals) / sizeof(shield_signals[0]) };

struct shield {
	sigset_t set, oldmask;
	struct sigaction old[SHIELD_N];
	bool on;
};

static volatile sig_atomic_t shield_absorbed, shield_signal;

static void shield_handler(int sig)
{
	if (shield_absorbed++ == 0) {
		shield_signal = sig; /* the caller hears of it (session_outcome.signal) */
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig); /* delivered once the handler returns: the default action */
}

static void shield_block(struct shield *sh)
{
	sigemptyset(&sh->set);
	for (int i = 0; i < SHIELD_N; i++)
		sigaddset(&sh->set, shield_signals[i]);
	sigprocmask(SIG_BLOCK, &sh->set, &sh->oldmask);
	sh->on = false;
}

/* The monitor is done: a signal from now on is caught (one absorbed). */
static void shield_on(struct shield *sh)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = shield_handler;
	sa.sa_flags = SA_RESTART; /* writes and waits of the save go on */
	sigfillset(&sa.sa_mask);
	shield_absorbed = shield_signal = 0;
	for (int i = 0; i < SHIELD_N; i++)
		sigaction(shield_signals[i], &sa, &sh->old[i]);
	sh->on = true;
	sigprocmask(SIG_SETMASK, &sh->oldmask, NULL); /* one pending now reaches the handler */
}

/* The record is kept: signals act as before. */
static void shield_off(struct shield *sh)
{
	if (!sh->on) {
		sigprocmask(SIG_SETMASK, &sh->oldmask, NULL);
		return;
	}
	for (int i = 0; i < SHIELD_N; i++)
		sigaction(shield_signals[i], &sh->old[i], NULL);
	sh->on = false;
}

/* The recording's runtime state; the configuration stays apart and const. */
struct session {
	const struct session_config *c;
	const struct session_hooks *h;
	struct csv_writer csv;
	bool csv_open;
	struct probefeed feed;
	bool feed_on;
	struct track measured, client; /* per-phase resources: the measured tree, the command's */
	struct counters *counters;        /* the command's, or the watched tree's */
	struct counters *daemon_counters; /* run --attach: the daemon's */
	char counters_error[600];
	struct profiler *profiler;        /* --profile: perf runs on the tree */
	bool batched;                     /* --profile in a bench: its shared perf samples this run */
	struct profiler_info profile_info;
	char profile_error[600];          /* why there is no profile: a note in the record */
	double last_push_ms;
	bool push_failed;
	int status;
	struct history_opener history;
	/* --gpu-trace: the collector, the directory its files go to, the
	 * command's extra environment, the trace once read */
	char gpu_collector[4096], gpu_dir[4096], gpu_why[4800];
	char *gpu_env[4];
	struct gputrace gpu;
	bool gpu_read;
};

static void warn(struct session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct session *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (s->h && s->h->warn)
		s->h->warn(s->h->arg, msg);
}

static bool live_push(const struct session_config *c)
{
	return c->push_every_ms > 0 && c->fleet && c->fleet->push_url;
}

/* ---- monitor hooks ---- */

/* watch --push-every: the latest sample to the gateway, without stalling the
 * sampler (short timeout, no retries); a failure is said once. */
static void push_sample(struct session *s, const struct sample *sm)
{
	const struct session_config *c = s->c;
	if (s->last_push_ms && sm->t_ms - s->last_push_ms < c->push_every_ms)
		return;
	s->last_push_ms = sm->t_ms ? sm->t_ms : 1;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	const char *what = c->record_argv && c->record_argv[0] ? c->record_argv[0] : "";
	struct err e;
	if (fleet_push_live(c->fleet, sm, c->interval_ms, what, host, &e) < 0 && !s->push_failed) {
		s->push_failed = true;
		warn(s, "live push failed (recording goes on): %s", e.msg);
	}
}

static void on_started(void *arg)
{
	struct session *s = arg;
	if (s->c->save && !s->history.started)
		history_open_start(&s->history);
	if (s->h && s->h->started)
		s->h->started(s->h->arg);
}

/* --profile: perf's keeper, started before anything is measured; a failure
 * is said once and the recording goes on without a profile. */
static void prepare_profile(struct session *s)
{
	struct err e;
	bool first = true;
	if (s->c->profile_batch ? profbatch_prepare(s->c->profile_batch, s->c->profile_hz, s->c->daemon_pid,
						    &s->profile_info, &first, &e) < 0
				: profiler_check(s->c->profile_hz, &s->profile_info, &e) < 0 ||
					  profiler_prepare(&s->profiler, &s->profile_info, &e) < 0) {
		snprintf(s->profile_error, sizeof(s->profile_error), "%s", e.msg);
		if (first) /* a bench's runs say it once */
			warn(s, "%s", e.msg);
		return;
	}
	s->batched = s->c->profile_batch != NULL;
	if (!first)
		return;
	if (s->profile_info.kernel_note[0])
		warn(s, "profile: %s", s->profile_info.kernel_note);
	if (s->profile_info.offcpu_note[0])
		warn(s, "profile: %s", s->profile_info.offcpu_note);
}

/* perf on these trees from now on. */
static void start_profile(struct session *s, const pid_t *pids, size_t n)
{
	struct err e;
	if (s->profiler && profiler_attach(s->profiler, pids, n, &e) < 0) {
		snprintf(s->profile_error, sizeof(s->profile_error), "%s", e.msg);
		warn(s, "%s", e.msg);
		profiler_free(s->profiler);
		s->profiler = NULL;
	}
}

/* A bench's shared perf: off once the run's tree has ended (or the monitor
 * failed before it started one). */
static void end_batched_profile(struct session *s)
{
	struct err e;
	if (s->c->profile_batch && profbatch_end(s->c->profile_batch, &e) < 0) {
		snprintf(s->profile_error, sizeof(s->profile_error), "%s", e.msg);
		warn(s, "%s", e.msg);
		s->batched = false;
	}
}

/* The command is forked, not yet exec'd: counting and profiling start at its exec. */
static void on_spawn(void *arg, pid_t pid)
{
	struct session *s = arg;
	struct err e;
	if (s->c->profile && !s->c->profile_batch) {
		pid_t pids[2] = { pid, s->c->daemon_pid };
		start_profile(s, pids, s->c->daemon_pid > 0 ? 2 : 1);
	}
	if (!s->c->counters)
		return;
	if (counters_open(&s->counters, pid, s->c->events, &e) < 0)
		snprintf(s->counters_error, sizeof(s->counters_error), "counters not recorded: %s", e.msg);
	else if (s->feed_on && !s->feed.counters)
		s->feed.counters = s->counters;
}

/* --profile: off-CPU stacks every switch-out, or sampled, by how often the
 * tree switches. */
static void pace_profile(struct session *s, const struct sample *sm)
{
	if (s->profiler)
		profiler_offcpu_pace(s->profiler, sm->vcsw + sm->ivcsw, sm->span_ms);
	else if (s->batched)
		profbatch_pace(s->c->profile_batch, sm->vcsw + sm->ivcsw, sm->span_ms);
}

static int on_sample(void *arg, const struct sample *sm, const struct sample *client)
{
	struct session *s = arg;
	pace_profile(s, sm);
	track_push(&s->measured, sm);
	if (client)
		track_push(&s->client, client);
	if (live_push(s->c))
		push_sample(s, sm);
	return s->csv_open ? csv_write(&s->csv, sm, client) : 0;
}

static void on_label(void *arg, struct sample *sm)
{
	struct session *s = arg;
	if (s->feed_on)
		probefeed_label(&s->feed, sm);
}

static bool on_sample_now(void *arg)
{
	struct session *s = arg;
	return s->feed_on && probefeed_take_marker(&s->feed);
}

static unsigned on_acks_due(void *arg)
{
	struct session *s = arg;
	return s->feed_on ? probefeed_take_pings(&s->feed) : 0;
}

static void on_output(void *arg, int stream, const char *buf, size_t n, double t_ms)
{
	struct session *s = arg;
	if (s->feed_on)
		probefeed_on_output(&s->feed, stream, buf, n, t_ms);
}

/* ---- the steps ---- */

static void monitor_opts_from(const struct session *s, const struct launch_opts *launch,
			      struct monitor_opts *mo)
{
	const struct session_config *c = s->c;
	*mo = (struct monitor_opts){
		.interval_ms = c->interval_ms,
		.pss = c->pss,
		.cgroup = c->cgroup && launch,
		.memory_limit_bytes = c->memory_limit_bytes,
		.launch = launch,
		.attach_pid = c->attach_pid,
		.duration_ms = c->duration_ms,
		.procfs = "/proc",
		.gpu = c->gpu,
		.discard_output = c->discard_output,
		.stdout_fd = c->stdout_fd,
		.daemon_pid = c->daemon_pid,
		.idle_ms = c->idle_ms,
		.timeout_ms = c->timeout_ms,
		.probe_logs = c->nlogs ? c->probe_logs : NULL,
		.hooks = { .arg = (void *)s, .on_output = on_output, .label = on_label,
			   .on_sample = on_sample, .on_started = on_started,
			   /* counters and a run's own perf start between fork and exec
			    * (a bench's shared perf is on before the fork);
			    * without them the command is vforked, cheaper
			    * (monitor.c start_command) */
			   .on_spawn = c->counters || (c->profile && !c->profile_batch) ? on_spawn : NULL,
			   .sample_now = on_sample_now, .acks_due = on_acks_due },
	};
}

/* The command never ran: say why, with the status a shell would give. */
static int not_started(struct session *s, const struct monitor_result *r, struct err *e)
{
	const struct launch_opts *launch = s->c->launch;
	if (!r->exec_errno) { /* interrupted while the daemon's idle level was being sampled */
		s->status = 128 + (r->stop_signal ? r->stop_signal : SIGINT);
		return err_set(e, "interrupted before the command started");
	}
	if (s->csv_open) { /* no record, and no CSV that looks like one */
		csv_close(&s->csv, NULL);
		s->csv_open = false;
		if (strcmp(s->c->csv_path, "-"))
			unlink(s->c->csv_path);
	}
	const char *what = launch->shell ? "/bin/sh" : launch->argv[0];
	if (r->exec_errno == ENOENT) {
		s->status = SESSION_NOTFOUND;
		return err_set(e, "command not found: %s", what);
	}
	s->status = SESSION_NOEXEC;
	return err_set(e, "cannot execute '%s': %s", what, strerror(r->exec_errno));
}

/* watch --push-every: the live group is removed at the end. */
static void end_live_push(struct session *s)
{
	if (!live_push(s->c))
		return;
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	struct err e;
	if (fleet_live_end(s->c->fleet, host, &e) < 0 && !s->push_failed)
		warn(s, "live push failed: %s", e.msg);
}

/* Counters over a whole tree, read after wait4 so every exited descendant's
 * counts are folded in; NULL when none were recorded. The reason counters
 * were asked for and not opened is noted once. */
static json_t *read_counters(struct session *s, struct counters *c, json_t *notes)
{
	json_t *counters = NULL;
	struct err e;
	if (c) {
		struct counter_values cv;
		if (counters_read(c, &cv, &e) == 0)
			counters = counters_to_json(&cv);
		else
			json_array_append_new(notes, json_sprintf("counters not recorded: %s", e.msg));
	}
	if (s->counters_error[0]) {
		json_array_append_new(notes, json_string(s->counters_error));
		s->counters_error[0] = 0;
	}
	return counters;
}

/* An attached or watched tree: counters opened on its existing threads now,
 * inherited by what they fork from then on. A failure is a note, not an error. */
static void open_attached_counters(struct session *s)
{
	const struct session_config *c = s->c;
	pid_t pid = c->launch ? c->daemon_pid : c->attach_pid;
	struct err e;
	if (!c->counters || pid <= 0)
		return;
	struct counters **to = c->launch ? &s->daemon_counters : &s->counters;
	if (counters_attach(to, pid, c->events, &e) < 0) {
		snprintf(s->counters_error, sizeof(s->counters_error), "counters not recorded%s: %s",
			 c->launch ? " for the daemon" : "", e.msg);
		return;
	}
	/* the phases come from the attached tree's log: its counters are theirs */
	s->feed.counters = *to;
}

/* perf stopped, its samples read and placed on the timeline's clock; NULL
 * (with the reason noted) when there is no profile of this run's own: none
 * asked, none possible, or a bench's shared perf that fills it in later. */
static json_t *collect_profile(struct session *s, const struct monitor_result *r, json_t *notes)
{
	if (!s->profiler) {
		if (s->profile_error[0])
			json_array_append_new(notes, json_string(s->profile_error));
		return NULL;
	}
	struct err e;
	const struct profiler_info *in = &s->profile_info;
	struct profile_fold *f = profile_fold_new(&s->feed.phases, r->t0_mono_ns, in->keeper, in->offcpu);
	struct perfscript *ps = xcalloc(1, sizeof(*ps));
	json_t *profile = NULL;
	perfscript_init(ps, profile_fold_sample, f);
	if (profiler_stop(s->profiler, &e) < 0 || profiler_script(s->profiler, ps, &s->profile_info, &e) < 0) {
		warn(s, "%s", e.msg);
		json_array_append_new(notes, json_string(e.msg));
	} else {
		if (in->data_bound_hit)
			warn(s, "profile: %s", PROFILE_FOLD_BOUND_NOTE);
		if (profile_fold_dropped(f))
			warn(s, "profile: more than %d threads blocked at once: %llu switch-outs past them not counted",
			     OFFCPU_MAX_THREADS, (unsigned long long)profile_fold_dropped(f));
		profile = profile_fold_build(f, in);
	}
	free(ps);
	profile_fold_free(f);
	profiler_free(s->profiler);
	s->profiler = NULL;
	return profile;
}

/* Why a watch ended, for the record. */
static void watch_ended(const struct monitor_result *r, char *buf, size_t n)
{
	if (r->target_exited)
		snprintf(buf, n, "the watched tree exited");
	else if (r->stop_signal)
		snprintf(buf, n, "stopped by SIG%s", sigabbrev_np(r->stop_signal));
	else
		snprintf(buf, n, "--duration reached");
}

/* The phases a sampled peak fell in. A sample taken at a marker's arrival
 * shows the tree as the phase that just ended left it: it counts in that
 * phase too (the millisecond before it). A sample between phases shows the
 * peak reached since the one before: the phases of that interval. */
static void peak_phases(const struct phase_set *ph, const struct tree_result *t, int interval_ms, char *buf,
			size_t n)
{
	if (t->peak_at_marker)
		phase_set_overlapping(ph, t->peak_at_ms - 1.0, t->peak_at_ms, buf, n);
	else if (!phase_set_active_at(ph, t->peak_at_ms, buf, n) && interval_ms > 0)
		phase_set_overlapping(ph, t->peak_at_ms - interval_ms, t->peak_at_ms, buf, n);
}

/* ---- --gpu-trace ---- */

/* The command's environment additions that load the collector into every
 * CUDA process of the tree (the driver reads CUDA_INJECTION64_PATH at cuInit,
 * NVTX its own variable at the first NVTX call), or NULL with gpu_why set. */
static char *const *gpu_trace_env(struct session *s)
{
	struct err e;
	if (gputrace_collector_path(s->gpu_collector, sizeof(s->gpu_collector), &e) < 0) {
		snprintf(s->gpu_why, sizeof(s->gpu_why), "%s", e.msg);
		return NULL;
	}
	const char *tmp = getenv("TMPDIR");
	snprintf(s->gpu_dir, sizeof(s->gpu_dir), "%s/perfhunt-gpu-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(s->gpu_dir)) {
		snprintf(s->gpu_why, sizeof(s->gpu_why), "cannot create the trace's directory '%s': %s",
			 s->gpu_dir, strerror(errno));
		s->gpu_dir[0] = '\0';
		return NULL;
	}
	s->gpu_env[0] = xasprintf("CUDA_INJECTION64_PATH=%s", s->gpu_collector);
	s->gpu_env[1] = xasprintf("NVTX_INJECTION64_PATH=%s", s->gpu_collector);
	s->gpu_env[2] = xasprintf("PERFHUNT_GPU_TRACE_DIR=%s", s->gpu_dir);
	s->gpu_env[3] = NULL;
	return s->gpu_env;
}

/* Reads the processes' files and makes their NVTX ranges phases (the
 * domain their lane), before the phase set is finished. */
static void gpu_trace_read(struct session *s, const struct monitor_result *r)
{
	if (!s->c->gpu_trace)
		return;
	if (!s->gpu_dir[0]) {
		warn(s, "gpu trace: nothing traced: %s", s->gpu_why);
		return;
	}
	struct err e;
	gputrace_init(&s->gpu);
	int files = gputrace_read_dir(&s->gpu, s->gpu_dir, &e);
	if (files <= 0) {
		warn(s, "gpu trace: nothing traced: %s", files < 0 ? e.msg
			: "no process of the command started CUDA (no activity file was written)");
		gputrace_release(&s->gpu);
		return;
	}
	gputrace_finish(&s->gpu);
	s->gpu_read = true;
	for (size_t i = 0; i < s->gpu.n_ranges; i++) {
		const struct gputrace_range *g = &s->gpu.ranges[i];
		double a = (double)(g->start_ns - r->t0_mono_ns) / 1e6, b = (double)(g->end_ns - r->t0_mono_ns) / 1e6;
		phase_set_add_range(&s->feed.phases, g->name, g->domain[0] ? "nvtx" : NULL, g->domain,
				    a < 0 ? 0 : a, b < 0 ? 0 : b, PHASE_NVTX);
	}
	uint64_t dropped = 0;
	for (size_t i = 0; i < s->gpu.n_procs; i++)
		dropped += s->gpu.procs[i].dropped + s->gpu.procs[i].cupti_dropped;
	if (dropped)
		warn(s, "gpu trace: %llu activity records dropped (the per-process bound, "
			"PERFHUNT_GPU_TRACE_MAX_RECORDS)", (unsigned long long)dropped);
}

static void gpu_trace_release(struct session *s)
{
	for (int i = 0; i < 3; i++)
		free(s->gpu_env[i]);
	if (s->gpu_read)
		gputrace_release(&s->gpu);
	if (!s->gpu_dir[0])
		return;
	DIR *d = opendir(s->gpu_dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	if (d)
		closedir(d);
	rmdir(s->gpu_dir);
}

/* The perfhunt.run/1 record of a finished monitor run. */
static json_t *build_record(struct session *s, const struct monitor_opts *mo, const struct monitor_result *r)
{
	const struct session_config *c = s->c;
	gpu_trace_read(s, r);
	probefeed_finish(&s->feed, r->wall_ms);
	const struct phase_set *ph = &s->feed.phases;
	char peak_phase[256] = "", daemon_phase[256] = "", process_phase[256] = "", both_phase[256] = "";
	/* each peak is labelled with the phases at its own sample, never another tree's */
	peak_phases(ph, &r->tree, mo->interval_ms, peak_phase, sizeof(peak_phase));
	if (r->daemon_attached) {
		peak_phases(ph, &r->daemon, mo->interval_ms, daemon_phase, sizeof(daemon_phase));
		phase_set_active_at(ph, r->combined_peak_at_ms, both_phase, sizeof(both_phase));
	}
	/* the exact peak has no time: the phases overlapping the window it fell in */
	double from_ms, to_ms;
	runrec_process_peak_window(r, &from_ms, &to_ms);
	phase_set_overlapping(ph, from_ms, to_ms, process_phase, sizeof(process_phase));
	json_t *phases = phase_set_to_json(ph);
	/* the trace first: a phase's NVML memory is of the process its trace is of */
	if (s->gpu_read)
		gputrace_json_add_phases(phases, &s->gpu, r->t0_mono_ns);
	phases_json_add_resources(phases, &s->measured, r->daemon_attached ? &s->client : NULL);

	char ended[64] = "";
	if (!c->launch)
		watch_ended(r, ended, sizeof(ended));
	json_t *notes = json_array();
	json_t *counters = read_counters(s, s->counters, notes);
	json_t *daemon_counters = read_counters(s, s->daemon_counters, notes);
	json_t *profile = collect_profile(s, r, notes);
	struct runrec_input in = {
		.kind = c->kind, .argv = c->record_argv, .tags = c->tags, .opts = mo, .option_words = c->option_words,
		.cgroup_mode = c->cgroup ? "auto" : "off", .r = r, .csv_path = c->csv_path,
		.phases = phases, .peak_phase = peak_phase, .exit_status = s->status,
		.daemon_peak_phase = daemon_phase, .process_peak_phase = process_phase,
		.combined_peak_phase = both_phase, .daemon_counters = daemon_counters,
		.ended = c->launch ? NULL : ended, .counters = counters, .extra_notes = notes,
		/* only the summary will see this record: it shows no git commit */
		.not_kept = !c->kept && !c->json_path && !c->save &&
			    !(c->fleet && (c->fleet->openmetrics_path || c->fleet->push_url)),
	};
	json_t *rec = runrec_build(&in);
	json_decref(counters);
	json_decref(daemon_counters);
	json_decref(notes);
	json_decref(phases);
	if (s->counters || s->daemon_counters)
		json_object_set_new(rec, "phase_counters", probefeed_counters_json(&s->feed));
	if (profile)
		json_object_set_new(rec, "profile", profile);
	if (s->gpu_read)
		json_object_set_new(rec, "gpu_trace", gputrace_json_run(&s->gpu, r->t0_mono_ns,
								       r->t0_mono_ns + (int64_t)(r->wall_ms * 1e6)));
	return rec;
}

/* The record where -o could not take it (a full disk, a device that refused
 * it: what no check before the run can foresee): a new file in $TMPDIR, or
 * /tmp, named in a warning, so a long run's record is not lost. */
static void write_fallback(struct session *s, const json_t *rec)
{
	struct err e;
	char *path = jsonio_write_elsewhere(rec, "record", &e);
	if (path)
		warn(s, "the record was written to '%s' instead", path);
	else
		warn(s, "the record was not kept: %s", e.msg);
	free(path);
}

/* The CSV closed and the JSON record written; a failure is a warning. */
static void write_files(struct session *s, const struct monitor_result *r, const json_t *rec)
{
	const struct session_config *c = s->c;
	struct err e;
	bool failed = false;
	if (s->csv_open) {
		if (r->write_errno) {
			warn(s, "cannot write '%s': %s (the timeline is incomplete)", c->csv_path,
			     strerror(r->write_errno));
			failed = true;
		}
		s->csv_open = false;
		if (csv_close(&s->csv, &e) < 0) {
			warn(s, "%s", e.msg);
			failed = true;
		}
	}
	if (c->json_path && jsonio_write(c->json_path, rec, &e) < 0) {
		warn(s, "%s", e.msg);
		write_fallback(s, rec);
		failed = true;
	}
	if (failed && s->status == 0)
		s->status = 1;
}

/* The history, then the fleet: local records first. */
static void keep(struct session *s, json_t *rec)
{
	const struct session_config *c = s->c;
	struct err e;
	if (c->save) {
		int64_t id;
		struct store *st = history_open_wait(&s->history, &e);
		if (!st) {
			warn(s, "run not saved to the history: %s", e.msg);
			s->status = s->status ? s->status : 1;
		} else {
			if (store_add_run(st, rec, c->tags, 0, &id, &e) < 0) {
				warn(s, "run not saved to the history: %s", e.msg);
				s->status = s->status ? s->status : 1;
			} else if (s->h && s->h->saved) {
				s->h->saved(s->h->arg, id);
			}
			store_close_detached(st);
		}
	}
	if (c->fleet && (c->fleet->openmetrics_path || c->fleet->push_url) &&
	    fleet_after_record(c->fleet, rec, NULL, &e) < 0) {
		warn(s, "%s", e.msg);
		s->status = s->status ? s->status : 1;
	}
}

int session_record(const struct session_config *c, const struct session_hooks *h,
		   struct session_outcome *out, struct err *e)
{
	struct session s = { .c = c, .h = h, .csv = { .fd = -1 }, .status = 1 };
	struct monitor_opts mo;
	struct monitor_result r;
	struct shield sh;
	int ret = -1;
	out->rec = NULL;
	out->status = 1;
	shield_block(&sh);
	out->signal = 0;

	if (c->csv_path) {
		bool gpu_procs = c->gpu && gpupoll_driver_present();
		if (csv_open(&s.csv, c->csv_path, c->csv_format, c->daemon_pid > 0, gpu_procs, e) < 0) {
			shield_off(&sh);
			return -1;
		}
		s.csv_open = true;
	}
	probefeed_init(&s.feed, c->probe_cfg, c->nlogs, !c->probe_time_arrival);
	track_init(&s.measured, SESSION_TRACK_POINTS, c->interval_ms);
	track_init(&s.client, SESSION_TRACK_POINTS, c->interval_ms);
	s.feed_on = c->probes || c->nlogs;
	/* output that is not shown must still be read (for probes): capture it */
	struct launch_opts lo;
	const struct launch_opts *launch = c->launch;
	if (launch && ((c->discard_output && !launch->capture) || c->gpu_trace)) {
		lo = *launch;
		lo.capture = launch->capture || c->discard_output;
		if (c->gpu_trace)
			lo.extra_env = gpu_trace_env(&s);
		launch = &lo;
	}
	monitor_opts_from(&s, launch, &mo);
	open_attached_counters(&s);
	if (c->profile)
		prepare_profile(&s);
	if (c->profile && !launch && c->attach_pid > 0)
		start_profile(&s, &c->attach_pid, 1);
	int mrc = monitor_run(&mo, &r, e);
	end_batched_profile(&s);
	shield_on(&sh);
	if (mrc < 0)
		goto out;
	out->signal = r.forwarded_signal ? r.forwarded_signal : r.stop_signal;
	if (s.history.started) {
		/* its CPU ran beside the monitor's, in the same process clock */
		s.history.joined = true;
		pthread_join(s.history.thread, NULL);
		r.monitor_cpu_ms = r.monitor_cpu_ms > s.history.cpu_ms ? r.monitor_cpu_ms - s.history.cpu_ms : 0;
	}
	if (launch && !r.started) {
		not_started(&s, &r, e);
		monitor_result_release(&r);
		goto out;
	}
	end_live_push(&s);
	s.status = !launch ? 0 : r.exit_signal ? 128 + r.exit_signal : r.exit_code;
	const int64_t t0_ns = r.t0_mono_ns;
	json_t *rec = build_record(&s, &mo, &r);
	write_files(&s, &r, rec);
	monitor_result_release(&r);
	keep(&s, rec);
	if (h && h->kept)
		s.status = h->kept(h->arg, rec, s.status);
	out->rec = rec;
	if (s.batched) /* its phases go with it: the bench's perf script places its samples */
		profbatch_add(c->profile_batch, &s.feed.phases, t0_ns);
	ret = 0;
out:
	if (s.history.started && !s.history.joined)
		pthread_join(s.history.thread, NULL);
	if (s.history.st)
		store_close(s.history.st);
	if (s.csv_open)
		csv_close(&s.csv, NULL);
	probefeed_release(&s.feed);
	track_release(&s.measured);
	track_release(&s.client);
	counters_close(s.counters);
	counters_close(s.daemon_counters);
	profiler_free(s.profiler);
	gpu_trace_release(&s);
	shield_off(&sh);
	if (shield_absorbed)
		out->signal = shield_signal;
	out->status = s.status;
	return ret;
}
