/* jsonio: atomic JSON record files, schema-checked reads (jansson). */
#include "record/jsonio.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fdio.h"
#include "util/fsafe.h"
#include "util/xalloc.h"

/* Devices and FIFOs (/dev/stdout, /dev/full, a pipe) are written in place:
 * renaming over them would replace the node itself. So is a link into
 * /proc/PID/fd (/dev/stdout, /dev/fd/1) even when it leads to a regular
 * file: renaming over it would replace /dev/stdout. */
static bool jsonio_fd_link(const char *path)
{
	if (!strncmp(path, "/dev/fd/", 8) || !strncmp(path, "/proc/", 6))
		return true;
	char cur[PATH_MAX], target[PATH_MAX];
	snprintf(cur, sizeof(cur), "%s", path);
	for (int depth = 0; depth < 8; depth++) {
		ssize_t n = readlink(cur, target, sizeof(target) - 1);
		if (n < 0)
			return false;
		target[n] = 0;
		if (!strncmp(target, "/proc/", 6) || !strncmp(target, "/dev/fd/", 8))
			return true;
		if (target[0] == '/') {
			memcpy(cur, target, (size_t)n + 1);
		} else {
			char *slash = strrchr(cur, '/');
			size_t keep = slash ? (size_t)(slash - cur) + 1 : 0;
			if (keep + (size_t)n >= sizeof(cur))
				return false;
			memcpy(cur + keep, target, (size_t)n + 1);
		}
	}
	return false;
}

/* What goes into the file: bytes at hand, or a JSON value encoded as it is
 * written (a record of 10 000 phases is ~7 MB of text: encoding it into one
 * string first doubled perfhunt's peak for it). Returns 0 or -1 (errno). */
struct emitter {
	int (*emit)(int fd, const void *ctx);
	const void *ctx;
};

static int write_in_place(const char *path, const struct emitter *em, struct err *e)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "cannot open '%s'", path);
	int rc = em->emit(fd, em->ctx);
	if (rc < 0)
		err_sys(e, "cannot write '%s'", path);
	if (close(fd) != 0 && rc == 0)
		rc = err_sys(e, "cannot write '%s'", path);
	return rc;
}

static int write_atomic(const char *path, const struct emitter *em, struct err *e)
{
	if (!strcmp(path, "-"))
		return em->emit(STDOUT_FILENO, em->ctx) < 0 ? err_sys(e, "cannot write to stdout") : 0;
	/* Never through another user's link or into a directory another user
	 * can change: the temporary file is O_EXCL and random (mkostemp), but
	 * the rename and a device written in place go where the path leads. */
	if (fsafe_check_output(path, e))
		return -1;
	struct stat st;
	if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || jsonio_fd_link(path)))
		return write_in_place(path, em, e);
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_sys(e, "cannot create '%s'", path);
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	if (em->emit(fd, em->ctx) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	free(tmp);
	return 0;
fail:
	err_sys(e, "cannot write '%s'", path);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return -1;
}

struct bytes {
	const char *buf;
	size_t n;
};

static int emit_bytes(int fd, const void *ctx)
{
	const struct bytes *b = ctx;
	return fdio_write_all(fd, b->buf, b->n);
}

int jsonio_write_bytes(const char *path, const char *buf, size_t n, struct err *e)
{
	struct bytes b = { buf, n };
	struct emitter em = { emit_bytes, &b };
	return write_atomic(path, &em, e);
}

/* json_dump_callback's sink: 64 KiB at a time to the file */
struct json_sink {
	int fd;
	int failed;
	size_t n;
	char buf[65536];
};

static int sink_flush(struct json_sink *k)
{
	if (k->n && !k->failed && fdio_write_all(k->fd, k->buf, k->n) < 0)
		k->failed = errno ? errno : EIO;
	k->n = 0;
	return k->failed ? -1 : 0;
}

static int sink_put(const char *text, size_t size, void *data)
{
	struct json_sink *k = data;
	while (size) {
		if (k->n == sizeof(k->buf) && sink_flush(k) < 0)
			return -1;
		size_t take = sizeof(k->buf) - k->n < size ? sizeof(k->buf) - k->n : size;
		memcpy(k->buf + k->n, text, take);
		k->n += take;
		text += take;
		size -= take;
	}
	return 0;
}

