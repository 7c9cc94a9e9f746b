/* ember record: sample a command, running processes or the whole system,
 * and write a flame graph or folded stacks, with a summary on stderr. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void help(FILE *f)
{
	fprintf(
	    f,
	    "usage: ember record [OPTIONS] [--] COMMAND [ARGS...]\n"
	    "       ember record [OPTIONS] -p PID[,PID...]\n"
	    "       ember record [OPTIONS] -a\n"
	    "\n"
	    "Samples stacks (user and kernel) with perf_event_open and writes "
	    "an\n"
	    "interactive flame graph, or folded stacks, with no perf.data in "
	    "between.\n"
	    "A command is profiled from its exec, with its threads and "
	    "children, and\n"
	    "ember exits with its exit status; -p attaches to running "
	    "processes and\n"
	    "their threads; -a samples every CPU.  User stacks are unwound "
	    "while\n"
	    "recording from a copy of each sample's stack, by the DWARF "
	    "call-frame\n"
	    "information of the code (.eh_frame): no frame pointers needed, so "
	    "stock\n"
	    "libc and Python unwind too.  JIT code is named after recording "
	    "from\n"
	    "perf maps (/tmp/perf-PID.map) and jitdumps (jit-PID.dump), and "
	    "unwound\n"
	    "by the jitdump's unwinding info, CPython's trampolines or frame\n"
	    "pointers.  A stack the walk cannot finish (deeper than the copy, "
	    "code\n"
	    "without usable unwinding information) starts with a [truncated] "
	    "frame,\n"
	    "and the summary counts them.  Python 3.12+ and Node get the "
	    "switches\n"
	    "that write perf maps.  Ctrl-C stops recording and still writes "
	    "the\n"
	    "output.\n"
	    "\n"
	    "  -o, --output FILE    FILE.svg: a flame graph (default "
	    "flamegraph.svg);\n"
	    "                       FILE.html: the same in the HTML viewer;\n"
	    "                       FILE.folded, FILE.txt or '-' (standard "
	    "output):\n"
	    "                       folded stacks\n"
	    "  -p PID[,PID...]      profile running processes and their "
	    "threads\n"
	    "  -a, --all-cpus       profile the whole system (with a command: "
	    "while\n"
	    "                       it runs)\n"
	    "  -F, --freq HZ        samples per second (default 999; at most\n"
	    "                       kernel.perf_event_max_sample_rate)\n"
	    "  -c, --count N        one sample every N events, instead of -F\n"
	    "  -e, --event EVENT    cpu-clock (default), task-clock, "
	    "page-faults,\n"
	    "                       context-switches, cpu-migrations, "
	    "minor-faults,\n"
	    "                       major-faults; cycles, instructions, "
	    "cache-misses,\n"
	    "                       branch-misses... where the CPU has "
	    "counters\n"
	    "  -d, --duration SECS  stop after SECS seconds (a command still "
	    "running\n"
	    "                       is then ended)\n"
	    "  -g, --call-graph dwarf[,SIZE]|fp\n"
	    "                       how user stacks are walked.  dwarf (the "
	    "default\n"
	    "                       where the kernel allows): copy SIZE bytes "
	    "of each\n"
	    "                       sample's user stack (32768; at most 65528) "
	    "and\n"
	    "                       unwind them; a larger SIZE reaches deeper "
	    "stacks.\n"
	    "                       fp: the kernel's frame-pointer walk: "
	    "cheaper, but\n"
	    "                       stacks break in code built without frame "
	    "pointers\n"
	    "  -m, --mmap-pages N   ring buffer pages per CPU, a power of 2 "
	    "(2048 with\n"
	    "                       dwarf, 128 with fp)\n"
	    "  --off-cpu            record where threads wait instead: the "
	    "time "
	    "each\n"
	    "                       thread spends off CPU, in microseconds, "
	    "charged to\n"
	    "                       the stack where it blocked, whose last "
	    "frame names\n"
	    "                       the state: [off-cpu: S] sleeping, D "
	    "uninterruptible\n"
	    "                       (usually disk I/O), R preempted (waiting "
	    "for a CPU)\n"
	    "  --wall               on-CPU samples and off-CPU time together, "
	    "both in\n"
	    "                       microseconds: each thread's whole life; "
	    "frames with\n"
	    "                       only off-CPU time are drawn blue\n"
	    "  --min-block USECS    with --off-cpu or --wall: leave out waits "
	    "shorter\n"
	    "                       than USECS microseconds\n"
	    "  --no-kernel          user stacks only\n"
	    "  --idle               with -a: keep the idle task's samples\n"
	    "  --no-jit-env         do not set PYTHONPERFSUPPORT=1 and "
	    "NODE_OPTIONS\n"
	    "                       (--perf-basic-prof-only-functions\n"
	    "                       --interpreted-frames-native-stack) for the "
	    "command\n"
	    "  -q, --quiet          no summary\n"
	    "  -v, --verbose        more detail (files without symbols...)\n"
	    "  -h, --help           this help\n"
	    "\n"
	    "Frame names, as 'ember collapse perf' gives them for perf script "
	    "output:\n"
	    "  --pid                root frames are COMM-PID\n"
	    "  --tid                root frames are COMM-PID/TID\n"
	    "  --kernel             kernel frames end in _[k]\n"
	    "  --jit                JIT frames end in _[j]\n"
	    "  --all                --kernel and --jit\n"
	    "\n"
	    "Flame graph options (see 'ember flamegraph -h'): --title "
	    "(default: the\n"
	    "command line), --subtitle, --width, --height, --minwidth, "
	    "--colors,\n"
	    "--bgcolors, --hash, --random, --cp, --reverse, --inverted, "
	    "--countname\n"
	    "(default: ns for clock events), --nametype, --fonttype, "
	    "--fontsize,\n"
	    "--fontwidth, --notes, --factor, --total, --encoding, --nameattr.\n"
	    "\n"
	    "EXAMPLES\n"
	    "  ember record ./myprogram --input data.txt\n"
	    "  ember record -F 4999 -o build.svg -- make -j2\n"
	    "  ember record -p 1234 -d 10 -o server.folded\n"
	    "  ember record -a -d 5 --all -o system.svg\n"
	    "  ember record --off-cpu --min-block 1000 -o waits.svg -- "
	    "./server\n"
	    "  ember record --wall -p 1234 -d 10 -o wall.svg\n"
	    "  ember record -o js.svg -- node app.js\n"
	    "  ember record -o py.svg -- python3.12 -X perf app.py\n"
	    "  ember record -o py.svg -- python3.13 -X perf_jit app.py\n"
	    "  ember record --call-graph dwarf,65528 -o deep.svg -- "
	    "./recursive\n"
	    "  ember record --call-graph fp -o fp.svg -- "
	    "./built-with-frame-pointers\n"
	    "  ember record -o - --tid -- ./server | grep worker | ember "
	    "flamegraph > w.svg\n");
}

enum {
	O_NO_KERNEL = 256,
	O_IDLE,
	O_JIT_ENV,
	O_NO_JIT_ENV,
	O_ROOT_PID,
	O_ROOT_TID,
	O_KERNEL,
	O_JIT,
	O_ALL,
	O_OFF_CPU,
	O_WALL,
	O_MIN_BLOCK,
	/* flame graph options */
	O_TITLE,
	O_SUBTITLE,
	O_WIDTH,
	O_HEIGHT,
	O_MINWIDTH,
	O_COLORS,
	O_BGCOLORS,
	O_HASH,
	O_RANDOM,
	O_CP,
	O_REVERSE,
	O_INVERTED,
	O_COUNTNAME,
	O_NAMETYPE,
	O_FONTTYPE,
	O_FONTSIZE,
	O_FONTWIDTH,
	O_NOTES,
	O_FACTOR,
	O_TOTAL,
	O_ENCODING,
	O_NAMEATTR,
};

