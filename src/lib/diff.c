/*
 * Differential folded stacks, as difffolded.pl makes them: every stack of
 * either input with its count in each.  Whole stacks are interned (the
 * intern id indexes the two count arrays); the output is sorted by bytes
 * (the script prints in hash order, different on every run).
 */
#include <math.h>
#include <stdlib.h>

#include "collapse/collapse.h"

struct diff {
	struct ember_intern keys;
	double *count[2];
	size_t alloc;
	struct ember_buf tmp;
};

/* -s: s/0x[0-9a-fA-F]+/0x.../g */
static const char *strip_hex(struct ember_buf *b, const char *s, size_t *n)
{
	size_t len = *n;

	if (!memmem(s, len, "0x", 2))
		return s;
	ember_buf_reset(b);
	for (size_t i = 0; i < len;) {
		if (s[i] == '0' && i + 1 < len && s[i + 1] == 'x') {
			size_t j = i + 2;
			while (j < len && ((s[j] >= '0' && s[j] <= '9') ||
					   (s[j] >= 'a' && s[j] <= 'f') ||
					   (s[j] >= 'A' && s[j] <= 'F')))
				j++;
			if (j > i + 2) {
				ember_buf_adds(b, "0x...");
				i = j;
				continue;
			}
		}
		ember_buf_addch(b, s[i++]);
	}
	*n = b->len;
	return b->buf;
}

static void add(struct diff *d, int which, const char *s, size_t n,
		double count)
{
	uint32_t id = ember_intern(&d->keys, s, n);

	if (id >= d->alloc) {
		size_t a = d->alloc ? d->alloc * 2 : 1024;
		while (a <= id)
			a *= 2;
		for (int i = 0; i < 2; i++) {
			d->count[i] = ember_xreallocarray(d->count[i], a,
							  sizeof(double));
			memset(d->count[i] + d->alloc, 0,
			       (a - d->alloc) * sizeof(double));
		}
		d->alloc = a;
	}
	d->count[which][id] += count;
}

static int read_input(struct diff *d, int which, const char *path,
		      const struct ember_diff_options *o,
		      struct ember_diff_stats *st)
{
	struct ember_reader *r;
	const char *p;
	size_t len;
	int rc = ember_reader_open(&r, path);

	if (rc)
		return rc;
	while ((rc = ember_reader_next(r, &p, &len)) == 1) {
		const char *end = p + len;
		while (p < end) {
			const char *s;
			size_t n = cl_line(&p, end, &s), sl;
			double count;
			st->lines[which]++;
			if (ember_folded_split(s, n, &sl, &count)) {
				size_t i = 0;
				while (i < n && cl_space(s[i]))
					i++;
				if (i < n && !st->bad_lines[which]++)
					st->first_bad_line[which] =
						st->lines[which];
				continue;
			}
			if (o->strip_hex)
				s = strip_hex(&d->tmp, s, &sl);
			add(d, which, s, sl, count);
			st->total[which] += count;
		}
	}
	ember_reader_close(r);
	return rc;
}

struct sort_ctx {
	const struct ember_intern *keys;
};

static int cmp_key(const void *pa, const void *pb, void *arg)
{
	const struct ember_intern *t = ((const struct sort_ctx *)arg)->keys;
	size_t la, lb;
	const char *a = ember_intern_str(t, *(const uint32_t *)pa, &la);
	const char *b = ember_intern_str(t, *(const uint32_t *)pb, &lb);
	int c = memcmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* int($c1 * $total2 / $total1) as Perl computes it: exactly when the
 * numbers are integers and the product fits, else in doubles. */
static double normalized(double c1, double t1, double t2)
{
	if (c1 == floor(c1) && t1 == floor(t1) && t2 == floor(t2) && c1 >= 0 &&
	    t1 > 0 && t2 >= 0 && c1 < 9e18 && t2 < 9e18 && t1 < 9e18) {
		__int128 prod = (__int128)(int64_t)c1 * (int64_t)t2;
		if (prod < ((__int128)1 << 63)) {
			int64_t pr = (int64_t)prod, den = (int64_t)t1;
			if (pr % den == 0)
				return (double)(pr / den);
			return trunc((double)pr / (double)den);
		}
	}
	return trunc(c1 * t2 / t1);
}

int ember_diff(const char *before, const char *after,
	       const struct ember_diff_options *o, ember_write_fn w, void *ctx,
	       struct ember_diff_stats *st)
{
	struct diff d;
	struct ember_buf out = EMBER_BUF_INIT;
	uint32_t *order = NULL;
	int err;

	memset(st, 0, sizeof(*st));
	st->failed_input = -1;
	memset(&d, 0, sizeof(d));
	ember_intern_init(&d.keys);
	ember_buf_init(&d.tmp, 256);
	err = read_input(&d, 0, before, o, st);
	if (err) {
		st->failed_input = 0;
		goto out;
	}
	err = read_input(&d, 1, after, o, st);
	if (err) {
		st->failed_input = 1;
		goto out;
	}
	size_t n = ember_intern_count(&d.keys);
	struct sort_ctx sc = {&d.keys};
	order = ember_xreallocarray(NULL, n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_key, &sc);
	st->stacks = n;
	int scale = o->normalize && st->total[0] != st->total[1];
	if (scale && st->total[0] == 0) {
		scale = 0;
		st->normalize_skipped = 1;
	}
	ember_buf_grow(&out, 1 << 16);
	for (size_t i = 0; i < n && !err; i++) {
		size_t len;
		const char *s = ember_intern_str(&d.keys, order[i], &len);
		double c1 = d.count[0][order[i]];
		if (scale)
			c1 = normalized(c1, st->total[0], st->total[1]);
		ember_buf_add(&out, s, len);
		ember_buf_addch(&out, ' ');
		ember_buf_addnum(&out, c1);
		ember_buf_addch(&out, ' ');
		ember_buf_addnum(&out, d.count[1][order[i]]);
		ember_buf_addch(&out, '\n');
		if (out.len >= (1 << 16) - 4096) {
			err = w(ctx, out.buf, out.len);
			ember_buf_reset(&out);
		}
	}
	if (!err && out.len)
		err = w(ctx, out.buf, out.len);
out:
	free(order);
	free(d.count[0]);
	free(d.count[1]);
	ember_buf_release(&out);
	ember_buf_release(&d.tmp);
	ember_intern_release(&d.keys);
	return err;
}
