/* gpupoll: GPU memory sampled on a thread of its own.
 *
 * NVML's process query blocks while the driver pins or unpins host memory —
 * 260–330 ms on an H200 — and the sampling loop must never stall: it would
 * miss the very moments worth seeing. The loop hands the tree's PIDs over and
 * takes the latest reading each interval; the thread keeps the largest value
 * it has seen, so a GPU peak between two of the loop's samples is kept too.
 * The thread also opens NVML (nvmlInit takes ~25 ms with a driver): the
 * command starts without waiting for it, and no CUDA program holds GPU
 * memory that early.
 */
#ifndef PERFHUNT_GPUPOLL_H
#define PERFHUNT_GPUPOLL_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "gpu/nvml.h"

struct gpupoll {
	struct gpu *gpu;           /* owned while the thread runs */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int interval_ms;
	bool running, stop;
	pid_t *pids;               /* the tree, as last handed over */
	size_t npids, cap;
	struct gpu_sample latest;
	bool have;                 /* latest holds a reading */
	double peak_mib;           /* largest tree_used_mib read */
	struct gpu_proc proc_peak[GPU_MAX_TREE_PROCS]; /* each process's largest reading */
	size_t nproc_peak;
	bool device_totals;        /* some reading fell back to device totals */
	char fallback[200];
	/* the opening, done on the thread: read them after gpupoll_stop */
	bool opened;               /* NVML started: the readings are the GPU's */
	char reason[512];          /* why not, when it did not */
	char names[GPU_MAX_DEVICES][96];
	size_t ndevices;
};

/* Starts the thread, which opens NVML itself and then reads it; 0, or -1
 * when no thread could be made. */
int gpupoll_start(struct gpupoll *p, int interval_ms);
/* Hands over the tree's PIDs and copies the latest reading into out; false
 * when there is none yet. Never waits for NVML. */
bool gpupoll_exchange(struct gpupoll *p, const pid_t *pids, size_t n, struct gpu_sample *out);
/* Whether a reader would start: an NVIDIA driver is there (a few
 * microseconds, no library loaded), so GPU memory will be sampled. */
bool gpupoll_driver_present(void);
/* Stops and joins the thread, closes the gpu. */
void gpupoll_stop(struct gpupoll *p);

#endif
