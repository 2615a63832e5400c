/* collector: the GPU activity of one CUDA process, for `perfhunt run --gpu-trace`.
 *
 * A shared library the CUDA driver loads into the measured process through
 * CUDA_INJECTION64_PATH (its InitializeInjection entry point), so no program is
 * relinked. It records CUPTI activity (kernels, copies, memsets, device memory
 * allocations and frees, synchronisations, NVTX ranges, and the runtime and
 * driver calls that launch a kernel or start a copy or memset: their
 * correlation ids tie each GPU slice to its launch) with timestamps taken
 * from CLOCK_MONOTONIC, perfhunt's clock, and writes one JSON object a line to
 * $PERFHUNT_GPU_TRACE_DIR/PID.jsonl. The file is bounded: past the record limit a
 * record is counted as dropped, never silently lost; the last line gives the counts.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cupti.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CUPTI renames its records when it adds fields; the build may name the newest
 * version the toolkit has (CUDA 12.x and 13.0 carry these). */
#ifndef PH_KERNEL_T
#define PH_KERNEL_T CUpti_ActivityKernel9
#endif
#ifndef PH_MEMCPY_T
#define PH_MEMCPY_T CUpti_ActivityMemcpy5
#endif
#ifndef PH_MEMSET_T
#define PH_MEMSET_T CUpti_ActivityMemset4
#endif
#ifndef PH_MEMORY_T
#define PH_MEMORY_T CUpti_ActivityMemory3
#endif
#ifndef PH_SYNC_T
#define PH_SYNC_T CUpti_ActivitySynchronization
#endif
#ifndef PH_MARKER_T
#define PH_MARKER_T CUpti_ActivityMarker2
#endif
#ifndef PH_API_T
#define PH_API_T CUpti_ActivityAPI
#endif

/* CUPTI hands a buffer over only when it is full (or at the flush at exit):
 * buffers of 1 MiB are written during the run on CUPTI's own thread, beside
 * the program, where 8 MiB ones left most of a short program's records to
 * the exit, on the program's thread (45 001 kernels of 14 us: +150 ms). */
#define BUF_BYTES (1u << 20)
#define DEFAULT_MAX_RECORDS 2000000u

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static uint64_t written;
static uint64_t dropped;
static uint64_t max_records = DEFAULT_MAX_RECORDS;
static int done;

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The lines are written piece by piece into out's buffer, under out_lock
 * (so unlocked stdio): a record costs tens of nanoseconds, not a printf. */
static void put_bytes(const char *s, size_t n)
{
	fwrite_unlocked(s, 1, n, out);
}

#define LIT(s) put_bytes(s, sizeof(s) - 1)

static void put_u64(uint64_t v)
{
	char b[24], *p = b + sizeof b;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	put_bytes(p, (size_t)(b + sizeof b - p));
}

static void put_i64(int64_t v)
{
	if (v < 0) {
		LIT("-");
		put_u64(-(uint64_t)v);
	} else {
		put_u64((uint64_t)v);
	}
}

/* A JSON string, escaped, into out or (n < size) into buf; names come from
 * the program (kernels, NVTX). Returns the length it has or would have. */
static size_t escape(const char *s, char *buf, size_t size)
{
	size_t n = 0;
	char esc[8];
#define EMIT(c)                      \
	do {                         \
		if (buf && n < size) \
			buf[n] = (c); \
		n++;                 \
	} while (0)
	EMIT('"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\') {
			EMIT('\\');
			EMIT((char)*p);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			for (const char *e = esc; *e; e++)
				EMIT(*e);
		} else {
			EMIT((char)*p);
		}
	}
	EMIT('"');
#undef EMIT
	return n;
}

static void put_str(const char *s)
{
	char small[512];
	size_t n = escape(s, small, sizeof small);
	if (n <= sizeof small) {
		put_bytes(small, n);
		return;
	}
	char *big = malloc(n);
	if (!big) {
		LIT("\"\"");
		return;
	}
	escape(s, big, n);
	put_bytes(big, n);
	free(big);
}

/* Kernel names arrive mangled; the C++ runtime demangles them. A program
 * may hold it only in a local scope (Python loads PyTorch's libraries
 * RTLD_LOCAL), so it is opened by name when the global scope lacks it. */
static char *demangled(const char *mangled)
{
	static demangle_fn demangle;
	static int looked;
	if (!looked) {
		demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		void *cxx = demangle ? NULL : dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
		if (cxx)
			demangle = (demangle_fn)dlsym(cxx, "__cxa_demangle");
		looked = 1;
	}
	int status = -1;
	char *d = demangle && mangled ? demangle(mangled, NULL, NULL, &status) : NULL;
	if (status != 0) {
		free(d);
		d = NULL;
	}
	return d;
}

