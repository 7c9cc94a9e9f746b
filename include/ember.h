/*
 * ember: a flame-graph toolkit.  This is libember's public interface; the
 * ember command line is its first client.  The library never prints and
 * never exits: it returns 0 or a negative EMBER_E* code, and warnings go
 * through the log callback.
 */
#ifndef EMBER_H
#define EMBER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define EMBER_VERSION "0.1.0"

#define EMBER_WUR	   __attribute__((warn_unused_result))
#define EMBER_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ---- errors and log -------------------------------------------------- */

enum {
	EMBER_OK = 0,
	EMBER_ENOMEM = -1,    /* out of memory */
	EMBER_EIO = -2,	      /* read or write failed; errno tells why */
	EMBER_EINVAL = -3,    /* bad argument or option value */
	EMBER_EFORMAT = -4,   /* input is not in the expected format */
	EMBER_ENOENT = -5,    /* no such file, process or symbol */
	EMBER_EPERM = -6,     /* not permitted */
	EMBER_ENOTSUP = -7,   /* not supported here */
	EMBER_EEMPTY = -8,    /* no data (e.g. no stack counts) */
	EMBER_EINTR = -9,     /* interrupted */
	EMBER_ETOOLONG = -10, /* a line longer than EMBER_MAX_LINE */
	EMBER_ETRUNC = -11,   /* a file cut short while it was read */
};

const char *ember_strerror(int err);

enum ember_log_level {
	EMBER_LOG_ERROR,
	EMBER_LOG_WARN,
	EMBER_LOG_INFO,
	EMBER_LOG_DEBUG,
	EMBER_LOG_PROGRESS, /* a status line replacing the last ("": none);
			       for a terminal only */
	EMBER_LOG_NOTICE,   /* shown unless quiet */
};
typedef void (*ember_log_fn)(int level, const char *msg, void *ctx);
/* Where the library's warnings go; the default drops them. */
void ember_set_log(ember_log_fn fn, void *ctx);

/* Input lines in no shape the format knows: skipped, counted, and reported
 * once, with the first of them (in every command's stats). */
struct ember_bad_lines {
	uint64_t count;		 /* lines skipped */
	uint64_t first_line;	 /* the first one's number (1-based) ... */
	const char *first_input; /* ... in this input (NULL: standard input) */
	char first_text[96];	 /* ... and its start */
};

/* Output sink: write n bytes, return 0 or a negative EMBER_E* code. */
typedef int (*ember_write_fn)(void *ctx, const void *p, size_t n);
/* An ember_write_fn for a stdio stream (ctx is the FILE *). */
int ember_write_stdio(void *ctx, const void *p, size_t n);

/* ---- memory ---------------------------------------------------------- */

/* Allocation that never returns NULL: on failure (or size overflow) the
 * out-of-memory handler runs; the default prints a message and aborts. */
typedef void (*ember_oom_fn)(size_t size);
void ember_set_oom_handler(ember_oom_fn fn);
void *ember_xmalloc(size_t n);
void *ember_xcalloc(size_t n, size_t size);
void *ember_xrealloc(void *p, size_t n);
void *ember_xreallocarray(void *p, size_t n, size_t size);
char *ember_xstrdup(const char *s);
char *ember_xmemdup(const void *p, size_t n); /* adds a NUL */

/* Growable byte buffer (git's strbuf): buf is never NULL and is always
 * NUL-terminated; len excludes the NUL. */
struct ember_buf {
	char *buf;
	size_t len, alloc;
};
extern char ember_buf_empty[];
#define EMBER_BUF_INIT                                                         \
	{                                                                      \
		ember_buf_empty, 0, 0                                          \
	}

void ember_buf_init(struct ember_buf *b, size_t hint);
void ember_buf_release(struct ember_buf *b);
void ember_buf_grow(struct ember_buf *b, size_t extra);
void ember_buf_add(struct ember_buf *b, const void *p, size_t n);
void ember_buf_adds(struct ember_buf *b, const char *s);
void ember_buf_addf(struct ember_buf *b, const char *fmt, ...)
    EMBER_PRINTF(2, 3);
void ember_buf_vaddf(struct ember_buf *b, const char *fmt, va_list ap);
/* Appends u in decimal. */
void ember_buf_addu(struct ember_buf *b, uint64_t u);
/* Appends x as printf("%.*f", prec, x) would, for prec 0..3 (fast path
 * for finite values below 2^53 / 10^prec, exact rounding otherwise too). */
void ember_buf_addfix(struct ember_buf *b, double x, int prec);
/* The value printf("%.*f", prec, x) prints, as a double. */
double ember_round_fixed(double x, int prec);
/* Appends x as Perl prints a number: integers exactly, else %.15g. */
void ember_buf_addnum(struct ember_buf *b, double x);
void ember_buf_setlen(struct ember_buf *b, size_t len);
char *ember_buf_detach(struct ember_buf *b, size_t *len);

