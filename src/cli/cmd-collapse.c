/* ember collapse: not built yet. */
#include "cli.h"

int cmd_collapse(int argc, char **argv, const char *preset)
{
	(void)argc;
	(void)argv;
	(void)preset;
	cli_error("'collapse' is not available in this build yet");
	return 1;
}
