/* libFuzzer target: any bytes as input to one of the line-based
 * collapsers (gdb, jstack, go, ...).  The first byte picks the format
 * (unless EMBER_FUZZ_FORMAT names it: tests/fuzz/run.sh runs each format
 * from its own corpus, corpus/collapse-more/FORMAT/), the second the
 * format's options, the third the size of the jobs it is cut into.
 * formats: gdb elfutils jstack java-exceptions faulthandler go bpftrace
 * formats: perf-sched sample ibmjava ljp wcp aix pmc instruments
 * formats: vtune vtune-mc vsprof xdebug ghcprof pkgsplit-perf range-perf
 * formats: xctrace
 * max_len: 8192
 */
#include <stdio.h>

#include "collapse-fuzz.h"

static const char *const formats[] = {
    "gdb",	     "elfutils",   "jstack",	  "java-exceptions",
    "faulthandler",  "go",	   "bpftrace",	  "perf-sched",
    "sample",	     "ibmjava",	   "ljp",	  "wcp",
    "aix",	     "pmc",	   "instruments", "vtune",
    "vtune-mc",	     "vsprof",	   "xdebug",	  "ghcprof",
    "pkgsplit-perf", "range-perf", "xctrace",
};
#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *fixed;
	static int init;
	struct ember_collapse_options o;

	if (!init) {
		fixed = getenv("EMBER_FUZZ_FORMAT");
		if (fixed && !*fixed)
			fixed = NULL;
		init = 1;
	}
	if (size < 3)
		return 0;
	ember_collapse_options_init(&o);
	o.format = fixed ? fixed : formats[data[0] % NFORMATS];
	unsigned char m = data[1];
	o.elfutils_pid = m & 1;
	o.elfutils_tid = !!(m & 2);
	o.java_no_tname = !!(m & 4);
	o.java_tid = !!(m & 8);
	o.java_shorten_pkgs = !!(m & 16);
	o.java_no_pkgs = !!(m & 32);
	o.sched_record_tid = m & 1;
	o.sched_record_wake_stack = !!(m & 64);
	o.sched_recurse = !!(m & 128);
	o.sample_no_modules = !!(m & 4);
	o.vtune_size = !!(m & 8);
	o.xdebug_counts = !!(m & 16);
	o.ghcprof_source = (m >> 5) % 3;
	o.range_min = (double)(m & 7) / 4;
	o.range_max = o.range_min + (double)(m >> 3);
	o.range_raw = !!(m & 64);
	o.range_zerosecs = !!(m & 128);
	fuzz_collapse(&o, data + 3, size - 3, data[2]);
	return 0;
}
