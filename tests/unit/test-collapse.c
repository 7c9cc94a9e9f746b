/* Unit tests of the collapse library: perf frame names (shared with ember
 * record), folded lines, guessing, the driver's counters and threads. */
#include <stdlib.h>

#include "ember.h"
#include "symbols/names.h"
#include "harness.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *names(const char *sym, const char *dso, int flags)
{
	static struct ember_buf b = EMBER_BUF_INIT;
	struct ember_perf_frame f = {sym,	  strlen(sym), dso,
				     strlen(dso), "7f00",      4};

	ember_buf_reset(&b);
	int n = ember_perf_frame_names(&f, flags, &b);
	if (n < 0)
		return "(error)";
	return n ? b.buf : "(none)";
}

static void test_frame_names(void)
{
	CHECK_STR(names("main+0x1f", "/bin/a", 0), "main");
	CHECK_STR(names("main+0x1F", "/bin/a", 0), "main+0x1F");
	CHECK_STR(names("foo(int, char*)", "/bin/a", 0), "foo");
	CHECK_STR(names("a;b", "/bin/a", 0), "a:b");
	CHECK_STR(names("RegExp:[&<>\"']", "/tmp/perf-1.map", 0),
		  "RegExp:[&<>]");
	CHECK_STR(names("[unknown]", "/usr/lib/libz.so.1", 0), "[libz.so.1]");
	CHECK_STR(names("[unknown]", "[unknown]", 0), "[unknown]");
	CHECK_STR(names("[unknown]", "/usr/lib/libz.so.1", EMBER_PERF_ADDRS),
		  "[libz.so.1 <7f00>]");
	CHECK_STR(names("[unknown]", "[unknown]", EMBER_PERF_ADDRS),
		  "[unknown <7f00>]");
	CHECK_STR(names("Lcom/x/Y;.m(I)V", "/tmp/perf-9.map", EMBER_PERF_JAVA),
		  "com/x/Y:.m");
	CHECK_STR(names("Lcom/x/Y;.m(I)V", "/tmp/perf-9.map", 0),
		  "Lcom/x/Y:.m");
	CHECK_STR(names("a->b->c", "/tmp/perf-9.map", 0), "a;b_[i];c_[i]");
	CHECK_STR(names("a->b_[i]", "/tmp/perf-9.map", 0), "a;b_[i]");
	CHECK_STR(names("a->->", "/x", 0), "a");
	CHECK_STR(names("->a", "/x", 0), ";a_[i]");
	CHECK_STR(names("->", "/x", 0), "(none)");
	CHECK_STR(names("+0x10", "/x", 0), "(none)");
	CHECK_STR(names("(/usr/bin/x)", "/x", 0), "(none)");
	CHECK_STR(names("(anonymous namespace)::f(int)", "/x", 0),
		  "(anonymous namespace)::f");
	CHECK_STR(names("net/http.(*Client).Do", "/x", 0),
		  "net/http.(*Client).Do");
	CHECK_STR(names("std::vector<std::pair<int, int (*)(int)> >::at(int)",
			"/x", 0),
		  "std::vector<std::pair<int, int (*)(int)> >::at");
	CHECK_STR(names("X::operator()(int) const", "/x", 0), "X::operator()");
	CHECK_STR(names("X::operator<(X const&)", "/x", 0), "X::operator<");
	CHECK_STR(names("X::operator->()", "/x", 0), "X::operator->");
	CHECK_STR(names("<fn() -> u8 as FnOnce<()>>::call_once", "/x", 0),
		  "<fn() -> u8 as FnOnce<()>>::call_once");
	/* annotations */
	CHECK_STR(names("schedule", "[kernel.kallsyms]", EMBER_PERF_KERNEL),
		  "schedule_[k]");
	CHECK_STR(
	    names("f", "/lib/modules/6.1/build/vmlinux", EMBER_PERF_KERNEL),
	    "f_[k]");
	CHECK_STR(names("[unknown]", "[unknown]", EMBER_PERF_KERNEL),
		  "[unknown]");
	CHECK_STR(names("f", "/tmp/perf-12.map", EMBER_PERF_JIT), "f_[j]");
	CHECK_STR(names("f_[j]", "/tmp/perf-12.map", EMBER_PERF_JIT), "f_[j]");
	CHECK_STR(names("f", "/tmp/perf-x.map", EMBER_PERF_JIT), "f");
	CHECK_STR(
	    names("f", "/root/.debug/jit/j-1/jitted-1-2.so", EMBER_PERF_JIT),
	    "f_[j]");
	CHECK_STR(names("f", "/tmp/perf-12.map", EMBER_PERF_KERNEL), "f");
	CHECK_STR(names("a->b", "[kernel.kallsyms]", EMBER_PERF_KERNEL),
		  "a_[k];b_[i]");
	/* appends to what the buffer holds */
	struct ember_buf b = EMBER_BUF_INIT;
	struct ember_perf_frame f = {"x->y", 4, "/x", 2, "1", 1};
	ember_buf_adds(&b, "root;");
	CHECK(ember_perf_frame_names(&f, 0, &b) == 2);
	CHECK_STR(b.buf, "root;x;y_[i]");
	ember_buf_release(&b);
}

