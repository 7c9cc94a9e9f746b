/*
 * The sample-level profile (profile.c): samples with their time, thread,
 * CPU and weights, over a prefix tree of stacks of frames that have an
 * address, a mapping, a function, a line and an inline depth.  Readers
 * fill what they know; every writer is a projection of it.  The tables
 * are columns read directly by the writers; the functions below add to
 * them (deduplicating) and keep the invariants told in profile.c.
 *
 * Ids are indices into their table, from 0; EMBER_PROF_NONE is "none".
 * String id 0 is always "".
 */
#ifndef EMBER_PROFILE_H
#define EMBER_PROFILE_H

#include <string.h>

#include "intern.h"

#define EMBER_PROF_NONE UINT32_MAX

/* What a frame is: it decides which writers name a category for it and
 * whether its address means anything. */
enum ember_prof_kind {
	EMBER_PROF_USER,   /* native code of a mapped file */
	EMBER_PROF_KERNEL, /* kernel code, in the [kernel.kallsyms] mapping */
	EMBER_PROF_JIT,	   /* JIT code: an address, no file behind it */
	EMBER_PROF_INTERP, /* an interpreter's frame: (func, line), address 0 */
	EMBER_PROF_OFFCPU, /* a wait's state: "[off-cpu: S]" */
	EMBER_PROF_SYNTHETIC /* a made-up root: thread, process, [truncated] */
};

/* Which columns hold something (p->flags). */
enum {
	EMBER_PROF_HAS_TIME = 1,      /* samples have times (else all 0) */
	EMBER_PROF_HAS_THREADS = 2,   /* samples have threads */
	EMBER_PROF_HAS_CPU = 4,	      /* samples have a CPU */
	EMBER_PROF_HAS_ADDRESSES = 8, /* frames have runtime addresses */
	EMBER_PROF_HAS_LINES = 16,    /* frames have source lines */
	/* the root frames of the stacks are thread or process names (as
	 * record and collapse perf --pid/--tid make them) */
	EMBER_PROF_THREAD_ROOTS = 32,
};

struct ember_prof_func {
	uint32_t name;	      /* as folded output names it */
	uint32_t system_name; /* mangled; = name when unknown */
	uint32_t file;	      /* source file, 0 ("") unknown */
	uint32_t start_line;  /* 0: unknown */
};

struct ember_prof_frame {
	/* runtime address; for a caller, its return address (Firefox and
	 * pprof want it minus one, inside the call); 0 without one */
	uint64_t address;
	uint32_t mapping; /* EMBER_PROF_NONE: none */
	uint32_t func;
	uint32_t line;	       /* 0: unknown */
	uint16_t inline_depth; /* 0: the out-of-line function, n: inlined
				  n deep into it (same address) */
	uint8_t kind;	       /* enum ember_prof_kind */
	uint8_t call; /* 1: address is a return address (the frame calls
			 the next, whichever walk found it); 0: exact */
};

struct ember_prof_mapping {
	uint64_t start, limit, offset; /* [start, limit) maps offset on */
	uint32_t path;		       /* file, or "[kernel.kallsyms]" */
	uint32_t build_id;	       /* lowercase hex, 0 ("") unknown */
	int32_t pid;		       /* the process (-1: all, the kernel) */
	uint8_t is_main;	       /* the program's executable */
	uint8_t kernel;
	/* set by the producer when ember named its frames (pprof's
	 * has_functions ...) */
	uint8_t has_functions, has_lines, has_inline;
};

struct ember_prof_thread {
	int32_t tid, pid;
	uint32_t name;	      /* the last comm seen, 0 unknown */
	uint32_t process;     /* index in procs */
	uint64_t first, last; /* sample times (time_ns) */
};

struct ember_prof_process {
	int32_t pid;
	uint32_t name; /* 0: unknown */
};

/* A node of the prefix tree: the stack of parent plus frame (leaf). */
struct ember_prof_stack {
	uint32_t parent; /* EMBER_PROF_NONE: a root frame */
	uint32_t frame;
};

/* A kind of value per sample: ("samples", "count"), ("cpu",
 * "nanoseconds"), ("wall", "microseconds")...  Column EMBER_PROF_NONE:
 * every sample counts 1 (no storage). */
struct ember_prof_type {
	uint32_t type, unit;
	uint32_t column;
};

/* A column of weights: 32-bit integers until a value does not fit,
 * then 64-bit ones; doubles for all of them once one is not an integer
 * (or is negative).  The one array not NULL holds the values. */
struct ember_prof_col {
	uint32_t *u32;
	uint64_t *u64;
	double *f64;
};

/* A hash set of table entries by their bytes: slots hold index + 1. */
struct ember_prof_set {
	uint32_t *slots;
	size_t mask;
};

