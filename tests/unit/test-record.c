/* Unit tests of the profiler's parts that need no perf_event_open: symbol
 * tables and perf's alias rules, name folding, perf maps and their trust
 * checks, kallsyms, process mappings, ELF symbols and hostile ELF files,
 * and DWARF samples (registers and a stack copy) made of this process's
 * own stack. */
#include <elf.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "symbols/elf.h"
#include "perf/events.h"
#include "record/java.h"
#include "perf/offcpu.h"
#include "symbols/procfs.h"
#include "perf/procmap.h"
#include "record/reader.h"
#include "record/ring.h"
#include "perf/symbolize.h"
#include "symbols/symtab.h"
#include "symbols/names.h"
#include "record/target.h"

static void test_symtab_aliases(void)
{
	struct rec_symtab st;

	rec_symtab_init(&st, REC_SYMTAB_ELF);
	/* perf: local aliases -> fewer leading underscores */
	rec_symtab_add(&st, 0x1000, 0x100, "__GI_____strtod_l_internal", 26,
		       STB_LOCAL, 0);
	rec_symtab_add(&st, 0x1000, 0x100, "____strtod_l_internal", 21,
		       STB_LOCAL, 0);
	/* global beats local */
	rec_symtab_add(&st, 0x2000, 0x80, "__GI__IO_file_xsputn", 20, STB_LOCAL,
		       0);
	rec_symtab_add(&st, 0x2000, 0x80, "_IO_file_xsputn@@GLIBC_2.2.5", 28,
		       STB_GLOBAL, 0);
	/* non-weak beats weak, sized beats unsized */
	rec_symtab_add(&st, 0x3000, 0x10, "clock_gettime", 13, STB_WEAK, 0);
	rec_symtab_add(&st, 0x3000, 0x10, "__vdso_clock_gettime", 20,
		       STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x4000, 0, "unsized", 7, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x4000, 0x20, "sized", 5, STB_LOCAL, 0);
	/* zero size: up to the next symbol */
	rec_symtab_add(&st, 0x5000, 0, "gap_filler", 10, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x5100, 0x10, "after", 5, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x6000, 0x10, "_ZN3FooC2Ev", 11, STB_GLOBAL, 0);
	st.demangle = 1;
	rec_symtab_finish(&st);
	const struct rec_sym *s = rec_symtab_find(&st, 0x1050);
	CHECK(s && !strcmp(s->name, "__GI_____strtod_l_internal"));
	s = rec_symtab_find(&st, 0x2000);
	CHECK(s && !strcmp(s->name, "_IO_file_xsputn@@GLIBC_2.2.5"));
	s = rec_symtab_find(&st, 0x3008);
	CHECK(s && !strcmp(s->name, "__vdso_clock_gettime"));
	s = rec_symtab_find(&st, 0x4004);
	CHECK(s && !strcmp(s->name, "sized"));
	CHECK(rec_symtab_find(&st, 0x4030) == NULL); /* past its size */
	s = rec_symtab_find(&st, 0x50ff);
	CHECK(s && !strcmp(s->name, "gap_filler"));
	CHECK(rec_symtab_find(&st, 0xfff) == NULL);
	s = rec_symtab_find(&st, 0x6000);
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "Foo::Foo"));
	rec_symtab_release(&st);

	/* C++ aliases alike but for their names: the demangled names
	 * decide, fewer leading '_' then the longer, whenever the symbol is
	 * named; aliases of other sizes are chosen at once */
	rec_symtab_init(&st, REC_SYMTAB_ELF);
	st.demangle = 1;
	rec_symtab_add(&st, 0x1000, 0x10, "_ZN2_a1fEv", 10, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x1000, 0x10, "_ZN1b1fEv", 9, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x1000, 0x10, "_ZN1c1fEv", 9, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x2000, 0x10, "_ZN1A1fEv", 9, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x2000, 0x10, "_ZN1A4longEv", 12, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x2000, 0x10, "_ZN1A4wideEv", 12, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x3000, 0x10, "_ZN1A1gEv", 9, STB_WEAK, 0);
	rec_symtab_add(&st, 0x3000, 0x10, "_ZN1B5localEv", 13, STB_LOCAL, 0);
	rec_symtab_add(&st, 0x3000, 0x10, "_ZN1C2gmEv", 10, STB_LOCAL, 0);
	rec_symtab_add(&st, 0x4000, 0x10, "_ZN1D1fEv", 9, STB_GLOBAL, 0);
	rec_symtab_add(&st, 0x4000, 0x40, "_ZN1D4longEv", 12, STB_GLOBAL, 0);
	rec_symtab_finish(&st);
	s = rec_symtab_find(&st, 0x1008);
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "b::f"));
	CHECK(s && s->end == 0x1010);
	s = rec_symtab_find(&st, 0x2000);
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "A::long"));
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "A::long")); /* again */
	s = rec_symtab_find(&st, 0x3000);
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "B::local"));
	s = rec_symtab_find(&st, 0x4030); /* the longer-sized one */
	CHECK(s && !strcmp(rec_symtab_name(&st, s), "D::long"));
	CHECK(s && s->end == 0x4040);
	rec_symtab_release(&st);

	rec_symtab_init(&st, REC_SYMTAB_ELF);
	rec_symtab_finish(&st); /* empty */
	CHECK(rec_symtab_find(&st, 1) == NULL);
	rec_symtab_release(&st);
}

/* A table added in no order (as a .symtab is): sorted by address with
 * the aliases at one address in order of addition, the same as qsort by
 * (start, order) gives, for addresses differing in low and high bytes. */
static void test_symtab_unsorted(void)
{
	struct rec_symtab st;
	enum { N = 5000 };
	char name[32];
	uint64_t x = 88172645463325252ull;

	rec_symtab_init(&st, REC_SYMTAB_ELF);
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* 1000 distinct starts: each shared by about 5 symbols */
		uint64_t start = (x % 1000) * 0x10;
		start |= (x % 1000) % 3 == 0 ? 0x7f0000000000ull : 0;
		snprintf(name, sizeof(name), "f%05d", i);
		/* all alike (unsized, local, names of one length): the
		 * first added is kept */
		rec_symtab_add(&st, start, 0, name, strlen(name), STB_LOCAL, 1);
	}
	/* the expected: the first symbol added at each start */
	static int first[1000];
	for (int k = 0; k < 1000; k++)
		first[k] = -1;
	x = 88172645463325252ull;
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		if (first[x % 1000] < 0)
			first[x % 1000] = i;
	}
	rec_symtab_finish(&st);
	int ok = 1;
	for (size_t i = 1; i < st.n; i++)
		ok &= st.syms[i - 1].start < st.syms[i].start;
	CHECK(ok);
	ok = 1;
	for (int k = 0; k < 1000; k++) {
		if (first[k] < 0)
			continue;
		uint64_t a =
		    (uint64_t)k * 0x10 | (k % 3 == 0 ? 0x7f0000000000ull : 0);
		const struct rec_sym *s = rec_symtab_find(&st, a);
		snprintf(name, sizeof(name), "f%05d", first[k]);
		ok &= s && s->start == a && !strcmp(s->name, name);
	}
	CHECK(ok);
	rec_symtab_release(&st);
}

/* One table finished both ways: what rec_symtab_finish_lazy's lookups
 * give must be what rec_symtab_finish's give, name included. */
static int same_lookup(struct rec_symtab *a, struct rec_symtab *b,
		       uint64_t addr)
{
	const struct rec_sym *x = rec_symtab_find(a, addr);
	const struct rec_sym *y = rec_symtab_find(b, addr);

	if (!x || !y)
		return !x && !y;
	return x->start == y->start && x->end == y->end &&
	       !strcmp(rec_symtab_name(a, x), rec_symtab_name(b, y));
}

static void symtab_twice(struct rec_symtab *a, struct rec_symtab *b, int n,
			 uint64_t seed, int demangle)
{
	static const char *const names[] = {
	    "f",	"_f",		"__f",	     "f@@V_2",	       "f@V_1",
	    "longer_f", "_ZN1A1fEv",	"_ZN1B1gEi", "g@@GLIBC_2.2.5", "@odd",
	    "h@V",	"_ZN1A1fEv@@V", "", /* dropped when finished */
	};
	uint64_t x = seed;

	rec_symtab_init(a, REC_SYMTAB_ELF);
	rec_symtab_init(b, REC_SYMTAB_ELF);
	a->demangle = b->demangle = demangle;
	for (int i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* clusters far apart, gaps, shared starts (aliases) */
		uint64_t start = (x >> 8) % 4096 * 0x20;
		if (x % 7 == 0)
			start += 0x7f0000000000ull;
		else if (x % 5 == 0)
			start += 0x400000;
		uint64_t size = x % 3 == 0 ? 0 : (x >> 20) % 0x60;
		const char *name = names[(x >> 32) % ARRAY_SIZE(names)];
		int bind = (int)((x >> 40) % 3); /* local, global, weak */
		int compat = (x >> 44) % 11 == 0;
		rec_symtab_add_elf(a, start, size, name, bind, compat);
		rec_symtab_add_elf(b, start, size, name, bind, compat);
	}
	rec_symtab_finish(a);
	rec_symtab_finish_lazy(b);
}

static void test_symtab_lazy(void)
{
	struct rec_symtab a, b;
	int ok = 1, lazy = 1;

	for (int round = 0; round < 6; round++) {
		int n = round < 2 ? 100 : round < 4 ? 5000 : 20000;
		symtab_twice(&a, &b, n, 88172645463325252ull + (uint64_t)round,
			     round & 1);
		lazy &= n < 1024 || b.bk != NULL;
		uint64_t x = 0x2545f4914f6cdd1dull ^ (uint64_t)round;
		/* around every start and end, then anywhere */
		for (size_t i = 0; i < a.n; i++) {
			uint64_t s = a.syms[i].start, e = a.syms[i].end;
			ok &= same_lookup(&a, &b, s) &&
			      same_lookup(&a, &b, s - 1) &&
			      same_lookup(&a, &b, s + 1) &&
			      same_lookup(&a, &b, e) &&
			      same_lookup(&a, &b, e - 1);
		}
		for (int i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			uint64_t addr = x % 3 == 0   ? x
					: x % 3 == 1 ? 0x7f0000000000ull +
							   (x >> 24) % 0x30000
						     : (x >> 24) % 0x500000;
			ok &= same_lookup(&a, &b, addr);
		}
		ok &= same_lookup(&a, &b, 0) && same_lookup(&a, &b, UINT64_MAX);
		rec_symtab_release(&a);
		rec_symtab_release(&b);
	}
	CHECK(lazy);
	CHECK(ok);
	/* all one start: one bucket */
	rec_symtab_init(&b, REC_SYMTAB_ELF);
	for (int i = 0; i < 2000; i++)
		rec_symtab_add_elf(&b, 0x1000, i == 1500 ? 0x10 : 0,
				   i == 1500 ? "sized" : "unsized", STB_GLOBAL,
				   0);
	rec_symtab_finish_lazy(&b);
	const struct rec_sym *s = rec_symtab_find(&b, 0x1008);
	CHECK(s && !strcmp(rec_symtab_name(&b, s), "sized"));
	CHECK(rec_symtab_find(&b, 0x1010) == NULL);
	CHECK(rec_symtab_find(&b, 0xfff) == NULL);
	rec_symtab_release(&b);
	/* empty names, added unread, are left out when finished, both
	 * ways: an unsized symbol before one reaches the next named start,
	 * past a bucket of empty names alone */
	for (int lazy_way = 0; lazy_way < 2; lazy_way++) {
		rec_symtab_init(&b, REC_SYMTAB_ELF);
		rec_symtab_add_elf(&b, 0x1000, 0, "before", STB_GLOBAL, 0);
		rec_symtab_add_elf(&b, 0x1800, 0x10, "", STB_GLOBAL, 0);
		for (int i = 0; i < 1100; i++)
			rec_symtab_add_elf(&b, 0x100000 + 0x10 * (uint64_t)i,
					   0x10, "", STB_GLOBAL, 0);
		rec_symtab_add_elf(&b, 0x200000, 0x10, "after", STB_GLOBAL, 0);
		rec_symtab_add_elf(&b, 0x200000, 0x10, "", STB_GLOBAL, 0);
		if (lazy_way)
			rec_symtab_finish_lazy(&b);
		else
			rec_symtab_finish(&b);
		s = rec_symtab_find(&b, 0x1804);
		CHECK(s && !strcmp(rec_symtab_name(&b, s), "before"));
		s = rec_symtab_find(&b, 0x100004);
		CHECK(s && s->end == 0x200000 &&
		      !strcmp(rec_symtab_name(&b, s), "before"));
		s = rec_symtab_find(&b, 0x200004);
		CHECK(s && !strcmp(rec_symtab_name(&b, s), "after"));
		rec_symtab_release(&b);
	}
	/* versions looked at when named: the default one's name, without
	 * it; an old binaries' alias loses */
	rec_symtab_init(&b, REC_SYMTAB_ELF);
	rec_symtab_add_elf(&b, 0x2000, 0x10, "cfree@GLIBC_2.2.5", STB_GLOBAL,
			   0);
	rec_symtab_add_elf(&b, 0x2000, 0x10, "free@@GLIBC_2.2.5", STB_GLOBAL,
			   0);
	rec_symtab_add_elf(&b, 0x3000, 0x10, "memcpy@@GLIBC_2.14", STB_GLOBAL,
			   0);
	rec_symtab_finish(&b);
	s = rec_symtab_find(&b, 0x2004);
	CHECK(s && !strcmp(rec_symtab_name(&b, s), "free"));
	s = rec_symtab_find(&b, 0x3004);
	CHECK(s && !strcmp(rec_symtab_name(&b, s), "memcpy"));
	rec_symtab_release(&b);
}

