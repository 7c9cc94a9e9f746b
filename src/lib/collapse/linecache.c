/*
 * The line cache: a line's text -> the frame ids it makes, for parsers
 * whose lines repeat (perf's frame lines: the same symbol at the same
 * offset in the same module, sample after sample).
 *
 * Records live in one arena, 8-byte aligned, each a header, its ids and
 * its key, so that a hit touches one or two cache lines.  `slots` is an
 * open-addressing hash (load at most 1/2) of (high 32 bits of the key's
 * hash, record offset / 8 + 1), 0 for empty.  Each record also remembers
 * which record followed it last time: lines come in the same order in
 * sample after sample, so the successor is tried before hashing at all.
 * When the arena reaches LC_MAX_BYTES, everything is dropped and the
 * cache fills again: memory stays bounded whatever the input.
 */
#include <stdlib.h>

#include "collapse.h"

#define LC_MAX_BYTES (32u << 20)

struct lc_rec {
	uint32_t next; /* the record that followed this one (ref), 0: none */
	uint32_t klen;
	uint32_t hash; /* high half of the key's hash */
	uint16_t nids;
	uint8_t flags;
	uint8_t pad;
	/* uint32_t ids[nids]; char key[klen]; padding to 8 bytes */
};

static struct lc_rec *rec(const struct ember_linecache *c, uint32_t ref)
{
	return (struct lc_rec *)(c->mem + (size_t)(ref - 1) * 8);
}

static const uint32_t *lc_rec_ids(const struct lc_rec *r)
{
	return (const uint32_t *)(r + 1);
}

static const char *lc_rec_key(const struct lc_rec *r)
{
	return (const char *)(lc_rec_ids(r) + r->nids);
}

void ember_linecache_init(struct ember_linecache *c)
{
	memset(c, 0, sizeof(*c));
	c->mask = 255; /* grows with the lines: a small input stays small */
	c->slots = ember_xcalloc(c->mask + 1, sizeof(*c->slots));
}

void ember_linecache_release(struct ember_linecache *c)
{
	free(c->slots);
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

static void clear(struct ember_linecache *c)
{
	memset(c->slots, 0, (c->mask + 1) * sizeof(*c->slots));
	c->n = c->len = 0;
	c->prev = 0;
}

/* Twice the slots; a slot's place needs the low half of the hash, which
 * records do not keep: it is computed again. */
static void grow(struct ember_linecache *c)
{
	size_t mask = c->mask * 2 + 1;
	uint64_t *slots = ember_xcalloc(mask + 1, sizeof(*slots));

	for (size_t off = 0; off < c->len;) {
		struct lc_rec *r = (struct lc_rec *)(c->mem + off);
		uint64_t h = ember_hash(lc_rec_key(r), r->klen) ^
			     ((r->flags & LC_JAVA) ? 0x9e3779b97f4a7c15ull : 0);
		size_t j = h & mask;
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = (uint64_t)r->hash << 32 | (uint32_t)(off / 8 + 1);
		off += (sizeof(*r) + r->nids * 4 + r->klen + 7) & ~(size_t)7;
	}
	free(c->slots);
	c->slots = slots;
	c->mask = mask;
}

/* a == b for short keys: word compares, the last word overlapping */
static inline int same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;

	if (n < 8)
		return !memcmp(a, b, n);
	for (size_t i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8);
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

static uint64_t key_hash(const char *k, size_t kn, int java)
{
	return ember_hash(k, kn) ^ (java ? 0x9e3779b97f4a7c15ull : 0);
}

int ember_linecache_find(struct ember_linecache *c, const char *k, size_t kn,
			 int java, struct lc_hit *hit)
{
	struct lc_rec *r = NULL;
	uint32_t ref = 0;

	/* the line that followed the previous one last time */
	if (c->prev) {
		uint32_t nx = rec(c, c->prev)->next;
		if (nx) {
			struct lc_rec *p = rec(c, nx);
			if (p->klen == kn && (p->flags & LC_JAVA) == java &&
			    same(lc_rec_key(p), k, kn)) {
				r = p;
				ref = nx;
			}
		}
	}
	if (!r) {
		uint64_t h = key_hash(k, kn, java);
		uint32_t hi = (uint32_t)(h >> 32);
		for (size_t i = h & c->mask; c->slots[i];
		     i = (i + 1) & c->mask) {
			uint64_t s = c->slots[i];
			if ((uint32_t)(s >> 32) != hi)
				continue;
			struct lc_rec *p = rec(c, (uint32_t)s);
			if (p->klen == kn && (p->flags & LC_JAVA) == java &&
			    same(lc_rec_key(p), k, kn)) {
				r = p;
				ref = (uint32_t)s;
				break;
			}
		}
		c->hash = h;
	}
	if (!r) {
		c->pending = 1; /* ember_linecache_add follows, hash known */
		return 0;
	}
	if (c->prev)
		rec(c, c->prev)->next = ref;
	c->prev = ref;
	hit->ids = lc_rec_ids(r);
	hit->nids = r->nids;
	hit->flags = r->flags;
	return 1;
}

void ember_linecache_add(struct ember_linecache *c, const char *k, size_t kn,
			 int flags, const uint32_t *ids, size_t nids)
{
	uint64_t h = c->pending ? c->hash : key_hash(k, kn, flags & LC_JAVA);
	size_t size = (sizeof(struct lc_rec) + nids * 4 + kn + 7) & ~(size_t)7;

	c->pending = 0;
	if (nids > UINT16_MAX || kn > LC_MAX_BYTES / 16)
		return;
	if (c->len + size > LC_MAX_BYTES)
		clear(c);
	if ((c->n + 1) * 2 > c->mask)
		grow(c);
	if (c->len + size > c->alloc) {
		size_t a = c->alloc ? c->alloc : 4096;
		while (a < c->len + size)
			a *= 2;
		c->mem = ember_xrealloc(c->mem, a);
		c->alloc = a;
	}
	struct lc_rec *r = (struct lc_rec *)(c->mem + c->len);
	uint32_t ref = (uint32_t)(c->len / 8 + 1);
	r->next = 0;
	r->klen = (uint32_t)kn;
	r->hash = (uint32_t)(h >> 32);
	r->nids = (uint16_t)nids;
	r->flags = (uint8_t)flags;
	r->pad = 0;
	if (nids)
		memcpy((char *)(r + 1), ids, nids * 4);
	memcpy((char *)(r + 1) + nids * 4, k, kn);
	c->len += size;
	size_t i = h & c->mask;
	while (c->slots[i])
		i = (i + 1) & c->mask;
	c->slots[i] = (uint64_t)r->hash << 32 | ref;
	c->n++;
	if (c->prev)
		rec(c, c->prev)->next = ref;
	c->prev = ref;
}