static int emit_json(int fd, const void *ctx)
{
	struct json_sink *k = xcalloc(1, sizeof(*k));
	k->fd = fd;
	int rc = json_dump_callback(ctx, sink_put, k, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (rc == 0)
		rc = sink_put("\n", 1, k);
	if (sink_flush(k) < 0)
		rc = -1;
	else if (rc < 0)
		errno = EINVAL; /* jansson could not encode the value */
	if (k->failed)
		errno = k->failed;
	free(k);
	return rc < 0 ? -1 : 0;
}

int jsonio_write(const char *path, const json_t *v, struct err *e)
{
	struct emitter em = { emit_json, v };
	return write_atomic(path, &em, e);
}

struct stream_writer {
	int (*write)(FILE *f, const void *ctx);
	const void *ctx;
};

/* A writer of a stdio stream over the file's descriptor (a copy of it, so
 * the caller's close stays the one that reports the file's last error). */
static int emit_stream(int fd, const void *ctx)
{
	const struct stream_writer *w = ctx;
	int copy = dup(fd);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	if (!f) {
		if (copy >= 0)
			close(copy);
		return -1;
	}
	errno = 0;
	int rc = w->write(f, w->ctx) < 0 || ferror(f) ? -1 : 0;
	int err = rc < 0 ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		err = errno;
	}
	errno = err;
	return rc;
}

int jsonio_write_with(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx, struct err *e)
{
	const struct stream_writer w = { write, ctx };
	struct emitter em = { emit_stream, &w };
	return write_atomic(path, &em, e);
}

/* ---- reading: one reader for every command ---- */

/* JSONIO_MAX_BYTES, or less where $PERFHUNT_TEST_RECORD_MAX_MIB asks: a
 * test hook, so a test of the bound needs no 64 MiB file; it never raises it. */
static size_t max_bytes(void)
{
	const char *v = getenv("PERFHUNT_TEST_RECORD_MAX_MIB");
	long mib = v ? strtol(v, NULL, 10) : 0;
	return mib > 0 && mib < (JSONIO_MAX_BYTES >> 20) ? (size_t)mib << 20 : (size_t)JSONIO_MAX_BYTES;
}

/* A stream of JSON values read in growing chunks: at most JSONIO_MAX_BYTES
 * of one value are held (plus a chunk), so JSON Lines of any length stream
 * through in bounded memory and no single record costs more. */
struct jsonio_reader {
	const char *path;
	FILE *f;
	char *buf;
	size_t len, cap, off; /* buf[off..len) not parsed yet */
	size_t line;          /* of buf[off] */
	size_t index;         /* values read */
	bool eof;
};

/* Reads more: at least as much as is pending, 64 KiB at the least. */
static int reader_fill(struct jsonio_reader *r, struct err *e)
{
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	size_t want = r->len > 65536 ? r->len : 65536;
	xgrow((void **)&r->buf, &r->cap, r->len + want + 1, 1);
	size_t got = fread(r->buf + r->len, 1, r->cap - r->len - 1, r->f);
	r->len += got;
	r->buf[r->len] = 0;
	if (got == 0) {
		if (ferror(r->f))
			return err_sys(e, "cannot read '%s'", r->path);
		r->eof = true;
	}
	return 0;
}

static void count_lines(struct jsonio_reader *r, size_t n)
{
	for (size_t k = 0; k < n; k++)
		r->line += r->buf[r->off + k] == '\n';
	r->off += n;
}

/* Cuts a string longer than JSONIO_STRING_MAX to that, on a UTF-8
 * boundary, ending "...[N bytes cut]"; a longer object key is an error.
 * Returns the number of strings cut, or -1 (e filled). */
