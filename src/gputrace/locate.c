/* locate: where perfhunt finds the GPU activity collector it injects.
 *
 * $PERFHUNT_GPU_COLLECTOR names it outright; otherwise the build tree's copy
 * beside the binary (build/src/gputrace/), then the installed one
 * (PREFIX/LIBDIR/perfhunt/). The first that exists wins; none is an answer
 * too, since perfhunt builds without CUDA and the collector only with CUPTI.
 */
#include "gputrace/gputrace.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PERFHUNT_LIBDIR
#define PERFHUNT_LIBDIR "/usr/local/lib"
#endif

#define COLLECTOR "libperfhunt-gputrace.so"

static bool found(const char *path, char *buf, size_t n)
{
	if (access(path, R_OK) != 0 || strlen(path) >= n)
		return false;
	snprintf(buf, n, "%s", path);
	return true;
}

int gputrace_collector_path(char *buf, size_t n, struct err *e)
{
	const char *env = getenv("PERFHUNT_GPU_COLLECTOR");
	if (env && *env) {
		if (!found(env, buf, n))
			return err_set(e, "the collector named by PERFHUNT_GPU_COLLECTOR ('%s') cannot be read", env);
		return 0;
	}
	char exe[4096], path[4200];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		exe[len] = '\0';
		snprintf(path, sizeof(path), "%s/src/gputrace/" COLLECTOR, dirname(exe));
		if (found(path, buf, n))
			return 0;
	}
	if (found(PERFHUNT_LIBDIR "/perfhunt/" COLLECTOR, buf, n))
		return 0;
	return err_set(e, "this perfhunt was built without its collector (no CUPTI at build time; "
			  "meson option cupti)");
}
