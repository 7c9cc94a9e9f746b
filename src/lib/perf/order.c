/*
 * Perf records in time order (order.h): a queue of records (copies it
 * owns, or records that their reader keeps until handled), sorted by
 * (time, reading order) when flushed.
 */
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "perf/order.h"

void rec_order_init(struct rec_order *o)
{
	memset(o, 0, sizeof(*o));
}

void rec_order_release(struct rec_order *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->q[i].owned)
			free(o->q[i].rec);
	free(o->q);
	memset(o, 0, sizeof(*o));
}

static void add(struct rec_order *o, uint64_t time, void *rec, int owned)
{
	struct rec_qent *e;

	EMBER_GROW(o->q, o->n + 1, o->alloc);
	e = &o->q[o->n++];
	e->time = time;
	e->seq = o->seq++;
	e->rec = rec;
	e->owned = owned;
	if (time > o->round_max)
		o->round_max = time;
}

void rec_order_add_owned(struct rec_order *o, uint64_t time, void *rec)
{
	add(o, time, rec, 1);
}

void rec_order_add_ref(struct rec_order *o, uint64_t time, const void *rec)
{
	add(o, time, (void *)rec, 0);
}

void rec_order_add(struct rec_order *o, uint64_t time, const void *rec,
		   size_t size)
{
	void *copy = ember_xmalloc(size);

	memcpy(copy, rec, size);
	rec_order_add_owned(o, time, copy);
}

static int cmp_qent(const void *pa, const void *pb)
{
	const struct rec_qent *a = pa, *b = pb;

	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void rec_order_flush(struct rec_order *o, uint64_t limit, rec_record_fn fn,
		     void *ctx)
{
	size_t i;

	if (!o->n)
		return;
	qsort(o->q, o->n, sizeof(*o->q), cmp_qent);
	for (i = 0; i < o->n && o->q[i].time <= limit; i++) {
		const struct perf_event_header *h = o->q[i].rec;
		fn(ctx, h, h->size);
		if (o->q[i].owned)
			free(o->q[i].rec);
	}
	memmove(o->q, o->q + i, (o->n - i) * sizeof(*o->q));
	o->n -= i;
}

void rec_order_round(struct rec_order *o, rec_record_fn fn, void *ctx)
{
	rec_order_flush(o, o->prev_round_max, fn, ctx);
	o->prev_round_max = o->round_max;
}
