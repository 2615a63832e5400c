/* nvml: the few NVML calls perfhunt needs, resolved with dlsym at run time.
 *
 * Only the types and functions used are declared here, checked against
 * NVIDIA's nvml.h: the process list entry is 16 bytes for the unversioned
 * call (nvmlProcessInfo_v1_t) and 24 bytes for _v2 and _v3 (pid, memory, GPU
 * and compute instance ids). CUDA 12.0's header once declared a 32-byte _v3
 * entry; drivers write 24, and the buffer leaves room for 32 so that no
 * driver can write past it. Buffers are allocated at open and grow only on
 * NVML_ERROR_INSUFFICIENT_SIZE, so sampling does not allocate.
 */
#include "gpu/nvml.h"

#include <dlfcn.h>
#include <unistd.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
};

#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_VALUE_NOT_AVAILABLE (~0ULL)

struct nvml_memory {            /* nvmlMemory_t */
	unsigned long long total, free, used;
};

struct nvml_utilization {       /* nvmlUtilization_t */
	unsigned int gpu, memory;
};

struct nvml_proc_v1 {           /* nvmlProcessInfo_v1_t: unversioned calls */
	unsigned int pid;
	unsigned long long usedGpuMemory;
};

struct nvml_proc_v2 {           /* nvmlProcessInfo_v2_t / nvmlProcessInfo_t: _v2 and _v3 */
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
};

_Static_assert(sizeof(struct nvml_proc_v1) == 16, "nvmlProcessInfo_v1_t is 16 bytes");
_Static_assert(sizeof(struct nvml_proc_v2) == 24, "nvmlProcessInfo_v2_t is 24 bytes");
_Static_assert(sizeof(struct nvml_memory) == 24, "nvmlMemory_t is 24 bytes");

#define PROC_MAX_STRIDE 32
#define PROC_INITIAL_CAP 64
/* Growth of device memory since gpu_open that, with no process of the tree
 * listed, means the tree's processes are hidden from us. */
#define HIDDEN_GROWTH_BYTES (64ULL << 20)

typedef nvmlReturn_t (*procs_fn)(nvmlDevice_t, unsigned int *, void *);

/* The process-list calls of one kind, newest first; level is the one in use. */
struct proc_api {
	procs_fn fn[3];
	size_t stride[3];
	int level;
};

struct gpu_dev {
	nvmlDevice_t handle;
	char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
	uint64_t baseline_used_bytes;
};

struct gpu {
	void *lib;
	bool initialised;
	nvmlReturn_t (*init)(void);
	nvmlReturn_t (*shutdown)(void);
	nvmlReturn_t (*get_count)(unsigned int *);
	nvmlReturn_t (*get_handle)(unsigned int, nvmlDevice_t *);
	nvmlReturn_t (*get_memory)(nvmlDevice_t, struct nvml_memory *);
	nvmlReturn_t (*get_util)(nvmlDevice_t, struct nvml_utilization *);
	nvmlReturn_t (*get_name)(nvmlDevice_t, char *, unsigned int);
	const char *(*error_string)(nvmlReturn_t);
	struct proc_api compute, graphics;
	size_t ndevices;
	struct gpu_dev dev[GPU_MAX_DEVICES];
	unsigned char *raw;          /* raw_cap entries of PROC_MAX_STRIDE bytes */
	size_t raw_cap;
	struct gpu_proc *procs;      /* one device's processes, deduplicated */
	size_t procs_cap;
	enum gpu_visibility visibility;   /* sticky once a fallback is detected */
};

static const char *nvml_error(const struct gpu *g, nvmlReturn_t r)
{
	const char *s = g->error_string ? g->error_string(r) : NULL;
	return s ? s : "unknown NVML error";
}

static void init_proc_api(struct gpu *g, struct proc_api *api, const char *base)
{
	static const char *const suffix[3] = { "_v3", "_v2", "" };
	static const size_t stride[3] = { sizeof(struct nvml_proc_v2), sizeof(struct nvml_proc_v2),
					  sizeof(struct nvml_proc_v1) };
	char name[96];
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "%s%s", base, suffix[i]);
		api->fn[i] = (procs_fn)dlsym(g->lib, name);
		api->stride[i] = stride[i];
	}
	api->level = 0;
	while (api->level < 3 && !api->fn[api->level])
		api->level++;
}

