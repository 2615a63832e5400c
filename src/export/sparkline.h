/* sparkline: a line of ▁▂▃▄▅▆▇█ for a terminal, one block per bucket.
 * When there are more values than width, each block shows its bucket's
 * maximum, so a spike is never averaged away.
 */
#ifndef PERFHUNT_SPARKLINE_H
#define PERFHUNT_SPARKLINE_H

#include <stddef.h>

/* Writes at most width blocks (3 bytes each) and a NUL into out (cap bytes). */
void sparkline(const double *v, size_t n, size_t width, char *out, size_t cap);

#endif
