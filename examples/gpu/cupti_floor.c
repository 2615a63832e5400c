/* cupti_floor: the least a CUPTI activity subscriber can cost, to hold perfhunt's collector against.
 *
 * A CUDA injection library (CUDA_INJECTION64_PATH, as the collector is loaded)
 * that enables only the activity kinds named in $CUPTI_FLOOR_KINDS (default
 * "kernel": CONCURRENT_KERNEL alone), optionally CUPTI's timestamps taken from
 * CLOCK_MONOTONIC ($CUPTI_FLOOR_CLOCK=1, as the collector asks), and does
 * nothing with the records but count them: what a program loses beyond that
 * is the collector's own doing. At exit it prints the counts on stderr.
 *   gcc -shared -fPIC -O2 -I$CUDA/include -o libcupti_floor.so cupti_floor.c -L$CUDA/lib64 -lcupti
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c17 */
#endif
#include <cupti.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUF_BYTES (8u << 20)

static uint64_t records;

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_BYTES);
	*size = *buffer ? BUF_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	CUpti_Activity *r = NULL;
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS)
		__atomic_add_fetch(&records, 1, __ATOMIC_RELAXED);
	free(buffer);
}

static uint64_t CUPTIAPI mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void finish(void)
{
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	size_t dropped = 0;
	cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped);
	fprintf(stderr, "cupti_floor: kinds=%s records=%llu dropped=%zu\n",
		getenv("CUPTI_FLOOR_KINDS") ? getenv("CUPTI_FLOOR_KINDS") : "kernel",
		(unsigned long long)records, dropped);
}

int InitializeInjection(void);
int InitializeInjection(void)
{
	static const struct {
		const char *name;
		CUpti_ActivityKind kind;
	} kinds[] = {
		{ "kernel", CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL }, { "memcpy", CUPTI_ACTIVITY_KIND_MEMCPY },
		{ "memset", CUPTI_ACTIVITY_KIND_MEMSET },	     { "memory", CUPTI_ACTIVITY_KIND_MEMORY2 },
		{ "sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION },     { "runtime", CUPTI_ACTIVITY_KIND_RUNTIME },
		{ "driver", CUPTI_ACTIVITY_KIND_DRIVER },
	};
	const char *want = getenv("CUPTI_FLOOR_KINDS");
	const char *clock = getenv("CUPTI_FLOOR_CLOCK");
	if (clock && !strcmp(clock, "1"))
		cuptiActivityRegisterTimestampCallback(mono_ns);
	cuptiActivityRegisterCallbacks(requested, completed);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		char key[32];
		snprintf(key, sizeof key, ",%s,", kinds[i].name);
		char list[256];
		snprintf(list, sizeof list, ",%s,", want && *want ? want : "kernel");
		if (strstr(list, key) && cuptiActivityEnable(kinds[i].kind) != CUPTI_SUCCESS)
			fprintf(stderr, "cupti_floor: cannot enable %s\n", kinds[i].name);
	}
	atexit(finish);
	return 1;
}