static long bound_strings(json_t *v, const char *path, struct err *e)
{
	long cut = 0;
	if (json_is_string(v)) {
		size_t n = json_string_length(v);
		if (n <= JSONIO_STRING_MAX)
			return 0;
		const char *s = json_string_value(v);
		size_t keep = JSONIO_STRING_MAX - 48; /* room for the marker: the result stays within the bound */
		while (keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
			keep--;
		char *t = xasprintf("%.*s...[%zu bytes cut]", (int)keep, s, n - keep);
		json_string_set(v, t);
		free(t);
		return 1;
	}
	if (json_is_array(v)) {
		size_t i;
		json_t *x;
		json_array_foreach(v, i, x) {
			long c = bound_strings(x, path, e);
			if (c < 0)
				return -1;
			cut += c;
		}
	} else if (json_is_object(v)) {
		const char *k;
		size_t klen;
		json_t *x;
		json_object_keylen_foreach(v, k, klen, x) {
			if (klen > JSONIO_STRING_MAX)
				return err_set(e, "cannot read '%s': a key of %zu bytes (at most %d)", path, klen,
					       JSONIO_STRING_MAX);
			long c = bound_strings(x, path, e);
			if (c < 0)
				return -1;
			cut += c;
		}
	}
	return cut;
}

/* n, less a UTF-8 sequence cut at b[n] (its rest comes with the next
 * chunk: jansson would call the part an invalid byte, not a short input). */
static size_t whole_utf8(const char *b, size_t n)
{
	for (size_t back = 1; back <= 4 && back <= n; back++) {
		unsigned char c = (unsigned char)b[n - back];
		if ((c & 0xc0) == 0x80)
			continue;
		size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
		return need > back ? n - back : n;
	}
	return n;
}

/* Skips white space: *c is the next byte, or -1 at the end of the input. */
static int reader_peek(struct jsonio_reader *r, int *c, struct err *e)
{
	for (;;) {
		size_t ws = 0;
		while (r->off + ws < r->len && r->buf[r->off + ws] && strchr(" \t\r\n", r->buf[r->off + ws]))
			ws++;
		count_lines(r, ws);
		if (r->off < r->len) {
			*c = (unsigned char)r->buf[r->off];
			return 0;
		}
		if (r->eof) {
			*c = -1;
			return 0;
		}
		if (reader_fill(r, e) < 0)
			return -1;
	}
}

static int record_over(const struct jsonio_reader *r, struct err *e)
{
	return err_set(e, "cannot read '%s': record %zu is over %zu MiB, the most a record may be (docs/FORMATS.md)",
		       r->path, r->index, max_bytes() >> 20);
}

/* The value at r->off (a new reference in *v), within the bounds; *size:
 * the bytes it took. flags add to jansson's (JSON_DECODE_ANY for a value
 * inside a record). 0, or -1 with e filled. */
static int reader_parse(struct jsonio_reader *r, size_t flags, json_t **v, size_t *size, struct err *e)
{
	r->index++;
	for (;;) {
		json_error_t je;
		size_t avail = r->len - r->off;
		if (!r->eof)
			avail = whole_utf8(r->buf + r->off, avail);
		*v = json_loadb(r->buf + r->off, avail, flags | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
		/* a number that ends where the bytes read end may go on in the next chunk */
		if (*v && (r->eof || (size_t)je.position < avail || json_is_object(*v) || json_is_array(*v))) {
			if ((size_t)je.position > max_bytes()) { /* read whole: the buffer grows by doubling */
				json_decref(*v);
				*v = NULL;
				return record_over(r, e);
			}
			*size = (size_t)je.position;
			count_lines(r, (size_t)je.position);
			break;
		}
		/* a token cut at the end of what was read ("-1.7e", "tru", half
		 * a \u escape) reads as invalid, not short: near the end, read on */
		bool more = !r->eof && (*v || json_error_code(&je) == json_error_premature_end_of_input ||
					(size_t)je.position + 16 >= avail);
		json_decref(*v);
		*v = NULL;
		if (more && r->len - r->off > max_bytes())
			return record_over(r, e);
		if (!more)
			return err_set(e, "cannot read '%s': %s (line %zu)", r->path, je.text,
				       r->line + (size_t)(je.line > 0 ? je.line - 1 : 0));
		if (reader_fill(r, e) < 0)
			return -1;
	}
	return 0;
}

/* reader_parse, strings bounded as the comment of JSONIO_STRING_MAX says. */
static int reader_value(struct jsonio_reader *r, size_t flags, json_t **v, size_t *size, struct err *e)
{
	if (reader_parse(r, flags, v, size, e) < 0)
		return -1;
	if (bound_strings(*v, r->path, e) < 0) {
		json_decref(*v);
		*v = NULL; /* the caller frees what it holds on an error too */
		return -1;
	}
	return 0;
}

/* An object's key at r->off, within the bounds a key read by jansson has. */
static int reader_key(struct jsonio_reader *r, json_t **key, size_t *size, struct err *e)
{
	if (reader_parse(r, JSON_DECODE_ANY | JSON_ALLOW_NUL, key, size, e) < 0)
		return -1;
	size_t n = json_string_length(*key);
	int rc = 0;
	if (!json_is_string(*key))
		rc = err_set(e, "cannot read '%s': an object key is not a string (line %zu)", r->path, r->line);
	else if (n > JSONIO_STRING_MAX)
		rc = err_set(e, "cannot read '%s': a key of %zu bytes (at most %d)", r->path, n, JSONIO_STRING_MAX);
	else if (strlen(json_string_value(*key)) != n)
		rc = err_set(e, "cannot read '%s': NUL byte in object key not supported (line %zu)", r->path,
			     r->line);
	if (rc < 0) {
		json_decref(*key);
		*key = NULL;
	}
	return rc;
}

/* The next value: 1 with *v (a new reference), 0 at the end, -1 on error. */
static int reader_next(struct jsonio_reader *r, json_t **v, struct err *e)
{
	int c;
	size_t size;
	if (reader_peek(r, &c, e) < 0)
		return -1;
	if (c < 0)
		return 0;
	return reader_value(r, 0, v, &size, e) < 0 ? -1 : 1;
}

/* Opens path ("-": stdin) for reader_next; a regular file over the bound is
 * refused here, before a byte is read. */
static int reader_open(struct jsonio_reader *r, const char *path, struct err *e)
{
	memset(r, 0, sizeof(*r));
	r->path = path;
	r->line = 1;
	r->f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!r->f)
		return err_sys(e, "cannot read '%s'", path);
	struct stat st;
	if (r->f != stdin && fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(r->f);
		return err_set(e, "cannot read '%s': it is a directory", path);
	}
	return 0;
}

static void reader_close(struct jsonio_reader *r)
{
	if (r->f && r->f != stdin)
		fclose(r->f);
	free(r->buf);
}

/* A new file in $TMPDIR for a record its own path could not take. */
static char *write_elsewhere(const struct emitter *em, const char *name, struct err *e)
{
	const char *tmpdir = getenv("TMPDIR");
	char *path = xasprintf("%s/perfhunt-%s-XXXXXX.json", tmpdir && *tmpdir ? tmpdir : "/tmp", name);
	int fd = mkostemps(path, 5, O_CLOEXEC);
	if (fd < 0) {
		err_sys(e, "cannot create '%s'", path);
		free(path);
		return NULL;
	}
	close(fd);
	if (write_atomic(path, em, e) < 0) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

char *jsonio_write_elsewhere(const json_t *v, const char *name, struct err *e)
{
	struct emitter em = { emit_json, v };
	return write_elsewhere(&em, name, e);
}

char *jsonio_write_elsewhere_with(int (*write)(FILE *f, const void *ctx), const void *ctx, const char *name,
				  struct err *e)
{
	const struct stream_writer w = { write, ctx };
	struct emitter em = { emit_stream, &w };
	return write_elsewhere(&em, name, e);
}

int jsonio_read(const char *path, const char *schema_prefix, json_t **out, struct err *e)
{
	struct jsonio_reader r;
	if (reader_open(&r, path, e) < 0)
		return -1;
	struct stat st;
	if (r.f != stdin && fstat(fileno(r.f), &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size > max_bytes()) {
		err_set(e, "cannot read '%s': %.1f MiB, over the %zu MiB a record may be (docs/FORMATS.md)", path,
			(double)st.st_size / 1048576, max_bytes() >> 20);
		reader_close(&r);
		return -1;
	}
	json_t *v = NULL, *extra = NULL;
	int rc = reader_next(&r, &v, e);
	if (rc == 0)
		rc = err_set(e, "cannot read '%s': no record in it", path);
	else if (rc > 0 && (rc = reader_next(&r, &extra, e)) > 0)
		rc = err_set(e, "cannot read '%s': more than one JSON value (line %zu); "
			     "'history import' reads JSON Lines", path, r.line);
	reader_close(&r);
	json_decref(extra);
	if (rc < 0) {
		json_decref(v);
		return -1;
	}
	if (!json_is_object(v)) {
		json_decref(v);
		return err_set(e, "cannot read '%s': not a perfhunt record (not a JSON object)", path);
	}
	if (schema_prefix) {
		const char *schema = json_string_value(json_object_get(v, "schema"));
		if (!schema || strncmp(schema, schema_prefix, strlen(schema_prefix))) {
			err_set(e, "cannot read '%s': schema is '%s', expected %s...", path,
				schema ? schema : "(none)", schema_prefix);
			json_decref(v); /* after the message: schema points into v */
			return -1;
		}
	}
	*out = v;
	return 0;
}

void jsonio_values_free(json_t **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(v[i]);
	free(v);
}

int jsonio_read_each(const char *path, int (*fn)(json_t *rec, size_t index, void *arg), void *arg,
		     struct err *e)
{
	struct jsonio_reader r;
	if (reader_open(&r, path, e) < 0)
		return -1;
	json_t *v;
	size_t count = 0;
	int rc;
	while (rc = reader_next(&r, &v, e), rc > 0) {
		size_t items = json_is_array(v) ? json_array_size(v) : 1;
		for (size_t i = 0; i < items && rc > 0; i++) {
			json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
			if (!json_is_object(item))
				rc = err_set(e, "cannot read '%s': value %zu is not a perfhunt record (not a JSON "
					     "object)", path, r.index);
			else if (fn(item, count++, arg))
				rc = -2;
		}
		json_decref(v);
		if (rc < 0)
			break;
	}
	reader_close(&r);
	if (rc == 0 && count == 0)
		rc = err_set(e, "cannot read '%s': no record in it", path);
	return rc == -2 ? 1 : rc < 0 ? -1 : 0;
}

struct jsonio_many {
	json_t **out;
	size_t n, cap;
};

static int jsonio_keep(json_t *rec, size_t index, void *arg)
{
	struct jsonio_many *m = arg;
	(void)index;
	xgrow((void **)&m->out, &m->cap, m->n + 1, sizeof(*m->out));
	m->out[m->n++] = json_incref(rec);
	return 0;
}

int jsonio_read_many(const char *path, json_t ***out, size_t *n, struct err *e)
{
	struct jsonio_many m = { 0 };
	int rc = jsonio_read_each(path, jsonio_keep, &m, e);
	*out = rc ? NULL : m.out;
	*n = rc ? 0 : m.n;
	if (rc)
		jsonio_values_free(m.out, m.n);
	return rc ? -1 : 0;
}

/* ---- a bench record read run by run ---- */

/* The walk over one record's top object and its commands[].runs arrays:
 * their punctuation is read here, every value (a key, a run, any other
 * member) by jansson, each within the bounds of a record. */
struct runs_walk {
	struct jsonio_reader r;
	jsonio_run_fn fn;
	void *arg;
	json_t *top;
	size_t held; /* bytes of the values kept in the tree */
};

static int walk_expected(struct runs_walk *w, const char *what, struct err *e)
{
	return err_set(e, "cannot read '%s': expected %s (line %zu)", w->r.path, what, w->r.line);
}

/* One value kept in the tree; all of them together within the bound. */
static int walk_keep(struct runs_walk *w, json_t **v, struct err *e)
{
	size_t size;
	if (reader_value(&w->r, JSON_DECODE_ANY, v, &size, e) < 0)
		return -1;
	w->held += size;
	if (w->held > max_bytes()) {
		json_decref(*v);
		return err_set(e, "cannot read '%s': more than %zu MiB besides its runs, the most a record may be "
			       "(docs/FORMATS.md)", w->r.path, max_bytes() >> 20);
	}
	return 0;
}

/* After an element or member: 1 at ',' (consumed), 0 at close (consumed). */
static int walk_next(struct runs_walk *w, char close, struct err *e)
{
	int c;
	if (reader_peek(&w->r, &c, e) < 0)
		return -1;
	if (c != ',' && c != close)
		return walk_expected(w, close == ']' ? "',' or ']'" : "',' or '}'", e);
	count_lines(&w->r, 1);
	return c == ',';
}

/* Just after an opening bracket: 1 before its first element, 0 at close
 * (consumed: an empty one), -1 on an error. */
static int walk_first(struct runs_walk *w, char close, struct err *e)
{
	int c;
	if (reader_peek(&w->r, &c, e) < 0)
		return -1;
	if (c != close)
		return 1;
	count_lines(&w->r, 1);
	return 0;
}

/* At '[' (consumed): each run to fn, kept in arr when fn says so. */
static int walk_runs(struct runs_walk *w, json_t *arr, const json_t *cmd, size_t command, struct err *e)
{
	int c, more = walk_first(w, ']', e);
	for (size_t i = 0; more > 0; i++) {
		json_t *run;
		size_t size;
		if (reader_peek(&w->r, &c, e) < 0 || reader_value(&w->r, JSON_DECODE_ANY, &run, &size, e) < 0)
			return -1;
		int rc = w->fn(run, w->top, cmd, command, i, w->arg, e);
		if (rc == 1) {
			w->held += size;
			json_array_append(arr, run);
		}
		json_decref(run);
		if (rc < 0)
			return -1;
		if (w->held > max_bytes())
			return err_set(e, "cannot read '%s': more than %zu MiB of runs kept, the most a record may be "
				       "(docs/FORMATS.md)", w->r.path, max_bytes() >> 20);
		more = walk_next(w, ']', e);
	}
	return more;
}

static int walk_object(struct runs_walk *w, json_t *obj, int depth, size_t command, struct err *e);

/* At '[' (consumed) of "commands": each command object walked for its runs. */
static int walk_commands(struct runs_walk *w, json_t *arr, struct err *e)
{
	int c, more = walk_first(w, ']', e);
	for (size_t i = 0; more > 0; i++) {
		json_t *v;
		if (reader_peek(&w->r, &c, e) < 0)
			return -1;
		if (c == '{') {
			count_lines(&w->r, 1);
			v = json_object();
			json_array_append_new(arr, v);
			if (walk_object(w, v, 1, i, e) < 0)
				return -1;
		} else {
			if (walk_keep(w, &v, e) < 0)
				return -1;
			json_array_append_new(arr, v);
		}
		more = walk_next(w, ']', e);
	}
	return more;
}

/* At '{' (consumed): the members into obj; depth 0 is the record, 1 a command. */
static int walk_object(struct runs_walk *w, json_t *obj, int depth, size_t command, struct err *e)
{
	int c = 0, more = walk_first(w, '}', e);
	while (more > 0) {
		json_t *key, *v;
		if (reader_peek(&w->r, &c, e) < 0)
			return -1;
		if (c != '"')
			return walk_expected(w, "a key", e);
		size_t size;
		if (reader_key(&w->r, &key, &size, e) < 0)
			return -1;
		w->held += size;
		const char *k = json_string_value(key);
		if (json_object_get(obj, k)) {
			err_set(e, "cannot read '%s': duplicate object key near '\"%.64s\"' (line %zu)", w->r.path, k,
				w->r.line);
			json_decref(key);
			return -1;
		}
		if (reader_peek(&w->r, &c, e) < 0 || (c != ':' && walk_expected(w, "':'", e) < 0)) {
			json_decref(key);
			return -1;
		}
		count_lines(&w->r, 1);
		int rc = reader_peek(&w->r, &c, e);
		bool split = c == '[' && ((depth == 0 && !strcmp(k, "commands")) || (depth == 1 && !strcmp(k, "runs")));
		if (rc == 0 && split) {
			count_lines(&w->r, 1);
			v = json_array();
			json_object_set_new(obj, k, v);
			rc = depth == 0 ? walk_commands(w, v, e) : walk_runs(w, v, obj, command, e);
		} else if (rc == 0 && (rc = walk_keep(w, &v, e)) == 0) {
			json_object_set_new(obj, k, v);
		}
		json_decref(key);
		if (rc < 0)
			return -1;
		more = walk_next(w, '}', e);
	}
	return more;
}

int jsonio_read_runs(const char *path, jsonio_run_fn fn, void *arg, json_t **out, struct err *e)
{
	struct runs_walk w = { .fn = fn, .arg = arg };
	if (reader_open(&w.r, path, e) < 0)
		return -1;
	int c, rc = reader_peek(&w.r, &c, e);
	if (rc == 0 && c < 0)
		rc = err_set(e, "cannot read '%s': no record in it", path);
	else if (rc == 0 && c != '{')
		rc = err_set(e, "cannot read '%s': not a perfhunt record (not a JSON object)", path);
	if (rc == 0) {
		count_lines(&w.r, 1);
		w.top = json_object();
		rc = walk_object(&w, w.top, 0, 0, e);
	}
	if (rc == 0 && (rc = reader_peek(&w.r, &c, e)) == 0 && c >= 0)
		rc = err_set(e, "cannot read '%s': more than one JSON value (line %zu); "
			     "'history import' reads JSON Lines", path, w.r.line);
	reader_close(&w.r);
	if (rc < 0) {
		json_decref(w.top);
		return -1;
	}
	*out = w.top;
	return 0;
}