/* A real library's tables, .dynsym and .symtab, finished both ways. */
static void test_symtab_lazy_elf(void)
{
	const char *paths[] = {"/usr/lib/x86_64-linux-gnu/libc.so.6",
			       "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
			       "/proc/self/exe"};
	int ok = 1, tried = 0;

	for (size_t p = 0; p < ARRAY_SIZE(paths); p++)
		for (int dynsym = 0; dynsym < 2; dynsym++) {
			struct rec_elf e;
			struct rec_symtab a, b;
			if (rec_elf_open(&e, paths[p]))
				continue;
			rec_symtab_init(&a, REC_SYMTAB_ELF);
			rec_symtab_init(&b, REC_SYMTAB_ELF);
			a.demangle = b.demangle = 1;
			rec_elf_symbols(&e, &a, dynsym);
			rec_elf_symbols(&e, &b, dynsym);
			rec_elf_plt_symbols(&e, &a);
			rec_elf_plt_symbols(&e, &b);
			tried += a.n >= 1024;
			rec_symtab_finish(&a);
			rec_symtab_finish_lazy(&b);
			for (size_t i = 0; i < a.n; i++) {
				uint64_t s = a.syms[i].start;
				uint64_t e2 = a.syms[i].end;
				ok &= same_lookup(&a, &b, s) &&
				      same_lookup(&a, &b, s + 1) &&
				      same_lookup(&a, &b, s - 1) &&
				      same_lookup(&a, &b, e2);
			}
			rec_symtab_release(&a);
			rec_symtab_release(&b);
			rec_elf_close(&e);
		}
	CHECK(tried > 0);
	CHECK(ok);
}

static void test_demangle(void)
{
	char *d = rec_demangle("_ZNSt6vectorIiSaIiEE9push_backEOi");
	CHECK_STR(d, "std::vector<int, std::allocator<int> >::push_back");
	free(d);
	d = rec_demangle("_ZN4core3fmt5write17h5f8b6c1c1d2b3a4eE");
	CHECK_STR(d, "core::fmt::write");
	free(d);
	d = rec_demangle("_RNvMNtCs4fqI2P2rA04_11utf8_decode7decoderNtB2_"
			 "7Decoder4next");
	CHECK_STR(d, "<utf8_decode::decoder::Decoder>::next");
	free(d);
	CHECK(rec_demangle("main") == NULL);
	CHECK(rec_demangle("_Z") == NULL);
	CHECK(rec_demangle("_ZZZZZ(((") == NULL);
}

static const char *foldf(const char *sym, const char *dso, int flags)
{
	static struct ember_buf b = EMBER_BUF_INIT;

	ember_buf_reset(&b);
	rec_fold_frame(&b, sym, strlen(sym), dso, strlen(dso), flags);
	return b.buf;
}

static const char *fold(const char *in)
{
	return foldf(in, "/usr/lib/libx.so", 0);
}

static void test_fold(void)
{
	CHECK_STR(fold("main"), "main");
	CHECK_STR(fold("v8::internal::(anonymous namespace)::Invoke"),
		  "v8::internal::(anonymous namespace)::Invoke");
	CHECK_STR(fold("(anonymous namespace)::f"), "(anonymous namespace)::f");
	CHECK_STR(fold("(perf pseudo frame)"), "");
	CHECK_STR(fold("foo(int, char)"), "foo");
	CHECK_STR(fold("std::function<void ()>::operator()"),
		  "std::function<void ()>::operator()");
	CHECK_STR(fold("main::{lambda(int)#1}::operator()"),
		  "main::{lambda(int)#1}::operator()");
	CHECK_STR(fold("bool operator<(A const&, A const&)"), "bool operator<");
	CHECK_STR(fold("net/http.(*Client).Do"), "net/http.(*Client).Do");
	CHECK_STR(fold("a;b"), "a:b");
	CHECK_STR(fold("say \"hi\" 'x'"), "say hi x");
	CHECK_STR(fold("JS:~ node:internal/main/run_main_module:1:1"),
		  "JS:~ node:internal/main/run_main_module:1:1");
	/* no symbol: the module's name */
	CHECK_STR(foldf("[unknown]", "[kernel.kallsyms]", 0),
		  "[[kernel.kallsyms]]");
	CHECK_STR(foldf("[unknown]", "/usr/lib/libc.so.6", 0), "[libc.so.6]");
	CHECK_STR(foldf("[unknown]", "[unknown]", REC_FOLD_KERNEL),
		  "[unknown]");
	/* annotations */
	CHECK_STR(foldf("do_syscall_64", "[kernel.kallsyms]", REC_FOLD_KERNEL),
		  "do_syscall_64_[k]");
	CHECK_STR(foldf("__vdso_time", "[vdso]", REC_FOLD_KERNEL),
		  "__vdso_time_[k]");
	CHECK_STR(foldf("JS:*f", "/tmp/perf-12.map", REC_FOLD_JIT),
		  "JS:*f_[j]");
	CHECK_STR(foldf("[unknown]", "/tmp/perf-12.map", REC_FOLD_JIT),
		  "[perf-12.map]_[j]");
	CHECK_STR(foldf("f_[j]", "/tmp/perf-12.map", REC_FOLD_JIT), "f_[j]");
	/* perf inject --jit's images of jitdump code, as inferno has it */
	CHECK_STR(foldf("py::f:/x.py", "/tmp/jitted-12-3.so", REC_FOLD_JIT),
		  "py::f:/x.py_[j]");
	CHECK_STR(foldf("f", "/tmp/jitted-12-3.so.1", REC_FOLD_JIT), "f");
	CHECK_STR(foldf("main", "/bin/x", REC_FOLD_KERNEL | REC_FOLD_JIT),
		  "main");
	/* inlined parts, and Java's type letter */
	CHECK_STR(foldf("outer->mid->inner", "/bin/x", 0),
		  "outer;mid_[i];inner_[i]");
	CHECK_STR(foldf("Lcom/x/Y;.m(I)V", "/tmp/perf-1.map", REC_FOLD_JAVA),
		  "com/x/Y:.m");
}

static void test_perfmap_parse(void)
{
	struct rec_symtab st;
	size_t bad;
	const char text[] =
	    "7fa35fe757b1 b py::top:/home/user/hot.py\n"
	    "0x7f4990006200 310 JS:*leaf /home/user/hot.js:1:14\r\n"
	    "\n"
	    "garbage line\n"
	    "1000 zz name\n"
	    "2000 10\n"
	    "ffffffffffffffff 10 wraps\n"
	    "7fa35fe757b1 b py::later:/x.py\n"
	    "3000 10 trunc"; /* a last line being written */

	rec_symtab_init(&st, REC_SYMTAB_PERFMAP);
	size_t n = rec_perfmap_parse(&st, text, strlen(text), &bad);
	CHECK(n == 4);
	CHECK(bad == 4);
	rec_symtab_finish(&st);
	const struct rec_sym *s = rec_symtab_find(&st, 0x7fa35fe757b5);
	/* reused address: the last entry wins */
	CHECK(s && !strcmp(s->name, "py::later:/x.py"));
	s = rec_symtab_find(&st, 0x7f4990006200 + 0x30f);
	CHECK(s && !strcmp(s->name, "JS:*leaf /home/user/hot.js:1:14"));
	CHECK(rec_symtab_find(&st, 0x7f4990006200 + 0x310) == NULL);
	s = rec_symtab_find(&st, 0x3005);
	CHECK(s && !strcmp(s->name, "trunc"));
	rec_symtab_release(&st);

	/* a last line cut short is not an error; in the middle it is */
	rec_symtab_init(&st, REC_SYMTAB_PERFMAP);
	rec_perfmap_parse(&st, "1000 10 a\n20", 12, &bad);
	CHECK(bad == 0);
	rec_perfmap_parse(&st, "20\n1000 10 a\n", 13, &bad);
	CHECK(bad == 1);
	rec_symtab_release(&st);
}

/* A HotSpot perf map name, renamed as perf-map-agent writes it and
 * folded for a java process; "" when it is left as it is. */
static const char *java_name(const char *in)
{
	struct ember_buf b = EMBER_BUF_INIT;
	static char out[256];

	out[0] = '\0';
	if (rec_java_agent_name(&b, in, strlen(in)))
		snprintf(out, sizeof(out), "%s",
			 foldf(b.buf, "/tmp/perf-1.map", REC_FOLD_JAVA));
	ember_buf_release(&b);
	return out;
}

static void test_java(void)
{
	CHECK_STR(java_name("long Hot.b(long)"), "LHot:::b");
	CHECK_STR(java_name("void com.x.Y.m()"), "com/x/Y:::m");
	CHECK_STR(java_name("java.lang.Object[] java.util.ArrayList.toArray()"),
		  "java/util/ArrayList:::toArray");
	CHECK_STR(java_name("void java.lang.Object.<init>()"),
		  "java/lang/Object:::<init>");
	CHECK_STR(java_name("int com.x.Y$Inner.run(int, java.lang.String[])"),
		  "com/x/Y$Inner:::run");
	CHECK_STR(java_name("void Hot$$Lambda$14/0x0000000800c03000.run()"),
		  "Hot$$Lambda$14/0x0000000800c03000:::run");
	/* the interpreter and stubs keep their names */
	CHECK_STR(java_name("Interpreter"), "");
	CHECK_STR(java_name("StubRoutines (1)"), "");
	CHECK_STR(java_name("I2C/C2I adapters"), "");
	CHECK_STR(java_name("void .m()"), "");
	CHECK_STR(java_name("void Y.()"), "");
	CHECK_STR(java_name("void Y()"), "");
	CHECK_STR(java_name("void a b.c()"), "");
	CHECK_STR(java_name(" x.y()"), "");
	CHECK_STR(java_name("long Hot.b(long"), "");

	char *s = rec_java_tool_options(NULL);
	CHECK(strstr(s, "-XX:+PreserveFramePointer") != NULL);
	CHECK(strstr(s, "-XX:+DumpPerfMapAtExit") != NULL);
	free(s);
	/* the user's own switches come last, and win */
	s = rec_java_tool_options("-XX:-PreserveFramePointer");
	CHECK(strstr(s, "-XX:-PreserveFramePointer") > strstr(s, "+Preserve"));
	free(s);
	char *plain[] = {"java", "-cp", ".", "Hot", NULL};
	char *own[] = {"java", "-XX:+DumpPerfMapAtExit", "Hot", NULL};
	char *agent[] = {"java", "-agentpath:/x/libperfmap.so", "Hot", NULL};
	unsetenv("JAVA_TOOL_OPTIONS");
	unsetenv("JDK_JAVA_OPTIONS");
	unsetenv("_JAVA_OPTIONS");
	CHECK(!rec_java_asks_perfmap(plain));
	CHECK(rec_java_asks_perfmap(own));
	CHECK(rec_java_asks_perfmap(agent));
	setenv("JAVA_TOOL_OPTIONS", "-XX:+DumpPerfMapAtExit", 1);
	CHECK(rec_java_asks_perfmap(plain));
	unsetenv("JAVA_TOOL_OPTIONS");
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0)
			t_fail++;
		close(fd);
	}
}

