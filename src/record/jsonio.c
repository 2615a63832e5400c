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

static int write_in_place(const char *path, const char *buf, size_t n, struct err *e)
{
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return err_sys(e, "cannot open '%s'", path);
	int rc = fdio_write_all(fd, buf, n);
	if (rc < 0)
		err_sys(e, "cannot write '%s'", path);
	if (close(fd) != 0 && rc == 0)
		rc = err_sys(e, "cannot write '%s'", path);
	return rc;
}

int jsonio_write_bytes(const char *path, const char *buf, size_t n, struct err *e)
{
	if (!strcmp(path, "-"))
		return fdio_write_all(STDOUT_FILENO, buf, n) < 0 ? err_sys(e, "cannot write to stdout") : 0;
	/* Never through another user's link or into a directory another user
	 * can change: the temporary file is O_EXCL and random (mkostemp), but
	 * the rename and a device written in place go where the path leads. */
	if (fsafe_check_output(path, e))
		return -1;
	struct stat st;
	if (stat(path, &st) == 0 && (!S_ISREG(st.st_mode) || jsonio_fd_link(path)))
		return write_in_place(path, buf, n, e);
	char *tmp = xasprintf("%s.tmp.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_sys(e, "cannot create '%s'", path);
		free(tmp);
		return -1;
	}
	fchmod(fd, 0644);
	if (fdio_write_all(fd, buf, n) < 0)
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

int jsonio_write(const char *path, const json_t *v, struct err *e)
{
	char *s = json_dumps(v, JSON_INDENT(1) | JSON_REAL_PRECISION(10));
	if (!s)
		return err_set(e, "cannot encode the record for '%s'", path);
	size_t n = strlen(s);
	s = xrealloc(s, n + 2);
	s[n++] = '\n';
	s[n] = 0;
	int rc = jsonio_write_bytes(path, s, n, e);
	free(s);
	return rc;
}

int jsonio_read(const char *path, const char *schema_prefix, json_t **out, struct err *e)
{
	json_error_t je;
	json_t *v;
	if (!strcmp(path, "-"))
		v = json_loadf(stdin, JSON_REJECT_DUPLICATES, &je);
	else
		v = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	if (!v) {
		if (je.line <= 0) /* the file itself: missing, unreadable, empty */
			return err_set(e, "cannot read '%s': %s", path, je.text);
		return err_set(e, "cannot read '%s': %s (line %d)", path, je.text, je.line);
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

/* Appends v (consumed) or, for an array, its elements; -1 for a non-object. */
static int jsonio_take(json_t *v, json_t ***out, size_t *n, size_t *cap)
{
	size_t count = json_is_array(v) ? json_array_size(v) : 1;
	for (size_t i = 0; i < count; i++) {
		json_t *item = json_is_array(v) ? json_array_get(v, i) : v;
		if (!json_is_object(item)) {
			json_decref(v);
			return -1;
		}
		xgrow((void **)out, cap, *n + 1, sizeof(**out));
		(*out)[(*n)++] = json_incref(item);
	}
	json_decref(v);
	return 0;
}

int jsonio_read_many(const char *path, json_t ***out, size_t *n, struct err *e)
{
	*out = NULL;
	*n = 0;
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	if (!f)
		return err_sys(e, "cannot read '%s'", path);
	char *buf = NULL;
	size_t len = 0, cap = 0, got;
	do {
		xgrow((void **)&buf, &cap, len + 65536, 1);
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	int bad = ferror(f);
	if (f != stdin)
		fclose(f);
	if (bad) {
		free(buf);
		return err_sys(e, "cannot read '%s'", path);
	}
	size_t pos = 0, vcap = 0, line = 1, index = 0;
	int rc = 0;
	for (;;) {
		while (pos < len && strchr(" \t\r\n", buf[pos])) {
			line += buf[pos] == '\n';
			pos++;
		}
		if (pos == len)
			break;
		json_error_t je;
		json_t *v = json_loadb(buf + pos, len - pos,
				       JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
		index++;
		if (!v) {
			rc = err_set(e, "cannot read '%s': %s (line %zu)", path, je.text,
				     line + (size_t)(je.line > 0 ? je.line - 1 : 0));
			break;
		}
		for (size_t k = 0; k < (size_t)je.position && pos + k < len; k++)
			line += buf[pos + k] == '\n';
		pos += (size_t)je.position;
		if (jsonio_take(v, out, n, &vcap)) {
			rc = err_set(e, "cannot read '%s': value %zu is not a perfhunt record (not a JSON "
				     "object)", path, index);
			break;
		}
	}
	free(buf);
	if (rc == 0 && *n == 0)
		rc = err_set(e, "cannot read '%s': no record in it", path);
	if (rc) {
		jsonio_values_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
