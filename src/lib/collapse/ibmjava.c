/*
 * IBM/OpenJ9 javacore thread dumps, as stackcollapse-ibmjava.pl reads
 * them: a '3XMTHREADINFO      "name" ... state:S, ...' line names the
 * thread, "4XESTACKTRACE                at pkg/Class.method(...)" lines are
 * its frames, leaf first, and its "3XMTHREADINFO3           Native
 * callstack:" line ends the stack, which counts once (in every state:
 * the script keeps the state but filters nothing on it).
 */
#include <stdlib.h>

#include "layout.h"

#define THREAD "3XMTHREADINFO      \""
#define ANON   "3XMTHREADINFO      Anonymous native thread"
#define NATIVE "3XMTHREADINFO1            (native thread ID:"
#define FRAME  "4XESTACKTRACE                at "
#define END    "3XMTHREADINFO3           Native callstack:"
/* cl_starts for a literal, whose length is known when compiled (every
 * line is tried against several) */
#define STARTS(s, n, lit)                                                      \
	((n) >= sizeof(lit) - 1 && !memcmp((s), (lit), sizeof(lit) - 1))

/* /^3XMTHREADINFO      "([^"]*).* state:(.*), /: the name's length, or
 * -1.  The name is the longest that leaves a " state:" followed by ", "
 * after it. */
static long thread_name(const char *s, size_t n)
{
	size_t a = sizeof(THREAD) - 1, q = a;
	const char *last = NULL;

	if (!STARTS(s, n, THREAD))
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
	struct cl_thread *t = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		long tn;
		t->k->n.lines++;
		if (n && s[0] == '#')
			continue;
		if (STARTS(s, n, END)) {
			cl_thread_end(t, 1);
		} else if ((tn = thread_name(s, n)) >= 0) {
			/* a thread without its "Native callstack:" line ends
			 * at the next (the script runs its frames into the
			 * next thread's) */
			if (t->v.n)
				cl_thread_end(t, 1);
			if (!t->o->java_no_tname)
				cl_thread_name(t, s + sizeof(THREAD) - 1,
					       (size_t)tn);
		} else if (memmem(s, n, ANON, sizeof(ANON) - 1)) {
			if (t->v.n)
				cl_thread_end(t, 1);
			cl_thread_name(t, "Anonymous native thread", 23);
		} else if (STARTS(s, n, NATIVE)) {
			/* ID:([^ ]*), native priority */
			size_t a = sizeof(NATIVE) - 1, e = a;
			while (e < n && s[e] != ' ')
				e++;
			if (e > a && s[e - 1] == ',' &&
			    cl_starts(s + e, n - e, " native priority") &&
			    !t->o->java_no_tname && t->o->java_tid) {
				if (!t->has_name) /* undef . "-" . ID */
					ember_buf_reset(&t->name);
				ember_buf_addch(&t->name, '-');
				ember_buf_add(&t->name, s + a, e - 1 - a);
				t->has_name = 1;
			}
		} else if (STARTS(s, n, FRAME)) {
			const char *f = s + sizeof(FRAME) - 1;
			const char *par = memchr(f, '(', (size_t)(s + n - f));
			size_t fn =
			    par ? (size_t)(par - f) : (size_t)(s + n - f);
			cl_thread_frame(t, &f, &fn);
		}
	}
}

/* A thread without its "Native callstack:" line is not counted, as in
 * the script. */
static void ibm_end(void *arg)
{
	cl_thread_end(arg, 0);
}

static void *ibm_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct cl_thread *t = ember_xmalloc(sizeof(*t));

	cl_thread_init(t, o, k);
	return t;
}

static void ibm_free(void *arg)
{
	struct cl_thread *t = arg;

	if (!t)
		return;
	cl_thread_release(t);
	free(t);
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
