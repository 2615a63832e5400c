/* Unit tests of src/gpu: NVML loaded at run time, GPU memory of a PID set.
 *
 * Everywhere: a missing library and a library that is not NVML give the
 * "not available" status with a reason, never a crash; the PID-set sum is
 * checked on its own. Where a driver is present, a CUDA context is created in
 * this very process (libcuda through dlopen) and must show in the sample;
 * elsewhere those cases print "skipped: no NVIDIA driver" and skip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "gpu/nvml.h"

static void test_missing_library(void **state)
{
	(void)state;
	struct gpu *g = (struct gpu *)&g;
	struct err e = { 0 };
	assert_int_equal(gpu_open(&g, "/nonexistent/libnvidia-ml.so.1", &e), GPU_UNAVAILABLE);
	assert_null(g);
	assert_non_null(strstr(e.msg, "NVML not found"));
	assert_non_null(strstr(e.msg, "/nonexistent/libnvidia-ml.so.1"));
}

static void test_library_that_is_not_nvml(void **state)
{
	(void)state;
	struct gpu *g = (struct gpu *)&g;
	struct err e = { 0 };
	/* A real shared library present on every glibc system. */
	assert_int_equal(gpu_open(&g, "libm.so.6", &e), GPU_UNAVAILABLE);
	assert_null(g);
	assert_string_equal(e.msg, "no usable NVML: libm.so.6 lacks nvmlInit_v2");
}

static void test_tree_bytes(void **state)
{
	(void)state;
	const struct gpu_proc procs[] = { { 100, 500 << 20 }, { 200, 1 << 20 }, { 300, 7 } };
	const pid_t tree[] = { 999, 300, 100 };
	unsigned matched;
	assert_true(gpu_tree_bytes(procs, 3, tree, 3, &matched) == (500u << 20) + 7);
	assert_int_equal(matched, 2);
	assert_true(gpu_tree_bytes(procs, 3, tree, 1, &matched) == 0);
	assert_int_equal(matched, 0);
	assert_true(gpu_tree_bytes(procs, 0, tree, 3, &matched) == 0);
	assert_true(gpu_tree_bytes(procs, 3, NULL, 0, &matched) == 0);
}

/* Per-process figures: a sample sums one process over devices, a run keeps
 * each process's largest; past the bound, nothing is overwritten. */
static void test_proc_merge(void **state)
{
	(void)state;
	struct gpu_proc t[2];
	size_t n = 0;
	gpu_proc_merge(t, &n, 2, 100, 500, true);
	gpu_proc_merge(t, &n, 2, 200, 7, true);
	gpu_proc_merge(t, &n, 2, 100, 300, true);
	gpu_proc_merge(t, &n, 2, 300, 9, true);
	assert_int_equal(n, 2);
	assert_true(t[0].pid == 100 && t[0].used_bytes == 800);
	assert_true(t[1].pid == 200 && t[1].used_bytes == 7);
	gpu_proc_merge(t, &n, 2, 100, 600, false);
	gpu_proc_merge(t, &n, 2, 200, 70, false);
	assert_true(t[0].used_bytes == 800 && t[1].used_bytes == 70);
}

/* Opens the system's NVML, or skips the test saying why. */
static struct gpu *open_or_skip(void)
{
	struct gpu *g;
	struct err e = { 0 };
	int rc = gpu_open(&g, NULL, &e);
	if (rc == GPU_UNAVAILABLE) {
		assert_null(g);
		assert_true(e.msg[0] != '\0');
		printf("skipped: no NVIDIA driver (%s)\n", e.msg);
		return NULL;
	}
	assert_int_equal(rc, 0);
	return g;
}

static void test_devices(void **state)
{
	(void)state;
	struct gpu *g = open_or_skip();
	if (!g) {
		skip();
		return;
	}
	assert_true(gpu_device_count(g) > 0);
	assert_true(strlen(gpu_device_name(g, 0)) > 0);
	pid_t self = getpid();
	struct gpu_sample s;
	struct err e = { 0 };
	assert_int_equal(gpu_sample(g, &self, 1, &s, &e), 0);
	assert_int_equal(s.ndevices, gpu_device_count(g));
	for (size_t i = 0; i < s.ndevices; i++) {
		assert_true(s.dev[i].total_bytes > 0);
		assert_true(s.dev[i].used_bytes <= s.dev[i].total_bytes);
		assert_true(s.dev[i].util_gpu_pct >= -1 && s.dev[i].util_gpu_pct <= 100);
	}
	/* This process holds no CUDA context yet. */
	assert_int_equal(s.tree_procs, 0);
	assert_false(s.device_totals);
	assert_null(gpu_fallback_note(&s));
	gpu_close(g);
}

