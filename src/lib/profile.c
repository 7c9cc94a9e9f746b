/*
 * The sample-level profile: samples as columns over interned tables of
 * stacks, frames, functions, mappings, threads and processes.
 *
 * Invariants:
 *  - string 0 is ""; every string field is an id in strs;
 *  - stacks, frames, funcs, threads and procs hold each distinct entry
 *    once (their key bytes, found through a hash set of index + 1): the
 *    same (parent, frame) is the same stack, so stacks form a prefix
 *    tree whose parents precede their children (a parent exists before
 *    a child names it);
 *  - every sample has one entry in each sample column (time, stack,
 *    thread, cpu) and in each weight column, whatever the flags say:
 *    memory is about 22 bytes per sample (8 time, 4 stack, 4 thread, 2
 *    cpu, 4 per weight column while the weights are 32-bit integers),
 *    the rest follows the distinct stacks and frames;
 *  - a weight column is u32 until a value is not a 32-bit integer, then
 *    f64 for every value (exact up to 2^53);
 *  - types are added before samples, so that ncols never changes under
 *    existing samples;
 *  - after ember_prof_finish, samples with times are in time order
 *    (stable: samples at the same time keep their order).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "stacks.h"

/* ---- hash sets over table entries ------------------------------------ */

static void set_init(struct ember_prof_set *s)
{
	s->mask = 255;
	s->slots = ember_xcalloc(s->mask + 1, sizeof(*s->slots));
}

static void set_release(struct ember_prof_set *s)
{
	free(s->slots);
	s->slots = NULL;
}

/* The index of the entry of base (n entries of size bytes) whose first
 * klen bytes are key's, or with *slot where it goes. */
static uint32_t set_find(const struct ember_prof_set *s, const void *base,
			 size_t size, size_t klen, const void *key,
			 size_t *slot)
{
	size_t i = (size_t)ember_hash(key, klen) & s->mask;

	for (; s->slots[i]; i = (i + 1) & s->mask) {
		const char *e = (const char *)base + (s->slots[i] - 1) * size;
		if (!memcmp(e, key, klen))
			return s->slots[i] - 1;
	}
	*slot = i;
	return EMBER_PROF_NONE;
}

/* Entry id (the n-th, just appended) goes in at slot; rehashes at half
 * load. */
static void set_add(struct ember_prof_set *s, const void *base, size_t size,
		    size_t klen, size_t slot, uint32_t id)
{
	s->slots[slot] = id + 1;
	if ((size_t)id + 1 <= s->mask / 2)
		return;
	free(s->slots);
	s->mask = s->mask * 2 + 1;
	s->slots = ember_xcalloc(s->mask + 1, sizeof(*s->slots));
	for (size_t k = 0; k <= id; k++) {
		const void *e = (const char *)base + k * size;
		size_t i = (size_t)ember_hash(e, klen) & s->mask;
		while (s->slots[i])
			i = (i + 1) & s->mask;
		s->slots[i] = (uint32_t)k + 1;
	}
}

/* ---- life ------------------------------------------------------------- */

void ember_prof_init(struct ember_prof *p)
{
	memset(p, 0, sizeof(*p));
	ember_intern_init(&p->strs);
	ember_intern(&p->strs, "", 0);
	set_init(&p->stack_set);
	set_init(&p->frame_set);
	set_init(&p->func_set);
	set_init(&p->thread_set);
	set_init(&p->proc_set);
}

void ember_prof_release(struct ember_prof *p)
{
	ember_intern_release(&p->strs);
	free(p->time);
	free(p->stack);
	free(p->thread);
	free(p->cpu);
	for (size_t i = 0; i < p->ncols; i++) {
		free(p->cols[i].u32);
		free(p->cols[i].u64);
		free(p->cols[i].f64);
	}
	free(p->cols);
	free(p->types);
	free(p->stacks);
	free(p->frames);
	free(p->funcs);
	free(p->maps);
	free(p->threads);
	free(p->procs);
	set_release(&p->stack_set);
	set_release(&p->frame_set);
	set_release(&p->func_set);
	set_release(&p->thread_set);
	set_release(&p->proc_set);
	memset(p, 0, sizeof(*p));
}

