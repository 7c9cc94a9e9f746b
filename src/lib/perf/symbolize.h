/*
 * Names for the frames of recorded stacks (symbolize.c), once recording
 * stops: symbols of ELF files, the kernel, perf maps and jitdumps, folded
 * as `perf script | ember collapse perf` names them.
 */
#ifndef EMBER_PERF_SYMBOLIZE_H
#define EMBER_PERF_SYMBOLIZE_H

#include "perf/events.h"

/* Symbols of frames. */
struct rec_symctx {
	struct rec_events *r;
	int flags;		 /* REC_FOLD_KERNEL, REC_FOLD_JIT */
	const char *perfmap_dir; /* NULL: /tmp */
	const char *no_kallsyms; /* why kernel frames stay unnamed */
	/* perf's copy of the recording's kernel's kallsyms (NULL: none),
	 * read before /proc/kallsyms, or instead of no_kallsyms */
	const char *kallsyms_cache;
	struct rec_symtab kernel;
	int kernel_state; /* 0 untried, 1 loaded, -1 unavailable */
	struct ember_buf raw, out;
	struct ember_buf java; /* a JVM's method name, renamed */
	/* kallsyms loaded beforehand (finished), taken over on first use */
	struct rec_symtab *pre;
	int pre_err, pre_cache_err; /* as rec_kernel_syms_load's */
	/* REC_FOLD_INLINE: inlined calls from DWARF, modules by dso id */
	struct ember_inliner *inliner;
	int32_t *inline_mod; /* module + 1; 0 not opened, -1 no DWARF */
	size_t ninline_mod;
	struct ember_buf inl;
	uint64_t inlined;		   /* frames added */
	struct rec_debuginfod *debuginfod; /* made when first asked */
};
void rec_symctx_init(struct rec_symctx *c, struct rec_events *r, int flags,
		     const char *perfmap_dir);
void rec_symctx_release(struct rec_symctx *c);
/* The symbol of frame f (NULL: none) and, in dso, the module, as perf
 * script prints them; *java when it is a java process's JIT code. */
const char *rec_frame_symbol(struct rec_symctx *c, const struct rec_frame *f,
			     struct ember_buf *dso, int *java);

/* A recording's kernel symbols into st (initialized): perf's copy of its
 * kallsyms, cache (NULL: none), else /proc/kallsyms unless the recording's
 * kernel is another (other: EMBER_ENOTSUP).  Why the copy was not used is
 * left in *cache_err (0: used, or none), for rec_kernel_syms_why to say
 * (the loader may be another thread). */
int rec_kernel_syms_load(struct rec_symtab *st, const char *cache, int other,
			 const int *stop, int *cache_err) EMBER_WUR;
void rec_kernel_syms_why(const char *cache, int cache_err);

/* Names come from the programs profiled (ELF symbols, perf maps,
 * jitdumps, thread names): a control byte would split a folded line or
 * reach a terminal, so each becomes '?' (as ls shows them), whatever the
 * source and whoever reads it (record, perf.data). */
void rec_clean_name(char *s, size_t n);

enum {
	REC_FOLD_JAVA = 1,   /* a java process: Lcom/x/Y;.m -> com/x/Y:.m */
	REC_FOLD_KERNEL = 2, /* --kernel: _[k] */
	REC_FOLD_JIT = 4,    /* --jit: _[j] */
	REC_FOLD_INLINE = 8, /* inlined calls as frames, from DWARF */
	REC_FOLD_INLINE_MARK = 16, /* ... ending in _[i] */
};
/* What `ember collapse perf` makes of a perf script frame line "ADDR SYM
 * (DSO)": frame names appended to out, callers first, joined by ';'.
 * Returns how many (0: perf's "(...)" pseudo-frames are left out). */
int rec_fold_frame(struct ember_buf *out, const char *sym, size_t n,
		   const char *dso, size_t dn, int flags);
/* Where a frame name was first seen: in module dso (id + 1; 0: none, a
 * kernel, JIT or unknown frame) at file offset off. */
struct rec_nameloc {
	uint32_t dso;
	uint64_t off;
};
/* Names every frame of ev (flags: REC_FOLD_KERNEL, REC_FOLD_JIT,
 * REC_FOLD_INLINE, REC_FOLD_INLINE_MARK; perf maps
 * in perfmap_dir, NULL: /tmp) and adds each stack of ev, as folded frame
 * names, to stacks (initialized by the caller).  When locs is given, it
 * gets (malloc'd) a rec_nameloc per name, *nlocs of them.  EMBER_EEMPTY
 * when there is no stack. */
int rec_symbolize(struct rec_events *ev, int flags, const char *perfmap_dir,
		  struct ember_intern *names, struct ember_stacks *stacks,
		  struct rec_nameloc **locs, size_t *nlocs, uint64_t *inlined);

#endif
