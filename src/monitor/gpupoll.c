/* gpupoll: a reader thread for NVML, so a blocking query never stalls sampling. */
#include "monitor/gpupoll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xalloc.h"

/* Opens NVML for the thread: true when the readings can begin. */
static bool poll_open(struct gpupoll *p)
{
	struct gpu *g;
	struct err e;
	bool ok = gpu_open(&g, NULL, &e) == 0;
	pthread_mutex_lock(&p->mu);
	if (ok) {
		p->gpu = g;
		p->opened = true;
		for (size_t i = 0; i < gpu_device_count(g) && p->ndevices < GPU_MAX_DEVICES; i++)
			snprintf(p->names[p->ndevices++], sizeof(p->names[0]), "%s", gpu_device_name(g, i));
	} else {
		snprintf(p->reason, sizeof(p->reason), "%s", e.msg);
	}
	pthread_mutex_unlock(&p->mu);
	return ok;
}

static void *poll_main(void *arg)
{
	struct gpupoll *p = arg;
	pid_t *mine = NULL;
	size_t cap = 0;
	if (!poll_open(p))
		return NULL;
	pthread_mutex_lock(&p->mu);
	while (!p->stop) {
		/* a private copy of the PIDs: NVML is asked without holding the lock */
		xgrow((void **)&mine, &cap, p->npids + 1, sizeof(*mine));
		size_t n = p->npids;
		memcpy(mine, p->pids, n * sizeof(*mine));
		pthread_mutex_unlock(&p->mu);

		struct gpu_sample s;
		int rc = gpu_sample(p->gpu, mine, n, &s, NULL);

		pthread_mutex_lock(&p->mu);
		if (rc == 0) {
			p->latest = s;
			p->have = true;
			if (s.tree_used_mib > p->peak_mib)
				p->peak_mib = s.tree_used_mib;
			for (size_t i = 0; i < s.ntree && !s.device_totals; i++)
				gpu_proc_merge(p->proc_peak, &p->nproc_peak, GPU_MAX_TREE_PROCS, s.tree[i].pid,
					       s.tree[i].used_bytes, false);
			if (s.device_totals && !p->device_totals) {
				p->device_totals = true;
				const char *why = gpu_fallback_note(&s);
				snprintf(p->fallback, sizeof(p->fallback), "%s",
					 why ? why : "GPU figures are device totals");
			}
		}
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(p->interval_ms % 1000) * 1000000L;
		until.tv_sec += p->interval_ms / 1000 + until.tv_nsec / 1000000000L;
		until.tv_nsec %= 1000000000L;
		while (!p->stop && pthread_cond_timedwait(&p->cv, &p->mu, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&p->mu);
	free(mine);
	return NULL;
}

int gpupoll_start(struct gpupoll *p, int interval_ms)
{
	memset(p, 0, sizeof(*p));
	p->interval_ms = interval_ms < 20 ? 20 : interval_ms; /* NVML refreshes no faster */
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (pthread_create(&p->thread, NULL, poll_main, p) != 0) {
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		return -1;
	}
	p->running = true;
	return 0;
}

bool gpupoll_exchange(struct gpupoll *p, const pid_t *pids, size_t n, struct gpu_sample *out)
{
	pthread_mutex_lock(&p->mu);
	xgrow((void **)&p->pids, &p->cap, n + 1, sizeof(*p->pids));
	memcpy(p->pids, pids, n * sizeof(*pids));
	p->npids = n;
	bool have = p->have;
	if (have)
		*out = p->latest;
	pthread_mutex_unlock(&p->mu);
	return have;
}

bool gpupoll_driver_present(void)
{
	return gpu_driver_present(NULL) == 0;
}

void gpupoll_stop(struct gpupoll *p)
{
	if (p->running) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_signal(&p->cv);
		pthread_mutex_unlock(&p->mu);
		/* waits for a query in flight: at most one blocked NVML call */
		pthread_join(p->thread, NULL);
		pthread_cond_destroy(&p->cv);
		pthread_mutex_destroy(&p->mu);
		p->running = false;
	}
	if (p->gpu)
		gpu_close(p->gpu);
	free(p->pids);
	p->gpu = NULL;
	p->pids = NULL;
}
