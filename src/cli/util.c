/* Messages, number parsing and safe output for the subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

int cli_verbose;

void cli_put_escaped(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c != 0x7f)
			putc(c, f);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\r')
			fputs("\\r", f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

/* Messages quote file names and input lines: their control bytes are
 * escaped, so that no input can move the cursor or retitle a terminal. */
static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	struct ember_buf b = EMBER_BUF_INIT;

	fflush(stdout);
	ember_buf_vaddf(&b, fmt, ap);
	fputs("ember: ", stderr);
	fputs(prefix, stderr);
	cli_put_escaped(stderr, b.buf, b.len);
	fputc('\n', stderr);
	ember_buf_release(&b);
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	if (cli_verbose < 0)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg("", fmt, ap);
	va_end(ap);
	fprintf(stderr, "see 'ember %s -h' for the options\n", cmd);
	return 2;
}

int cli_bad_option(const char *cmd, char **argv, const char *with_value)
{
	if (optopt && optopt < 256 && optopt != '?')
		return cli_usage(cmd, "option '-%c' %s", optopt,
				 strchr(with_value, optopt) ? "needs a value"
							    : "is unknown");
	return cli_usage(cmd,
			 "option '%s' is unknown, ambiguous or needs a "
			 "value",
			 argv[optind - 1]);
}

void cli_log(int level, const char *msg, void *ctx)
{
	(void)ctx;
	if (level == EMBER_LOG_PROGRESS) {
		/* in place, on a terminal only: a log file gets the notice */
		if (cli_verbose < 0 || !cli_stderr_tty())
			return;
		fputs("\r", stderr);
		if (*msg) {
			fputs("ember: ", stderr);
			cli_put_escaped(stderr, msg, strlen(msg));
		}
		fputs("\033[K", stderr);
		fflush(stderr);
	} else if (level == EMBER_LOG_NOTICE) {
		if (cli_verbose >= 0)
			cli_note("%s", msg);
	} else if (level == EMBER_LOG_ERROR)
		cli_error("%s", msg);
	else if (level == EMBER_LOG_WARN)
		cli_warn("%s", msg);
	else if (cli_verbose >= level - EMBER_LOG_WARN)
		cli_note("%s", msg);
}

int cli_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	double v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int cli_long(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_stderr_tty(void)
{
	return isatty(2);
}
