/* trace_demo: a CUDA program with known phases, to check `perfhunt run --gpu-trace`.
 *
 * Phases are probe markers (`begin=NAME` / `end=NAME`): under perfhunt through
 * <perfhunt/probe.h>, which waits for perfhunt's sample at each marker so the
 * GPU work that follows at once counts in its own phase; elsewhere on stderr:
 * dev_alloc (cudaMalloc of three buffers), h2d_pinned and h2d_pageable (the same
 * bytes copied from pinned and from pageable host memory), compute (kernel launches
 * inside NVTX ranges: `step` pushes in the default domain, `solve` in domain
 * `demo`), d2h and release. After each phase a probe line gives what the program
 * itself knows: bytes it moved, cudaMemGetInfo deltas and CUDA-event kernel time,
 * so the trace can be checked against them. --stamps adds CLOCK_MONOTONIC
 * (`t_ns=`) to each probe line, for fixtures recorded without perfhunt (under
 * perfhunt it would read as a duration probe: leave it off there).
 *
 *   trace_demo [--mib M] [--iters N] [--stamps]
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <perfhunt/probe.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t err_ = (call);                                            \
		if (err_ != cudaSuccess) {                                            \
			std::fprintf(stderr, "trace_demo: %s: %s\n", #call,           \
				     cudaGetErrorString(err_));                       \
			std::exit(1);                                                 \
		}                                                                     \
	} while (0)

static bool stamps;

static void probe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void probe(const char *fmt, ...)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	va_list ap;
	va_start(ap, fmt);
	std::fputs("PERFHUNT: ", stderr);
	std::vfprintf(stderr, fmt, ap);
	if (stamps)
		std::fprintf(stderr, " t_ns=%lld", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	std::fputc('\n', stderr);
	std::fflush(stderr);
	va_end(ap);
}

static void begin(const char *name)
{
	if (ph__fd >= 0)
		ph_begin(name);
	else
		probe("begin=%s", name);
}

/* The end marker, then what the program knows of the phase (key=value ...). */
static void end(const char *name, const char *fmt = nullptr, ...) __attribute__((format(printf, 2, 3)));
static void end(const char *name, const char *fmt, ...)
{
	char vals[512] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		std::vsnprintf(vals, sizeof vals, fmt, ap);
		va_end(ap);
	}
	if (ph__fd >= 0) {
		ph_end(name);
		if (vals[0])
			probe("%s", vals);
	} else {
		probe("end=%s%s%s", name, vals[0] ? " " : "", vals);
	}
}

static long long mem_used()
{
	size_t free_b = 0, total_b = 0;
	CHECK(cudaMemGetInfo(&free_b, &total_b));
	return (long long)(total_b - free_b);
}

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

__global__ void scale(int n, float a, float *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] *= a;
}

static long parse_pos(const char *opt, const char *s)
{
	char *end;
	long v = std::strtol(s, &end, 10);
	if (end == s || *end || v <= 0 || v > 1 << 20) {
		std::fprintf(stderr, "trace_demo: %s: expected a positive number, got '%s'\n", opt, s);
		std::exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long mib = 256, iters = 2000;
	for (int i = 1; i < argc; i++) {
		if (!std::strcmp(argv[i], "--mib") && i + 1 < argc)
			mib = parse_pos("--mib", argv[++i]);
		else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc)
			iters = parse_pos("--iters", argv[++i]);
		else if (!std::strcmp(argv[i], "--stamps"))
			stamps = true;
		else {
			std::fprintf(stderr, "usage: trace_demo [--mib M] [--iters N] [--stamps]\n");
			return 2;
		}
	}
	size_t bytes = (size_t)mib << 20;
	int n = (int)(bytes / sizeof(float));

	begin("ctx_init");
	CHECK(cudaFree(0));
	end("ctx_init");

	begin("dev_alloc");
	long long used0 = mem_used();
	float *x, *y, *spare;
	CHECK(cudaMalloc(&x, bytes));
	CHECK(cudaMalloc(&y, bytes));
	CHECK(cudaMalloc(&spare, bytes));
	long long used1 = mem_used();
	end("dev_alloc", "dev_alloc_bytes=%zu memgetinfo_delta_bytes=%lld", 3 * bytes,
	      used1 - used0);

	float *pinned, *pageable = (float *)std::malloc(bytes);
	if (!pageable)
		return 1;
	CHECK(cudaMallocHost(&pinned, bytes));
	for (int i = 0; i < n; i++)
		pinned[i] = pageable[i] = 1.0f;

	cudaEvent_t e0, e1;
	CHECK(cudaEventCreate(&e0));
	CHECK(cudaEventCreate(&e1));
	float ms = 0;

	begin("h2d_pinned");
	CHECK(cudaMemcpy(x, pinned, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(y, pinned, bytes, cudaMemcpyHostToDevice));
	end("h2d_pinned", "h2d_pinned_bytes=%zu", 2 * bytes);

	begin("h2d_pageable");
	CHECK(cudaMemcpy(spare, pageable, bytes, cudaMemcpyHostToDevice));
	end("h2d_pageable", "h2d_pageable_bytes=%zu", bytes);

	begin("compute");
	nvtxDomainHandle_t demo = nvtxDomainCreateA("demo");
	CHECK(cudaEventRecord(e0));
	for (long it = 0; it < iters; it++) {
		nvtxRangePushA("step");
		saxpy<<<264, 256>>>(n, 1.0001f, x, y);
		scale<<<264, 256>>>(n, 0.9999f, y);
		nvtxRangePop();
	}
	nvtxEventAttributes_t attr;
	std::memset(&attr, 0, sizeof attr);
	attr.version = NVTX_VERSION;
	attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
	attr.message.ascii = "solve";
	nvtxDomainRangePushEx(demo, &attr);
	for (long it = 0; it < iters / 4 + 1; it++)
		saxpy<<<264, 256>>>(n, 1.0f, y, x);
	CHECK(cudaEventRecord(e1));
	CHECK(cudaEventSynchronize(e1));
	nvtxDomainRangePop(demo);
	CHECK(cudaGetLastError());
	CHECK(cudaEventElapsedTime(&ms, e0, e1));
	end("compute", "compute_event_ms=%.3f kernel_launches=%ld", ms,
	      2 * iters + iters / 4 + 1);

	begin("d2h");
	CHECK(cudaMemcpy(pageable, y, bytes, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(pinned, x, bytes, cudaMemcpyDeviceToHost));
	end("d2h", "d2h_bytes=%zu", 2 * bytes);

	begin("release");
	long long used2 = mem_used();
	CHECK(cudaFree(spare));
	CHECK(cudaFree(y));
	CHECK(cudaFree(x));
	long long used3 = mem_used();
	end("release", "release_bytes=%zu memgetinfo_delta_bytes=%lld", 3 * bytes,
	      used3 - used2);

	CHECK(cudaFreeHost(pinned));
	std::free(pageable);
	return 0;
}
