/*
 * perf frame naming (names.c), shared by `ember collapse perf` and
 * `ember record` so that both name frames alike.
 */
#ifndef EMBER_SYMBOLS_NAMES_H
#define EMBER_SYMBOLS_NAMES_H

#include "folded.h"

/* The frame names a `perf script` frame line "ADDR SYM (DSO)" becomes in
 * `ember collapse perf` output: the symbol cleaned as
 * stackcollapse-perf.pl cleans it (offset and argument list removed, ';'
 * made ':', quotes dropped, [unknown] named after the module, Java's L
 * prefix dropped in a java process), split at "->" into inlined frames,
 * and annotated as asked.  For ember record, so that it names frames as
 * `perf script | ember collapse perf` does. */
struct ember_perf_frame {
	const char *sym; /* as perf prints it ("[unknown]" if none), with or
			    without its +0x offset */
	size_t sym_len;
	const char *dso; /* the module, "[unknown]" if none */
	size_t dso_len;
	const char *addr; /* the address in hex, for EMBER_PERF_ADDRS */
	size_t addr_len;
};
enum {
	EMBER_PERF_JAVA = 1,	 /* the process name starts with "java" */
	EMBER_PERF_KERNEL = 2,	 /* --kernel: _[k] */
	EMBER_PERF_JIT = 4,	 /* --jit: _[j] */
	EMBER_PERF_ADDRS = 8,	 /* --addrs: [module <addr>] */
	EMBER_PERF_INFERNO = 16, /* inferno-collapse-perf's naming: Rust
				  * hashes and $LT$-escapes undone, the
				  * arguments cut at the first '(', quotes
				  * kept */
};
/* Appends the names, callers first, joined by ';'; returns how many
 * (0: the frame is left out, as perf's "(...)" pseudo-frames are). */
int ember_perf_frame_names(const struct ember_perf_frame *f, int flags,
			   struct ember_buf *out);

/* names.c: a perf frame line's names, as ember_perf_frame_names()
 * gives them, each passed to emit, innermost inlined frame first; returns
 * how many.  tmp and tmp2 are scratch buffers. */
typedef void (*rec_emit_fn)(void *ctx, const char *s, size_t n);
int rec_perf_names(const struct ember_perf_frame *f, int flags,
		   struct ember_buf *tmp, struct ember_buf *tmp2,
		   rec_emit_fn emit, void *ctx);
/* s/\+0x[\da-f]+$//: the symbol's length without its offset. */
size_t rec_strip_offset(const char *s, size_t n);
/* One name (a "->" part) cleaned as the script cleans it, in *out and
 * *outn (pointing into s or into tmp). */
void rec_clean_part(const char *s, size_t n, const struct ember_perf_frame *f,
		    int flags, struct ember_buf *tmp, const char **out,
		    size_t *outn);

/* Java (names.c): a name of the JVM's perf map, "RET pkg.Class.method(ARGS)",
 * as perf-map-agent writes it, "Lpkg/Class;::method", appended to out; 0 (out
 * unchanged) when s is not a method's name ("Interpreter", stubs). */
int rec_java_agent_name(struct ember_buf *out, const char *s, size_t n);
/* inferno's repair of a Rust symbol that perf left half mangled
 * ("a..b$LT$T$GT$::f::h0123456789abcdef" -> "a::b<T>::f") into out;
 * 0 when s is not one (no ::h<16 hex digits> at its end). */
int rec_rust_fix(const char *s, size_t n, struct ember_buf *out);

#endif
