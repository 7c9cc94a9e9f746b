/* ember diff: not built yet. */
#include "cli.h"

int cmd_diff(int argc, char **argv, const char *preset)
{
	(void)argc;
	(void)argv;
	(void)preset;
	cli_error("'diff' is not available in this build yet");
	return 1;
}
