/* ember record: not built yet. */
#include "cli.h"

int cmd_record(int argc, char **argv, const char *preset)
{
	(void)argc;
	(void)argv;
	(void)preset;
	cli_error("'record' is not available in this build yet");
	return 1;
}
