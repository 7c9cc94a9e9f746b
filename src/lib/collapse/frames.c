/*
 * Helpers of the collapsers that build each stack as the scripts build a
 * string of names joined by ';', and of the Java stack formats.
 */
#include <stdlib.h>

#include "collapse.h"

static void push(struct collapse_sink *k, struct cl_frames *v, const char *s,
		 size_t n)
{
	EMBER_GROW(v->f, v->n + 1, v->alloc);
	v->f[v->n++] = ember_intern(&k->names, s, n);
}

void cl_frames_push(struct collapse_sink *k, struct cl_frames *v, const char *s,
		    size_t n)
{
	const char *end = s + n;

	for (;;) {
		const char *sc = memchr(s, ';', (size_t)(end - s));
		if (!sc) {
			push(k, v, s, (size_t)(end - s));
			return;
		}
		push(k, v, s, (size_t)(sc - s));
		s = sc + 1;
	}
}

void cl_frames_push_rev(struct collapse_sink *k, struct cl_frames *v,
			const char *s, size_t n)
{
	const char *e = s + n;

	for (;;) {
		const char *sc = memrchr(s, ';', (size_t)(e - s));
		const char *a = sc ? sc + 1 : s;
		push(k, v, a, (size_t)(e - a));
		if (!sc)
			return;
		e = sc;
	}
}

void cl_frames_reverse(struct cl_frames *v)
{
	for (size_t i = 0, j = v->n ? v->n - 1 : 0; i < j; i++, j--) {
		uint32_t t = v->f[i];
		v->f[i] = v->f[j];
		v->f[j] = t;
	}
}

void cl_revjoin_init(struct cl_revjoin *r)
{
	ember_buf_init(&r->text, 0);
	r->end = NULL;
	r->n = r->alloc = 0;
}

void cl_revjoin_release(struct cl_revjoin *r)
{
	ember_buf_release(&r->text);
	free(r->end);
	r->end = NULL;
	r->n = r->alloc = 0;
}

void cl_revjoin_prepend(struct cl_revjoin *r, const char *s, size_t n)
{
	ember_buf_add(&r->text, s, n);
	EMBER_GROW(r->end, r->n + 1, r->alloc);
	r->end[r->n++] = r->text.len;
}

void cl_revjoin_set(struct cl_revjoin *r, const char *s, size_t n)
{
	ember_buf_reset(&r->text);
	r->n = 0;
	cl_revjoin_prepend(r, s, n);
}

size_t cl_revjoin_len(const struct cl_revjoin *r)
{
	return r->n ? r->text.len + r->n - 1 : 0;
}

void cl_revjoin_write(const struct cl_revjoin *r, struct ember_buf *out)
{
	for (size_t i = r->n; i-- > 0;) {
		size_t a = i ? r->end[i - 1] : 0;
		ember_buf_add(out, r->text.buf + a, r->end[i] - a);
		if (i)
			ember_buf_addch(out, ';');
	}
}

void cl_add_u64(struct collapse_sink *k, const uint32_t *ids, size_t n,
		uint64_t v)
{
	cl_count(k, ember_stacks_add(&k->stacks, ids, n, 0, 0), (double)v, v,
		 v != CL_INEXACT);
	k->n.records++;
}

int cl_java_at(const char *s, size_t n, const char **f, size_t *fn)
{
	size_t i = 0;

	while (i < n && cl_space(s[i]))
		i++;
	if (i + 3 > n || s[i] != 'a' || s[i + 1] != 't' || s[i + 2] != ' ')
		return 0;
	i += 3;
	const char *p = memchr(s + i, '(', n - i);
	*f = s + i;
	*fn = p ? (size_t)(p - (s + i)) : n - i;
	return 1;
}

void cl_java_shorten(const char *s, size_t n, int no_pkgs,
		     struct ember_buf *out)
{
	/* m/(.*\.)([^.]+\.[^.]+)$/: the last two dot-separated parts, both
	 * not empty, after a dot */
	const char *d2 = memrchr(s, '.', n);
	const char *d1 =
	    d2 && d2 > s ? memrchr(s, '.', (size_t)(d2 - s)) : NULL;

	ember_buf_reset(out);
	if (!d2 || d2 + 1 == s + n || !d1 || d1 + 1 == d2) {
		/* no package (the script makes the frame empty) */
		ember_buf_add(out, s, n);
		return;
	}
	if (!no_pkgs) {
		/* s/(\w)\w*\/$1/g on the packages */
		for (const char *p = s; p <= d1; p++) {
			if (cl_word((unsigned char)*p) && p > s &&
			    cl_word((unsigned char)p[-1]))
				continue;
			ember_buf_addch(out, *p);
		}
	}
	ember_buf_add(out, d1 + 1, (size_t)(s + n - d1 - 1));
}

void cl_depth_set(struct cl_depth *d, size_t depth, const char *s, size_t n)
{
	if (depth >= d->alloc) {
		size_t o = d->alloc;
		d->alloc = depth + 64;
		d->off = ember_xreallocarray(d->off, d->alloc, sizeof(*d->off));
		d->len = ember_xreallocarray(d->len, d->alloc, sizeof(*d->len));
		for (size_t k = o; k < d->alloc; k++)
			d->off[k] = d->len[k] = 0;
	}
	if (d->text.len > (64u << 10) + 4 * n) {
		/* the text only grows: keep what the levels still use */
		struct ember_buf t = EMBER_BUF_INIT;
		for (size_t k = 0; k < d->alloc; k++) {
			size_t at = t.len;
			ember_buf_add(&t, d->text.buf + d->off[k], d->len[k]);
			d->off[k] = at;
		}
		ember_buf_release(&d->text);
		d->text = t;
	}
	d->off[depth] = d->text.len;
	d->len[depth] = n;
	ember_buf_add(&d->text, s, n);
}

void cl_depth_callers(const struct cl_depth *d, size_t depth,
		      struct ember_buf *out)
{
	for (size_t k = 0; k < depth; k++) {
		if (k < d->alloc)
			ember_buf_add(out, d->text.buf + d->off[k], d->len[k]);
		ember_buf_addch(out, ';');
	}
}

void cl_depth_release(struct cl_depth *d)
{
	ember_buf_release(&d->text);
	free(d->off);
	free(d->len);
}
