/*
 * Helpers of the sample-level profile's writers: JSON strings, samples
 * grouped by thread (a counting sort: stable, so each group keeps the
 * profile's time order), the time type, thread roots.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"

void ember_json_str(struct ember_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	ember_buf_addch(b, '"');
	while (p < end) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			ember_buf_addch(b, '\\');
			ember_buf_addch(b, (char)c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			ember_buf_addf(b, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			ember_buf_addch(b, (char)c);
			p++;
		} else {
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
			int ok =
			    c >= 0xc2 && c <= 0xf4 && (size_t)(end - p) >= len;
			for (size_t i = 1; ok && i < len; i++)
				ok = (p[i] & 0xc0) == 0x80;
			/* overlong, surrogates, beyond U+10FFFF */
			if (ok && len == 3)
				ok = !(c == 0xe0 && p[1] < 0xa0) &&
				     !(c == 0xed && p[1] >= 0xa0);
			if (ok && len == 4)
				ok = !(c == 0xf0 && p[1] < 0x90) &&
				     !(c == 0xf4 && p[1] >= 0x90);
			if (ok) {
				ember_buf_add(b, p, len);
				p += len;
			} else {
				ember_buf_adds(b, "\\ufffd");
				p++;
			}
		}
	}
	ember_buf_addch(b, '"');
}

void ember_exp_groups_init(struct ember_exp_groups *g,
			   const struct ember_prof *p)
{
	size_t nt = p->nthreads, none = nt; /* the group of no thread */
	size_t *count = ember_xcalloc(nt + 2, sizeof(*count));

	for (size_t i = 0; i < p->n; i++)
		count[p->thread[i] < nt ? p->thread[i] : none]++;
	g->n = 0;
	g->thread = ember_xreallocarray(NULL, nt + 1, sizeof(*g->thread));
	g->off = ember_xreallocarray(NULL, nt + 2, sizeof(*g->off));
	/* start[t]: where thread t's samples go */
	size_t *start = ember_xreallocarray(NULL, nt + 1, sizeof(*start));
	size_t at = 0;
	for (size_t t = 0; t <= nt; t++) {
		start[t] = at;
		if (!count[t])
			continue;
		g->thread[g->n] = t == none ? EMBER_PROF_NONE : (uint32_t)t;
		g->off[g->n++] = at;
		at += count[t];
	}
	g->off[g->n] = at;
	g->idx = ember_xreallocarray(NULL, p->n ? p->n : 1, sizeof(*g->idx));
	for (size_t i = 0; i < p->n; i++) {
		size_t t = p->thread[i] < nt ? p->thread[i] : none;
		g->idx[start[t]++] = (uint32_t)i;
	}
	free(start);
	free(count);
}

void ember_exp_groups_release(struct ember_exp_groups *g)
{
	free(g->thread);
	free(g->off);
	free(g->idx);
	memset(g, 0, sizeof(*g));
}

size_t ember_exp_time_type(const struct ember_prof *p, uint64_t *ns)
{
	size_t t = p->ntypes;

	*ns = 0;
	while (t--) {
		size_t len;
		const char *u = ember_prof_s(p, p->types[t].unit, &len);
		if (!strcmp(u, "nanoseconds")) {
			*ns = 1;
			return t;
		}
		if (!strcmp(u, "microseconds")) {
			*ns = 1000;
			return t;
		}
	}
	return SIZE_MAX;
}

int ember_exp_skip_root(const struct ember_prof *p, uint32_t s, uint32_t thread)
{
	if (!(p->flags & EMBER_PROF_THREAD_ROOTS) || thread == EMBER_PROF_NONE)
		return 0;
	while (p->stacks[s].parent != EMBER_PROF_NONE)
		s = p->stacks[s].parent;
	return p->frames[p->stacks[s].frame].kind == EMBER_PROF_SYNTHETIC;
}

size_t ember_exp_frames(const struct ember_prof *p, uint32_t s, uint32_t thread,
			uint32_t **out, size_t *max)
{
	size_t n = ember_prof_stack_frames(p, s, *out, *max);

	if (n > *max) {
		*max = n * 2;
		*out = ember_xreallocarray(*out, *max, sizeof(**out));
		ember_prof_stack_frames(p, s, *out, *max);
	}
	if (n && ember_exp_skip_root(p, s, thread))
		n--;
	/* leaf first to root first */
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		uint32_t x = (*out)[i];
		(*out)[i] = (*out)[j];
		(*out)[j] = x;
	}
	return n;
}

void ember_exp_ids_init(struct ember_exp_ids *x, const struct ember_prof *p)
{
	int64_t base = 0, next;
	size_t n = p->nthreads;

	x->pid = ember_xreallocarray(NULL, n ? n : 1, sizeof(*x->pid));
	x->tid = ember_xreallocarray(NULL, n ? n : 1, sizeof(*x->tid));
	for (size_t i = 0; i < n; i++) {
		const struct ember_prof_thread *t = &p->threads[i];
		if (t->pid > base)
			base = t->pid;
		if (t->tid > base)
			base = t->tid;
	}
	base = base < INT32_MAX ? base + 1 : INT32_MAX;
	next = base + 1;
	for (size_t i = 0; i < n; i++) {
		const struct ember_prof_thread *t = &p->threads[i];
		x->pid[i] = t->pid >= 0 ? t->pid : (int)base;
		x->tid[i] = t->tid >= 0		? t->tid
			    : next <= INT32_MAX ? (int)next++
						: (int)base;
	}
}

void ember_exp_ids_release(struct ember_exp_ids *x)
{
	free(x->pid);
	free(x->tid);
	x->pid = x->tid = NULL;
}

void ember_exp_thread_title(struct ember_buf *b, const struct ember_prof *p,
			    uint32_t thread)
{
	const struct ember_prof_thread *t = &p->threads[thread];
	size_t len;
	const char *name = ember_prof_s(p, t->name, &len);

	if (!len)
		name = ember_prof_s(p, p->procs[t->process].name, &len);
	/* a tid below 0: none known (a thread of a format that names its
	 * threads only) */
	if (len && t->tid < 0)
		ember_buf_add(b, name, len);
	else if (len)
		ember_buf_addf(b, "%.*s (tid %d)", (int)len, name, t->tid);
	else
		ember_buf_addf(b, "tid %d", t->tid);
}

const struct ember_prof *ember_exp_profile(const struct ember_profile *p,
					   struct ember_prof *tmp)
{
	ember_prof_init(tmp);
	if (p->prof)
		return p->prof;
	ember_prof_from_stacks(tmp, p->names, p->stacks, p->exact, p->nexact,
			       p->sample_type, p->sample_unit);
	return tmp;
}
