/* probe: parses `PREFIX: key=value ...` lines into typed fields.
 *
 * One pass over the line, one copy of it (keys and values are cut in place
 * with NULs) and one array of fields: a chatty program costs two allocations
 * per probe line and nothing per ordinary line. Every byte is checked, so the
 * parser accepts any input; what it keeps is printable ASCII, safe for JSON.
 */
#include "probe/probe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static const char *const default_prefixes[] = { "PERFHUNT", "CUZK_TIMING" };
static const char *const default_lane_keys[] = { "gpu_tid", "tid", "worker" };

static bool name_char(unsigned char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == '-';
}

bool probe_name_ok(const char *s, size_t len)
{
	if (len == 0 || len > PROBE_NAME_MAX)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char((unsigned char)s[i]))
			return false;
	return true;
}

static bool list_has(char *const *list, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !memcmp(list[i], s, len))
			return true;
	return false;
}

static int list_add(char ***list, size_t *n, size_t *cap, const char *s,
		    const char *what, struct err *e)
{
	size_t len = s ? strlen(s) : 0;
	if (!probe_name_ok(s, len))
		return err_set(e, "%s '%s': use 1 to %d letters, digits, '_', '.' or '-'",
			       what, s ? s : "", PROBE_NAME_MAX);
	if (list_has(*list, *n, s, len))
		return 0;
	xgrow((void **)list, cap, *n + 1, sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
	return 0;
}

void probe_config_init(struct probe_config *c)
{
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < sizeof(default_prefixes) / sizeof(*default_prefixes); i++)
		probe_config_add_prefix(c, default_prefixes[i], NULL);
	for (size_t i = 0; i < sizeof(default_lane_keys) / sizeof(*default_lane_keys); i++)
		probe_config_add_lane_key(c, default_lane_keys[i], NULL);
}

void probe_config_release(struct probe_config *c)
{
	for (size_t i = 0; i < c->n_prefixes; i++)
		free(c->prefixes[i]);
	for (size_t i = 0; i < c->n_lane_keys; i++)
		free(c->lane_keys[i]);
	free(c->prefixes);
	free(c->lane_keys);
	memset(c, 0, sizeof(*c));
}

int probe_config_add_prefix(struct probe_config *c, const char *prefix, struct err *e)
{
	return list_add(&c->prefixes, &c->n_prefixes, &c->cap_prefixes, prefix, "probe prefix", e);
}

int probe_config_add_lane_key(struct probe_config *c, const char *key, struct err *e)
{
	return list_add(&c->lane_keys, &c->n_lane_keys, &c->cap_lane_keys, key, "lane key", e);
}

static bool has_suffix(const char *key, size_t len, const char *suffix, size_t slen)
{
	/* the phase name before the suffix must not be empty */
	return len > slen && !memcmp(key + len - slen, suffix, slen);
}

