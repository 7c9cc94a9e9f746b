/*
 * Compressed input: gzip, xz, zstd and bzip2, recognised by their magic
 * bytes and decompressed as a stream, a piece at a time, so that reading
 * a compressed file costs no more memory than reading the plain one.
 * Concatenated streams (several gzip members, xz streams, zstd frames or
 * bzip2 streams one after another) read as one; bytes after the last
 * gzip or bzip2 stream are ignored, as gzip -d ignores them.
 */
#include <bzlib.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "internal.h"

#define MAX_STEP (1u << 30) /* zlib's and bzip2's counts have 32 bits */

struct ember_dec {
	int codec;
	int boundary; /* at the end of a gzip or bzip2 stream */
	int clean;    /* zstd: at the end of a frame */
	union {
		z_stream z;
		lzma_stream x;
		bz_stream b;
		ZSTD_DStream *zs;
	} u;
};

static const char *const names[] = {
    [EMBER_CODEC_GZIP] = "gzip",
    [EMBER_CODEC_XZ] = "xz",
    [EMBER_CODEC_ZSTD] = "zstd",
    [EMBER_CODEC_BZIP2] = "bzip2",
};

const char *ember_codec_name(int codec)
{
	return codec > 0 && codec <= EMBER_CODEC_BZIP2 ? names[codec] : "";
}

/* Whether p (n bytes) starts as magic (m bytes) does; 2 if it holds all
 * of it. */
static int prefix(const unsigned char *p, size_t n, const char *magic, size_t m)
{
	size_t k = n < m ? n : m;

	if (memcmp(p, magic, k))
		return 0;
	return k == m ? 2 : 1;
}

int ember_codec_detect(const void *data, size_t n, int eof)
{
	static const struct {
		int codec;
		const char *magic;
		size_t len;
	} m[] = {
	    {EMBER_CODEC_GZIP, "\x1f\x8b", 2},
	    {EMBER_CODEC_XZ,
	     "\xfd"
	     "7zXZ\0",
	     6},
	    {EMBER_CODEC_ZSTD, "\x28\xb5\x2f\xfd", 4},
	};
	const unsigned char *p = data;
	int undecided = 0;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		int r = prefix(p, n, m[i].magic, m[i].len);
		if (r == 2)
			return m[i].codec;
		undecided |= r;
	}
	/* "BZh", the block size, then a block's or the end's magic (text may
	 * well start with "BZh9") */
	if (prefix(p, n, "BZh", 3)) {
		if (n < 4 || (p[3] >= '1' && p[3] <= '9')) {
			if (n >= 10 &&
			    (!memcmp(p + 4, "\x31\x41\x59\x26\x53\x59", 6) ||
			     !memcmp(p + 4, "\x17\x72\x45\x38\x50\x90", 6)))
				return EMBER_CODEC_BZIP2;
			if (n < 10 &&
			    (prefix(p + (n < 4 ? n : 4), n < 4 ? 0 : n - 4,
				    "\x31\x41\x59\x26\x53\x59", 6) ||
			     prefix(p + (n < 4 ? n : 4), n < 4 ? 0 : n - 4,
				    "\x17\x72\x45\x38\x50\x90", 6)))
				undecided = 1;
		}
	}
	return undecided && !eof ? -1 : EMBER_CODEC_NONE;
}

static int start(struct ember_dec *d)
{
	switch (d->codec) {
	case EMBER_CODEC_GZIP:
		return inflateInit2(&d->u.z, 16 + MAX_WBITS) == Z_OK;
	case EMBER_CODEC_XZ:
		return lzma_stream_decoder(&d->u.x, UINT64_MAX,
					   LZMA_CONCATENATED) == LZMA_OK;
	case EMBER_CODEC_BZIP2:
		return BZ2_bzDecompressInit(&d->u.b, 0, 0) == BZ_OK;
	case EMBER_CODEC_ZSTD:
		d->u.zs = ZSTD_createDStream();
		return d->u.zs && !ZSTD_isError(ZSTD_initDStream(d->u.zs));
	}
	return 0;
}

static void finish(struct ember_dec *d)
{
	switch (d->codec) {
	case EMBER_CODEC_GZIP:
		inflateEnd(&d->u.z);
		break;
	case EMBER_CODEC_XZ:
		lzma_end(&d->u.x);
		break;
	case EMBER_CODEC_BZIP2:
		BZ2_bzDecompressEnd(&d->u.b);
		break;
	case EMBER_CODEC_ZSTD:
		ZSTD_freeDStream(d->u.zs);
		break;
	}
}

int ember_dec_new(struct ember_dec **dp, int codec)
{
	struct ember_dec *d = ember_xcalloc(1, sizeof(*d));

	*dp = NULL;
	d->codec = codec;
	d->clean = 1;
	if (!start(d)) {
		if (codec == EMBER_CODEC_ZSTD && d->u.zs)
			ZSTD_freeDStream(d->u.zs);
		free(d);
		return EMBER_ENOMEM;
	}
	*dp = d;
	return 0;
}

void ember_dec_free(struct ember_dec *d)
{
	if (!d)
		return;
	finish(d);
	free(d);
}