int gpu_driver_present(struct err *e)
{
	/* Without the driver's control device there is no GPU to ask: skip the
	 * library search (~40 failed opens, ~0.7 ms of every run's start). */
	if (access("/dev/nvidiactl", F_OK) != 0 && access("/proc/driver/nvidia/version", F_OK) != 0) {
		err_set(e, "no NVIDIA driver (no /dev/nvidiactl)");
		return GPU_UNAVAILABLE;
	}
	return 0;
}

int gpu_open(struct gpu **out, const char *lib_path, struct err *e)
{
	*out = NULL;
	if (!lib_path && gpu_driver_present(e) < 0)
		return GPU_UNAVAILABLE;
	const char *path = lib_path ? lib_path : "libnvidia-ml.so.1";
	struct gpu *g = xcalloc(1, sizeof(*g));
	nvmlReturn_t r;
	g->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!g->lib) {
		err_set(e, "NVML not found: %s", dlerror());
		goto unavailable;
	}
	struct { const char *name; void **slot; bool required; } syms[] = {
		{ "nvmlInit_v2", (void **)&g->init, true },
		{ "nvmlShutdown", (void **)&g->shutdown, true },
		{ "nvmlDeviceGetCount_v2", (void **)&g->get_count, true },
		{ "nvmlDeviceGetHandleByIndex_v2", (void **)&g->get_handle, true },
		{ "nvmlDeviceGetMemoryInfo", (void **)&g->get_memory, true },
		{ "nvmlErrorString", (void **)&g->error_string, true },
		{ "nvmlDeviceGetUtilizationRates", (void **)&g->get_util, false },
		{ "nvmlDeviceGetName", (void **)&g->get_name, false },
	};
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		*syms[i].slot = dlsym(g->lib, syms[i].name);
		if (!*syms[i].slot && syms[i].required) {
			err_set(e, "no usable NVML: %s lacks %s", path, syms[i].name);
			goto unavailable;
		}
	}
	init_proc_api(g, &g->compute, "nvmlDeviceGetComputeRunningProcesses");
	init_proc_api(g, &g->graphics, "nvmlDeviceGetGraphicsRunningProcesses");

	if ((r = g->init()) != NVML_SUCCESS) {
		err_set(e, "NVML cannot start: %s", nvml_error(g, r));
		goto unavailable;
	}
	g->initialised = true;
	unsigned int count = 0;
	if ((r = g->get_count(&count)) != NVML_SUCCESS) {
		err_set(e, "NVML cannot count devices: %s", nvml_error(g, r));
		goto unavailable;
	}
	if (count == 0) {
		err_set(e, "no NVIDIA GPU found");
		goto unavailable;
	}
	g->ndevices = count < GPU_MAX_DEVICES ? count : GPU_MAX_DEVICES;
	for (unsigned int i = 0; i < g->ndevices; i++) {
		struct gpu_dev *d = &g->dev[i];
		struct nvml_memory mem;
		if ((r = g->get_handle(i, &d->handle)) != NVML_SUCCESS) {
			err_set(e, "NVML cannot open GPU %u: %s", i, nvml_error(g, r));
			goto unavailable;
		}
		if (!g->get_name || g->get_name(d->handle, d->name, sizeof(d->name)) != NVML_SUCCESS)
			snprintf(d->name, sizeof(d->name), "GPU %u", i);
		if (g->get_memory(d->handle, &mem) == NVML_SUCCESS)
			d->baseline_used_bytes = mem.used;
	}
	g->raw_cap = PROC_INITIAL_CAP;
	g->raw = xmalloc(g->raw_cap * PROC_MAX_STRIDE);
	g->procs_cap = PROC_INITIAL_CAP;
	g->procs = xmalloc(g->procs_cap * sizeof(*g->procs));
	*out = g;
	return 0;
unavailable:
	gpu_close(g);
	return GPU_UNAVAILABLE;
}

