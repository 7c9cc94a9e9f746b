/*
 * IBM/OpenJ9 javacore thread dumps, as stackcollapse-ibmjava.pl reads
 * them: a '3XMTHREADINFO      "name" ... state:S, ...' line names the
 * thread, "4XESTACKTRACE                at pkg/Class.method(...)" lines are
 * its frames, leaf first, and its "3XMTHREADINFO3           Native
 * callstack:" line ends the stack, which counts once (in every state:
 * the script keeps the state but filters nothing on it).
 */
#include <stdlib.h>

#include "collapse.h"

#define THREAD "3XMTHREADINFO      \""
#define ANON   "3XMTHREADINFO      Anonymous native thread"
#define NATIVE "3XMTHREADINFO1            (native thread ID:"
#define FRAME  "4XESTACKTRACE                at "
#define END    "3XMTHREADINFO3           Native callstack:"

struct ibm_state {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	struct cl_frames v; /* leaf first */
	struct ember_buf tname, tmp;
	int has_tname;
};

/* The thread's stack counts once, under its name. */
static void flush(struct ibm_state *st)
{
	if (st->has_tname)
		cl_frames_push_rev(st->k, &st->v, st->tname.buf, st->tname.len);
	if (st->v.n) {
		cl_frames_reverse(&st->v);
		cl_add_u64(st->k, st->v.f, st->v.n, 1);
	}
	st->v.n = 0;
	st->has_tname = 0;
}

/* /^3XMTHREADINFO      "([^"]*).* state:(.*), /: the name's length, or
 * -1.  The name is the longest that leaves a " state:" followed by ", "
 * after it. */
static long thread_name(const char *s, size_t n)
{
	size_t a = sizeof(THREAD) - 1, q = a;
	const char *last = NULL;

	if (!cl_starts(s, n, THREAD))
		return -1;
	while (q < n && s[q] != '"')
		q++;
	for (const char *p = s + a;
	     (p = memmem(p, (size_t)(s + n - p), " state:", 7)); p++)
		if (memmem(p + 7, (size_t)(s + n - p - 7), ", ", 2))
			last = p;
	if (!last)
		return -1;
	return (long)((size_t)(last - s) < q ? (size_t)(last - s) - a : q - a);
}

static void ibm_parse(void *arg, const char *p, size_t len)
{
	struct ibm_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		long tn;
		st->k->n.lines++;
		if (n && s[0] == '#')
			continue;
		if (cl_starts(s, n, END)) {
			flush(st);
		} else if ((tn = thread_name(s, n)) >= 0) {
			/* a thread without its "Native callstack:" line ends
			 * at the next (the script runs its frames into the
			 * next thread's) */
			if (st->v.n)
				flush(st);
			if (!st->o->java_no_tname) {
				ember_buf_reset(&st->tname);
				ember_buf_add(&st->tname,
					      s + sizeof(THREAD) - 1,
					      (size_t)tn);
				st->has_tname = 1;
			}
		} else if (memmem(s, n, ANON, sizeof(ANON) - 1)) {
			if (st->v.n)
				flush(st);
			ember_buf_reset(&st->tname);
			ember_buf_adds(&st->tname, "Anonymous native thread");
			st->has_tname = 1;
		} else if (cl_starts(s, n, NATIVE)) {
			/* ID:([^ ]*), native priority */
			size_t a = sizeof(NATIVE) - 1, e = a;
			while (e < n && s[e] != ' ')
				e++;
			if (e > a && s[e - 1] == ',' &&
			    cl_starts(s + e, n - e, " native priority") &&
			    !st->o->java_no_tname && st->o->java_tid) {
				if (!st->has_tname) /* undef . "-" . ID */
					ember_buf_reset(&st->tname);
				ember_buf_addch(&st->tname, '-');
				ember_buf_add(&st->tname, s + a, e - 1 - a);
				st->has_tname = 1;
			}
		} else if (cl_starts(s, n, FRAME)) {
			const char *f = s + sizeof(FRAME) - 1;
			const char *par = memchr(f, '(', (size_t)(s + n - f));
			size_t fn =
			    par ? (size_t)(par - f) : (size_t)(s + n - f);
			if (st->o->java_shorten_pkgs) {
				cl_java_shorten(f, fn, 0, &st->tmp);
				f = st->tmp.buf;
				fn = st->tmp.len;
			}
			cl_frames_push_rev(st->k, &st->v, f, fn);
		}
	}
}

/* A thread without its "Native callstack:" line is not counted, as in
 * the script. */
static void ibm_end(void *arg)
{
	struct ibm_state *st = arg;

	st->v.n = 0;
	st->has_tname = 0;
}

static void *ibm_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct ibm_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->o = o;
	ember_buf_init(&st->tname, 0);
	ember_buf_init(&st->tmp, 0);
	return st;
}

static void ibm_free(void *arg)
{
	struct ibm_state *st = arg;

	if (!st)
		return;
	free(st->v.f);
	ember_buf_release(&st->tname);
	ember_buf_release(&st->tmp);
	free(st);
}

/* A javacore starts with its "0SECTION       TITLE subcomponent dump
 * routine" header. */
static int ibm_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 20; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (cl_starts(s, n, "0SECTION       TITLE"))
			return 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_ibmjava = {
    .name = "ibmjava",
    .summary = "IBM/OpenJ9 javacore thread dumps "
	       "(stackcollapse-ibmjava.pl)",
    .detect = ibm_detect,
    .state_new = ibm_new,
    .state_free = ibm_free,
    .parse = ibm_parse,
    .end = ibm_end,
};