struct ember_prof {
	struct ember_intern strs; /* string 0 is "" */
	unsigned flags;		  /* EMBER_PROF_HAS_* */
	/* samples, as columns (n of them) */
	size_t n, alloc;
	uint64_t *time;	  /* time_ns (CLOCK_MONOTONIC for perf) */
	uint32_t *stack;  /* a stack node (or, before ember_prof_remap, the
			     producer's own stack id) */
	uint32_t *thread; /* EMBER_PROF_NONE: unknown */
	uint16_t *cpu;	  /* UINT16_MAX: unknown */
	struct ember_prof_col *cols;
	size_t ncols;
	struct ember_prof_type *types;
	size_t ntypes;
	/* the tables */
	struct ember_prof_stack *stacks;
	size_t nstacks, astacks;
	struct ember_prof_frame *frames;
	size_t nframes, aframes;
	struct ember_prof_func *funcs;
	size_t nfuncs, afuncs;
	struct ember_prof_mapping *maps;
	size_t nmaps, amaps;
	struct ember_prof_thread *threads;
	size_t nthreads, athreads;
	struct ember_prof_process *procs;
	size_t nprocs, aprocs;
	struct ember_prof_set stack_set, frame_set, func_set, thread_set,
	    proc_set;
	/* the event between samples: period_type ("cpu", "nanoseconds") and
	 * period (1001001 at 999 Hz); 0: unknown */
	struct ember_prof_type period_type;
	int64_t period;
	/* time zero (a sample time: the first sample or the recording's
	 * start), its wall-clock time (ns since the epoch, 0 unknown), and
	 * the duration (ns) */
	uint64_t time_zero;
	int64_t start_ns;
	uint64_t duration_ns;
};

void ember_prof_init(struct ember_prof *p);
void ember_prof_release(struct ember_prof *p);
struct ember_prof *ember_prof_new(void);

/* Strings, interned: the id of s, and back. */
uint32_t ember_prof_str(struct ember_prof *p, const char *s, size_t n);
static inline uint32_t ember_prof_strz(struct ember_prof *p, const char *s)
{
	return s ? ember_prof_str(p, s, strlen(s)) : 0;
}
static inline const char *ember_prof_s(const struct ember_prof *p, uint32_t id,
				       size_t *len)
{
	const struct ember_intern_ent *e = &p->strs.ents[id];
	if (len)
		*len = e->len;
	return e->s;
}

/* A sample type; counted: every sample is 1 (no column), else values
 * come with each sample in the order of the stored types.  Types are
 * added before the first sample.  Returns its index. */
size_t ember_prof_add_type(struct ember_prof *p, const char *type,
			   const char *unit, int counted);

/* Table entries, deduplicated (the same fields: the same id). */
uint32_t ember_prof_func(struct ember_prof *p, const struct ember_prof_func *f);
uint32_t ember_prof_frame(struct ember_prof *p,
			  const struct ember_prof_frame *f);
/* Not deduplicated: a mapping is added once by its producer. */
uint32_t ember_prof_mapping(struct ember_prof *p,
			    const struct ember_prof_mapping *m);
/* The stack parent + frame (parent EMBER_PROF_NONE: a root). */
uint32_t ember_prof_stack(struct ember_prof *p, uint32_t parent,
			  uint32_t frame);
/* The process pid and thread (pid, tid), made on first use. */
uint32_t ember_prof_process(struct ember_prof *p, int pid);
uint32_t ember_prof_thread(struct ember_prof *p, int pid, int tid);

/* Appends a sample: time (with EMBER_PROF_HAS_TIME), thread (or
 * EMBER_PROF_NONE), cpu (or -1), a stack, and one value per stored
 * column (ncols of them).  Returns its index. */
size_t ember_prof_sample(struct ember_prof *p, uint64_t time, uint32_t thread,
			 int cpu, uint32_t stack, const double *values);

/* The columns cut to the samples they hold (the room grown for more
 * given back), once no sample comes. */
void ember_prof_trim(struct ember_prof *p);

/* The producer's stack ids of the samples become stack nodes: map[id]
 * (n of them); samples whose id is outside map or maps to
 * EMBER_PROF_NONE are dropped. */
void ember_prof_remap(struct ember_prof *p, const uint32_t *map, size_t n);

/* Once filled: thread first/last times, time zero and the duration
 * (when not set), the samples sorted by time (stable) when they have
 * times. */
void ember_prof_finish(struct ember_prof *p);

/* The value of sample i for type t. */
static inline double ember_prof_value(const struct ember_prof *p, size_t t,
				      size_t i)
{
	uint32_t c = p->types[t].column;
	if (c == EMBER_PROF_NONE)
		return 1;
	return p->cols[c].f64	? p->cols[c].f64[i]
	       : p->cols[c].u64 ? (double)p->cols[c].u64[i]
				: p->cols[c].u32[i];
}

/* The same as an exact integer: 0, or -1 when it is none (a fraction,
 * negative). */
int ember_prof_value_u64(const struct ember_prof *p, size_t t, size_t i,
			 uint64_t *v);
/* Sets sample i's value in column c to the integer v exactly (folded
 * counts beyond 2^53). */
void ember_prof_set_u64(struct ember_prof *p, size_t c, size_t i, uint64_t v);

/* The frames of stack s, leaf first, into out (room for max); returns
 * the depth (which may exceed max: then only max are written). */
size_t ember_prof_stack_frames(const struct ember_prof *p, uint32_t s,
			       uint32_t *out, size_t max);

/* Folded stacks as a profile: one sample per distinct stack, its count
 * as the value (exact[e] when given and not UINT64_MAX), no times; a
 * function and a frame per frame name (no address, mapping none). */
void ember_prof_from_stacks(struct ember_prof *p,
			    const struct ember_intern *names,
			    const struct ember_stacks *stacks,
			    const uint64_t *exact, size_t nexact,
			    const char *type, const char *unit);

/* Bytes held (for the bench and tests). */
size_t ember_prof_bytes(const struct ember_prof *p);

#endif
