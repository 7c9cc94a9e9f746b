/*
 * What formats laid out alike share: the parts of layout.h that run once
 * an input or a state, not on every line.
 */
#include <stdlib.h>

#include "layout.h"

void cl_header_init(struct cl_header *h, struct collapse_sink *k,
		    const char *pre)
{
	h->k = k;
	h->pre = pre;
	h->pending = 1;
}

void cl_header_begin(void *st, const struct collapse_shared *sh, int file_start)
{
	struct cl_header *h = st;

	(void)sh;
	if (file_start)
		h->pending = 1;
}

void *cl_vtune_new(const struct ember_collapse_options *o,
		   struct collapse_sink *k, const char *pre)
{
	struct cl_vtune *v = ember_xcalloc(1, sizeof(*v));

	cl_header_init(&v->h, k, pre);
	v->size = o->vtune_size;
	v->inferno = o->inferno;
	v->modules = !o->sample_no_modules;
	cl_istack_init(&v->stack);
	cl_occ_init(&v->occ);
	ember_buf_init(&v->line, 0);
	ember_buf_init(&v->func, 0);
	return v;
}

void cl_vtune_free(void *st)
{
	struct cl_vtune *v = st;

	if (!v)
		return;
	cl_depth_release(&v->d);
	ember_buf_release(&v->line);
	ember_buf_release(&v->func);
	cl_istack_release(&v->stack);
	cl_occ_release(&v->occ);
	free(v);
}

void cl_thread_init(struct cl_thread *t, const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	memset(t, 0, sizeof(*t));
	t->k = k;
	t->o = o;
	ember_buf_init(&t->name, 0);
	ember_buf_init(&t->tmp, 0);
}

void cl_thread_release(struct cl_thread *t)
{
	free(t->v.f);
	ember_buf_release(&t->name);
	ember_buf_release(&t->tmp);
}
