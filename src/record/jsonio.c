/* jsonio: atomic JSON record files, schema-checked reads (jansson). */
#include "record/jsonio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

int jsonio_write_bytes(const char *path, const char *buf, size_t n, struct err *e)
{
	int to_stdout = !strcmp(path, "-");
	char *tmp = NULL;
	int fd;
	if (to_stdout) {
		fd = STDOUT_FILENO;
	} else {
		tmp = xasprintf("%s.tmp.XXXXXX", path);
		fd = mkostemp(tmp, O_CLOEXEC);
		if (fd < 0) {
			err_sys(e, "cannot create '%s'", path);
			free(tmp);
			return -1;
		}
		fchmod(fd, 0644);
	}
	size_t off = 0;
	while (off < n) {
		ssize_t w = write(fd, buf + off, n - off);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		off += (size_t)w;
	}
	if (to_stdout)
		return 0;
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
	if (!to_stdout) {
		if (fd >= 0)
			close(fd);
		unlink(tmp);
		free(tmp);
	}
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
			json_decref(v);
			return err_set(e, "cannot read '%s': schema is '%s', expected %s...", path,
				       schema ? schema : "(none)", schema_prefix);
		}
	}
	*out = v;
	return 0;
}