static char out[65536];
static size_t outlen;

static int to_mem(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	if (outlen + n >= sizeof(out))
		return EMBER_EIO;
	memcpy(out + outlen, p, n);
	outlen += n;
	out[outlen] = '\0';
	return 0;
}

static const char *run(const char *format, int threads, size_t job,
		       const char *input,
		       const struct ember_collapse_stats **stp)
{
	static struct ember_collapse *c;
	struct ember_collapse_options o;

	if (c)
		ember_collapse_free(c);
	ember_collapse_options_init(&o);
	o.format = format;
	o.threads = threads;
	o.job_size = job;
	if (ember_collapse_new(&c, &o))
		return "(new failed)";
	outlen = 0;
	out[0] = '\0';
	int err = ember_collapse_mem(c, "in", input, strlen(input));
	if (err)
		return err == EMBER_EFORMAT ? "(format)" : "(error)";
	if (ember_collapse_write(c, to_mem, NULL))
		return "(write failed)";
	if (stp)
		*stp = ember_collapse_stats(c);
	return out;
}

static void test_driver(void)
{
	const struct ember_collapse_stats *st;
	struct ember_collapse *c;
	struct ember_collapse_options o;
	const char *perf =
	    "# comment\n"
	    "app 1 [000] 1.0: 10 cycles:\n\t1 f+0x1 (/a)\n\t2 main (/a)\n\n"
	    "junk line\n"
	    "app 1 [000] 1.1: 4 instructions:\n\t1 g (/a)\n\n"
	    "app 1 [000] 1.2: cycles:\n\t1 f+0x2 (/a)\n\t2 main (/a)\n\n"
	    "app 1 [000] 1.3: 2 cycles:\n\t1 h (/a)\n";

	CHECK_STR(run("perf", 1, 0, perf, &st), "app;main;f 11\n");
	CHECK(st->lines == 15);
	CHECK(st->records == 2);
	CHECK(st->stacks == 1);
	CHECK(st->bad.count == 1 && st->bad.first_line == 6);
	CHECK_STR(st->bad.first_text, "junk line");
	CHECK_STR(st->event, "cycles");
	CHECK(st->event_defaulted);
	CHECK(st->filtered == 1);
	CHECK_STR(st->filtered_event, "instructions");
	CHECK(st->truncated == 1);
	CHECK_STR(st->format, "perf");
	/* the same on threads, the input cut in tiny jobs */
	for (size_t job = 1; job < 80; job += 7) {
		CHECK_STR(run("perf", 3, job, perf, &st), "app;main;f 11\n");
		CHECK(st->lines == 15 && st->bad.count == 1 &&
		      st->bad.first_line == 6 && st->filtered == 1 &&
		      st->truncated == 1);
	}
	CHECK_STR(run(NULL, 1, 0, perf, &st), "app;main;f 11\n");
	CHECK_STR(run(NULL, 1, 0, "not a profile\n", NULL), "(format)");
	CHECK_STR(run("stap", 2, 5,
		      " 0x1 : f+0x1/0x2 [a]\n 0x2 : main+0x3/0x4 [a]\n\t3\n\n"
		      " 0x1 : f+0x1/0x2 [a]\n 0x2 : main+0x3/0x4 [a]\n 4\n",
		      NULL),
		  "main;f 7\n");
	CHECK_STR(
	    run("dtrace", 2, 5,
		"CPU ID FUNCTION:NAME\n 0 1 :tick\n\n a`f+0x1\n a`main\n 3\n",
		NULL),
	    "a`main;a`f 3\n");
	CHECK_STR(run("recursive", 2, 3, "a;b;b;c 1\na;b;c 2\n", NULL),
		  "a;b;c 3\n");
	/* inputs one after another: a record left open is dropped */
	ember_collapse_options_init(&o);
	o.format = "stap";
	CHECK(ember_collapse_new(&c, &o) == 0);
	CHECK(ember_collapse_mem(c, "1", " 0x1 : f+0x1/0x2 [a]\n", 21) == 0);
	CHECK(ember_collapse_mem(c, "2", " 0x1 : g+0x1/0x2 [a]\n 5\n", 24) ==
	      0);
	outlen = 0;
	CHECK(ember_collapse_write(c, to_mem, NULL) == 0);
	CHECK_STR(out, "g 5\n");
	st = ember_collapse_stats(c);
	CHECK(st->truncated == 1 && !strcmp(st->truncated_input, "1"));
	ember_collapse_free(c);
	/* bad options */
	ember_collapse_options_init(&o);
	o.format = "nope";
	CHECK(ember_collapse_new(&c, &o) == EMBER_EINVAL && !c);
	run(NULL, 1, 0, "", NULL); /* frees the last run */
}

