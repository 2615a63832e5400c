/* runrec: assembling the run record — meta, summary, peaks, samples. */
#include "record/runrec.h"

#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proc/host.h"
#include "record/git.h"
#include "util/clock.h"

void runrec_process_peak(const struct monitor_result *r, struct runrec_peak *pk)
{
	/* Proven figures first: exit records (taskstats) and wait4's ru_maxrss of
	 * a waited process (the command's only where it is clearly above
	 * perfhunt's pre-exec image: monitor.c). wait4 is named only when it
	 * gave a figure: watch never waits for its target, and a tree seen only
	 * as zombies has no figure at all. */
	bool waited = r->maxrss_kb > 0;
	*pk = (struct runrec_peak){ .kb = r->maxrss_kb, .method = waited ? "wait4 ru_maxrss" : RUNREC_NO_METHOD,
				    .pid = waited ? r->maxrss_pid : 0, .comm = waited ? r->maxrss_comm : "",
				    .exact = waited };
	if (r->taskstats_kb > pk->kb) {
		pk->kb = r->taskstats_kb;
		pk->method = "taskstats hiwater_rss";
		pk->pid = r->taskstats_pid;
		pk->comm = r->taskstats_comm;
		pk->exact = true;
	}
	/* VmHWM covers a process's whole life when it was read at the end; one
	 * read earlier, of a process that ran on, is a lower bound, unless its
	 * exit record or wait4 gave its mark (counted above: the kernel's
	 * per-CPU counters can put an earlier reading a few pages over it) */
	if (r->tree.hwm_kb > pk->kb && !r->tree.hwm_exit_kb) {
		pk->kb = r->tree.hwm_kb;
		pk->exact = r->tree.hwm_final;
		pk->method = pk->exact ? "VmHWM (read at the end)" : "VmHWM (at least: read while alive, the process ran on after)";
		pk->bound = pk->exact ? NULL : "at least";
		pk->pid = r->tree.hwm_pid;
		pk->comm = r->tree.hwm_comm;
	}
	if (pk->kb == r->maxrss_kb && !pk->pid && r->tree.hwm_kb == r->maxrss_kb) {
		pk->pid = r->tree.hwm_pid;
		pk->comm = r->tree.hwm_comm;
	}
	if (r->maxrss_bound_kb > pk->kb) {
		/* the command's own mark is hidden in a ru_maxrss that holds
		 * perfhunt's image: it may be anything up to that */
		pk->at_least_kb = pk->kb;
		pk->kb = r->maxrss_bound_kb;
		pk->method = "wait4 ru_maxrss (at most: includes perfhunt's pre-exec image)";
		pk->bound = "at most";
		pk->exact = false;
		pk->pid = 0;
		pk->comm = "";
	}
}

void runrec_process_peak_window(const struct monitor_result *r, double *from_ms, double *to_ms)
{
	struct runrec_peak pk;
	runrec_process_peak(r, &pk);
	if (pk.kb > r->tree.hwm_kb) { /* grew after the last read: between it and the end */
		*from_ms = r->tree.hwm_to_ms;
		*to_ms = r->client_start_ms + r->wall_ms;
	} else {
		*from_ms = r->tree.hwm_from_ms;
		*to_ms = r->tree.hwm_to_ms;
	}
}

static json_t *gpu_devices_json(const struct monitor_result *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->ngpus; i++)
		json_array_append_new(a, json_pack("{s:i, s:s}", "index", i, "name", r->gpu_names[i]));
	return a;
}

/* Each process's largest GPU memory, as NVML lists it per process (its CUDA
 * context included: what nvidia-smi --query-compute-apps shows). */
static json_t *gpu_procs_json(const struct monitor_result *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->ngpu_proc_peak; i++)
		json_array_append_new(a, json_pack("{s:i, s:f}", "pid", (int)r->gpu_proc_peak[i].pid, "peak_mib",
						   (double)r->gpu_proc_peak[i].used_bytes / (1024.0 * 1024.0)));
	return a;
}

static json_t *host_json(void)
{
	struct host_info h;
	host_info_read(&h);
	return json_pack("{s:s, s:s, s:s, s:i, s:I}", "hostname", h.hostname, "kernel", h.kernel,
			 "cpu_model", h.cpu_model, "cores", h.cores, "memory_kb", (json_int_t)h.memory_kb);
}