static void test_perfmap_trust(void)
{
	char dir[] = "/tmp/ember-unit-XXXXXX", path[128], other[128];
	struct rec_perfmap_owner o = {0};
	struct rec_symtab st;
	struct ember_buf why = EMBER_BUF_INIT;
	struct timespec now;

	if (!mkdtemp(dir)) {
		t_fail++;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	o.pid = 4242;
	o.uid = geteuid();
	o.uid_known = 1;
	o.start = (double)now.tv_sec - 10;
	snprintf(path, sizeof(path), "%s/perf-4242.map", dir);
	snprintf(other, sizeof(other), "%s/real.map", dir);

	rec_symtab_init(&st, REC_SYMTAB_PERFMAP);
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_MISSING);
	write_file(path, "1000 10 jitted\n");
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_OK);
	CHECK(st.n == 1 && why.len == 0);

	/* written before the process started */
	struct timespec t[2] = {{now.tv_sec - 3600, 0}, {now.tv_sec - 3600, 0}};
	utimensat(AT_FDCWD, path, t, 0);
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_STALE);
	CHECK(strstr(why.buf, "ignoring") != NULL);
	ember_buf_reset(&why);
	/* written after it ended */
	o.start = (double)now.tv_sec - 7200;
	o.end = (double)now.tv_sec - 5000;
	write_file(path, "1000 10 jitted\n");
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_NEWER);
	o.end = 0;
	ember_buf_reset(&why);
	/* another user's */
	o.uid = geteuid() + 1;
	if (geteuid() != 0)
		CHECK(rec_perfmap_load(&st, dir, &o, &why) ==
		      REC_PERFMAP_FOREIGN);
	else /* root's files are trusted */
		CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_OK);
	o.uid = geteuid();
	ember_buf_reset(&why);
	/* writable by anyone */
	chmod(path, 0666);
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_FOREIGN);
	CHECK(strstr(why.buf, "anyone may write it") != NULL);
	chmod(path, 0664); /* the group's: as perf, trusted */
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_OK);
	ember_buf_reset(&why);
	/* a symbolic link */
	unlink(path);
	write_file(other, "1000 10 jitted\n");
	if (!symlink(other, path)) {
		CHECK(rec_perfmap_load(&st, dir, &o, &why) ==
		      REC_PERFMAP_NOT_REGULAR);
		CHECK(strstr(why.buf, "symbolic link") != NULL);
	}
	ember_buf_reset(&why);
	unlink(path);
	mkdir(path, 0700);
	CHECK(rec_perfmap_load(&st, dir, &o, &why) == REC_PERFMAP_NOT_REGULAR);
	rmdir(path);
	unlink(other);
	rmdir(dir);
	ember_buf_release(&why);
	rec_symtab_release(&st);
}

/* A process's files through a stand-in for /proc/PID: a directory whose
 * "root" leads to a tree of its own, and a "status" with NSpid. */
static void test_procfs_root(void)
{
	char dir[] = "/tmp/ember-unit-XXXXXX", p[256], q[256];
	struct rec_perfmap_owner o = {0};
	struct rec_symtab st;
	struct ember_buf why = EMBER_BUF_INIT;
	struct stat sb;

	if (!mkdtemp(dir)) {
		t_fail++;
		return;
	}
	const char *dirs[] = {"proc", "rootfs", "rootfs/tmp", "rootfs/usr",
			      "secret"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		mkdir(p, 0755);
	}
	snprintf(p, sizeof(p), "%s/rootfs", dir);
	snprintf(q, sizeof(q), "%s/proc/root", dir);
	CHECK(!symlink(p, q));
	snprintf(p, sizeof(p), "%s/proc/status", dir);
	write_file(p,
		   "Name:\tx\nPid:\t655\nNSpid:\t655\t12\t1\nVmPeak:\t1 kB\n");
	snprintf(p, sizeof(p), "%s/rootfs/tmp/perf-1.map", dir);
	write_file(p, "1000 10 in_the_container\n");
	snprintf(p, sizeof(p), "%s/secret/perf-1.map", dir);
	write_file(p, "1000 10 the_hosts_file\n");
	snprintf(p, sizeof(p), "%s/rootfs/usr/lib.so", dir);
	write_file(p, "not an ELF file, but a file\n");
	/* links that lead out of the root, as seen from ember */
	snprintf(p, sizeof(p), "%s/secret", dir);
	snprintf(q, sizeof(q), "%s/rootfs/abs", dir);
	CHECK(!symlink(p, q));
	snprintf(q, sizeof(q), "%s/rootfs/rel", dir);
	CHECK(!symlink("../../secret", q));

	snprintf(p, sizeof(p), "%s/proc", dir);
	int procfd = open(p, O_RDONLY | O_DIRECTORY);
	CHECK(procfd >= 0);
	CHECK(rec_procfs_nspid(procfd, 655) == 1);
	CHECK(rec_procfs_other_root(procfd) == 1);

	int fd = rec_procfs_open_in_root(procfd, "/tmp", O_PATH | O_DIRECTORY);
	CHECK(fd >= 0);
	o.pid = 655;
	o.uid = geteuid();
	o.uid_known = 1;
	rec_symtab_init(&st, REC_SYMTAB_PERFMAP);
	CHECK(rec_perfmap_load_at(&st, fd, "/proc/655/root/tmp", 1, &o, &why) ==
	      REC_PERFMAP_OK);
	rec_symtab_finish(&st);
	const struct rec_sym *s = rec_symtab_find(&st, 0x1004);
	CHECK(s && !strcmp(s->name, "in_the_container"));
	rec_symtab_release(&st);
	if (fd >= 0)
		close(fd);
	/* the container's links resolve inside it, or not at all */
	const char *escapes[] = {"/abs/perf-1.map", "/rel/perf-1.map",
				 "/../secret/perf-1.map",
				 "/tmp/../../secret/perf-1.map"};
	for (size_t i = 0; i < ARRAY_SIZE(escapes); i++) {
		fd = rec_procfs_open_in_root(procfd, escapes[i], O_RDONLY);
		char buf[64] = "";
		if (fd >= 0) {
			CHECK(read(fd, buf, sizeof(buf) - 1) >= 0);
			close(fd);
		}
		CHECK(!strstr(buf, "the_hosts_file"));
	}
	/* the same without openat2: links refused on the way */
	snprintf(p, sizeof(p), "%s/rootfs", dir);
	int rootfd = open(p, O_RDONLY | O_DIRECTORY);
	CHECK(rootfd >= 0);
	for (size_t i = 0; i < ARRAY_SIZE(escapes); i++) {
		fd = rec_procfs_walk_in_root(rootfd, escapes[i], O_RDONLY);
		CHECK(fd < 0);
		if (fd >= 0)
			close(fd);
	}
	fd = rec_procfs_walk_in_root(rootfd, "/tmp/perf-1.map", O_RDONLY);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	if (rootfd >= 0)
		close(rootfd);
	/* a link as the last component, refused with O_NOFOLLOW */
	snprintf(q, sizeof(q), "%s/rootfs/tmp/perf-2.map", dir);
	CHECK(!symlink("perf-1.map", q));
	fd = rec_procfs_open_in_root(procfd, "/tmp/perf-2.map",
				     O_RDONLY | O_NOFOLLOW);
	CHECK(fd < 0);
	if (fd >= 0)
		close(fd);
	/* a mapped file only the process sees, found by its path there */
	snprintf(p, sizeof(p), "%s/rootfs/usr/lib.so", dir);
	CHECK(!stat(p, &sb));
	fd = rec_procfs_open_mapped(procfd, "/usr/lib.so", 0, 0, 0, sb.st_ino);
	struct stat fb;
	CHECK(fd >= 0 && !fstat(fd, &fb) && fb.st_ino == sb.st_ino);
	if (fd >= 0)
		close(fd);
	/* in another root, its file even when the numbers differ (overlay
	 * file systems) */
	fd = rec_procfs_open_mapped(procfd, "/usr/lib.so", 0, 0, 0,
				    sb.st_ino + 1);
	CHECK(fd >= 0 && !fstat(fd, &fb) && fb.st_ino == sb.st_ino);
	if (fd >= 0)
		close(fd);
	CHECK(rec_procfs_open_mapped(-1, "/usr/lib.so-not-here", 0, 0, 0, 0) <
	      0);
	close(procfd);

	/* this process: still the one that started then, not another */
	procfd = rec_procfs_open(getpid(), 0);
	CHECK(procfd >= 0);
	double start = procfd >= 0 ? rec_procfs_start(procfd) : 0;
	CHECK(start > 0);
	if (procfd >= 0)
		close(procfd);
	procfd = rec_procfs_open(getpid(), start);
	CHECK(procfd >= 0);
	if (procfd >= 0)
		close(procfd);
	CHECK(rec_procfs_open(getpid(), start + 100) < 0);
	CHECK(rec_procfs_open(getpid(), start - 100) < 0);

	const char *rm[] = {"proc/root",
			    "proc/status",
			    "rootfs/tmp/perf-1.map",
			    "rootfs/tmp/perf-2.map",
			    "secret/perf-1.map",
			    "rootfs/usr/lib.so",
			    "rootfs/abs",
			    "rootfs/rel"};
	for (size_t i = 0; i < ARRAY_SIZE(rm); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, rm[i]);
		unlink(p);
	}
	for (size_t i = ARRAY_SIZE(dirs); i-- > 0;) {
		snprintf(p, sizeof(p), "%s/%s", dir, dirs[i]);
		rmdir(p);
	}
	rmdir(dir);
	ember_buf_release(&why);
}

/* Addresses as a 64-bit kernel prints them (16 lowercase digits) and as
 * others could: capitals, fewer digits, a digit that is not one. */
static void test_kallsyms_addresses(void)
{
	struct rec_symtab st;
	const char *text = "ffffffff8100a0f0 T lower\n"
			   "FFFFFFFF8100B0F0 T upper\n"
			   "ffffffff8100C0f0 T mixed\n"
			   "ffffffff8100d0g0 T not_hex\n"
			   "fffffffff8100e0f0 T seventeen\n"
			   "0123456789abcdef T every_digit\n"
			   "8100f0f0 T short\n"
			   /* bytes below '!' other than tab, space and
			    * newline are the name's, in a word's first
			    * bytes and after */
			   "ffffffff81010000 T a\rb\x01"
			   "c_long_enough_name_x\n";

	rec_symtab_init(&st, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_parse(&st, text, strlen(text)) == 6);
	CHECK(st.n == 6);
	CHECK(st.n > 5 && !strcmp(st.syms[5].name, "a\rb\x01"
						   "c_long_enough_name_x"));
	CHECK(st.n > 4 && st.syms[0].start == 0xffffffff8100a0f0ull &&
	      !strcmp(st.syms[0].name, "lower"));
	CHECK(st.n > 4 && st.syms[1].start == 0xffffffff8100b0f0ull &&
	      !strcmp(st.syms[1].name, "upper"));
	CHECK(st.n > 4 && st.syms[2].start == 0xffffffff8100c0f0ull &&
	      !strcmp(st.syms[2].name, "mixed"));
	CHECK(st.n > 4 && st.syms[3].start == 0x0123456789abcdefull &&
	      !strcmp(st.syms[3].name, "every_digit"));
	CHECK(st.n > 4 && st.syms[4].start == 0x8100f0f0ull &&
	      !strcmp(st.syms[4].name, "short"));
	rec_symtab_release(&st);
}

static void test_kallsyms(void)
{
	struct rec_symtab st;
	const char text[] = "ffffffff81000000 T _stext\n"
			    "ffffffff81000000 t _text_alias\n"
			    "ffffffff81000100 W do_thing_weak\n"
			    "ffffffff81000100 t do_thing\n"
			    "ffffffff81000200 D some_data\n"
			    "ffffffff81000300 T last_core\n"
			    "ffffffffc0000000 t mod_fn\t[ext4]\n"
			    "zzzz T bad\n"
			    "ffffffffc0000100 T\n";

	rec_symtab_init(&st, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_parse(&st, text, strlen(text)) == 6);
	rec_symtab_finish(&st);
	const struct rec_sym *s = rec_symtab_find(&st, 0xffffffff81000010);
	CHECK(s && !strcmp(s->name, "_text_alias")); /* the last alias */
	s = rec_symtab_find(&st, 0xffffffff81000250);
	CHECK(s && !strcmp(s->name, "do_thing"));
	/* the last core symbol does not run into module space */
	s = rec_symtab_find(&st, 0xffffffffa0000000);
	CHECK(s == NULL);
	s = rec_symtab_find(&st, 0xffffffffc0000004);
	CHECK(s && !strcmp(s->name, "mod_fn"));
	rec_symtab_release(&st);
}

/* A kallsyms file read whole and parsed in place: lines across the
 * reads' edges, a line longer than 128 KiB (skipped), no final newline;
 * and a load given up by another thread. */
