/* Shared by the ember command's subcommands: messages, numbers, output. */
#ifndef EMBER_CLI_H
#define EMBER_CLI_H

#include <stdio.h>

#include "ember.h"

/* Every subcommand: argv[0] is its name (or the link's); preset is what
 * the command table or a FlameGraph-named link asks for (the format of
 * `collapse`, "compat" for flamegraph.pl/difffolded.pl), else NULL. */
typedef int (*cmd_fn)(int argc, char **argv, const char *preset);

int cmd_flamegraph(int argc, char **argv, const char *preset);
int cmd_collapse(int argc, char **argv, const char *preset);
int cmd_diff(int argc, char **argv, const char *preset);
int cmd_record(int argc, char **argv, const char *preset);

/* A command's options exactly as its getopt_long call reads them: v
 * (CLI_OPTS_MAX entries) gets its long options, NULL-terminated; returns
 * its short options.  `ember __options CMD` prints them, and the man pages'
 * and shell completions' tests and generators read that. */
struct option;
typedef const char *(*cmd_opts_fn)(struct option *v);
const char *cmd_flamegraph_options(struct option *v);
const char *cmd_collapse_options(struct option *v);
const char *cmd_diff_options(struct option *v);
const char *cmd_record_options(struct option *v);
/* The formats `ember collapse` takes, as ember_collapse_format and then
 * "guess"; NULL past the last. */
const char *cmd_collapse_format(size_t i, const char **summary);
/* Copies the NULL-terminated own into v (CLI_OPTS_MAX entries). */
void cli_longopts_copy(struct option *v, const struct option *own);

/* "ember: <message>" on stderr; cli_warn adds "warning: ". */
void cli_error(const char *fmt, ...) EMBER_PRINTF(1, 2);
void cli_warn(const char *fmt, ...) EMBER_PRINTF(1, 2);
/* "ember: <message>", information rather than a warning. */
void cli_note(const char *fmt, ...) EMBER_PRINTF(1, 2);
/* Writes s with its control bytes escaped (\n, \t, \r, \xNN): every
 * message goes through it. */
void cli_put_escaped(FILE *f, const char *s, size_t n);
/* Prints the message and a pointer to `ember CMD -h`; returns 2. */
int cli_usage(const char *cmd, const char *fmt, ...) EMBER_PRINTF(2, 3);
/* After getopt returned '?' or ':': says which option was wrong (the short
 * options in with_value take a value); returns 2. */
int cli_bad_option(const char *cmd, char **argv, const char *with_value);
/* The library's log callback: warnings to stderr unless quiet. */
void cli_log(int level, const char *msg, void *ctx);
extern int cli_verbose; /* -1 quiet, 0 normal, 1+ verbose */

/* Strict number parsing: the whole string, finite; 0 or -1. */
int cli_double(const char *s, double *out);
int cli_long(const char *s, long min, long max, long *out);

/* Where a command writes (-o), all in output.c: standard output for none
 * or "-"; /dev/stdout, /dev/stderr and /dev/fd/N are those descriptors;
 * a symlink is followed; devices and FIFOs are written directly; a regular
 * file is written under a temporary name beside it (O_EXCL) and renamed
 * over it only on success, keeping the old file's mode and owner. */
struct cli_out {
	FILE *f;
	char *path;   /* as given, for messages; NULL for standard output */
	char *target; /* the file it names once links are followed */
	char *tmp;    /* the temporary file, NULL when written directly */
};
/* Opens the output; 0, or 1 after printing why. */
int cli_out_open(struct cli_out *o, const char *path);
/* Flushes and checks for write errors; when ok, commits (renames into
 * place), else abandons a temporary file so that the old file stays.
 * Returns 0, or 1 when !ok or after printing why it failed. */
int cli_out_close(struct cli_out *o, int ok);
/* Removes the temporary file of an output being written; for a signal
 * handler that ends the command (async-signal-safe). */
void cli_out_signal_cleanup(void);
/* Whether a failed command's output stays anyway (it goes to a stream,
 * not a file that an error must not replace). */