struct ember_prof *ember_prof_new(void)
{
	struct ember_prof *p = ember_xmalloc(sizeof(*p));

	ember_prof_init(p);
	return p;
}

void ember_prof_free(struct ember_prof *p)
{
	if (!p)
		return;
	ember_prof_release(p);
	free(p);
}

uint32_t ember_prof_str(struct ember_prof *p, const char *s, size_t n)
{
	return ember_intern(&p->strs, s, n);
}

size_t ember_prof_add_type(struct ember_prof *p, const char *type,
			   const char *unit, int counted)
{
	struct ember_prof_type t = {ember_prof_strz(p, type),
				    ember_prof_strz(p, unit), EMBER_PROF_NONE};

	if (!counted) {
		p->cols = ember_xreallocarray(p->cols, p->ncols + 1,
					      sizeof(*p->cols));
		memset(&p->cols[p->ncols], 0, sizeof(*p->cols));
		/* room for the samples there may be already (none, as the
		 * invariant says; kept safe anyway) */
		if (p->alloc)
			p->cols[p->ncols].u32 =
			    ember_xcalloc(p->alloc, sizeof(uint32_t));
		t.column = (uint32_t)p->ncols++;
	}
	p->types =
	    ember_xreallocarray(p->types, p->ntypes + 1, sizeof(*p->types));
	p->types[p->ntypes] = t;
	return p->ntypes++;
}

/* ---- tables ----------------------------------------------------------- */

#define TABLE_ADD(p, set, v, n, a, key, klen)                                  \
	do {                                                                   \
		size_t slot_;                                                  \
		uint32_t id_ = set_find(&(p)->set, (p)->v, sizeof(*(p)->v),    \
					(klen), (key), &slot_);                \
		if (id_ != EMBER_PROF_NONE)                                    \
			return id_;                                            \
		EMBER_GROW((p)->v, (p)->n + 1, (p)->a);                        \
		memcpy(&(p)->v[(p)->n], (key), sizeof(*(p)->v));               \
		id_ = (uint32_t)(p)->n++;                                      \
		set_add(&(p)->set, (p)->v, sizeof(*(p)->v), (klen), slot_,     \
			id_);                                                  \
		return id_;                                                    \
	} while (0)

uint32_t ember_prof_func(struct ember_prof *p, const struct ember_prof_func *f)
{
	TABLE_ADD(p, func_set, funcs, nfuncs, afuncs, f, sizeof(*f));
}

uint32_t ember_prof_frame(struct ember_prof *p,
			  const struct ember_prof_frame *f)
{
	struct ember_prof_frame k = *f;

	k.call = k.call != 0;
	TABLE_ADD(p, frame_set, frames, nframes, aframes, &k, sizeof(k));
}

static size_t stack_hash(uint32_t parent, uint32_t frame)
{
	uint64_t h = ((uint64_t)parent << 32 | frame) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 29);
}

/* The hottest table (a node per frame of every distinct stack): its own
 * hash of the two ids, compared as integers. */
uint32_t ember_prof_stack(struct ember_prof *p, uint32_t parent, uint32_t frame)
{
	struct ember_prof_set *set = &p->stack_set;
	size_t i = stack_hash(parent, frame) & set->mask;

	for (; set->slots[i]; i = (i + 1) & set->mask) {
		const struct ember_prof_stack *e =
		    &p->stacks[set->slots[i] - 1];
		if (e->parent == parent && e->frame == frame)
			return set->slots[i] - 1;
	}
	EMBER_GROW(p->stacks, p->nstacks + 1, p->astacks);
	p->stacks[p->nstacks] = (struct ember_prof_stack){parent, frame};
	uint32_t id = (uint32_t)p->nstacks++;
	set->slots[i] = id + 1;
	if (p->nstacks <= set->mask / 2)
		return id;
	free(set->slots);
	set->mask = set->mask * 2 + 1;
	set->slots = ember_xcalloc(set->mask + 1, sizeof(*set->slots));
	for (size_t k = 0; k < p->nstacks; k++) {
		size_t j = stack_hash(p->stacks[k].parent, p->stacks[k].frame) &
			   set->mask;
		while (set->slots[j])
			j = (j + 1) & set->mask;
		set->slots[j] = (uint32_t)k + 1;
	}
	return id;
}

