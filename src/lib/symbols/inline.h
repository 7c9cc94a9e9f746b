/*
 * Inlined calls from DWARF debugging information (inline.c): what
 * `ember collapse perf --inline` expands a frame into, and what `ember
 * record` adds above a frame's symbol.
 */
#ifndef EMBER_SYMBOLS_INLINE_H
#define EMBER_SYMBOLS_INLINE_H

#include "internal.h"

enum {
	/* each record gets "file:line", where the function runs */
	EMBER_INLINE_CONTEXT = 1,
	/* as perf script names inlined frames (demangled without argument
	 * lists), and the inlined calls only: the function they are inlined
	 * into is the symbol's; the symbol table is not consulted */
	EMBER_INLINE_PERF = 2,
	/* with EMBER_INLINE_CONTEXT: the file's whole path, not its base
	 * name (the sample-level profile's source files) */
	EMBER_INLINE_PATHS = 4,
};

/* Modules (ELF files) opened once each, results cached per (module,
 * address).  A result is "name\tfile:line\n" records (file:line only with
 * EMBER_INLINE_CONTEXT), the outermost function first. */
struct ember_inliner;
struct ember_inliner *ember_inliner_new(int flags);
void ember_inliner_free(struct ember_inliner *in);

/* The module known as key: the ELF file at path, or open as fd (-1: open
 * path; otherwise duplicated, path then only names it and finds its
 * separate debug file).  Its DWARF is its own, else debug_fd's (a separate
 * debug file the caller found, duplicated; -1: none), else its separate
 * debug file's, by build-id or .gnu_debuglink.  Opened the first time; *id
 * is its index.  Returns 0, or -1 when it has no usable DWARF. */
int ember_inliner_module(struct ember_inliner *in, const char *key,
			 size_t key_len, const char *path, int fd, int debug_fd,
			 uint32_t *id);
/* Frees module id's DWARF (its files, sections and units), for memory
 * that follows one module at a time; the next ember_inliner_module of
 * its key opens it again.  Results already cached stay. */
void ember_inliner_close(struct ember_inliner *in, uint32_t id);
/* The records for addr (an address of the ELF file, as its symbols have
 * them) in module id, appended to out; returns how many (0: no function
 * there, or none inlined with EMBER_INLINE_PERF).  Without
 * EMBER_INLINE_PERF, when DWARF knows nothing of addr, sym ("name+0xOFF",
 * as perf prints it) locates it by the symbol table, as the script does. */
int ember_inliner_at(struct ember_inliner *in, uint32_t id, uint64_t addr,
		     const char *sym, size_t sym_len, struct ember_buf *out);

/* What ember_inliner_line finds at an address: its source line and the
 * out-of-line function holding it (the one the inlined calls, if any,
 * are inlined into). */
struct ember_inliner_src {
	const char *file;	  /* the line's file (whole path with
				     EMBER_INLINE_PATHS), NULL: unknown */
	uint32_t line;		  /* 0: unknown */
	uint32_t decl_line;	  /* the function's DW_AT_decl_line, 0 */
	const char *decl_file;	  /* and DW_AT_decl_file, NULL */
	const char *linkage_name; /* its mangled name, NULL: none */
};
/* For each of the n addresses addr (as for ember_inliner_at; a caller
 * passes the call's address), into out[i]: its line and its out-of-line
 * function's declaration line and linkage name, without the inlined calls
 * (all zero where DWARF knows nothing of it).  Each unit's line program is
 * run once for all its addresses (lines.c) and its top-level DIEs are read
 * once, not the functions' own trees.  The strings are the inliner's,
 * valid until the module is closed or the inliner's next call. */
void ember_inliner_lines(struct ember_inliner *in, uint32_t id,
			 const uint64_t *addr, size_t n,
			 struct ember_inliner_src *out);

/* perf --inline: the module is the file at path (key and path alike);
 * 0 and the records in out (none: keep perf's symbol), or -1 when the
 * module or its debugging information is missing. */
int ember_inliner_lookup(struct ember_inliner *in, const char *path,
			 size_t path_len, uint64_t addr, const char *sym,
			 size_t sym_len, struct ember_buf *out);

/* ---- DWARF sections made ready for libdw (dwarfsec.c) ----------------- */

struct Elf;
/* The buffers of the sections decompressed, freed after the Elf. */
struct rec_dwarfsec {
	void **bufs;
	size_t n, alloc;
};
/* Before libdw opens elf's DWARF: hides the sections inlined calls do not
 * read (the line table too unless lines), decompresses the others where
 * libdeflate is installed. */
void rec_dwarfsec_prepare(struct rec_dwarfsec *s, struct Elf *elf, int lines);
/* After elf_end (dwfl_end). */
void rec_dwarfsec_release(struct rec_dwarfsec *s);

#endif
