/*
 * Protocol buffers' wire format, as much as pprof's profile.proto needs:
 * varints, length-delimited fields, fixed 32/64-bit fields skipped; packed
 * and unpacked repeated integers.  Small enough to write by hand, and so
 * no generated code nor a library to link.
 */
#ifndef EMBER_PROTO_H
#define EMBER_PROTO_H

#include "internal.h"

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

struct pb {
	const unsigned char *p, *end;
};

static inline int pb_varint(struct pb *b, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end)
			return -1;
		unsigned char c = *b->p++;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1; /* more than ten bytes */
}

/* The next field: 1 with its number, wire type and value (PB_LEN: its
 * bytes in *sub), 0 at the end, -1 when the bytes are no protobuf. */
static inline int pb_next(struct pb *b, uint32_t *field, int *wire, uint64_t *v,
			  struct pb *sub)
{
	uint64_t key;

	if (b->p >= b->end)
		return 0;
	if (pb_varint(b, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff)
		return -1;
	*field = (uint32_t)(key >> 3);
	*wire = (int)(key & 7);
	switch (*wire) {
	case PB_VARINT:
		return pb_varint(b, v) ? -1 : 1;
	case PB_I64:
	case PB_I32: {
		size_t n = *wire == PB_I64 ? 8 : 4;
		if ((size_t)(b->end - b->p) < n)
			return -1;
		*v = 0;
		for (size_t i = 0; i < n; i++)
			*v |= (uint64_t)b->p[i] << (8 * i);
		b->p += n;
		return 1;
	}
	case PB_LEN:
		if (pb_varint(b, v) || *v > (uint64_t)(b->end - b->p))
			return -1;
		sub->p = b->p;
		sub->end = b->p + *v;
		b->p += *v;
		return 1;
	default:
		return -1; /* groups (3, 4) and the rest: not in profile.proto
			    */
	}
}

/* Writing: keys, varints and length-delimited fields into a buffer. */
static inline void pb_put_varint(struct ember_buf *b, uint64_t v)
{
	/* written in place: the encoder writes millions of them */
	if (b->len + 11 >= b->alloc)
		ember_buf_grow(b, 11);
	unsigned char *t = (unsigned char *)b->buf + b->len;
	size_t n = 0;

	while (v > 0x7f) {
		t[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (unsigned char)v;
	b->len += n;
	b->buf[b->len] = '\0';
}

static inline void pb_put_uint(struct ember_buf *b, uint32_t field, uint64_t v)
{
	pb_put_varint(b, (uint64_t)field << 3 | PB_VARINT);
	pb_put_varint(b, v);
}

static inline void pb_put_bytes(struct ember_buf *b, uint32_t field,
				const void *p, size_t n)
{
	pb_put_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb_put_varint(b, n);
	ember_buf_add(b, p, n);
}

#endif
