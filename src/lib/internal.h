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

/*
 * Compressed input (decompress.c).  ember_codec_detect: the codec whose
 * magic bytes data (n bytes) starts with, EMBER_CODEC_NONE, or -1 when
 * the bytes so far may yet be one (more are to come unless eof).
 * ember_dec_run decompresses from *in (*in_n bytes, both advanced past
 * what it took; in_end: no more will follow) into out, up to room bytes,
 * *made of them: 0 to go on (with more input once *in_n is 0), 1 at the
 * end of the data, or EMBER_EFORMAT for data corrupt or cut short (an
 * input that ends inside a stream), EMBER_ENOMEM.  ember_decompress does
 * it all at once, appending to out.
 */
enum {
	EMBER_CODEC_NONE,
	EMBER_CODEC_GZIP,
	EMBER_CODEC_XZ,
	EMBER_CODEC_ZSTD,
	EMBER_CODEC_BZIP2,
};
struct ember_dec;
int ember_codec_detect(const void *data, size_t n, int eof);
const char *ember_codec_name(int codec);
int ember_dec_new(struct ember_dec **d, int codec) EMBER_WUR;
int ember_dec_run(struct ember_dec *d, const unsigned char **in, size_t *in_n,
		  int in_end, char *out, size_t room, size_t *made) EMBER_WUR;
void ember_dec_free(struct ember_dec *d);
int ember_decompress(int codec, const void *src, size_t n,
		     struct ember_buf *out) EMBER_WUR;

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
extern const char ember_asset_timeline_js[];
extern const char ember_asset_viewer_css[];

#endif
