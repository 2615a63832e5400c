/* probe: the parser of probe lines, `PREFIX: key=value ...`.
 *
 * A program reports its own phases by printing such lines on stdout/stderr
 * or writing them to $PERFHUNT_FD. The parser is strict about what it keeps
 * (keys and values are printable ASCII, numbers are plain decimals) and never
 * trusts the bytes: any input, binary or huge, gives 0 or a well-formed probe.
 * A probe owns one copy of the line; its keys and values point into it.
 */
#ifndef PERFHUNT_PROBE_PROBE_H
#define PERFHUNT_PROBE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include "probe/structlog.h"
#include "util/err.h"

/* Longest prefix, lane key and field key accepted, in bytes. */
#define PROBE_NAME_MAX 64
/* Longest duration accepted (about 31 years); a longer one is a broken probe. */
#define PROBE_DURATION_MAX_MS 1e12

struct probe_config {
	char **prefixes;
	size_t n_prefixes, cap_prefixes;
	char **lane_keys;
	size_t n_lane_keys, cap_lane_keys;
};

/* Fills c with the default prefixes (PERFHUNT, CUZK_TIMING) and lane keys
 * (gpu_tid, tid, worker). */
void probe_config_init(struct probe_config *c);
void probe_config_release(struct probe_config *c);
/* Adds a prefix (--probe): 1..64 bytes of [A-Za-z0-9_.-]; a repeat is ignored. */
int probe_config_add_prefix(struct probe_config *c, const char *prefix, struct err *e);
/* Adds a lane key (--lane-key), same character rules as a prefix. */
int probe_config_add_lane_key(struct probe_config *c, const char *key, struct err *e);

enum probe_kind {
	PROBE_VALUE,    /* any other key: a number or a word */
	PROBE_DURATION, /* key ends _ns _us _ms _s; scaled is in ms */
	PROBE_SIZE,     /* key ends _bytes _kb _mib _gib; scaled is in bytes */
};

struct probe_field {
	const char *key;   /* as written, e.g. "pin_abc_ms" */
	const char *text;  /* the value as written, e.g. "5733" */
	enum probe_kind kind;
	bool numeric;      /* text is a decimal number; always true for durations and sizes */
	double value;      /* the number as written (numeric only) */
	double scaled;     /* durations in ms, sizes in bytes, otherwise == value */
	size_t unit_len;   /* length of the unit suffix ("_ms" = 3), 0 for values */
};

struct probe {
	const char *prefix;        /* points into buf */
	struct probe_field *fields;
	size_t n_fields;
	size_t ignored;            /* tokens that were not a usable key=value */
	int lane;                  /* index of the first lane-key field, -1 if none */
	char *buf;                 /* owns every string above */
	size_t buf_len;
	/* a structured log record's own time field, as written ("" when none) */
	char time[STRUCTLOG_TIME_MAX];
};

/* probe_parse_line's answer for a line that names a prefix but holds no
 * usable key=value pair: counted and reported, never silently dropped. */
#define PROBE_UNPARSED (-1)

/* Returns 1 and fills out (release it with probe_release) when line[0..n) is
 * a probe line: a configured prefix followed by ':' anywhere in the line, at a
 * word boundary (so a logger's timestamp, level and module path may come
 * first: "... INFO cuzk::prover: CUZK_TIMING: a_ms=1"), then blank-separated
 * key=value tokens, at least one of them usable. A JSON-lines or logfmt
 * record is read through its message field (structlog.h): the prefix must be
 * in the message, the record's plain fields follow the message's, and its
 * time field is kept in out->time. ANSI escape sequences are ignored
 * wherever they are; a trailing CR is ignored. Returns PROBE_UNPARSED,
 * with out empty, when the prefix is there but no pair is usable, and 0, with
 * out empty, for any other bytes. */
int probe_parse_line(const struct probe_config *c, const char *line, size_t n, struct probe *out);
/* Like probe_parse_line for a line read from $PERFHUNT_FD: the prefix, when
 * written, starts the line (after blanks), and may be left out ("begin=load");
 * such a probe gets the prefix "PERFHUNT". A non-blank line without a usable
 * pair is PROBE_UNPARSED. */
int probe_parse_fd_line(const struct probe_config *c, const char *line, size_t n, struct probe *out);
/* Copies line[0..n) to out without its ANSI escape sequences (CSI such as
 * colours, OSC up to BEL or ST, two-byte escapes; an unfinished one at the
 * end is dropped). out has room for n bytes; returns the length written. */
size_t probe_strip_ansi(const char *line, size_t n, char *out);
/* Deep copy; dst is owned by the caller. */
void probe_copy(struct probe *dst, const struct probe *src);
void probe_release(struct probe *p);

/* True when s[0..len) is a usable prefix, lane key or field key:
 * 1..PROBE_NAME_MAX bytes of [A-Za-z0-9_.-]. */
bool probe_name_ok(const char *s, size_t len);
/* Kind of a key by its suffix; *unit_len gets the suffix length and *scale
 * the factor to ms (durations) or bytes (sizes). */
enum probe_kind probe_key_kind(const char *key, size_t len, size_t *unit_len, double *scale);
/* Index of the field named key in p, -1 if none. */
int probe_find(const struct probe *p, const char *key);

#endif
