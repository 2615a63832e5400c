/* dynlib: optional libraries loaded only when a feature needs them.
 *
 * libcurl and libpq (and their ~30 dependencies: TLS, Kerberos, LDAP...)
 * cost ~10 ms of dynamic loading at every start, which a wrapper that
 * measures `true` cannot afford. They are used only by --push and a
 * PostgreSQL history, so those features dlopen them on first use; libsqlite3
 * (20 page faults and 3000 relocations) likewise when a history is opened.
 * The build still compiles against their headers for types and constants.
 */
#ifndef PERFHUNT_DYNLIB_H
#define PERFHUNT_DYNLIB_H

#include <stddef.h>

#include "util/err.h"

/* Opens soname once (the handle is kept for the process's life) and fills
 * fns[i] with names[i]. Returns 0, or -1 naming the library or symbol missing. */
int dynlib_load(const char *soname, const char *const *names, void **fns, size_t n, struct err *e);

#endif
