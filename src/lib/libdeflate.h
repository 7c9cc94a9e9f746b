/*
 * libdeflate, where Debian's libdeflate0 is installed (loaded with dlopen:
 * ember does not need it): zlib's formats two to four times as fast as
 * zlib, whole buffers at a time.  Used for the compressed DWARF sections
 * of debug files and for pprof's gzip.
 */
#ifndef EMBER_LIBDEFLATE_H
#define EMBER_LIBDEFLATE_H

#include <stddef.h>

struct libdeflate_decompressor;
struct libdeflate_compressor;

/* libdeflate's API (libdeflate.h, stable since 1.0) */
struct ember_libdeflate {
	struct libdeflate_decompressor *(*alloc_decompressor)(void);
	int (*zlib_decompress)(struct libdeflate_decompressor *d,
			       const void *in, size_t in_len, void *out,
			       size_t out_len, size_t *got);
	void (*free_decompressor)(struct libdeflate_decompressor *d);
	struct libdeflate_compressor *(*alloc_compressor)(int level);
	size_t (*gzip_compress)(struct libdeflate_compressor *c, const void *in,
				size_t in_len, void *out, size_t out_len);
	size_t (*gzip_compress_bound)(struct libdeflate_compressor *c,
				      size_t in_len);
	void (*free_compressor)(struct libdeflate_compressor *c);
};

/* The library's functions, loaded once; NULL where it is not installed
 * (or in `make static`'s binary, which loads no shared library). */
const struct ember_libdeflate *ember_libdeflate(void);

#endif
