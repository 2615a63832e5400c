/* gpu (nvml): GPU memory of a process tree, through NVIDIA's NVML loaded at run time.
 *
 * libnvidia-ml.so.1 is dlopen'ed, so perfhunt builds and runs without any
 * NVIDIA package; a machine without driver or GPU only yields a reason string.
 * Each sample sums the used GPU memory of the listed compute and graphics
 * processes whose PID is in the tree, per device, with device memory and
 * utilisation. NVML reports memory per process including its CUDA context.
 *
 * Integration (for the sampler in src/monitor and src/cmd/run.c):
 *   - once: gpu_open(&g, NULL, &e). It returns GPU_UNAVAILABLE with e.msg
 *     saying why (no library, no driver, no device): record e.msg as one note
 *     ("GPU memory not sampled: ..."), print nothing, leave
 *     gpu_mib/gpu_util_pct empty. Without a driver it costs microseconds
 *     (gpu_driver_present); with one, nvmlInit takes ~25 ms on an H200
 *     machine, so the monitor's GPU thread calls it while the command starts.
 *   - every interval: gpu_sample(g, pids, npids, &s, &e) with the PIDs of the
 *     tree, from a thread of its own (src/monitor/gpupoll.c): NVML's process
 *     query blocks ~300 ms while the driver pins or unpins host memory, so the
 *     sampling loop must not call it. It makes 4 NVML calls per device (each an ioctl, typically tens
 *     of µs), allocates nothing unless a device lists more processes than ever
 *     before. Use s.tree_used_mib for the CSV's gpu_mib, s.util_pct for
 *     gpu_util_pct (-1: leave empty), and the largest tree_used_mib as
 *     gpu_peak_mib. A sampling interval below ~20 ms is not useful: NVML's
 *     own counters refresh more slowly.
 *   - when s.device_totals is set, the tree's processes are invisible (PID
 *     namespace, container): the figures are device totals; record
 *     gpu_fallback_note(&s) once as a note.
 *   - gpu_close(g) at the end.
 */
#ifndef PERFHUNT_NVML_H
#define PERFHUNT_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/err.h"

#define GPU_MAX_DEVICES 16
/* Processes of the tree whose GPU memory is kept apart, per sample and as
 * peaks; past this many, the rest count only in the tree's sum. */
#define GPU_MAX_TREE_PROCS 64
/* gpu_open's "not available" status: not an error, a note. */
#define GPU_UNAVAILABLE (-2)

/* A process NVML lists on a device. */
struct gpu_proc {
	uint32_t pid;
	uint64_t used_bytes;      /* 0 when NVML cannot tell */
};

enum gpu_visibility {
	GPU_VISIBLE,              /* the tree's processes can be told apart */
	GPU_PIDS_UNRESOLVABLE,    /* listed PIDs do not exist here: another PID namespace */
	GPU_PROCS_HIDDEN,         /* memory in use grew, yet no process is listed */
};

struct gpu_device_sample {
	unsigned index;
	uint64_t used_bytes, total_bytes;
	int util_gpu_pct, util_mem_pct;   /* -1 when NVML does not report them */
	unsigned procs;                   /* processes listed (compute + graphics, once each) */
	unsigned tree_procs;              /* of which in the PID set */
	uint64_t tree_used_bytes;
};

struct gpu_sample {
	size_t ndevices;
	struct gpu_device_sample dev[GPU_MAX_DEVICES];
	unsigned tree_procs;
	uint64_t tree_used_bytes;         /* the tree's processes; device totals in fallback */
	double tree_used_mib;
	/* Largest GPU utilisation of the devices the tree uses (of all
	 * devices when it uses none or in fallback); -1 when unknown. */
	int util_pct;
	enum gpu_visibility visibility;
	bool device_totals;               /* fallback: figures are device totals */
	/* each of the tree's listed processes, its memory summed over devices
	 * (what nvidia-smi --query-compute-apps shows per device) */
	struct gpu_proc tree[GPU_MAX_TREE_PROCS];
	size_t ntree;
};

struct gpu;

/* Loads NVML (lib_path NULL = "libnvidia-ml.so.1") and finds the devices.
 * Returns 0, or GPU_UNAVAILABLE with the reason in e. *out is owned by the
 * caller: gpu_close() it. */
int gpu_open(struct gpu **out, const char *lib_path, struct err *e);
/* 0 when an NVIDIA driver is there to ask (its control device exists), else
 * GPU_UNAVAILABLE with the reason in e; a few microseconds, no library loaded. */
int gpu_driver_present(struct err *e);
size_t gpu_device_count(const struct gpu *g);
/* The device's product name ("NVIDIA H200"); owned by g. */
const char *gpu_device_name(const struct gpu *g, size_t index);
/* Samples every device; pids is the tree (any order). Returns 0 or -1 (NVML
 * failed, e.g. GPU lost), and then out holds what could be read. */
int gpu_sample(struct gpu *g, const pid_t *pids, size_t npids, struct gpu_sample *out,
	       struct err *e);
/* One line for the record's notes, or NULL when the figures are per process. */
const char *gpu_fallback_note(const struct gpu_sample *s);
void gpu_close(struct gpu *g);

/* Sums used_bytes of the procs whose pid is in pids; *matched counts them.
 * Pure: the core of gpu_sample, exposed for tests. */
uint64_t gpu_tree_bytes(const struct gpu_proc *procs, size_t nprocs, const pid_t *pids,
			size_t npids, unsigned *matched);

/* Adds bytes to pid's entry of into[0..*n) (sum) or keeps the larger (max);
 * a new pid takes a new entry while *n < cap. Pure: per-process sums of a
 * sample and per-process peaks of a run. */
void gpu_proc_merge(struct gpu_proc *into, size_t *n, size_t cap, uint32_t pid, uint64_t bytes, bool sum);

#endif
