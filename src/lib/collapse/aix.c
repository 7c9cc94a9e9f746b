/*
 * AIX procstack output (as aix-perf.pl gathers it), as
 * stackcollapse-aix.pl reads it: "PID: process" heads a process, a
 * "---------- tid# N" line each thread, and "0xADDR  func(args) + off"
 * lines are frames, leaf first (a "[...]" name becomes the address).
 * Each thread's stack counts once under its process's name.
 */
#include <stdlib.h>

#include "collapse.h"

struct aix_state {
	struct collapse_sink *k;
	struct cl_frames v; /* leaf first */
	struct ember_buf process;
	int zero; /* the stack is the string "0" (false to Perl) */
};

static void flush(struct aix_state *st)
{
	if (!st->v.n)
		return;
	cl_frames_push_rev(st->k, &st->v, st->process.buf, st->process.len);
	cl_frames_reverse(&st->v);
	cl_add_u64(st->k, st->v.f, st->v.n, 1);
	st->v.n = 0;
	st->zero = 0;
}

/* m/^(0x[0-9abcdef]*) *([^ ]*) ([^ ]*) ([^ ]*)/ with Perl's backtracking
 * (fewer blanks, then fewer hex digits): the address and $2. */
static int frame(const char *s, size_t n, size_t *an, const char **f,
		 size_t *fn)
{
	const char *end = s + n, *h0 = s + 2, *h = h0;

	if (!cl_starts(s, n, "0x"))
		return 0;
	while (h < end &&
	       (cl_digit((unsigned char)*h) || (*h >= 'a' && *h <= 'f')))
		h++;
	for (; h >= h0; h--) {
		const char *sp = h;
		while (sp < end && *sp == ' ')
			sp++;
		for (; sp >= h; sp--) {
			const char *w = sp, *x;
			int k;
			for (k = 0; k < 2; k++) {
				x = memchr(w, ' ', (size_t)(end - w));
				if (!x)
					break;
				if (!k)
					*f = sp, *fn = (size_t)(x - sp);
				w = x + 1;
			}
			if (k == 2) {
				*an = (size_t)(h - s);
				return 1;
			}
		}
	}
	return 0;
}

static void aix_parse(void *arg, const char *p, size_t len)
{
	struct aix_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s, *f;
		size_t n = cl_line(&p, end, &s), i = 0, an, fn;
		st->k->n.lines++;
		while (i < n && cl_digit((unsigned char)s[i]))
			i++;
		if (i && i < n && s[i] == ':') {
			flush(st);
			/* m/^\d+: ([^ ]*)/, else $1 is undef */
			ember_buf_reset(&st->process);
			if (i + 1 < n && s[i + 1] == ' ') {
				const char *a = s + i + 2;
				const char *b =
				    memchr(a, ' ', (size_t)(end - a));
				size_t m = (size_t)(s + n - a);
				if (b && (size_t)(b - a) < m)
					m = (size_t)(b - a);
				ember_buf_add(&st->process, a, m);
			}
		} else if (cl_starts(s, n, "---------- tid# ") && n > 16 &&
			   cl_digit((unsigned char)s[16])) {
			flush(st);
		} else if (frame(s, n, &an, &f, &fn)) {
			/* s/\(.*\)?//: from the first '(' to the end */
			const char *par = memchr(f, '(', fn);
			if (par)
				fn = (size_t)(par - f);
			if (fn >= 2 && f[0] == '[' && f[fn - 1] == ']')
				f = s, fn = an;
			/* if ($current) prepend, else replace: "" and "0"
			 * are false; "" + "" stays "" */
			if (st->zero)
				st->v.n = 0;
			if (st->v.n || fn)
				cl_frames_push_rev(st->k, &st->v, f, fn);
			st->zero = st->v.n == 1 && fn == 1 && f[0] == '0';
		}
	}
}

static void aix_end(void *arg)
{
	flush(arg);
}

static void *aix_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct aix_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	ember_buf_init(&st->process, 0);
	return st;
}

static void aix_free(void *arg)
{
	struct aix_state *st = arg;

	if (!st)
		return;
	free(st->v.f);
	ember_buf_release(&st->process);
	free(st);
}

/* procstack: "PID: command" then a "---------- tid# N" line. */
static int aix_detect(const char *p, size_t len)
{
	const char *end = p + len, *s;
	size_t n, i = 0;

	if (p == end)
		return 0;
	n = cl_line(&p, end, &s);
	while (i < n && cl_digit((unsigned char)s[i]))
		i++;
	return i && i + 1 < n && s[i] == ':' && s[i + 1] == ' ' &&
	       cl_starts(p, (size_t)(end - p), "---------- tid# ");
}

const struct ember_collapser ember_collapser_aix = {
    .name = "aix",
    .summary = "AIX procstack output (stackcollapse-aix.pl)",
    .detect = aix_detect,
    .state_new = aix_new,
    .state_free = aix_free,
    .parse = aix_parse,
    .end = aix_end,
};