static inline void ember_buf_addch(struct ember_buf *b, char c)
{
	if (b->len + 1 >= b->alloc)
		ember_buf_grow(b, 1);
	b->buf[b->len++] = c;
	b->buf[b->len] = '\0';
}

static inline void ember_buf_reset(struct ember_buf *b)
{
	ember_buf_setlen(b, 0);
}

/* ---- frame-name interning -------------------------------------------- */

/* Each distinct byte string gets a dense id 0, 1, 2, ... in order of first
 * appearance; the table keeps a NUL-terminated copy of each. */
struct ember_intern;
struct ember_intern *ember_intern_new(void);
void ember_intern_free(struct ember_intern *t);
uint32_t ember_intern(struct ember_intern *t, const char *s, size_t len);
/* Returns the id of s, or UINT32_MAX when it was never interned. */
uint32_t ember_intern_find(const struct ember_intern *t, const char *s,
			   size_t len);
/* The string of an id, and its length in *len unless len is NULL. */
const char *ember_intern_str(const struct ember_intern *t, uint32_t id,
			     size_t *len);
/* How many strings there are: the ids are 0 .. count - 1. */
size_t ember_intern_count(const struct ember_intern *t);

/* ---- stack -> count table -------------------------------------------- */

/* Aggregates weights by stack, a sequence of frame ids (root first).  The
 * ids mean whatever the caller's intern table says.  Stacks keep their
 * order of first appearance (entries 0, 1, 2, ...); ember_stacks_sort
 * orders them for output. */
struct ember_stacks;
struct ember_stacks *ember_stacks_new(void);
void ember_stacks_free(struct ember_stacks *s);
/* Adds count (and count2) to the stack; returns the entry index. */
size_t ember_stacks_add(struct ember_stacks *s, const uint32_t *frames,
			size_t n, double count, double count2);
/* Adds every stack of src to dst (same intern table). */
void ember_stacks_merge(struct ember_stacks *dst,
			const struct ember_stacks *src);
/* How many distinct stacks there are: the entries are 0 .. count - 1. */
size_t ember_stacks_count(const struct ember_stacks *s);
/* Entry i's frames (root first), n of them. */
const uint32_t *ember_stacks_frames(const struct ember_stacks *s, size_t i,
				    size_t *n);
/* Entry i's weight (its count), and its second one in *weight2 unless
 * weight2 is NULL. */
double ember_stacks_weight(const struct ember_stacks *s, size_t i,
			   double *weight2);
/* Sorts the entries so that the folded lines they make ("a;b;c") come in
 * byte order, as `sort` in the Perl scripts does.  Invalidates indices. */
void ember_stacks_sort(struct ember_stacks *s, const struct ember_intern *t);
/* Writes "a;b;c count[ count2]\n" lines, in table order. */
int ember_stacks_write(const struct ember_stacks *s,
		       const struct ember_intern *t, int two_counts,
		       ember_write_fn w, void *ctx) EMBER_WUR;

/* ---- reading input ---------------------------------------------------- */

/* A whole input read into memory (files, pipes, standard input;
 * gzip, xz, zstd and bzip2 decompressed). */
struct ember_input;
/* NULL or "-": standard input. */
int ember_input_load(struct ember_input **in, const char *path) EMBER_WUR;
/* Its bytes (valid until ember_input_free), len of them. */
const char *ember_input_data(const struct ember_input *in, size_t *len);
/* Its name as given; "-" for standard input. */
const char *ember_input_name(const struct ember_input *in);
void ember_input_free(struct ember_input *in);

/* A streamed input, read in chunks that end at a line boundary (the last
 * chunk may end without a newline).  Memory stays bounded whatever the
 * input's size: a line is handed out whole, and one longer than
 * EMBER_MAX_LINE bytes is refused (EMBER_ETOOLONG).  Compressed input
 * (gzip, xz, zstd, bzip2) is detected by its magic bytes and decompressed;
 * data corrupt or cut short is EMBER_EFORMAT.  A regular file that ends before
 * the size it had when opened (truncated while read) ends with EMBER_ETRUNC. */
#define EMBER_MAX_LINE ((size_t)1 << 30)
struct ember_reader;
int ember_reader_open(struct ember_reader **r, const char *path) EMBER_WUR;
/* The same for a descriptor already open, which the reader then owns. */
int ember_reader_fdopen(struct ember_reader **r, int fd) EMBER_WUR;
/* The longest line handed out whole (EMBER_MAX_LINE by default); 0: the
 * input is not made of lines, chunks end anywhere (for an input read
 * whole). */
void ember_reader_set_max_line(struct ember_reader *r, size_t max);
/* The first bytes to come (up to 1 MiB, whole lines or not), left for
 * the next call: to tell the format.  1, 0 at the end, or an error. */
