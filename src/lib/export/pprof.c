/*
 * pprof out: folded stacks as profile.proto, gzip-compressed as pprof and
 * Go write it.  Frame name i is function i + 1 and location i + 1 (one
 * line), at its address in the mapping it was seen in when the profile
 * knows one (ember record: ELF modules with their build-ids), else at no
 * address in a last mapping for the rest; every mapping is marked as
 * symbolized, so that pprof does not try to symbolize addresses.  Each
 * stack is a sample whose locations run leaf first.  The string table
 * holds "" first, then the sample type and unit, the frame names, then
 * each mapping's file name and build-id.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "stacks.h"
#include "proto.h"

/* profile.proto's field numbers */
enum {
	P_SAMPLE_TYPE = 1,
	P_SAMPLE = 2,
	P_MAPPING = 3,
	P_LOCATION = 4,
	P_FUNCTION = 5,
	P_STRING = 6,
	P_PERIOD_TYPE = 11,
	P_PERIOD = 12,
};

static int weight(const struct ember_profile *p, size_t e, double scale,
		  int64_t *v)
{
	uint64_t x = p->exact && e < p->nexact ? p->exact[e] : UINT64_MAX;

	if (x != UINT64_MAX && scale == 1) {
		if (x > INT64_MAX)
			return -1;
		*v = (int64_t)x;
		return 0;
	}
	double d = p->stacks->ents[e].count * scale;
	if (!isfinite(d) || fabs(d) >= 9.2e18)
		return -1;
	*v = llround(d);
	return 0;
}

static int gzip_out(const struct ember_buf *raw, ember_write_fn w, void *ctx)
{
	z_stream z;
	unsigned char out[1 << 16];
	int err = 0, zr;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return EMBER_ENOMEM;
	z.next_in = (unsigned char *)raw->buf;
	do {
		/* avail_in is 32 bits: feed at most 1 GiB at a time */
		size_t done = (size_t)((char *)z.next_in - raw->buf);
		size_t left = raw->len - done;
		z.avail_in = left > (1u << 30) ? 1u << 30 : (unsigned)left;
		int flush = left > (1u << 30) ? Z_NO_FLUSH : Z_FINISH;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = deflate(&z, flush);
			if (zr == Z_STREAM_ERROR) {
				err = EMBER_ENOMEM;
				break;
			}
			size_t n = sizeof(out) - z.avail_out;
			if (n && !err)
				err = w(ctx, out, n);
		} while (!err && z.avail_out == 0);
	} while (!err && zr != Z_STREAM_END);
	deflateEnd(&z);
	return err;
}

