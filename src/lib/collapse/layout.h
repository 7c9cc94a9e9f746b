/*
 * What formats laid out alike share (layout.c): inputs that open with a
 * header row (instruments, vtune, vtune-mc, vsprof), VTune's CSV call
 * trees, and the threads of Java thread dumps (jstack, ibmjava).  What
 * runs on every line is inline, so that a format's loop costs no more
 * than a loop of its own.
 */
#ifndef EMBER_COLLAPSE_LAYOUT_H
#define EMBER_COLLAPSE_LAYOUT_H

#include "collapse.h"

/*
 * The formats whose every input opens with a header row (instruments,
 * vtune, vtune-mc, vsprof): their state starts with a struct cl_header,
 * their `begin` is cl_header_begin and their `parse` hands its lines to
 * cl_header_parse with the function that reads one row.  Every line is
 * counted; the first line of each input is the header, skipped, and so
 * are the lines before it that start with `pre` (vtune-mc's "war:"
 * warnings; NULL: none).
 */
struct cl_header {
	struct collapse_sink *k;
	const char *pre;
	int pending; /* this input's header is still to come */
};
void cl_header_init(struct cl_header *h, struct collapse_sink *k,
		    const char *pre);
void cl_header_begin(void *st, const struct collapse_shared *sh,
		     int file_start);
/* `row` is called directly once this is inlined. */
static inline void cl_header_parse(void *st, const char *p, size_t len,
				   void (*row)(void *st, const char *s,
					       size_t n))
{
	struct cl_header *h = st;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		h->k->n.lines++;
		if (h->pending) {
			if (!h->pre || !cl_starts(s, n, h->pre))
				h->pending = 0;
			continue;
		}
		row(st, s, n);
	}
}

/*
 * The two VTune CSV formats (vtune, vtune-mc): rows of a call tree, with
 * their quotes dropped, whose leading blanks are the depth; a row with a
 * weight prints at once, its callers (cl_depth) first.
 */
struct cl_vtune {
	struct cl_header h; /* first: the state is a cl_header's */
	struct cl_depth d;
	struct ember_buf line, func; /* the row unquoted; its frame */
	int size;		     /* vtune-mc --size */
	/* vtune as inferno-collapse-vtune (vtune.c) */
	int inferno, modules, started;
	struct cl_istack stack;
	struct cl_occ occ;
};
void *cl_vtune_new(const struct ember_collapse_options *o,
		   struct collapse_sink *k, const char *pre);
void cl_vtune_free(void *st);
/* s/\"//g: *s, *n become the row without its quotes. */
static inline void cl_vtune_unquote(struct cl_vtune *v, const char **s,
				    size_t *n)
{
	ember_buf_reset(&v->line);
	for (size_t i = 0; i < *n; i++)
		if ((*s)[i] != '"')
			ember_buf_addch(&v->line, (*s)[i]);
	*s = v->line.buf;
	*n = v->line.len;
}
/* A row of weight w (digits, or a number as Perl prints it when w is
 * NULL) at depth: its callers, its frame (func) and the weight printed. */
static inline void cl_vtune_print(struct cl_vtune *v, size_t depth,
				  const char *w, size_t wn, double nv)
{
	struct ember_buf *o = &v->h.k->out;

	cl_depth_callers(&v->d, depth, o);
	ember_buf_add(o, v->func.buf, v->func.len);
	ember_buf_addch(o, ' ');
	if (w)
		ember_buf_add(o, w, wn);
	else
		ember_buf_add_nv(o, nv);
	ember_buf_addch(o, '\n');
	v->h.k->n.records++;
}

/*
 * A thread of a Java thread dump being read (jstack, ibmjava): its
 * frames, leaf first, and its name, which becomes the root frame when
 * the thread's stack is counted.
 */
struct cl_thread {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	struct cl_frames v; /* leaf first */
	struct ember_buf name, tmp;
	int has_name;
};
void cl_thread_init(struct cl_thread *t, const struct ember_collapse_options *o,
		    struct collapse_sink *k);
void cl_thread_release(struct cl_thread *t);
/* The thread's name becomes s. */
static inline void cl_thread_name(struct cl_thread *t, const char *s, size_t n)
{
	ember_buf_reset(&t->name);
	ember_buf_add(&t->name, s, n);
	t->has_name = 1;
}
/* A frame "pkg.Class.method", cut by --shorten-pkgs, goes on the stack;
 * *f and *fn become the name pushed. */
static inline void cl_thread_frame(struct cl_thread *t, const char **f,
				   size_t *fn)
{
	if (t->o->java_shorten_pkgs) {
		cl_java_shorten(*f, *fn, 0, &t->tmp);
		*f = t->tmp.buf;
		*fn = t->tmp.len;
	}
	cl_frames_push_rev(t->k, &t->v, *f, *fn);
}
/* The thread ends: if count, its stack (under its name, if any) counts
 * once; then the next thread starts empty. */
static inline void cl_thread_end(struct cl_thread *t, int count)
{
	if (count && t->has_name)
		cl_frames_push_rev(t->k, &t->v, t->name.buf, t->name.len);
	if (count && t->v.n) {
		cl_frames_reverse(&t->v);
		cl_add_u64(t->k, t->v.f, t->v.n, 1);
	}
	t->v.n = 0;
	t->has_name = 0;
}

#endif
