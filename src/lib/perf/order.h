/*
 * Perf records from several ring buffers in time order (order.c), by
 * perf's FINISHED_ROUND rule: records read in one round are handled once
 * the next round has been read, up to the newest time the earlier round
 * saw, so that a sample never precedes the MMAP2 or COMM it depends on.
 */
#ifndef EMBER_PERF_ORDER_H
#define EMBER_PERF_ORDER_H

#include "internal.h"

/* Where records go: one record of size bytes, as the kernel wrote it. */
typedef void (*rec_record_fn)(void *ctx, const void *rec, size_t size);

struct rec_qent {
	uint64_t time, seq;
	void *rec;
	int owned; /* freed once handled */
};

struct rec_order {
	struct rec_qent *q;
	size_t n, alloc;
	uint64_t seq, round_max, prev_round_max;
};

void rec_order_init(struct rec_order *o);
void rec_order_release(struct rec_order *o);
/* Queues a copy of a record read in this round, at its time. */
void rec_order_add(struct rec_order *o, uint64_t time, const void *rec,
		   size_t size);
/* The same with a malloc'd record, which the queue now owns. */
void rec_order_add_owned(struct rec_order *o, uint64_t time, void *rec);
/* The same with a record that stays valid until handled, not freed. */
void rec_order_add_ref(struct rec_order *o, uint64_t time, const void *rec);
/* Hands fn the queued records up to time limit (all: UINT64_MAX), in
 * time order (ties in reading order). */
void rec_order_flush(struct rec_order *o, uint64_t limit, rec_record_fn fn,
		     void *ctx);
/* A round ends: hands fn what the previous round allows. */
void rec_order_round(struct rec_order *o, rec_record_fn fn, void *ctx);

#endif
