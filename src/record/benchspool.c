/* benchspool: each run of a bench as one line of JSON in an unlinked file.
 *
 * Runs are written at full precision (jansson's default, which reads back
 * to the same double), so statistics from the spool equal those from the
 * records in memory; the bench record file rounds them as jsonio_write does.
 */
#include "record/benchspool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/jsonio.h"
#include "util/fdio.h"
#include "util/xalloc.h"

/* how jsonio_write writes numbers, so the file reads as it always did */
#define SPOOL_FILE_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(10))

struct spool_line {
	off_t off;
	size_t len;
};

struct spool_cmd {
	struct spool_line *lines;
	size_t n, cap;
};

struct benchspool {
	int fd;
	off_t end;
	struct spool_cmd *cmds;
	size_t ncmd;
};

int benchspool_new(struct benchspool **out, size_t ncmd, struct err *e)
{
	*out = NULL;
	const char *tmpdir = getenv("TMPDIR");
	char *path = xasprintf("%s/perfhunt-bench-runs-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	int fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0) {
		err_sys(e, "cannot create '%s' for the bench's runs", path);
		free(path);
		return -1;
	}
	unlink(path);
	free(path);
	struct benchspool *sp = xcalloc(1, sizeof(*sp));
	sp->fd = fd;
	sp->ncmd = ncmd;
	sp->cmds = xcalloc(ncmd ? ncmd : 1, sizeof(*sp->cmds));
	*out = sp;
	return 0;
}

void benchspool_free(struct benchspool *sp)
{
	if (!sp)
		return;
	for (size_t i = 0; i < sp->ncmd; i++)
		free(sp->cmds[i].lines);
	free(sp->cmds);
	close(sp->fd);
	free(sp);
}

/* Writes run as a line at the spool's end; *l gets where. */
static int append(struct benchspool *sp, const json_t *run, struct spool_line *l, struct err *e)
{
	char *text = json_dumps(run, JSON_COMPACT);
	if (!text)
		return err_set(e, "a run record cannot be encoded");
	size_t len = strlen(text);
	text[len] = '\n'; /* one run a line; the NUL is not written */
	int rc = fdio_write_all(sp->fd, text, len + 1);
	free(text);
	if (rc < 0) {
		err_sys(e, "cannot keep the bench's run (its spool file in $TMPDIR)");
		(void)lseek(sp->fd, sp->end, SEEK_SET); /* what was written of it goes under the next run */
		return -1;
	}
	*l = (struct spool_line){ sp->end, len };
	sp->end += (off_t)len + 1;
	return 0;
}

int benchspool_add(struct benchspool *sp, size_t cmd, const json_t *run, struct err *e)
{
	if (cmd >= sp->ncmd)
		return err_set(e, "bench command %zu of %zu", cmd + 1, sp->ncmd);
	struct spool_line l;
	if (append(sp, run, &l, e) < 0)
		return -1;
	struct spool_cmd *c = &sp->cmds[cmd];
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->lines = xrealloc(c->lines, c->cap * sizeof(*c->lines));
	}
	c->lines[c->n++] = l;
	return 0;
}

int benchspool_replace(struct benchspool *sp, size_t cmd, size_t k, const json_t *run, struct err *e)
{
	if (cmd >= sp->ncmd || k >= sp->cmds[cmd].n)
		return err_set(e, "bench command %zu has no run %zu", cmd + 1, k + 1);
	return append(sp, run, &sp->cmds[cmd].lines[k], e);
}

static size_t spool_count(void *ctx, size_t cmd)
{
	const struct benchspool *sp = ctx;
	return cmd < sp->ncmd ? sp->cmds[cmd].n : 0;
}