int ember_reader_peek(struct ember_reader *r, const char **p,
		      size_t *len) EMBER_WUR;
/* Returns 1 with a chunk, 0 at the end, or a negative EMBER_E* code.  The
 * chunk stays valid until the next call. */
int ember_reader_next(struct ember_reader *r, const char **p,
		      size_t *len) EMBER_WUR;
/* Bytes consumed from the underlying file so far (compressed bytes for a
 * compressed input), and its size when known (0 otherwise): for progress. */
uint64_t ember_reader_pos(const struct ember_reader *r);
uint64_t ember_reader_size(const struct ember_reader *r);
void ember_reader_close(struct ember_reader *r);

/* ---- flamegraph ------------------------------------------------------- */

/* Every option of flamegraph.pl, same names and defaults. */
struct ember_fg_options {
	const char *title;     /* NULL: "Flame Graph" / "Icicle Graph" / ... */
	const char *subtitle;  /* NULL: none */
	int width;	       /* 1200 */
	int height;	       /* frame height, 16 */
	double minwidth;       /* 0.1 */
	int minwidth_pct;      /* minwidth is a percentage of the total */
	const char *fonttype;  /* "Verdana" */
	double fontsize;       /* 12 */
	double fontwidth;      /* 0.59 */
	const char *countname; /* "samples" */
	const char *nametype;  /* "Function:" */
	const char *colors;    /* "hot" */
	const char *bgcolors;  /* NULL: by palette */
	int hash, random;
	const char *palette_file; /* --cp: "palette.map", else NULL */
	int reverse, inverted, flamechart, negate;
	const char *notes;
	double factor;	      /* 1 */
	double total;	      /* 0: the sum of the counts */
	const char *encoding; /* NULL: none */
	const char *nameattr_file;
	/* ember's own */
	int perl_compat;	/* the error SVG names flamegraph.pl */
	const char *empty_text; /* the SVG's message when there is nothing
				 * to draw (NULL: "ERROR: No valid input
				 * provided to ...") */
	int html;		/* a canvas viewer page instead of the SVG */
	/* inferno-flamegraph's options */
	int inferno;	     /* inferno's drawing: whole counts, its labels,
			      * tooltips, colours (seeded random, in its
			      * order), icicle layout and differential hues */
	int deterministic;   /* --deterministic: colours by an FNV-1a hash */
	int color_diffusion; /* --colordiffusion: wider frames are redder */
	int truncate_right;  /* --truncate-text-right (inferno cuts left) */
	int no_sort;	     /* --no-sort: the input is sorted already */
	const char *uicolor; /* --uicolor "#rrggbb" (NULL: black) */
	const char *search_color; /* --search-color (NULL: #e600e6) */
	const char *stroke_color; /* --stroke-color (NULL, "none": none) */
	const char *const *base;  /* --base: stacks start at these frames */
	size_t nbase;
};
void ember_fg_options_init(struct ember_fg_options *o);

/* The background gradient for --bgcolors (NULL: the palette's default);
 * 0, or EMBER_EINVAL for a colour flamegraph.pl does not know. */
int ember_fg_bgcolors(const char *bgcolors, const char *colors, char c1[8],
		      char c2[8]);

/* Whether colors names a palette: flamegraph.pl's and inferno's python
 * and rust, or only inferno's (no chain) when inferno. */
int ember_fg_palette_known(const char *colors, int inferno);
/* The i-th palette name --colors takes, NULL past the last. */
const char *ember_fg_palette(size_t i);

/* Reports from a render, for the caller to print. */
struct ember_fg_stats {
	size_t lines;		    /* input lines */
	struct ember_bad_lines bad; /* lines with no valid count */
	double total;		    /* sum of the counts */
	size_t frames;		    /* boxes drawn */
	int total_ignored;	    /* --total was below the real total */
	const char *bad_file;	    /* --nameattr or palette file that failed */
	int fractional;		    /* inferno: fractions of counts dropped */
};

struct ember_flamegraph;
struct ember_flamegraph *ember_flamegraph_new(const struct ember_fg_options *o);
/* Adds one input's folded lines (name, or NULL or "-" for standard input,
 * is for reports and must stay valid).  The data is copied: memory grows
 * with the distinct lines, not with the input. */
void ember_flamegraph_add(struct ember_flamegraph *fg, const char *name,
			  const char *data, size_t len);
/* The same in pieces, for a streamed input: begin, then feed whole lines
 * (the input's last may lack its newline) in as many calls as needed. */
void ember_flamegraph_begin(struct ember_flamegraph *fg, const char *name);
void ember_flamegraph_feed(struct ember_flamegraph *fg, const char *data,
			   size_t len);
/* The lines of the input begun last, so far. */
uint64_t ember_flamegraph_lines(const struct ember_flamegraph *fg);
/* What the counts are (--countname), once an input has said. */
void ember_flamegraph_set_countname(struct ember_flamegraph *fg,
				    const char *countname);