static void test_kallsyms_file(void)
{
	char path[] = "/tmp/ember-test-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	struct ember_buf b = EMBER_BUF_INIT;
	struct rec_symtab st;
	const int n = 20000, stop = 1;

	CHECK(fd >= 0);
	for (int i = 0; i < n; i++) {
		ember_buf_addf(&b, "%016llx t fn_%d\n",
			       0xffffffff81000000ull + 16ull * (unsigned)i, i);
		if (i == n / 2) { /* 300 KB of one line */
			ember_buf_adds(&b, "ffffffff80000000 T long_");
			for (int k = 0; k < 300000; k++)
				ember_buf_addch(&b, 'x');
			ember_buf_addch(&b, '\n');
		}
	}
	ember_buf_adds(&b, "ffffffffc0000000 t mod_last\t[m]");
	CHECK(write(fd, b.buf, b.len) == (ssize_t)b.len);
	close(fd);
	rec_symtab_init(&st, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_load(&st, path) == 0);
	CHECK(st.n == (size_t)n + 1);
	rec_symtab_finish(&st);
	for (int i = 0; i < n; i += 997) {
		char want[32];
		snprintf(want, sizeof(want), "fn_%d", i);
		const struct rec_sym *s = rec_symtab_find(
		    &st, 0xffffffff81000000ull + 16ull * (unsigned)i + 3);
		CHECK(s && !strcmp(s->name, want));
	}
	const struct rec_sym *s = rec_symtab_find(&st, 0xffffffffc0000001);
	CHECK(s && !strcmp(s->name, "mod_last") && s->module);
	CHECK(rec_symtab_find(&st, 0xffffffff80000001) == NULL);
	rec_symtab_release(&st);
	rec_symtab_init(&st, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_load_until(&st, path, &stop) == EMBER_EINTR);
	CHECK(st.n == 0);
	rec_symtab_release(&st);
	unlink(path);
	ember_buf_release(&b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A table of only the symbols some lookups need (rec_kallsyms_take with
 * addresses) finds for each of them what the whole table finds: aliases,
 * data symbols between, modules out of order and the gaps between the
 * kernel and modules, addresses before the first symbol and past the
 * last, and past a module's end with 16 symbols to look back at. */
static void test_kallsyms_some(void)
{
	char path[] = "/tmp/ember-test-kallsyms-XXXXXX";
	int fd = mkstemp(path);
	struct ember_buf b = EMBER_BUF_INIT;
	static uint64_t q[8192];
	size_t nq = 0;
	uint32_t seed = 12345;
	uint64_t a = 0xffffffff81000000ull;

	for (int i = 0; i < 3000; i++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = (seed >> 16) % 100;
		if (r < 8) /* an alias of the one before */
			ember_buf_addf(&b, "%016llx %c alias_%d\n",
				       (unsigned long long)a, r & 1 ? 'T' : 't',
				       i);
		else if (r < 12)
			ember_buf_addf(&b, "%016llx D data_%d\n",
				       (unsigned long long)(a + 8), i);
		else {
			a += 16 + (seed >> 8) % 400;
			ember_buf_addf(&b, "%016llx %c fn_%d\n",
				       (unsigned long long)a, "tTwW"[r % 4], i);
		}
	}
	/* modules out of order; one a symbol alone just past the kernel's
	 * last, one just below another */
	const uint64_t mods[] = {0xffffffffc0200000ull, 0xffffffffc0000000ull,
				 0xffffffffc0001800ull, a + 40};
	for (unsigned m = 0; m < ARRAY_SIZE(mods); m++)
		for (unsigned i = 0; i < (m == 3 ? 1u : 40u); i++)
			ember_buf_addf(&b, "%016llx t mod%u_%u\t[m%u]\n",
				       (unsigned long long)(mods[m] + 32u * i +
							    (i % 3 ? 0u : 7u)),
				       m, i, m);
	ember_buf_adds(&b, "zzzz T not_a_symbol\n");
	CHECK(fd >= 0 && write(fd, b.buf, b.len) == (ssize_t)b.len);
	close(fd);
	/* the addresses asked for: at and around lines' addresses, and far
	 * off */
	q[nq++] = 0;
	q[nq++] = 0xffffffff80000000ull;
	q[nq++] = UINT64_MAX;
	for (const char *p = b.buf; p < b.buf + b.len && nq + 3 < ARRAY_SIZE(q);
	     p = strchr(p, '\n') + 1) {
		uint64_t x = strtoull(p, NULL, 16);
		seed = seed * 1103515245u + 12345u;
		if (seed >> 28 < 6) {
			q[nq++] = x;
			q[nq++] = x + 1;
			q[nq++] = x + 4096 + (seed >> 20) % 8192;
		}
	}
	qsort(q, nq, sizeof(*q), cmp_u64);
	struct rec_symtab all, some;
	struct rec_ktext t;
	rec_symtab_init(&all, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_load(&all, path) == 0);
	rec_symtab_finish(&all);
	/* all asked for at once, and every seventh */
	for (int step = 1; step <= 7; step += 6) {
		static uint64_t sub[8192];
		size_t ns = 0, bad = 0;
		for (size_t i = 0; i < nq; i += (size_t)step)
			sub[ns++] = q[i];
		rec_symtab_init(&some, REC_SYMTAB_KALLSYMS);
		CHECK(rec_kallsyms_read(&t, path, NULL) == 0);
		CHECK(rec_kallsyms_take(&some, &t, sub, ns) == 0);
		rec_symtab_finish(&some);
		CHECK(some.n > 0 && some.n < all.n);
		for (size_t i = 0; i < ns; i++) {
			const struct rec_sym *x = rec_symtab_find(&all, sub[i]);
			const struct rec_sym *y =
			    rec_symtab_find(&some, sub[i]);
			if (!x != !y ||
			    (x && (strcmp(x->name, y->name) ||
				   x->start != y->start || x->end != y->end)))
				bad++;
		}
		CHECK(bad == 0);
		rec_symtab_release(&some);
	}
	/* none asked for: a table of none, the file still a kallsyms */
	rec_symtab_init(&some, REC_SYMTAB_KALLSYMS);
	CHECK(rec_kallsyms_read(&t, path, NULL) == 0);
	CHECK(rec_kallsyms_take(&some, &t, q, 0) == 0);
	CHECK(some.n == 0);
	rec_symtab_release(&some);
	rec_symtab_release(&all);
	unlink(path);
	ember_buf_release(&b);
}

static void test_maps(void)
{
	struct rec_world w;
	const char maps[] =
	    "55d0c0a00000-55d0c0a01000 r--p 00000000 fe:00 1234 /usr/bin/x\n"
	    "55d0c0a01000-55d0c0a03000 r-xp 00001000 fe:00 1234 /usr/bin/x\n"
	    "7f0000000000-7f0000010000 r-xp 00000000 00:00 0 \n"
	    "7f0000100000-7f0000200000 r-xp 00026000 fe:00 99 /lib/libc.so.6\n"
	    "7f0000300000-7f0000301000 r-xp 00000000 00:00 0 [vdso]\n"
	    "7f0000400000-7f0000401000 r-xp 00000000 fe:00 77 /tmp/gone "
	    "(deleted)\n"
	    "garbage\n"
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0 "
	    "[vsyscall]\n";

	rec_world_init(&w);
	struct rec_proc *p = rec_world_new_proc(&w, 100, NULL, 0);
	rec_world_parse_maps(&w, p, maps, strlen(maps));
	CHECK(p->nmaps == 6);
	const struct rec_map *m = rec_proc_find_map(p, 0x55d0c0a01010);
	CHECK(m && m->dso->kind == REC_DSO_FILE && m->m.pgoff == 0x1000 &&
	      !strcmp(m->dso->base, "x"));
	CHECK(rec_proc_find_map(p, 0x55d0c0a00010) == NULL); /* not exec */
	m = rec_proc_find_map(p, 0x7f0000000100);
	CHECK(m && m->dso->kind == REC_DSO_ANON);
	m = rec_proc_find_map(p, 0x7f0000300010);
	CHECK(m && m->dso->kind == REC_DSO_VDSO);
	m = rec_proc_find_map(p, 0x7f0000400000);
	CHECK(m && m->dso->deleted && !strcmp(m->dso->path, "/tmp/gone"));
	const struct ember_unwind_mapping *um =
	    rec_proc_unwind_find(p, 0x7f0000100010);
	CHECK(um && um->exec && um->ino == 99 &&
	      !strcmp(um->path, "/lib/libc.so.6"));

	/* a new mapping over the middle of one splits it */
	rec_world_mmap(&w, p, 0x7f0000140000, 0x10000, 0, 0, 0, "//anon", 6,
		       100);
	m = rec_proc_find_map(p, 0x7f0000130000);
	CHECK(m && m->m.end == 0x7f0000140000 && m->dso->kind == REC_DSO_FILE);
	m = rec_proc_find_map(p, 0x7f0000145000);
	CHECK(m && m->dso->kind == REC_DSO_ANON);
	m = rec_proc_find_map(p, 0x7f0000150000);
	CHECK(m && m->m.start == 0x7f0000150000 &&
	      m->m.pgoff == 0x26000 + 0x50000);
	/* and one over several replaces them */
	rec_world_mmap(&w, p, 0x7f0000000000, 0x1000000, 0, 1, 2,
		       "/usr/lib/big.so", 15, 100);
	CHECK(p->nmaps == 3);
	/* fork copies, exec starts afresh, the pid keeps the newest */
	struct rec_proc *child = rec_world_new_proc(&w, 101, p, 1);
	CHECK(child->nmaps == p->nmaps && child->parent == p);
	struct rec_proc *img = rec_world_new_proc(&w, 101, NULL, 0);
	CHECK(img->nmaps == 0 && rec_world_find_proc(&w, 101) == img);
	struct rec_thread *t = rec_world_thread(&w, 101, 105);
	CHECK(t->proc == img);
	rec_world_set_comm(&w, t, "worker\0junk", 11);
	CHECK_STR(ember_intern_str(&w.comms, t->comm, NULL), "worker");
	/* many processes and threads: tables grow */
	for (int i = 0; i < 3000; i++)
		rec_world_thread(&w, 1000 + i, 1000 + i);
	CHECK(rec_world_find_thread(&w, 3999)->proc->pid == 3999);
	CHECK(rec_world_find_thread(&w, 105)->proc == img);
	rec_world_release(&w);
}

static void test_elf_self(void)
{
	struct rec_elf e;
	struct rec_symtab st;

	CHECK(rec_elf_open(&e, "/proc/self/exe") == 0);
	CHECK(e.nloads > 0);
	rec_symtab_init(&st, REC_SYMTAB_ELF);
	size_t n = rec_elf_symbols(&e, &st, 0);
	if (!n)
		n = rec_elf_symbols(&e, &st, 1);
	CHECK(n > 10);
	rec_elf_plt_symbols(&e, &st);
	rec_symtab_finish(&st);
	/* this very function, found by its address in the file */
	int found = 0;
	for (size_t i = 0; i < st.n; i++)
		found |= !strcmp(st.syms[i].name, "test_elf_self");
	CHECK(found);
	int plt = 0;
	for (size_t i = 0; i < st.n; i++)
		plt |=
		    strstr(rec_symtab_name(&st, &st.syms[i]), "@plt") != NULL;
	CHECK(plt);
	uint64_t v;
	CHECK(rec_elf_off_to_vaddr(&e, e.loads[0].off, &v) == 0 &&
	      v == e.loads[0].vaddr);
	rec_symtab_release(&st);
	rec_elf_close(&e);
	CHECK(rec_elf_open(&e, "/nonexistent") == EMBER_ENOENT);
	CHECK(rec_elf_open(&e, "/dev/null") == EMBER_EFORMAT);
	CHECK(rec_elf_open(&e, "/proc/self") != 0);
}

/* The symbols of path (.dynsym when dynsym): 1 when named has one and
 * no name has a symbol version. */
static int elf_names(const char *path, int dynsym, const char *named,
		     const char *not_named)
{
	struct rec_elf e;
	struct rec_symtab st;
	int has = 0, bad = 0;

	if (rec_elf_open(&e, path))
		return 0;
	rec_symtab_init(&st, REC_SYMTAB_ELF);
	rec_elf_symbols(&e, &st, dynsym);
	rec_symtab_finish(&st);
	for (size_t i = 0; i < st.n; i++) {
		has |= !strcmp(st.syms[i].name, named);
		bad |= strchr(st.syms[i].name, '@') != NULL ||
		       !strcmp(st.syms[i].name, not_named);
	}
	rec_symtab_release(&st);
	rec_elf_close(&e);
	return has && !bad;
}

/*
 * Symbol versions, as glibc has them: a shared library built here with a
 * version script, whose vs_func has an old version (vs_func@VERS_1) and
 * the default one (vs_func@@VERS_2) at one address, and whose free_like
 * has an alias for old binaries only (cfree_like@VERS_1), as free has
 * cfree.  Its .symtab names carry the versions; its .dynsym has them in
 * .gnu.version.  Names come without versions, and free_like rather than
 * its old alias (perf 6.1 names it "cfree_like@VERS_1").
 */
static void test_elf_versions(void)
{
	char dir[] = "/tmp/ember-ver-XXXXXX", cmd[1024];
	const char *cc = getenv("CC");
	FILE *f;

	if (!mkdtemp(dir))
		return;
	snprintf(cmd, sizeof(cmd), "%s/v.c", dir);
	f = fopen(cmd, "w");
	fputs("__attribute__((visibility(\"hidden\"))) int vs_impl(int x)\n"
	      "{ return x + 1; }\n"
	      "extern int vs_old(int) __attribute__((alias(\"vs_impl\")));\n"
	      "extern int vs_new(int) __attribute__((alias(\"vs_impl\")));\n"
	      "__asm__(\".symver vs_old, vs_func@VERS_1\");\n"
	      "__asm__(\".symver vs_new, vs_func@@VERS_2\");\n"
	      "int free_like(int x) { return x * 2; }\n"
	      "extern int cfree_like(int) "
	      "__attribute__((alias(\"free_like\")));\n"
	      "__asm__(\".symver cfree_like, cfree_like@VERS_1\");\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "%s/v.map", dir);
	f = fopen(cmd, "w");
	fputs("VERS_1 { global: vs_func; cfree_like; local: *; };\n"
	      "VERS_2 { global: vs_func; free_like; } VERS_1;\n",
	      f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && %s -shared -fPIC -O2 -Wl,--version-script=v.map "
		 "-o libv.so v.c && %s -shared -fPIC -O2 -s "
		 "-Wl,--version-script=v.map -o libvs.so v.c 2> /dev/null",
		 dir, cc ? cc : "cc", cc ? cc : "cc");
	if (system(cmd)) {
		printf("test_elf_versions: skipped: cannot build a shared "
		       "library with a version script\n");
	} else {
		snprintf(cmd, sizeof(cmd), "%s/libv.so", dir);
		CHECK(elf_names(cmd, 0, "free_like", "cfree_like"));
		CHECK(elf_names(cmd, 0, "vs_func", ""));
		snprintf(cmd, sizeof(cmd), "%s/libvs.so", dir);
		CHECK(elf_names(cmd, 1, "free_like", "cfree_like"));
		CHECK(elf_names(cmd, 1, "vs_func", ""));
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
}

/* Truncated and scrambled copies of a real ELF file must not crash. */
static void test_elf_hostile(void)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat sb;
	char path[] = "/tmp/ember-elf-XXXXXX";

	if (fd < 0 || fstat(fd, &sb)) {
		t_fail++;
		return;
	}
	size_t size = (size_t)sb.st_size;
	unsigned char *img = malloc(size);
	if (read(fd, img, size) != (ssize_t)size) {
		t_fail++;
		free(img);
		close(fd);
		return;
	}
	close(fd);
	int out = mkstemp(path);
	if (out < 0) {
		free(img);
		return;
	}
	close(out);
	unsigned seed = 12345;
	for (int round = 0; round < 60; round++) {
		unsigned char *copy = malloc(size);
		memcpy(copy, img, size);
		size_t len = size;
		if (round % 3 == 0)
			len = 64 +
			      (size_t)(rand_r(&seed) % (unsigned)(size - 64));
		else
			for (int k = 0; k < 200; k++)
				copy[rand_r(&seed) % (unsigned)size] =
				    (unsigned char)rand_r(&seed);
		int w = open(path, O_WRONLY | O_TRUNC);
		if (w >= 0) {
			if (write(w, copy, len) < 0)
				t_fail++;
			close(w);
		}
		struct rec_elf e;
		if (!rec_elf_open(&e, path)) {
			struct rec_symtab st;
			uint64_t v;
			rec_symtab_init(&st, REC_SYMTAB_ELF);
			st.demangle = 1;
			rec_elf_symbols(&e, &st, 0);
			rec_elf_symbols(&e, &st, 1);
			rec_elf_plt_symbols(&e, &st);
			rec_symtab_finish(&st);
			for (size_t i = 0; i < st.n; i += 97)
				rec_symtab_name(&st, &st.syms[i]);
			rec_elf_off_to_vaddr(&e, 0x1234, &v);
			struct rec_elf dbg;
			if (!rec_debuginfo_open(&e, path, "/nonexistent", &dbg,
						NULL))
				rec_elf_close(&dbg);
			rec_symtab_release(&st);
			rec_elf_close(&e);
		}
		free(copy);
		CHECK(1);
	}
	unlink(path);
	free(img);
}

static void test_debuginfo(void)
{
	/* libc's separate debug file, when libc6-dbg is installed */
	struct rec_elf e, d;
	char *found = NULL;
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";

	if (rec_elf_open(&e, libc))
		return;
	if (!rec_debuginfo_open(&e, libc, NULL, &d, &found)) {
		CHECK(found && strstr(found, ".debug"));
		CHECK(d.has_symtab);
		struct rec_symtab st;
		rec_symtab_init(&st, REC_SYMTAB_ELF);
		CHECK(rec_elf_symbols(&d, &st, 0) > 5000);
		rec_symtab_release(&st);
		rec_elf_close(&d);
	}
	free(found);
	rec_elf_close(&e);
}

static void test_events(void)
{
	CHECK(rec_event_lookup("cpu-clock") != NULL);
	CHECK(rec_event_lookup("cs") == rec_event_lookup("context-switches"));
	CHECK(rec_event_lookup("faults")->clock == 0);
	CHECK(rec_event_lookup("nope") == NULL);
	int *cpus;
	size_t n = rec_online_cpus(&cpus);
	CHECK(n >= 1);
	free(cpus);
	char *s = rec_jit_node_options(NULL);
	CHECK_STR(s, "--perf-basic-prof-only-functions "
		     "--interpreted-frames-native-stack");
	free(s);
	s = rec_jit_node_options("--max-old-space-size=100");
	CHECK(strstr(s, "--max-old-space-size=100 --perf-basic-prof-only") ==
	      s);
	free(s);
	s = rec_jit_node_options("--perf-basic-prof");
	CHECK_STR(s, "--perf-basic-prof");
	free(s);

	struct ember_record_options o;
	struct ember_record *r;
	ember_record_options_init(&o);
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	CHECK(strstr(ember_record_error(r), "nothing to profile") != NULL);
	ember_record_free(r);
	o.system_wide = 1;
	o.freq = 1e8;
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	CHECK(strstr(ember_record_error(r), "max_sample_rate") != NULL);
	ember_record_free(r);
	o.freq = 999;
	o.event = "bogus";
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	ember_record_free(r);
	o.event = NULL;
	o.stack_size = 65529;
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	CHECK(strstr(ember_record_error(r), "at most 65528") != NULL);
	ember_record_free(r);
	o.stack_size = (size_t)-1;
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	ember_record_free(r);
	o.stack_size = 65528;
	o.mmap_pages = 8;
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	CHECK(strstr(ember_record_error(r), "use -m 32") != NULL);
	ember_record_free(r);
	o.call_graph = EMBER_CALLGRAPH_FP; /* no stack copies: 8 pages do */
	CHECK(ember_record_new(&r, &o) == 0);
	ember_record_free(r);
	o.call_graph = 7;
	CHECK(ember_record_new(&r, &o) == EMBER_EINVAL);
	ember_record_free(r);
}

/* ---- DWARF samples of this process's own stack ---- */

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))
#define COPY 32768

static struct {
	uint64_t ip, sp, bp;
	uint8_t stack[COPY];
	size_t len;
} snap;
static volatile int sink;

NOFP static void snap3(void)
{
	__asm__ volatile("leaq 0(%%rip), %0\n\t"
			 "movq %%rsp, %1\n\t"
			 "movq %%rbp, %2"
			 : "=r"(snap.ip), "=r"(snap.sp), "=r"(snap.bp)
			 :
			 : "memory");
	/* as much of the stack as is mapped, page by page */
	snap.len = 0;
	while (snap.len < COPY) {
		size_t chunk = 4096 - ((snap.sp + snap.len) & 4095);
		if (chunk > COPY - snap.len)
			chunk = COPY - snap.len;
		struct iovec l = {snap.stack + snap.len, chunk};
		struct iovec r = {(void *)(uintptr_t)(snap.sp + snap.len),
				  chunk};
		if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) !=
		    (ssize_t)chunk)
			break;
		snap.len += chunk;
	}
	sink++;
}

