/*
 * The collapsers' common ground: what a format provides (struct
 * ember_collapser), what a parser feeds (struct collapse_sink), and the
 * line helpers every parser uses.
 *
 * A parser reads whole lines, keeps the record it is building in its own
 * state across calls, and adds finished stacks to its sink.  The driver
 * (collapse.c) either feeds one parser an input chunk by chunk, or cuts
 * the input at record boundaries (the format's `split`) into jobs that
 * parsers on worker threads take in any order, each into its own sink;
 * the sinks are merged at the end.  State that crosses records (perf's
 * "first event type seen") is settled by the driver in input order
 * (`settle`) and handed to each job, so that every thread parses as one
 * thread would.
 */
#ifndef EMBER_COLLAPSE_H
#define EMBER_COLLAPSE_H

#include <string.h>

#include "symbols/inline.h"
#include "symbols/names.h"
#include "folded.h"

/* Counters of one job (or one input when not split), merged in input
 * order by the driver.  Line numbers are relative to the job. */
struct collapse_counts {
	uint64_t lines, records;
	uint64_t bad, first_bad; /* first_bad: 1-based line, 0: none */
	char first_bad_text[96];
	uint64_t filtered; /* perf: samples of another event type */
	char filtered_event[64];
	uint64_t truncated; /* records cut off by the end of the input */
	uint64_t bare;	    /* perf: event lines with no frame line */
	uint64_t inline_missing;
	char inline_missing_module[128];
	/* perf.data */
	uint64_t pd_samples, pd_lost, pd_user_stacks, pd_truncated;
	uint64_t pd_unknown, pd_corrupt;
	int perfdata;
	/* a whole-input format (JSON, protobuf) could not read its input */
	char error[200];
};

/* Where a parser puts what it finds: one per thread. */
struct collapse_sink {
	struct ember_intern names;
	struct ember_stacks stacks;
	/* per stack, its count summed as an integer, exact and so the same
	 * in any order (as Perl's integers); CL_INEXACT when a count was not
	 * a whole number or the sum overflowed: the table's double counts */
	uint64_t *exact;
	size_t aexact;
	struct collapse_counts n;
	/* formats printing one line per record in input order (not merged,
	 * not sorted): the lines */
	struct ember_buf out;
	char *event; /* perf: the event type its parser settled on */
	size_t event_len;
	int event_defaulted;
	/* what the counts are (pprof's sample type and unit): "" unknown */
	char sample_type[32], sample_unit[32];
	/* the root frames are threads or processes (for one speedscope
	 * profile each) */
	int thread_roots;
	/* perf.data with options.profile: the sample-level profile of its
	 * one input (several inputs: none, no_prof) */
	struct ember_prof *prof;
	int no_prof;
	int want_prof; /* options.profile: readers fill one (cl_prof) */
};

/* State crossing records, settled in input order by the driver. */
struct collapse_shared {
	char *event; /* perf: the event type counted; NULL: not known yet */
	size_t event_len;
	int event_defaulted; /* it is the first seen, not --event-filter */
};

/* The order of the output lines: the scripts that aggregate sort them
 * (Perl's sort), a few print each record as it comes, PHP's arrays keep
 * the order in which stacks were first seen. */
enum cl_order { CL_SORTED, CL_INPUT, CL_FIRST_SEEN };

struct collapse_input;

/* A format: one file that defines one of these, and one row in the table
 * of formats (collapse.c). */
