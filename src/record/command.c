/* command: a record's "command" as one line a POSIX shell would accept.
 *
 * Records keep the command as the argv array it was exec'd with; people read
 * it as a shell line. Words are quoted only where a shell needs it, so the
 * common case reads as it was typed and the rare one pastes back exactly.
 */
#include "record/command.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* Appends word to *buf quoted for a POSIX shell, only when it needs it. */
static void quote_word(char **buf, size_t *len, size_t *cap, const char *word)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_@%+=:,./-";
	size_t wl = strlen(word);
	int plain = wl > 0 && strspn(word, safe) == wl;
	xgrow((void **)buf, cap, *len + 4 * wl + 4, 1);
	char *o = *buf + *len;
	if (*len)
		*o++ = ' ';
	if (plain) {
		memcpy(o, word, wl);
		o += wl;
	} else {
		*o++ = '\'';
		for (const char *p = word; *p; p++) {
			if (*p == '\'') {
				memcpy(o, "'\\''", 4);
				o += 4;
			} else {
				*o++ = *p;
			}
		}
		*o++ = '\'';
	}
	*o = '\0';
	*len = (size_t)(o - *buf);
}

char *command_text(const json_t *cmd)
{
	if (json_is_string(cmd))
		return xstrdup(json_string_value(cmd));
	if (!json_is_array(cmd) || json_array_size(cmd) == 0)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	size_t i;
	json_t *w;
	json_array_foreach((json_t *)cmd, i, w) {
		if (!json_is_string(w)) {
			free(buf);
			return NULL;
		}
		quote_word(&buf, &len, &cap, json_string_value(w));
	}
	return buf;
}