static void test_guess(void)
{
	const char *perf = "app 1 [000] 1.0: 1 cycles:\n\t1 f (/a)\n\n";
	const char *stap = " 0x000000000000129b : spin+0x3b/0x7b [/a]\n\t3\n";
	const char *dtrace = "CPU     ID                    FUNCTION:NAME\n";
	const char *dtrace2 = "\n\n\n  libc.so.1`memcpy+0x1\n  a`main\n  3\n";

	CHECK_STR(ember_collapse_guess(perf, strlen(perf)), "perf");
	CHECK_STR(ember_collapse_guess(stap, strlen(stap)), "stap");
	CHECK_STR(ember_collapse_guess(dtrace, strlen(dtrace)), "dtrace");
	CHECK_STR(ember_collapse_guess(dtrace2, strlen(dtrace2)), "dtrace");
	CHECK(!ember_collapse_guess("a;b 1\n", 6));
	CHECK(!ember_collapse_guess("", 0));
	CHECK(ember_collapse_is_folded("a;b 1\nc 2\n", 10));
	CHECK(!ember_collapse_is_folded(perf, strlen(perf)));
	const char *name, *summary;
	size_t n = 0;
	int chrome = 0;
	while ((name = ember_collapse_format(n, &summary))) {
		CHECK(name[0] && summary[0]);
		chrome += !strcmp(name, "chrome");
		n++;
	}
	/* every format listed once */
	static const char *const want[] = {
	    "perf",
	    "stap",
	    "dtrace",
	    "recursive",
	    "jstack",
	    "gdb",
	    "elfutils",
	    "bpftrace",
	    "go",
	    "faulthandler",
	    "java-exceptions",
	    "perf-sched",
	    "sample",
	    "ibmjava",
	    "ljp",
	    "wcp",
	    "aix",
	    "pmc",
	    "instruments",
	    "vtune",
	    "vtune-mc",
	    "vsprof",
	    "xdebug",
	    "ghcprof",
	    "files",
	    "pkgsplit-perf",
	    "range-perf",
	    "xctrace",
	};
	for (size_t w = 0; w < sizeof(want) / sizeof(want[0]); w++) {
		int seen = 0;
		for (size_t i = 0; (name = ember_collapse_format(i, NULL)); i++)
			seen += !strcmp(name, want[w]);
		CHECK(seen == 1);
	}
	CHECK(n >= sizeof(want) / sizeof(want[0]));
	/* the formats that came later recognise their own and leave
	 * perf's, stap's and dtrace's alone (above) */
	const char *gdb = "[New LWP 2]\n\nThread 2 (Thread 0x7f00 (LWP 2) "
			  "\"w\"):\n#0  0x0000 in f () at a.c:1\n";
	const char *eu = "PID 42 - process\nTID 42:\n#0  0x1 main\n";
	const char *js = "2024-01-01 10:00:00\nFull thread dump OpenJDK:\n";
	const char *bt = "Attaching 1 probe...\n\n\n@[\n    f+1\n]: 3\n";
	const char *go = "PeriodType: cpu nanoseconds\nPeriod: 1\nSamples:\n";
	const char *fh = "Thread 0x00007f (most recent call first):\n"
			 "  File \"a.py\", line 3 in f\n";
	const char *jx = "java.lang.IllegalStateException: x\n"
			 "\tat com.example.A.f(A.java:3)\n";
	CHECK_STR(ember_collapse_guess(gdb, strlen(gdb)), "gdb");
	CHECK_STR(ember_collapse_guess(eu, strlen(eu)), "elfutils");
	CHECK_STR(ember_collapse_guess(js, strlen(js)), "jstack");
	CHECK_STR(ember_collapse_guess(bt, strlen(bt)), "bpftrace");
	CHECK_STR(ember_collapse_guess(go, strlen(go)), "go");
	CHECK_STR(ember_collapse_guess(fh, strlen(fh)), "faulthandler");
	CHECK_STR(ember_collapse_guess(jx, strlen(jx)), "java-exceptions");
	const char *sa = "Analysis of sampling rg (pid 1) every 1 millisecond\n"
			 "Call graph:\n    825 Thread_1\n";
	const char *ij = "0SECTION       TITLE subcomponent dump routine\n";
	const char *in = "Weight\tSelf Weight\t\tSymbol Name\n";
	CHECK_STR(ember_collapse_guess(sa, strlen(sa)), "sample");
	CHECK_STR(ember_collapse_guess(ij, strlen(ij)), "ibmjava");
	CHECK_STR(ember_collapse_guess(in, strlen(in)), "instruments");
	const char *xd = "Version: 3.2.0\nFile format: 4\n"
			 "TRACE START [2026-11-30 23:38:47.494341]\n";
	const char *gh =
	    "\tTue Nov 30 2026 Time and Allocation Profiling Report"
	    "\n\nCOST CENTRE  MODULE  SRC  no.  entries  %time "
	    "%alloc   %time %alloc\n";
	CHECK_STR(ember_collapse_guess(xd, strlen(xd)), "xdebug");
	CHECK_STR(ember_collapse_guess(gh, strlen(gh)), "ghcprof");
	const char *xc = "<?xml version=\"1.0\"?>\n<trace-query-result>\n";
	const char *vt = "Function Stack,Module,CPU Time:Total,CPU Time:Self\n";
	const char *vm = "war: Column filter is ON.\nFunction Stack,Allocation "
			 "Size:Self,Deallocation Size:Self\n";
	const char *vs = "\xef\xbb\xbfLevel,Function Name,Number of Calls\n";
	CHECK_STR(ember_collapse_guess(xc, strlen(xc)), "xctrace");
	CHECK_STR(ember_collapse_guess(vt, strlen(vt)), "vtune");
	CHECK_STR(ember_collapse_guess(vm, strlen(vm)), "vtune-mc");
	CHECK_STR(ember_collapse_guess(vs, strlen(vs)), "vsprof");
	CHECK(chrome == 1);
	/* trace events: an object led by traceEvents, a bare array of events,
	 * or traceEvents later in the object */
	static const char *const chrome_starts[] = {
	    "{\"traceEvents\":[",
	    " [ {\"ph\":\"X\"",
	    "{\"meta\":1,\"traceEvents\":[]}",
	};
	for (size_t i = 0; i < ARRAY_LEN(chrome_starts); i++)
		CHECK_STR(ember_collapse_guess(chrome_starts[i],
					       strlen(chrome_starts[i])),
			  "chrome");
	CHECK(!ember_collapse_guess("{\"a\":1}", 7));
}

int main(void)
{
	test_frame_names();
	test_driver();
	test_guess();
	DONE();
}