NOFP static void snap2(void)
{
	snap3();
	sink++;
}

NOFP static void snap1(void)
{
	snap2();
	sink++;
}

/* A PERF_RECORD_SAMPLE as the kernel writes it in DWARF mode, with dyn
 * bytes of the stack copy valid; abi 0 is a kernel thread's. */
static size_t dwarf_sample(uint64_t *rec, size_t dyn, uint64_t abi)
{
	size_t n = 1;
	int pid = getpid();

	rec[n++] = snap.ip;				/* IP */
	rec[n++] = (uint64_t)pid | (uint64_t)pid << 32; /* TID */
	rec[n++] = 1000;				/* TIME */
	rec[n++] = 0;					/* CPU */
	rec[n++] = 1001;				/* PERIOD */
	rec[n++] = 0;					/* CALLCHAIN */
	rec[n++] = abi;					/* REGS_USER */
	if (abi) {
		rec[n++] = snap.bp;
		rec[n++] = snap.sp;
		rec[n++] = snap.ip;
	}
	rec[n++] = COPY; /* STACK_USER */
	memcpy(&rec[n], snap.stack, snap.len);
	memset((uint8_t *)&rec[n] + snap.len, 0, COPY - snap.len);
	n += COPY / 8;
	rec[n++] = dyn;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				      (uint16_t)(n * 8)};
	memcpy(rec, &h, sizeof(h));
	return n * 8;
}

/* Records one sample, returns its folded stack (malloc'd). */
static char *record_one(size_t dyn, uint64_t abi)
{
	struct ember_record_stats stats;
	struct rec_events ev;
	struct ember_intern names;
	struct ember_stacks stacks;
	struct ember_buf b = EMBER_BUF_INIT;
	static uint64_t rec[COPY / 8 + 32];

	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.system_wide = 1;
	ev.dwarf = 1;
	ev.unwinder = ember_unwinder_new();
	ev.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER |
			 PERF_SAMPLE_STACK_USER;
	ev.regs_mask = 0x1c0;
	rec_events_synthesize_pid(&ev, getpid());
	size_t size = dwarf_sample(rec, dyn, abi);
	rec_events_handle(&ev, rec, size);
	ember_intern_init(&names);
	ember_stacks_init(&stacks);
	if (!rec_symbolize(&ev, 0, NULL, &names, &stacks, NULL, NULL, NULL) &&
	    stacks.n == 1) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(&stacks, 0, &n);
		for (size_t i = 0; i < n; i++) {
			size_t len;
			const char *s = ember_intern_str(&names, f[i], &len);
			if (i)
				ember_buf_addch(&b, ';');
			ember_buf_add(&b, s, len);
		}
	}
	ember_stacks_release(&stacks);
	ember_intern_release(&names);
	CHECK(stats.samples == 1);
	rec_events_release(&ev);
	return ember_buf_detach(&b, NULL);
}

static void test_dwarf_samples(void)
{
	snap1();
	CHECK(snap.len > 64);

	/* whole: the root, then _start ... main ... snap1;snap2;snap3 */
	char *s = record_one(snap.len, PERF_SAMPLE_REGS_ABI_64);
	const char *chain = s ? strstr(s, ";snap1;snap2;snap3") : NULL;
	CHECK(chain && !strcmp(chain, ";snap1;snap2;snap3"));
	CHECK(s && strstr(s, ";_start;") && strstr(s, ";main;") &&
	      strstr(s, ";main;") < chain);
	CHECK(s && !strstr(s, "[truncated]") && !strstr(s, "[unknown]"));
	if (!chain)
		fprintf(stderr, "DWARF sample: %s\n", s ? s : "(none)");
	free(s);

	/* the copy ends in snap1's frame: cut, said, nothing invented */
	s = record_one(64, PERF_SAMPLE_REGS_ABI_64);
	CHECK(s && strstr(s, ";[truncated];") && strstr(s, "snap3") &&
	      !strstr(s, "main") && !strstr(s, "[unknown]"));
	const char *t = s ? strstr(s, ";[truncated];") : NULL;
	CHECK(t && strchr(s, ';') == t); /* right under the root */
	free(s);

	/* a 32-bit program: its ip alone, marked as cut short */
	s = record_one(snap.len, PERF_SAMPLE_REGS_ABI_32);
	t = s ? strchr(s, ';') : NULL;
	CHECK(t && !strcmp(t, ";[truncated];snap3"));
	free(s);

	/* no user registers (a kernel thread): no user frames */
	s = record_one(snap.len, PERF_SAMPLE_REGS_ABI_NONE);
	CHECK(s && !strchr(s, ';'));
	free(s);
}