/* A program launches few kernels many times: each name is demangled and
 * escaped once, then copied (open addressing on the mangled name; when the
 * table is full a name is done each time, as before). */
#define NAME_SLOTS 4096

static struct kernel_name {
	char *mangled;
	char *json;
	size_t len;
} names[NAME_SLOTS];
static size_t n_names;

static void put_kernel_name(const char *mangled)
{
	const char *m = mangled ? mangled : "";
	uint64_t h = 1469598103934665603u;
	for (const unsigned char *p = (const unsigned char *)m; *p; p++)
		h = (h ^ *p) * 1099511628211u;
	size_t i = (size_t)(h % NAME_SLOTS);
	for (size_t probes = 0; probes < NAME_SLOTS && names[i].mangled; probes++, i = (i + 1) % NAME_SLOTS)
		if (!strcmp(names[i].mangled, m)) {
			put_bytes(names[i].json, names[i].len);
			return;
		}
	char *d = demangled(mangled);
	const char *shown = d ? d : m;
	if (n_names < NAME_SLOTS / 2 && !names[i].mangled) {
		size_t len = escape(shown, NULL, 0);
		char *json = malloc(len), *copy = strdup(m);
		if (json && copy) {
			escape(shown, json, len);
			names[i] = (struct kernel_name){ copy, json, len };
			n_names++;
			put_bytes(json, len);
			free(d);
			return;
		}
		free(json);
		free(copy);
	}
	put_str(shown);
	free(d);
}

static const char *copy_kind(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "htod";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "dtoh";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "dtod";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "htoh";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "ptop";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "htoa";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "atoh";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "dtoa";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "atod";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "atoa";
	default: return "unknown";
	}
}

static const char *mem_kind(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
	case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
	case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
	case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device_static";
	case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed_static";
	default: return "unknown";
	}
}

static const char *sync_kind(int k)
{
	switch (k) {
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "event";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "stream_wait_event";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "stream";
	case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "context";
	default: return "unknown";
	}
}

static void put_kernel(const PH_KERNEL_T *k)
{
	LIT("{\"type\":\"kernel\",\"name\":");
	put_kernel_name(k->name);
	LIT(",\"dev\":");
	put_u64(k->deviceId);
	LIT(",\"stream\":");
	put_u64(k->streamId);
	LIT(",\"grid\":[");
	put_i64(k->gridX);
	LIT(",");
	put_i64(k->gridY);
	LIT(",");
	put_i64(k->gridZ);
	LIT("],\"block\":[");
	put_i64(k->blockX);
	LIT(",");
	put_i64(k->blockY);
	LIT(",");
	put_i64(k->blockZ);
	LIT("],\"start\":");
	put_u64(k->start);
	LIT(",\"end\":");
	put_u64(k->end);
	LIT(",\"corr\":");
	put_u64(k->correlationId);
	LIT("}\n");
}

static void put_memcpy(const PH_MEMCPY_T *m)
{
	fprintf(out, "{\"type\":\"memcpy\",\"kind\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\","
		     "\"bytes\":%" PRIu64 ",\"dev\":%" PRIu32 ",\"stream\":%" PRIu32
		     ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 ",\"corr\":%" PRIu32 "}\n",
		copy_kind(m->copyKind), mem_kind(m->srcKind), mem_kind(m->dstKind),
		(uint64_t)m->bytes, m->deviceId, m->streamId, (uint64_t)m->start,
		(uint64_t)m->end, m->correlationId);
}

static void put_memset(const PH_MEMSET_T *m)
{
	fprintf(out, "{\"type\":\"memset\",\"bytes\":%" PRIu64 ",\"dev\":%" PRIu32
		     ",\"stream\":%" PRIu32 ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}\n",
		(uint64_t)m->bytes, m->deviceId, m->streamId, (uint64_t)m->start,
		(uint64_t)m->end);
}

static void put_memory(const PH_MEMORY_T *m)
{
	int alloc = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
	int freed = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	if (!alloc && !freed)
		return;
	fprintf(out, "{\"type\":\"%s\",\"mem\":\"%s\",\"bytes\":%" PRIu64 ",\"addr\":%" PRIu64
		     ",\"dev\":%" PRIu32 ",\"ts\":%" PRIu64 "}\n",
		alloc ? "alloc" : "free", mem_kind(m->memoryKind), (uint64_t)m->bytes,
		(uint64_t)m->address, m->deviceId, (uint64_t)m->timestamp);
}

