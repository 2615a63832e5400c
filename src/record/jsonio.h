/* jsonio: reading and writing perfhunt's JSON records as whole files.
 *
 * Writes are atomic (a temporary file in the target's directory, then
 * rename), so a reader never sees half a record and a failed write leaves
 * no partial file behind. Reads check the "schema" field.
 */
#ifndef PERFHUNT_JSONIO_H
#define PERFHUNT_JSONIO_H

#include <jansson.h>
#include <stdio.h>

#include "util/err.h"

/* The reader's bounds, the same for every command (docs/FORMATS.md): a
 * record (one JSON value) of at most JSONIO_MAX_BYTES is read, a larger one
 * refused with one line (a run record perfhunt writes stays far below: its
 * lists are bounded); a string longer than JSONIO_STRING_MAX (the kernel's
 * limit on one argument, 128 KiB) is cut to it, ending "...[N bytes cut]",
 * so a huge note cannot flood show or a report; an object key that long is
 * an error. Duplicate keys are an error everywhere. $PERFHUNT_TEST_RECORD_MAX_MIB
 * lowers JSONIO_MAX_BYTES to that many MiB (a test hook; it never raises it). */
#define JSONIO_MAX_BYTES (64 << 20)
#define JSONIO_STRING_MAX (128 << 10)

/* Writes the JSON value (indented) to path; "-" means stdout. */
int jsonio_write(const char *path, const json_t *v, struct err *e);
/* jsonio_write of what write(f, ctx) writes to the stream (0, or -1 with
 * errno set): a file written in parts, as a bench's runs are read back one
 * at a time, never held whole. */
int jsonio_write_with(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx, struct err *e);
/* Reads one record from path ("-" for stdin), within the bounds above; when
 * schema_prefix is non-NULL the record's "schema" must start with it. *out
 * is owned by the caller (json_decref). */
int jsonio_read(const char *path, const char *schema_prefix, json_t **out, struct err *e);
/* Reads every JSON object of path ("-" for stdin), streaming, each value
 * within the bounds above: one record, several one after another (JSON
 * Lines, as `history export` writes), or arrays of them (flattened). *out is a new array of new references (caller frees with
 * jsonio_values_free). Errors name the file and the value's position. */
int jsonio_read_many(const char *path, json_t ***out, size_t *n, struct err *e);
/* jsonio_read_many one record at a time: fn(rec, index, arg) for each, rec
 * borrowed for the call, so a file of 10^5 records is read in the memory of
 * one. 0 when every record was read, -1 on an error (e: the file and the
 * value's position; the records before it were passed on), 1 when fn
 * stopped it by returning non-zero. */
int jsonio_read_each(const char *path, int (*fn)(json_t *rec, size_t index, void *arg), void *arg,
		     struct err *e);
void jsonio_values_free(json_t **v, size_t n);
/* What jsonio_read_runs does with one run: fn(run, top, cmd, command,
 * index, arg, e) with run borrowed, top the record and cmd its command
 * object as read so far (the members before "runs"), command and index the
 * positions; returns 0 when run is done with, 1 to keep it in the tree, -1
 * to stop (e filled). */
typedef int (*jsonio_run_fn)(json_t *run, const json_t *top, const json_t *cmd, size_t command, size_t index,
			     void *arg, struct err *e);
/* jsonio_read of a bench record run by run: each element of the arrays
 * commands[].runs goes to fn as it is read, so a file of any size is read in
 * the memory of its largest run. The bounds apply to each run, and to the
 * rest of the record (what is kept) as a whole. *out (caller frees) is the
 * record with the runs fn did not keep left out of their arrays. */
int jsonio_read_runs(const char *path, jsonio_run_fn fn, void *arg, json_t **out, struct err *e);
/* Writes bytes to path atomically (temp file + rename); "-" means stdout. */
int jsonio_write_bytes(const char *path, const char *buf, size_t n, struct err *e);
/* A record its own path could not take at the end (a full disk, what no
 * check before the run foresees) written to a new file in $TMPDIR (or
 * /tmp), "perfhunt-NAME-XXXXXX.json". Returns that path (caller frees), or
 * NULL with e filled. */
char *jsonio_write_elsewhere(const json_t *v, const char *name, struct err *e);
/* jsonio_write_elsewhere of what write(f, ctx) writes. */
char *jsonio_write_elsewhere_with(int (*write)(FILE *f, const void *ctx), const void *ctx, const char *name,
				  struct err *e);

#endif
