/* command: a record's command as a shell line (see command.c). */
#ifndef PERFHUNT_COMMAND_H
#define PERFHUNT_COMMAND_H

#include <jansson.h>

/* The command as one line: an argv array's words joined by spaces,
 * shell-quoted where needed, a shell string as is; NULL when it is neither.
 * Caller frees. */
char *command_text(const json_t *command);

#endif