int cli_out_is_stream(const struct cli_out *o);

/* --open (open.c): shows the file at path, written, in a browser
 * ($BROWSER, else xdg-open where there is a display, else its file://
 * URL on stderr), without waiting for it. */
void cli_open(const char *path);
/* Whether --open may go with this output, written as `as` (CLI_*): 0, or
 * 2 after a usage message. */
int cli_open_check(const char *cmd, const char *output, int as);

/* What a command writes (output.c). */
enum {
	CLI_FOLDED,
	CLI_SVG,
	CLI_PPROF,
	CLI_SPEEDSCOPE,
	CLI_HTML,
	CLI_CHROME,	/* trace events with CPU samples per thread */
	CLI_CPUPROFILE, /* Chrome's .cpuprofile: one profile */
	CLI_FIREFOX,	/* the Firefox Profiler's processed format */
	CLI_PERFSCRIPT, /* perf script's text */
	CLI_NFORMATS
};
#define CLI_ALL_FORMATS ((1u << CLI_NFORMATS) - 1)
/* The formats that keep samples in time order, with their threads: the
 * sample-level profile is kept for them (and pprof). */
#define CLI_TIMED_FORMATS                                                      \
	(1u << CLI_SPEEDSCOPE | 1u << CLI_CHROME | 1u << CLI_CPUPROFILE |      \
	 1u << CLI_FIREFOX | 1u << CLI_PERFSCRIPT)
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* The format --format names (one of the allowed, a mask of 1 << CLI_*),
 * else the one -o's extension names (.folded, .svg, .pb.gz,
 * .speedscope.json, .html), else dflt, in *out; 0, or 2 after a usage message.
 */
int cli_format_pick(const char *cmd, const char *format, const char *output,
		    unsigned allowed, int dflt, int *out);
/* The format a file name's extension names, whatever the command; -1 for
 * none. */
int cli_format_of(const char *path);
/* The default extension of a format (".pb.gz"...). */
const char *cli_format_ext(int f);
/* The formats allowed as "a|b|c", into b. */
void cli_format_names(struct ember_buf *b, unsigned allowed);
const char *cli_format_name(int f);
/* An ember_write_fn appending to a struct ember_buf. */
int cli_buf_write(void *ctx, const void *p, size_t n);
/* Writes in format: folded text as it is or drawn as a flame graph, SVG
 * or the HTML viewer (fo:
 * its options, NULL: the defaults), or the profile p as pprof or
 * speedscope.  0 or an EMBER_E* code. */
int cli_write_as(FILE *f, int format, const char *folded, size_t len,
		 const struct ember_profile *p,
		 const struct ember_fg_options *fo);

/* The flame graph's options, one table and one parser (fgopts.c) for
 * every command that draws.  cli_fg_longopts: v (CLI_OPTS_MAX entries)
 * gets the command's own long options followed by the flame graph's
 * (--flamechart and --negate only for input_order, a command that draws
 * its input as given); their values start at CLI_FG_OPT.  cli_fg_option: 1 when
 * c is one of them, applied to o, 0 when it is not, or 2 after a usage message
 * on a bad value.  cli_fg_check, once the options are read: warns of an
 * unknown palette; 0, or 2 after a usage message (--bgcolors). */
#define CLI_FG_OPT   1024
#define CLI_OPTS_MAX 96
struct option;
void cli_fg_longopts(struct option *v, const struct option *own,
		     int input_order);
int cli_fg_option(const char *cmd, int c, const char *arg,
		  struct ember_fg_options *o);
int cli_fg_check(const char *cmd, const struct ember_fg_options *o);
/* The i-th palette --colors knows, NULL past the last. */
const char *cli_fg_palette(size_t i);
/* The option value of inferno-flamegraph's -c (--colors), -i (--inverted). */
int cli_fg_short(int c);

/* Whether standard error is a terminal (for progress lines). */
int cli_stderr_tty(void);

#endif