static void test_jitdump_names(void)
{
	static const char *yes[] = {"/tmp/jit-12.dump", "jit-1.dump",
				    "/home/u/app/jit-4242.dump"};
	static const char *no[] = {"/tmp/jit-.dump",
				   "/tmp/jit-12.dump.x",
				   "/tmp/xjit-12.dump",
				   "/tmp/jit-1a.dump",
				   "/tmp/jitted-12-3.so",
				   "",
				   "/"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		CHECK(rec_is_jitdump_name(yes[i], strlen(yes[i])));
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		CHECK(!rec_is_jitdump_name(no[i], strlen(no[i])));
	/* only the given length counts */
	CHECK(rec_is_jitdump_name("/tmp/jit-12.dump (deleted)", 16));
}

/* ---- off-CPU waits from synthetic switch records ---- */

/* sched_switch's format file as Linux 6.x writes it (prev_state a long) */
static const char sched_switch_format[] =
    "name: sched_switch\nID: 372\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
    "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;"
    "\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
    "\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
    "\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
    "\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
    "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
    "\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n";

static int buf_write(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

#define BASE_TID 2000000000 /* no such thread: roots are ":TID" */

/* A sched_switch sample of tid leaving the CPU in state, at time ns (no
 * callchain); id 0 makes a cpu-clock sample (4 bytes of zero raw data). */
static void switch_out(struct rec_events *ev, int tid, uint64_t state,
		       uint64_t time, uint16_t id)
{
	uint64_t rec[16];
	size_t n = 1;
	uint8_t raw[68];

	memset(raw, 0, sizeof(raw));
	memcpy(raw, &id, 2);
	memcpy(raw + 24, &tid, 4);
	memcpy(raw + 32, &state, 8);
	rec[n++] = 0x401000;					  /* IP */
	rec[n++] = (uint64_t)(uint32_t)tid | (uint64_t)tid << 32; /* TID */
	rec[n++] = time;					  /* TIME */
	rec[n++] = 0;						  /* CPU */
	rec[n++] = 1;						  /* PERIOD */
	rec[n++] = 0;		      /* CALLCHAIN */
	uint32_t rsize = id ? 68 : 4; /* u32 + data: a multiple of 8 */
	memcpy(&rec[n], &rsize, 4);
	memcpy((char *)&rec[n] + 4, raw, rsize);
	n += (4 + rsize) / 8;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(n * 8)};
	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, n * 8);
}

/* A PERF_RECORD_SWITCH (in, or out) of tid, with its sample_id. */
static void switch_rec(struct rec_events *ev, int tid, uint64_t time, int out)
{
	uint64_t rec[4];
	struct perf_event_header h = {
	    PERF_RECORD_SWITCH, out ? PERF_RECORD_MISC_SWITCH_OUT : 0, 32};

	rec[1] = (uint64_t)(uint32_t)tid | (uint64_t)tid << 32;
	rec[2] = time;
	rec[3] = 0;
	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, sizeof(rec));
}

/* ---- repeated callchains ---- */

#define CHAIN_TYPE                                                             \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* A side-band record: header, body (padded to 8), sample_id (tid, time). */
static void side_rec(struct rec_events *ev, uint32_t type, uint16_t misc,
		     const void *body, size_t n, int tid, uint64_t time)
{
	uint64_t rec[64];
	size_t pad = (n + 7) & ~(size_t)7, size = 8 + pad + 16;
	struct perf_event_header h = {type, misc, (uint16_t)size};

	memset(rec, 0, sizeof(rec));
	memcpy(rec, &h, sizeof(h));
	memcpy((char *)rec + 8, body, n);
	rec[1 + pad / 8] = (uint64_t)(uint32_t)tid | (uint64_t)tid << 32;
	rec[2 + pad / 8] = time;
	rec_events_handle(ev, rec, size);
}

static void mmap2_rec(struct rec_events *ev, int pid, uint64_t addr,
		      uint64_t ino, const char *path, uint64_t time)
{
	uint8_t body[64 + 32];
	uint32_t v32[2] = {(uint32_t)pid, (uint32_t)pid}, prot = 5;
	uint64_t v64[3] = {addr, 0x10000, 0};

	memset(body, 0, sizeof(body));
	memcpy(body, v32, 8);
	memcpy(body + 8, v64, 24);
	memcpy(body + 40, &ino, 8);
	memcpy(body + 56, &prot, 4);
	snprintf((char *)body + 64, 32, "%s", path);
	side_rec(ev, PERF_RECORD_MMAP2, 0, body, sizeof(body), pid, time);
}

static void comm_rec(struct rec_events *ev, int pid, int tid, const char *comm,
		     uint64_t time)
{
	uint8_t body[8 + 16];
	uint32_t v32[2] = {(uint32_t)pid, (uint32_t)tid};

	memset(body, 0, sizeof(body));
	memcpy(body, v32, 8);
	snprintf((char *)body + 8, 16, "%s", comm);
	side_rec(ev, PERF_RECORD_COMM, 0, body, sizeof(body), tid, time);
}

/* A user-mode sample of tid with callchain ips (leaf first). */
static void chain_sample(struct rec_events *ev, int pid, int tid,
			 const uint64_t *ips, size_t n, uint64_t period,
			 uint64_t time)
{
	uint64_t rec[32];
	size_t k = 1;

	rec[k++] = ips[0];
	rec[k++] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)tid << 32;
	rec[k++] = time;
	rec[k++] = period;
	rec[k++] = n + 1;
	rec[k++] = (uint64_t)PERF_CONTEXT_USER;
	for (size_t i = 0; i < n; i++)
		rec[k++] = ips[i];
	struct perf_event_header h = {PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER,
				      (uint16_t)(k * 8)};
	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, k * 8);
}

/* The module path of stack i's leaf frame, and its root's name. */
static const char *leaf_dso(struct rec_events *ev, size_t i, const char **root)
{
	size_t n;
	const uint32_t *f = ember_stacks_frames(&ev->stacks, i, &n);
	const struct rec_frame *leaf = &ev->frames.v[f[n - 1]];

	*root = ember_intern_str(&ev->roots, ev->frames.v[f[0]].obj, NULL);
	return leaf->kind == REC_FRAME_DSO ? ev->world.dsos[leaf->obj]->path
					   : "?";
}

/*
 * A callchain seen again becomes the same stack, but not across a new
 * mapping of its addresses, another thread, or a thread renamed: the
 * cache of callchains must not keep what the records changed.
 */
static void test_chains(void)
{
	struct ember_record_stats stats;
	struct rec_events ev;
	const uint64_t ips[] = {0x401010, 0x402020, 0x403030};
	const int P = 4242;
	const char *root;

	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.replay = ev.system_wide = ev.idle = 1;
	ev.sample_type = CHAIN_TYPE;
	comm_rec(&ev, P, P, "prog", 1);
	mmap2_rec(&ev, P, 0x400000, 11, "/x/a.so", 2);
	chain_sample(&ev, P, P, ips, 3, 10, 3);
	chain_sample(&ev, P, P, ips, 3, 5, 4);
	CHECK(ev.stacks.n == 1 && ev.stacks.ents[0].count == 15);
	/* another library where a.so was: the same addresses, new frames */
	mmap2_rec(&ev, P, 0x400000, 12, "/x/b.so", 5);
	chain_sample(&ev, P, P, ips, 3, 7, 6);
	chain_sample(&ev, P, P, ips, 3, 1, 7);
	CHECK(ev.stacks.n == 2 && ev.stacks.ents[1].count == 8);
	CHECK_STR(leaf_dso(&ev, 0, &root), "/x/a.so");
	CHECK_STR(leaf_dso(&ev, 1, &root), "/x/b.so");
	CHECK_STR(root, "prog");
	/* another thread of the process, then the first one renamed */
	chain_sample(&ev, P, P + 1, ips, 3, 2, 8);
	comm_rec(&ev, P, P, "worker", 9);
	chain_sample(&ev, P, P, ips, 3, 3, 10);
	chain_sample(&ev, P, P, ips, 3, 4, 11);
	CHECK(ev.stacks.n == 4);
	CHECK(ev.stacks.ents[2].count == 2 && ev.stacks.ents[3].count == 7);
	CHECK_STR(leaf_dso(&ev, 3, &root), "/x/b.so");
	CHECK_STR(root, "worker");
	/* a longer callchain sharing the others' start is its own stack */
	const uint64_t more[] = {0x401010, 0x402020, 0x403030, 0x404040};
	chain_sample(&ev, P, P, more, 4, 1, 12);
	CHECK(ev.stacks.n == 5);
	CHECK(stats.samples == 8 && stats.weight == 33);
	rec_events_release(&ev);
}

/* A sample of tid whose callchain words are ips as given, markers and
 * all. */
static void raw_chain_sample(struct rec_events *ev, int pid, int tid,
			     const uint64_t *ips, size_t n, uint64_t time)
{
	uint64_t rec[32];
	size_t k = 1;

	rec[k++] = ips[n - 1];
	rec[k++] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)tid << 32;
	rec[k++] = time;
	rec[k++] = 1;
	rec[k++] = n;
	for (size_t i = 0; i < n; i++)
		rec[k++] = ips[i];
	struct perf_event_header h = {
	    PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, (uint16_t)(k * 8)};
	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, k * 8);
}

/* Stack i's frames after its root: kind and address, outermost first,
 * as "u:401000 k:ffffffff81000010". */
static void stack_text(struct rec_events *ev, size_t i, char *out, size_t sz)
{
	size_t n, len = 0;
	const uint32_t *f = ember_stacks_frames(&ev->stacks, i, &n);

	out[0] = '\0';
	for (size_t j = 1; j < n && len < sz; j++) {
		const struct rec_frame *fr = &ev->frames.v[f[j]];
		len += (size_t)snprintf(out + len, sz - len, "%s%c:%llx",
					j > 1 ? " " : "",
					fr->kind == REC_FRAME_KERNEL ? 'k'
					: fr->kind == REC_FRAME_DSO  ? 'u'
								     : '?',
					(unsigned long long)fr->addr);
	}
}

/*
 * A frame-pointer callchain's context markers: kernel frames after the
 * user ones, in the stack's order; a guest's frames (PERF_CONTEXT_GUEST)
 * are neither; an unknown marker drops the callchain whole, as perf does,
 * counted at each repeat.
 */
static void test_callchain_contexts(void)
{
	struct ember_record_stats stats;
	struct rec_events ev;
	const int P = 5151;
	const uint64_t K = (uint64_t)PERF_CONTEXT_KERNEL;
	const uint64_t U = (uint64_t)PERF_CONTEXT_USER;
	const uint64_t G = (uint64_t)PERF_CONTEXT_GUEST;
	char text[256];

	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.replay = ev.system_wide = ev.idle = 1;
	ev.sample_type = CHAIN_TYPE;
	comm_rec(&ev, P, P, "prog", 1);
	mmap2_rec(&ev, P, 0x400000, 11, "/x/a.so", 2);
	const uint64_t both[] = {
	    K,	     0xffffffff81000010, 0xffffffff81000020,
	    U,	     0x401010,		 0x402020,
	    0x403030};
	raw_chain_sample(&ev, P, P, both, ARRAY_SIZE(both), 3);
	CHECK(ev.stacks.n == 1);
	stack_text(&ev, 0, text, sizeof(text));
	CHECK_STR(text, "u:3030 u:2020 u:1010 k:ffffffff81000020 "
			"k:ffffffff81000010");
	/* a guest's frames, then the host's user ones */
	const uint64_t guest[] = {G, 0x12345678, U, 0x401010};
	raw_chain_sample(&ev, P, P, guest, ARRAY_SIZE(guest), 4);
	CHECK(ev.stacks.n == 2 && stats.bad_callchains == 0);
	stack_text(&ev, 1, text, sizeof(text));
	CHECK_STR(text, "u:1010");
	/* a marker perf does not know: nothing but the root, twice */
	const uint64_t bad[] = {U, 0x401010, (uint64_t)-256, 0x402020};
	raw_chain_sample(&ev, P, P, bad, ARRAY_SIZE(bad), 5);
	raw_chain_sample(&ev, P, P, bad, ARRAY_SIZE(bad), 6);
	CHECK(stats.bad_callchains == 2 && ev.stacks.n == 3);
	stack_text(&ev, 2, text, sizeof(text));
	CHECK_STR(text, "");
	CHECK(ev.stacks.ents[2].count == 2);
	rec_events_release(&ev);
}

