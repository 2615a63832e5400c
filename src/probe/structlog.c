/* structlog: unwraps JSON-lines and logfmt records into probe lines.
 *
 * Only a line that already names a probe prefix gets here, so the cost of a
 * full decode (jansson for JSON, one pass for logfmt) is paid per probe, not
 * per log line. The answer is a plain line the probe parser reads as any
 * other: the message first, then the record's usable fields as key=value.
 */
#include "probe/structlog.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/probe.h"
#include "util/xalloc.h"

/* The logger's own fields: never values of a probe. */
static const char *const logger_keys[] = {
	"level", "lvl", "severity", "levelname", "levelno", "target", "logger", "logger_name",
	"name", "caller", "hostname", "pid", "v", "module", "filename", "funcName", "lineno",
	"pathname", "source", "@version", "stacktrace", "line_number", "log.level",
};
static const char *const message_keys[] = { "message", "msg" };
static const char *const time_keys[] = { "timestamp", "ts", "time", "@timestamp", "asctime" };

#define COUNT(a) (sizeof(a) / sizeof(*(a)))

static int key_in(const char *key, size_t len, const char *const *keys, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(keys[i]) == len && !memcmp(keys[i], key, len))
			return (int)i;
	return -1;
}

struct text {
	char *p;
	size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
	xgrow((void **)&t->p, &t->cap, t->len + n + 1, 1);
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

/* A message: line breaks and tabs become blanks, so a multi-line message is one line. */
static void put_message(struct text *t, const char *s, size_t n)
{
	size_t from = t->len;
	put(t, s, n);
	for (size_t i = from; i < t->len; i++)
		if (t->p[i] == '\n' || t->p[i] == '\r' || t->p[i] == '\t')
			t->p[i] = ' ';
}

/* " key=value" when both make one probe word; otherwise nothing. */
static void put_field(struct text *t, const char *key, size_t klen, const char *val, size_t vlen)
{
	if (!probe_name_ok(key, klen) || !vlen)
		return;
	for (size_t i = 0; i < vlen; i++)
		if ((unsigned char)val[i] < 0x21 || (unsigned char)val[i] > 0x7e || val[i] == '"')
			return;
	put(t, " ", 1);
	put(t, key, klen);
	put(t, "=", 1);
	put(t, val, vlen);
}

static void set_time(struct structlog_record *r, const char *s, size_t n)
{
	if (n < sizeof(r->time)) {
		memcpy(r->time, s, n);
		r->time[n] = '\0';
	}
}

/* ---- JSON lines ---- */

/* A scalar as one word: strings as they are, numbers as decimals. 0 if none. */
static size_t json_word(json_t *v, char *buf, size_t size, const char **out)
{
	int n = -1;
	switch (json_typeof(v)) {
	case JSON_STRING:
		*out = json_string_value(v);
		return json_string_length(v);
	case JSON_INTEGER:
		n = snprintf(buf, size, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		break;
	case JSON_REAL:
		n = snprintf(buf, size, "%.15g", json_real_value(v));
		break;
	case JSON_TRUE:
	case JSON_FALSE:
		n = snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
		break;
	default:
		return 0;
	}
	*out = buf;
	return n > 0 && (size_t)n < size ? (size_t)n : 0;
}

static void json_time(struct structlog_record *r, json_t *v)
{
	char buf[64];
	int n = -1;
	if (json_is_string(v)) {
		set_time(r, json_string_value(v), json_string_length(v));
		return;
	}
	if (json_is_integer(v))
		n = snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		n = snprintf(buf, sizeof(buf), "%.6f", json_real_value(v)); /* zap: epoch seconds */
	if (n > 0 && (size_t)n < sizeof(buf))
		set_time(r, buf, (size_t)n);
}

/* The message text: "message"/"msg" at the top, or tracing's fields.message. */
static json_t *json_message(json_t *o)
{
	for (size_t i = 0; i < COUNT(message_keys); i++) {
		json_t *m = json_object_get(o, message_keys[i]);
		if (json_is_string(m))
			return m;
	}
	json_t *fields = json_object_get(o, "fields");
	return json_is_object(fields) ? json_message(fields) : NULL;
}

static void json_fields(struct structlog_record *r, struct text *t, json_t *o, json_t *msg)
{
	const char *key;
	json_t *v;
	json_object_foreach(o, key, v) {
		size_t klen = strlen(key);
		if (v == msg || key_in(key, klen, logger_keys, COUNT(logger_keys)) >= 0)
			continue;
		if (key_in(key, klen, time_keys, COUNT(time_keys)) >= 0) {
			if (!r->time[0])
				json_time(r, v);
			continue;
		}
		if (!strcmp(key, "fields") && json_is_object(v)) {
			json_fields(r, t, v, msg);
			continue;
		}
		if (!strcmp(key, "span") && json_is_object(v))
			v = json_object_get(v, "name"); /* tracing: the current span */
		char buf[64];
		const char *word = NULL;
		size_t wlen = v ? json_word(v, buf, sizeof(buf), &word) : 0;
		if (wlen)
			put_field(t, key, klen, word, wlen);
	}
}

static bool unwrap_json(const char *line, size_t n, struct structlog_record *r)
{
	json_t *o = json_loadb(line, n, 0, NULL);
	json_t *msg = json_is_object(o) ? json_message(o) : NULL;
	if (!msg) {
		json_decref(o);
		return false;
	}
	struct text t = { 0 };
	put_message(&t, json_string_value(msg), json_string_length(msg));
	r->msg_len = t.len;
	json_fields(r, &t, o, msg);
	json_decref(o);
	r->text = t.p;
	r->len = t.len;
	return true;
}

/* ---- logfmt ---- */

struct pair {
	const char *key;
	size_t klen;
	size_t at, len; /* the value, decoded, in the pairs' text */
};

/* One value at *pp: bare up to a blank, or "quoted" with Go's escapes undone. */
static bool logfmt_value(const char **pp, const char *end, struct text *vals)
{
	const char *p = *pp;
	if (p >= end || *p != '"') {
		const char *s = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		put(vals, s, (size_t)(p - s));
		*pp = p;
		return true;
	}
	for (p++; p < end && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < end) { /* \uXXXX and the like stay as written */
			char nx = p[1];
			char ch = nx == 'n' ? '\n' : nx == 't' ? '\t' : nx == 'r' ? '\r' :
				  nx == '"' || nx == '\\' ? nx : 0;
			if (ch) {
				put(vals, &ch, 1);
				p++;
				continue;
			}
		}
		put(vals, p, 1);
	}
	if (p >= end)
		return false; /* an unterminated quote */
	*pp = p + 1;
	return true;
}

static bool unwrap_logfmt(const char *line, size_t n, struct structlog_record *r)
{
	const char *p = line, *end = line + n;
	struct pair *pairs = NULL;
	size_t np = 0, cap = 0;
	struct text vals = { 0 };
	int msg = -1;
	bool ok = true;
	while (ok) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p >= end)
			break;
		const char *k = p;
		while (p < end && *p != '=' && *p != '"' && (unsigned char)*p > 0x20)
			p++;
		if (p == k || p >= end || *p != '=') {
			ok = false;
			break;
		}
		xgrow((void **)&pairs, &cap, np + 1, sizeof(*pairs));
		struct pair *q = &pairs[np];
		q->key = k;
		q->klen = (size_t)(p - k);
		q->at = vals.len;
		p++;
		ok = logfmt_value(&p, end, &vals) && (p >= end || *p == ' ' || *p == '\t' || *p == '\r');
		q->len = vals.len - q->at;
		if (msg < 0 && key_in(k, q->klen, message_keys, COUNT(message_keys)) >= 0)
			msg = (int)np;
		np++;
	}
	if (ok && msg >= 0) {
		struct text t = { 0 };
		put_message(&t, vals.p + pairs[msg].at, pairs[msg].len);
		r->msg_len = t.len;
		for (size_t i = 0; i < np; i++) {
			const struct pair *q = &pairs[i];
			if ((int)i == msg || key_in(q->key, q->klen, logger_keys, COUNT(logger_keys)) >= 0)
				continue;
			if (key_in(q->key, q->klen, time_keys, COUNT(time_keys)) >= 0) {
				if (!r->time[0])
					set_time(r, vals.p + q->at, q->len);
				continue;
			}
			put_field(&t, q->key, q->klen, vals.p + q->at, q->len);
		}
		r->text = t.p;
		r->len = t.len;
	}
	free(pairs);
	free(vals.p);
	return ok && msg >= 0;
}

bool structlog_unwrap(const char *line, size_t n, struct structlog_record *r)
{
	memset(r, 0, sizeof(*r));
	while (n && (*line == ' ' || *line == '\t')) /* leading blanks */
		line++, n--;
	if (!n)
		return false;
	bool ok = *line == '{' ? unwrap_json(line, n, r) : unwrap_logfmt(line, n, r);
	if (!ok)
		memset(r, 0, sizeof(*r));
	return ok;
}
