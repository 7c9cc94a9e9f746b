/*
 * lightweight-java-profiler traces, as stackcollapse-ljp.awk reads them:
 * "COUNT ID frame" starts a trace, one-word lines are its callers; the
 * argument lists ("(File.java:N)") go.  Each trace is printed when the
 * next starts, in input order, and the last at the "Total" line, where
 * the input ends for the script (a trace whose count is 0 is not
 * printed, as awk's "if (count)").
 */
#include <stdlib.h>

#include "collapse.h"

struct ljp_state {
	struct collapse_sink *k;
	struct cl_revjoin stack; /* awk's stack, built by prepending */
	struct ember_buf count, line;
	int done;
};

/* awk's fields of s (blanks and tabs apart): how many, the first three */
static size_t fields(const char *s, size_t n, const char **f, size_t *fl)
{
	size_t nf = 0, i = 0;

	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			return nf;
		size_t a = i;
		while (i < n && s[i] != ' ' && s[i] != '\t')
			i++;
		if (nf < 3) {
			f[nf] = s + a;
			fl[nf] = i - a;
		}
		nf++;
	}
}

/* awk's truth of an input field: a number not 0, or a string not "" */
static int awk_true(const char *s, size_t n)
{
	size_t i = 0, d = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && cl_digit((unsigned char)s[i]))
		i++, d++;
	if (i < n && s[i] == '.')
		for (i++; i < n && cl_digit((unsigned char)s[i]); i++)
			d++;
	if (d && i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = i + 1;
		if (e < n && (s[e] == '+' || s[e] == '-'))
			e++;
		if (e < n && cl_digit((unsigned char)s[e])) {
			while (e < n && cl_digit((unsigned char)s[e]))
				e++;
			i = e;
		}
	}
	if (!d || i != n)
		return n > 0; /* not a number: a string */
	for (size_t j = 0; j < n; j++)
		if (s[j] >= '1' && s[j] <= '9')
			return 1;
	return 0;
}

static void print(struct ljp_state *st)
{
	struct ember_buf *o = &st->k->out;

	cl_revjoin_write(&st->stack, o);
	ember_buf_addch(o, ' ');
	ember_buf_add(o, st->count.buf, st->count.len);
	ember_buf_addch(o, '\n');
	st->k->n.records++;
}

static void ljp_parse(void *arg, const char *p, size_t len)
{
	struct ljp_state *st = arg;
	const char *end = p + len;

	while (p < end && !st->done) {
		const char *s, *f[3];
		size_t n = cl_line(&p, end, &s), fl[3], nf;
		st->k->n.lines++;
		nf = fields(s, n, f, fl);
		if (nf && fl[0] == 5 && !memcmp(f[0], "Total", 5)) {
			print(st);
			st->done = 1; /* exit */
			break;
		}
		/* gsub(/\(.*\)/, ""): from the first '(' to the last ')' */
		const char *o = memchr(s, '(', n);
		const char *c = o ? memrchr(o, ')', (size_t)(s + n - o)) : NULL;
		if (c) {
			ember_buf_reset(&st->line);
			ember_buf_add(&st->line, s, (size_t)(o - s));
			ember_buf_add(&st->line, c + 1,
				      (size_t)(s + n - c - 1));
			s = st->line.buf;
			n = st->line.len;
			nf = fields(s, n, f, fl);
		}
		if (nf == 3) {
			if (awk_true(st->count.buf, st->count.len))
				print(st);
			ember_buf_reset(&st->count);
			ember_buf_add(&st->count, f[0], fl[0]);
			cl_revjoin_set(&st->stack, f[2], fl[2]);
		} else if (nf == 1) {
			/* stack = $1 ";" stack */
			cl_revjoin_prepend(&st->stack, f[0], fl[0]);
		}
	}
}

static void *ljp_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct ljp_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	cl_revjoin_init(&st->stack);
	cl_revjoin_set(&st->stack, "", 0);
	ember_buf_init(&st->count, 0);
	ember_buf_init(&st->line, 0);
	return st;
}

static void ljp_free(void *arg)
{
	struct ljp_state *st = arg;

	if (!st)
		return;
	cl_revjoin_release(&st->stack);
	ember_buf_release(&st->count);
	ember_buf_release(&st->line);
	free(st);
}

const struct ember_collapser ember_collapser_ljp = {
    .name = "ljp",
    .summary = "lightweight-java-profiler traces "
	       "(stackcollapse-ljp.awk)",
    .order = CL_INPUT,
    .detect = NULL, /* "N N frame" lines: too little to tell */
    .state_new = ljp_new,
    .state_free = ljp_free,
    .parse = ljp_parse,
};
