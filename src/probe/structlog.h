/* structlog: a probe line inside a structured log record.
 *
 * Loggers that write JSON lines (Rust tracing-subscriber, Go slog/zap,
 * Python json-logger, bunyan, pino) or logfmt (Go slog's text handler,
 * logrus) quote the message: the probe line is the message field's text with
 * its escapes undone, dated by the record's own time field, and the record's
 * other plain fields (threadId, span, ...) are more key=value words of it.
 */
#ifndef PERFHUNT_PROBE_STRUCTLOG_H
#define PERFHUNT_PROBE_STRUCTLOG_H

#include <stdbool.h>
#include <stddef.h>

/* Longest time field kept, with its NUL. */
#define STRUCTLOG_TIME_MAX 48

struct structlog_record {
	char *text;                      /* "MESSAGE key=value ...", owned */
	size_t len, msg_len;             /* all of text; the message at its start */
	char time[STRUCTLOG_TIME_MAX];   /* the time field as written ("" when none) */
};

/* Returns true and fills r (free r->text) when line[0..n) is one JSON object
 * or one logfmt record (every word key=value, a msg or message key among
 * them); false, with r empty, for any other bytes. Line breaks and tabs in
 * the message become blanks; fields whose key or value would not make one
 * key=value word (blanks, quotes, objects, arrays) are left out, as are the
 * logger's own (level, target, caller, ...); span is the span's name. */
bool structlog_unwrap(const char *line, size_t n, struct structlog_record *r);

#endif