static void test_offcpu(void)
{
	struct rec_offcpu *o;
	struct ember_record_stats stats;
	struct rec_events ev;

	CHECK(rec_offcpu_new_from(&o, "372\n", "no fields", 0) == EMBER_EINVAL);
	CHECK(rec_offcpu_new_from(&o, "0", sched_switch_format, 0) ==
	      EMBER_EINVAL);
	CHECK(rec_offcpu_new_from(&o, "372\n", sched_switch_format, 1) == 0);
	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.off = o;
	ev.system_wide = 1;
	ev.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	const int t = BASE_TID;
	/* S for 2 ms, then again for 1 ms; D for 0.5 ms */
	switch_out(&ev, t + 1, 1, 1000000, 372);
	switch_rec(&ev, t + 1, 1000010, 1); /* its switch-out: no effect */
	switch_out(&ev, t + 2, 2, 1000000, 372);
	switch_rec(&ev, t + 2, 1500000, 0);
	switch_rec(&ev, t + 1, 3000000, 0);
	switch_out(&ev, t + 1, 1, 7000000, 372);
	switch_rec(&ev, t + 1, 8000000, 0);
	/* preempted (R+) for 500 ns: under --min-block 1 */
	switch_out(&ev, t + 3, 0x100, 2000000, 372);
	switch_rec(&ev, t + 3, 2000500, 0);
	/* exiting (Z): not a wait */
	switch_out(&ev, t + 4, 0x20, 2000000, 372);
	/* a wait across lost records: left out */
	switch_out(&ev, t + 5, 1, 4000000, 372);
	uint64_t lost[4] = {0, 0, 7, 0};
	struct perf_event_header lh = {PERF_RECORD_LOST, 0, 32};
	memcpy(lost, &lh, sizeof(lh));
	lost[3] = 0;
	rec_events_handle(&ev, lost, sizeof(lost));
	switch_rec(&ev, t + 5, 5000000, 0);
	/* waiting still when recording stops: until then */
	switch_out(&ev, t + 6, 1, 6000000, 372);
	/* a switch-in of a thread never seen leaving: nothing */
	switch_rec(&ev, t + 7, 6000000, 0);
	/* another tracepoint's raw data, and a CPU sample's: not switches */
	switch_out(&ev, t + 8, 1, 6000000, 373);
	switch_out(&ev, t + 8, 1, 6000000, 0);
	/* --wall: a CPU sample weighs what its thread ran since the one
	 * before (its period, 1 ns, where that is not known): 400 ns, then
	 * 100 before a wait of 2000 and 300 after; t + 8's second sample,
	 * at the time of its first, nothing */
	switch_rec(&ev, t + 9, 8100000, 0);
	switch_out(&ev, t + 9, 1, 8100400, 0);
	switch_out(&ev, t + 9, 1, 8100500, 372);
	switch_rec(&ev, t + 9, 8102500, 0);
	switch_out(&ev, t + 9, 1, 8102800, 0);
	rec_offcpu_finish(&ev, 9000000);

	CHECK(stats.switches == 7);
	CHECK(stats.waits == 5);
	CHECK(stats.short_waits == 1);
	CHECK(stats.lost_waits == 1);
	CHECK(stats.offcpu_ns == 6502000);
	CHECK(stats.samples == 4);

	struct ember_intern names;
	struct ember_stacks stacks;
	struct ember_buf b = EMBER_BUF_INIT;
	ember_intern_init(&names);
	ember_stacks_init(&stacks);
	CHECK(rec_symbolize(&ev, 0, NULL, &names, &stacks, NULL, NULL, NULL) ==
	      0);
	ember_stacks_sort(&stacks, &names);
	CHECK(ember_stacks_write(&stacks, &names, 0, buf_write, &b) == 0);
	CHECK_STR(b.buf, ":2000000001;[off-cpu: S] 3000000\n"
			 ":2000000002;[off-cpu: D] 500000\n"
			 ":2000000006;[off-cpu: S] 3000000\n"
			 ":2000000008 1\n"
			 ":2000000009 800\n"
			 ":2000000009;[off-cpu: S] 2000\n");
	ember_buf_release(&b);
	ember_stacks_release(&stacks);
	ember_intern_release(&names);
	rec_events_release(&ev);
}

/* ---- jitdump names with control bytes ---- */

#define JD_CODE 0x7f0000000000ull /* the JIT's code */

/* A JIT_CODE_LOAD record: code [addr, addr + size) named name. */
static void jd_code_load(struct ember_buf *b, uint32_t pid, uint64_t ts,
			 uint64_t addr, uint64_t size, const char *name)
{
	size_t nl = strlen(name) + 1;
	uint32_t head[2] = {0, (uint32_t)(16 + 40 + nl + size)};
	uint32_t ids[2] = {pid, pid};
	uint64_t v[4] = {addr, addr, size, 1};

	ember_buf_add(b, head, sizeof(head));
	ember_buf_add(b, &ts, 8);
	ember_buf_add(b, ids, sizeof(ids));
	ember_buf_add(b, v, sizeof(v));
	ember_buf_add(b, name, nl);
	for (uint64_t i = 0; i < size; i++)
		ember_buf_addch(b, '\xc3'); /* ret */
}

/* Writes path, the jitdump of pid: two functions whose names hold
 * control bytes, a newline among them. */
static void jd_write(const char *path, uint32_t pid)
{
	struct ember_buf jd = EMBER_BUF_INIT;
	/* the header: magic, version 1, size 40, x86-64, pid, time, flags */
	uint32_t h32[6] = {0x4A695444, 1, 40, 62, 0, pid};
	uint64_t h64[2] = {1, 0};

	ember_buf_add(&jd, h32, sizeof(h32));
	ember_buf_add(&jd, h64, sizeof(h64));
	jd_code_load(&jd, pid, 2, JD_CODE + 0x1000, 0x100,
		     "js:caller\tat\rline");
	jd_code_load(&jd, pid, 3, JD_CODE + 0x2000, 0x100,
		     "js:hot\033[31m\nnode;fake_root 999");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, jd.buf, jd.len) == (ssize_t)jd.len);
	close(fd);
	ember_buf_release(&jd);
}

#define JD_SAMPLE_TYPE                                                         \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |                 \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

/* Appends a record of type (n words, the header's first) to b. */
static void jd_perf_rec(struct ember_buf *b, uint32_t type, uint16_t misc,
			uint64_t *rec, size_t n)
{
	struct perf_event_header h = {type, misc, (uint16_t)(n * 8)};

	memcpy(rec, &h, sizeof(h));
	ember_buf_add(b, rec, n * 8);
}

/* The records of a JIT process pid as perf sees it run: its COMM, the
 * mappings of its code and of its jitdump (at path, mapped executable as
 * JIT runtimes map it for perf to see), and a sample in the hot function
 * called by the caller; sample_type JD_SAMPLE_TYPE, sample_id_all. */
static void jd_perf_records(struct ember_buf *b, uint32_t pid, const char *path)
{
	uint64_t rec[64], tid = (uint64_t)pid | (uint64_t)pid << 32;
	size_t n = 1;

	rec[n++] = tid;
	memcpy(&rec[n++], "node\0\0\0\0", 8);
	rec[n++] = tid, rec[n++] = 5, rec[n++] = 0; /* sample_id */
	jd_perf_rec(b, PERF_RECORD_COMM, 0, rec, n);
	for (int k = 0; k < 2; k++) {
		char name[64] = "//anon";
		if (k)
			snprintf(name, sizeof(name), "%s", path);
		n = 1;
		rec[n++] = tid;
		rec[n++] = k ? JD_CODE + 0x100000 : JD_CODE;
		rec[n++] = 0x10000;	    /* len */
		rec[n++] = 0;		    /* pgoff */
		rec[n++] = 0;		    /* maj, min */
		rec[n++] = (uint64_t)k + 1; /* ino */
		rec[n++] = 0;
		rec[n++] = PROT_READ | PROT_EXEC; /* prot, flags */
		memcpy(&rec[n], name, sizeof(name));
		n += sizeof(name) / 8;
		rec[n++] = tid, rec[n++] = 6, rec[n++] = 0;
		jd_perf_rec(b, PERF_RECORD_MMAP2, 0, rec, n);
	}
	n = 1;
	rec[n++] = JD_CODE + 0x2010; /* ip */
	rec[n++] = tid;
	rec[n++] = 10; /* time */
	rec[n++] = 0;  /* cpu */
	rec[n++] = 1;  /* period */
	rec[n++] = 3;  /* callchain */
	rec[n++] = (uint64_t)PERF_CONTEXT_USER;
	rec[n++] = JD_CODE + 0x2010;
	rec[n++] = JD_CODE + 0x1020;
	jd_perf_rec(b, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, rec, n);
}

/* The names as they must come out: one line, the names whole, every
 * control byte a '?' (and ';' in a name a ':', as perf names go). */
#define JD_FOLDED "node;js:caller?at?line;js:hot?[31m?node:fake_root 999 1\n"

/* Folds input (len bytes) as collapse perf with --pid (tid: --tid). */
static void collapse_idle(const void *input, size_t len, int tid,
			  struct ember_buf *out)
{
	struct ember_collapse_options o;
	struct ember_collapse *c;

	ember_collapse_options_init(&o);
	o.format = "perf";
	o.pid = !tid;
	o.tid = tid;
	ember_buf_reset(out);
	CHECK(ember_collapse_new(&c, &o) == 0);
	CHECK(ember_collapse_mem(c, "in", input, len) == 0);
	CHECK(ember_collapse_write(c, buf_write, out) == 0);
	ember_collapse_free(c);
}

/*
 * The idle task's samples, in a perf.data stream and as perf script
 * -F+pid prints them ("swapper 0/0"): both readers name the root as
 * stackcollapse-perf.pl does, for which the tid 0 is false: swapper-?
 * (--pid), swapper-?/0 (--tid).
 */
static void test_idle_root(void)
{
	struct ember_buf pd = EMBER_BUF_INIT, b = EMBER_BUF_INIT;
	uint64_t head[2] = {0x32454c4946524550ull /* PERFILE2 */, 16};
	struct {
		struct perf_event_header h;
		struct perf_event_attr a;
	} attr;
	uint64_t rec[16];
	size_t n = 1;
	static const char text[] =
	    "swapper     0/0     [000]     1.000001:    1 cpu-clock: \n"
	    "\t            1234 [unknown] ([unknown])\n\n";

	ember_buf_add(&pd, head, sizeof(head));
	memset(&attr, 0, sizeof(attr));
	attr.h =
	    (struct perf_event_header){64 /* HEADER_ATTR */, 0, sizeof(attr)};
	attr.a.type = PERF_TYPE_SOFTWARE;
	attr.a.size = sizeof(attr.a);
	attr.a.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.a.sample_period = 1;
	attr.a.sample_type = JD_SAMPLE_TYPE;
	attr.a.sample_id_all = 1;
	ember_buf_add(&pd, &attr, sizeof(attr));
	rec[n++] = 0x1234; /* ip */
	rec[n++] = 0;	   /* pid 0, tid 0 */
	rec[n++] = 1000001000;
	rec[n++] = 0; /* cpu */
	rec[n++] = 1; /* period */
	rec[n++] = 2; /* callchain */
	rec[n++] = (uint64_t)PERF_CONTEXT_USER;
	rec[n++] = 0x1234;
	jd_perf_rec(&pd, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, rec, n);
	for (int tid = 0; tid < 2; tid++) {
		const char *want = tid ? "swapper-?/0;[unknown] 1\n"
				       : "swapper-?;[unknown] 1\n";
		collapse_idle(text, sizeof(text) - 1, tid, &b);
		CHECK_STR(b.buf, want);
		collapse_idle(pd.buf, pd.len, tid, &b);
		CHECK_STR(b.buf, want);
	}
	ember_buf_release(&b);
	ember_buf_release(&pd);
}

/*
 * A JIT's function names come from its jitdump as they come from perf
 * maps, and are cleaned the same way: a newline in a name must not split
 * the folded line (and make up a root frame), nor ESC, CR and TAB reach
 * the output.  Both readers of jitdumps: `ember record` (its records
 * handled live) and `ember collapse perf` on a perf.data stream.
 */
