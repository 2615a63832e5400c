/* url: percent-encoding, base64url and password redaction (see url.h). */
#include "util/url.h"

#include <string.h>

#include "util/xalloc.h"

char *url_escape(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(s);
	char *out = xmalloc(3 * n + 1), *o = out;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~') {
			*o++ = (char)*p;
		} else {
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		}
	}
	*o = '\0';
	return out;
}

char *url_base64url(const char *s, size_t n)
{
	static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const unsigned char *p = (const unsigned char *)s;
	char *out = xmalloc(4 * ((n + 2) / 3) + 1), *o = out;
	size_t i = 0;
	for (; i + 2 < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (unsigned)p[i + 1] << 8 | p[i + 2];
		*o++ = abc[v >> 18];
		*o++ = abc[(v >> 12) & 63];
		*o++ = abc[(v >> 6) & 63];
		*o++ = abc[v & 63];
	}
	if (i < n) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0);
		*o++ = abc[v >> 18];
		*o++ = abc[(v >> 12) & 63];
		*o++ = i + 1 < n ? abc[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = '\0';
	return out;
}

char *url_redact(const char *url)
{
	const char *auth = strstr(url, "://");
	if (!auth)
		return xstrdup(url);
	auth += 3;
	size_t span = strcspn(auth, "/?#");
	const char *at = memrchr(auth, '@', span);
	const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (!colon)
		return xstrdup(url);
	return xasprintf("%.*s:***%s", (int)(colon - url), url, at);
}