/* gzip and bzip2: at a stream's end, another stream, or the end (bytes
 * that are no stream are ignored): 0 to go on, 1 at the end. */
static int next_stream(struct ember_dec *d, const unsigned char *in,
		       size_t in_n, int in_end)
{
	if (!in_n)
		return in_end;
	int codec = ember_codec_detect(in, in_n, 1);
	if (codec != d->codec)
		return 1;
	if (codec == EMBER_CODEC_GZIP) {
		inflateReset(&d->u.z);
	} else {
		BZ2_bzDecompressEnd(&d->u.b);
		memset(&d->u.b, 0, sizeof(d->u.b));
		if (BZ2_bzDecompressInit(&d->u.b, 0, 0) != BZ_OK) {
			d->codec = EMBER_CODEC_NONE; /* nothing to end */
			return EMBER_ENOMEM;
		}
	}
	d->boundary = 0;
	return 0;
}

int ember_dec_run(struct ember_dec *d, const unsigned char **in, size_t *in_n,
		  int in_end, char *out, size_t room, size_t *made)
{
	size_t ni = *in_n > MAX_STEP ? MAX_STEP : *in_n;
	size_t no = room > MAX_STEP ? MAX_STEP : room;
	size_t used = 0;
	int rc = 0;

	*made = 0;
	if (d->boundary) {
		rc = next_stream(d, *in, *in_n, in_end);
		if (rc)
			return rc;
	}
	switch (d->codec) {
	case EMBER_CODEC_GZIP: {
		z_stream *z = &d->u.z;
		z->next_in = (Bytef *)*in;
		z->avail_in = (uInt)ni;
		z->next_out = (Bytef *)out;
		z->avail_out = (uInt)no;
		int ret = inflate(z, Z_NO_FLUSH);
		used = ni - z->avail_in;
		*made = no - z->avail_out;
		if (ret == Z_STREAM_END)
			d->boundary = 1;
		else if (ret == Z_MEM_ERROR)
			rc = EMBER_ENOMEM;
		else if (ret != Z_OK && ret != Z_BUF_ERROR)
			rc = EMBER_EFORMAT;
		break;
	}
	case EMBER_CODEC_BZIP2: {
		bz_stream *b = &d->u.b;
		b->next_in = (char *)*in;
		b->avail_in = (unsigned)ni;
		b->next_out = out;
		b->avail_out = (unsigned)no;
		int ret = BZ2_bzDecompress(b);
		used = ni - b->avail_in;
		*made = no - b->avail_out;
		if (ret == BZ_STREAM_END)
			d->boundary = 1;
		else if (ret == BZ_MEM_ERROR)
			rc = EMBER_ENOMEM;
		else if (ret != BZ_OK)
			rc = EMBER_EFORMAT;
		break;
	}
	case EMBER_CODEC_XZ: {
		lzma_stream *x = &d->u.x;
		x->next_in = *in;
		x->avail_in = *in_n;
		x->next_out = (uint8_t *)out;
		x->avail_out = room;
		lzma_ret ret = lzma_code(x, in_end ? LZMA_FINISH : LZMA_RUN);
		used = *in_n - x->avail_in;
		*made = room - x->avail_out;
		if (ret == LZMA_STREAM_END)
			rc = 1;
		else if (ret == LZMA_MEM_ERROR)
			rc = EMBER_ENOMEM;
		else if (ret != LZMA_OK)
			rc = EMBER_EFORMAT;
		break;
	}
	case EMBER_CODEC_ZSTD: {
		ZSTD_inBuffer zi = {*in, *in_n, 0};
		ZSTD_outBuffer zo = {out, room, 0};
		size_t ret = ZSTD_decompressStream(d->u.zs, &zo, &zi);
		used = zi.pos;
		*made = zo.pos;
		if (ZSTD_isError(ret))
			rc = ZSTD_getErrorCode(ret) ==
				     ZSTD_error_memory_allocation
				 ? EMBER_ENOMEM
				 : EMBER_EFORMAT;
		else if (zi.pos || zo.pos) /* (a call on nothing hints) */
			d->clean = ret == 0;
		break;
	}
	default:
		return EMBER_EFORMAT;
	}
	*in += used;
	*in_n -= used;
	if (rc || used || *made)
		return rc;
	/* no progress: more input is wanted (and none will come?) */
	if (!in_end)
		return 0;
	if (d->boundary)
		return 1;
	if (d->codec == EMBER_CODEC_ZSTD && d->clean)
		return 1;
	return EMBER_EFORMAT; /* the input ends inside a stream */
}

int ember_decompress(int codec, const void *src, size_t n,
		     struct ember_buf *out)
{
	const unsigned char *in = src;
	struct ember_dec *d;
	int rc = ember_dec_new(&d, codec);

	while (!rc) {
		size_t made;
		if (out->alloc - out->len < 65536)
			ember_buf_grow(out,
				       out->len < 65536 ? 65536 : out->len);
		rc = ember_dec_run(d, &in, &n, 1, out->buf + out->len,
				   out->alloc - out->len - 1, &made);
		out->len += made;
	}
	ember_dec_free(d);
	if (out->alloc)
		out->buf[out->len] = '\0';
	return rc < 0 ? rc : 0;
}
