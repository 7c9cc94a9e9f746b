/*
 * gdb backtraces ("thread apply all bt", poor man's profiler), as
 * stackcollapse-gdb.pl reads them: "#N  0xADDR in func (args) at f:l" or
 * "#N  func (args) at f:l" frames, leaf first; a "Thread" line or any
 * other line ends a stack, which counts once.
 */
#include <stdlib.h>

#include "collapse.h"

struct gdb_state {
	struct collapse_sink *k;
	struct cl_frames v; /* leaf first */
};

/* The words from s: "W1 W2 W3 W4..." (each [^ ]*, one space between);
 * 1 and the first and third when there are three spaces. */
static int words(const char *s, const char *end, const char **w1, size_t *n1,
		 const char **w3, size_t *n3)
{
	const char *w[3], *p = s;
	size_t n[3];

	for (int i = 0; i < 3; i++) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));
		if (!sp)
			return 0;
		w[i] = p;
		n[i] = (size_t)(sp - p);
		p = sp + 1;
	}
	*w1 = w[0], *n1 = n[0], *w3 = w[2], *n3 = n[2];
	return 1;
}

/* m/^#[0-9]* *([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*)/, with Perl's backtracking:
 * fewer blanks (the first word empty), then fewer digits. */
static int frame(const char *s, size_t n, const char **f, size_t *fn)
{
	const char *end = s + n, *d0 = s + 1, *d = d0, *w1, *w3;
	size_t n1, n3;

	if (!n || s[0] != '#')
		return 0;
	while (d < end && cl_digit(*d))
		d++;
	for (; d >= d0; d--) {
		const char *sp = d;
		while (sp < end && *sp == ' ')
			sp++;
		for (; sp >= d; sp--) {
			if (!words(sp, end, &w1, &n1, &w3, &n3))
				continue;
			/* the third word, unless the first holds no "0x" */
			if (n1 >= 2 && memmem(w1, n1, "0x", 2))
				*f = w3, *fn = n3;
			else
				*f = w1, *fn = n1;
			return 1;
		}
	}
	return 0;
}

static void flush(struct gdb_state *st)
{
	if (!st->v.n)
		return;
	cl_frames_reverse(&st->v);
	cl_add_u64(st->k, st->v.f, st->v.n, 1);
	st->v.n = 0;
}

static void gdb_parse(void *arg, const char *p, size_t len)
{
	struct gdb_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s, *f;
		size_t n = cl_line(&p, end, &s), fn;
		st->k->n.lines++;
		if (cl_starts(s, n, "Thread")) {
			st->v.n = 0;
		} else if (frame(s, n, &f, &fn)) {
			/* "" + "" is still "": empty leaf frames vanish */
			if (st->v.n || fn)
				cl_frames_push_rev(st->k, &st->v, f, fn);
		} else {
			flush(st);
		}
	}
}

static void gdb_end(void *arg)
{
	flush(arg);
}

static void *gdb_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct gdb_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	return st;
}

static void gdb_free(void *arg)
{
	struct gdb_state *st = arg;

	if (st)
		free(st->v.f);
	free(st);
}

/* gdb's "Thread 2 (Thread 0x7f... (LWP 42)" or "Thread 2 (LWP 42)"
 * header among the first lines. */
static int gdb_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 7;
		if (!cl_starts(s, n, "Thread "))
			continue;
		while (i < n && cl_digit(s[i]))
			i++;
		if (i > 7 && cl_starts(s + i, n - i, " (") &&
		    (cl_starts(s + i, n - i, " (Thread 0x") ||
		     cl_starts(s + i, n - i, " (LWP ")))
			return 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_gdb = {
    .name = "gdb",
    .summary = "gdb backtraces, thread apply all bt "
	       "(stackcollapse-gdb.pl)",
    .detect = gdb_detect,
    .state_new = gdb_new,
    .state_free = gdb_free,
    .parse = gdb_parse,
    .end = gdb_end,
};
