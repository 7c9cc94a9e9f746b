/* The ember command: a table of subcommands, and the FlameGraph script
 * names under which ember acts as those scripts. */
#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

static const struct cmd {
	const char *name;
	cmd_fn fn;
	const char *summary;
	cmd_opts_fn opts;
} commands[] = {
    {"record", cmd_record, "sample a command, a process or the system",
     cmd_record_options},
    {"collapse", cmd_collapse, "fold profiler output into folded stacks",
     cmd_collapse_options},
    {"flamegraph", cmd_flamegraph, "render folded stacks as an SVG",
     cmd_flamegraph_options},
    {"diff", cmd_diff, "compare two folded profiles", cmd_diff_options},
};

/* Invoked as one of these names, ember is that FlameGraph script (or
 * inferno's tool of that name). */
static const struct link {
	const char *name;
	cmd_fn fn;
	const char *preset;
} links[] = {
    {"flamegraph", cmd_flamegraph, "compat"},
    {"stackcollapse-perf", cmd_collapse, "perf"},
    {"stackcollapse-stap", cmd_collapse, "stap"},
    {"stackcollapse", cmd_collapse, "dtrace"},
    {"stackcollapse-recursive", cmd_collapse, "recursive"},
    {"stackcollapse-jstack", cmd_collapse, "jstack"},
    {"stackcollapse-gdb", cmd_collapse, "gdb"},
    {"stackcollapse-elfutils", cmd_collapse, "elfutils"},
    {"stackcollapse-bpftrace", cmd_collapse, "bpftrace"},
    {"stackcollapse-go", cmd_collapse, "go"},
    {"stackcollapse-faulthandler", cmd_collapse, "faulthandler"},
    {"stackcollapse-java-exceptions", cmd_collapse, "java-exceptions"},
    {"stackcollapse-perf-sched", cmd_collapse, "perf-sched"},
    {"stackcollapse-sample", cmd_collapse, "sample"},
    {"stackcollapse-ibmjava", cmd_collapse, "ibmjava"},
    {"stackcollapse-ljp", cmd_collapse, "ljp"},
    {"stackcollapse-wcp", cmd_collapse, "wcp"},
    {"stackcollapse-aix", cmd_collapse, "aix"},
    {"stackcollapse-pmc", cmd_collapse, "pmc"},
    {"stackcollapse-instruments", cmd_collapse, "instruments"},
    {"stackcollapse-vtune", cmd_collapse, "vtune"},
    {"stackcollapse-vtune-mc", cmd_collapse, "vtune-mc"},
    {"stackcollapse-vsprof", cmd_collapse, "vsprof"},
    {"stackcollapse-xdebug", cmd_collapse, "xdebug"},
    {"inferno-flamegraph", cmd_flamegraph, "inferno"},
    {"inferno-collapse-perf", cmd_collapse, "perf"},
    {"inferno-collapse-dtrace", cmd_collapse, "dtrace"},
    {"inferno-collapse-sample", cmd_collapse, "sample"},
    {"inferno-collapse-vtune", cmd_collapse, "vtune"},
    {"inferno-collapse-vsprof", cmd_collapse, "vsprof"},
    {"inferno-collapse-guess", cmd_collapse, "guess"},
    {"inferno-collapse-recursive", cmd_collapse, "recursive"},
    {"inferno-collapse-ghcprof", cmd_collapse, "ghcprof"},
    {"inferno-collapse-xctrace", cmd_collapse, "xctrace"},
    {"inferno-diff-folded", cmd_diff, "inferno"},
    {"files", cmd_collapse, "files"},
    {"pkgsplit-perf", cmd_collapse, "pkgsplit-perf"},
    {"range-perf", cmd_collapse, "range-perf"},
    {"difffolded", cmd_diff, "compat"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ember COMMAND [OPTIONS] [ARGS...]\n\n"
		   "ember captures stack samples, folds profiler output and "
		   "draws flame graphs.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-11s %s\n", commands[i].name,
			commands[i].summary);
	fprintf(f,
		"\n'ember COMMAND -h' describes a command's options.\n\n"
		"EXAMPLES\n"
		"  ember record -o profile.svg -- ./myprogram args\n"
		"  perf script | ember collapse perf > out.folded\n"
		"  ember flamegraph out.folded > out.svg\n"
		"  ember diff before.folded after.folded | ember flamegraph > "
		"diff.svg\n");
}