static void test_jitdump_control_names(void)
{
	const uint32_t pid = BASE_TID + 77;
	char dir[] = "/tmp/ember-jd-XXXXXX", path[64];
	struct ember_buf recs = EMBER_BUF_INIT, b = EMBER_BUF_INIT;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/jit-%u.dump", dir, pid);
	jd_write(path, pid);
	jd_perf_records(&recs, pid, path);

	/* record */
	struct ember_record_stats stats;
	struct rec_events ev;
	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.system_wide = 1;
	ev.sample_type = JD_SAMPLE_TYPE;
	for (size_t off = 0; off < recs.len;) {
		struct perf_event_header h;
		memcpy(&h, recs.buf + off, sizeof(h));
		rec_events_handle(&ev, recs.buf + off, h.size);
		off += h.size;
	}
	CHECK(stats.jitdumps == 1 && stats.samples == 1);
	struct ember_intern *names = ember_intern_new();
	struct ember_stacks *stacks = ember_stacks_new();
	CHECK(rec_symbolize(&ev, 0, NULL, names, stacks, NULL, NULL, NULL) ==
	      0);
	CHECK(ember_stacks_write(stacks, names, 0, buf_write, &b) == 0);
	CHECK_STR(b.buf, JD_FOLDED);
	ember_stacks_free(stacks);
	ember_intern_free(names);
	rec_events_release(&ev);

	/* collapse perf: the same records in a perf.data stream (pipe
	 * mode): the header, the event's attribute, the records */
	struct ember_buf pd = EMBER_BUF_INIT;
	uint64_t head[2] = {0x32454c4946524550ull /* PERFILE2 */, 16};
	ember_buf_add(&pd, head, sizeof(head));
	struct {
		struct perf_event_header h;
		struct perf_event_attr a;
	} attr;
	memset(&attr, 0, sizeof(attr));
	attr.h =
	    (struct perf_event_header){64 /* HEADER_ATTR */, 0, sizeof(attr)};
	attr.a.type = PERF_TYPE_SOFTWARE;
	attr.a.size = sizeof(attr.a);
	attr.a.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.a.sample_period = 1;
	attr.a.sample_type = JD_SAMPLE_TYPE;
	attr.a.sample_id_all = 1;
	attr.a.mmap2 = attr.a.comm = 1;
	ember_buf_add(&pd, &attr, sizeof(attr));
	ember_buf_add(&pd, recs.buf, recs.len);
	struct ember_collapse_options o;
	struct ember_collapse *c;
	ember_collapse_options_init(&o);
	o.format = "perf";
	CHECK(ember_collapse_new(&c, &o) == 0);
	CHECK(ember_collapse_mem(c, "perf.data", pd.buf, pd.len) == 0);
	ember_buf_reset(&b);
	CHECK(ember_collapse_write(c, buf_write, &b) == 0);
	CHECK(ember_collapse_stats(c)->perfdata);
	CHECK_STR(b.buf, JD_FOLDED);
	ember_collapse_free(c);
	ember_buf_release(&pd);

	ember_buf_release(&b);
	ember_buf_release(&recs);
	unlink(path);
	rmdir(dir);
}

/* The context-switches event: a sample (event id) then a switch-out
 * record (preempted or not), with PERF_SAMPLE_IDENTIFIER. */
static void cs_sample(struct rec_events *ev, int tid, uint64_t time,
		      uint64_t id)
{
	uint64_t rec[8] = {
	    0,	  id, 0x401000, (uint64_t)(uint32_t)tid | (uint64_t)tid << 32,
	    time, 0,  1,	0};
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, sizeof(rec)};

	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, sizeof(rec));
}

/* A side-band record of tid at time: body words, then the sample_id
 * (tid, time, cpu, identifier). */
static void cs_side(struct rec_events *ev, uint32_t type, uint16_t misc,
		    int tid, uint64_t time, const uint64_t *body, size_t n)
{
	uint64_t rec[16];
	size_t k = 1;

	for (size_t i = 0; i < n; i++)
		rec[k++] = body[i];
	rec[k++] = (uint64_t)(uint32_t)tid | (uint64_t)tid << 32;
	rec[k++] = time;
	rec[k++] = 0;
	rec[k++] = 42;
	struct perf_event_header h = {type, misc, (uint16_t)(k * 8)};
	memcpy(rec, &h, sizeof(h));
	rec_events_handle(ev, rec, k * 8);
}

static void cs_switch(struct rec_events *ev, int tid, uint64_t time, int out,
		      int preempt)
{
	uint16_t misc = (out ? PERF_RECORD_MISC_SWITCH_OUT : 0) |
			(preempt ? PERF_RECORD_MISC_SWITCH_OUT_PREEMPT : 0);

	cs_side(ev, PERF_RECORD_SWITCH, misc, tid, time, NULL, 0);
}

/* PERF_RECORD_FORK or EXIT of tid, its own process */
static void cs_task(struct rec_events *ev, uint32_t type, int tid,
		    uint64_t time)
{
	uint64_t body[3] = {(uint32_t)tid | (uint64_t)1 << 32,
			    (uint32_t)tid | (uint64_t)1 << 32, time};

	cs_side(ev, type, 0, tid, time, body, 3);
}

static void test_offcpu_cs(void)
{
	struct rec_offcpu *o;
	struct ember_record_stats stats;
	struct rec_events ev;
	const int t = BASE_TID;

	CHECK(rec_offcpu_new_cs(&o, 1) == 0);
	CHECK(!rec_offcpu_states(o));
	rec_offcpu_add_id(o, 42);
	rec_offcpu_add_id(o, 43);
	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.off = o;
	ev.system_wide = 1;
	ev.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
	/* blocked for 2 ms */
	cs_sample(&ev, t + 1, 1000000, 42);
	cs_switch(&ev, t + 1, 1000010, 1, 0);
	/* preempted for 0.5 ms (the other switch event's id) */
	cs_sample(&ev, t + 2, 1000000, 43);
	cs_switch(&ev, t + 2, 1000010, 1, 1);
	cs_switch(&ev, t + 2, 1500000, 0, 0);
	cs_switch(&ev, t + 1, 3000000, 0, 0);
	/* a CPU sample */
	cs_sample(&ev, t + 3, 2000000, 7);
	/* an exiting thread's last switch: no wait */
	cs_task(&ev, PERF_RECORD_EXIT, t + 4, 2000000);
	cs_sample(&ev, t + 4, 2000010, 42);
	cs_switch(&ev, t + 4, 2000020, 1, 0);
	/* its switch-out record missing: blocked, for 2 ms; the next one's
	 * for 0.5 ms */
	cs_sample(&ev, t + 5, 4000000, 42);
	cs_sample(&ev, t + 6, 5000000, 42);
	cs_switch(&ev, t + 6, 5000010, 1, 0);
	cs_switch(&ev, t + 6, 5500000, 0, 0);
	cs_switch(&ev, t + 5, 6000000, 0, 0);
	/* the exited thread's id used again: waits again, 1 ms */
	cs_task(&ev, PERF_RECORD_FORK, t + 4, 7000000);
	cs_sample(&ev, t + 4, 7000010, 42);
	cs_switch(&ev, t + 4, 7000020, 1, 0);
	cs_switch(&ev, t + 4, 8000010, 0, 0);
	rec_offcpu_finish(&ev, 9000000);

	CHECK(stats.switches == 5);
	CHECK(stats.waits == 5);
	CHECK(stats.offcpu_ns == 6000000);
	CHECK(stats.samples == 1);

	struct ember_intern names;
	struct ember_stacks stacks;
	struct ember_buf b = EMBER_BUF_INIT;
	ember_intern_init(&names);
	ember_stacks_init(&stacks);
	CHECK(rec_symbolize(&ev, 0, NULL, &names, &stacks, NULL, NULL, NULL) ==
	      0);
	ember_stacks_sort(&stacks, &names);
	CHECK(ember_stacks_write(&stacks, &names, 0, buf_write, &b) == 0);
	CHECK_STR(b.buf, ":2000000001;[off-cpu: blocked] 2000000\n"
			 ":2000000002;[off-cpu: R] 500000\n"
			 ":2000000003 1\n"
			 ":2000000004;[off-cpu: blocked] 1000000\n"
			 ":2000000005;[off-cpu: blocked] 2000000\n"
			 ":2000000006;[off-cpu: blocked] 500000\n");
	ember_buf_release(&b);
	ember_stacks_release(&stacks);
	ember_intern_release(&names);
	rec_events_release(&ev);
}

/* ---- the rings read on their own thread ---- */

/* A ring in plain memory, as the kernel lays it out (a header page, then
 * data); a pipe stands for the event's fd, readable when written. */
static void fake_ring(struct rec_ring *r, int fds[2], size_t data,
		      uint64_t start)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	memset(r, 0, sizeof(*r));
	CHECK(pipe(fds) == 0);
	r->fd = fds[0];
	r->size = page + data;
	r->base = aligned_alloc(page, r->size);
	memset(r->base, 0, r->size);
	r->data_size = data;
	struct perf_event_mmap_page *pg = r->base;
	pg->data_offset = page;
	pg->data_size = data;
	pg->data_head = pg->data_tail = start;
}

/* The kernel's side: a 32-byte sample at time, at the head, wrapping. */
static void fake_put(struct rec_ring *r, uint64_t time)
{
	struct perf_event_mmap_page *pg = r->base;
	char *d = (char *)r->base + pg->data_offset;
	struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, 32};
	uint64_t rec[4] = {0, 0x401000, 7 | (uint64_t)7 << 32, time};
	uint64_t head = pg->data_head;

	memcpy(rec, &h, sizeof(h));
	for (size_t i = 0; i < sizeof(rec); i++)
		d[(head + i) & (r->data_size - 1)] = ((char *)rec)[i];
	__atomic_store_n(&pg->data_head, head + sizeof(rec), __ATOMIC_RELEASE);
}

/* The times of a batch's records, in order, into t; how many. */
static size_t batch_times(const struct rec_events *ev,
			  const struct rec_batch *b, uint64_t *t, size_t max)
{
	size_t n = 0;

	for (size_t off = 0; off < b->len && n < max;) {
		const struct perf_event_header *h =
		    (const void *)(b->data + off);
		t[n++] = rec_events_time(ev, h, h->size);
		off += h->size;
	}
	return n;
}

static struct rec_batch *wait_batch(struct rec_reader *rd)
{
	struct pollfd p = {rec_reader_fd(rd), POLLIN, 0};
	struct rec_batch *b = NULL;

	for (int i = 0; i < 50 && !b; i++) {
		poll(&p, 1, 100);
		b = rec_reader_take(rd);
	}
	return b;
}

static void test_reader(void)
{
	struct ember_record_stats stats;
	struct rec_events ev;
	struct rec_ring rings[2];
	int fds[2][2];
	struct rec_reader *rd;
	uint64_t t[8];
	char c;

	memset(&stats, 0, sizeof(stats));
	rec_events_init(&ev, &stats);
	ev.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	/* the first record wraps around the end of its ring */
	fake_ring(&rings[0], fds[0], 4096, 4096 * 5 - 16);
	fake_ring(&rings[1], fds[1], 4096, 0);
	fake_put(&rings[0], 1);
	fake_put(&rings[0], 3);
	fake_put(&rings[1], 2);
	CHECK(write(fds[0][1], "x", 1) == 1);
	/* no backlog allowed: one batch, then nothing until it is back */
	CHECK(rec_reader_start(&rd, rings, 2, &ev, 0) == 0);
	struct rec_batch *b = wait_batch(rd);
	CHECK(b && !b->next && b->len == 96 && !b->corrupt);
	CHECK(b && batch_times(&ev, b, t, 8) == 3 && t[0] == 1 && t[1] == 3 &&
	      t[2] == 2);
	CHECK(read(fds[0][0], &c, 1) == 1);
	struct perf_event_mmap_page *pg1 = rings[1].base;
	fake_put(&rings[1], 4);
	CHECK(write(fds[1][1], "x", 1) == 1);
	usleep(100000);
	CHECK(__atomic_load_n(&pg1->data_tail, __ATOMIC_ACQUIRE) == 32);
	CHECK(!rec_reader_take(rd));
	if (b)
		rec_reader_done(rd, b);
	b = wait_batch(rd);
	CHECK(b && b->len == 32 && batch_times(&ev, b, t, 8) == 1 && t[0] == 4);
	CHECK(__atomic_load_n(&pg1->data_tail, __ATOMIC_ACQUIRE) == 64);
	CHECK(read(fds[1][0], &c, 1) == 1);
	if (b)
		rec_reader_done(rd, b);
	/* stopping reads what the rings hold once more */
	fake_put(&rings[0], 5);
	rec_reader_stop(rd);
	b = rec_reader_take(rd);
	while (b && !b->len) {
		struct rec_batch *next = b->next;
		rec_reader_done(rd, b);
		b = next;
	}
	CHECK(b && batch_times(&ev, b, t, 8) == 1 && t[0] == 5);
	while (b) {
		struct rec_batch *next = b->next;
		rec_reader_done(rd, b);
		b = next;
	}
	rec_reader_free(rd);
	for (int i = 0; i < 2; i++) {
		free(rings[i].base);
		free(rings[i].scratch);
		close(fds[i][0]);
		close(fds[i][1]);
	}
	rec_events_release(&ev);
}

int main(void)
{
	test_symtab_aliases();
	test_symtab_unsorted();
	test_symtab_lazy();
	test_symtab_lazy_elf();
	test_demangle();
	test_fold();
	test_perfmap_parse();
	test_java();
	test_perfmap_trust();
	test_procfs_root();
	test_kallsyms();
	test_kallsyms_addresses();
	test_kallsyms_file();
	test_kallsyms_some();
	test_maps();
	test_elf_self();
	test_elf_versions();
	test_idle_root();
	test_elf_hostile();
	test_debuginfo();
	test_events();
	test_dwarf_samples();
	test_offcpu();
	test_offcpu_cs();
	test_reader();
	test_chains();
	test_callchain_contexts();
	test_jitdump_names();
	test_jitdump_control_names();
	DONE();
}