/* The sample-level profile behind the stacks (NULL: none): the HTML
 * page then carries its samples, when they have times (threads, a time
 * range, the stack chart).  It must stay valid until the render. */
struct ember_prof;
void ember_flamegraph_set_prof(struct ember_flamegraph *fg,
			       const struct ember_prof *prof);
/* Writes the SVG.  Returns EMBER_EEMPTY (after writing the error SVG that
 * flamegraph.pl writes) when there are no stack counts. */
int ember_flamegraph_render(struct ember_flamegraph *fg, ember_write_fn w,
			    void *ctx, struct ember_fg_stats *stats) EMBER_WUR;
void ember_flamegraph_free(struct ember_flamegraph *fg);

/* ---- collapse --------------------------------------------------------- */

/* Folds profiler output into folded stacks, as FlameGraph's
 * stackcollapse-*.pl scripts do.  Inputs are streamed (memory grows with
 * the number of distinct stacks, not with the input) and, when large,
 * parsed on several threads; the output is the same whatever the number
 * of threads, but for the last digits of sums Perl holds as floats
 * (fractional counts, sums past 2^64): rounded at each addition, they
 * follow the order of the additions, the input's on one thread. */
struct ember_collapse_options {
	const char *format; /* "perf", "stap", "dtrace", "recursive";
			       NULL or "guess": detect from the first input */
	int threads;	    /* 0: one per CPU for large inputs; 1: no threads */
	int inferno;	    /* as inferno's collapsers (perf, dtrace, sample):
			     * Rust names repaired, a last sample without its
			     * blank line counted, perf's names as inferno's */
	size_t job_size;    /* input bytes per thread's job (0: 2 MiB) */
	/* perf (stackcollapse-perf.pl's options, and inferno's --skip-after) */
	int pid, tid;	   /* root frame comm-PID, comm-PID/TID */
	int kernel, jit;   /* _[k] and _[j] annotations */
	int addrs;	   /* [module <addr>] for unknown symbols */
	int inline_frames; /* --inline: inlined calls from DWARF (libdw) */
	int context;	   /* --context: with --inline, :file:line */
	int srcline;	   /* --srcline: input of perf script -F+srcline */
	const char *event_filter;      /* NULL: the first event type seen */
	const char *const *skip_after; /* frames that become the root */
	size_t nskip_after;
	/* dtrace */
	int includeoffset; /* keep +0x offsets (but the leaf's) */
	/* elfutils */
	int elfutils_pid, elfutils_tid; /* PID=N, TID=N root frames */
	/* jstack, ibmjava, java-exceptions */
	int java_no_tname;     /* --no-include-tname */
	int java_tid;	       /* --include-tid: keep the -N of names */
	int java_shorten_pkgs; /* --shorten-pkgs: c.e.Class.method */
	int java_no_pkgs;      /* --no-pkgs (java-exceptions): Class.method */
	/* perf-sched: the awk script's variables (-v NAME=1) */
	int sched_record_tid;	     /* comm-PID of sleeper and waker */
	int sched_record_wake_stack; /* the waker's stack and name */
	int sched_recurse;	     /* wakeup chains */
	/* sample: the awk operand MODULES=0 */
	int sample_no_modules; /* no "module`" before names */
	/* vtune-mc */
	int vtune_size; /* --size: bytes, not allocations */
	/* xdebug */
	int xdebug_counts; /* -c: calls, not time (-t) */
	/* ghcprof: the cost counted */
	enum {
		EMBER_GHCPROF_TIME, /* --time: %time, in tenths (default) */
		EMBER_GHCPROF_TICKS,
		EMBER_GHCPROF_BYTES,
	} ghcprof_source;
	/* files */
	int files_xdev; /* --xdev: one file system */
	/* range-perf: samples from range_min to range_max seconds */
	double range_min, range_max;
	int range_raw;	    /* --timeraw: perf's clock */
	int range_zerosecs; /* --timezerosecs: from the first whole second */
	/* Where the formats that print each record as they read it (one
	 * line per stack, in input order: bpftrace, sample, ...) write
	 * their lines as they go, so that memory stays bounded; NULL: all
	 * of them at ember_collapse_write. */
	ember_write_fn write;
	void *write_ctx;
	/* pprof */
	const char *sample_type; /* the value counted (NULL: the profile's
				    default, else its last sample type) */
	const char *label;	 /* a label whose values become root frames */
	/* cpuprofile: weights in microseconds (the default where the
	 * profile has timeDeltas; time: required), or samples */
	int time;
	/* perf.data: keep the sample-level profile (times, threads,
	 * addresses, lines) for ember_collapse_profile's writers;
	 * EMBER_PROFILE_NO_LINES: without the source lines (perf script
	 * text has no place for them), the DWARF left unread */
	int profile;
	/* with profile: the caller writes the sample-level profile alone
	 * (ember_collapse_profile's prof, not its folded stacks), so a
	 * perf.data is not folded, only named (ember_collapse_write has
	 * nothing of it to write); one input: a second is refused
	 * (EMBER_EINVAL), several inputs making no profile */
	int profile_only;
	int cpuprofile_samples;
	/* Called from the calling thread now and then while an input is
	 * read: bytes consumed so far and the input's size (0: unknown). */
	void (*progress)(void *ctx, uint64_t done, uint64_t size);
	void *progress_ctx;
};
void ember_collapse_options_init(struct ember_collapse_options *o);

