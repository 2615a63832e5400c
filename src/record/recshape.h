/* recshape: is a JSON value shaped like the perfhunt record its "schema" names?
 *
 * Readers (show, report) check a record once, here, before any printer sees
 * it, so a record edited by hand or by an attacker ("summary": "x", a number
 * where a name belongs) is one clear error naming the field, never "(null)"
 * or figures invented from missing members. Only types are checked: numbers
 * may be any finite value (the printers clamp what they cannot draw).
 */
#ifndef PERFHUNT_RECSHAPE_H
#define PERFHUNT_RECSHAPE_H

#include <jansson.h>

#include "util/err.h"

/* What a reader needs beyond the types of the members present. */
enum {
	RECSHAPE_SUMMARY = 1, /* a run record's "summary" (show prints it figure by figure) */
};

/* 0 when rec (perfhunt.run/1, .bench/1 or .compare/1; other schemas pass)
 * has the documented shape and the members need names; else -1 and e says
 * which field is wrong: "summary is a string, expected an object". */
int recshape_check(const json_t *rec, unsigned need, struct err *e);

#endif