uint32_t ember_prof_mapping(struct ember_prof *p,
			    const struct ember_prof_mapping *m)
{
	EMBER_GROW(p->maps, p->nmaps + 1, p->amaps);
	p->maps[p->nmaps] = *m;
	return (uint32_t)p->nmaps++;
}

uint32_t ember_prof_process(struct ember_prof *p, int pid)
{
	struct ember_prof_process k = {pid, 0};

	TABLE_ADD(p, proc_set, procs, nprocs, aprocs, &k, sizeof(k.pid));
}

uint32_t ember_prof_thread(struct ember_prof *p, int pid, int tid)
{
	struct ember_prof_thread k = {tid, pid, 0, 0, UINT64_MAX, 0};

	k.process = ember_prof_process(p, pid);
	/* the key: (tid, pid) */
	TABLE_ADD(p, thread_set, threads, nthreads, athreads, &k,
		  2 * sizeof(int32_t));
}

/* ---- samples ---------------------------------------------------------- */

/* The columns with room for na samples. */
static void resize_samples(struct ember_prof *p, size_t na)
{
	p->time = ember_xreallocarray(p->time, na, sizeof(*p->time));
	p->stack = ember_xreallocarray(p->stack, na, sizeof(*p->stack));
	p->thread = ember_xreallocarray(p->thread, na, sizeof(*p->thread));
	p->cpu = ember_xreallocarray(p->cpu, na, sizeof(*p->cpu));
	for (size_t c = 0; c < p->ncols; c++) {
		struct ember_prof_col *col = &p->cols[c];
		if (col->f64)
			col->f64 = ember_xreallocarray(col->f64, na,
						       sizeof(*col->f64));
		else if (col->u64)
			col->u64 = ember_xreallocarray(col->u64, na,
						       sizeof(*col->u64));
		else
			col->u32 = ember_xreallocarray(col->u32, na,
						       sizeof(*col->u32));
	}
	p->alloc = na;
}

static void grow_samples(struct ember_prof *p, size_t n)
{
	size_t old = p->alloc;

	if (n <= old)
		return;
	size_t na = old ? old / 2 * 3 : 1024;
	while (na < n)
		na = na / 2 * 3;
	resize_samples(p, na);
}

void ember_prof_trim(struct ember_prof *p)
{
	/* at least 1024: grow_samples's growth by half from there on */
	if (p->n >= 1024 && p->alloc > p->n)
		resize_samples(p, p->n);
}

/* Column col holds 64-bit integers from now on. */
static void widen64(struct ember_prof *p, struct ember_prof_col *col)
{
	col->u64 = ember_xcalloc(p->alloc ? p->alloc : 1, sizeof(*col->u64));
	for (size_t i = 0; i < p->n; i++)
		col->u64[i] = col->u32[i];
	free(col->u32);
	col->u32 = NULL;
}

/* Column col holds doubles from now on. */
static void widen(struct ember_prof *p, struct ember_prof_col *col)
{
	col->f64 = ember_xcalloc(p->alloc ? p->alloc : 1, sizeof(*col->f64));
	for (size_t i = 0; i < p->n; i++)
		col->f64[i] = col->u64 ? (double)col->u64[i] : col->u32[i];
	free(col->u32);
	free(col->u64);
	col->u32 = NULL;
	col->u64 = NULL;
}

int ember_prof_value_u64(const struct ember_prof *p, size_t t, size_t i,
			 uint64_t *v)
{
	uint32_t c = p->types[t].column;

	if (c == EMBER_PROF_NONE) {
		*v = 1;
		return 0;
	}
	const struct ember_prof_col *col = &p->cols[c];
	if (col->u32) {
		*v = col->u32[i];
		return 0;
	}
	if (col->u64) {
		*v = col->u64[i];
		return 0;
	}
	double d = col->f64[i];
	if (!(d >= 0 && d < 18446744073709551616.0) || d != floor(d))
		return -1;
	*v = (uint64_t)d;
	return 0;
}

