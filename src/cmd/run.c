/* run: perfhunt run [options] -- CMD [ARG...] (being written) */
#include "cmd/cmd.h"

int cmd_run(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return PH_EXIT_USAGE;
}