size_t gpu_device_count(const struct gpu *g)
{
	return g->ndevices;
}

const char *gpu_device_name(const struct gpu *g, size_t index)
{
	return index < g->ndevices ? g->dev[index].name : "";
}

/* Appends the processes of one kind listed on device h to g->procs[*n...],
 * skipping PIDs already there (a process may be both compute and graphics). */
static int list_procs(struct gpu *g, struct proc_api *api, nvmlDevice_t h, size_t *n,
		      struct err *e)
{
	unsigned int count;
	nvmlReturn_t r;
	for (;;) {
		if (api->level >= 3)
			return 0;
		if (!api->fn[api->level]) {
			api->level++;
			continue;
		}
		count = (unsigned int)g->raw_cap;
		r = api->fn[api->level](h, &count, g->raw);
		if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
			/* count now holds the number needed; leave room for newcomers. */
			g->raw_cap = (size_t)count + 16;
			g->raw = xrealloc(g->raw, g->raw_cap * PROC_MAX_STRIDE);
			continue;
		}
		if (r == NVML_ERROR_FUNCTION_NOT_FOUND) {
			api->level++;
			continue;
		}
		break;
	}
	if (r == NVML_ERROR_NOT_SUPPORTED)
		return 0;
	if (r != NVML_SUCCESS)
		return err_set(e, "NVML cannot list GPU processes: %s", nvml_error(g, r));
	if (count > g->raw_cap)
		count = (unsigned int)g->raw_cap;
	size_t stride = api->stride[api->level];
	for (unsigned int i = 0; i < count; i++) {
		/* pid at offset 0 and usedGpuMemory at 8 in every layout. */
		const unsigned char *entry = g->raw + (size_t)i * stride;
		struct nvml_proc_v1 p;
		memcpy(&p, entry, sizeof(p));
		bool seen = false;
		for (size_t k = 0; k < *n && !seen; k++)
			seen = g->procs[k].pid == p.pid;
		if (seen)
			continue;
		if (*n == g->procs_cap)
			xgrow((void **)&g->procs, &g->procs_cap, *n + 1, sizeof(*g->procs));
		g->procs[(*n)++] = (struct gpu_proc){
			.pid = p.pid,
			.used_bytes = p.usedGpuMemory == NVML_VALUE_NOT_AVAILABLE ? 0 : p.usedGpuMemory,
		};
	}
	return 0;
}

uint64_t gpu_tree_bytes(const struct gpu_proc *procs, size_t nprocs, const pid_t *pids,
			size_t npids, unsigned *matched)
{
	uint64_t sum = 0;
	*matched = 0;
	for (size_t i = 0; i < nprocs; i++)
		for (size_t k = 0; k < npids; k++)
			if ((pid_t)procs[i].pid == pids[k]) {
				sum += procs[i].used_bytes;
				(*matched)++;
				break;
			}
	return sum;
}

void gpu_proc_merge(struct gpu_proc *into, size_t *n, size_t cap, uint32_t pid, uint64_t bytes, bool sum)
{
	for (size_t i = 0; i < *n; i++)
		if (into[i].pid == pid) {
			if (sum)
				into[i].used_bytes += bytes;
			else if (bytes > into[i].used_bytes)
				into[i].used_bytes = bytes;
			return;
		}
	if (*n < cap)
		into[(*n)++] = (struct gpu_proc){ .pid = pid, .used_bytes = bytes };
}

/* The tree's processes listed on one device, added to out->tree. */
static void add_tree_procs(struct gpu_sample *out, const struct gpu_proc *procs, size_t n, const pid_t *pids,
			   size_t npids)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < npids; k++)
			if ((pid_t)procs[i].pid == pids[k]) {
				gpu_proc_merge(out->tree, &out->ntree, GPU_MAX_TREE_PROCS, procs[i].pid,
					       procs[i].used_bytes, true);
				break;
			}
}

/* True when a listed PID does not exist in our PID namespace. */
static bool any_unresolvable(const struct gpu_proc *procs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (procs[i].pid == 0 || (kill((pid_t)procs[i].pid, 0) < 0 && errno == ESRCH))
			return true;
	return false;
}

