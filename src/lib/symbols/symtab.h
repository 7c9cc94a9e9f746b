/*
 * Symbol tables (symtab.c) and where they come from besides ELF files:
 * kernel symbols (kallsyms.c) and perf maps of JIT code (perfmap.c).
 */
#ifndef EMBER_SYMBOLS_SYMTAB_H
#define EMBER_SYMBOLS_SYMTAB_H

#include <sys/types.h>

#include "internal.h"

/*
 * A sorted array of [start, end) symbols.  Names point into memory the
 * owner keeps alive (an ELF string table, or the table's arena).  Symbols
 * added with the same start are resolved as perf resolves aliases, so that
 * frame names match `perf script`'s.
 */
struct rec_sym {
	uint64_t start, end;
	const char *name;
	char *demangled; /* lazily, see rec_symtab_name */
	/* order of addition; after rec_symtab_finish, for a symbol whose
	 * name waits (nalias > 0), where its aliases start in st->alias */
	uint32_t seq;
	uint8_t bind; /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
	uint8_t demangle_done;
	uint8_t module;	 /* kallsyms: a module's symbol */
	uint8_t sized;	 /* its size came with it */
	uint8_t compat;	 /* a symbol version kept for old binaries only */
	uint8_t plt;	 /* a PLT slot: named "NAME@plt", NAME demangled */
	uint8_t ver;	 /* an ELF name whose "@VERSION" is not looked at yet */
	uint16_t nalias; /* aliases to choose from by name (rec_symtab_name) */
};

enum rec_symtab_kind {
	REC_SYMTAB_ELF,	     /* aliases as perf: sized, global, fewer '_' */
	REC_SYMTAB_KALLSYMS, /* the same, and sizes from the next symbol */
	REC_SYMTAB_PERFMAP,  /* JIT code: the last entry covering wins */
};

struct rec_symtab {
	struct rec_sym *syms;
	size_t n, alloc;
	struct ember_arena arena; /* names added with copy=1 */
	int kind;
	int demangle; /* names are C++/Rust symbols to demangle */
	/* aliases alike but for their names, the choice between them left
	 * until one of them is named (it demangles them) */
	struct rec_sym *alias;
	size_t nalias, alias_alloc;
	void *text; /* kallsyms: the file read, its names in place */
	size_t text_size;
	/* finished lazily (rec_symtab_finish_lazy): syms grouped in nbk
	 * buckets of addresses, bucket b holding the starts in
	 * [bk_base + (b << bk_shift), bk_base + (b + 1 << bk_shift)) in order
	 * of addition until it is first searched, then sorted and resolved */
	struct rec_symbucket *bk;
	size_t nbk;
	uint64_t bk_base;
	int bk_shift;
};

void rec_symtab_init(struct rec_symtab *st, int kind);
void rec_symtab_release(struct rec_symtab *st);
/* Room for more symbols at once (a table's size known before they are
 * added): the array is not grown, and copied, a step at a time. */
void rec_symtab_reserve(struct rec_symtab *st, size_t more);
/* size 0: up to the next symbol.  The name is copied when copy is set. */
void rec_symtab_add(struct rec_symtab *st, uint64_t start, uint64_t size,
		    const char *name, size_t len, int bind, int copy);
/* An ELF symbol, named without its version: "free@@GLIBC_2.2.5" (a
 * .symtab name) is "free"; "cfree@GLIBC_2.2.5", or a .dynsym symbol whose
 * version is hidden (compat), is an alias for old binaries only, which
 * any other alias at its address is preferred to. */
static inline void rec_symtab_add_elf(struct rec_symtab *st, uint64_t start,
				      uint64_t size, const char *name, int bind,
				      int compat)
{
	if (st->n >= UINT32_MAX)
		return;
	EMBER_GROW(st->syms, st->n + 1, st->alloc);
	uint64_t end = size && start + size > start ? start + size : start;
	/* what rec_symtab_add makes, but the name is not read now: most
	 * symbols are never named, and their names (mangled C++, long)
	 * would be walked for nothing (see rec_symtab_name) */
	st->syms[st->n] = (struct rec_sym){
	    .start = start,
	    .end = end,
	    .sized = end > start,
	    .name = name,
	    .seq = (uint32_t)st->n,
	    .bind = (uint8_t)bind,
	    .compat = (uint8_t) !!compat,
	    .ver = 1,
	};
	st->n++;
}
/* Sorts and resolves aliases; call once after the last add. */
void rec_symtab_finish(struct rec_symtab *st);
/* The same for an ELF table of which few symbols are looked up: the
 * sorting and resolving is done by ranges of addresses, each when first
 * searched.  rec_symtab_find gives what it would after rec_symtab_finish,
 * but st->syms is not to be walked. */