int ember_pprof_write(const struct ember_profile *p, ember_write_fn w,
		      void *ctx)
{
	struct ember_buf b = EMBER_BUF_INIT, m = EMBER_BUF_INIT;
	const char *type = p->sample_type ? p->sample_type : "samples";
	const char *unit = p->sample_unit ? p->sample_unit : "count";
	size_t nn = ember_intern_count(p->names);
	double scale = 1;
	int err = 0, rounded = 0;

	if (!strcmp(unit, "microseconds")) {
		unit = "nanoseconds"; /* pprof's unit for times */
		scale = 1000;
	}
	/* sample_type and period_type: strings 1 and 2 */
	ember_buf_reset(&m);
	pb_put_uint(&m, 1, 1);
	pb_put_uint(&m, 2, 2);
	pb_put_bytes(&b, P_SAMPLE_TYPE, m.buf, m.len);
	for (size_t e = 0; e < p->stacks->n && !err; e++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(p->stacks, e, &n);
		int64_t v;
		if (weight(p, e, scale, &v)) {
			ember_log(
			    EMBER_LOG_ERROR,
			    "a weight (%g) does not fit in pprof's 64-bit "
			    "integers",
			    p->stacks->ents[e].count * scale);
			err = EMBER_EINVAL;
			break;
		}
		if (!rounded && (double)v != p->stacks->ents[e].count * scale)
			rounded = 1;
		ember_buf_reset(&m);
		/* location ids, leaf first, packed */
		struct ember_buf ids = EMBER_BUF_INIT;
		for (size_t i = n; i-- > 0;)
			pb_put_varint(&ids, (uint64_t)f[i] + 1);
		pb_put_bytes(&m, 1, ids.buf, ids.len);
		ember_buf_reset(&ids);
		pb_put_varint(&ids, (uint64_t)v);
		pb_put_bytes(&m, 2, ids.buf, ids.len);
		ember_buf_release(&ids);
		pb_put_bytes(&b, P_SAMPLE, m.buf, m.len);
	}
	/* the mappings known, then one for the rest; all symbolized
	 * (has_functions) */
	size_t nm = p->nmappings, rest = nm + 1;
	for (size_t i = 0; i < nm; i++) {
		const struct ember_pprof_mapping *pm = &p->mappings[i];
		ember_buf_reset(&m);
		pb_put_uint(&m, 1, i + 1);
		pb_put_uint(&m, 2, pm->start);
		pb_put_uint(&m, 3, pm->limit);
		pb_put_uint(&m, 4, pm->offset);
		pb_put_uint(&m, 5, 3 + nn + 2 * i);
		if (pm->build_id)
			pb_put_uint(&m, 6, 3 + nn + 2 * i + 1);
		pb_put_uint(&m, 7, 1);
		pb_put_bytes(&b, P_MAPPING, m.buf, m.len);
	}
	ember_buf_reset(&m);
	pb_put_uint(&m, 1, rest);
	pb_put_uint(&m, 7, 1);
	pb_put_bytes(&b, P_MAPPING, m.buf, m.len);
	for (size_t i = 0; i < nn && !err; i++) {
		struct ember_buf line = EMBER_BUF_INIT;
		uint32_t map = i < p->nlocs ? p->loc_mapping[i] : 0;
		ember_buf_reset(&m);
		pb_put_uint(&m, 1, i + 1);
		pb_put_uint(&m, 2, map && map <= nm ? map : rest);
		if (map && map <= nm)
			pb_put_uint(&m, 3, p->loc_addr[i]);
		pb_put_uint(&line, 1, i + 1);
		pb_put_bytes(&m, 4, line.buf, line.len);
		ember_buf_release(&line);
		pb_put_bytes(&b, P_LOCATION, m.buf, m.len);
		ember_buf_reset(&m);
		pb_put_uint(&m, 1, i + 1);
		pb_put_uint(&m, 2, i + 3);
		pb_put_uint(&m, 3, i + 3);
		pb_put_bytes(&b, P_FUNCTION, m.buf, m.len);
	}
	pb_put_bytes(&b, P_STRING, "", 0);
	pb_put_bytes(&b, P_STRING, type, strlen(type));
	pb_put_bytes(&b, P_STRING, unit, strlen(unit));
	for (size_t i = 0; i < nn; i++) {
		size_t len;
		const char *s = ember_intern_str(p->names, (uint32_t)i, &len);
		pb_put_bytes(&b, P_STRING, s, len);
	}
	for (size_t i = 0; i < nm; i++) {
		const char *f = p->mappings[i].file,
			   *id = p->mappings[i].build_id;
		pb_put_bytes(&b, P_STRING, f, strlen(f));
		pb_put_bytes(&b, P_STRING, id ? id : "", id ? strlen(id) : 0);
	}
	ember_buf_reset(&m);
	pb_put_uint(&m, 1, 1);
	pb_put_uint(&m, 2, 2);
	pb_put_bytes(&b, P_PERIOD_TYPE, m.buf, m.len);
	pb_put_uint(&b, P_PERIOD, 1);
	if (!err) {
		if (rounded)
			ember_log(EMBER_LOG_WARN,
				  "pprof holds integers: weights were rounded");
		err = gzip_out(&b, w, ctx);
	}
	ember_buf_release(&b);
	ember_buf_release(&m);
	return err;
}
