/*
 * One frame per sample, split into its Java packages, as pkgsplit-perf.pl
 * folds `perf script` lines: each "  comm PID/TID ... : ... : ADDR
 * Lpkg/Class;::method (module)" line (idle ones skipped) becomes
 * "comm;pkg;Class_::method 1", the method's digits X'd, in input order
 * (flamegraph sums the lines).
 */
#include <stdlib.h>

#include "collapse.h"

struct pkg_state {
	struct collapse_sink *k;
};

/* The script's sample line: blanks, a name of two characters or more
 * (the shortest that fits), blanks, PID, optional slashes and TID, a
 * blank, and two colons further on.  The name's length, 0 if none. */
static size_t name_len(const char *s, size_t n, size_t a)
{
	for (size_t e = a + 2; e < n; e++) {
		size_t i = e, w;
		while (i < n && cl_space((unsigned char)s[i]))
			i++;
		w = i;
		if (w == e)
			continue;
		while (i < n && cl_digit((unsigned char)s[i]))
			i++;
		if (i == w)
			continue;
		while (i < n && s[i] == '/')
			i++;
		while (i < n && cl_digit((unsigned char)s[i]))
			i++;
		if (i >= n || !cl_space((unsigned char)s[i]))
			continue;
		const char *c1 = memchr(s + i + 1, ':', n - i - 1);
		if (c1 && memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1)))
			return e - a;
	}
	return 0;
}

static void pkg_line(struct pkg_state *st, const char *s, size_t n)
{
	size_t a = 0, nl;
	struct ember_buf *o = &st->k->out;

	if ((n && s[0] == '#') || memmem(s, n, "xen_hypercall_sched_op", 22) ||
	    memmem(s, n, "cpu_idle", 8) || memmem(s, n, "native_safe_halt", 16))
		return;
	while (a < n && cl_space((unsigned char)s[a]))
		a++;
	if (!a || a == n || !(nl = name_len(s, n, a)))
		return;
	size_t start = o->len;
	for (size_t i = 0; i < nl; i++) /* tr/ /_/ */
		ember_buf_addch(o, s[a + i] == ' ' ? '_' : s[a + i]);
	ember_buf_addch(o, ';');
	/* s/^.*?:.*?:\s+//: after the first colon that follows another and
	 * has blanks after it */
	const char *c1 = memchr(s, ':', n), *p = NULL;
	for (const char *c = c1 ? memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1))
				: NULL;
	     c; c = memchr(c + 1, ':', (size_t)(s + n - c - 1))) {
		if (c + 1 < s + n && cl_space((unsigned char)c[1])) {
			p = c + 1;
			while (p < s + n && cl_space((unsigned char)*p))
				p++;
			break;
		}
	}
	const char *e = s + n;
	if (!p)
		p = s;
	/* s/ \(.*?\)$//: from the first " (" when the line ends with ')' */
	if (e > p && e[-1] == ')') {
		const char *q = memmem(p, (size_t)(e - p), " (", 2);
		if (q)
			e = q;
	}
	/* split(' ', $_, 2): the address, then the function */
	while (p < e && cl_space((unsigned char)*p))
		p++;
	while (p < e && !cl_space((unsigned char)*p))
		p++;
	while (p < e && cl_space((unsigned char)*p))
		p++;
	if (p < e && *p == 'L')
		p++;
	for (; p < e; p++)
		ember_buf_addch(o, cl_digit((unsigned char)*p) ? 'X'
				   : *p == '/'		       ? ';'
							       : *p);
	ember_buf_add(o, " 1\n", 3);
	(void)start;
	st->k->n.records++;
}

static void pkg_parse(void *arg, const char *p, size_t len)
{
	struct pkg_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->k->n.lines++;
		pkg_line(st, s, n);
	}
}

static void *pkg_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct pkg_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	return st;
}

static void pkg_free(void *arg)
{
	free(arg);
}

const struct ember_collapser ember_collapser_pkgsplit_perf = {
    .name = "pkgsplit-perf",
    .summary = "perf script samples, one frame split by Java package "
	       "(pkgsplit-perf.pl)",
    .order = CL_INPUT,
    .detect = NULL,
    .state_new = pkg_new,
    .state_free = pkg_free,
    .parse = pkg_parse,
};