static void put_sync(const PH_SYNC_T *s)
{
	fprintf(out, "{\"type\":\"sync\",\"what\":\"%s\",\"stream\":%" PRIu32
		     ",\"start\":%" PRIu64 ",\"end\":%" PRIu64 "}\n",
		sync_kind(s->type), s->streamId, (uint64_t)s->start, (uint64_t)s->end);
}

/* NVTX ranges: a start record carries the name and domain, its end only the id. */
static void put_marker(const PH_MARKER_T *m)
{
	if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
		LIT("{\"type\":\"range_start\",\"id\":");
		put_u64(m->id);
		LIT(",\"name\":");
		put_str(m->name);
		LIT(",\"domain\":");
		put_str(m->domain);
		LIT(",\"ts\":");
		put_u64(m->timestamp);
		LIT("}\n");
	} else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
		LIT("{\"type\":\"range_end\",\"id\":");
		put_u64(m->id);
		LIT(",\"ts\":");
		put_u64(m->timestamp);
		LIT("}\n");
	}
}

/* The calls kept of the runtime and driver APIs: those that put work on the
 * GPU (cudaLaunchKernel, cudaMemcpyAsync, cuLaunchKernel, cudaGraphLaunch,
 * ...), decided once per callback id; every other call is skipped, so a
 * program's thousands of cudaGetDevice cost no line. */
#define API_CBIDS 4096

static const char *launch_name(int driver, uint32_t cbid)
{
	static signed char keep[2][API_CBIDS]; /* 0 unknown, 1 kept, -1 skipped */
	static const char *const prefixes[] = { "cudaLaunch", "cudaMemcpy", "cudaMemset", "cudaGraphLaunch",
						"cuLaunch",   "cuMemcpy",   "cuMemset",   "cuGraphLaunch" };
	if (cbid < API_CBIDS && keep[driver][cbid] < 0)
		return NULL;
	const char *name = NULL;
	if (cuptiGetCallbackName(driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) !=
		    CUPTI_SUCCESS ||
	    !name)
		name = NULL;
	int yes = 0;
	for (size_t i = 0; name && !yes && i < sizeof prefixes / sizeof prefixes[0]; i++)
		yes = !strncmp(name, prefixes[i], strlen(prefixes[i]));
	if (cbid < API_CBIDS)
		keep[driver][cbid] = yes ? 1 : -1;
	return yes ? name : NULL;
}

/* A launching call: its name without the version suffix ("_v7000"). */
static void put_api(const PH_API_T *a)
{
	const char *name = launch_name(a->kind == CUPTI_ACTIVITY_KIND_DRIVER, a->cbid);
	const char *v = strstr(name, "_v");
	int len = v && v[2] >= '0' && v[2] <= '9' ? (int)(v - name) : (int)strlen(name);
	LIT("{\"type\":\"api\",\"name\":\"");
	put_bytes(name, (size_t)len);
	LIT("\",\"tid\":");
	put_u64(a->threadId);
	LIT(",\"start\":");
	put_u64(a->start);
	LIT(",\"end\":");
	put_u64(a->end);
	LIT(",\"corr\":");
	put_u64(a->correlationId);
	LIT("}\n");
}

static int kept(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_MEMCPY:
	case CUPTI_ACTIVITY_KIND_MEMSET:
	case CUPTI_ACTIVITY_KIND_MEMORY2:
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
	case CUPTI_ACTIVITY_KIND_MARKER:
		return 1;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return launch_name(r->kind == CUPTI_ACTIVITY_KIND_DRIVER, ((const PH_API_T *)r)->cbid) != NULL;
	default:
		return 0;
	}
}

static void put_record(const CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL: put_kernel((const PH_KERNEL_T *)r); break;
	case CUPTI_ACTIVITY_KIND_MEMCPY: put_memcpy((const PH_MEMCPY_T *)r); break;
	case CUPTI_ACTIVITY_KIND_MEMSET: put_memset((const PH_MEMSET_T *)r); break;
	case CUPTI_ACTIVITY_KIND_MEMORY2: put_memory((const PH_MEMORY_T *)r); break;
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: put_sync((const PH_SYNC_T *)r); break;
	case CUPTI_ACTIVITY_KIND_MARKER: put_marker((const PH_MARKER_T *)r); break;
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: put_api((const PH_API_T *)r); break;
	default: break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records_out)
{
	*buffer = aligned_alloc(8, BUF_BYTES);
	*size = *buffer ? BUF_BYTES : 0;
	*max_records_out = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	CUpti_Activity *r = NULL;
	pthread_mutex_lock(&out_lock);
	while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
		if (!kept(r))
			continue;
		if (!out || done || written >= max_records) {
			dropped++;
			continue;
		}
		put_record(r);
		written++;
	}
	pthread_mutex_unlock(&out_lock);
	free(buffer);
}

