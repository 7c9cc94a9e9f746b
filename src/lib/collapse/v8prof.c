/*
 * V8's CPU profile's nodes and samples, for the .cpuprofile and trace
 * event readers: names, lookup by id, parent links, stacks and the
 * samples' time order.
 */
#include <stdlib.h>

#include "v8prof.h"

void cl_v8_name(struct cl_v8node *n, struct collapse_sink *k,
		struct ember_intern *urls, struct ember_buf *b, const char *fn,
		size_t fn_len, const char *url, size_t url_len, double line)
{
	int has_line = url_len && line >= 0 && line < 1e9;

	ember_buf_reset(b);
	if (fn_len)
		ember_buf_add(b, fn, fn_len);
	else
		ember_buf_adds(b, "(anonymous)");
	if (url_len) {
		ember_buf_addch(b, ' ');
		ember_buf_add(b, url, url_len);
		if (has_line)
			ember_buf_addf(b, ":%.0f", line + 1);
	}
	for (size_t i = 0; i < b->len; i++)
		if (b->buf[i] == ';')
			b->buf[i] = ':';
		else if (b->buf[i] == '\n' || b->buf[i] == '\r')
			b->buf[i] = ' ';
	n->name = ember_intern(&k->names, b->buf, b->len);
	n->url = ember_intern(urls, url, url_len);
	n->line = has_line ? (uint32_t)line + 1 : 0;
}

static int by_id(const void *a, const void *b)
{
	double x = ((const struct cl_v8node *)a)->id,
	       y = ((const struct cl_v8node *)b)->id;
	return (x > y) - (x < y);
}

void cl_v8_sort(void *nodes, size_t n, size_t size)
{
	if (n)
		qsort(nodes, n, size, by_id);
}

ptrdiff_t cl_v8_find(const void *nodes, size_t n, size_t size, double id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cl_v8_at(nodes, size, mid)->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && cl_v8_at(nodes, size, lo)->id == id ? (ptrdiff_t)lo
							     : -1;
}

int cl_v8_link(void *nodes, size_t n, size_t size, const double *kids,
	       double *bad_parent, double *bad)
{
	for (size_t i = 0; i < n; i++) {
		const struct cl_v8node *d = cl_v8_at(nodes, size, i);
		for (size_t c = 0; c < d->nchild; c++) {
			double id = kids[d->child_off + c];
			ptrdiff_t k = cl_v8_find(nodes, n, size, id);
			if (k < 0) {
				*bad_parent = d->id;
				*bad = id;
				return -1;
			}
			cl_v8_at(nodes, size, (size_t)k)->parent =
			    (uint32_t)i + 1;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct cl_v8node *d = cl_v8_at(nodes, size, i);
		if (!d->has_parent_id || d->parent)
			continue;
		ptrdiff_t k = cl_v8_find(nodes, n, size, d->parent_id);
		if (k >= 0)
			d->parent = (uint32_t)k + 1;
	}
	return 0;
}

size_t cl_v8_names(const void *nodes, size_t n, size_t size, size_t i,
		   uint32_t **ids, size_t *aids)
{
	size_t depth = 0;

	for (uint32_t q = (uint32_t)i + 1; q;
	     q = cl_v8_at(nodes, size, q - 1)->parent) {
		if (depth > n)
			return SIZE_MAX;
		EMBER_GROW(*ids, depth + 1, *aids);
		(*ids)[depth++] = cl_v8_at(nodes, size, q - 1)->name;
	}
	depth--; /* the root */
	for (size_t a = 0, b = depth ? depth - 1 : 0; a < b; a++, b--) {
		uint32_t x = (*ids)[a];
		(*ids)[a] = (*ids)[b];
		(*ids)[b] = x;
	}
	return depth;
}

static uint32_t stack_of(struct ember_prof *p, const struct collapse_sink *k,
			 const struct ember_intern *urls, const void *nodes,
			 size_t n, size_t size, uint32_t *memo, size_t i,
			 size_t depth)
{
	const struct cl_v8node *d = cl_v8_at(nodes, size, i);

	if (memo[i])
		return memo[i] == UINT32_MAX ? EMBER_PROF_NONE : memo[i] - 1;
	memo[i] = UINT32_MAX; /* also where parents loop */
	if (!d->parent || depth > n)
		return EMBER_PROF_NONE;
	uint32_t parent = stack_of(p, k, urls, nodes, n, size, memo,
				   d->parent - 1, depth + 1);
	size_t len, ulen;
	const char *name = ember_intern_str(&k->names, d->name, &len);
	const char *url = ember_intern_str(urls, d->url, &ulen);
	struct ember_prof_func fn = {0};
	fn.name = fn.system_name = ember_prof_str(p, name, len);
	fn.file = ember_prof_str(p, url, ulen);
	struct ember_prof_frame fr = {0};
	fr.mapping = EMBER_PROF_NONE;
	fr.func = ember_prof_func(p, &fn);
	fr.line = d->line;
	fr.kind = EMBER_PROF_INTERP;
	if (d->line)
		p->flags |= EMBER_PROF_HAS_LINES;
	uint32_t st = ember_prof_stack(p, parent, ember_prof_frame(p, &fr));
	memo[i] = st + 1;
	return st;
}

uint32_t cl_v8_stack(struct ember_prof *p, const struct collapse_sink *k,
		     const struct ember_intern *urls, const void *nodes,
		     size_t n, size_t size, uint32_t *memo, size_t i)
{
	return stack_of(p, k, urls, nodes, n, size, memo, i, 0);
}

static int by_stamp(const void *a, const void *b)
{
	const struct cl_v8stamp *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

struct cl_v8stamp *cl_v8_stamps(double start, const double *deltas, size_t n,
				double *times)
{
	struct cl_v8stamp *st =
	    ember_xreallocarray(NULL, n ? n : 1, sizeof(*st));
	double t = start;

	for (size_t i = 0; i < n; i++) {
		t += deltas[i];
		st[i] = (struct cl_v8stamp){t, i};
		if (times)
			times[i] = t;
	}
	qsort(st, n, sizeof(*st), by_stamp);
	return st;
}