void rec_symtab_finish_lazy(struct rec_symtab *st);
const struct rec_sym *rec_symtab_find(struct rec_symtab *st, uint64_t addr);
/* The symbol's name as perf prints it: demangled (once) when the table
 * holds mangled names; a PLT slot's "NAME@plt" (made when first asked
 * for: most slots are never sampled). */
const char *rec_symtab_name(struct rec_symtab *st, const struct rec_sym *s);
/* C++ or Rust name demangled as perf does (no parameters), or NULL. */
char *rec_demangle(const char *name);

/* ---- kernel symbols (kallsyms.c) -------------------------------------- */

/* Loads kernel text symbols from a kallsyms file (NULL: /proc/kallsyms).
 * EMBER_EPERM when the addresses are hidden (kernel.kptr_restrict). */
int rec_kallsyms_load(struct rec_symtab *st, const char *path) EMBER_WUR;
/* The same, given up (EMBER_EINTR) as soon as *stop is set (another
 * thread sets it). */
int rec_kallsyms_load_until(struct rec_symtab *st, const char *path,
			    const int *stop) EMBER_WUR;
/* Where perf's build-id cache keeps its copy of the kallsyms of the
 * kernel of build-id id, as perf record made it: $PERF_BUILDID_DIR, else
 * ~/.debug, then "[kernel.kallsyms]/HEX/kallsyms"; out is left empty
 * when there is neither. */
void rec_kallsyms_cache_path(struct ember_buf *out, const uint8_t *id,
			     size_t len);
/* Loads such a copy: EMBER_EPERM when it is another user's or others may
 * write it (or it cannot be opened), EMBER_ETRUNC when it does not end
 * with a newline (cut short), EMBER_EEMPTY when it is empty,
 * EMBER_EFORMAT when it holds no symbol with an address. */
int rec_kallsyms_load_cache(struct rec_symtab *st, const char *path,
			    const int *stop) EMBER_WUR;
/* A kallsyms file read whole, to be parsed (rec_kallsyms_take). */
struct rec_ktext {
	char *buf;
	size_t len, size;
};
/* Reads a kallsyms file (NULL: /proc/kallsyms), given up (EMBER_EINTR) as
 * soon as stop (NULL: none) is set; perf's copy, with the checks and
 * errors of rec_kallsyms_load_cache. */
int rec_kallsyms_read(struct rec_ktext *t, const char *path,
		      const int *stop) EMBER_WUR;
int rec_kallsyms_read_cache(struct rec_ktext *t, const char *path,
			    const int *stop) EMBER_WUR;
/* Adds the text's symbols to st as rec_kallsyms_load does, t consumed
 * (its text kept by st, or freed).  Given want, nwant sorted addresses
 * (NULL: all), only the symbols their lookups need: rec_symtab_find on
 * the finished table gives for each of them what it would with all. */
int rec_kallsyms_take(struct rec_symtab *st, struct rec_ktext *t,
		      const uint64_t *want, size_t nwant) EMBER_WUR;
void rec_ktext_release(struct rec_ktext *t);
/* Parses kallsyms text already in memory (for tests). */
size_t rec_kallsyms_parse(struct rec_symtab *st, const char *p, size_t n);

/* ---- perf maps (perfmap.c) -------------------------------------------- */

/* What the profiler knows of the process that should have written a map. */
struct rec_perfmap_owner {
	int pid;
	uid_t uid;
	int uid_known;
	double start, end; /* realtime seconds; end 0 = still running */
	double before;	   /* start unknown: it started no later (replay) */
};

enum {
	REC_PERFMAP_OK,
	REC_PERFMAP_MISSING,
	REC_PERFMAP_NOT_REGULAR, /* a symlink, a directory ... */
	REC_PERFMAP_FOREIGN,	 /* owned by another user */
	REC_PERFMAP_STALE,	 /* written before the process started */
	REC_PERFMAP_NEWER,	 /* written after the process ended */
};

/* Loads /tmp/perf-PID.map (dir NULL: /tmp) if it can be trusted for the
 * owner; returns a REC_PERFMAP_* verdict, and in why a message for the
 * cases that deserve a warning. */
int rec_perfmap_load(struct rec_symtab *st, const char *dir,
		     const struct rec_perfmap_owner *owner,
		     struct ember_buf *why);
/* The same for dirfd/perf-NSPID.map, a process's /tmp seen through
 * /proc/PID/root (dir names it in messages; nspid is the pid the process
 * has in its own namespace). */
int rec_perfmap_load_at(struct rec_symtab *st, int dirfd, const char *dir,
			int nspid, const struct rec_perfmap_owner *owner,
			struct ember_buf *why);
/* Parses perf map text ("START SIZE NAME" lines); returns entries added,
 * and the count of malformed lines in *bad. */
size_t rec_perfmap_parse(struct rec_symtab *st, const char *p, size_t n,
			 size_t *bad);

#endif
