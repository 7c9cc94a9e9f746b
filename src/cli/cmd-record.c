/* ember record: sample a command, running processes or the whole system,
 * and write a flame graph or folded stacks, with a summary on stderr. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

static void help(FILE *f)
{
	fprintf(
	    f,
	    "usage: ember record [OPTIONS] [--] [NAME=VALUE...] COMMAND "
	    "[ARGS...]\n"
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
	    "and the summary counts them.  Python 3.13+, Node and Java get the "
	    "switches\n"
	    "that write perf maps (Python 3.13: PYTHONPERFSUPPORT=1 when the "
	    "command is\n"
	    "python3.13 or later, else PYTHON_PERF_JIT_SUPPORT=1; none where "
	    "the user\n"
	    "set either or -X perf; Python 3.12 needs -X perf, which ember "
	    "does "
	    "not\n"
	    "set: on 3.12 it costs C stack on every call); a running JVM is "
	    "asked for\n"
	    "its map (jcmd PID Compiler.perfmap) once recording stops, and "
	    "Java\n"
	    "profiles are drawn in the java palette.  NAME=VALUE words before "
	    "the\n"
	    "command set its environment, as in a shell.\n"
	    "\n"
	    "Ctrl-C stops recording and still writes the output; the command "
	    "got\n"
	    "the Ctrl-C from the terminal and has 3 s to end (its clean-up, "
	    "Python's\n"
	    "KeyboardInterrupt); a second Ctrl-C or the end of those 3 s sends "
	    "it\n"
	    "SIGTERM, then SIGKILL 2 s later.  When -d ends the recording, the "
	    "command\n"
	    "and its children get SIGINT, as from a terminal, and the same "
	    "time.\n"
	    "Exit status: the command's; 0 when ember ended the command itself "
	    "(-d,\n"
	    "or its time was up) and the profile was written; 127 when the "
	    "command\n"
	    "is not found, 126 when it cannot be run; 1 when recording "
	    "failed.  A\n"
	    "command that got no samples gets an empty profile.\n"
	    "\n"
	    "A process in a container is read as it sees its files: its "
	    "programs\n"
	    "through /proc/PID/root, its perf map in its own /tmp under its "
	    "own pid.\n"
	    "A stripped program with no debug file here gets its symbols from "
	    "the\n"
	    "debuginfod servers in DEBUGINFOD_URLS, if set (libdebuginfod's "
	    "cache).\n"
	    "\n"
	    "  -o, --output FILE    FILE.svg: a flame graph (default "
	    "flamegraph.svg);\n"
	    "                       FILE.html: the same in the HTML viewer;\n"
	    "                       FILE.folded, FILE.txt or '-' (standard "
	    "output):\n"
	    "                       folded stacks; FILE.pb.gz: pprof (cpu "
	    "nanoseconds);\n"
	    "                       FILE.speedscope.json: speedscope (a "
	    "profile per\n"
	    "                       thread, samples in time order);\n"
	    "                       FILE.trace.json or FILE.chrome.json: "
	    "Chrome trace\n"
	    "                       events (Chrome DevTools, Perfetto, "
	    "speedscope,\n"
	    "                       the Firefox Profiler); FILE.cpuprofile: "
	    "one Chrome\n"
	    "                       CPU profile; FILE.firefox.json or "
	    "FILE.json: the\n"
	    "                       Firefox Profiler (profiler.firefox.com); "
	    "FILE.perf.txt:\n"
	    "                       perf script text (speedscope, Firefox, "
	    "Perfetto,\n"
	    "                       ember collapse perf).  Checked before the "
	    "command starts;\n"
	    "                       if the final write fails, the profile is "
	    "saved in\n"
	    "                       a temporary file the message names.  With "
	    "the\n"
	    "                       profile on standard output, the "
	    "command's own\n"
	    "                       output goes to standard error\n"
	    "  --open               once the flame graph is written, open it "
	    "($BROWSER,\n"
	    "                       else xdg-open; with no display, its "
	    "file:// URL\n"
	    "                       on stderr)\n"
	    "  --format FMT         the output type, whatever FILE's name "
	    "(/dev/stdout...):\n"
	    "                       svg, html, folded, pprof, speedscope, "
	    "chrome,\n"
	    "                       cpuprofile, firefox or perf-script\n"
	    "  -p PID[,PID...]      profile running processes and their "
	    "threads (the ids\n"
	    "                       separated by commas or spaces: -p "
	    "\"$(pidof nginx)\")\n"
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
	    "                       is then interrupted: SIGINT, 3 s, "
	    "SIGTERM)\n"
	    "  -g, --call-graph dwarf[,SIZE]|fp\n"
	    "                       how user stacks are walked.  dwarf (the "
	    "default\n"
	    "                       where the kernel allows): copy SIZE bytes "
	    "of each\n"
	    "                       sample's user stack (32768, 8192 at "
	    "context "
	    "switches;\n"
	    "                       at most 65528) and unwind them; a larger "
	    "SIZE reaches\n"
	    "                       deeper stacks.\n"
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
	    "for a CPU);\n"
	    "                       without tracefs, [off-cpu: blocked] is S "
	    "or D\n"
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
	    "  --no-python          do not read Python's frames at each sample "
	    "(BPF);\n"
	    "                       they name Python functions in any "
	    "CPython 3.11-3.13\n"
	    "                       process, started with no flag\n"
	    "  --no-jit-env         do not set PYTHONPERFSUPPORT=1 or "
	    "PYTHON_PERF_JIT_SUPPORT=1\n"
	    "                       (Python 3.13+),\n"
	    "                       NODE_OPTIONS "
	    "(--perf-basic-prof-only-functions\n"
	    "                       --interpreted-frames-native-stack) and "
	    "JAVA_TOOL_OPTIONS\n"
	    "                       (-XX:+PreserveFramePointer "
	    "-XX:+DumpPerfMapAtExit...)\n"
	    "                       for the command, nor ask running JVMs for "
	    "their maps\n"
	    "                       (the default: --jit-env)\n"
	    "  --keep-jit-maps      keep the perf maps and jitdumps "
	    "(/tmp/perf-PID.map,\n"
	    "                       /tmp/jit-PID.dump) that the command's "
	    "runtimes wrote\n"
	    "                       only because of those switches (or that "
	    "running JVMs\n"
	    "                       wrote when asked); removed once read\n"
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
	    "  --all                --kernel and --jit, and inlined frames "
	    "end in _[i]\n"
	    "  --no-inline          no frames for inlined calls (by default "
	    "they are read\n"
	    "                       from the DWARF debugging information of "
	    "the program\n"
	    "                       and its libraries, or of their separate "
	    "debug files)\n"
	    "                       (the default: --inline)\n"
	    "\n"
	    "Flame graph options (see 'ember flamegraph -h'): --title "
	    "(default: the\n"
	    "command line), --subtitle, --width, --height, --minwidth, "
	    "--colors,\n"
	    "--bgcolors, --hash, --random, --cp, --reverse, --inverted, "
	    "--countname\n"
	    "(default: ns for clock events, us with --off-cpu and --wall), "
	    "--nametype,\n"
	    "--fonttype, --fontsize, --fontwidth, --notes, --factor, --total, "
	    "--encoding,\n"
	    "--nameattr, and inferno's --deterministic, --colordiffusion,\n"
	    "--truncate-text-right, --no-sort, --pretty-xml, --no-javascript, "
	    "--uicolor,\n"
	    "--search-color, --stroke-color, --base.  --off-cpu draws in the "
	    "io palette\n"
	    "unless --colors says otherwise.\n"
	    "\n"
	    "EXAMPLES\n"
	    "  ember record ./myprogram --input data.txt\n"
	    "  ember record -F 4999 -o build.svg -- make -j2\n"
	    "  ember record -p 1234 -d 10 -o server.folded\n"
	    "  DEBUGINFOD_URLS=https://debuginfod.debian.net ember record "
	    "./stripped\n"
	    "  ember record -a -d 5 --all -o system.svg\n"
	    "  ember record --off-cpu --min-block 1000 -o waits.svg -- "
	    "./server\n"
	    "  ember record --wall -p 1234 -d 10 -o wall.svg\n"
	    "  ember record -o js.svg -- node app.js\n"
	    "  ember record --open -o build.html -- make -j2\n"
	    "  ember record -o py.svg -- python3.12 -X perf app.py\n"
	    "  ember record -o py.svg PYTHONPERFSUPPORT=1 python3.12 app.py\n"
	    "  ember record -o /dev/stdout --format svg -- ./prog > prog.svg\n"
	    "  ember record -o py.svg -- python3.13 -X perf_jit app.py\n"
	    "  ember record -o java.svg -- java -jar app.jar\n"
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
	O_NO_PYTHON,
	O_KEEP_JIT_MAPS,
	O_FORMAT,
	O_ROOT_PID,
	O_ROOT_TID,
	O_KERNEL,
	O_JIT,
	O_ALL,
	O_INLINE,
	O_NO_INLINE,
	O_OFF_CPU,
	O_WALL,
	O_MIN_BLOCK,
	O_OPEN,
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
    {"no-python", no_argument, NULL, O_NO_PYTHON},
    {"keep-jit-maps", no_argument, NULL, O_KEEP_JIT_MAPS},
    {"format", required_argument, NULL, O_FORMAT},
    {"pid", no_argument, NULL, O_ROOT_PID},
    {"tid", no_argument, NULL, O_ROOT_TID},
    {"kernel", no_argument, NULL, O_KERNEL},
    {"jit", no_argument, NULL, O_JIT},
    {"all", no_argument, NULL, O_ALL},
    {"inline", no_argument, NULL, O_INLINE},
    {"no-inline", no_argument, NULL, O_NO_INLINE},
    {"off-cpu", no_argument, NULL, O_OFF_CPU},
    {"wall", no_argument, NULL, O_WALL},
    {"min-block", required_argument, NULL, O_MIN_BLOCK},
    {"open", no_argument, NULL, O_OPEN},
    {NULL, 0, NULL, 0},
};

const char *cmd_record_options(struct option *v)
{
	cli_fg_longopts(v, longopts, 0);
	/* '+': the command's own options are not ours */
	return "+o:p:aF:c:e:d:m:g:qvh";
}

