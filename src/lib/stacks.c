/*
 * The stack -> count table.  A stack is a run of frame ids in `ids`; `ents`
 * holds one entry per distinct stack, in order of first appearance, and
 * `slots` is an open-addressing hash over the entries (entry + 1, 0 for
 * empty, load at most 1/2).
 */
#include <stdlib.h>
#include <string.h>

#include "folded.h"

void ember_stacks_init(struct ember_stacks *s)
{
	memset(s, 0, sizeof(*s));
	s->mask = 1023;
	s->slots = ember_xcalloc(s->mask + 1, sizeof(*s->slots));
}

void ember_stacks_release(struct ember_stacks *s)
{
	free(s->ids);
	free(s->ents);
	free(s->slots);
	memset(s, 0, sizeof(*s));
}

struct ember_stacks *ember_stacks_new(void)
{
	struct ember_stacks *s = ember_xmalloc(sizeof(*s));

	ember_stacks_init(s);
	return s;
}

void ember_stacks_free(struct ember_stacks *s)
{
	if (!s)
		return;
	ember_stacks_release(s);
	free(s);
}

size_t ember_stacks_count(const struct ember_stacks *s)
{
	return s->n;
}

const uint32_t *ember_stacks_frames(const struct ember_stacks *s, size_t i,
				    size_t *n)
{
	*n = s->ents[i].n;
	return s->ids + s->ents[i].off;
}

double ember_stacks_weight(const struct ember_stacks *s, size_t i,
			   double *weight2)
{
	if (weight2)
		*weight2 = s->ents[i].count2;
	return s->ents[i].count;
}

static void rehash(struct ember_stacks *s)
{
	size_t mask = s->mask * 2 + 1;
	uint32_t *slots = ember_xcalloc(mask + 1, sizeof(*slots));

	for (size_t e = 0; e < s->n; e++) {
		size_t i = s->ents[e].hash & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = (uint32_t)e + 1;
	}
	free(s->slots);
	s->slots = slots;
	s->mask = mask;
}

size_t ember_stacks_add(struct ember_stacks *s, const uint32_t *frames,
			size_t n, double count, double count2)
{
	uint64_t h = ember_hash(frames, n * sizeof(*frames));
	size_t i;

	for (i = h & s->mask; s->slots[i]; i = (i + 1) & s->mask) {
		struct ember_stack_ent *e = &s->ents[s->slots[i] - 1];
		if (e->hash == h && e->n == n &&
		    (!n ||
		     !memcmp(s->ids + e->off, frames, n * sizeof(*frames)))) {
			e->count += count;
			e->count2 += count2;
			return s->slots[i] - 1;
		}
	}
	if (s->nids + n > UINT32_MAX || s->n >= UINT32_MAX - 1)
		ember_xmalloc(
		    SIZE_MAX); /* beyond 32-bit offsets: out of memory */
	/* one more: ids is never NULL once there is a stack, an empty one
	 * too, so that ids + off is always a pointer into it */
	EMBER_GROW(s->ids, s->nids + n + 1, s->aids);
	if (n)
		memcpy(s->ids + s->nids, frames, n * sizeof(*frames));
	EMBER_GROW(s->ents, s->n + 1, s->alloc);
	struct ember_stack_ent *e = &s->ents[s->n];
	e->hash = h;
	e->off = (uint32_t)s->nids;
	e->n = (uint32_t)n;
	e->count = count;
	e->count2 = count2;
	s->nids += n;
	s->slots[i] = (uint32_t)++s->n;
	if (s->n * 2 > s->mask)
		rehash(s);
	return s->n - 1;
}

void ember_stacks_merge(struct ember_stacks *dst,
			const struct ember_stacks *src)
{
	for (size_t i = 0; i < src->n; i++) {
		const struct ember_stack_ent *e = &src->ents[i];
		ember_stacks_add(dst, src->ids + e->off, e->n, e->count,
				 e->count2);
	}
}

void ember_stacks_sort(struct ember_stacks *s, const struct ember_intern *t)
{
	uint32_t *order = ember_stacks_order(s, t);
	struct ember_stack_ent *ents =
	    ember_xreallocarray(NULL, s->alloc ? s->alloc : 1, sizeof(*ents));

	for (size_t e = 0; e < s->n; e++)
		ents[e] = s->ents[order[e]];
	free(order);
	free(s->ents);
	s->ents = ents;
	/* entry indices moved: rebuild the hash */
	memset(s->slots, 0, (s->mask + 1) * sizeof(*s->slots));
	for (size_t e = 0; e < s->n; e++) {
		size_t i = s->ents[e].hash & s->mask;
		while (s->slots[i])
			i = (i + 1) & s->mask;
		s->slots[i] = (uint32_t)e + 1;
	}
}

int ember_stacks_write(const struct ember_stacks *s,
		       const struct ember_intern *t, int two_counts,
		       ember_write_fn w, void *ctx)
{
	struct ember_folded_out o;
	int err = 0;

	ember_folded_out_init(&o, w, ctx);
	for (size_t i = 0; i < s->n && !err; i++) {
		const struct ember_stack_ent *e = &s->ents[i];
		ember_stacks_add_folded(&o.b, s, t, i);
		ember_buf_addch(&o.b, ' ');
		ember_buf_addnum(&o.b, e->count);
		if (two_counts) {
			ember_buf_addch(&o.b, ' ');
			ember_buf_addnum(&o.b, e->count2);
		}
		ember_buf_addch(&o.b, '\n');
		err = ember_folded_out_line(&o);
	}
	return ember_folded_out_finish(&o);
}
