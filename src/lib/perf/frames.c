/*
 * Unique frames: (kind, obj, addr[, stamp]) -> a dense id, in an array of
 * frames in order of first appearance and an open-addressing hash over it
 * (id + 1, 0 for empty, load at most 1/2); both in huge pages once large
 * (a system-wide recording has a hundred thousand frames).
 */
#include <stdlib.h>
#include <string.h>

#include "perf/frames.h"
#include "hugemem.h"

void rec_frames_init(struct rec_frames *f)
{
	memset(f, 0, sizeof(*f));
	f->mask = 1023;
	f->slots = ember_huge_alloc((f->mask + 1) * sizeof(*f->slots));
}

void rec_frames_release(struct rec_frames *f)
{
	ember_huge_free(f->v, f->alloc * sizeof(*f->v));
	ember_huge_free(f->slots, (f->mask + 1) * sizeof(*f->slots));
	memset(f, 0, sizeof(*f));
}

static size_t frame_hash(uint32_t kind, uint32_t obj, uint64_t addr,
			 uint64_t stamp)
{
	uint64_t h = (addr ^ ((uint64_t)obj << 32 | kind) ^
		      (stamp * 0xff51afd7ed558ccdull)) *
		     0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29));
}

uint32_t rec_frames_id_at(struct rec_frames *f, uint32_t kind, uint32_t obj,
			  uint64_t addr, uint64_t stamp, uint64_t seen)
{
	size_t i = frame_hash(kind, obj, addr, stamp) & f->mask;

	for (; f->slots[i]; i = (i + 1) & f->mask) {
		const struct rec_frame *e = &f->v[f->slots[i] - 1];
		if (e->addr == addr && e->obj == obj && e->kind == kind &&
		    e->stamp == stamp)
			return f->slots[i] - 1;
	}
	if (f->n + 1 > f->alloc) {
		size_t a = f->alloc / 2 * 3 + 16;
		if (a > SIZE_MAX / sizeof(*f->v))
			a = 0; /* the handler's, out of memory */
		f->v = a ? ember_huge_grow(f->v, f->alloc * sizeof(*f->v),
					   a * sizeof(*f->v))
			 : ember_xreallocarray(NULL, SIZE_MAX, 2);
		f->alloc = a;
	}
	f->v[f->n].addr = addr;
	f->v[f->n].stamp = stamp;
	f->v[f->n].seen = seen;
	f->v[f->n].obj = obj;
	f->v[f->n].kind = (uint16_t)kind;
	f->v[f->n].call = 0;
	f->slots[i] = (uint32_t)++f->n;
	if (f->n * 2 > f->mask) {
		ember_huge_free(f->slots, (f->mask + 1) * sizeof(*f->slots));
		f->mask = f->mask * 2 + 1;
		f->slots = ember_huge_alloc((f->mask + 1) * sizeof(*f->slots));
		for (size_t k = 0; k < f->n; k++) {
			const struct rec_frame *e = &f->v[k];
			size_t j =
			    frame_hash(e->kind, e->obj, e->addr, e->stamp) &
			    f->mask;
			while (f->slots[j])
				j = (j + 1) & f->mask;
			f->slots[j] = (uint32_t)k + 1;
		}
	}
	return (uint32_t)f->n - 1;
}

uint32_t rec_frames_id(struct rec_frames *f, uint32_t kind, uint32_t obj,
		       uint64_t addr)
{
	return rec_frames_id_at(f, kind, obj, addr, 0, 0);
}
