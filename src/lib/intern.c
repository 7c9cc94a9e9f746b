/*
 * Frame-name interning.  Strings live in an arena; `ents` maps an id to its
 * string and `slots` is an open-addressing hash (linear probing, load at
 * most 1/2) holding id + 1, with 0 for an empty slot.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"

void ember_intern_init(struct ember_intern *t)
{
	memset(t, 0, sizeof(*t));
	ember_arena_init(&t->arena);
	t->mask = 1023;
	t->slots = ember_xcalloc(t->mask + 1, sizeof(*t->slots));
}

void ember_intern_release(struct ember_intern *t)
{
	ember_arena_release(&t->arena);
	free(t->slots);
	free(t->ents);
	memset(t, 0, sizeof(*t));
}

struct ember_intern *ember_intern_new(void)
{
	struct ember_intern *t = ember_xmalloc(sizeof(*t));

	ember_intern_init(t);
	return t;
}

void ember_intern_free(struct ember_intern *t)
{
	if (!t)
		return;
	ember_intern_release(t);
	free(t);
}

const char *ember_intern_str(const struct ember_intern *t, uint32_t id,
			     size_t *len)
{
	if (len)
		*len = t->ents[id].len;
	return t->ents[id].s;
}

size_t ember_intern_count(const struct ember_intern *t)
{
	return t->n;
}

static void rehash(struct ember_intern *t)
{
	size_t mask = t->mask * 2 + 1;
	uint32_t *slots = ember_xcalloc(mask + 1, sizeof(*slots));

	for (size_t id = 0; id < t->n; id++) {
		size_t i = t->ents[id].hash & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = (uint32_t)id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->mask = mask;
}

uint32_t ember_intern_find(const struct ember_intern *t, const char *s,
			   size_t len)
{
	uint32_t h = (uint32_t)ember_hash(s, len);

	for (size_t i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		const struct ember_intern_ent *e = &t->ents[t->slots[i] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return t->slots[i] - 1;
	}
	return UINT32_MAX;
}

uint32_t ember_intern(struct ember_intern *t, const char *s, size_t len)
{
	size_t i;

	if (len > UINT32_MAX)
		len = UINT32_MAX; /* a 4 GiB frame name is cut, not wrapped */
	uint32_t h = (uint32_t)ember_hash(s, len);
	for (i = h & t->mask; t->slots[i]; i = (i + 1) & t->mask) {
		const struct ember_intern_ent *e = &t->ents[t->slots[i] - 1];
		if (e->hash == h && e->len == len && !memcmp(e->s, s, len))
			return t->slots[i] - 1;
	}
	if (t->n >= UINT32_MAX - 1)
		ember_xmalloc(
		    SIZE_MAX); /* more names than ids: out of memory */
	EMBER_GROW(t->ents, t->n + 1, t->alloc);
	struct ember_intern_ent *e = &t->ents[t->n];
	e->s = ember_arena_strndup(&t->arena, s, len);
	e->len = (uint32_t)len;
	e->hash = h;
	t->slots[i] = (uint32_t)++t->n;
	if (t->n * 2 > t->mask)
		rehash(t);
	return (uint32_t)t->n - 1;
}