void ember_prof_set_u64(struct ember_prof *p, size_t c, size_t i, uint64_t v)
{
	struct ember_prof_col *col = &p->cols[c];

	if (col->u32 && v > UINT32_MAX)
		widen64(p, col);
	if (col->u32)
		col->u32[i] = (uint32_t)v;
	else if (col->u64)
		col->u64[i] = v;
	else
		col->f64[i] = (double)v;
}

size_t ember_prof_sample(struct ember_prof *p, uint64_t time, uint32_t thread,
			 int cpu, uint32_t stack, const double *values)
{
	size_t i = p->n;

	grow_samples(p, i + 1);
	p->time[i] = time;
	p->stack[i] = stack;
	p->thread[i] = thread;
	p->cpu[i] = cpu < 0 || cpu >= UINT16_MAX ? UINT16_MAX : (uint16_t)cpu;
	for (size_t c = 0; c < p->ncols; c++) {
		struct ember_prof_col *col = &p->cols[c];
		double v = values[c];
		if (!col->f64 &&
		    (v < 0 || v >= 18446744073709551616.0 || v != floor(v)))
			widen(p, col);
		else if (col->u32 && v > UINT32_MAX)
			widen64(p, col);
		if (col->f64)
			col->f64[i] = v;
		else if (col->u64)
			col->u64[i] = (uint64_t)v;
		else
			col->u32[i] = (uint32_t)v;
	}
	p->n++;
	return i;
}

void ember_prof_remap(struct ember_prof *p, const uint32_t *map, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		uint32_t s =
		    p->stack[i] < n ? map[p->stack[i]] : EMBER_PROF_NONE;
		if (s == EMBER_PROF_NONE)
			continue;
		p->time[k] = p->time[i];
		p->stack[k] = s;
		p->thread[k] = p->thread[i];
		p->cpu[k] = p->cpu[i];
		for (size_t c = 0; c < p->ncols; c++) {
			struct ember_prof_col *col = &p->cols[c];
			if (col->f64)
				col->f64[k] = col->f64[i];
			else if (col->u64)
				col->u64[k] = col->u64[i];
			else
				col->u32[k] = col->u32[i];
		}
		k++;
	}
	p->n = k;
}

static const uint64_t *sort_times;

