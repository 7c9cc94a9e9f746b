/* Declarations shared inside libember but not part of its interface. */
#ifndef EMBER_INTERNAL_H
#define EMBER_INTERNAL_H

#include <sys/types.h>

#include "ember.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define likely(x)     __builtin_expect(!!(x), 1)
#define unlikely(x)   __builtin_expect(!!(x), 0)

/* Grows an array to hold at least n elements (geometric growth). */
#define EMBER_GROW(p, n, alloc)                                                \
	do {                                                                   \
		if ((n) > (alloc)) {                                           \
			size_t na_ = (alloc) ? (alloc) : 16;                   \
			while (na_ < (n))                                      \
				na_ = na_ / 2 * 3 + 16;                        \
			(p) = ember_xreallocarray((p), na_, sizeof(*(p)));     \
			(alloc) = na_;                                         \
		}                                                              \
	} while (0)

/* Passes a warning (or error, note) to the log callback. */
void ember_log(int level, const char *fmt, ...) EMBER_PRINTF(2, 3);

/* Hash of a byte string (64-bit, not cryptographic). */
uint64_t ember_hash(const void *p, size_t n);

/* Arena: many small allocations freed in one call.  8-byte aligned. */
struct ember_arena_block;
struct ember_arena {
	struct ember_arena_block *head;
	char *ptr;
	size_t left;
	size_t total; /* bytes handed out */
};
void ember_arena_init(struct ember_arena *a);
void *ember_arena_alloc(struct ember_arena *a, size_t n);
char *ember_arena_strndup(struct ember_arena *a, const char *s, size_t n);
void ember_arena_release(struct ember_arena *a);

/*
 * Files read without mapping them: a mapped file cut short meanwhile
 * kills its reader with SIGBUS, a read one only ends sooner.
 *
 * ember_pread_full reads up to n bytes at offset off, fewer only at the
 * end of the file: how many, or -1 with errno set.
 *
 * ember_read_file reads the regular file fd whole, from its start, into
 * *p (NUL-terminated, to free()) and *n; size is what fstat said when it
 * was opened.  A file that has grown is read to its new end; one that
 * ends before size was cut short while read: EMBER_ETRUNC, *p NULL and
 * *n the bytes there were.
 *
 * ember_read_stop, for tests: once a reader has pos bytes of a file, it
 * stops the process (SIGSTOP) the first time pos reaches
 * $EMBER_READ_STOP_AT, so that a test can change the file at a known
 * point and let it go on (SIGCONT).
 */
ssize_t ember_pread_full(int fd, void *p, size_t n, uint64_t off);
int ember_read_file(int fd, uint64_t size, char **p, size_t *n) EMBER_WUR;
void ember_read_stop(uint64_t pos);

/* A slice of bytes (a frame's name in a folded line). */
struct ember_slice {
	const char *s;
	size_t len;
};

/* The SVG's embedded assets (generated from src/lib/render/assets/). */
extern const char ember_asset_flamegraph_js[];
extern const char ember_asset_flamegraph_css[];
/* The HTML viewer's (html.c). */
extern const char ember_asset_viewer_js[];
extern const char ember_asset_viewer_css[];

#endif