int gpu_sample(struct gpu *g, const pid_t *pids, size_t npids, struct gpu_sample *out,
	       struct err *e)
{
	int rc = 0;
	enum gpu_visibility seen = GPU_VISIBLE;
	out->ndevices = g->ndevices;
	out->tree_procs = 0;
	out->tree_used_bytes = 0;
	out->ntree = 0;
	for (size_t i = 0; i < g->ndevices; i++) {
		struct gpu_dev *d = &g->dev[i];
		struct gpu_device_sample *ds = &out->dev[i];
		*ds = (struct gpu_device_sample){ .index = (unsigned)i, .util_gpu_pct = -1,
						  .util_mem_pct = -1 };
		struct nvml_memory mem;
		nvmlReturn_t r = g->get_memory(d->handle, &mem);
		if (r != NVML_SUCCESS) {
			rc = err_set(e, "NVML cannot read memory of GPU %zu: %s", i, nvml_error(g, r));
			continue;
		}
		ds->used_bytes = mem.used;
		ds->total_bytes = mem.total;
		struct nvml_utilization u;
		if (g->get_util && g->get_util(d->handle, &u) == NVML_SUCCESS) {
			ds->util_gpu_pct = (int)u.gpu;
			ds->util_mem_pct = (int)u.memory;
		}
		size_t n = 0;
		if (list_procs(g, &g->compute, d->handle, &n, e) < 0 ||
		    list_procs(g, &g->graphics, d->handle, &n, e) < 0)
			rc = -1;
		ds->procs = (unsigned)n;
		ds->tree_used_bytes = gpu_tree_bytes(g->procs, n, pids, npids, &ds->tree_procs);
		add_tree_procs(out, g->procs, n, pids, npids);
		out->tree_procs += ds->tree_procs;
		out->tree_used_bytes += ds->tree_used_bytes;
		/* Memory in use grew, none of it is the tree's: are the tree's
		 * processes missing from the list, or listed under PIDs of
		 * another namespace? */
		if (ds->tree_procs == 0 && mem.used >= d->baseline_used_bytes + HIDDEN_GROWTH_BYTES &&
		    seen == GPU_VISIBLE) {
			if (n == 0)
				seen = GPU_PROCS_HIDDEN;
			else if (any_unresolvable(g->procs, n))
				seen = GPU_PIDS_UNRESOLVABLE;
		}
	}
	if (g->visibility == GPU_VISIBLE && out->tree_procs == 0)
		g->visibility = seen;
	out->visibility = g->visibility;
	out->device_totals = g->visibility != GPU_VISIBLE;
	if (out->device_totals) {
		out->tree_used_bytes = 0;
		for (size_t i = 0; i < out->ndevices; i++)
			out->tree_used_bytes += out->dev[i].used_bytes;
	}
	out->tree_used_mib = (double)out->tree_used_bytes / (1024.0 * 1024.0);
	int util_tree = -1, util_all = -1;
	for (size_t i = 0; i < out->ndevices; i++) {
		int u = out->dev[i].util_gpu_pct;
		if (u > util_all)
			util_all = u;
		if (out->dev[i].tree_procs > 0 && u > util_tree)
			util_tree = u;
	}
	out->util_pct = out->tree_procs > 0 && !out->device_totals ? util_tree : util_all;
	return rc;
}

const char *gpu_fallback_note(const struct gpu_sample *s)
{
	switch (s->visibility) {
	case GPU_VISIBLE:
		return NULL;
	case GPU_PIDS_UNRESOLVABLE:
		return "GPU processes are listed under PIDs of another PID namespace: "
		       "gpu_mib is the devices' total used memory";
	case GPU_PROCS_HIDDEN:
		return "GPU memory grew but NVML lists no process (PID namespace?): "
		       "gpu_mib is the devices' total used memory";
	}
	return NULL;
}

void gpu_close(struct gpu *g)
{
	if (!g)
		return;
	if (g->initialised)
		g->shutdown();
	if (g->lib)
		dlclose(g->lib);
	free(g->raw);
	free(g->procs);
	free(g);
}