static int cmp_time(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (sort_times[x] != sort_times[y])
		return sort_times[x] < sort_times[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Puts column v (n entries of size bytes) in the order of perm. */
static void permute(void *v, size_t size, const uint32_t *perm, size_t n)
{
	char *t = ember_xreallocarray(NULL, n ? n : 1, size);

	for (size_t i = 0; i < n; i++)
		memcpy(t + i * size, (char *)v + (size_t)perm[i] * size, size);
	memcpy(v, t, n * size);
	free(t);
}

static void sort_by_time(struct ember_prof *p)
{
	size_t i;

	for (i = 1; i < p->n && p->time[i - 1] <= p->time[i]; i++)
		;
	if (i >= p->n)
		return; /* already in order: the usual case */
	uint32_t *perm = ember_xreallocarray(NULL, p->n, sizeof(*perm));
	for (i = 0; i < p->n; i++)
		perm[i] = (uint32_t)i;
	sort_times = p->time; /* qsort has no context argument */
	qsort(perm, p->n, sizeof(*perm), cmp_time);
	permute(p->time, sizeof(*p->time), perm, p->n);
	permute(p->stack, sizeof(*p->stack), perm, p->n);
	permute(p->thread, sizeof(*p->thread), perm, p->n);
	permute(p->cpu, sizeof(*p->cpu), perm, p->n);
	for (size_t c = 0; c < p->ncols; c++) {
		struct ember_prof_col *col = &p->cols[c];
		if (col->f64)
			permute(col->f64, sizeof(double), perm, p->n);
		else if (col->u64)
			permute(col->u64, sizeof(uint64_t), perm, p->n);
		else
			permute(col->u32, sizeof(uint32_t), perm, p->n);
	}
	free(perm);
}

void ember_prof_finish(struct ember_prof *p)
{
	if (!(p->flags & EMBER_PROF_HAS_TIME) || !p->n)
		return;
	sort_by_time(p);
	for (size_t i = 0; i < p->n; i++) {
		if (p->thread[i] == EMBER_PROF_NONE)
			continue;
		struct ember_prof_thread *t = &p->threads[p->thread[i]];
		if (p->time[i] < t->first)
			t->first = p->time[i];
		if (p->time[i] > t->last)
			t->last = p->time[i];
	}
	if (!p->time_zero || p->time_zero > p->time[0])
		p->time_zero = p->time[0];
	uint64_t end = p->time[p->n - 1] +
		       (p->period > 0 && p->period_type.unit ==
					     ember_prof_strz(p, "nanoseconds")
			    ? (uint64_t)p->period
			    : 0);
	if (!p->duration_ns && end > p->time_zero)
		p->duration_ns = end - p->time_zero;
}

size_t ember_prof_stack_frames(const struct ember_prof *p, uint32_t s,
			       uint32_t *out, size_t max)
{
	size_t n = 0;

	for (; s != EMBER_PROF_NONE; s = p->stacks[s].parent, n++)
		if (n < max)
			out[n] = p->stacks[s].frame;
	return n;
}

void ember_prof_from_stacks(struct ember_prof *p,
			    const struct ember_intern *names,
			    const struct ember_stacks *stacks,
			    const uint64_t *exact, size_t nexact,
			    const char *type, const char *unit)
{
	size_t nn = ember_intern_count(names);
	uint32_t *frame = ember_xcalloc(nn ? nn : 1, sizeof(*frame));

	ember_prof_add_type(p, type ? type : "samples", unit ? unit : "count",
			    0);
	for (size_t i = 0; i < nn; i++) {
		size_t len;
		const char *s = ember_intern_str(names, (uint32_t)i, &len);
		uint32_t name = ember_prof_str(p, s, len);
		struct ember_prof_func fn = {name, name, 0, 0};
		struct ember_prof_frame fr = {0};
		fr.mapping = EMBER_PROF_NONE;
		fr.func = ember_prof_func(p, &fn);
		fr.kind = EMBER_PROF_USER;
		frame[i] = ember_prof_frame(p, &fr);
	}
	for (size_t e = 0; e < stacks->n; e++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(stacks, e, &n);
		uint32_t s = EMBER_PROF_NONE;
		for (size_t j = 0; j < n; j++)
			s = ember_prof_stack(p, s, frame[f[j]]);
		if (s == EMBER_PROF_NONE)
			continue; /* an empty stack: no frame to hold it */
		double v = stacks->ents[e].count;
		size_t i = ember_prof_sample(p, 0, EMBER_PROF_NONE, -1, s, &v);
		if (exact && e < nexact && exact[e] != UINT64_MAX)
			ember_prof_set_u64(p, 0, i, exact[e]);
	}
	free(frame);
}

size_t ember_prof_bytes(const struct ember_prof *p)
{
	size_t b = p->alloc * (sizeof(*p->time) + sizeof(*p->stack) +
			       sizeof(*p->thread) + sizeof(*p->cpu));

	for (size_t c = 0; c < p->ncols; c++)
		b += p->alloc * (p->cols[c].u32 ? 4 : 8);
	b += p->astacks * sizeof(*p->stacks) + p->aframes * sizeof(*p->frames) +
	     p->afuncs * sizeof(*p->funcs) + p->amaps * sizeof(*p->maps) +
	     p->athreads * sizeof(*p->threads) + p->aprocs * sizeof(*p->procs);
	b += (p->stack_set.mask + p->frame_set.mask + p->func_set.mask +
	      p->thread_set.mask + p->proc_set.mask + 5) *
	     sizeof(uint32_t);
	b += p->strs.arena.total + p->strs.alloc * sizeof(*p->strs.ents) +
	     (p->strs.mask + 1) * sizeof(uint32_t);
	return b;
}

size_t ember_prof_count(const struct ember_prof *p)
{
	return p ? p->n : 0;
}