struct ember_collapser {
	const char *name;
	const char *summary;
	enum cl_order order; /* CL_INPUT: lines in sink.out, one thread */
	/* 1 if the start of an input is in this format */
	int (*detect)(const char *p, size_t len);
	/* whether, with these options, an input may be split for threads
	 * (NULL: never; then begin, split and settle may be NULL) */
	int (*parallel)(const struct ember_collapse_options *o);
	void *(*state_new)(const struct ember_collapse_options *o,
			   struct collapse_sink *sink);
	void (*state_free)(void *st);
	/* a job or an input starts (file_start: at the input's first line) */
	void (*begin)(void *st, const struct collapse_shared *sh,
		      int file_start);
	/* whole lines (the last may lack its newline only at the end) */
	void (*parse)(void *st, const char *p, size_t len);
	/* the input ends: a record left open is dropped and counted */
	void (*end)(void *st);
	/* the offset just past the last line of p after which a record
	 * starts afresh (0: none); p starts an input if file_start */
	size_t (*split)(const char *p, size_t len, int file_start);
	/* for threads: settles sh from a job's lines, in input order;
	 * NULL when nothing crosses records */
	void (*settle)(struct collapse_shared *sh, const char *p, size_t len,
		       int file_start);
	/* A format not made of lines (a binary perf.data, JSON, protobuf)
	 * reads each input whole itself, with cl_input_next or
	 * cl_input_all, into its state's sink; it has no parse, split or
	 * settle (begin and end, if any, frame each input).  0 or an
	 * EMBER_E* code.  NULL for a line format. */
	int (*read)(void *st, struct collapse_input *in);
	/* A line format that also reads some inputs whole (perf: perf.data):
	 * whether the input starting with p is one of those. */
	int (*whole)(const char *p, size_t len);
	/* A format may add its stacks once every input is read (trace
	 * events nest spans across inputs); NULL: none. */
	void (*finish)(void *st);
	/* how counts that are not integers print (NULL: as Perl, %.15g) */
	void (*number)(struct ember_buf *b, double x);
	/* the input is a path the format walks itself (files: a folder
	 * tree), not a stream; 0 or an EMBER_E* code */
	int (*path)(void *st, const char *path);
};

/* An input handed to a format's `read`: its pieces (the first holds at
 * least the bytes the format was guessed from) as they come, 1 and a
 * piece valid until the next call, 0 at the end or an EMBER_E* code; or
 * all of it at once in memory (read, never mapped: EMBER_ETRUNC when a
 * file is cut short meanwhile), valid until `read` returns: 0 or an
 * EMBER_E* code.  Take one or the other. */
int cl_input_next(struct collapse_input *in, const char **p, size_t *n);
int cl_input_all(struct collapse_input *in, const char **p, size_t *n);
/* The input's file descriptor when it is a plain file (to map or seek),
 * else -1 (to read or seek: never to map, see cl_input_all); its name
 * for messages (NULL: standard input). */
int cl_input_fd(const struct collapse_input *in);
const char *cl_input_name(const struct collapse_input *in);

extern const struct ember_collapser ember_collapser_perf;
extern const struct ember_collapser ember_collapser_stap;
extern const struct ember_collapser ember_collapser_dtrace;
extern const struct ember_collapser ember_collapser_recursive;
extern const struct ember_collapser ember_collapser_bpftrace;
extern const struct ember_collapser ember_collapser_gdb;
extern const struct ember_collapser ember_collapser_elfutils;
extern const struct ember_collapser ember_collapser_jstack;
extern const struct ember_collapser ember_collapser_ibmjava;
extern const struct ember_collapser ember_collapser_java_exceptions;
extern const struct ember_collapser ember_collapser_faulthandler;
extern const struct ember_collapser ember_collapser_go;
extern const struct ember_collapser ember_collapser_ljp;
extern const struct ember_collapser ember_collapser_perf_sched;
extern const struct ember_collapser ember_collapser_sample;
extern const struct ember_collapser ember_collapser_instruments;
extern const struct ember_collapser ember_collapser_xctrace;
extern const struct ember_collapser ember_collapser_vtune;
extern const struct ember_collapser ember_collapser_vtune_mc;
extern const struct ember_collapser ember_collapser_vsprof;
extern const struct ember_collapser ember_collapser_aix;
extern const struct ember_collapser ember_collapser_pmc;
extern const struct ember_collapser ember_collapser_wcp;
extern const struct ember_collapser ember_collapser_xdebug;
extern const struct ember_collapser ember_collapser_ghcprof;
extern const struct ember_collapser ember_collapser_files;
extern const struct ember_collapser ember_collapser_pkgsplit_perf;
extern const struct ember_collapser ember_collapser_range_perf;
extern const struct ember_collapser ember_collapser_folded;
extern const struct ember_collapser ember_collapser_chrome;
extern const struct ember_collapser ember_collapser_chrome_tracing;
extern const struct ember_collapser ember_collapser_pprof;
extern const struct ember_collapser ember_collapser_cpuprofile;
extern const struct ember_collapser ember_collapser_speedscope;

