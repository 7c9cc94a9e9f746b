/*
 * inferno's map of stacks to counts for the collapsers that set rather
 * than add (sample, vtune, vsprof): a stack met again keeps its last
 * count, and the map is written sorted by stack, "stack count" a line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "collapse.h"

struct occ_entry {
	size_t off, len, seq;
	uint64_t count;
};

void cl_occ_init(struct cl_occ *m)
{
	memset(m, 0, sizeof(*m));
	ember_buf_init(&m->text, 0);
}

void cl_occ_set(struct cl_occ *m, const char *s, size_t n, uint64_t count)
{
	EMBER_GROW(m->e, m->n + 1, m->alloc);
	m->e[m->n].off = m->text.len;
	m->e[m->n].len = n;
	m->e[m->n].seq = m->n;
	m->e[m->n].count = count;
	m->n++;
	ember_buf_add(&m->text, s, n);
}

/* by stack, then by when set */
static int occ_cmp(const void *a, const void *b, void *arg)
{
	const struct occ_entry *x = a, *y = b;
	const char *occ_text = arg;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(occ_text + x->off, occ_text + y->off, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void cl_occ_write(struct cl_occ *m, struct collapse_sink *k)
{
	struct ember_buf *o = &k->out;

	if (m->n)
		qsort_r(m->e, m->n, sizeof(*m->e), occ_cmp, m->text.buf);
	for (size_t i = 0; i < m->n; i++) {
		const struct occ_entry *e = &m->e[i];
		if (i + 1 < m->n && m->e[i + 1].len == e->len &&
		    !memcmp(m->text.buf + m->e[i + 1].off, m->text.buf + e->off,
			    e->len))
			continue; /* set again later */
		ember_buf_add(o, m->text.buf + e->off, e->len);
		ember_buf_addch(o, ' ');
		ember_buf_addu(o, e->count);
		ember_buf_addch(o, '\n');
		k->n.records++;
	}
	cl_occ_clear(m);
}

void cl_occ_clear(struct cl_occ *m)
{
	m->n = 0;
	ember_buf_reset(&m->text);
}

void cl_occ_release(struct cl_occ *m)
{
	free(m->e);
	ember_buf_release(&m->text);
	m->e = NULL;
	m->n = m->alloc = 0;
}

void cl_istack_init(struct cl_istack *s)
{
	memset(s, 0, sizeof(*s));
	ember_buf_init(&s->text, 0);
}

void cl_istack_push(struct cl_istack *s, const char *name, size_t n,
		    uint64_t count)
{
	if (s->n == s->alloc) {
		size_t a = s->alloc ? s->alloc * 2 : 16;
		s->ends = ember_xreallocarray(s->ends, a, sizeof(*s->ends));
		s->counts =
		    ember_xreallocarray(s->counts, a, sizeof(*s->counts));
		s->alloc = a;
	}
	if (s->n)
		ember_buf_addch(&s->text, ';');
	ember_buf_add(&s->text, name, n);
	s->ends[s->n] = s->text.len;
	s->counts[s->n++] = count;
}

void cl_istack_pop(struct cl_istack *s)
{
	if (!s->n)
		return;
	s->n--;
	/* the ';' before the name goes with it */
	ember_buf_setlen(&s->text, s->n ? s->ends[s->n - 1] : 0);
}

void cl_istack_release(struct cl_istack *s)
{
	ember_buf_release(&s->text);
	free(s->ends);
	free(s->counts);
	s->ends = NULL;
	s->counts = NULL;
	s->n = s->alloc = 0;
}

void cl_inferno_error(struct collapse_sink *k, const char *why, const char *s,
		      size_t n)
{
	if (k->n.error[0])
		return;
	if (n)
		snprintf(k->n.error, sizeof(k->n.error),
			 "%s at line %llu: %.*s", why,
			 (unsigned long long)k->n.lines, (int)(n > 80 ? 80 : n),
			 s);
	else
		snprintf(k->n.error, sizeof(k->n.error), "%s", why);
	cl_bad(k, s, n);
}