/* The CUDA driver API, the few calls needed to hold GPU memory; the primary
 * context's calls have kept their signatures across CUDA versions. */
typedef int (*cu_init_fn)(unsigned int);
typedef int (*cu_device_get_fn)(int *, int);
typedef int (*cu_primary_retain_fn)(void **, int);
typedef int (*cu_primary_release_fn)(int);
typedef int (*cu_ctx_set_current_fn)(void *);
typedef int (*cu_mem_alloc_fn)(unsigned long long *, size_t);
typedef int (*cu_mem_free_fn)(unsigned long long);

static void test_own_cuda_context_is_counted(void **state)
{
	(void)state;
	struct gpu *g = open_or_skip();
	if (!g) {
		skip();
		return;
	}
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!cuda) {
		printf("skipped: no CUDA driver library (%s)\n", dlerror());
		gpu_close(g);
		skip();
		return;
	}
	cu_init_fn cu_init = (cu_init_fn)dlsym(cuda, "cuInit");
	cu_device_get_fn cu_device_get = (cu_device_get_fn)dlsym(cuda, "cuDeviceGet");
	cu_primary_retain_fn retain = (cu_primary_retain_fn)dlsym(cuda, "cuDevicePrimaryCtxRetain");
	cu_primary_release_fn release = (cu_primary_release_fn)dlsym(cuda, "cuDevicePrimaryCtxRelease_v2");
	if (!release)
		release = (cu_primary_release_fn)dlsym(cuda, "cuDevicePrimaryCtxRelease");
	cu_ctx_set_current_fn set_current = (cu_ctx_set_current_fn)dlsym(cuda, "cuCtxSetCurrent");
	cu_mem_alloc_fn cu_mem_alloc = (cu_mem_alloc_fn)dlsym(cuda, "cuMemAlloc_v2");
	cu_mem_free_fn cu_mem_free = (cu_mem_free_fn)dlsym(cuda, "cuMemFree_v2");
	assert_true(cu_init && cu_device_get && retain && release && set_current && cu_mem_alloc &&
		    cu_mem_free);
	int dev;
	void *ctx;
	assert_int_equal(cu_init(0), 0);
	assert_int_equal(cu_device_get(&dev, 0), 0);
	assert_int_equal(retain(&ctx, dev), 0);
	assert_int_equal(set_current(ctx), 0);

	pid_t tree[] = { 1, getpid() };
	struct gpu_sample s1, s2;
	struct err e = { 0 };
	assert_int_equal(gpu_sample(g, tree, 2, &s1, &e), 0);
	if (!s1.device_totals) {
		assert_int_equal(s1.tree_procs, 1);
		assert_int_equal(s1.dev[0].tree_procs, 1);
	}
	/* The context alone holds memory. */
	assert_true(s1.tree_used_bytes > 0);
	assert_true(s1.tree_used_mib * 1048576.0 == (double)s1.tree_used_bytes);

	unsigned long long buf;
	assert_int_equal(cu_mem_alloc(&buf, 64u << 20), 0);
	assert_int_equal(gpu_sample(g, tree, 2, &s2, &e), 0);
	assert_true(s2.tree_used_bytes >= s1.tree_used_bytes + (64u << 20));
	/* the process's own figure: the one nvidia-smi lists for it */
	if (!s2.device_totals) {
		assert_int_equal(s2.ntree, 1);
		assert_int_equal(s2.tree[0].pid, getpid());
		assert_true(s2.tree[0].used_bytes == s2.tree_used_bytes);
	}
	printf("GPU 0 (%s): context %.0f MiB, with a 64 MiB buffer %.0f MiB%s\n",
	       gpu_device_name(g, 0), s1.tree_used_mib, s2.tree_used_mib,
	       s2.device_totals ? " (device totals)" : "");
	assert_int_equal(cu_mem_free(buf), 0);
	assert_int_equal(release(dev), 0);
	gpu_close(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_library),
		cmocka_unit_test(test_library_that_is_not_nvml),
		cmocka_unit_test(test_tree_bytes),
		cmocka_unit_test(test_proc_merge),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_own_cuda_context_is_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