static const struct option longopts[] = {
    {"output", required_argument, NULL, 'o'},
    {"all-cpus", no_argument, NULL, 'a'},
    {"freq", required_argument, NULL, 'F'},
    {"count", required_argument, NULL, 'c'},
    {"event", required_argument, NULL, 'e'},
    {"duration", required_argument, NULL, 'd'},
    {"mmap-pages", required_argument, NULL, 'm'},
    {"call-graph", required_argument, NULL, 'g'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {"no-kernel", no_argument, NULL, O_NO_KERNEL},
    {"idle", no_argument, NULL, O_IDLE},
    {"jit-env", no_argument, NULL, O_JIT_ENV},
    {"no-jit-env", no_argument, NULL, O_NO_JIT_ENV},
    {"pid", no_argument, NULL, O_ROOT_PID},
    {"tid", no_argument, NULL, O_ROOT_TID},
    {"kernel", no_argument, NULL, O_KERNEL},
    {"jit", no_argument, NULL, O_JIT},
    {"all", no_argument, NULL, O_ALL},
    {"off-cpu", no_argument, NULL, O_OFF_CPU},
    {"wall", no_argument, NULL, O_WALL},
    {"min-block", required_argument, NULL, O_MIN_BLOCK},
    {"title", required_argument, NULL, O_TITLE},
    {"subtitle", required_argument, NULL, O_SUBTITLE},
    {"width", required_argument, NULL, O_WIDTH},
    {"height", required_argument, NULL, O_HEIGHT},
    {"minwidth", required_argument, NULL, O_MINWIDTH},
    {"colors", required_argument, NULL, O_COLORS},
    {"bgcolors", required_argument, NULL, O_BGCOLORS},
    {"hash", no_argument, NULL, O_HASH},
    {"random", no_argument, NULL, O_RANDOM},
    {"cp", no_argument, NULL, O_CP},
    {"reverse", no_argument, NULL, O_REVERSE},
    {"inverted", no_argument, NULL, O_INVERTED},
    {"countname", required_argument, NULL, O_COUNTNAME},
    {"nametype", required_argument, NULL, O_NAMETYPE},
    {"fonttype", required_argument, NULL, O_FONTTYPE},
    {"fontsize", required_argument, NULL, O_FONTSIZE},
    {"fontwidth", required_argument, NULL, O_FONTWIDTH},
    {"notes", required_argument, NULL, O_NOTES},
    {"factor", required_argument, NULL, O_FACTOR},
    {"total", required_argument, NULL, O_TOTAL},
    {"encoding", required_argument, NULL, O_ENCODING},
    {"nameattr", required_argument, NULL, O_NAMEATTR},
    {NULL, 0, NULL, 0},
};

static struct ember_record *active;

static void on_stop_signal(int sig)
{
	(void)sig;
	if (active)
		ember_record_stop(active);
}

static void catch_stop_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal; /* no SA_RESTART: poll returns */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int parse_pids(const char *s, int **pids, size_t *n)
{
	size_t alloc = *n;

	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char *t = ember_xmemdup(s, len);
		long v;
		int bad = cli_long(t, 1, 0x7fffffff, &v);
		free(t);
		if (bad)
			return -1;
		if (*n + 1 > alloc) {
			alloc = alloc ? alloc * 2 : 4;
			*pids =
			    ember_xreallocarray(*pids, alloc, sizeof(**pids));
		}
		(*pids)[(*n)++] = (int)v;
		if (!comma)
			return 0;
		s = comma + 1;
	}
}

