/* ember collapse: profiler output (perf script, SystemTap, DTrace) in,
 * folded stacks out, as FlameGraph's stackcollapse-*.pl scripts do. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static void help_formats(FILE *f)
{
	const char *summary, *name;

	fprintf(f, "formats:\n");
	for (size_t i = 0; (name = ember_collapse_format(i, &summary)); i++)
		fprintf(f, "  %-10s %s\n", name, summary);
	fprintf(f,
		"  %-10s detect perf, stap or dtrace from the first lines "
		"(the default)\n\n",
		"guess");
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
		   "gzip-compressed\n"
		   "or not) into folded stacks, one \"root;...;leaf count\" "
		   "line per distinct\n"
		   "stack, sorted, for 'ember flamegraph'.  Same output as "
		   "FlameGraph's\n"
		   "stackcollapse scripts, many times faster.\n\n");
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
	fprintf(
	    f,
	    "%s"
	    "  -o, --output FILE    write to FILE (default: standard output)\n"
	    "  -j, --threads N      parse on N threads (default: one per CPU "
	    "for\n"
	    "                       large inputs); the output is the same\n"
	    "  -q, --quiet          no warnings\n"
	    "  -h, --help           this help\n"
	    "\nEXAMPLES\n",
	    perf || dtrace ? "\n" : "");
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
    {"threads", required_argument, NULL, 'j'},
    {"output", required_argument, NULL, 'o'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

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
		fprintf(stderr,
			"\rember: collapsing %s: %s of %s (%d%%), %.0f MB/s ",
			p->name, a, b,
			(int)(100.0 * (double)done / (double)size),
			(double)done / 1e6 / t);
	} else {
		fprintf(stderr, "\rember: collapsing %s: %s, %.0f MB/s ",
			p->name, a, (double)done / 1e6 / t);
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
static void report_perfdata(const struct ember_collapse_stats *st)
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
	fprintf(stderr, "ember: read %llu samples: %llu lost, %zu stacks",
		(unsigned long long)st->pd_samples,
		(unsigned long long)st->pd_lost, st->stacks);
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
		report_perfdata(st);
	if (st->bad_lines)
		cli_warn("skipped %llu unrecognised line%s (the first is line "
			 "%llu of %s: \"%s\")",
			 (unsigned long long)st->bad_lines,
			 st->bad_lines == 1 ? "" : "s",
			 (unsigned long long)st->first_bad_line,
			 st->first_bad_input ? st->first_bad_input
					     : "standard input",
			 st->first_bad_text);
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
	if (st->truncated)
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
	if (!st->stacks && st->lines)
		cli_warn("no stacks found in the input");
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

static int input_error(struct ember_collapse *c, const char *path, int err,
		       int guessing)
{
	const struct ember_collapse_stats *st = ember_collapse_stats(c);
	const char *name = input_name(path && strcmp(path, "-") ? path : NULL);

	if (st->error[0]) {
		cli_error("cannot read %s: %s", name, st->error);
	} else if (err == EMBER_EEMPTY) {
		cli_error("%s is empty: nothing to collapse", name);
	} else if (err == EMBER_EFORMAT && !st->format) {
		struct ember_input in;
		int folded = 0;
		if (path && strcmp(path, "-") && !ember_input_load(&in, path)) {
			folded = ember_collapse_is_folded(
			    in.data, in.len < 65536 ? in.len : 65536);
			ember_input_release(&in);
		}
		if (folded)
			cli_error(
			    "%s holds folded stacks already: draw it with "
			    "'ember flamegraph', or fold recursion with "
			    "'ember collapse recursive'",
			    path);
		else
			cli_error(
			    "cannot tell the format of %s: it is not perf "
			    "script, SystemTap or DTrace output as far as "
			    "its first lines show (formats: perf stap "
			    "dtrace recursive; name one: ember collapse "
			    "FORMAT FILE)",
			    name);
	} else if (err == EMBER_EFORMAT) {
		cli_error("cannot read %s: corrupt or truncated gzip data",
			  name);
	} else if (err == EMBER_ENOENT && guessing && path &&
		   !strpbrk(path, "/.")) {
		cli_error(
		    "'%s' is neither a format (perf stap dtrace recursive "
		    "guess) nor a file",
		    path);
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
	const char *output = NULL;
	const char **skip = NULL;
	struct progress prog_state = {0};
	char progbuf[64];
	size_t nskip = 0;
	int perf_only = 0, dtrace_only = 0, c, rc = 1;
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
	opterr = 0;
	optind = 1;
	while ((c = getopt_long_only(argc, argv, "o:j:qh", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case O_PID:
			o.pid = perf_only = 1;
			break;
		case O_TID:
			o.tid = perf_only = 1;
			break;
		case O_KERNEL:
			o.kernel = perf_only = 1;
			break;
		case O_JIT:
			o.jit = perf_only = 1;
			break;
		case O_ALL:
			o.kernel = o.jit = perf_only = 1;
			break;
		case O_ADDRS:
			o.addrs = perf_only = 1;
			break;
		case O_EVENT:
			o.event_filter = optarg;
			perf_only = 1;
			break;
		case O_INLINE:
			o.inline_frames = perf_only = 1;
			break;
		case O_CONTEXT:
			o.context = perf_only = 1;
			break;
		case O_SRCLINE:
			o.srcline = perf_only = 1;
			break;
		case O_SKIP:
			skip =
			    ember_xreallocarray(skip, nskip + 1, sizeof(*skip));
			skip[nskip++] = optarg;
			perf_only = 1;
			break;
		case O_INCLUDEOFFSET:
			o.includeoffset = dtrace_only = 1;
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
			return cli_bad_option(cmd, argv, "oj");
		}
	}
	o.skip_after = skip;
	o.nskip_after = nskip;
	if (perf_only && o.format && strcmp(o.format, "perf")) {
		free(skip);
		return cli_usage(cmd,
				 "the options given apply to perf input "
				 "only, not %s",
				 o.format);
	}
	if (dtrace_only && o.format && strcmp(o.format, "dtrace")) {
		free(skip);
		return cli_usage(cmd,
				 "--includeoffset applies to dtrace input "
				 "only, not %s",
				 o.format);
	}
	if (!o.format && (perf_only || dtrace_only))
		o.format = perf_only ? "perf" : "dtrace";
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

	if (optind == argc && isatty(0)) {
		free(skip);
		return cli_usage(cmd,
				 "no input: name a file, or pipe into "
				 "'%s'",
				 prog);
	}
	struct ember_collapse *col;
	struct cli_out out = {0};
	if (ember_collapse_new(&col, &o)) {
		free(skip);
		return cli_usage(cmd, "unknown format '%s'", o.format);
	}
	int nin = argc - optind;
	for (int i = 0; i < (nin ? nin : 1); i++) {
		const char *path = nin ? argv[optind + i] : "-";
		prog_state.name = strcmp(path, "-") ? path : "standard input";
		errno = 0;
		int err = ember_collapse_input(col, path);
		progress_done(&prog_state);
		if (err) {
			input_error(col, path, err, !o.format && !i);
			goto out;
		}
	}
	if (cli_out_open(&out, output))
		goto out;
	int err = ember_collapse_write(col, ember_write_stdio, out.f);
	report(ember_collapse_stats(col), &o);
	/* a failed write is reported by cli_out_close */
	rc = cli_out_close(&out, !err || err == EMBER_EIO);
out:
	ember_collapse_free(col);
	free(skip);
	return rc;
}
