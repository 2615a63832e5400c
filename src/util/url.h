/* url: the small URL chores shared by the Pushgateway client and the
 * PostgreSQL history — percent-encoding a path segment, base64url for values
 * that a path cannot carry, and hiding a password before a URL is printed.
 * No parser: libcurl and libpq read the URLs themselves.
 */
#ifndef PERFHUNT_URL_H
#define PERFHUNT_URL_H

#include <stddef.h>

/* s with every byte outside A-Z a-z 0-9 - . _ ~ as %XX. Caller frees. */
char *url_escape(const char *s);
/* s in base64url (RFC 4648 §5, '-' and '_', with '=' padding). Caller frees. */
char *url_base64url(const char *s, size_t n);
/* url with the password of its user information ("user:secret@") replaced by
 * "***", for messages; other URLs come back as they are. Caller frees. */
char *url_redact(const char *url);

#endif