/*
 * `ember __options`: the commands ("command NAME SUMMARY"); `ember
 * __options CMD`: CMD's options as its getopt_long call reads them, "long
 * NAME ARG SHORT" (ARG 0 none, 1 required, 2 optional; SHORT the short
 * option of the same meaning, or -) and "short C ARG", then the values of
 * its arguments ("format NAME SUMMARY" for collapse, "value OPTION VALUE").
 * Fields are tab-separated.  Not for people: the man pages' and shell
 * completions' generators and tests read it, so that they hold every option
 * the tables hold.
 */
static int options(const char *name)
{
	const struct cmd *c = NULL;
	struct option v[CLI_OPTS_MAX];
	const char *s, *summary;

	if (!name) {
		for (size_t i = 0; i < ARRAY_LEN(commands); i++)
			printf("command\t%s\t%s\n", commands[i].name,
			       commands[i].summary);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_LEN(commands); i++)
		if (!strcmp(name, commands[i].name))
			c = &commands[i];
	if (!c) {
		cli_error("'%s' is not a command", name);
		return 2;
	}
	const char *shortopts = c->opts(v);
	s = shortopts + strspn(shortopts, "+-:");
	for (const struct option *o = v; o->name; o++) {
		const char *sh = o->val > 0 && o->val < 128 && o->val != ':'
				     ? strchr(s, o->val)
				     : NULL;
		printf("long\t%s\t%d\t", o->name, o->has_arg);
		if (sh)
			printf("%c\n", *sh);
		else
			printf("-\n");
	}
	for (; *s; s++) {
		if (*s == ':')
			continue;
		printf("short\t%c\t%d\n", *s,
		       s[1] != ':'   ? 0
		       : s[2] == ':' ? 2
				     : 1);
	}
	if (c->fn == cmd_collapse)
		for (size_t i = 0; (s = cmd_collapse_format(i, &summary)); i++)
			printf("format\t%s\t%s\n", s, summary);
	for (const struct option *o = v; o->name; o++)
		if (!strcmp(o->name, "colors"))
			for (size_t i = 0; (s = cli_fg_palette(i)); i++)
				printf("value\tcolors\t%s\n", s);
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

/* One heap for every thread, grown 256 MiB of address space at a time,
 * that first stretch backed by huge pages, and memory freed kept for what
 * comes next.  A fresh 4 KiB page costs a page fault, dear on virtual
 * machines, and ember's tables touch thousands of them: collapse perf of
 * 150 MB of perf script text took 9,300 faults and 0.53 s of CPU, 580
 * and 0.26 s so (peak memory 35 -> 45 MB: huge pages are filled whole);
 * perf.data of 6 s of a machine 1,456 faults and 40 ms, ~600 and 20 ms.
 * Only pages used are memory: the pad is address space. */
#define HEAP_PAD  ((size_t)256 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)
static void heap_setup(void)
{
	if (!mallopt(M_TOP_PAD, (int)HEAP_PAD) ||
	    !mallopt(M_TRIM_THRESHOLD, (int)(2 * HEAP_PAD)) ||
	    !mallopt(M_MMAP_THRESHOLD, 32 << 20) || !mallopt(M_ARENA_MAX, 1))
		return;
	/* a block past the heap's top grows it by the pad now */
	void *p = malloc(1 << 20);
	char *top = sbrk(0);
	if (p && top != (char *)-1 && (char *)p < top) {
		uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
		uintptr_t z = (uintptr_t)top & ~(HUGE_PAGE - 1);
		if (z > a)
			madvise((void *)a, z - a, MADV_HUGEPAGE);
	}
	free(p);
}

int main(int argc, char **argv)
{
	const char *base = argv[0] ? strrchr(argv[0], '/') : NULL;
	char name[64];

	heap_setup();
	base = base ? base + 1 : (argv[0] ? argv[0] : "ember");
	snprintf(name, sizeof(name), "%s", base);
	size_t n = strlen(name);
	/* the scripts' names: .pl, and .awk or .php for a few */
	if (n > 3 && !strcmp(name + n - 3, ".pl"))
		name[n - 3] = '\0';
	else if (n > 4 && (!strcmp(name + n - 4, ".awk") ||
			   !strcmp(name + n - 4, ".php")))
		name[n - 4] = '\0';
	ember_set_log(cli_log, NULL);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		if (!strcmp(name, links[i].name))
			return links[i].fn(argc, argv, links[i].preset);

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "__options"))
		return options(argc > 2 ? argv[2] : NULL);
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("ember %s\n", EMBER_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1, NULL);
	cli_error("'%s' is not a command", cmd);
	usage(stderr);
	return 2;
}