/* What a run met, for the caller to report. */
struct ember_collapse_stats {
	const char *format;	    /* the format used (after guessing) */
	uint64_t lines;		    /* input lines */
	uint64_t records;	    /* samples or stacks counted */
	size_t stacks;		    /* distinct stacks */
	int threads;		    /* threads used */
	struct ember_bad_lines bad; /* lines in no shape the format knows */
	/* perf's event filter: the event counted (empty when no sample names
	 * one), whether it was the first seen rather than asked for, and the
	 * samples of other events skipped (and the first such event) */
	char event[64];
	int event_defaulted;
	uint64_t filtered;
	char filtered_event[64];
	/* records cut off by the end of an input (truncated?): not counted */
	uint64_t truncated;
	const char *truncated_input;
	/* perf: samples with no frame lines (recorded without -g) */
	uint64_t no_callchain;
	/* perf --inline: modules without usable debugging information */
	uint64_t inline_missing;
	char inline_missing_module[128];
	/* perf.data inputs: samples, lost samples, user stacks unwound by
	 * DWARF and those cut short, records of unknown types skipped,
	 * malformed samples skipped */
	int perfdata;
	uint64_t pd_samples, pd_lost, pd_user_stacks, pd_truncated;
	uint64_t pd_unknown, pd_corrupt;
	/* why an input in a whole-input format (JSON, protobuf) could not
	 * be read ("" when it could) */
	char error[200];
	/* what the counts are, when the input says ("cpu", "nanoseconds"
	 * from pprof; "" else), and whether the root frames are threads */
	char sample_type[32], sample_unit[32];
	int thread_roots;
	/* when guessing failed: the first bytes were folded stacks already */
	int folded;
	/* EMBER_ETOOLONG: the number of the line refused, in its input */
	uint64_t long_line;
};

struct ember_collapse;
/* EMBER_EINVAL for an unknown format or option combination. */
int ember_collapse_new(struct ember_collapse **c,
		       const struct ember_collapse_options *o) EMBER_WUR;
/* Reads one input (NULL or "-": standard input), compressed or not.
 * EMBER_EFORMAT when guessing finds no known format in the first input,
 * else the reader's error (EMBER_ENOENT, EMBER_EIO...). */
int ember_collapse_input(struct ember_collapse *c, const char *path) EMBER_WUR;
/* The same for an input in memory; name (or NULL) is for reports. */
int ember_collapse_mem(struct ember_collapse *c, const char *name,
		       const char *data, size_t len) EMBER_WUR;
/* Writes the folded stacks, sorted by bytes as the Perl scripts sort. */
int ember_collapse_write(struct ember_collapse *c, ember_write_fn w,
			 void *ctx) EMBER_WUR;
/* What the run met: complete after ember_collapse_write, and after an
 * input that failed (up to that input). */
const struct ember_collapse_stats *
ember_collapse_stats(const struct ember_collapse *c);
void ember_collapse_free(struct ember_collapse *c);

/* The formats: name and one line about it; NULL past the last. */
const char *ember_collapse_format(size_t i, const char **summary);
/* The format that the start of an input looks like, or NULL. */
const char *ember_collapse_guess(const char *p, size_t len);
/* Whether the start of an input looks like folded stacks already. */
int ember_collapse_is_folded(const char *p, size_t len);

/* ---- the sample-level profile ------------------------------------------- */

/* ember_collapse_options.profile: the profile without source lines */
#define EMBER_PROFILE_NO_LINES 2

/* Samples with their times, threads, CPUs and weights, over stacks of
 * frames with addresses, mappings, functions, source lines and inlined
 * calls: what `record` and perf.data inputs know, for the writers that
 * keep more than folded stacks (pprof).  Made by the library (see
 * ember_record_options.profile, ember_collapse_options.profile). */
struct ember_prof;
void ember_prof_free(struct ember_prof *p);
/* Its samples, and the bytes it holds. */
size_t ember_prof_count(const struct ember_prof *p);
size_t ember_prof_bytes(const struct ember_prof *p);

/* ---- profiles out: pprof, speedscope ------------------------------------ */