/* Asking git whether the tree is dirty spawns `git status` (~14 ms): once per
 * working directory is enough (a bench asks for every run; bisect runs each
 * commit in its own work tree), and never when the record goes nowhere that
 * keeps it. */
static json_t *git_json(bool wanted)
{
	static json_t *cached;
	static char cached_dir[PATH_MAX];
	char dir[PATH_MAX];
	if (!wanted)
		return json_null();
	if (!getcwd(dir, sizeof(dir)))
		dir[0] = 0;
	if (cached && strcmp(dir, cached_dir)) {
		json_decref(cached);
		cached = NULL;
	}
	if (!cached) {
		snprintf(cached_dir, sizeof(cached_dir), "%s", dir);
		struct git_info g;
		git_info_read(&g);
		cached = g.present ? json_pack("{s:s, s:o}", "commit", g.commit, "dirty",
					       g.dirty < 0 ? json_null() : json_boolean(g.dirty))
				   : json_null();
	}
	return json_deep_copy(cached);
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

/* A rate of the envelope to the hundredth, null where no interval held it. */
static json_t *rate_json(double v)
{
	return isnan(v) ? json_null() : json_real(round(v * 100) / 100);
}

static json_t *samples_json(const struct timeline *tl, int interval_ms, const char *csv_path)
{
	static const char *const cols[] = {
		"t_ms", "rss_kb", "anon_kb", "file_kb", "shmem_kb", "swap_kb", "pss_kb", "user_ms",
		"sys_ms", "minflt", "majflt", "vcsw", "ivcsw", "read_bytes", "write_bytes", "procs",
		"threads", "gpu_mib", "gpu_util_pct", "phase", "mem_kb", "span_ms",
		"mem_min_kb", "mem_max_kb", "rss_min_kb", "rss_max_kb", "cpu_min_pct", "cpu_max_pct",
		"minflt_min_per_s", "minflt_max_per_s",
	};
	json_t *columns = json_array();
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		json_array_append_new(columns, json_string(cols[i]));
	json_t *rows = json_array();
	for (size_t i = 0; i < tl->n; i++) {
		const struct sample *s = &tl->rows[i];
		const struct sample_envelope *v = &s->env;
		json_array_append_new(rows, json_pack(
			"[f,I,I,I,I,I,o,f,f,I,I,I,I,I,I,i,i,o,o,s,I,f,I,I,I,I,o,o,o,o]", s->t_ms, (json_int_t)s->rss_kb,
			(json_int_t)s->anon_kb, (json_int_t)s->file_kb, (json_int_t)s->shmem_kb,
			(json_int_t)s->swap_kb,
			s->pss_valid ? json_integer((json_int_t)s->pss_kb) : json_null(), s->user_ms,
			s->sys_ms, (json_int_t)s->minflt, (json_int_t)s->majflt, (json_int_t)s->vcsw,
			(json_int_t)s->ivcsw, (json_int_t)s->read_bytes, (json_int_t)s->write_bytes,
			(int)s->procs, (int)s->threads, s->gpu_valid ? json_real(s->gpu_mib) : json_null(),
			s->gpu_valid ? json_real(s->gpu_util_pct) : json_null(), s->phase,
			(json_int_t)s->mem_kb, round(s->span_ms * 1000) / 1000, (json_int_t)v->mem_min_kb,
			(json_int_t)v->mem_max_kb, (json_int_t)v->rss_min_kb, (json_int_t)v->rss_max_kb,
			rate_json(v->cpu_min_pct), rate_json(v->cpu_max_pct), rate_json(v->minflt_min_per_s),
			rate_json(v->minflt_max_per_s)));
	}
	return json_pack("{s:o, s:I, s:i, s:o, s:o}", "csv", csv_path ? json_string(csv_path) : json_null(),
			 "stride", (json_int_t)tl->stride, "interval_ms", interval_ms, "columns", columns,
			 "rows", rows);
}

/* A sampled tree's user and sys seconds: its on-CPU nanoseconds split in the
 * kernel's ratio of its utime and stime (all user without stime, as
 * getrusage's cputime_adjust does); stat's ticks alone move in 10 ms steps
 * (a watched tree's 2.65 ms of CPU read 0). Without them, the ticks. */
static void sampled_cpu_s(const struct proctree_totals *t, double *user_s, double *sys_s)
{
	double tck = (double)sysconf(_SC_CLK_TCK);
	uint64_t ut = t->utime_ticks, st = t->stime_ticks;
	if (!t->oncpu_ns) {
		*user_s = (double)ut / tck;
		*sys_s = (double)st / tck;
		return;
	}
	double cpu_s = (double)t->oncpu_ns / 1e9;
	*user_s = st ? cpu_s * (double)ut / (double)(ut + st) : cpu_s;
	*sys_s = cpu_s - *user_s;
}

/* A tree's costs over the recording: CPU, faults, context switches, I/O.
 * Counters of members with a history count from their first reading. */
static json_t *costs_json(const struct proctree_totals *t)
{
	double user_s, sys_s;
	sampled_cpu_s(t, &user_s, &sys_s);
	return json_pack("{s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I}", "user_s", user_s,
			 "sys_s", sys_s, "minflt", (json_int_t)t->minflt, "majflt",
			 (json_int_t)t->majflt, "vcsw", (json_int_t)t->vcsw, "ivcsw", (json_int_t)t->ivcsw,
			 "read_bytes", (json_int_t)t->rchar, "write_bytes", (json_int_t)t->wchar);
}

/* Where a tree's thread time went over the recording (thread-ms summed over
 * its threads): on a CPU, waiting for one, blocked; parallelism over wall_ms. */
static json_t *thread_states_json(const struct proctree_totals *t, double wall_ms, uint32_t threads_max)
{
	double oncpu = (double)t->oncpu_ns / 1e6, runnable = (double)t->runnable_ns / 1e6;
	double alive = (double)t->alive_ns / 1e6;
	double blocked = alive > oncpu + runnable ? alive - oncpu - runnable : 0;
	json_t *o = json_pack("{s:f, s:f, s:f, s:f, s:i}", "oncpu_ms", round(oncpu * 1000) / 1000, "runnable_ms",
			      round(runnable * 1000) / 1000, "blocked_ms", round(blocked * 1000) / 1000, "parallelism",
			      wall_ms > 0 ? round(oncpu / wall_ms * 1000) / 1000 : 0.0, "threads_max", (int)threads_max);
	if (t->iowait_valid) /* whole ticks, counted when each wait ends: never above blocked */
		json_object_set_new(o, "iowait_ms", json_real(fmin((double)t->iowait_ns / 1e6, round(blocked * 1000) / 1000)));
	return o;
}

/* What an attached tree had used before perfhunt measured it. */
static json_t *history_json(const struct proctree_counts *c)
{
	struct proctree_totals t = {
		.utime_ticks = c->utime_ticks, .stime_ticks = c->stime_ticks, .minflt = c->minflt,
		.majflt = c->majflt, .vcsw = c->vcsw, .ivcsw = c->ivcsw, .rchar = c->rchar, .wchar = c->wchar,
	};
	return costs_json(&t);
}

static bool history_any(const struct proctree_counts *c)
{
	return c->utime_ticks || c->stime_ticks || c->minflt || c->majflt || c->vcsw || c->ivcsw ||
	       c->rchar || c->wchar;
}

void runrec_flat_top(const struct timeline *tl, double peak_at_ms, struct runrec_flat *out)
{
	memset(out, 0, sizeof(*out));
	size_t k = tl->n;
	for (size_t i = 0; i < tl->n; i++)
		if (tl->rows[i].t_ms == peak_at_ms) {
			k = i;
			break;
		}
	if (k == tl->n)
		return;
	uint64_t top = tl->rows[k].mem_kb, floor_kb = top - top / 100;
	size_t a = k, b = k;
	while (a > 0 && tl->rows[a - 1].mem_kb >= floor_kb && tl->rows[a - 1].mem_kb <= top)
		a--;
	while (b + 1 < tl->n && tl->rows[b + 1].mem_kb >= floor_kb && tl->rows[b + 1].mem_kb <= top)
		b++;
	out->samples = b - a + 1;
	out->from_ms = tl->rows[a].t_ms;
	out->to_ms = tl->rows[b].t_ms;
	out->flat = out->samples >= RUNREC_FLAT_SAMPLES && top > 0;
}

/* A sampled peak entry of "peaks": its figure, how the tree's memory was
 * counted, its sample, phases and flatness. */
static json_t *sampled_peak_json(const char *scope, uint64_t kb, const char *mem_method, double at_ms,
				 const char *phase, const struct timeline *tl)
{
	char method[96];
	snprintf(method, sizeof(method), "sampled: %s", mem_method);
	json_t *p = json_pack("{s:s, s:I, s:s, s:b, s:f, s:s}", "scope", scope, "kb", (json_int_t)kb,
			      "method", method, "exact", 0, "at_ms", at_ms, "phase", phase ? phase : "");
	struct runrec_flat f;
	if (tl) {
		runrec_flat_top(tl, at_ms, &f);
		if (f.flat)
			json_object_set_new(p, "flat", json_pack("{s:f, s:f, s:I}", "from_ms", f.from_ms, "to_ms",
								  f.to_ms, "samples", (json_int_t)f.samples));
	}
	return p;
}

/* The two trees of `run --attach`: each one's figures under the same names
 * (trees.daemon.user_s is metric daemon.user_s), the combined peak in the summary. */
static json_t *trees_json(const struct runrec_input *in, json_t *rec)
{
	const struct monitor_result *r = in->r;
	const struct tree_result *d = &r->daemon;
	uint64_t above = d->peak_mem_kb > r->idle_rss_kb ? d->peak_mem_kb - r->idle_rss_kb : 0;
	json_t *daemon = json_pack(
		"{s:i, s:I, s:I, s:I, s:f, s:s, s:I, s:i, s:i, s:b}", "pid",
		(int)in->opts->daemon_pid, "idle_rss_kb", (json_int_t)r->idle_rss_kb, "peak_rss_kb",
		(json_int_t)d->peak_mem_kb, "peak_above_idle_kb", (json_int_t)above, "peak_at_ms",
		d->peak_at_ms, "peak_phase", in->daemon_peak_phase ? in->daemon_peak_phase : "",
		"hwm_kb", (json_int_t)d->hwm_kb, "max_procs", (int)d->max_procs,
		"max_threads", (int)d->max_threads, "exited", r->daemon_exited);
	json_object_update_new(daemon, costs_json(&d->last));
	/* its costs run from the attach, the clock's start, not the command's:
	 * its rates are over that window */
	double span_ms = r->client_start_ms + r->wall_ms, span_s = span_ms / 1000.0;
	json_object_update_new(daemon, thread_states_json(&d->last, span_ms, d->max_threads));
	if (span_s > 0)
		json_object_set_new(daemon, "cpu_pct", json_real(100.0 * (json_number_value(json_object_get(daemon, "user_s")) +
									 json_number_value(json_object_get(daemon, "sys_s"))) / span_s));
	if (r->gpu_sampled) /* the GPU is sampled on the daemon's tree when one is attached */
		json_object_set_new(daemon, "gpu_peak_mib", json_real(r->peak_gpu_mib));
	json_object_set_new(daemon, "at_attach", history_json(&d->at_attach));
	if (history_any(&d->joined_history))
		json_object_set_new(daemon, "joined_history", history_json(&d->joined_history));
	if (in->daemon_counters)
		json_object_set_new(daemon, "counters", json_incref(in->daemon_counters));
	if (r->daemon_exited)
		json_object_set_new(daemon, "exited_at_ms", json_real(r->daemon_exit_ms));
	json_t *client = json_pack("{s:I, s:f, s:s, s:f, s:i, s:i, s:o}", "peak_rss_kb",
				   (json_int_t)r->tree.peak_mem_kb, "peak_at_ms", r->tree.peak_at_ms,
				   "peak_phase", in->peak_phase ? in->peak_phase : "",
				   "start_ms", r->client_start_ms, "max_procs", (int)r->tree.max_procs,
				   "max_threads", (int)r->tree.max_threads, "samples",
				   samples_json(&r->tree.tl, in->opts->interval_ms, NULL));
	json_object_set_new(client, "mem_method", json_string(r->tree.mem_method));
	json_object_set_new(daemon, "mem_method", json_string(d->mem_method));
	/* the record's sampled peak is both trees summed at one sample, with that sample's phases */
	json_t *sum = json_object_get(rec, "summary");
	json_object_set_new(sum, "peak_tree_rss_kb", json_integer((json_int_t)r->combined_peak_kb));
	json_object_set_new(sum, "peak_at_ms", json_real(r->combined_peak_at_ms));
	json_object_set_new(sum, "peak_phase", json_string(in->combined_peak_phase ? in->combined_peak_phase : ""));
	json_t *peaks = json_object_get(rec, "peaks");
	json_t *dp = sampled_peak_json("daemon", d->peak_mem_kb, d->mem_method, d->peak_at_ms,
				       in->daemon_peak_phase, &d->tl);
	json_object_set_new(dp, "idle_kb", json_integer((json_int_t)r->idle_rss_kb));
	json_object_set_new(dp, "above_idle_kb", json_integer((json_int_t)above));
	json_array_append_new(peaks, dp);
	json_array_append_new(peaks, sampled_peak_json("both", r->combined_peak_kb, "each tree's own",
						       r->combined_peak_at_ms, in->combined_peak_phase, NULL));
	return json_pack("{s:o, s:o}", "client", client, "daemon", daemon);
}

json_t *runrec_build(const struct runrec_input *in)
{
	const struct monitor_result *r = in->r;
	char started[40];
	clock_format_rfc3339(r->start_epoch_ms, started, sizeof(started));

	json_t *cmd = json_array();
	for (char *const *a = in->argv; a && *a; a++)
		json_array_append_new(cmd, json_string(*a));
	json_t *tags = json_array();
	for (const char *const *t = in->tags; t && *t; t++)
		json_array_append_new(tags, json_string(*t));

	const char *signame = r->exit_signal ? sigabbrev_np(r->exit_signal) : NULL;
	char sigbuf[32];
	if (signame) {
		snprintf(sigbuf, sizeof(sigbuf), "SIG%s", signame);
		signame = sigbuf;
	}
	json_t *exit = json_pack("{s:i, s:i, s:o, s:b, s:i, s:b}", "code", r->exit_signal ? 0 : r->exit_code,
				 "signal", r->exit_signal, "signal_name",
				 signame ? json_string(signame) : json_null(), "core_dumped", r->core_dumped,
				 "status", in->exit_status, "oom_killed",
				 r->exit_signal == SIGKILL && r->oom_kills > 0);
	if (r->timed_out) /* killed at the deadline: a failed run with its partial timeline */
		json_object_set_new(exit, "timed_out", json_true());

	/* CPU and faults: exact from wait4 for a command we ran; for an attached
	 * tree, what the samples saw it use since we attached (each member's
	 * history before that is summary.at_attach, never a sample's). */
	bool run = !strcmp(in->kind, "run");
	const struct proctree_totals *b = &r->tree.last;
	double user_s, sys_s;
	sampled_cpu_s(b, &user_s, &sys_s);
	if (run) {
		user_s = tv_s(r->ru.ru_utime);
		sys_s = tv_s(r->ru.ru_stime);
	}
	uint64_t minflt = run ? (uint64_t)r->ru.ru_minflt : b->minflt;
	uint64_t majflt = run ? (uint64_t)r->ru.ru_majflt : b->majflt;
	uint64_t vcsw = run ? (uint64_t)r->ru.ru_nvcsw : b->vcsw;
	uint64_t ivcsw = run ? (uint64_t)r->ru.ru_nivcsw : b->ivcsw;
	uint64_t rd = b->rchar;
	uint64_t wr = b->wchar;
	double wall_s = r->wall_ms / 1000.0;

	struct runrec_peak pk;
	runrec_process_peak(r, &pk);

	json_t *summary = json_pack(
		"{s:f, s:f, s:f, s:f, s:I, s:s, s:i, s:s, s:I, s:f, s:s}", "wall_s", wall_s, "user_s",
		user_s, "sys_s", sys_s, "cpu_pct", wall_s > 0 ? 100.0 * (user_s + sys_s) / wall_s : 0.0,
		"peak_rss_kb", (json_int_t)pk.kb, "peak_rss_method", pk.method, "peak_rss_pid", (int)pk.pid,
		"peak_rss_comm", pk.comm, "peak_tree_rss_kb", (json_int_t)r->tree.peak_mem_kb, "peak_at_ms",
		r->tree.peak_at_ms, "peak_phase", in->peak_phase ? in->peak_phase : "");
	/* what the samples' mem_kb, the sampled peak and every phase's memory
	 * figures count: the record's timeline tree's (the daemon's when attached) */
	const char *mem_method = (r->daemon_attached ? &r->daemon : &r->tree)->mem_method;
	json_object_set_new(summary, "tree_mem_method", json_string(*mem_method ? mem_method : RUNREC_NO_METHOD));
	if (r->cgroup_ok) {
		json_object_set_new(summary, "cgroup_peak_kb", json_integer((json_int_t)r->cgroup_peak_kb));
		json_object_set_new(summary, "cgroup_method", json_string(r->cgroup_method));
	}
	if (in->opts->pss)
		json_object_set_new(summary, "pss_peak_kb", json_integer((json_int_t)r->peak_pss_kb));
	if (r->gpu_sampled)
		json_object_set_new(summary, "gpu_peak_mib", json_real(r->peak_gpu_mib));
	json_object_update_new(summary, json_pack(
		"{s:I, s:I, s:I, s:I, s:I, s:I, s:i, s:i, s:I, s:i, s:f}", "minflt", (json_int_t)minflt,
		"majflt", (json_int_t)majflt, "vcsw", (json_int_t)vcsw, "ivcsw", (json_int_t)ivcsw,
		"read_bytes", (json_int_t)rd, "write_bytes", (json_int_t)wr,
		"max_procs", (int)r->tree.max_procs, "max_threads", (int)r->tree.max_threads, "samples",
		(json_int_t)r->samples, "interval_ms", in->opts->interval_ms, "monitor_cpu_s",
		r->monitor_cpu_ms / 1000.0));
	/* the interval kept: the mean time between two timer samples, and how
	 * many took more than the sampler's budget and put the next one off */
	json_object_set_new(summary, "effective_interval_ms", json_real(round(r->effective_interval_ms * 1000) / 1000));
	json_object_set_new(summary, "samples_stretched", json_integer((json_int_t)r->samples_stretched));
	json_object_set_new(summary, "procs_seen", json_integer((json_int_t)r->tree.procs_seen));
	json_object_set_new(summary, "procs_seen_complete", json_boolean(r->tree.procs_seen_complete));
	json_object_update_new(summary, thread_states_json(&r->tree.last, r->wall_ms, r->tree.max_threads));
	if (r->tree.has_history) {
		json_object_set_new(summary, "at_attach", history_json(&r->tree.at_attach));
		if (history_any(&r->tree.joined_history))
			json_object_set_new(summary, "joined_history", history_json(&r->tree.joined_history));
	}
	if (r->daemon_attached && r->gpu_sampled) /* the daemon's: trees.daemon.gpu_peak_mib */
		json_object_del(summary, "gpu_peak_mib");

	json_t *peaks = json_array();
	json_t *pp = json_pack("{s:s, s:I, s:s, s:b}", "scope", "process", "kb", (json_int_t)pk.kb,
			       "method", pk.method, "exact", pk.exact);
	if (pk.bound)
		json_object_set_new(pp, "bound", json_string(pk.bound));
	if (pk.at_least_kb)
		json_object_set_new(pp, "at_least_kb", json_integer((json_int_t)pk.at_least_kb));
	if (pk.pid) {
		json_object_set_new(pp, "pid", json_integer(pk.pid));
		json_object_set_new(pp, "comm", json_string(pk.comm));
	}
	double from_ms, to_ms;
	runrec_process_peak_window(r, &from_ms, &to_ms);
	json_object_set_new(pp, "window_ms", json_pack("[f, f]", from_ms, to_ms));
	/* a watched process's mark that has not moved since its first reading
	 * was reached before perfhunt attached: in no phase of this recording */
	bool before = r->tree.hwm_before_attach && pk.kb == r->tree.hwm_kb && !strncmp(pk.method, "VmHWM", 5);
	if (before)
		json_object_set_new(pp, "before_attach", json_true());
	json_object_set_new(pp, "phase", json_string(!before && in->process_peak_phase ? in->process_peak_phase : ""));
	if (r->launch_image_kb) /* what the command's own ru_maxrss cannot go below */
		json_object_set_new(pp, "launch_image_kb", json_integer((json_int_t)r->launch_image_kb));
	json_array_append_new(peaks, pp);
	if (r->cgroup_ok)
		json_array_append_new(peaks, json_pack("{s:s, s:I, s:s, s:b, s:s}", "scope", "tree", "kb",
						       (json_int_t)r->cgroup_peak_kb, "method",
						       r->cgroup_method, "exact", 1, "note",
						       "includes page cache; excludes shared pages first charged elsewhere"));
	/* with a daemon, the command's own tree is the "client" */
	json_t *sp = sampled_peak_json(r->daemon_attached ? "client" : "tree", r->tree.peak_mem_kb,
				       r->tree.mem_method, r->tree.peak_at_ms, in->peak_phase, &r->tree.tl);
	/* --interval longer than the run: the samples are the start-up one and the
	 * one after the exit, and neither saw the command at work */
	if (run && r->tree.samples <= 2 && (double)in->opts->interval_ms > r->wall_ms)
		json_object_set_new(sp, "inside", json_false());
	json_array_append_new(peaks, sp);

	json_t *notes = json_array();
	for (int i = 0; i < r->nnotes; i++)
		json_array_append_new(notes, json_string(r->notes[i]));
	if (in->extra_notes)
		json_array_extend(notes, in->extra_notes);

	json_t *rec = json_pack(
		"{s:s, s:s, s:o, s:s, s:I, s:o, s:o, s:o, s:o, s:{s:i, s:b, s:s}, s:o, s:o}", "schema",
		"perfhunt.run/1", "kind", in->kind, "command", cmd, "started_at", started,
		"started_epoch_ms", (json_int_t)r->start_epoch_ms, "host", in->not_kept ? json_null() : host_json(), "git", git_json(!in->not_kept),
		"tags", tags, "exit", exit, "options", "interval_ms", in->opts->interval_ms, "pss",
		in->opts->pss, "cgroup", in->cgroup_mode ? in->cgroup_mode : "off", "summary", summary,
		"peaks", peaks);
	if (in->option_words) {
		json_t *words = json_array();
		for (char *const *w = in->option_words; *w; w++)
			json_array_append_new(words, json_string(*w));
		json_object_set_new(json_object_get(rec, "options"), "words", words);
	}
	static const char *const phase_keys[] = { "phases", "phase_stats", "lanes", "probes", "probe_info" };
	for (size_t i = 0; i < sizeof(phase_keys) / sizeof(phase_keys[0]); i++) {
		json_t *v = in->phases ? json_object_get(in->phases, phase_keys[i]) : NULL;
		if (v)
			json_object_set_new(rec, phase_keys[i], json_incref(v));
		else if (i < 4)
			json_object_set_new(rec, phase_keys[i], json_array());
	}
	if (r->gpu_sampled)
		json_object_set_new(rec, "gpu", json_pack("{s:b, s:o, s:f, s:o, s:b, s:s}", "sampled", 1, "devices", gpu_devices_json(r),
			"peak_mib", r->peak_gpu_mib, "processes", gpu_procs_json(r), "device_totals", r->gpu_device_totals, "note",
			r->gpu_device_totals ? "device totals: the tree's processes were not visible"
					     : "per-process memory of the tree, including each CUDA context"));
	else if (r->gpu_reason[0]) /* no driver or GPU: a note, never an error */
		json_object_set_new(rec, "gpu", json_pack("{s:b, s:s}", "sampled", 0, "reason", r->gpu_reason));
	/* how blocked time is split by I/O, or why iowait_ms is absent */
	json_object_set_new(rec, "monitor", json_pack("{s:s, s:b, s:s}", "discovery",
		r->proc_events ? "process events connector" : "children files (polled)", "exit_records", r->taskstats,
		"iowait", r->delayacct == 0 ? "not measured: delay accounting is off (kernel.task_delayacct = 0)"
			: r->delayacct == 1 ? "measured: delay accounting's block-I/O wait of every thread, in clock ticks"
					    : "not measured: delay accounting unknown"));
	if (in->ended)
		json_object_set_new(rec, "ended", json_string(in->ended));
	json_object_set_new(rec, "counters", in->counters ? json_incref(in->counters) : json_object());
	json_object_set_new(rec, "notes", notes);
	if (r->daemon_attached) {
		/* the daemon is the program that matters: its timeline is the record's;
		 * the command's tree is kept apart under trees.client */
		json_object_set_new(rec, "samples", samples_json(&r->daemon.tl, in->opts->interval_ms, in->csv_path));
		json_object_set_new(rec, "trees", trees_json(in, rec));
	} else {
		json_object_set_new(rec, "samples", samples_json(&r->tree.tl, in->opts->interval_ms, in->csv_path));
	}
	return rec;
}