static struct ember_record *active;
/* After recording: what a first Ctrl-C says, and that a second one ends
 * ember (without writing the profile). */
static char busy_msg[160];
static volatile sig_atomic_t busy, busy_told;

static void on_stop_signal(int sig)
{
	if (active)
		ember_record_stop_signal(active, sig);
	if (!busy)
		return;
	if (!busy_told++) {
		ssize_t n = write(2, busy_msg, strlen(busy_msg));
		(void)n;
		return;
	}
	cli_out_signal_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
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

/* "PID[,PID...]", or separated by blanks as pidof prints them (and
 * both); 0, or -1 with the first bad word in bad */
static int parse_pids(const char *s, int **pids, size_t *n, char **bad)
{
	size_t alloc = *n, k = *n;
	static const char sep[] = ", \t\n";

	for (s += strspn(s, sep); *s; s += strspn(s, sep)) {
		size_t len = strcspn(s, sep);
		char *t = ember_xmemdup(s, len);
		long v;
		if (cli_long(t, 1, 0x7fffffff, &v)) {
			*bad = t;
			return -1;
		}
		free(t);
		if (*n + 1 > alloc) {
			alloc = alloc ? alloc * 2 : 4;
			*pids =
			    ember_xreallocarray(*pids, alloc, sizeof(**pids));
		}
		(*pids)[(*n)++] = (int)v;
		s += len;
	}
	if (*n == k) {
		*bad = ember_xmemdup("", 0);
		return -1;
	}
	return 0;
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

static int buf_write(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

#define TOP_NAME_MAX 100

/* A long name shortened to at most TOP_NAME_MAX bytes keeping its end,
 * where C++ and Rust names say which method it is: template arguments
 * (outermost <...>) become "<...>" first, then the middle is cut. */
static void short_name(struct ember_buf *b, const char *s, size_t n)
{
	ember_buf_reset(b);
	if (n <= TOP_NAME_MAX) {
		ember_buf_add(b, s, n);
		return;
	}
	int depth = 0, balanced = 1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '<' && !(i + 1 < n && s[i + 1] == '<') &&
		    !(i && s[i - 1] == '<')) {
			if (!depth++)
				ember_buf_add(b, "<...>", 5);
			continue;
		}
		if (s[i] == '>' && depth) {
			depth--;
			continue;
		}
		if (!depth)
			ember_buf_addch(b, s[i]);
	}
	if (depth)
		balanced = 0;
	if (!balanced || b->len >= n) {
		ember_buf_reset(b);
		ember_buf_add(b, s, n);
	}
	if (b->len > TOP_NAME_MAX) {
		size_t head = TOP_NAME_MAX / 3, tail = TOP_NAME_MAX - head - 3;
		memmove(b->buf + head + 3, b->buf + b->len - tail, tail);
		memcpy(b->buf + head, "...", 3);
		ember_buf_setlen(b, TOP_NAME_MAX);
	}
}

/*
 * The functions with the most self time, as a user reads them: the leaf
 * of each stack, except where it says little.  In a stack with py::
 * frames, the innermost py:: frame stands for the interpreter's C
 * functions under it.  A wait (--off-cpu, --wall: a last frame
 * "[off-cpu: S]") is the frame that blocked, with the state: the
 * innermost py:: frame, else the innermost frame under the kernel's that
 * is not in libc, ld.so or the vdso (their system call wrappers), named
 * or in a module; the marker alone where there is none.
 */
struct top_ent {
	uint32_t id, marker; /* marker: its frame id + 1, 0: on CPU */
	double w;
};

static int cmp_top_key(const void *pa, const void *pb)
{
	const struct top_ent *a = pa, *b = pb;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->marker > b->marker) - (a->marker < b->marker);
}