/* Stacks with their weights, for the writers of other tools' formats. */
struct ember_profile {
	const struct ember_intern *names;
	const struct ember_stacks *stacks; /* with their weights */
	/* optional: per stack, the weight as an exact integer
	 * (UINT64_MAX: the stack's weight is the value); NULL: none */
	const uint64_t *exact;
	size_t nexact;
	const char *sample_type; /* NULL: "samples" (pprof's name) */
	const char *sample_unit; /* NULL: "count"; "nanoseconds", ... */
	int thread_roots;	 /* the root frames are threads/processes */
	const char *name;	 /* speedscope's title; NULL: "ember" */
	/* optional, for pprof: the modules frames are in (where known) and,
	 * per frame name i < nlocs, its mapping (index + 1, 0: none) and an
	 * address in it (the first one seen with that name) */
	const struct ember_pprof_mapping *mappings;
	size_t nmappings;
	const uint32_t *loc_mapping;
	const uint64_t *loc_addr;
	size_t nlocs;
	/* optional: the sample-level profile behind the stacks; the writers
	 * that can use it (pprof) take everything from it instead */
	const struct ember_prof *prof;
};
/* A module as a process mapped it: [start, limit) holds the file's bytes
 * from offset on. */
struct ember_pprof_mapping {
	uint64_t start, limit, offset;
	const char *file;
	const char *build_id; /* hex; NULL: unknown */
};
/* pprof's profile.proto, gzip-compressed (.pb.gz): a function and a
 * location per frame name, the mappings given (and one for frames in
 * none), one value per sample.  Weights
 * that are not integers are rounded (microseconds become nanoseconds). */
int ember_pprof_write(const struct ember_profile *p, ember_write_fn w,
		      void *ctx) EMBER_WUR;
/* speedscope's JSON file format: a sampled profile, or one per thread
 * when the root frames are threads (and there are several). */
int ember_speedscope_write(const struct ember_profile *p, ember_write_fn w,
			   void *ctx) EMBER_WUR;
/* Chrome's trace events (a JSON array): per thread, its CPU samples in
 * time order as Profile and ProfileChunk events, with thread_name and
 * process_name; or (cpuprofile) a .cpuprofile, one profile of every
 * sample. */
int ember_chrome_write(const struct ember_profile *p, int cpuprofile,
		       ember_write_fn w, void *ctx) EMBER_WUR;
/* The Firefox Profiler's processed format (version 66): threads with
 * their samples in time order, shared stack, frame, function and
 * resource tables, libraries, categories for user, kernel, JIT,
 * interpreted and off-CPU frames. */
int ember_firefox_write(const struct ember_profile *p, ember_write_fn w,
			void *ctx) EMBER_WUR;
/* perf script's text: per sample "comm pid/tid [cpu] time: period
 * event:" and its frames leaf first, in time order. */
int ember_perfscript_write(const struct ember_profile *p, ember_write_fn w,
			   void *ctx) EMBER_WUR;
/* A collapse's result as a profile (valid until ember_collapse_free). */
void ember_collapse_profile(struct ember_collapse *c, struct ember_profile *p);

/* ---- diff ------------------------------------------------------------- */

/* difffolded.pl: every stack of either folded input with its count in
 * each ("stack before after"), for a differential flame graph. */
struct ember_diff_options {
	int normalize; /* -n: scale BEFORE's counts to AFTER's total */
	int strip_hex; /* -s: 0x1234 -> 0x... before merging */
	int whole;     /* inferno-diff-folded: counts cut to whole numbers,
			* stacks end before any spaces */
};
struct ember_diff_stats {
	uint64_t lines[2]; /* per input */
	struct ember_bad_lines bad[2];
	double total[2];
	size_t stacks;
	int failed_input; /* when an input cannot be read: 0 or 1, else -1 */
	int normalize_skipped; /* -n with an empty BEFORE */
};
int ember_diff(const char *before, const char *after,
	       const struct ember_diff_options *o, ember_write_fn w, void *ctx,
	       struct ember_diff_stats *st) EMBER_WUR;

/* ---- record ----------------------------------------------------------- */

/* A sampling profiler on perf_event_open: a command (from its exec, with
 * its threads and children), running processes, or the whole system.
 * Kernel stacks come from the kernel's callchains; user stacks are
 * unwound while recording from a copy of each sample's stack (DWARF CFI,
 * jitdump unwinding info, JIT trampolines, frame pointers), or are the
 * kernel's frame-pointer walk.  They are symbolized once recording stops
 * (perf maps and jitdumps then complete), into folded stacks named as
 * `perf script | ember collapse perf` names them. */
enum {
	EMBER_CALLGRAPH_AUTO,  /* DWARF where the kernel allows, else FP */
	EMBER_CALLGRAPH_DWARF, /* copies of the user stack, unwound by CFI */
	EMBER_CALLGRAPH_FP,    /* the kernel's frame-pointer walk */
};
#define EMBER_RECORD_STACK_SIZE 32768 /* default stack copy, bytes */
#define EMBER_RECORD_STACK_MAX	65528 /* the kernel's limit */
/* default stack copy at context switches (--off-cpu, --wall): a thread
 * blocks in a system call, rarely deep in its own stack, and a smaller
 * copy lets the rings hold four times as many switches */
