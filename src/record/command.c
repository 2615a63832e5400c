/* command: a record's "command" as one line a POSIX shell would accept.
 *
 * Records keep the command as the argv array it was exec'd with; people read
 * it as a shell line. Words are quoted only where a shell needs it
 * (util/quote.c), so the common case reads as it was typed and the rare one
 * pastes back exactly; the bytes are kept as they are (stored text, files).
 */
#include "record/command.h"

#include <stdlib.h>

#include "util/quote.h"
#include "util/xalloc.h"

char *command_text(const json_t *cmd)
{
	if (json_is_string(cmd))
		return xstrdup(json_string_value(cmd));
	if (!json_is_array(cmd) || json_array_size(cmd) == 0)
		return NULL;
	struct quote_line line = { 0 };
	size_t i;
	json_t *w;
	json_array_foreach((json_t *)cmd, i, w) {
		if (!json_is_string(w)) {
			free(line.s);
			return NULL;
		}
		quote_shell(&line, json_string_value(w), false);
	}
	return line.s;
}
