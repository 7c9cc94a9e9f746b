/* ember collapse: profiler output (perf script, SystemTap, DTrace) in,
 * folded stacks out, as FlameGraph's stackcollapse-*.pl scripts do. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *cmd_collapse_format(size_t i, const char **summary)
{
	const char *name = ember_collapse_format(i, summary);
	size_t n = 0;

	if (name)
		return name;
	while (ember_collapse_format(n, NULL))
		n++;
	if (i != n)
		return NULL;
	if (summary)
		*summary = "detect the format from the first lines "
			   "(the default)";
	return "guess";
}

static void help_formats(FILE *f)
{
	const char *summary, *name;

	fprintf(f, "formats:\n");
	for (size_t i = 0; (name = cmd_collapse_format(i, &summary)); i++)
		fprintf(f, "  %-16s %s\n", name, summary);
	fprintf(f, "\n");
}

/* The options of the other formats (all with no format named): 1 if
 * any were listed. */
static int help_more(FILE *f, const char *format, int before)
{
	static const struct {
		const char *formats, *text;
	} opts[] = {
	    {" elfutils ", "elfutils (eu-stack):\n"
			   "  --pid, --tid         root frames PID=N, TID=N\n"},
	    {" jstack ibmjava ",
	     "jstack, ibmjava (Java thread dumps):\n"
	     "  --no-include-tname   no thread name root frame (the default: "
	     "--include-tname)\n"
	     "  --include-tid        keep the thread's -N (jstack) or native "
	     "ID (ibmjava)\n"
	     "                       (the default: --no-include-tid)\n"
	     "  --shorten-pkgs       com.example.Foo.m as c.e.Foo.m (and "
	     "java-exceptions)\n"
	     "                       (the default: --no-shorten-pkgs)\n"},
	    {" java-exceptions ", "java-exceptions:\n"
				  "  --shorten-pkgs, --no-pkgs  c.e.Foo.m, "
				  "Foo.m\n"},
	    {" perf-sched ",
	     "perf-sched (perf script of sched_switch, sched_stat_*), the awk "
	     "variables:\n"
	     "  -v record_tid=1      comm-PID frames\n"
	     "  -v record_wake_stack=1  the waker's stack and name too\n"
	     "  -v recurse=1         wakeup chains\n"},
	    {" sample ",
	     "sample (macOS):\n"
	     "  MODULES=0            no module` prefixes (an operand, "
	     "as for awk)\n"},
	    {" vtune-mc ", "vtune-mc:\n"
			   "  --size               bytes, not allocations\n"},
	    {" xdebug ", "xdebug:\n"
			 "  -t                   weight by time, in us (the "
			 "default)\n"
			 "  -c                   count calls\n"},
	    {" ghcprof ", "ghcprof:\n"
			  "  --time, --ticks, --bytes  the cost counted "
			  "(default: --time)\n"},
	    {" files ",
	     "files FOLDER... (disk usage):\n"
	     "  --xdev               stay on the first folder's file "
	     "system\n"},
	    {" range-perf ", "range-perf MIN MAX (perf script between MIN "
			     "and MAX seconds):\n"
			     "  --timeraw            perf's own clock\n"
			     "  --timezerosecs       from the first sample's "
			     "whole second\n"},
	};
	char key[48];
	int any = 0;

	snprintf(key, sizeof(key), " %s ", format ? format : "");
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (format && !strstr(opts[i].formats, key))
			continue;
		fprintf(f, "%s%s", before || any ? "\n" : "", opts[i].text);
		any = 1;
	}
	return any;
}