static int cmp_top_weight(const void *pa, const void *pb)
{
	const struct top_ent *a = pa, *b = pb;

	if (a->w != b->w)
		return a->w < b->w ? 1 : -1;
	return cmp_top_key(pa, pb);
}

static int starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* Whether frame id is in libc, ld.so or the vdso (by p's mappings); -1
 * when it is in no module (kernel, JIT or unknown). */
static int in_system_lib(const struct ember_profile *p, uint32_t id)
{
	if (id >= p->nlocs || !p->loc_mapping[id])
		return -1;
	const char *f = p->mappings[p->loc_mapping[id] - 1].file;
	if (!f)
		return -1;
	const char *b = strrchr(f, '/');
	b = b ? b + 1 : f;
	size_t n = strlen(b);
	return starts(b, n, "libc.so") || starts(b, n, "libc-") ||
	       starts(b, n, "ld-linux") || starts(b, n, "ld-") ||
	       starts(b, n, "libpthread") || starts(b, n, "[vdso]") ||
	       starts(b, n, "linux-vdso");
}

/* The frame of stack f[0..n) a user reads as where its time went. */
static uint32_t top_frame(const struct ember_intern *names,
			  const struct ember_profile *p, const uint32_t *f,
			  size_t n, uint32_t *marker)
{
	size_t len;
	const char *s = ember_intern_str(names, f[n - 1], &len);

	*marker = 0;
	if (n > 1 && starts(s, len, "[off-cpu")) {
		*marker = f[n - 1] + 1;
		n--;
	}
	for (size_t i = n; i-- > 1;) {
		s = ember_intern_str(names, f[i], &len);
		if (starts(s, len, "py::"))
			return f[i];
	}
	if (!*marker)
		return f[n - 1];
	/* the kernel's frames: from its entry (a system call, a fault, an
	 * interrupt) on, else those in no module next to the marker (a
	 * name can be both the kernel's and libc's: futex_wait) */
	size_t i = n;
	while (i > 1 && in_system_lib(p, f[i - 1]) < 0)
		i--;
	for (size_t j = 1; j < n; j++) {
		s = ember_intern_str(names, f[j], &len);
		if (starts(s, len, "entry_SYSCALL") ||
		    starts(s, len, "asm_exc_") ||
		    starts(s, len, "asm_sysvec_") ||
		    starts(s, len, "asm_common_interrupt")) {
			i = j;
			break;
		}
	}
	for (; i > 1; i--) {
		s = ember_intern_str(names, f[i - 1], &len);
		if (in_system_lib(p, f[i - 1]) > 0 ||
		    (len && s[0] == '[' && s[len - 1] == ']'))
			continue;
		return f[i - 1];
	}
	*marker = 0;
	return f[n];
}

static void print_top(struct ember_record *r, const struct ember_intern *names,
		      const struct ember_stacks *s, double total)
{
	size_t ns = ember_stacks_count(s), k = 0;
	struct top_ent *e = ember_xcalloc(ns ? ns : 1, sizeof(*e));
	struct ember_buf b = EMBER_BUF_INIT;
	struct ember_profile p = {.names = names, .stacks = s};

	ember_record_mappings(r, &p);
	for (size_t i = 0; i < ns; i++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(s, i, &n);
		if (!n)
			continue;
		e[k].id = top_frame(names, &p, f, n, &e[k].marker);
		e[k++].w = ember_stacks_weight(s, i, NULL);
	}
	qsort(e, k, sizeof(*e), cmp_top_key);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && !cmp_top_key(&e[m - 1], &e[i]))
			e[m - 1].w += e[i].w;
		else
			e[m++] = e[i];
	}
	qsort(e, m, sizeof(*e), cmp_top_weight);
	fprintf(stderr, "ember: top functions by self time:\n");
	for (size_t i = 0; i < m && i < 8 && e[i].w > 0; i++) {
		size_t len;
		const char *name = ember_intern_str(names, e[i].id, &len);
		short_name(&b, name, len);
		if (e[i].marker && e[i].marker - 1 != e[i].id) {
			name = ember_intern_str(names, e[i].marker - 1, &len);
			ember_buf_addch(&b, ' ');
			ember_buf_add(&b, name, len);
		}
		fprintf(stderr, "  %5.1f%%  ", 100.0 * e[i].w / total);
		cli_put_escaped(stderr, b.buf, b.len);
		fputc('\n', stderr);
	}
	ember_buf_release(&b);
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
	char copies[96];
	if (!st->switch_stack_size || st->switch_stack_size == st->stack_size)
		snprintf(copies, sizeof(copies), "%zu-byte copies",
			 st->switch_stack_size ? st->switch_stack_size
					       : st->stack_size);
	else if (!st->samples)
		snprintf(copies, sizeof(copies), "%zu-byte copies",
			 st->switch_stack_size);
	else
		snprintf(copies, sizeof(copies),
			 "%zu-byte copies (%zu at context switches)",
			 st->stack_size, st->switch_stack_size);
	fprintf(stderr,
		"ember: user stacks: DWARF, %s; %llu unwound, "
		"%llu truncated (%.1f%%), %.2f us each\n",
		copies, (unsigned long long)st->user_stacks,
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

/* The Python functions with the most self time: the innermost py::
 * frame of each stack that has one. */
static void print_top_python(const struct ember_intern *names,
			     const struct ember_stacks *s, double total)
{
	size_t nn = ember_intern_count(names), any = 0;
	struct self_ent *e = ember_xcalloc(nn ? nn : 1, sizeof(*e));
	unsigned char *py = ember_xcalloc(nn ? nn : 1, 1);
	struct ember_buf b = EMBER_BUF_INIT;

	for (size_t i = 0; i < nn; i++) {
		size_t len;
		const char *str = ember_intern_str(names, (uint32_t)i, &len);
		e[i].id = (uint32_t)i;
		py[i] = len > 4 && !memcmp(str, "py::", 4);
		any |= py[i];
	}
	for (size_t i = 0; any && i < ember_stacks_count(s); i++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(s, i, &n);
		while (n && !py[f[n - 1]])
			n--;
		if (n)
			e[f[n - 1]].w += ember_stacks_weight(s, i, NULL);
	}
	qsort(e, nn, sizeof(*e), cmp_self);
	if (any && e[0].w > 0)
		fprintf(stderr, "ember: top Python functions by self time "
				"(their own code and the C they call):\n");
	for (size_t i = 0; any && i < nn && i < 8 && e[i].w > 0; i++) {
		size_t len;
		const char *name = ember_intern_str(names, e[i].id, &len);
		short_name(&b, name, len);
		fprintf(stderr, "  %5.1f%%  ", 100.0 * e[i].w / total);
		cli_put_escaped(stderr, b.buf, b.len);
		fputc('\n', stderr);
	}
	ember_buf_release(&b);
	free(py);
	free(e);
}

/* How Python's frames were read at the samples (BPF). */
static void print_interp(const struct ember_record_stats *st)
{
	if (!st->interp_procs)
		return;
	double n = st->interp_eval ? (double)st->interp_eval : 1;
	fprintf(stderr,
		"ember: Python frames: %zu process%s read at each sample; "
		"%llu of %llu samples in the interpreter (%.1f%%) have them\n",
		st->interp_procs, st->interp_procs == 1 ? "" : "es",
		(unsigned long long)st->interp_eval_merged,
		(unsigned long long)st->interp_eval,
		100.0 * (double)st->interp_eval_merged / n);
	if (cli_verbose > 0)
		fprintf(stderr,
			"ember: Python samples %llu, merged %llu, without "
			"the program's frames %llu, without a thread state "
			"%llu, runs unpaired %llu, records lost %llu\n",
			(unsigned long long)st->interp_samples,
			(unsigned long long)st->interp_merged,
			(unsigned long long)st->interp_unmatched,
			(unsigned long long)st->interp_no_tstate,
			(unsigned long long)st->interp_mismatched,
			(unsigned long long)st->interp_ring_full);
}

/* CPython's interpreter loop sampled, but no py:: frame named: a Python
 * that writes no perf map by default (3.12). */
static int python_unnamed(const struct ember_intern *names)
{
	int eval = 0;

	for (size_t i = 0; i < ember_intern_count(names); i++) {
		size_t len;
		const char *s = ember_intern_str(names, (uint32_t)i, &len);
		if (len > 4 && !memcmp(s, "py::", 4))
			return 0;
		if (!strcmp(s, "_PyEval_EvalFrameDefault"))
			eval = 1;
	}
	return eval;
}

/* What names a runtime's JIT code: the switch that writes its perf map. */
static const char *perfmap_switch(int runtime)
{
	switch (runtime) {
	case EMBER_RUNTIME_NODE:
		return "start it with node --perf-basic-prof (or "
		       "NODE_OPTIONS=--perf-basic-prof)";
	case EMBER_RUNTIME_JAVA:
		return "start it with -XX:+UnlockDiagnosticVMOptions "
		       "-XX:+DumpPerfMapAtExit, or run 'jcmd PID "
		       "Compiler.perfmap' before it ends";
	case EMBER_RUNTIME_DOTNET:
		return "start it with DOTNET_PerfMapEnabled=1";
	case EMBER_RUNTIME_PYTHON:
		return "start it with -X perf or PYTHONPERFSUPPORT=1";
	default:
		return "a JIT writes one when asked (node --perf-basic-prof, "
		       "java -XX:+DumpPerfMapAtExit, python3 -X perf)";
	}
}

/* Python functions of one process not named: what works for its
 * version. */
static void python_note(const struct ember_record_jit_note *n, int jit_env)
{
	char ver[32] = "";

	if (n->python > 0)
		snprintf(ver, sizeof(ver), ", Python %d.%d", n->python / 100,
			 n->python % 100);
	fprintf(stderr,
		"ember: note: Python functions are not named (no py:: "
		"frames) in process %d%s: ",
		n->pid, ver);
	if (n->python > 0 && n->python < 312)
		fprintf(stderr,
			"Python %d.%d has no perf support; 3.12 and "
			"later can be named (-X perf)\n",
			n->python / 100, n->python % 100);
	else if (n->attached)
		fprintf(stderr,
			"it runs without perf support; restart it "
			"with -X perf or PYTHONPERFSUPPORT=1, or have "
			"it call sys.activate_stack_trampoline(\"perf\")"
			"\n");
	else if (n->python == 312 && jit_env)
		fprintf(stderr, "run it with -X perf or PYTHONPERFSUPPORT=1 "
				"(ember does not ask 3.12: there it makes a "
				"recursion deeper than about 750 calls "
				"fail)\n");
	else
		fprintf(stderr, "run it with -X perf or PYTHONPERFSUPPORT=1 "
				"(3.12 and later)\n");
}

/* The processes whose JIT code or Python functions went unnamed. */
static void print_jit_notes(const struct ember_record_stats *st, int py_unnamed,
			    int jit_env)
{
	int told = 0;

	for (size_t i = 0; i < st->njit_notes && told < 4; i++) {
		const struct ember_record_jit_note *n = &st->jit_notes[i];
		if (n->no_map) {
			fprintf(stderr,
				"ember: note: JIT code of process %d is not "
				"named ([perf-%d.map] frames): it wrote no "
				"/tmp/perf-%d.map; %s\n",
				n->pid, n->pid, n->pid,
				perfmap_switch(n->runtime));
			told++;
		} else if (py_unnamed) {
			python_note(n, jit_env);
			told++;
		}
	}
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
	if (st->offcpu_cs)
		fprintf(stderr,
			"ember: off-CPU: switches from the context-switches "
			"event (%s): waits are [off-cpu: R] when preempted, "
			"else [off-cpu: blocked], sleeping (S) and "
			"uninterruptible (D) not told apart\n",
			st->offcpu_cs);
	if (st->lost_waits)
		cli_warn("%llu waits were left out: records were lost while "
			 "they went on (use a larger -m, or a smaller stack "
			 "copy with --call-graph dwarf,4096)",
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

/* The output type: CLI_SVG, CLI_HTML, CLI_FOLDED, CLI_PPROF,
 * CLI_SPEEDSCOPE. */
enum { FMT_NONE = -1 };

/*
 * Where the profile goes, opened before the command starts so that a bad
 * path fails at once (cli_out_open: a regular file under a temporary name
 * beside it, devices and FIFOs directly).  With the profile on standard
 * output ('-', or a path that is the same file), the command's own output
 * goes to our standard error, so that the two do not mix.
 */
struct rec_out {
	const char *path;
	int fmt;
	int is_stdout;
	struct cli_out file;
};

static int same_file(const char *path, int fd)
{
	struct stat a, b;

	return !stat(path, &a) && !fstat(fd, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static int write_fd(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* When the output cannot be written, the profile is kept in a new file
 * under $TMPDIR (or /tmp); 1 after saying where. */
static int save_elsewhere(const struct ember_buf *data, int fmt)
{
	const char *dir = getenv("TMPDIR");
	const char *ext = cli_format_ext(fmt);
	char path[PATH_MAX];

	if (!dir || !*dir)
		dir = "/tmp";
	int n =
	    snprintf(path, sizeof(path), "%s/ember-record-XXXXXX%s", dir, ext);
	int fd = n > 0 && (size_t)n < sizeof(path)
		     ? mkstemps(path, (int)strlen(ext))
		     : -1;
	if (fd < 0 || write_fd(fd, data->buf, data->len) || close(fd)) {
		cli_error("the profile is lost: cannot write a temporary "
			  "file in '%s' either",
			  dir);
		if (fd >= 0)
			unlink(path);
		return 1;
	}
	cli_error("the profile is saved in '%s'", path);
	return 1;
}

/* Writes the profile (drawn first, so that a failed write can still keep
 * it); 0, or 1 after printing why. */
static int out_write(struct rec_out *o, struct ember_record *r,
		     struct ember_fg_options *fo,
		     const struct ember_intern *names,
		     struct ember_stacks *stacks, const char *type,
		     const char *unit)
{
	struct ember_buf data = EMBER_BUF_INIT;
	int err, rc;

	ember_stacks_sort(stacks, names);
	if (o->fmt == CLI_PPROF || 1u << o->fmt & CLI_TIMED_FORMATS) {
		struct ember_profile p = {
		    .names = names,
		    .stacks = stacks,
		    .sample_type = type,
		    .sample_unit = unit,
		    .thread_roots = 1, /* comm, comm-PID or comm-PID/TID */
		    .name = fo->title,
		};
		ember_record_mappings(r, &p);
		struct ember_prof *prof = ember_record_profile(r);
		p.prof = prof;
		switch (o->fmt) {
		case CLI_PPROF:
			err = ember_pprof_write(&p, buf_write, &data);
			break;
		case CLI_SPEEDSCOPE:
			err = ember_speedscope_write(&p, buf_write, &data);
			break;
		case CLI_CHROME:
		case CLI_CPUPROFILE:
			err = ember_chrome_write(&p, o->fmt == CLI_CPUPROFILE,
						 buf_write, &data);
			break;
		case CLI_FIREFOX:
			err = ember_firefox_write(&p, buf_write, &data);
			break;
		default:
			err = ember_perfscript_write(&p, buf_write, &data);
			break;
		}
		ember_prof_free(prof);
	} else if (o->fmt == CLI_SVG || o->fmt == CLI_HTML) {
		struct ember_buf folded = EMBER_BUF_INIT;
		struct ember_flamegraph *fg;
		struct ember_fg_stats st;
		err = ember_stacks_write(stacks, names, 0, buf_write, &folded);
		fo->html = o->fmt == CLI_HTML;
		fg = ember_flamegraph_new(fo);
		ember_flamegraph_add(fg, "record", folded.buf, folded.len);
		/* the page's tracks and stack chart: the samples in time */
		struct ember_prof *prof =
		    fo->html ? ember_record_profile(r) : NULL;
		ember_flamegraph_set_prof(fg, prof);
		if (!err)
			err =
			    ember_flamegraph_render(fg, buf_write, &data, &st);
		if (err == EMBER_EEMPTY) /* the SVG says so */
			err = 0;
		ember_flamegraph_free(fg);
		ember_prof_free(prof);
		ember_buf_release(&folded);
	} else {
		err = ember_stacks_write(stacks, names, 0, buf_write, &data);
	}
	if (err) {
		cli_error("cannot draw the flame graph: %s",
			  ember_strerror(err));
		cli_out_close(&o->file, 0);
		ember_buf_release(&data);
		return 1;
	}
	/* a short write leaves the stream's error set, which cli_out_close
	 * reports */
	fwrite(data.buf, 1, data.len, o->file.f);
	rc = cli_out_close(&o->file, 1);
	if (rc)
		save_elsewhere(&data, o->fmt);
	ember_buf_release(&data);
	return rc;
}

/* The option's names as typed: "-F/--freq", "--width". */
static void option_name(char *out, size_t size, int c)
{
	for (const struct option *o = longopts; o->name; o++) {
		if (o->val != c)
			continue;
		if (c < 256)
			snprintf(out, size, "-%c/--%s", c, o->name);
		else
			snprintf(out, size, "--%s", o->name);
		return;
	}
	snprintf(out, size, "-%c", c);
}

/* A bad option value: the option, what it accepts, and what was given. */
static int bad_value(const char *cmd, int c, const char *arg)
{
	char name[48], range[160];
	long max;

	option_name(name, sizeof(name), c);
	switch (c) {
	case 'F':
		max = ember_record_max_freq();
		if (max > 0)
			snprintf(range, sizeof(range),
				 "samples per second, from 1 to %ld "
				 "(kernel.perf_event_max_sample_rate)",
				 max);
		else
			snprintf(range, sizeof(range),
				 "samples per second, 1 or more");
		break;
	case 'c':
		snprintf(range, sizeof(range),
			 "a whole number of events, from 1 to %ld", LONG_MAX);
		break;
	case 'd':
		snprintf(range, sizeof(range),
			 "a number of seconds above 0 (such as 2.5)");
		break;
	case O_FORMAT:
		snprintf(range, sizeof(range),
			 "svg, html, folded, pprof, speedscope, chrome, "
			 "cpuprofile, firefox or perf-script");
		break;
	default: /* --min-block */
		snprintf(range, sizeof(range),
			 "a whole number of microseconds, from 0 to %ld",
			 LONG_MAX / 1000);
		break;
	}
	return cli_usage(cmd, "option '%s' takes %s, not '%s'", name, range,
			 arg);
}

int cmd_record(int argc, char **argv, const char *preset)
{
	struct ember_record_options ro;
	struct ember_fg_options fo;
	const char *cmd = "record", *output = NULL;
	struct rec_out out = {NULL, FMT_NONE, 0, {NULL, NULL, NULL, NULL}};
	int *pids = NULL, quiet = 0, c, rc = 1, colors_given = 0, open_it = 0;
	size_t npids = 0;
	char *badpid = NULL;
	char *title = NULL;
	double dv;
	long lv;

	(void)preset;
	ember_record_options_init(&ro);
	ember_fg_options_init(&fo);
	fo.countname = NULL;
	const char *default_colors = fo.colors;
	opterr = 0;
	optind = 1;
	struct option opts[CLI_OPTS_MAX];
	const char *shortopts = cmd_record_options(opts);
	while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
		int fg = cli_fg_option(cmd, c, optarg, &fo);
		if (fg == 1)
			continue;
		if (fg) {
			free(pids);
			return fg;
		}
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'p':
			if (parse_pids(optarg, &pids, &npids, &badpid)) {
				free(pids);
				int urc = cli_usage(
				    cmd,
				    *badpid ? "-p: '%s' is not a process id "
					      "(-p takes process ids "
					      "separated by commas or spaces)"
					    : "-p takes process ids separated "
					      "by commas or spaces%s",
				    badpid);
				free(badpid);
				return urc;
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
		case O_NO_PYTHON:
			ro.no_interp = 1;
			break;
		case O_KEEP_JIT_MAPS:
			ro.keep_jit_maps = 1;
			break;
		case O_FORMAT:
			out.fmt = FMT_NONE;
			for (int f = 0; f < CLI_NFORMATS; f++)
				if (!strcmp(optarg, cli_format_name(f)))
					out.fmt = f;
			if (out.fmt == FMT_NONE)
				goto bad_value;
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
			ro.annotate_inline = 1;
			break;
		case O_INLINE:
			ro.inline_frames = 1;
			break;
		case O_NO_INLINE:
			ro.inline_frames = 0;
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
		case O_OPEN:
			open_it = 1;
			break;
		default:
			free(pids);
			return cli_bad_option(cmd, argv, "opFcedmg");
		}
	}
	if (cli_fg_check(cmd, &fo)) {
		free(pids);
		return 2;
	}
	colors_given = fo.colors != default_colors;
	if (optind < argc)
		ro.argv = argv + optind;
	ro.pids = pids;
	ro.npids = npids;

	out.path = output ? output : "flamegraph.svg";
	if (out.fmt == FMT_NONE) {
		/* .svg .folded .pb.gz .speedscope.json, as every command */
		if (cli_format_pick(cmd, NULL, out.path, CLI_ALL_FORMATS,
				    FMT_NONE, &out.fmt)) {
			free(pids);
			return 2;
		}
		if (!strcmp(out.path, "-") ||
		    (out.fmt == FMT_NONE && ends_with(out.path, ".txt")))
			out.fmt = CLI_FOLDED;
		else if (out.fmt == FMT_NONE) {
			free(pids);
			return cli_usage(
			    cmd,
			    "cannot tell the output type of "
			    "'%s': name it .svg, .html, .folded, "
			    ".txt, .pb.gz, .speedscope.json, .trace.json, "
			    ".cpuprofile, .firefox.json or .perf.txt, or "
			    "give --format svg|html|folded|pprof|speedscope|"
			    "chrome|cpuprofile|firefox|perf-script",
			    out.path);
		}
	}

	/* the profile on standard output: the command's own output goes to
	 * standard error, so that the two do not mix */
	out.is_stdout = !strcmp(out.path, "-") || same_file(out.path, 1);
	if (out.is_stdout && ro.argv)
		ro.child_stdout = 2;
	if (open_it &&
	    cli_open_check(cmd, out.is_stdout ? "-" : out.path, out.fmt)) {
		free(pids);
		return 2;
	}

	struct ember_record *r;
	/* what where tracefs is missing: off-CPU from the context-switches
	 * event (for testing the fallback; undocumented in -h) */
	const char *sw_event = getenv("EMBER_OFF_CPU_EVENT");
	ro.context_switches =
	    sw_event &&
	    (!strcmp(sw_event, "cs") || !strcmp(sw_event, "context-switches"));
	/* pprof, speedscope, Chrome, Firefox and perf script hold samples
	 * with their times, threads, addresses and lines */
	ro.profile = out.fmt == CLI_PPROF || out.fmt == CLI_HTML ||
		     1u << out.fmt & CLI_TIMED_FORMATS;
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
	if (cli_out_open(&out.file, out.path))
		goto out;
	active = r;
	catch_stop_signals();
	err = ember_record_start(r);
	if (err) {
		int e = ember_record_stats(r)->exec_errno;
		cli_error("%s", ember_record_error(r));
		cli_out_close(&out.file, 0);
		/* as env(1), timeout(1) and shells: not found, not runnable */
		if (e)
			rc = e == ENOENT || e == ENOTDIR ? 127 : 126;
		goto out;
	}
	err = ember_record_run(r);
	active = NULL;
	snprintf(busy_msg, sizeof(busy_msg),
		 "\nember: recording stopped; naming frames and writing the "
		 "profile (interrupt again to quit without it)\n");
	busy = 1;
	if (err) {
		cli_error("%s", ember_record_error(r));
		cli_out_close(&out.file, 0);
		goto out;
	}
	const struct ember_record_stats *st = ember_record_stats(r);

	struct ember_intern *names = ember_intern_new();
	struct ember_stacks *stacks = ember_stacks_new();
	double t_post = now();
	/* ember's own threads only: the profiled command has ended */
	double cpu_post = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	err = ember_record_result(r, names, stacks);
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
	/* most frame-pointer chains broke off: code without them */
	int fp_broken = st->fp_user_weight > 0 &&
			st->fp_broken_weight * 2 > st->fp_user_weight;
	if (fp_broken)
		cli_warn("%.0f%% of user stacks are frame-pointer chains that "
			 "broke off after a few frames: the code has no frame "
			 "pointers; record with DWARF unwinding (the default, "
			 "--call-graph dwarf) instead",
			 100.0 * st->fp_broken_weight / st->fp_user_weight);
	if (st->fp_truncated && !fp_broken)
		cli_warn("%llu stacks reached the kernel's limit of %ld "
			 "frames and are cut ([truncated]): raise it with "
			 "'sysctl kernel.perf_event_max_stack=1024', or use "
			 "--call-graph dwarf",
			 (unsigned long long)st->fp_truncated, st->max_stack);
	if (st->user_stacks &&
	    st->truncated * 20 > st->user_stacks) { /* over 5% */
		/* off-CPU: the copy at switches, the smaller */
		size_t copy = st->switch_stack_size ? st->switch_stack_size
						    : st->stack_size;
		uint64_t other = st->truncated - st->truncated_copy;
		struct ember_buf why = EMBER_BUF_INIT;
		if (st->truncated_copy && copy < EMBER_RECORD_STACK_MAX)
			ember_buf_addf(
			    &why,
			    "%llu deeper than the %zu-byte stack copy "
			    "(copy more with --call-graph "
			    "dwarf,65528)",
			    (unsigned long long)st->truncated_copy, copy);
		else if (st->truncated_copy)
			ember_buf_addf(
			    &why,
			    "%llu deeper than the largest stack copy "
			    "the kernel gives (64 KiB less the "
			    "sample's other fields)",
			    (unsigned long long)st->truncated_copy);
		if (other)
			ember_buf_addf(&why,
				       "%s%llu in code whose unwinding "
				       "information and frame pointers did "
				       "not lead on",
				       st->truncated_copy ? "; " : "",
				       (unsigned long long)other);
		cli_warn("%.0f%% of user stacks were truncated: %s",
			 100.0 * (double)st->truncated /
			     (double)st->user_stacks,
			 why.buf);
		ember_buf_release(&why);
	}
	if (err == EMBER_EEMPTY) {
		/* an idle or short command: an empty profile, not an error */
		cli_warn("no samples were recorded: %s",
			 ro.argv ? "the command ran too briefly or did not use "
				   "the CPU"
				 : "the target did not use the CPU");
		fo.empty_text = "No samples were recorded";
	}
	if (!fo.title)
		fo.title = title = default_title(&ro);
	/* off-CPU graphs are blue, as Gregg draws them */
	if (!colors_given && ro.mode == EMBER_RECORD_OFFCPU)
		fo.colors = "io";
	/* Java green, the JVM's C++ yellow, as Java flame graphs are */
	else if (!colors_given && ro.mode == EMBER_RECORD_CPU && st->jvms)
		fo.colors = "java";
	if (!fo.countname)
		fo.countname = st->weight_us	 ? "us"
			       : st->clock_event ? "ns"
						 : ro.event;
	/* what pprof and speedscope call the weights */
	const char *type =
	    st->weight_us
		? (ro.mode == EMBER_RECORD_OFFCPU ? "off-cpu" : "wall")
	    : st->clock_event ? "cpu"
	    : ro.event	      ? ro.event
			      : "cpu-clock";
	const char *unit = st->weight_us     ? "microseconds"
			   : st->clock_event ? "nanoseconds"
					     : "count";
	rc = out_write(&out, r, &fo, names, stacks, type, unit);
	busy = 0; /* written: nothing left to interrupt */
	t_post = now() - t_post;
	cpu_post = clock_s(CLOCK_PROCESS_CPUTIME_ID) - cpu_post;
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
		print_interp(st);
		if (cli_verbose > 0)
			fprintf(stderr,
				"ember: %llu frames of inlined calls, from "
				"DWARF%s; %.3f s of CPU time to symbolize and "
				"write\n",
				(unsigned long long)st->inlined,
				ro.inline_frames ? "" : " (--no-inline)",
				cpu_post);
		if (!rc)
			cli_note("wrote %s", strcmp(out.path, "-")
						 ? out.path
						 : "standard output");
		if (st->weight > 0 && ember_stacks_count(stacks)) {
			print_top(r, names, stacks, st->weight);
			print_top_python(names, stacks, st->weight);
		}
		print_jit_notes(st, python_unnamed(names), ro.jit_env);
	}
	ember_stacks_free(stacks);
	ember_intern_free(names);
	if (!rc && open_it)
		cli_open(out.path);
	/* a command's status is ours, unless the output failed or ember
	 * ended the command itself (-d) */
	if (!rc && st->exit_status >= 0 && !st->command_stopped)
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
	return bad_value(cmd, c, optarg);
}
