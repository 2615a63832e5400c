/* monitor: the sampling loop — one poll() over the timer, signals, the
 * child's output, and kernel process events — that turns a running process
 * tree into samples, exact peaks and an exit status.
 *
 * It measures and never prints: the child's output is copied through
 * unchanged, and everything else reaches the caller through hooks (CSV rows,
 * probe lines) or the result struct.
 */
#ifndef PERFHUNT_MONITOR_H
#define PERFHUNT_MONITOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "gpu/nvml.h"
#include "monitor/launch.h"
#include "monitor/sample.h"
#include "proc/proctree.h"
#include "util/err.h"

/* Streams probes arrive on: the command's stdout/stderr, $PERFHUNT_FD, and
 * followed log files (MONITOR_LOG + index in monitor_opts.probe_logs). */
enum monitor_stream { MONITOR_STDOUT = 1, MONITOR_STDERR = 2, MONITOR_PROBE_FD = 3, MONITOR_LOG = 4 };

struct monitor_hooks {
	void *arg;
	/* bytes the child wrote (already copied through to our stdout/stderr) */
	/* buf NULL, n 0: bytes of a followed log were skipped (drop a line in progress) */
	void (*on_output)(void *arg, int stream, const char *buf, size_t n, double t_ms);
	/* sets s->phase before the sample is stored and written */
	void (*label)(void *arg, struct sample *s);
	/* every sample in order: the main tree (the attached daemon's when there
	 * is one) and, with a daemon, the command's; a negative return is a
	 * write error, reported once */
	int (*on_sample)(void *arg, const struct sample *s, const struct sample *client);
	/* the command is forked but not yet exec'd (open counters on it here) */
	void (*on_spawn)(void *arg, pid_t pid);
	/* after output was handed over: true asks for a sample now (a phase
	 * marker arrived, so the phase's ends are exact at any interval) */
	bool (*sample_now)(void *arg);
	/* after output was handed over: how many pings ($PERFHUNT_ACK_FD) were
	 * read since the last call; each is answered once a sample is taken */
	unsigned (*acks_due)(void *arg);
	/* the first sample is taken: from now on nothing the tree does is missed */
	void (*on_started)(void *arg);
};

struct monitor_opts {
	int interval_ms;
	bool pss;
	bool cgroup;                 /* try to put the command in its own memory cgroup */
	uint64_t memory_limit_bytes; /* with cgroup: a hard limit (0 = none) */
	const struct launch_opts *launch; /* run mode: the command to start */
	pid_t attach_pid;            /* watch mode: the root of an existing tree */
	double duration_ms;          /* watch mode: stop after this long (0 = until it exits) */
	const char *procfs;          /* "/proc" */
	size_t timeline_rows;        /* bound of the in-memory timeline */
	bool gpu;                    /* sample GPU memory through NVML when present */
	bool discard_output;         /* read the command's output for the hooks, do not copy it */
	int stdout_fd;               /* with discard_output: the command's stdout copied to this
				      * descriptor (> 2), its stderr dropped; 0: none */
	pid_t daemon_pid;            /* run mode: also sample this tree for the command's lifetime */
	double idle_ms;              /* with a daemon: settle period sampled before the command */
	char *const *probe_logs;     /* log files to follow for probes (NULL-terminated), or NULL */
	double timeout_ms;           /* run mode: kill the command's tree this long after it started (0 = never) */
	struct monitor_hooks hooks;
};

#define MONITOR_MAX_GPUS 16

/* What was sampled of one tree. */
struct tree_result {
	uint64_t peak_mem_kb;        /* largest sampled memory of the tree (mem_method) */
	enum sample_mem mem;         /* how the samples' mem_kb counts the tree's memory */
	char mem_method[48];         /* in words: "cgroup v2 memory.current", "PSS sum (smaps_rollup)" */
	double peak_at_ms;
	bool peak_at_marker;         /* the peak sample was taken at a marker's arrival */
	char peak_phase[96];
	uint64_t hwm_kb;             /* largest VmHWM of a member */
	pid_t hwm_pid;
	char hwm_comm[64];
	double hwm_from_ms, hwm_to_ms; /* the sample window in which hwm_kb was reached */
	bool hwm_final;              /* hwm_kb was read from a member alive at the last sample:
	                              * its whole life's mark, exact; else a lower bound of it */
	uint64_t hwm_exit_kb;        /* the exit record's (or wait4's) mark of hwm_pid, its whole
	                              * life's (the counters drift: it may read below hwm_kb) */
	bool hwm_before_attach;      /* hwm_kb was that member's mark when first read: set
	                              * before the recording (an attached or watched tree) */
	double last_t_ms;            /* time of the latest sample */
	struct proctree_totals first, last; /* cumulative counters at the first and last sample */
	/* attached or watched: what the members had used before perfhunt measured
	 * them (lifetime totals at the first sample), and the history of
	 * processes with one that joined later; neither is in any sample */
	struct proctree_counts at_attach, joined_history;
	bool has_history;            /* the tree existed before the recording */
	uint32_t max_procs, max_threads;
	uint64_t procs_seen;         /* processes that were members at some time */
	bool procs_seen_complete;    /* every fork was heard (process events, none lost): not a lower bound */
	uint64_t samples;
	struct timeline tl;
};

