/*
 * The collapsers' output: the stacks in the byte order of their folded
 * lines (Perl's sort), written as "a;b;c count" lines.
 *
 * An array of entry indices is merge-sorted (in two halves on two threads
 * when there are threads to spare), and the lines are written in that
 * order: the table itself is left as it is.  The order is ember_stacks_sort's:
 * at the first frame that differs the names decide, each followed by ';'
 * when its stack goes on and by nothing when it ends (names hold no ';').
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "collapse.h"

struct order_ctx {
	const struct ember_stacks *s;
	const struct ember_intern *t;
};

static inline int cmp(const struct order_ctx *x, uint32_t ia, uint32_t ib)
{
	const struct ember_stack_ent *a = &x->s->ents[ia], *b = &x->s->ents[ib];
	const uint32_t *fa = x->s->ids + a->off, *fb = x->s->ids + b->off;
	uint32_t n = a->n < b->n ? a->n : b->n;

	for (uint32_t i = 0; i < n; i++) {
		if (fa[i] == fb[i])
			continue;
		const struct ember_intern_ent *ea = &x->t->ents[fa[i]];
		const struct ember_intern_ent *eb = &x->t->ents[fb[i]];
		const unsigned char *sa = (const void *)ea->s;
		const unsigned char *sb = (const void *)eb->s;
		size_t la = ea->len, lb = eb->len, m = la < lb ? la : lb;
		int c = memcmp(sa, sb, m);
		if (c)
			return c;
		/* one name is a prefix of the other: what follows decides */
		int ca = la > m ? sa[m] : (i + 1 < a->n ? ';' : -1);
		int cb = lb > m ? sb[m] : (i + 1 < b->n ? ';' : -1);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		return (la > lb) - (la < lb);
	}
	return (a->n > b->n) - (a->n < b->n);
}

/* Sorts v[0..n) using tmp[0..n) (stable, top-down merge sort). */
static void sort(const struct order_ctx *x, uint32_t *v, uint32_t *tmp,
		 size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			uint32_t e = v[i];
			size_t j = i;
			while (j && cmp(x, v[j - 1], e) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = e;
		}
		return;
	}
	size_t h = n / 2;
	sort(x, v, tmp, h);
	sort(x, v + h, tmp + h, n - h);
	if (cmp(x, v[h - 1], v[h]) <= 0)
		return;
	memcpy(tmp, v, n * sizeof(*v));
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n)
		v[k++] = cmp(x, tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
	while (i < h)
		v[k++] = tmp[i++];
	while (j < n)
		v[k++] = tmp[j++];
}

struct half {
	const struct order_ctx *x;
	uint32_t *v, *tmp;
	size_t n;
};

static void *sort_half(void *arg)
{
	struct half *h = arg;

	sort(h->x, h->v, h->tmp, h->n);
	return NULL;
}

uint32_t *ember_collapse_order(const struct collapse_sink *k, int threads)
{
	struct order_ctx x = {&k->stacks, &k->names};
	size_t n = k->stacks.n;
	uint32_t *v = ember_xreallocarray(NULL, n ? n : 1, sizeof(*v));
	uint32_t *tmp = ember_xreallocarray(NULL, n ? n : 1, sizeof(*tmp));
	pthread_t th;

	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	if (threads > 1 && n >= 8192) {
		size_t h = n / 2;
		struct half a = {&x, v + h, tmp + h, n - h};
		if (!pthread_create(&th, NULL, sort_half, &a)) {
			sort(&x, v, tmp, h);
			pthread_join(th, NULL);
			memcpy(tmp, v, n * sizeof(*v));
			size_t i = 0, j = h, o = 0;
			while (i < h && j < n)
				v[o++] = cmp(&x, tmp[j], tmp[i]) < 0 ? tmp[j++]
								     : tmp[i++];
			while (i < h)
				v[o++] = tmp[i++];
			while (j < n)
				v[o++] = tmp[j++];
			free(tmp);
			return v;
		}
	}
	sort(&x, v, tmp, n);
	free(tmp);
	return v;
}

int ember_collapse_write_order(const struct collapse_sink *k,
			       const uint32_t *order,
			       void (*number)(struct ember_buf *, double),
			       ember_write_fn w, void *ctx)
{
	struct ember_buf b = EMBER_BUF_INIT;
	int err = 0;

	ember_buf_grow(&b, 1 << 16);
	for (size_t i = 0; i < k->stacks.n && !err; i++) {
		size_t o = order ? order[i] : i;
		const struct ember_stack_ent *e = &k->stacks.ents[o];
		ember_stacks_add_folded(&b, &k->stacks, &k->names, o);
		ember_buf_addch(&b, ' ');
		uint64_t x = o < k->aexact ? k->exact[o] : CL_INEXACT;
		if (x != CL_INEXACT)
			ember_buf_addu(&b, x);
		else
			(number ? number : ember_buf_add_nv)(&b, e->count);
		ember_buf_addch(&b, '\n');
		if (b.len >= (1 << 16) - 4096) {
			err = w(ctx, b.buf, b.len);
			ember_buf_reset(&b);
		}
	}
	if (!err && b.len)
		err = w(ctx, b.buf, b.len);
	ember_buf_release(&b);
	return err;
}

void cl_fail(struct collapse_sink *k, const char *fmt, ...)
{
	va_list ap;

	if (k->n.error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(k->n.error, sizeof(k->n.error), fmt, ap);
	va_end(ap);
}