/* perf.c, for a reader that decodes samples itself: the root frame's
 * names for a thread, and one frame's names (pushed as the text's frame
 * line pushes them, to be reversed with the rest of the stack); returns
 * 1 when the frame is a --skip-after frame.  The state is perf's. */
size_t cl_perf_root(void *perf_state, const char *comm, size_t n, int pid,
		    int tid, const uint32_t **ids, int *java);
int cl_perf_frame(void *perf_state, const struct ember_perf_frame *f, int java,
		  const uint32_t **ids, size_t *n);

/* perfdata.c: a perf.data file or stream read whole into k,
 * named by the perf state: 0, or an EMBER_E* code with a message in
 * k->n.error. */
int cl_perfdata_read(const struct ember_collapse_options *o,
		     struct collapse_sink *k, void *perf_state,
		     struct collapse_input *in);
int cl_perfdata_detect(const char *p, size_t len);

/* The folded core's character and line rules (folded.h), under the names
 * the formats use. */
static inline int cl_space(unsigned char c)
{
	return folded_space(c);
}
static inline int cl_digit(unsigned char c)
{
	return folded_digit(c);
}
static inline int cl_word(unsigned char c)
{
	return folded_word(c);
}
/* memmem/prefix tests against a C string. */
static inline int cl_has(const char *s, size_t n, const char *lit)
{
	return memmem(s, n, lit, strlen(lit)) != NULL;
}
static inline int cl_starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n >= m && !memcmp(s, lit, m);
}
static inline int cl_blank(const char *s, size_t n)
{
	return folded_blank(s, n);
}
static inline size_t cl_line(const char **p, const char *end, const char **line)
{
	return folded_line(p, end, line);
}
/* /^\s*(\d+)$/, the count line that ends a DTrace or SystemTap stack;
 * *digits is where the digits start. */
static inline int cl_count_line(const char *s, size_t n, size_t *digits)
{
	size_t i = 0;

	while (i < n && cl_space((unsigned char)s[i]))
		i++;
	if (i == n)
		return 0;
	*digits = i;
	for (; i < n; i++)
		if (!cl_digit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* A `split` for a format whose records end at a line that `boundary`
 * recognizes (the line without its newline and '\r'): the offset just
 * past the last such line in p[start, len), or 0 when there is none. */
static inline size_t cl_split_after(const char *p, size_t start, size_t len,
				    int (*boundary)(const char *s, size_t n))
{
	const char *lo = p + start;
	const char *nl = len > start ? memrchr(lo, '\n', len - start) : NULL;

	while (nl) {
		const char *prev =
		    nl > lo ? memrchr(lo, '\n', (size_t)(nl - lo)) : NULL;
		const char *s = prev ? prev + 1 : lo;
		size_t n = (size_t)(nl - s);
		if (n && s[n - 1] == '\r')
			n--;
		if (boundary(s, n))
			return (size_t)(nl - p) + 1;
		nl = prev;
	}
	return 0;
}

/* A line in no shape the format knows. */
static inline void cl_bad(struct collapse_sink *k, const char *s, size_t n)
{
	if (!k->n.bad++) {
		size_t m = n < sizeof(k->n.first_bad_text) - 1
			       ? n
			       : sizeof(k->n.first_bad_text) - 1;
		k->n.first_bad = k->n.lines;
		memcpy(k->n.first_bad_text, s, m);
		k->n.first_bad_text[m] = '\0';
	}
}

/* inferno's map of stacks to counts (occurrences.c) for the collapsers
 * that set a stack's count rather than add to it: the last set wins, and
 * cl_occ_write adds the lines to k->out sorted by stack, then clears. */
struct occ_entry;
struct cl_occ {
	struct ember_buf text;
	struct occ_entry *e;
	size_t n, alloc;
};
void cl_occ_init(struct cl_occ *m);
void cl_occ_set(struct cl_occ *m, const char *s, size_t n, uint64_t count);
void cl_occ_write(struct cl_occ *m, struct collapse_sink *k);
void cl_occ_clear(struct cl_occ *m);
void cl_occ_release(struct cl_occ *m);
/* inferno's stack of frames, root first, with a count each (vsprof's
 * calls; 0 where unused), and the ';'-joined names in text. */
struct cl_istack {
	struct ember_buf text;
	size_t *ends;
	uint64_t *counts;
	size_t n, alloc;
};
void cl_istack_init(struct cl_istack *s);
void cl_istack_push(struct cl_istack *s, const char *name, size_t n,
		    uint64_t count);
void cl_istack_pop(struct cl_istack *s);
void cl_istack_release(struct cl_istack *s);
/* an inferno collapser's error: the input is refused (k->n.error says
 * why), nothing of it printed */
void cl_inferno_error(struct collapse_sink *k, const char *why, const char *s,
		      size_t n);
/* Rust's str::trim_end (ASCII blanks) */
static inline size_t cl_trim_end(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || (s[n - 1] >= '\t' && s[n - 1] <= '\r')))
		n--;
	return n;
}
#define CL_INEXACT FOLDED_INEXACT