/* What perfhunt saw of the command's run, the watched tree and an attached
 * daemon. tree: the command's (run) or the watched tree; daemon: the
 * attached daemon's, with daemon_attached. */
struct monitor_result {
	int64_t start_epoch_ms;
	int64_t t0_mono_ns;          /* clock_mono_ns() at t_ms = 0 (to place other clocks' events) */
	double wall_ms;
	bool started;                /* the command ran (exec succeeded) */
	int exec_errno;              /* exec failed with this */
	int exit_code, exit_signal;  /* run mode */
	bool core_dumped;
	int forwarded_signal;        /* last signal passed on to the command */
	bool timed_out;              /* the command outlived timeout_ms: its tree was killed */
	int stop_signal;             /* watch mode: the signal that stopped us */
	bool target_exited;          /* watch mode: the tree ended on its own */
	struct rusage ru;            /* the command and every orphan of its tree we reaped, from wait4 */
	uint64_t maxrss_kb;          /* largest ru_maxrss of any waited process, where it tells more than the image */
	pid_t maxrss_pid;            /* the process that gave maxrss_kb */
	char maxrss_comm[64];
	uint64_t own_reaped;         /* processes reaped that were not the tree's (never in its figures) */
	uint64_t maxrss_bound_kb;    /* the command's ru_maxrss where it said nothing of its own (not
	                              * clearly above that image) and no exit record gave its own mark:
	                              * the command's peak is at most this */
	uint64_t launch_image_kb;    /* perfhunt's forked image just before exec (in the command's ru_maxrss) */
	uint64_t taskstats_kb;       /* hiwater_rss from taskstats exit records */
	pid_t taskstats_pid;
	char taskstats_comm[32];
	bool taskstats;              /* exit records were being received */
	bool proc_events;            /* discovery by the process-events connector */
	int delayacct;               /* kernel.task_delayacct: 1, 0, -1 unknown (iowait_ms is not read) */
	bool events_lost;            /* the kernel dropped some of them (a full socket buffer)*/
	bool cgroup_ok;
	uint64_t oom_kills;           /* processes the OOM killer ended inside the cgroup */
	uint64_t cgroup_peak_kb;
	char cgroup_method[64];
	struct tree_result tree;     /* the command's tree, or the watched one */
	uint64_t peak_pss_kb;
	double peak_gpu_mib;
	bool gpu_sampled;            /* NVML was present and sampled */
	char gpu_reason[512];        /* why not, when it was asked for */
	bool gpu_device_totals;      /* the tree's GPU processes were invisible: device totals */
	char gpu_names[MONITOR_MAX_GPUS][96]; /* the devices sampled, by index */
	int ngpus;
	struct gpu_proc gpu_proc_peak[GPU_MAX_TREE_PROCS]; /* each process's largest GPU memory */
	size_t ngpu_proc_peak;
	uint64_t samples;
	uint64_t samples_stretched;  /* timer samples over the budget: the next one came later */
	double sample_budget_pct;    /* the share of a core a sample may take (PERFHUNT_SAMPLE_BUDGET) */
	double effective_interval_ms; /* the mean time between two timer samples */
	uint64_t vanished, unreadable, leftover_procs;
	double monitor_cpu_ms;
	/* with an attached daemon */
	bool daemon_attached;
	struct tree_result daemon;
	uint64_t idle_rss_kb;        /* the daemon's median RSS over the settle period */
	double client_start_ms;      /* when the command started, on the sample clock */
	bool daemon_exited;
	double daemon_exit_ms;
	uint64_t combined_peak_kb;   /* largest sum of both trees' memory at one sample */
	double combined_peak_at_ms;
	/* probe logs */
	uint64_t log_rotations, log_truncations;
	int write_errno;             /* on_sample failed with this */
	char notes[8][160];
	int nnotes;
};

/* Runs until the command exits (run mode) or the watched tree ends, the
 * duration passes, or SIGINT/SIGTERM/SIGHUP/SIGQUIT arrives (watch mode).
 * Returns 0 with r filled (release with monitor_result_release), or -1 with
 * nothing to release. */
int monitor_run(const struct monitor_opts *o, struct monitor_result *r, struct err *e);
void monitor_result_release(struct monitor_result *r);
/* on: the kernel event sockets outlive a monitor_run for the next one of this
 * process (drained of what they heard in between); off: closes them. */
void monitor_keep_sockets(bool on);

#endif
