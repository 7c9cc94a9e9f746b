/*
 * DTrace aggregations (@[stack()] = count(), @[stack(), ustack()]...), as
 * stackcollapse.pl reads them: the first three lines of an input are its
 * header, then each stack's frames, leaf first, and a line holding only
 * its count.  The state is the frames read since the last count line, and
 * how many header lines are left to skip.
 */
#include <stdlib.h>

#include "collapse.h"

struct dtrace_state {
	struct collapse_sink *k;
	int includeoffset;
	int inferno;	      /* Rust names repaired, as inferno does */
	struct ember_buf fix; /* a repaired name */
	int header;	      /* header lines still to skip */
	uint32_t *frames;     /* leaf first */
	size_t n, alloc;
	struct ember_buf tmp;
};

#define HEADER_LINES 3

static void push(struct dtrace_state *st, const char *s, size_t n)
{
	EMBER_GROW(st->frames, st->n + 1, st->alloc);
	st->frames[st->n++] = ember_intern(&st->k->names, s, n);
}

/* inferno's repair of a half-demangled Rust name after "module`" (and
 * before a kept +offset): *s and *n then point into st->fix. */
static void rust_fix(struct dtrace_state *st, const char **s, size_t *n)
{
	const char *tick = memchr(*s, '`', *n);
	struct ember_buf name = EMBER_BUF_INIT;

	if (!tick)
		return;
	const char *f = tick + 1, *end = *s + *n, *off = end;
	if (st->includeoffset) {
		const char *plus = memrchr(f, '+', (size_t)(end - f));
		if (plus)
			off = plus;
	}
	const char *fe = off;
	while (fe > f && cl_space(fe[-1]))
		fe--;
	if (rec_rust_fix(f, (size_t)(fe - f), &name)) {
		ember_buf_reset(&st->fix);
		ember_buf_add(&st->fix, *s, (size_t)(f - *s));
		ember_buf_add(&st->fix, name.buf, name.len);
		ember_buf_add(&st->fix, off, (size_t)(end - off));
		*s = st->fix.buf;
		*n = st->fix.len;
	}
	ember_buf_release(&name);
}

/* One frame line: the offset and C++ arguments removed, Java's "->"
 * inlining split into frames (_[i]), ';' made ':', a leading L dropped. */
static void frame(struct dtrace_state *st, const char *s, size_t n)
{
	const char *parts[64];
	size_t lens[64], np = 0;

	while (n && cl_space(s[0]))
		s++, n--;
	/* s/\+[^+]*$// (with --includeoffset, for the leaf only) */
	if (!st->includeoffset || !st->n) {
		const char *plus = memrchr(s, '+', n);
		if (plus)
			n = (size_t)(plus - s);
	}
	/* s/(::.*)[(<].*./$1/ (sic): from the first "::", cut at the last ( or
	 * < */
	const char *cc = memmem(s, n, "::", 2);
	if (cc) {
		for (size_t i = n; i > (size_t)(cc - s) + 2; i--) {
			if (s[i - 1] == '(' || s[i - 1] == '<') {
				n = i - 1;
				break;
			}
		}
	}
	if (!n) {
		s = "-";
		n = 1;
	} else if (st->inferno) {
		rust_fix(st, &s, &n);
	}
	/* split /->/, dropping empty trailing parts */
	size_t i = 0;
	for (;;) {
		const char *a = np < ARRAY_SIZE(parts) - 1
				    ? memmem(s + i, n - i, "->", 2)
				    : NULL;
		size_t j = a ? (size_t)(a - s) : n;
		parts[np] = s + i;
		lens[np++] = j - i;
		if (!a)
			break;
		i = j + 2;
	}
	while (np && !lens[np - 1])
		np--;
	/* pushed innermost first: the stack is built leaf first */
	for (size_t k = np; k-- > 0;) {
		const char *p = parts[k];
		size_t m = lens[k];
		struct ember_buf *t = &st->tmp;
		ember_buf_reset(t);
		if (m && p[0] == 'L') {
			p++;
			m--;
		}
		ember_buf_add(t, p, m);
		for (size_t x = 0; x < t->len; x++)
			if (t->buf[x] == ';')
				t->buf[x] = ':';
		if (k)
			ember_buf_adds(t, "_[i]");
		push(st, t->buf, t->len);
	}
}

static void dtrace_parse(void *arg, const char *p, size_t len)
{
	struct dtrace_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), d;
		st->k->n.lines++;
		if (st->header) {
			st->header--;
			continue;
		}
		if (cl_count_line(s, n, &d)) {
			cl_add_leaf_first(st->k, st->frames, st->n, s + d,
					  n - d);
			st->n = 0;
			continue;
		}
		if (cl_blank(s, n))
			continue;
		frame(st, s, n);
	}
}

static void dtrace_end(void *arg)
{
	struct dtrace_state *st = arg;

	if (st->n)
		st->k->n.truncated++;
	st->n = 0;
}

static void dtrace_begin(void *arg, const struct collapse_shared *sh,
			 int file_start)
{
	struct dtrace_state *st = arg;

	(void)sh;
	st->n = 0;
	st->header = file_start ? HEADER_LINES : 0;
}

static void *dtrace_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct dtrace_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->includeoffset = o->includeoffset;
	st->inferno = o->inferno;
	ember_buf_init(&st->fix, 0);
	ember_buf_init(&st->tmp, 256);
	return st;
}

static void dtrace_free(void *arg)
{
	struct dtrace_state *st = arg;

	if (!st)
		return;
	free(st->frames);
	ember_buf_release(&st->tmp);
	ember_buf_release(&st->fix);
	free(st);
}

/* After the last count line of p that is not in the header. */
/* A stack ends at its count line. */
static int dtrace_boundary(const char *s, size_t n)
{
	size_t d;

	return cl_count_line(s, n, &d);
}

static size_t dtrace_split(const char *p, size_t len, int file_start)
{
	size_t start = 0;

	/* not in the header lines */
	for (int i = 0; file_start && i < HEADER_LINES && start < len; i++) {
		const char *nl = memchr(p + start, '\n', len - start);
		start = nl ? (size_t)(nl - p) + 1 : len;
	}
	return cl_split_after(p, start, len, dtrace_boundary);
}

static int dtrace_parallel(const struct ember_collapse_options *o)
{
	(void)o;
	return 1;
}

static int has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
			return 1;
	}
	return 0;
}

/* dtrace's "CPU     ID    FUNCTION:NAME" header, or module`function
 * frames followed by a count line. */
static int dtrace_detect(const char *p, size_t len)
{
	const char *end = p + len;
	int frames = 0;

	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s), d;
		if (!lines && n > 6 && !memcmp(s, "CPU", 3) && cl_space(s[3]) &&
		    memmem(s, n, "ID", 2))
			return 1;
		if (cl_blank(s, n))
			continue;
		if (has_control(s, n))
			return 0; /* dtrace prints text */
		if (cl_count_line(s, n, &d)) {
			if (frames)
				return 1;
			continue;
		}
		if (memchr(s, '`', n))
			frames++;
		else if (lines >= HEADER_LINES)
			return 0;
	}
	return 0;
}

const struct ember_collapser ember_collapser_dtrace = {
    .name = "dtrace",
    .summary = "DTrace stack()/ustack() aggregations (stackcollapse.pl)",
    .detect = dtrace_detect,
    .parallel = dtrace_parallel,
    .state_new = dtrace_new,
    .state_free = dtrace_free,
    .begin = dtrace_begin,
    .parse = dtrace_parse,
    .end = dtrace_end,
    .split = dtrace_split,
};
