/* dynlib: dlopen + dlsym of a table of functions, with errors that say which. */
#include "util/dynlib.h"

#include <dlfcn.h>

int dynlib_load(const char *soname, const char *const *names, void **fns, size_t n, struct err *e)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return err_set(e, "cannot load %s: %s", soname, dlerror());
	for (size_t i = 0; i < n; i++) {
		fns[i] = dlsym(h, names[i]);
		if (!fns[i])
			return err_set(e, "%s has no %s (too old?)", soname, names[i]);
	}
	return 0;
}
