/* Arena allocation: blocks that are freed together. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct ember_arena_block {
	struct ember_arena_block *next;
	size_t size;
	max_align_t data[];
};

#define ARENA_BLOCK (64 * 1024)

void ember_arena_init(struct ember_arena *a)
{
	memset(a, 0, sizeof(*a));
}

void *ember_arena_alloc(struct ember_arena *a, size_t n)
{
	if (n > SIZE_MAX / 2)
		return ember_xmalloc(
		    SIZE_MAX); /* calls the out-of-memory handler */
	/* (no bytes: still a place of its own, never NULL plus 0) */
	n = n ? (n + 7) & ~(size_t)7 : 8;
	if (n > a->left) {
		size_t size = n > ARENA_BLOCK / 4 ? n : ARENA_BLOCK;
		struct ember_arena_block *blk;

		if (size > SIZE_MAX - sizeof(*blk))
			return ember_xmalloc(SIZE_MAX);
		blk = ember_xmalloc(sizeof(*blk) + size);
		blk->size = size;
		if (size > ARENA_BLOCK && a->head) {
			/* a big one-off: keep the current block for the rest */
			blk->next = a->head->next;
			a->head->next = blk;
			a->total += n;
			return blk->data;
		}
		blk->next = a->head;
		a->head = blk;
		a->ptr = (char *)blk->data;
		a->left = size;
	}
	void *p = a->ptr;
	a->ptr += n;
	a->left -= n;
	a->total += n;
	return p;
}

char *ember_arena_strndup(struct ember_arena *a, const char *s, size_t n)
{
	char *p = ember_arena_alloc(a, n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void ember_arena_release(struct ember_arena *a)
{
	struct ember_arena_block *b = a->head;

	while (b) {
		struct ember_arena_block *next = b->next;
		free(b);
		b = next;
	}
	ember_arena_init(a);
}
