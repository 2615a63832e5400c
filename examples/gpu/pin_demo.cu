/* pin_demo: the GPU engine's host-pinning regression in miniature, for perfhunt.
 *
 * It allocates device buffers in phases, copies a host buffer to the device
 * from pageable memory, pins the same buffer with cudaHostRegister (its own
 * phase: the page-fault storm the seed's engine suffered as pin_abc_ms), copies
 * again from pinned memory, unpins and frees in phases. Every phase prints a
 * PERFHUNT probe on stderr: `PERFHUNT: <phase>_ms=N key=value`; bandwidths are
 * values (`*_gibps`), not durations. Only the CUDA runtime API, no kernels.
 *
 *   pin_demo [--host-gib G] [--device-gib G] [--chunks N] [--pin-first]
 */
#include <cuda_runtime.h>

#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t err_ = (call);                                            \
		if (err_ != cudaSuccess) {                                            \
			std::fprintf(stderr, "pin_demo: %s: %s\n", #call,             \
				     cudaGetErrorString(err_));                       \
			std::exit(1);                                                 \
		}                                                                     \
	} while (0)

static double now_ms()
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void probe(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void probe(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::fputs("PERFHUNT: ", stderr);
	std::vfprintf(stderr, fmt, ap);
	std::fputc('\n', stderr);
	std::fflush(stderr);
	va_end(ap);
}

static double parse_gib(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	double v = std::strtod(s, &end);
	if (errno || end == s || *end || !std::isfinite(v) || v <= 0 || v > 1024) {
		std::fprintf(stderr, "pin_demo: %s: expected GiB in (0, 1024], got '%s'\n", opt, s);
		std::exit(2);
	}
	return v;
}

static void usage()
{
	std::fprintf(stderr, "usage: pin_demo [--host-gib G] [--device-gib G] [--chunks N]\n"
			     "  --host-gib G    host buffer copied to the device (default 1)\n"
			     "  --device-gib G  device memory, allocated in chunks (default 2)\n"
			     "  --chunks N      device allocations, and frees, one phase each (default 4)\n"
			     "  --pin-first     pin the host buffer before touching it (the fault storm)\n");
	std::exit(2);
}

/* Copies the host buffer to the device chunks, wrapping around; returns ms. */
static double copy_h2d(const char *host, size_t host_bytes, const std::vector<void *> &dev,
		       size_t chunk_bytes)
{
	double t0 = now_ms();
	size_t done = 0;
	for (size_t i = 0; done < host_bytes; i = (i + 1) % dev.size()) {
		size_t n = host_bytes - done < chunk_bytes ? host_bytes - done : chunk_bytes;
		CHECK(cudaMemcpy(dev[i], host + done, n, cudaMemcpyHostToDevice));
		done += n;
	}
	CHECK(cudaDeviceSynchronize());
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	double host_gib = 1, device_gib = 2;
	long chunks = 4;
	bool pin_first = false;
	for (int i = 1; i < argc; i++) {
		if (std::strcmp(argv[i], "--pin-first") == 0) {
			pin_first = true;
			continue;
		}
		if (i + 1 < argc && std::strcmp(argv[i], "--host-gib") == 0) {
			host_gib = parse_gib(argv[i], argv[i + 1]);
			i++;
		} else if (i + 1 < argc && std::strcmp(argv[i], "--device-gib") == 0) {
			device_gib = parse_gib(argv[i], argv[i + 1]);
			i++;
		} else if (i + 1 < argc && std::strcmp(argv[i], "--chunks") == 0) {
			char *end;
			chunks = std::strtol(argv[i + 1], &end, 10);
			if (*end || chunks < 1 || chunks > 1024)
				usage();
			i++;
		} else {
			usage();
		}
	}
	const double gib = 1024.0 * 1024.0 * 1024.0;
	size_t host_bytes = (size_t)(host_gib * gib);
	size_t chunk_bytes = (size_t)(device_gib * gib / (double)chunks);
	if (chunk_bytes == 0)
		usage();
	double t_start = now_ms(), t0;

	t0 = now_ms();
	CHECK(cudaFree(0)); /* creates the context */
	int dev_index;
	cudaDeviceProp prop;
	CHECK(cudaGetDevice(&dev_index));
	CHECK(cudaGetDeviceProperties(&prop, dev_index));
	/* Probe values hold no spaces: "NVIDIA H200" becomes NVIDIA_H200. */
	char name[sizeof(prop.name)];
	std::snprintf(name, sizeof(name), "%s", prop.name);
	for (char *c = name; *c; c++)
		if (*c == ' ' || *c == '=')
			*c = '_';
	probe("ctx_init_ms=%.1f device=%s host_gib=%.3f device_gib=%.3f chunks=%ld",
	      now_ms() - t0, name, host_gib, device_gib, chunks);

	std::vector<void *> dev((size_t)chunks);
	for (long i = 0; i < chunks; i++) {
		t0 = now_ms();
		CHECK(cudaMalloc(&dev[(size_t)i], chunk_bytes));
		CHECK(cudaMemset(dev[(size_t)i], 0, chunk_bytes));
		CHECK(cudaDeviceSynchronize());
		probe("dev_alloc_ms=%.1f chunk=%ld chunk_bytes=%zu", now_ms() - t0, i, chunk_bytes);
	}

	/* Pageable host memory, touched page by page as an engine fills it. */
	t0 = now_ms();
	char *host = (char *)std::malloc(host_bytes);
	if (!host) {
		std::fprintf(stderr, "pin_demo: cannot allocate %zu bytes of host memory\n", host_bytes);
		return 1;
	}
	/* --pin-first: the engine's order — pin memory never touched, so the
	 * pinning itself faults every page in (the page-fault storm). */
	if (!pin_first)
		std::memset(host, 0x5a, host_bytes);
	probe("host_alloc_ms=%.1f host_bytes=%zu", now_ms() - t0, host_bytes);

	double ms;
	if (!pin_first) {
		ms = copy_h2d(host, host_bytes, dev, chunk_bytes);
		probe("h2d_pageable_ms=%.1f h2d_pageable_gibps=%.2f", ms, host_gib / (ms / 1e3));
	}

	t0 = now_ms();
	CHECK(cudaHostRegister(host, host_bytes, cudaHostRegisterDefault));
	ms = now_ms() - t0;
	probe("pin_ms=%.1f pin_bytes=%zu pin_gibps=%.2f", ms, host_bytes, host_gib / (ms / 1e3));

	ms = copy_h2d(host, host_bytes, dev, chunk_bytes);
	probe("h2d_pinned_ms=%.1f h2d_pinned_gibps=%.2f", ms, host_gib / (ms / 1e3));

	t0 = now_ms();
	CHECK(cudaHostUnregister(host));
	probe("unpin_ms=%.1f", now_ms() - t0);

	if (pin_first) {
		ms = copy_h2d(host, host_bytes, dev, chunk_bytes);
		probe("h2d_pageable_ms=%.1f h2d_pageable_gibps=%.2f", ms, host_gib / (ms / 1e3));
	}

	for (long i = chunks - 1; i >= 0; i--) {
		t0 = now_ms();
		CHECK(cudaFree(dev[(size_t)i]));
		probe("dev_free_ms=%.1f chunk=%ld", now_ms() - t0, i);
	}
	t0 = now_ms();
	std::free(host);
	probe("host_free_ms=%.1f", now_ms() - t0);
	probe("total_ms=%.1f", now_ms() - t_start);
	return 0;
}