static uint64_t CUPTIAPI timestamp_cb(void)
{
	return mono_ns();
}

static void finish(void)
{
	if (done)
		return;
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	size_t cupti_dropped = 0;
	cuptiActivityGetNumDroppedRecords(NULL, 0, &cupti_dropped);
	pthread_mutex_lock(&out_lock);
	if (out) {
		fprintf(out, "{\"type\":\"end\",\"records\":%" PRIu64 ",\"dropped\":%" PRIu64
			     ",\"cupti_dropped\":%zu,\"ts\":%" PRIu64 "}\n",
			written, dropped, cupti_dropped, mono_ns());
		fclose(out);
		out = NULL;
	}
	done = 1;
	pthread_mutex_unlock(&out_lock);
}

static int open_output(void)
{
	const char *dir = getenv("PERFHUNT_GPU_TRACE_DIR");
	if (!dir || !*dir)
		return -1;
	const char *max = getenv("PERFHUNT_GPU_TRACE_MAX_RECORDS");
	if (max && *max) {
		char *end;
		unsigned long long v = strtoull(max, &end, 10);
		if (!*end && v > 0)
			max_records = v;
	}
	char path[4096];
	if (snprintf(path, sizeof path, "%s/%d.jsonl", dir, (int)getpid()) >= (int)sizeof path)
		return -1;
	out = fopen(path, "we");
	if (!out)
		return -1;
	setvbuf(out, NULL, _IOFBF, 1u << 20);
	return 0;
}

/* A child forked from a traced process (a worker pool's fork) must neither
 * write its copy of the parent's buffered lines into the parent's file again
 * nor flush CUPTI at its exit: its copy of the file is dropped unwritten. */
static void forked_child(void)
{
	pthread_mutex_init(&out_lock, NULL);
	if (out) {
		__fpurge(out);
		fclose(out);
		out = NULL;
	}
	done = 1;
}

/* NVTX hands its calls to the library named by NVTX_INJECTION64_PATH; perfhunt
 * names this one, and CUPTI's own handler turns them into MARKER records. */
int InitializeInjectionNvtx2(void *get_export_table);
int InitializeInjectionNvtx2(void *get_export_table)
{
	Dl_info where;
	if (!dladdr((void *)cuptiActivityEnable, &where) || !where.dli_fname)
		return 0;
	void *cupti = dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD);
	if (!cupti)
		return 0;
	int (*init)(void *) = (int (*)(void *))dlsym(cupti, "InitializeInjectionNvtx2");
	return init ? init(get_export_table) : 0;
}

/* The driver calls this once, at cuInit, when CUDA_INJECTION64_PATH names us. */
int InitializeInjection(void);
int InitializeInjection(void)
{
	static int initialized;
	if (initialized++)
		return 1;
	if (open_output() < 0)
		return 1;
	int clock_ok = cuptiActivityRegisterTimestampCallback(timestamp_cb) == CUPTI_SUCCESS;
	uint32_t version = 0;
	cuptiGetVersion(&version);
	fprintf(out, "{\"type\":\"process\",\"pid\":%d,\"ppid\":%d,\"cupti\":%" PRIu32
		     ",\"clock\":\"%s\",\"ts\":%" PRIu64 "}\n",
		(int)getpid(), (int)getppid(), version, clock_ok ? "monotonic" : "cupti", mono_ns());
	cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
		CUPTI_ACTIVITY_KIND_MEMSET,	       CUPTI_ACTIVITY_KIND_MEMORY2,
		CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,   CUPTI_ACTIVITY_KIND_MARKER,
		CUPTI_ACTIVITY_KIND_RUNTIME,	       CUPTI_ACTIVITY_KIND_DRIVER,
	};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		CUptiResult rc = cuptiActivityEnable(kinds[i]);
		if (rc != CUPTI_SUCCESS) {
			const char *msg = "";
			cuptiGetResultString(rc, &msg);
			fprintf(out, "{\"type\":\"note\",\"kind\":%d,\"text\":", (int)kinds[i]);
			put_str(msg);
			fputs("}\n", out);
		}
	}
	pthread_atfork(NULL, NULL, forked_child);
	atexit(finish);
	return 1;
}