enum probe_kind probe_key_kind(const char *key, size_t len, size_t *unit_len, double *scale)
{
	static const struct {
		const char *suffix;
		enum probe_kind kind;
		double scale;
	} units[] = {
		{ "_ns", PROBE_DURATION, 1e-6 },
		{ "_us", PROBE_DURATION, 1e-3 },
		{ "_ms", PROBE_DURATION, 1 },
		{ "_s", PROBE_DURATION, 1000 },
		{ "_bytes", PROBE_SIZE, 1 },
		{ "_kb", PROBE_SIZE, 1024 },
		{ "_mib", PROBE_SIZE, 1048576 },
		{ "_gib", PROBE_SIZE, 1073741824.0 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++) {
		size_t slen = strlen(units[i].suffix);
		if (has_suffix(key, len, units[i].suffix, slen)) {
			*unit_len = slen;
			*scale = units[i].scale;
			return units[i].kind;
		}
	}
	*unit_len = 0;
	*scale = 1;
	return PROBE_VALUE;
}

/* A plain decimal: [-+]digits[.digits][e[-+]digits] (or .digits); no hex,
 * no inf/nan, so "0x10" and "nan" stay words. */
static bool decimal(const char *s, double *out)
{
	const char *p = s;
	size_t digits = 0;
	if (*p == '-' || *p == '+')
		p++;
	while (*p >= '0' && *p <= '9')
		p++, digits++;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++, digits++;
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p)
		return false;
	double v = strtod(s, NULL);
	if (!isfinite(v))
		return false;
	*out = v;
	return true;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Fills f from the NUL-terminated token tok; false when it is not usable. */
static bool parse_token(const struct probe_config *c, char *tok, struct probe_field *f)
{
	char *eq = strchr(tok, '=');
	if (!eq || !probe_name_ok(tok, (size_t)(eq - tok)) || !eq[1])
		return false;
	for (const char *v = eq + 1; *v; v++)
		if ((unsigned char)*v < 0x21 || (unsigned char)*v > 0x7e)
			return false;
	*eq = '\0';
	f->key = tok;
	f->text = eq + 1;
	size_t klen = (size_t)(eq - tok);
	double scale = 1;
	f->kind = probe_key_kind(tok, klen, &f->unit_len, &scale);
	if (list_has(c->lane_keys, c->n_lane_keys, tok, klen)) {
		f->kind = PROBE_VALUE;
		f->unit_len = 0;
		scale = 1;
	}
	f->numeric = decimal(f->text, &f->value);
	if (f->kind != PROBE_VALUE && (!f->numeric || f->value < 0)) {
		*eq = '=';
		return false;
	}
	f->scaled = f->numeric ? f->value * scale : 0;
	if (!isfinite(f->scaled) || (f->kind == PROBE_DURATION && f->scaled > PROBE_DURATION_MAX_MS)) {
		*eq = '=';
		return false;
	}
	return true;
}

size_t probe_strip_ansi(const char *in, size_t n, char *out)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char ch = (unsigned char)in[i];
		if (ch != 0x1b) {
			out[w++] = (char)ch;
			i++;
			continue;
		}
		if (++i >= n)
			break;
		ch = (unsigned char)in[i++];
		if (ch == '[') {
			/* CSI: parameters and intermediates up to a final byte 0x40..0x7e */
			while (i < n && (unsigned char)in[i] >= 0x20 && (unsigned char)in[i] <= 0x3f)
				i++;
			if (i < n && (unsigned char)in[i] >= 0x40 && (unsigned char)in[i] <= 0x7e)
				i++;
		} else if (ch == ']' || ch == 'P' || ch == 'X' || ch == '^' || ch == '_') {
			/* OSC and the other strings: up to BEL or ST (ESC backslash) */
			while (i < n && in[i] != '\a' && !(in[i] == 0x1b && i + 1 < n && in[i + 1] == '\\'))
				i++;
			i += i < n ? (in[i] == '\a' ? 1 : 2) : 0;
		} else {
			/* a two-byte escape, or intermediates then a final byte ("ESC ( B") */
			while (ch >= 0x20 && ch <= 0x2f && i < n)
				ch = (unsigned char)in[i++];
		}
	}
	return w;
}

/* Where the first configured prefix followed by ':' begins in line[0..n),
 * at a word boundary (not glued to a name character before it); *which gets
 * the prefix. Returns n when there is none. Only the line's colons are
 * looked at, so an ordinary line costs one memchr per ':' in it. */
static size_t find_anchor(const struct probe_config *c, const char *line, size_t n,
			  const char **which, size_t *plen)
{
	const char *p = line, *end = line + n;
	while ((p = memchr(p, ':', (size_t)(end - p))) != NULL) {
		size_t colon = (size_t)(p - line);
		for (size_t k = 0; k < c->n_prefixes; k++) {
			size_t len = strlen(c->prefixes[k]);
			if (len > colon || memcmp(line + colon - len, c->prefixes[k], len))
				continue;
			size_t at = colon - len;
			if (at && name_char((unsigned char)line[at - 1]))
				continue;
			*which = c->prefixes[k];
			*plen = len;
			return at;
		}
		p++;
	}
	return n;
}

/* How parse_clean reads a line: a stream's (any log format), our
 * descriptor's (prefix optional), or a structured record's message. */
enum line_kind { LINE_STREAM, LINE_FD, LINE_RECORD };

static int parse_clean(const struct probe_config *c, const char *line, size_t n,
		       struct probe *out, enum line_kind kind);

/* A stream line that holds a prefix and is a JSON or logfmt record: the
 * probe is its message's, with the record's fields and time. */
static int parse_record(const struct probe_config *c, const struct structlog_record *r,
			struct probe *out)
{
	const char *prefix = NULL;
	size_t plen = 0;
	if (find_anchor(c, r->text, r->msg_len, &prefix, &plen) >= r->msg_len)
		return 0; /* the prefix was in another field, not the message */
	int ret = parse_clean(c, r->text, r->len, out, LINE_RECORD);
	if (ret == 1)
		memcpy(out->time, r->time, sizeof(out->time));
	return ret;
}