static json_t *spool_load(void *ctx, size_t cmd, size_t k, struct err *e)
{
	const struct benchspool *sp = ctx;
	if (cmd >= sp->ncmd || k >= sp->cmds[cmd].n) {
		err_set(e, "bench command %zu has no run %zu", cmd + 1, k + 1);
		return NULL;
	}
	const struct spool_line *l = &sp->cmds[cmd].lines[k];
	char *buf = xmalloc(l->len ? l->len : 1);
	size_t got = 0;
	while (got < l->len) {
		ssize_t n = pread(sp->fd, buf + got, l->len - got, l->off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			err_sys(e, "cannot read back run %zu of bench command %zu", k + 1, cmd + 1);
			free(buf);
			return NULL;
		}
		got += (size_t)n;
	}
	json_error_t je;
	json_t *run = json_loadb(buf, l->len, 0, &je);
	free(buf);
	if (!run)
		err_set(e, "run %zu of bench command %zu read back broken: %s", k + 1, cmd + 1, je.text);
	return run;
}

struct bench_runs benchspool_runs(struct benchspool *sp)
{
	return (struct bench_runs){ .count = spool_count, .load = spool_load, .ctx = sp };
}

/* ---- the perfhunt.bench/1 file, its runs read back one at a time ---- */

struct record_src {
	const json_t *rec;
	const struct bench_runs *src;
};

static int put_key(FILE *f, const char *key)
{
	json_t *k = json_string(key);
	int rc = k ? json_dumpf(k, f, JSON_ENCODE_ANY) : -1;
	json_decref(k);
	return rc < 0 || fputs(": ", f) < 0 ? -1 : 0;
}

static int put_runs(FILE *f, const struct record_src *r, size_t cmd)
{
	size_t n = bench_runs_count(r->src, r->rec, cmd);
	if (fputc('[', f) < 0)
		return -1;
	for (size_t k = 0; k < n; k++) {
		struct err e;
		json_t *run = bench_runs_load(r->src, r->rec, cmd, k, &e);
		if (!run) {
			errno = EIO;
			return -1;
		}
		int rc = fputs(k ? ",\n  " : "\n  ", f) < 0 || json_dumpf(run, f, SPOOL_FILE_FLAGS) < 0 ? -1 : 0;
		json_decref(run);
		if (rc < 0)
			return -1;
	}
	return fputs(n ? "\n ]" : "]", f) < 0 ? -1 : 0;
}

static int put_command(FILE *f, const struct record_src *r, size_t cmd, const json_t *c)
{
	const char *key;
	json_t *v;
	bool first = true;
	if (fputc('{', f) < 0)
		return -1;
	json_object_foreach((json_t *)c, key, v) {
		if ((!first && fputs(", ", f) < 0) || put_key(f, key) < 0)
			return -1;
		first = false;
		int rc = !strcmp(key, "runs") ? put_runs(f, r, cmd) : json_dumpf(v, f, SPOOL_FILE_FLAGS | JSON_ENCODE_ANY);
		if (rc < 0)
			return -1;
	}
	return fputc('}', f) < 0 ? -1 : 0;
}

static int write_record(FILE *f, const void *ctx)
{
	const struct record_src *r = ctx;
	const char *key;
	json_t *v;
	bool first = true;
	if (fputc('{', f) < 0)
		return -1;
	json_object_foreach((json_t *)r->rec, key, v) {
		if (fputs(first ? "\n" : ",\n", f) < 0 || put_key(f, key) < 0)
			return -1;
		first = false;
		if (strcmp(key, "commands")) {
			if (json_dumpf(v, f, SPOOL_FILE_FLAGS | JSON_ENCODE_ANY) < 0)
				return -1;
			continue;
		}
		if (fputc('[', f) < 0)
			return -1;
		for (size_t i = 0; i < json_array_size(v); i++)
			if (fputs(i ? ",\n" : "\n", f) < 0 || put_command(f, r, i, json_array_get(v, i)) < 0)
				return -1;
		if (fputs("\n]", f) < 0)
			return -1;
	}
	return fputs("\n}\n", f) < 0 ? -1 : 0;
}

int benchspool_write_record(const char *path, const json_t *rec, const struct bench_runs *src, struct err *e)
{
	const struct record_src r = { rec, src };
	return jsonio_write_with(path, write_record, &r, e);
}

char *benchspool_write_elsewhere(const json_t *rec, const struct bench_runs *src, struct err *e)
{
	const struct record_src r = { rec, src };
	return jsonio_write_elsewhere_with(write_record, &r, "bench", e);
}