/*
 * Perl's $count{$stack} += $n, for entry e: the sum stays an integer
 * while $n is one (digits) and the sum is one or an integral float, and
 * no addition overflows 64 bits; otherwise it is a float.  exact[e] holds
 * the integer (CL_INEXACT: a float), the table's count the float view.
 */
static inline void cl_count(struct collapse_sink *k, size_t e, double count,
			    uint64_t v, int integer)
{
	if (e >= k->aexact) {
		size_t a = k->aexact ? k->aexact * 2 : 1024;
		while (a <= e)
			a *= 2;
		k->exact = ember_xreallocarray(k->exact, a, sizeof(*k->exact));
		memset(k->exact + k->aexact, 0,
		       (a - k->aexact) * sizeof(*k->exact));
		k->aexact = a;
	}
	ember_perl_add(&k->exact[e], &k->stacks.ents[e].count, count, v,
		       integer);
}

/* Adds a finished stack (root first) with a count Perl holds as a float. */
static inline void cl_add_nv(struct collapse_sink *k, const uint32_t *ids,
			     size_t n, double count)
{
	cl_count(k, ember_stacks_add(&k->stacks, ids, n, 0, 0), count, 0, 0);
	k->n.records++;
}

/* The same with a count written in digits: an integer when it fits in 64
 * bits (else a float, as for Perl). */
static inline void cl_add_digits(struct collapse_sink *k, const uint32_t *ids,
				 size_t n, const char *digits, size_t nd)
{
	uint64_t v = 0;
	int integer = ember_parse_u64(digits, nd, &v);
	double count = integer ? (double)v : ember_perl_number(digits, nd);

	cl_count(k, ember_stacks_add(&k->stacks, ids, n, 0, 0), count, v,
		 integer);
	k->n.records++;
}

/* The same for a stack gathered leaf first (as DTrace and SystemTap print
 * stacks): reversed in place, then added root first. */
static inline void cl_add_leaf_first(struct collapse_sink *k, uint32_t *f,
				     size_t n, const char *digits, size_t nd)
{
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		uint32_t t = f[i];
		f[i] = f[j];
		f[j] = t;
	}
	cl_add_digits(k, f, n, digits, nd);
}

/*
 * A stack being built from names, for the scripts that build a string
 * ("$func;$current") and count it: a name holding ';' is as many frames
 * as the joined string shows, so that stacks equal as strings are one.
 */
struct cl_frames {
	uint32_t *f;
	size_t n, alloc;
};
/* Appends the name's frames, left to right. */
void cl_frames_push(struct collapse_sink *k, struct cl_frames *v, const char *s,
		    size_t n);
/* Appends them right to left: for a stack gathered leaf first and
 * reversed before it is added (cl_frames_reverse). */
void cl_frames_push_rev(struct collapse_sink *k, struct cl_frames *v,
			const char *s, size_t n);
void cl_frames_reverse(struct cl_frames *v);
/*
 * A string the scripts build by prepending ("stack = $1 \";\" stack"):
 * the parts are kept in input order and joined last first only when the
 * string is needed, so that a stack of n frames costs O(n), not O(n^2).
 */