#define EMBER_RECORD_SWITCH_STACK_SIZE 8192

struct ember_record_options {
	char *const *argv; /* a command to run, or NULL */
	const int *pids;   /* or processes to attach to */
	size_t npids;
	int system_wide;   /* or every CPU (with argv: while it runs) */
	const char *event; /* "cpu-clock" (see ember_record_events) */
	double freq;	   /* samples per second: 999 */
	uint64_t period;   /* or one sample every period events (0: freq) */
	double duration;   /* seconds; 0: until the target ends or a stop */
	int no_kernel;	   /* user stacks only */
	int jit_env;	   /* argv gets PYTHON_PERF_JIT_SUPPORT=1 (Python
			    * 3.13+), Node's flags */
	int keep_jit_maps; /* keep the perf maps and jitdumps that exist
			    * only because of jit_env */
	int child_stdout;  /* the command's standard output: this fd
			    * (-1: ours) */
	int idle;	   /* system-wide: keep the idle task's samples */
	size_t mmap_pages; /* ring buffer pages per CPU (power of 2), 0:
			    * 8 MiB with DWARF, 512 KiB with FP */
	int call_graph;	   /* EMBER_CALLGRAPH_* */
	size_t stack_size; /* DWARF: bytes of user stack copied per sample
			    * (0: EMBER_RECORD_STACK_SIZE, and
			    * EMBER_RECORD_SWITCH_STACK_SIZE at context
			    * switches; multiple of 8) */
	/* frame names, as `ember collapse perf` options */
	int root_pid, root_tid;		   /* --pid, --tid */
	int annotate_kernel, annotate_jit; /* --kernel, --jit */
	int inline_frames;	 /* inlined calls as frames, from DWARF (on) */
	int annotate_inline;	 /* ... ending in _[i] (--all) */
	const char *perfmap_dir; /* NULL: /tmp */
	/* time off CPU: EMBER_RECORD_OFFCPU alone (weights in us), or with
	 * cpu-clock samples (EMBER_RECORD_WALL) */
	int mode;
	uint64_t min_block_us; /* off-CPU waits shorter are left out */
	int context_switches;  /* count switches with the context-switches
				* event, as where the sched_switch
				* tracepoint is missing: no S/D states */
	int no_interp; /* --no-python: no interpreter frames read by BPF */
	int profile;   /* keep the sample-level profile (ember_record_profile):
			* times, threads, addresses, lines */
};
enum {
	EMBER_RECORD_CPU,
	EMBER_RECORD_OFFCPU,
	EMBER_RECORD_WALL,
};
void ember_record_options_init(struct ember_record_options *o);
/* The event names -e takes. */
const char *ember_record_events(void);
/* The highest -F the kernel allows (kernel.perf_event_max_sample_rate),
 * or -1 when unknown. */
long ember_record_max_freq(void);

/* A process whose Python functions or JIT code went unnamed, for the
 * summary to say what would name them. */
enum {
	EMBER_RUNTIME_OTHER,
	EMBER_RUNTIME_PYTHON,
	EMBER_RUNTIME_NODE,
	EMBER_RUNTIME_JAVA,
	EMBER_RUNTIME_DOTNET,
};
struct ember_record_jit_note {
	int pid;
	int runtime;  /* EMBER_RUNTIME_* */
	int python;   /* its Python: major * 100 + minor, -1 not known */
	int no_map;   /* JIT frames sampled, and no perf map or jitdump:
		       * else a Python whose eval loop ran no trampoline */
	int attached; /* it ran before recording (-p, -a) */
};