static int parse_clean(const struct probe_config *c, const char *line, size_t n,
		       struct probe *out, enum line_kind kind)
{
	while (n && line[n - 1] == '\r')
		n--;
	size_t i = 0;
	while (i < n && blank(line[i]))
		i++;
	const char *prefix = NULL;
	size_t plen = 0;
	if (kind == LINE_FD) {
		/* our own descriptor: a prefix only at the start, and optional */
		for (size_t k = 0; k < c->n_prefixes; k++) {
			size_t len = strlen(c->prefixes[k]);
			if (n - i > len && line[i + len] == ':' && !memcmp(line + i, c->prefixes[k], len)) {
				prefix = c->prefixes[k];
				plen = len;
				i += len + 1;
				break;
			}
		}
		if (!prefix) {
			if (i == n)
				return 0; /* a blank line */
			prefix = "PERFHUNT";
			plen = strlen(prefix);
		}
	} else {
		size_t at = find_anchor(c, line + i, n - i, &prefix, &plen);
		if (!prefix)
			return 0;
		struct structlog_record r;
		if (kind == LINE_STREAM && structlog_unwrap(line + i, n - i, &r)) {
			int ret = parse_record(c, &r, out);
			free(r.text);
			return ret;
		}
		i += at + plen + 1;
	}
	/* a line with no '=' after the prefix cannot hold a field: cheap exit */
	size_t body_len = n - i;
	const char *body = line + i;
	size_t n_eq = 0;
	for (size_t k = 0; k < body_len; k++)
		n_eq += body[k] == '=';
	if (!n_eq)
		return PROBE_UNPARSED;

	out->buf_len = plen + 1 + body_len + 1;
	out->buf = xmalloc(out->buf_len);
	memcpy(out->buf, prefix, plen);
	out->buf[plen] = '\0';
	char *b = out->buf + plen + 1;
	memcpy(b, body, body_len);
	b[body_len] = '\0';
	out->prefix = out->buf;
	out->fields = xmalloc(n_eq * sizeof(*out->fields));

	char *end = b + body_len;
	char *p = b;
	while (p < end) {
		while (p < end && blank(*p))
			p++;
		if (p >= end)
			break;
		char *tok = p;
		while (p < end && !blank(*p))
			p++;
		*p++ = '\0'; /* p may now be end + 1: the loop condition stops it */
		struct probe_field f;
		memset(&f, 0, sizeof(f));
		/* an embedded NUL ends the token early: the rest is not printable */
		if (strlen(tok) != (size_t)(p - 1 - tok) || !parse_token(c, tok, &f)) {
			out->ignored++;
			continue;
		}
		if (out->lane < 0 && list_has(c->lane_keys, c->n_lane_keys, f.key, strlen(f.key)))
			out->lane = (int)out->n_fields;
		out->fields[out->n_fields++] = f; /* each usable token holds an '=': n_fields <= n_eq */
	}
	if (!out->n_fields) {
		probe_release(out);
		return PROBE_UNPARSED;
	}
	return 1;
}

static int parse(const struct probe_config *c, const char *line, size_t n,
		 struct probe *out, enum line_kind kind)
{
	memset(out, 0, sizeof(*out));
	out->lane = -1;
	if (!line || !n)
		return 0;
	if (!memchr(line, 0x1b, n))
		return parse_clean(c, line, n, out, kind);
	/* colour sequences anywhere (a logger on a terminal): parse the line without them */
	char *clean = xmalloc(n);
	int r = parse_clean(c, clean, probe_strip_ansi(line, n, clean), out, kind);
	free(clean);
	return r;
}

int probe_parse_line(const struct probe_config *c, const char *line, size_t n, struct probe *out)
{
	return parse(c, line, n, out, LINE_STREAM);
}

int probe_parse_fd_line(const struct probe_config *c, const char *line, size_t n, struct probe *out)
{
	return parse(c, line, n, out, LINE_FD);
}

void probe_copy(struct probe *dst, const struct probe *src)
{
	*dst = *src;
	dst->buf = xmalloc(src->buf_len ? src->buf_len : 1);
	memcpy(dst->buf, src->buf, src->buf_len);
	dst->prefix = src->prefix ? dst->buf + (src->prefix - src->buf) : NULL;
	dst->fields = xmalloc((src->n_fields ? src->n_fields : 1) * sizeof(*dst->fields));
	for (size_t i = 0; i < src->n_fields; i++) {
		dst->fields[i] = src->fields[i];
		dst->fields[i].key = dst->buf + (src->fields[i].key - src->buf);
		dst->fields[i].text = dst->buf + (src->fields[i].text - src->buf);
	}
}

void probe_release(struct probe *p)
{
	free(p->buf);
	free(p->fields);
	memset(p, 0, sizeof(*p));
	p->lane = -1;
}

int probe_find(const struct probe *p, const char *key)
{
	for (size_t i = 0; i < p->n_fields; i++)
		if (!strcmp(p->fields[i].key, key))
			return (int)i;
	return -1;
}
