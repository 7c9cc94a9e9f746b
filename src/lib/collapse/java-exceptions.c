/*
 * Java stack traces in logs (printStackTrace(), java.util.logging), as
 * stackcollapse-java-exceptions.pl reads them: "at pkg.Class.method(...)"
 * frames, leaf first; the first other line after them (but a "waiting
 * on" one) ends the stack, which counts once.  "Caused by:" chains are
 * stacks of their own.
 */
#include <stdlib.h>

#include "collapse.h"

struct javaex_state {
	struct collapse_sink *k;
	int shorten, no_pkgs;
	struct cl_frames v; /* leaf first */
	struct ember_buf tmp;
};

static void flush(struct javaex_state *st)
{
	if (!st->v.n)
		return;
	cl_frames_reverse(&st->v);
	cl_add_u64(st->k, st->v.f, st->v.n, 1);
	st->v.n = 0;
}

static void javaex_parse(void *arg, const char *p, size_t len)
{
	struct javaex_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s, *f;
		size_t n = cl_line(&p, end, &s), fn;
		st->k->n.lines++;
		if (cl_java_at(s, n, &f, &fn)) {
			if (st->shorten || st->no_pkgs) {
				cl_java_shorten(f, fn, st->no_pkgs, &st->tmp);
				f = st->tmp.buf;
				fn = st->tmp.len;
			}
			cl_frames_push_rev(st->k, &st->v, f, fn);
		} else if (st->v.n && !memmem(s, n, "waiting on ", 11)) {
			flush(st);
		}
	}
}

static void javaex_end(void *arg)
{
	flush(arg);
}

static void *javaex_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct javaex_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->shorten = o->java_shorten_pkgs;
	st->no_pkgs = o->java_no_pkgs;
	ember_buf_init(&st->tmp, 0);
	return st;
}

static void javaex_free(void *arg)
{
	struct javaex_state *st = arg;

	if (!st)
		return;
	free(st->v.f);
	ember_buf_release(&st->tmp);
	free(st);
}

/* An exception's "pkg.SomeException: message" or "Exception in thread"
 * line followed by an "at ...(" frame. */
static int javaex_detect(const char *p, size_t len)
{
	const char *end = p + len;
	int exc = 0;

	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *s, *f;
		size_t n = cl_line(&p, end, &s), fn;
		if (exc && cl_java_at(s, n, &f, &fn) && fn < n &&
		    memchr(f, '.', fn) && f[fn] == '(')
			return 1;
		exc = cl_starts(s, n, "Exception in thread ") ||
		      cl_starts(s, n, "Caused by: ") ||
		      ((memmem(s, n, "Exception", 9) ||
			memmem(s, n, "Error", 5)) &&
		       n && !cl_space(s[0]) && memchr(s, '.', n));
	}
	return 0;
}

const struct ember_collapser ember_collapser_java_exceptions = {
    .name = "java-exceptions",
    .summary = "Java exception stack traces in logs "
	       "(stackcollapse-java-exceptions.pl)",
    .detect = javaex_detect,
    .state_new = javaex_new,
    .state_free = javaex_free,
    .parse = javaex_parse,
    .end = javaex_end,
};
