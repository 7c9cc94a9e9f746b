/*
 * Differential folded stacks, as difffolded.pl makes them: every stack of
 * either input with its count in each.  Whole stacks are interned (the
 * intern id indexes the two count arrays); the output is sorted by bytes
 * (the script prints in hash order, different on every run).
 */
#include <math.h>
#include <stdlib.h>

#include "folded.h"

/* Per key and input: the count summed in doubles, and as an integer
 * while every count is one and the sum fits (as Perl sums integers). */
struct diff {
	struct ember_intern keys;
	double *count[2];
	uint64_t *exact[2]; /* FOLDED_INEXACT: see count */
	size_t alloc;
	double total[2];
	uint64_t total_exact[2];
	struct ember_buf tmp;
};

static void sum(double *d, uint64_t *x, double count, uint64_t v, int exact)
{
	ember_perl_add(x, d, count, v, exact);
}

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
		double count, uint64_t v, int exact)
{
	uint32_t id = ember_intern(&d->keys, s, n);

	if (id >= d->alloc) {
		size_t a = d->alloc ? d->alloc * 2 : 1024;
		while (a <= id)
			a *= 2;
		for (int i = 0; i < 2; i++) {
			d->count[i] =
			    ember_xreallocarray(d->count[i], a, sizeof(double));
			memset(d->count[i] + d->alloc, 0,
			       (a - d->alloc) * sizeof(double));
			d->exact[i] = ember_xreallocarray(d->exact[i], a,
							  sizeof(uint64_t));
			memset(d->exact[i] + d->alloc, 0,
			       (a - d->alloc) * sizeof(uint64_t));
		}
		d->alloc = a;
	}
	sum(&d->count[which][id], &d->exact[which][id], count, v, exact);
	sum(&d->total[which], &d->total_exact[which], count, v, exact);
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
			size_t n = folded_line(&p, end, &s), sl;
			double count;
			st->lines[which]++;
			if (ember_folded_split(s, n, &sl, &count)) {
				size_t i = 0;
				while (i < n && folded_space(s[i]))
					i++;
				if (i < n)
					ember_bad_lines_add(
					    &st->bad[which], st->lines[which],
					    path && strcmp(path, "-") ? path
								      : NULL,
					    s, n);
				continue;
			}
			/* the count: the digits after the stack and a space */
			uint64_t v = 0;
			int exact = ember_parse_u64(s + sl + 1, n - sl - 1, &v);
			if (o->whole) {
				count = trunc(count);
				exact = count < 18446744073709551616.0;
				v = exact ? (uint64_t)count : 0;
				while (sl && folded_space(s[sl - 1]))
					sl--;
			}
			if (o->strip_hex)
				s = strip_hex(&d->tmp, s, &sl);
			add(d, which, s, sl, count, v, exact);
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
	const struct ember_intern_ent *ea = &t->ents[*(const uint32_t *)pa];
	const struct ember_intern_ent *eb = &t->ents[*(const uint32_t *)pb];
	size_t la = ea->len, lb = eb->len;
	int c = memcmp(ea->s, eb->s, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* int($c1 * $total2 / $total1) as Perl computes it: in integers when the
 * numbers are (exact, x != FOLDED_INEXACT) and the product fits, the division
 * exact or in doubles; else in doubles. */
static double normalized(double c1, uint64_t x1, double t1, uint64_t xt1,
			 double t2, uint64_t xt2)
{
	unsigned __int128 prod;

	if (x1 != FOLDED_INEXACT && xt1 != FOLDED_INEXACT &&
	    xt2 != FOLDED_INEXACT && xt1 &&
	    (prod = (unsigned __int128)x1 * xt2) >> 64 == 0) {
		uint64_t pr = (uint64_t)prod;
		if (pr % xt1 == 0)
			return (double)(pr / xt1);
		return trunc((double)pr / (double)xt1);
	}
	return trunc(c1 * t2 / t1);
}

int ember_diff(const char *before, const char *after,
	       const struct ember_diff_options *o, ember_write_fn w, void *ctx,
	       struct ember_diff_stats *st)
{
	struct diff d;
	struct ember_folded_out out;
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
	st->total[0] = d.total[0];
	st->total[1] = d.total[1];
	size_t n = ember_intern_count(&d.keys);
	struct sort_ctx sc = {&d.keys};
	order = ember_xreallocarray(NULL, n ? n : 1, sizeof(*order));
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_key, &sc);
	st->stacks = n;
	/* Perl's $total1 != $total2: as integers when both are */
	int scale = o->normalize && (d.total_exact[0] != FOLDED_INEXACT &&
					     d.total_exact[1] != FOLDED_INEXACT
					 ? d.total_exact[0] != d.total_exact[1]
					 : d.total[0] != d.total[1]);
	if (scale && st->total[0] == 0) {
		scale = 0;
		st->normalize_skipped = 1;
	}
	ember_folded_out_init(&out, w, ctx);
	for (size_t i = 0; i < n && !err; i++) {
		size_t len;
		const char *s = ember_intern_str(&d.keys, order[i], &len);
		uint32_t k = order[i];
		ember_buf_add(&out.b, s, len);
		for (int c = 0; c < 2; c++) {
			ember_buf_addch(&out.b, ' ');
			if (!c && scale) {
				double v =
				    normalized(d.count[0][k], d.exact[0][k],
					       d.total[0], d.total_exact[0],
					       d.total[1], d.total_exact[1]);
				/* Perl's int() is an integer below 2^64 */
				ember_folded_add_count(
				    &out.b,
				    v >= 0 && v < 18446744073709551616.0
					? (uint64_t)v
					: FOLDED_INEXACT,
				    v);
			} else {
				ember_folded_add_count(&out.b, d.exact[c][k],
						       d.count[c][k]);
			}
		}
		ember_buf_addch(&out.b, '\n');
		err = ember_folded_out_line(&out);
	}
	err = ember_folded_out_finish(&out);
out:
	free(order);
	free(d.count[0]);
	free(d.count[1]);
	free(d.exact[0]);
	free(d.exact[1]);
	ember_buf_release(&d.tmp);
	ember_intern_release(&d.keys);
	return err;
}