/* "dwarf", "dwarf,SIZE" or "fp" */
static int parse_call_graph(const char *s, struct ember_record_options *o)
{
	long v;

	if (!strcmp(s, "fp")) {
		o->call_graph = EMBER_CALLGRAPH_FP;
		return 0;
	}
	if (strncmp(s, "dwarf", 5) || (s[5] && s[5] != ','))
		return -1;
	o->call_graph = EMBER_CALLGRAPH_DWARF;
	if (!s[5])
		return 0;
	if (cli_long(s + 6, 8, EMBER_RECORD_STACK_MAX, &v))
		return -1;
	o->stack_size = (size_t)v;
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static int parse_minwidth(const char *s, struct ember_fg_options *o)
{
	size_t n = strlen(s);
	int pct = n && s[n - 1] == '%';
	char *tmp;

	if (!n || strspn(s, "0123456789.") != n - (size_t)pct)
		return -1;
	tmp = ember_xmemdup(s, n - (size_t)pct);
	int err = cli_double(tmp, &o->minwidth);
	free(tmp);
	o->minwidth_pct = pct;
	return err;
}

static int buf_write(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

struct self_ent {
	uint32_t id;
	double w;
};

static int cmp_self(const void *pa, const void *pb)
{
	const struct self_ent *a = pa, *b = pb;

	return a->w < b->w   ? 1
	       : a->w > b->w ? -1
			     : (a->id > b->id) - (a->id < b->id);
}

/* The functions with the most self time: the leaf of each stack. */
static void print_top(const struct ember_intern *names,
		      const struct ember_stacks *s, double total)
{
	size_t nn = ember_intern_count(names);
	struct self_ent *e = ember_xcalloc(nn ? nn : 1, sizeof(*e));

	for (size_t i = 0; i < nn; i++)
		e[i].id = (uint32_t)i;
	for (size_t i = 0; i < s->n; i++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(s, i, &n);
		if (n)
			e[f[n - 1]].w += s->ents[i].count;
	}
	qsort(e, nn, sizeof(*e), cmp_self);
	fprintf(stderr, "ember: top functions by self time:\n");
	for (size_t i = 0; i < nn && i < 8 && e[i].w > 0; i++) {
		size_t len;
		const char *name = ember_intern_str(names, e[i].id, &len);
		fprintf(stderr, "  %5.1f%%  %.*s\n", 100.0 * e[i].w / total,
			(int)(len > 100 ? 100 : len), name);
	}
	free(e);
}

/* How user stacks were walked, and how well. */
static void print_unwind(const struct ember_record_stats *st)
{
	if (!st->dwarf) {
		fprintf(stderr, "ember: user stacks: frame pointers\n");
		return;
	}
	double n = st->user_stacks ? (double)st->user_stacks : 1;
	fprintf(stderr,
		"ember: user stacks: DWARF, %zu-byte copies; %llu unwound, "
		"%llu truncated (%.1f%%), %.2f us each\n",
		st->stack_size, (unsigned long long)st->user_stacks,
		(unsigned long long)st->truncated,
		100.0 * (double)st->truncated / n,
		1e6 * st->unwind_seconds / n);
	if (cli_verbose > 0)
		fprintf(stderr,
			"ember: frames stepped by file CFI %llu, jitdump CFI "
			"%llu, JIT trampolines %llu, frame pointers %llu; rule "
			"cache %llu hits, %llu misses; %llu jitdumps\n",
			(unsigned long long)st->unwind_by_src[0],
			(unsigned long long)st->unwind_by_src[1],
			(unsigned long long)st->unwind_by_src[2],
			(unsigned long long)st->unwind_by_src[3],
			(unsigned long long)st->unwind_cache_hits,
			(unsigned long long)st->unwind_cache_misses,
			(unsigned long long)st->jitdumps);
}

/* The off-CPU side: what it cost (switches recorded) and what it found. */
static void print_offcpu(const struct ember_record_stats *st)
{
	fprintf(stderr,
		"ember: off-CPU: %llu switches recorded, %llu waits counted "
		"(%.3f s), %llu shorter than --min-block left out\n",
		(unsigned long long)st->switches, (unsigned long long)st->waits,
		(double)st->offcpu_ns / 1e9,
		(unsigned long long)st->short_waits);
	if (st->lost_waits)
		cli_warn("%llu waits were left out: records were lost while "
			 "they went on (use a larger -m, or a smaller stack "
			 "copy with --call-graph dwarf,8192)",
			 (unsigned long long)st->lost_waits);
}

static char *default_title(const struct ember_record_options *ro)
{
	struct ember_buf b = EMBER_BUF_INIT;

	if (ro->argv) {
		for (size_t i = 0; ro->argv[i]; i++) {
			if (i)
				ember_buf_addch(&b, ' ');
			ember_buf_adds(&b, ro->argv[i]);
		}
	} else if (ro->npids) {
		ember_buf_adds(&b, ro->npids > 1 ? "processes" : "process");
		for (size_t i = 0; i < ro->npids; i++)
			ember_buf_addf(&b, "%s %d", i ? "," : "", ro->pids[i]);
	} else {
		ember_buf_adds(&b, "whole system");
	}
	return ember_buf_detach(&b, NULL);
}

/* Writes the output; 0 or 1 after printing why. */
static int write_output(const char *output, int svg,
			struct ember_fg_options *fo,
			const struct ember_intern *names,
			struct ember_stacks *stacks)
{
	struct cli_out out;
	struct ember_buf folded = EMBER_BUF_INIT;
	int err;

	ember_stacks_sort(stacks, names);
	if (cli_out_open(&out, output))
		return 1;
	if (!svg) {
		err = ember_stacks_write(stacks, names, 0, ember_write_stdio,
					 out.f);
		return cli_out_close(&out, !err);
	}
	err = ember_stacks_write(stacks, names, 0, buf_write, &folded);
	struct ember_flamegraph *fg = ember_flamegraph_new(fo);
	struct ember_fg_stats st;
	ember_flamegraph_add(fg, "record", folded.buf, folded.len);
	if (!err)
		err =
		    ember_flamegraph_render(fg, ember_write_stdio, out.f, &st);
	if (err && err != EMBER_EIO)
		cli_error("cannot draw the flame graph: %s",
			  ember_strerror(err));
	int rc = cli_out_close(&out, !err);
	ember_flamegraph_free(fg);
	ember_buf_release(&folded);
	return rc;
}

int cmd_record(int argc, char **argv, const char *preset)
{
	struct ember_record_options ro;
	struct ember_fg_options fo;
	const char *cmd = "record", *output = NULL;
	int *pids = NULL, quiet = 0, c, rc = 1, colors_given = 0;
	size_t npids = 0;
	char *title = NULL;
	double dv;
	long lv;

	(void)preset;
	ember_record_options_init(&ro);
	ember_fg_options_init(&fo);
	fo.countname = NULL;
	opterr = 0;
	optind = 1;
	/* '+': the command's own options are not ours */
	while ((c = getopt_long(argc, argv, "+o:p:aF:c:e:d:m:g:qvh", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &pids, &npids)) {
				free(pids);
				return cli_usage(cmd,
						 "-p takes process ids "
						 "separated by commas, "
						 "not '%s'",
						 optarg);
			}
			break;
		case 'a':
			ro.system_wide = 1;
			break;
		case 'F':
			if (cli_double(optarg, &dv) || dv < 1)
				goto bad_value;
			ro.freq = dv;
			break;
		case 'c':
			if (cli_long(optarg, 1, 0x7fffffffffffffffL, &lv))
				goto bad_value;
			ro.period = (uint64_t)lv;
			break;
		case 'e':
			ro.event = optarg;
			break;
		case 'd':
			if (cli_double(optarg, &dv) || dv <= 0)
				goto bad_value;
			ro.duration = dv;
			break;
		case 'm':
			if (cli_long(optarg, 1, 1L << 20, &lv) ||
			    (lv & (lv - 1)))
				return cli_usage(cmd,
						 "-m takes a power of two "
						 "(pages), not '%s'",
						 optarg);
			ro.mmap_pages = (size_t)lv;
			break;
		case 'g':
			if (parse_call_graph(optarg, &ro)) {
				free(pids);
				return cli_usage(
				    cmd,
				    "--call-graph takes dwarf[,SIZE] (SIZE in "
				    "bytes, 8 to %d) or fp, not '%s'",
				    EMBER_RECORD_STACK_MAX, optarg);
			}
			break;
		case 'q':
			quiet = 1;
			cli_verbose = -1;
			break;
		case 'v':
			cli_verbose++;
			break;
		case 'h':
			help(stdout);
			free(pids);
			return 0;
		case O_NO_KERNEL:
			ro.no_kernel = 1;
			break;
		case O_IDLE:
			ro.idle = 1;
			break;
		case O_JIT_ENV:
			ro.jit_env = 1;
			break;
		case O_NO_JIT_ENV:
			ro.jit_env = 0;
			break;
		case O_ROOT_PID:
			ro.root_pid = 1;
			break;
		case O_ROOT_TID:
			ro.root_tid = 1;
			break;
		case O_KERNEL:
			ro.annotate_kernel = 1;
			break;
		case O_JIT:
			ro.annotate_jit = 1;
			break;
		case O_ALL:
			ro.annotate_kernel = ro.annotate_jit = 1;
			break;
		case O_OFF_CPU:
		case O_WALL:
			if (ro.mode &&
			    ro.mode != (c == O_WALL ? EMBER_RECORD_WALL
						    : EMBER_RECORD_OFFCPU)) {
				free(pids);
				return cli_usage(cmd, "give --off-cpu or "
						      "--wall, not both");
			}
			ro.mode = c == O_WALL ? EMBER_RECORD_WALL
					      : EMBER_RECORD_OFFCPU;
			break;
		case O_MIN_BLOCK:
			if (cli_long(optarg, 0, 0x7fffffffffffffffL / 1000,
				     &lv))
				goto bad_value;
			ro.min_block_us = (uint64_t)lv;
			break;
		case O_TITLE:
			fo.title = optarg;
			break;
		case O_SUBTITLE:
			fo.subtitle = optarg;
			break;
		case O_WIDTH:
			if (cli_long(optarg, 1, 1000000, &lv))
				goto bad_value;
			fo.width = (int)lv;
			break;
		case O_HEIGHT:
			if (cli_long(optarg, 1, 10000, &lv))
				goto bad_value;
			fo.height = (int)lv;
			break;
		case O_MINWIDTH:
			if (parse_minwidth(optarg, &fo))
				goto bad_value;
			break;
		case O_COLORS:
			fo.colors = optarg;
			colors_given = 1;
			break;
		case O_BGCOLORS: {
			char c1[8], c2[8];
			fo.bgcolors = optarg;
			if (ember_fg_bgcolors(optarg, fo.colors, c1, c2))
				goto bad_value;
			break;
		}
		case O_HASH:
			fo.hash = 1;
			break;
		case O_RANDOM:
			fo.random = 1;
			break;
		case O_CP:
			fo.palette_file = "palette.map";
			break;
		case O_REVERSE:
			fo.reverse = 1;
			break;
		case O_INVERTED:
			fo.inverted = 1;
			break;
		case O_COUNTNAME:
			fo.countname = optarg;
			break;
		case O_NAMETYPE:
			fo.nametype = optarg;
			break;
		case O_FONTTYPE:
			fo.fonttype = optarg;
			break;
		case O_FONTSIZE:
			if (cli_double(optarg, &fo.fontsize) ||
			    fo.fontsize <= 0)
				goto bad_value;
			break;
		case O_FONTWIDTH:
			if (cli_double(optarg, &fo.fontwidth) ||
			    fo.fontwidth <= 0)
				goto bad_value;
			break;
		case O_NOTES:
			fo.notes = optarg;
			break;
		case O_FACTOR:
			if (cli_double(optarg, &fo.factor))
				goto bad_value;
			break;
		case O_TOTAL:
			if (cli_double(optarg, &fo.total) || fo.total < 0)
				goto bad_value;
			break;
		case O_ENCODING:
			fo.encoding = optarg;
			break;
		case O_NAMEATTR:
			fo.nameattr_file = optarg;
			break;
		default:
			free(pids);
			return cli_bad_option(cmd, argv, "opFcedmg");
		}
	}
	if (optind < argc)
		ro.argv = argv + optind;
	ro.pids = pids;
	ro.npids = npids;

	int svg = 1;
	if (!output)
		output = "flamegraph.svg";
	if (!strcmp(output, "-") || ends_with(output, ".folded") ||
	    ends_with(output, ".txt"))
		svg = 0;
	else if (cli_output_html(NULL, output))
		fo.html = 1;
	else if (!ends_with(output, ".svg")) {
		free(pids);
		return cli_usage(cmd,
				 "cannot tell the output type of '%s': "
				 "name it .svg, .html, .folded or .txt",
				 output);
	}

	struct ember_record *r;
	int err = ember_record_new(&r, &ro);
	if (err) {
		int usage = err == EMBER_EINVAL;
		if (usage)
			cli_usage(cmd, "%s", ember_record_error(r));
		else
			cli_error("%s", ember_record_error(r));
		ember_record_free(r);
		free(pids);
		return usage ? 2 : 1;
	}
	active = r;
	catch_stop_signals();
	err = ember_record_start(r);
	if (err) {
		cli_error("%s", ember_record_error(r));
		goto out;
	}
	err = ember_record_run(r);
	active = NULL;
	if (err) {
		cli_error("%s", ember_record_error(r));
		goto out;
	}
	const struct ember_record_stats *st = ember_record_stats(r);

	struct ember_intern names;
	struct ember_stacks stacks;
	ember_intern_init(&names);
	ember_stacks_init(&stacks);
	double t_post = now();
	err = ember_record_result(r, &names, &stacks);
	if (st->kernel_excluded)
		cli_warn("kernel frames were not recorded: "
			 "kernel.perf_event_paranoid is 2; set it to 1 with "
			 "'sysctl kernel.perf_event_paranoid=1', or run as "
			 "root");
	if (st->lost)
		cli_warn("%llu samples were lost (the ring buffer was full): "
			 "use a larger -m or a lower -F",
			 (unsigned long long)st->lost);
	if (st->fp_fallback)
		cli_warn("user stacks were walked by frame pointers, which "
			 "break in code built without them: %s",
			 st->fp_fallback);
	if (st->user_stacks &&
	    st->truncated * 20 > st->user_stacks) /* over 5% */
		cli_warn("%.0f%% of user stacks were truncated: %s",
			 100.0 * (double)st->truncated /
			     (double)st->user_stacks,
			 st->stack_size < EMBER_RECORD_STACK_MAX
			     ? "copy more of each stack with --call-graph "
			       "dwarf,65528"
			     : "deeper than the largest stack copy");
	if (err == EMBER_EEMPTY) {
		cli_error("no samples were recorded: the target was idle or "
			  "ran too briefly (try a higher -F)");
		rc = 1;
	} else {
		if (!fo.title)
			fo.title = title = default_title(&ro);
		/* off-CPU graphs are blue, as Gregg draws them */
		if (!colors_given && ro.mode == EMBER_RECORD_OFFCPU)
			fo.colors = "io";
		if (!fo.countname)
			fo.countname = st->weight_us	 ? "us"
				       : st->clock_event ? "ns"
							 : ro.event;
		rc = write_output(output, svg, &fo, &names, &stacks);
	}
	t_post = now() - t_post;
	if (!quiet) {
		fprintf(stderr,
			"ember: recorded %.2f s: %llu samples, %llu lost, "
			"%zu stacks, %zu addresses (%.2f s to symbolize and "
			"write)\n",
			st->seconds, (unsigned long long)st->samples,
			(unsigned long long)st->lost, st->stacks, st->frames,
			t_post);
		if (st->weight_us)
			print_offcpu(st);
		print_unwind(st);
		if (!rc)
			fprintf(stderr, "ember: wrote %s\n",
				strcmp(output, "-") ? output
						    : "standard output");
		if (st->weight > 0 && stacks.n)
			print_top(&names, &stacks, st->weight);
	}
	ember_stacks_release(&stacks);
	ember_intern_release(&names);
	/* a command's status is ours, unless the output failed */
	if (!rc && st->exit_status >= 0)
		rc = st->exit_status;
	else if (rc)
		rc = 1;
out:
	active = NULL;
	ember_record_free(r);
	free(title);
	free(pids);
	return rc;
bad_value:
	free(pids);
	return cli_usage(cmd, "option '%s' has a bad value '%s'",
			 argv[optind - 1], optarg);
}