struct ember_record_stats {
	uint64_t samples;      /* samples kept */
	uint64_t lost;	       /* samples lost: a ring buffer was full */
	uint64_t throttled;    /* times the kernel throttled sampling */
	uint64_t idle;	       /* idle samples left out */
	double weight;	       /* sum of the sample periods */
	double seconds;	       /* wall time recorded */
	double post_seconds;   /* symbolizing and aggregating */
	size_t stacks, frames; /* unique stacks and addresses */
	size_t processes, threads;
	int kernel_excluded; /* no kernel frames: not permitted */
	int clock_event;     /* periods are nanoseconds */
	int exit_status;     /* the command's: code, 128 + signal; -1 none */
	int command_stopped; /* ember signalled the command to end it (-d, a
			      * stop, the end of its grace period) */
	int exec_errno;	     /* the command could not be run: why */
	/* user stacks */
	int dwarf;		  /* unwound from stack copies; 0: FP */
	size_t stack_size;	  /* bytes copied per sample */
	size_t switch_stack_size; /* ... per context switch (off-CPU) */
	const char *fp_fallback;  /* why AUTO fell back to FP, or NULL */
	uint64_t user_stacks;	  /* samples with a user stack unwound */
	uint64_t truncated;	  /* of them, cut short ("[truncated]") */
	uint64_t bad_callchains;  /* perf.data: corrupt callchains dropped */
	uint64_t truncated_copy;  /* ... because they go on past the copy */
	uint64_t fp_truncated;	  /* frame pointers: stacks cut at the
				   * kernel's limit ("[truncated]") */
	long max_stack;		  /* ... kernel.perf_event_max_stack */
	/* frame pointers: weight of the stacks with user frames, and of
	 * those whose chain broke off (1-3 frames not reaching a thread's
	 * first function, or an outermost frame in no mapping) */
	double fp_user_weight, fp_broken_weight;
	double unwind_seconds;	 /* time spent unwinding them */
	uint64_t jitdumps;	 /* jitdump files read */
	uint64_t inlined;	 /* frames of inlined calls, per address */
	size_t jit_maps_removed; /* perf maps and jitdumps ember removed */
	size_t jvms;		 /* JVMs sampled in their JIT code */
	const struct ember_record_jit_note *jit_notes; /* (after result) */
	size_t njit_notes;
	uint64_t unwind_by_src[4]; /* frames stepped by file CFI, jitdump
				    * CFI, JIT trampolines, frame pointers */
	uint64_t unwind_cache_hits, unwind_cache_misses; /* rule cache */
	/* off-CPU and wall: weights are microseconds */
	int weight_us;
	uint64_t switches;     /* switch-outs recorded with a stack */
	uint64_t waits;	       /* of them, waits counted */
	uint64_t short_waits;  /* waits under min_block_us, left out */
	uint64_t lost_waits;   /* waits going on when records were lost */
	uint64_t offcpu_ns;    /* time off CPU counted */
	const char *offcpu_cs; /* why switches come from the context-switches
				* event ("[off-cpu: blocked]": S and D not
				* told apart), or NULL */
	/* interpreter frames (Python) read by BPF at each sample */
	size_t interp_procs;	     /* processes whose interpreter was read */
	uint64_t interp_samples;     /* samples of those processes */
	uint64_t interp_merged;	     /* ... with interpreter frames merged */
	uint64_t interp_eval;	     /* ... with an eval loop frame */
	uint64_t interp_eval_merged; /* ... and interpreter frames */
	uint64_t interp_unmatched;   /* ... without the program's record */
	uint64_t interp_mismatched;  /* ... runs and eval frames unpaired */
	uint64_t interp_no_tstate;   /* ... without a thread state */
	uint64_t interp_ring_full;   /* records lost to a full ring */
	const char *interp_off;	     /* why no interpreter was read, or
				      * NULL */
};

struct ember_record;
/* Checks the options (EMBER_EINVAL, EMBER_ENOTSUP, with a message in
 * ember_record_error) and prepares a recording. */
int ember_record_new(struct ember_record **r,
		     const struct ember_record_options *o) EMBER_WUR;
/* What the last failure was, and how to fix it (for a message). */
const char *ember_record_error(const struct ember_record *r);
/* Opens the events and starts or attaches to the target. */
int ember_record_start(struct ember_record *r) EMBER_WUR;
/* Records until the target ends, the duration passes or
 * ember_record_stop; then stops (ending a command still running) and
 * reaps the command. */
int ember_record_run(struct ember_record *r) EMBER_WUR;
/* Asks ember_record_run to stop; safe in a signal handler.  A command
 * still running is then interrupted (SIGINT) and given
 * EMBER_RECORD_GRACE seconds to end, then SIGTERM, then SIGKILL; a
 * further request goes to the next step at once. */
void ember_record_stop(struct ember_record *r);
/* The same for signal sig received: SIGINT (Ctrl-C, which the command
 * got from the terminal too) is not sent on; SIGTERM and SIGHUP are. */
void ember_record_stop_signal(struct ember_record *r, int sig);
#define EMBER_RECORD_GRACE 3
/* Symbolizes and fills names and stacks (initialized by the caller):
 * each stack is "comm;user frames...;kernel frames" with its weight. */
int ember_record_result(struct ember_record *r, struct ember_intern *names,
			struct ember_stacks *stacks) EMBER_WUR;
/* After ember_record_result: the modules of the named frames, in p's
 * mapping fields (valid until ember_record_free). */
void ember_record_mappings(struct ember_record *r, struct ember_profile *p);
/* With options.profile, after ember_record_result: the sample-level
 * profile, handed to the caller (ember_prof_free); NULL without. */
struct ember_prof *ember_record_profile(struct ember_record *r);
const struct ember_record_stats *
ember_record_stats(const struct ember_record *r);
void ember_record_free(struct ember_record *r);

#endif