static void help(FILE *f, const char *prog, const char *format)
{
	int perf = !format || !strcmp(format, "perf");
	int dtrace = !format || !strcmp(format, "dtrace");

	if (format)
		fprintf(f, "usage: %s [OPTIONS] [FILE...] > out.folded\n\n",
			prog);
	else
		fprintf(f,
			"usage: %s [FORMAT] [OPTIONS] [FILE...] > "
			"out.folded\n\n",
			prog);
	fprintf(f, "Folds profiler output (from files, '-' or standard input, "
		   "compressed\n"
		   "(gzip, xz, zstd, bzip2) or not) into folded stacks, one "
		   "\"root;...;leaf\n"
		   "count\" line per distinct stack, sorted, for 'ember "
		   "flamegraph'.  Same\n"
		   "output as FlameGraph's stackcollapse scripts, many times "
		   "faster.\n\n");
	if (!format)
		help_formats(f);
	if (perf)
		fprintf(
		    f,
		    "perf (perf script output, or perf.data itself: file or "
		    "pipe mode):\n"
		    "  --pid                root frame comm-PID (perf script "
		    "-F+pid)\n"
		    "  --tid                root frame comm-PID/TID\n"
		    "  --kernel             annotate kernel frames with _[k]\n"
		    "  --jit                annotate JIT frames (perf-PID.map, "
		    "jitted-*.so)\n"
		    "                       with _[j]\n"
		    "  --all                both annotations\n"
		    "  --addrs              unknown symbols as [module "
		    "<address>]\n"
		    "  --event-filter=EV    count only events EV (default: the "
		    "first type seen)\n"
		    "  --inline             expand inlined calls from "
		    "debugging information\n"
		    "  --context            with --inline, add :file:line to "
		    "those frames\n"
		    "  --srcline            input from perf script -F+srcline: "
		    "add the source\n"
		    "                       line to each frame\n"
		    "  --skip-after=FUNC    make FUNC the root: drop its "
		    "callers and the\n"
		    "                       process name (repeatable)\n");
	if (dtrace)
		fprintf(f,
			"%sdtrace (DTrace stack() aggregations):\n"
			"  --includeoffset      keep the +0x offsets (but the "
			"leaf's)\n",
			perf ? "\n" : "");
	if (!format || !strcmp(format, "pprof"))
		fprintf(
		    f, "\npprof (profile.proto, gzip-compressed or not):\n"
		       "  --sample-type=TYPE   count this value (cpu, samples, "
		       "alloc_space, ...;\n"
		       "                       default: the profile's default, "
		       "else its last)\n"
		       "  --label=KEY          the samples' KEY label as the "
		       "root frame\n");
	if (!format || !strcmp(format, "cpuprofile"))
		fprintf(
		    f, "\ncpuprofile (Chrome DevTools, node --cpu-prof):\n"
		       "  --time               weights in microseconds, as "
		       "DevTools shows (the\n"
		       "                       default; an error where the "
		       "profile has no time)\n"
		       "  --samples            weights in samples, not time\n");
	int more = help_more(f, format, perf || dtrace);
	fprintf(
	    f,
	    "%s"
	    "  -o, --output FILE    write to FILE (default: standard output)\n"
	    "      --format FMT     folded (the default), svg, html, pprof, "
	    "speedscope,\n"
	    "                       chrome, cpuprofile, firefox or "
	    "perf-script; or by -o's\n"
	    "                       extension: .folded .svg .html .pb.gz "
	    ".speedscope.json\n"
	    "                       .trace.json .cpuprofile .firefox.json "
	    ".perf.txt.  Viewers:\n"
	    "                       go tool pprof, Pyroscope (pprof); "
	    "speedscope; Chrome\n"
	    "                       DevTools, Perfetto (chrome, cpuprofile); "
	    "profiler.firefox.com\n"
	    "                       (firefox, also chrome and perf-script)\n"
	    "      --open           once an SVG or HTML file is written, open "
	    "it\n"
	    "                       ($BROWSER, else xdg-open; with no "
	    "display, its\n"
	    "                       file:// URL on stderr)\n"
	    "  -j, --threads N      parse on N threads (default: one per CPU "
	    "for\n"
	    "                       large inputs); the output is the same, "
	    "but for\n"
	    "                       the last digits of sums held as floats "
	    "(fractional\n"
	    "                       counts, sums past 2^64), which -j 1 adds "
	    "in input\n"
	    "                       order, as Perl does\n"
	    "  -n, --nthreads N     the same (inferno's spelling; -n for "
	    "inferno-*)\n"
	    "  -q, --quiet          no warnings\n"
	    "  -v, --verbose        more messages (inferno-*: -v; else "
	    "perf-sched's\n"
	    "                       -v NAME=VALUE)\n"
	    "      --no-modules     sample, vtune: no \"module`\" before "
	    "names\n"
	    "  -h, --help           this help\n"
	    "%s"
	    "\nEXAMPLES\n",
	    perf || dtrace || more ? "\n" : "",
	    strncmp(prog, "inferno-", 8)
		? ""
		: "\nAs inferno's tool of this name (inferno 0.12): two-dash "
		  "options, -n, -q, -v;\n"
		  "perf and dtrace frames named as inferno names them (Rust "
		  "symbols that\n"
		  "perf or DTrace left half-mangled repaired; perf: "
		  "arguments cut at the\n"
		  "first '(', quotes kept, a last sample without its blank "
		  "line counted).\n");
	if (!format) {
		fprintf(f,
			"  %s perf.data | ember flamegraph > out.svg\n"
			"  perf record -g -o - -- ./prog | %s perf - > "
			"out.folded\n"
			"  perf script | %s perf > out.folded\n"
			"  %s perf --all --tid perf.txt.gz -o out.folded\n"
			"  %s out.stacks | ember flamegraph > out.svg      # "
			"format guessed\n"
			"  %s dtrace out.dtrace > out.folded\n",
			prog, prog, prog, prog, prog, prog);
	} else {
		fprintf(f,
			"  %s out.txt > out.folded\n"
			"  %s out.txt | ember flamegraph > out.svg\n",
			prog, prog);
		if (perf)
			fprintf(f,
				"  perf script | %s --all --pid > out.folded\n",
				prog);
	}
	if (!format || !strcmp(format, "perf-sched"))
		fprintf(
		    f, "  perf record -g -e 'sched:sched_switch' -e "
		       "'sched:sched_stat_sleep' -e 'sched:sched_stat_blocked' "
		       "-a -- sleep 1\n"
		       "  perf script | ember collapse perf-sched -v recurse=1 "
		       "| ember flamegraph --countname=us > offcpu.svg\n");
	if (!format || !strcmp(format, "range-perf"))
		fprintf(f, "  perf script | ember collapse range-perf 10 20 | "
			   "ember collapse perf > 10-20s.folded\n");
	if (!format || !strcmp(format, "files"))
		fprintf(f, "  ember collapse files --xdev / | ember flamegraph "
			   "--hash --countname=bytes > files.svg\n");
}