struct cl_revjoin {
	struct ember_buf text; /* the parts, one after another */
	size_t *end;	       /* where each part ends in text */
	size_t n, alloc;
};
void cl_revjoin_init(struct cl_revjoin *r);
void cl_revjoin_release(struct cl_revjoin *r);
/* Makes the string s (one part). */
void cl_revjoin_set(struct cl_revjoin *r, const char *s, size_t n);
/* The string becomes s ";" string. */
void cl_revjoin_prepend(struct cl_revjoin *r, const char *s, size_t n);
/* The string's length, and the string appended to out. */
size_t cl_revjoin_len(const struct cl_revjoin *r);
void cl_revjoin_write(const struct cl_revjoin *r, struct ember_buf *out);
/* Adds the stack (root first) with a whole count. */
void cl_add_u64(struct collapse_sink *k, const uint32_t *ids, size_t n,
		uint64_t v);
/* The scripts' "$stack[$depth] = $func" arrays (instruments, vtune):
 * the last name seen at each depth ("" where none was). */
struct cl_depth {
	struct ember_buf text;
	size_t *off, *len;
	size_t alloc;
};
void cl_depth_set(struct cl_depth *d, size_t depth, const char *s, size_t n);
/* Appends the names at depths 0 .. depth-1, each followed by ';'. */
void cl_depth_callers(const struct cl_depth *d, size_t depth,
		      struct ember_buf *out);
void cl_depth_release(struct cl_depth *d);

/* Perl's /^\s*at ([^\(]*)/ (jstack, java-exceptions, ibmjava): the
 * frame after "at", up to '(' or the end, in *f; 0 if not such a line. */
int cl_java_at(const char *s, size_t n, const char **f, size_t *fn);
/* --shorten-pkgs: the packages of "a.b.Class.method" cut to their first
 * letters ("com.example.Foo.m" -> "c.e.Foo.m"), or with no_pkgs dropped
 * ("Foo.m"); into out.  A name without a package ("Foo.m", "m") stays as
 * it is (the script makes it empty). */
void cl_java_shorten(const char *s, size_t n, int no_pkgs,
		     struct ember_buf *out);

/* The output (output.c): the lines written in a given order. */
int ember_collapse_write_order(const struct collapse_sink *k,
			       const uint32_t *order,
			       void (*number)(struct ember_buf *, double),
			       ember_write_fn w, void *ctx);

/* The sink's sample-level profile, made on first use; NULL when it is
 * not wanted (options.profile unset, or several inputs: no_prof). */
struct ember_prof *cl_prof(struct collapse_sink *k);

/* A whole-input format's error: the first one counts. */
void cl_fail(struct collapse_sink *k, const char *fmt, ...) EMBER_PRINTF(2, 3);

/* The line cache (linecache.c): a line's text, with a flag, -> frame ids. */
enum {
	LC_JAVA = 1,	/* made for a java process (part of the key) */
	LC_UNKNOWN = 2, /* perf: the symbol is [unknown] */
	LC_SKIP = 4,	/* perf: a --skip-after frame */
};
struct ember_linecache {
	uint64_t *slots;
	size_t mask, n;
	char *mem;
	size_t len, alloc;
	uint32_t prev; /* the record of the last line */
	uint64_t hash; /* of the last key not found ... */
	int pending;   /* ... valid */
};
struct lc_hit {
	const uint32_t *ids;
	size_t nids;
	int flags;
};
void ember_linecache_init(struct ember_linecache *c);
void ember_linecache_release(struct ember_linecache *c);
/* 1 and the hit, or 0: then ember_linecache_add may follow. */
int ember_linecache_find(struct ember_linecache *c, const char *k, size_t kn,
			 int java, struct lc_hit *hit);
void ember_linecache_add(struct ember_linecache *c, const char *k, size_t kn,
			 int flags, const uint32_t *ids, size_t nids);
/* A record starts: the next line follows none. */
static inline void ember_linecache_restart(struct ember_linecache *c)
{
	c->prev = 0;
}

#endif
