/* outputs: every file a command will write, checked before anything runs.
 *
 * A record is lost when its path turns out wrong only after a one-hour
 * command has ended. So the files a command was asked to write, and the
 * history it will store into, are tried first: the directory exists and a
 * file can be created in it (a real create and unlink, the one test that
 * holds for root and on a read-only file system, where access(2) says yes).
 */
#ifndef PERFHUNT_SESSION_OUTPUTS_H
#define PERFHUNT_SESSION_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/err.h"

/* What a command will write; NULL paths are skipped, "-" is stdout. */
struct session_outputs {
	const char *const *files; /* written whole at the end: a temporary file, then rename */
	size_t nfiles;
	const char *stream;       /* written as it goes, in place (the timeline CSV) */
	bool history;             /* the record will be stored in the history */
};

/* 0 when each output can be written; otherwise -1, e saying which and why
 * ("cannot write 'PATH': no directory 'DIR'"). Leaves nothing behind. */
int session_check_outputs(const struct session_outputs *o, struct err *e);

#endif