enum {
	O_PID = 256,
	O_TID,
	O_KERNEL,
	O_JIT,
	O_ALL,
	O_ADDRS,
	O_EVENT,
	O_INLINE,
	O_CONTEXT,
	O_SRCLINE,
	O_SKIP,
	O_INCLUDEOFFSET,
	/* jstack, ibmjava, java-exceptions */
	O_TNAME,
	O_NO_TNAME,
	O_JTID,
	O_NO_JTID,
	O_SHORTEN,
	O_NO_SHORTEN,
	O_NO_PKGS,
	/* vtune-mc */
	O_SIZE,
	/* ghcprof */
	O_GHC_TICKS,
	O_GHC_BYTES,
	/* files */
	O_XDEV,
	/* range-perf */
	O_TIMERAW,
	O_TIMEZERO,
	/* pprof, cpuprofile */
	O_SAMPLE_TYPE,
	O_LABEL,
	O_TIME,
	O_SAMPLES,
	O_FORMAT,
	O_NO_MODULES,
	O_VERBOSE,
	O_OPEN,
};

static const struct option longopts[] = {
    {"pid", no_argument, NULL, O_PID},
    {"tid", no_argument, NULL, O_TID},
    {"kernel", no_argument, NULL, O_KERNEL},
    {"jit", no_argument, NULL, O_JIT},
    {"all", no_argument, NULL, O_ALL},
    {"addrs", no_argument, NULL, O_ADDRS},
    {"event-filter", required_argument, NULL, O_EVENT},
    {"inline", no_argument, NULL, O_INLINE},
    {"context", no_argument, NULL, O_CONTEXT},
    {"srcline", no_argument, NULL, O_SRCLINE},
    {"skip-after", required_argument, NULL, O_SKIP},
    {"includeoffset", no_argument, NULL, O_INCLUDEOFFSET},
    {"include-tname", no_argument, NULL, O_TNAME},
    {"no-include-tname", no_argument, NULL, O_NO_TNAME},
    {"include-tid", no_argument, NULL, O_JTID},
    {"no-include-tid", no_argument, NULL, O_NO_JTID},
    {"shorten-pkgs", no_argument, NULL, O_SHORTEN},
    {"no-shorten-pkgs", no_argument, NULL, O_NO_SHORTEN},
    {"no-pkgs", no_argument, NULL, O_NO_PKGS},
    {"size", no_argument, NULL, O_SIZE},
    {"ticks", no_argument, NULL, O_GHC_TICKS},
    {"bytes", no_argument, NULL, O_GHC_BYTES},
    {"xdev", no_argument, NULL, O_XDEV},
    {"timeraw", no_argument, NULL, O_TIMERAW},
    {"timezerosecs", no_argument, NULL, O_TIMEZERO},
    {"sample-type", required_argument, NULL, O_SAMPLE_TYPE},
    {"label", required_argument, NULL, O_LABEL},
    {"time", no_argument, NULL, O_TIME},
    {"samples", no_argument, NULL, O_SAMPLES},
    {"format", required_argument, NULL, O_FORMAT},
    {"no-modules", no_argument, NULL, O_NO_MODULES},
    {"nthreads", required_argument, NULL, 'n'},
    {"verbose", no_argument, NULL, O_VERBOSE},
    {"open", no_argument, NULL, O_OPEN},
    {"threads", required_argument, NULL, 'j'},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char shortopts[] = "o:j:qhv:";

const char *cmd_collapse_options(struct option *v)
{
	cli_longopts_copy(v, longopts);
	return shortopts;
}

/* ---- progress on a terminal ---- */

struct progress {
	double delay; /* seconds before the first line */
	const char *name;
	struct timespec start, last;
	int shown;
};

static double since(const struct timespec *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - a->tv_sec) +
	       (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

static void human(char *buf, size_t n, double bytes)
{
	if (bytes >= 1e9)
		snprintf(buf, n, "%.1f GB", bytes / 1e9);
	else
		snprintf(buf, n, "%.0f MB", bytes / 1e6);
}

static void on_progress(void *ctx, uint64_t done, uint64_t size)
{
	struct progress *p = ctx;
	double t = since(&p->start);
	char a[32], b[32];

	if (t < p->delay || (p->shown && since(&p->last) < 0.25))
		return;
	clock_gettime(CLOCK_MONOTONIC, &p->last);
	human(a, sizeof(a), (double)done);
	if (size) {
		human(b, sizeof(b), (double)size);
		fputs("\rember: collapsing ", stderr);
		cli_put_escaped(stderr, p->name, strlen(p->name));
		fprintf(stderr, ": %s of %s (%d%%), %.0f MB/s ", a, b,
			(int)(100.0 * (double)done / (double)size),
			(double)done / 1e6 / t);
	} else {
		fputs("\rember: collapsing ", stderr);
		cli_put_escaped(stderr, p->name, strlen(p->name));
		fprintf(stderr, ": %s, %.0f MB/s ", a, (double)done / 1e6 / t);
	}
	p->shown = 1;
}

static void progress_done(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}

/* ---- reports ---- */

/* A file's name in quotes, or "standard input" (the last two calls'
 * results stay valid together). */
static const char *input_name(const char *path)
{
	static char buf[2][512];
	static int k;

	if (!path)
		return "standard input";
	k ^= 1;
	snprintf(buf[k], sizeof(buf[k]), "'%s'", path);
	return buf[k];
}

/* perf.data: the paragraph ember record ends with. */
static void report_perfdata(const struct ember_collapse_stats *st,
			    const struct ember_collapse_options *o)
{
	if (st->pd_lost)
		cli_warn("%llu samples were lost while recording (perf's "
			 "buffer was full): record with a larger -m or a "
			 "lower -F",
			 (unsigned long long)st->pd_lost);
	if (st->pd_user_stacks && st->pd_truncated * 20 > st->pd_user_stacks)
		cli_warn("%.0f%% of user stacks were truncated: record with "
			 "a larger stack copy (--call-graph dwarf,65528)",
			 100.0 * (double)st->pd_truncated /
			     (double)st->pd_user_stacks);
	if (st->pd_unknown)
		cli_warn("skipped %llu records of types this ember does not "
			 "know (from a newer perf?)",
			 (unsigned long long)st->pd_unknown);
	if (st->pd_corrupt)
		cli_warn("skipped %llu malformed samples",
			 (unsigned long long)st->pd_corrupt);
	if (cli_verbose < 0)
		return;
	fprintf(stderr, "ember: read %llu samples: %llu lost",
		(unsigned long long)st->pd_samples,
		(unsigned long long)st->pd_lost);
	/* none folded when the writer reads the profile alone */
	if (st->stacks || !o->profile_only)
		fprintf(stderr, ", %zu stacks", st->stacks);
	if (st->pd_user_stacks)
		fprintf(stderr, ", %llu of %llu user stacks truncated",
			(unsigned long long)st->pd_truncated,
			(unsigned long long)st->pd_user_stacks);
	fputc('\n', stderr);
}

static void report(const struct ember_collapse_stats *st,
		   const struct ember_collapse_options *o)
{
	if (st->perfdata)
		report_perfdata(st, o);
	if (st->bad.count)
		cli_warn("skipped %llu unrecognised line%s (the first is line "
			 "%llu of %s: \"%s\")",
			 (unsigned long long)st->bad.count,
			 st->bad.count == 1 ? "" : "s",
			 (unsigned long long)st->bad.first_line,
			 st->bad.first_input ? st->bad.first_input
					     : "standard input",
			 st->bad.first_text);
	if (st->filtered && st->event_defaulted)
		cli_warn(
		    "counted only '%s' samples, the first event type seen; "
		    "skipped %llu sample%s of other events (the first "
		    "'%s'): choose with --event-filter=EVENT",
		    st->event, (unsigned long long)st->filtered,
		    st->filtered == 1 ? "" : "s", st->filtered_event);
	else if (o->event_filter && *o->event_filter && !st->records &&
		 st->filtered)
		cli_warn("no samples of event '%s' (the input has '%s' "
			 "samples)",
			 o->event_filter, st->filtered_event);
	int no_chains = !st->stacks && st->no_callchain;
	if (no_chains)
		cli_warn("the recording has no call chains: its %llu samples "
			 "have no frame lines, only the sampled address; "
			 "record with 'perf record -g' (or --call-graph "
			 "dwarf), or profile with 'ember record'",
			 (unsigned long long)st->no_callchain);
	else if (st->truncated)
		cli_warn("%s ends inside a %s (truncated?): it was not counted",
			 st->truncated_input ? st->truncated_input
					     : "standard input",
			 st->format && !strcmp(st->format, "perf") ? "sample"
								   : "stack");
	if (st->inline_missing)
		cli_warn("--inline: no debugging information for %llu frame%s "
			 "(the first in '%s'): perf's symbols are kept",
			 (unsigned long long)st->inline_missing,
			 st->inline_missing == 1 ? "" : "s",
			 st->inline_missing_module);
	if (!st->stacks && st->lines && !no_chains)
		cli_warn("no stacks found in the input");
}

/* Options that apply to some formats only: the first one given of each
 * kind, and the formats it applies to (the first: the one it implies
 * when none is named). */
struct restricted {
	const char *opt;     /* as typed */
	const char *formats; /* space-separated */
};

static int in_list(const char *fmt, const char *list)
{
	size_t n = strlen(fmt);

	for (const char *p = list; *p;) {
		size_t m = strcspn(p, " ");
		if (m == n && !memcmp(p, fmt, n))
			return 1;
		p += m;
		p += *p == ' ';
	}
	return 0;
}

static int is_format(const char *s)
{
	const char *name;

	if (!strcmp(s, "guess"))
		return 1;
	for (size_t i = 0; (name = ember_collapse_format(i, NULL)); i++)
		if (!strcmp(s, name))
			return 1;
	return 0;
}

static int write_out(void *ctx, const void *p, size_t n)
{
	struct cli_out *out = ctx;

	return ember_write_stdio(out->f, p, n);
}

/* awk's truth of a -v value: a number not 0, or a string not empty. */
static int awk_true(const char *v)
{
	char *end;
	double d = strtod(v, &end);

	if (end != v && !*end && !strpbrk(v, "xXnNiI"))
		return d != 0;
	return *v != '\0';
}

/* -v NAME=VALUE: perf-sched's variables, as the awk script reads them. */
static int awk_var(struct ember_collapse_options *o, const char *a)
{
	const char *eq = strchr(a, '=');
	size_t n = eq ? (size_t)(eq - a) : 0;

	if (!eq)
		return -1;
	if (n == 10 && !memcmp(a, "record_tid", n))
		o->sched_record_tid = awk_true(eq + 1);
	else if (n == 17 && !memcmp(a, "record_wake_stack", n))
		o->sched_record_wake_stack = awk_true(eq + 1);
	else if (n == 7 && !memcmp(a, "recurse", n))
		o->sched_recurse = awk_true(eq + 1);
	else
		return -1;
	return 0;
}

/* "perf stap ...": the formats' names. */
static const char *format_list(void)
{
	static char list[512];
	const char *name;
	size_t m = 0;

	for (size_t i = 0; (name = ember_collapse_format(i, NULL)); i++) {
		int w = snprintf(list + m, sizeof(list) - m, "%s%s",
				 i ? " " : "", name);
		if (w < 0 || (size_t)w >= sizeof(list) - m)
			break;
		m += (size_t)w;
	}
	return list;
}

static int input_error(struct ember_collapse *c, const char *path, int err,
		       int guessing)
{
	const struct ember_collapse_stats *st = ember_collapse_stats(c);
	const char *name = input_name(path && strcmp(path, "-") ? path : NULL);

	if (err == EMBER_EEMPTY) {
		cli_error("%s is empty: nothing to collapse", name);
	} else if (err == EMBER_EFORMAT && st->error[0]) {
		cli_error("cannot read %s as %s: %s", name, st->format,
			  st->error);
	} else if (err == EMBER_EFORMAT && !st->format) {
		if (st->folded)
			cli_error(
			    "%s holds folded stacks already: draw it with "
			    "'ember flamegraph', fold recursion with "
			    "'ember collapse recursive', or convert it with "
			    "'ember collapse folded --format FMT'",
			    name);
		else
			cli_error("cannot tell the format of %s: it is no "
				  "profiler output ember knows as far as its "
				  "first lines show (formats: %s; name one: "
				  "ember collapse FORMAT FILE)",
				  name, format_list());
	} else if (err == EMBER_EFORMAT) {
		cli_error(
		    "cannot read %s: corrupt or truncated compressed data",
		    name);
	} else if (err == EMBER_ETOOLONG) {
		cli_error("cannot read %s: line %llu is longer than %zu MiB",
			  name, (unsigned long long)st->long_line,
			  EMBER_MAX_LINE >> 20);
	} else if (err == EMBER_ETRUNC) {
		/* how many bytes, where the reader says */
		cli_error("cannot read %s: the file was cut short while being "
			  "read%s%s%s",
			  name, st->error[0] ? " (" : "", st->error,
			  st->error[0] ? ")" : "");
	} else if (err == EMBER_ENOENT && guessing && path &&
		   !strpbrk(path, "/.")) {
		cli_error("'%s' is neither a format (%s guess) nor a file",
			  path, format_list());
	} else {
		cli_error("cannot read %s: %s", name,
			  err == EMBER_ENOENT  ? "No such file or directory"
			  : err == EMBER_EPERM ? "Permission denied"
					       : strerror(errno ? errno : EIO));
	}
	return 1;
}

int cmd_collapse(int argc, char **argv, const char *preset)
{
	struct ember_collapse_options o;
	const char *cmd = "collapse";
	const char *prog = "ember collapse";
	const char *output = NULL, *out_format = NULL;
	const char **skip = NULL;
	struct progress prog_state = {0};
	char progbuf[64];
	size_t nskip = 0;
	struct restricted used[8];
	size_t nused = 0;
	int c, rc = 1, open_it = 0;
	long lv;

	ember_collapse_options_init(&o);
	if (preset) {
		const char *base = strrchr(argv[0], '/');
		snprintf(progbuf, sizeof(progbuf), "%s",
			 base ? base + 1 : argv[0]);
		prog = progbuf;
		o.format = preset;
	} else if (argc > 1 && is_format(argv[1])) {
		o.format = argv[1];
		snprintf(progbuf, sizeof(progbuf), "ember collapse %s",
			 argv[1]);
		prog = progbuf;
		argv++;
		argc--;
	}
	if (o.format && !strcmp(o.format, "guess"))
		o.format = NULL;
	/* xdebug: the PHP script's -t and -c (getopt "htc"), taken before
	 * getopt_long_only would read them as --tid and --context */
	if (o.format && !strcmp(o.format, "xdebug")) {
		int j = 1;
		for (int i = 1; i < argc; i++) {
			const char *a = argv[i];
			if (a[0] == '-' && a[1] &&
			    strspn(a + 1, "tc") == strlen(a + 1)) {
				if (strchr(a, 'c'))
					o.xdebug_counts = 1;
			} else {
				argv[j++] = argv[i];
			}
			if (!strcmp(a, "--")) {
				while (++i < argc)
					argv[j++] = argv[i];
				break;
			}
		}
		argc = j;
	}
	opterr = 0;
	optind = 1;
	char fmtbuf[32];
#define RESTRICT(formats)                                                      \
	do {                                                                   \
		if (nused < sizeof(used) / sizeof(used[0]))                    \
			used[nused++] =                                        \
			    (struct restricted){longopts[li].name, formats};   \
	} while (0)
	int li = 0;
	/* inferno's tools (clap): two dashes, -n THREADS, -q, -v */
	int inferno = preset && !strncmp(prog, "inferno-", 8);
	o.inferno = inferno;
	while ((c = inferno
			? getopt_long(argc, argv, "o:j:n:qhv", longopts, &li)
			: getopt_long_only(argc, argv, shortopts, longopts,
					   &li)) != -1) {
		if (inferno && c == 'v')
			c = O_VERBOSE;
		switch (c) {
		case O_VERBOSE:
			if (cli_verbose >= 0)
				cli_verbose++;
			break;
		case O_NO_MODULES:
			o.sample_no_modules = 1;
			RESTRICT("sample vtune");
			break;
		case 'n':
			/* inferno's --nthreads; ember's output does not
			 * depend on it, and 64 threads are plenty */
			if (cli_long(optarg, 1, LONG_MAX, &lv)) {
				free(skip);
				return cli_usage(cmd,
						 "--nthreads takes a number "
						 "of threads, not '%s'",
						 optarg);
			}
			o.threads = lv > 64 ? 64 : (int)lv;
			break;
		case O_PID:
			o.pid = o.elfutils_pid = 1;
			RESTRICT("perf elfutils");
			break;
		case O_TID:
			o.tid = o.elfutils_tid = 1;
			RESTRICT("perf elfutils");
			break;
		case O_KERNEL:
			o.kernel = 1;
			RESTRICT("perf");
			break;
		case O_JIT:
			o.jit = 1;
			RESTRICT("perf");
			break;
		case O_ALL:
			o.kernel = o.jit = 1;
			RESTRICT("perf");
			break;
		case O_ADDRS:
			o.addrs = 1;
			RESTRICT("perf");
			break;
		case O_EVENT:
			o.event_filter = optarg;
			RESTRICT("perf");
			break;
		case O_INLINE:
			o.inline_frames = 1;
			RESTRICT("perf");
			break;
		case O_CONTEXT:
			o.context = 1;
			RESTRICT("perf");
			break;
		case O_SRCLINE:
			o.srcline = 1;
			RESTRICT("perf");
			break;
		case O_SKIP:
			skip =
			    ember_xreallocarray(skip, nskip + 1, sizeof(*skip));
			skip[nskip++] = optarg;
			RESTRICT("perf");
			break;
		case O_INCLUDEOFFSET:
			o.includeoffset = 1;
			RESTRICT("dtrace");
			break;
		case O_TNAME:
		case O_NO_TNAME:
			o.java_no_tname = c == O_NO_TNAME;
			RESTRICT("jstack ibmjava");
			break;
		case O_JTID:
		case O_NO_JTID:
			o.java_tid = c == O_JTID;
			RESTRICT("jstack ibmjava");
			break;
		case O_SHORTEN:
		case O_NO_SHORTEN:
			o.java_shorten_pkgs = c == O_SHORTEN;
			RESTRICT("jstack ibmjava java-exceptions");
			break;
		case O_NO_PKGS:
			o.java_no_pkgs = 1;
			RESTRICT("java-exceptions");
			break;
		case O_SIZE:
			o.vtune_size = 1;
			RESTRICT("vtune-mc");
			break;
		case O_GHC_TICKS:
		case O_GHC_BYTES:
			o.ghcprof_source = c == O_GHC_TICKS
					       ? EMBER_GHCPROF_TICKS
					       : EMBER_GHCPROF_BYTES;
			RESTRICT("ghcprof");
			break;
		case O_XDEV:
			o.files_xdev = 1;
			RESTRICT("files");
			break;
		case O_TIMERAW:
			o.range_raw = 1;
			RESTRICT("range-perf");
			break;
		case O_TIMEZERO:
			o.range_zerosecs = 1;
			RESTRICT("range-perf");
			break;
		case 'v':
			/* awk's -v NAME=VALUE (perf-sched) */
			if (awk_var(&o, optarg)) {
				free(skip);
				return cli_usage(cmd,
						 "-v takes record_tid=N, "
						 "record_wake_stack=N or "
						 "recurse=N, not '%s'",
						 optarg);
			}
			li = 0;
			used[nused < 8 ? nused++ : 7] =
			    (struct restricted){"v", "perf-sched"};
			break;
		case O_SAMPLE_TYPE:
			o.sample_type = optarg;
			RESTRICT("pprof");
			break;
		case O_LABEL:
			o.label = optarg;
			RESTRICT("pprof");
			break;
		case O_TIME:
			/* cpuprofile: microseconds; ghcprof: %time (its
			 * default) */
			o.time = 1;
			o.cpuprofile_samples = 0;
			o.ghcprof_source = EMBER_GHCPROF_TIME;
			RESTRICT("cpuprofile ghcprof");
			break;
		case O_SAMPLES:
			o.cpuprofile_samples = 1;
			o.time = 0;
			RESTRICT("cpuprofile");
			break;
		case O_FORMAT:
			out_format = optarg;
			break;
		case O_OPEN:
			open_it = 1;
			break;
		case 'j':
			if (cli_long(optarg, 1, 64, &lv)) {
				free(skip);
				return cli_usage(cmd,
						 "--threads takes a number "
						 "from 1 to 64, not '%s'",
						 optarg);
			}
			o.threads = (int)lv;
			break;
		case 'o':
			output = optarg;
			break;
		case 'q':
			cli_verbose = -1;
			break;
		case 'h':
			help(stdout, prog, o.format);
			free(skip);
			return 0;
		default:
			free(skip);
			return cli_bad_option(cmd, argv, "ojn");
		}
	}
	o.skip_after = skip;
	o.nskip_after = nskip;
	for (size_t i = 0; i < nused; i++) {
		if (!o.format) {
			/* the option's first format, unless another's */
			size_t m = strcspn(used[i].formats, " ");
			snprintf(fmtbuf, sizeof(fmtbuf), "%.*s", (int)m,
				 used[i].formats);
			o.format = fmtbuf;
		}
		if (!in_list(o.format, used[i].formats)) {
			char list[96];
			size_t m = 0;
			for (const char *f = used[i].formats; *f; f++) {
				const char *w = *f == ' ' ? " or " : NULL;
				size_t wn = w ? 4 : 1;
				if (m + wn < sizeof(list)) {
					memcpy(list + m, w ? w : f, wn);
					m += wn;
				}
			}
			list[m] = '\0';
			free(skip);
			return cli_usage(cmd,
					 "option '%s%s' applies to %s input "
					 "only, not %s",
					 used[i].opt[1] ? "--" : "-",
					 used[i].opt, list, o.format);
		}
	}
	/* small jobs make the tests split small inputs across threads */
	const char *js = getenv("EMBER_JOB_SIZE");
	if (js && !cli_long(js, 1, 1L << 30, &lv))
		o.job_size = (size_t)lv;
	if (cli_stderr_tty()) {
		const char *d = getenv("EMBER_PROGRESS_DELAY"); /* for tests */
		prog_state.delay = 1;
		if (d)
			cli_double(d, &prog_state.delay);
		clock_gettime(CLOCK_MONOTONIC, &prog_state.start);
		o.progress = on_progress;
		o.progress_ctx = &prog_state;
	}

	int as;
	if (cli_format_pick(cmd, out_format, output, CLI_ALL_FORMATS,
			    CLI_FOLDED, &as) ||
	    (open_it && cli_open_check(cmd, output, as))) {
		free(skip);
		return 2;
	}
	/* sample: awk's MODULES=N operand, an assignment, not a file */
	if (o.format && !strcmp(o.format, "sample")) {
		int j = optind;
		for (int i = optind; i < argc; i++) {
			if (!strncmp(argv[i], "MODULES=", 8))
				o.sample_no_modules = !awk_true(argv[i] + 8);
			else
				argv[j++] = argv[i];
		}
		argc = j;
	}
	/* range-perf: MIN MAX first, as the script takes them */
	if (o.format && !strcmp(o.format, "range-perf")) {
		if (argc - optind < 2 ||
		    cli_double(argv[optind], &o.range_min) ||
		    cli_double(argv[optind + 1], &o.range_max)) {
			free(skip);
			return cli_usage(cmd,
					 "range-perf takes MIN MAX seconds "
					 "first (e.g. 10 20)");
		}
		optind += 2;
	}
	/* files: folders to walk, not a stream */
	if (o.format && !strcmp(o.format, "files") && optind == argc) {
		free(skip);
		return cli_usage(cmd, "files takes the folders to measure "
				      "(e.g. files /usr /home)");
	}
	if (optind == argc && isatty(0)) {
		free(skip);
		return cli_usage(cmd,
				 "no input: name a file, or pipe into "
				 "'%s'",
				 prog);
	}
	struct ember_collapse *col;
	struct cli_out out = {0};
	if (as == CLI_FOLDED) { /* the lines as they come */
		o.write = write_out;
		o.write_ctx = &out;
	}
	/* pprof and the time-ordered formats from perf.data: samples with
	 * times, threads, addresses, lines */
	o.profile =
	    as == CLI_PPROF || as == CLI_HTML || 1u << as & CLI_TIMED_FORMATS;
	if (as == CLI_PERFSCRIPT) /* which has no source lines */
		o.profile = EMBER_PROFILE_NO_LINES;
	/* the writers of one input's profile need no folded stacks (the
	 * viewer has both) */
	o.profile_only = o.profile && as != CLI_HTML && argc - optind <= 1;
	if (ember_collapse_new(&col, &o)) {
		free(skip);
		return cli_usage(cmd, "unknown format '%s'", o.format);
	}
	/* opened first: the formats that print as they read write as they
	 * go (a temporary file, renamed at the end, or kept away on error) */
	if (cli_out_open(&out, output))
		goto out;
	int nin = argc - optind;
	for (int i = 0; i < (nin ? nin : 1); i++) {
		const char *path = nin ? argv[optind + i] : "-";
		prog_state.name = strcmp(path, "-") ? path : "standard input";
		errno = 0;
		int err = ember_collapse_input(col, path);
		progress_done(&prog_state);
		if (err) {
			input_error(col, path, err, !o.format && !i);
			cli_out_close(&out, 0);
			goto out;
		}
	}
	int err;
	if (as == CLI_FOLDED) {
		err = ember_collapse_write(col, ember_write_stdio, out.f);
	} else {
		struct ember_buf folded = EMBER_BUF_INIT;
		struct ember_profile p;
		struct ember_fg_options fo;
		/* made (merged) first: the stats then say what the weights are
		 */
		ember_collapse_profile(col, &p);
		const struct ember_collapse_stats *st =
		    ember_collapse_stats(col);
		ember_fg_options_init(&fo);
		if (st->sample_unit[0] && strcmp(st->sample_unit, "count"))
			fo.countname = st->sample_unit;
		err = as == CLI_SVG || as == CLI_HTML
			  ? ember_collapse_write(col, cli_buf_write, &folded)
			  : 0;
		p.name = nin ? argv[optind] : NULL;
		if (!err)
			err = cli_write_as(out.f, as, folded.buf, folded.len,
					   &p, &fo);
		ember_buf_release(&folded);
		if (err && err != EMBER_EIO && err != EMBER_EEMPTY)
			cli_error("cannot write %s: %s", cli_format_name(as),
				  ember_strerror(err));
	}
	report(ember_collapse_stats(col), &o);
	/* a failed write is reported by cli_out_close */
	rc = cli_out_close(&out, !err || err == EMBER_EIO);
	if (!rc && open_it)
		cli_open(output);
out:
	ember_collapse_free(col);
	free(skip);
	return rc;
}
