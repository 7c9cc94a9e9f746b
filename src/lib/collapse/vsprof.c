/*
 * Visual Studio profiler call trees exported as CSV (CallTreeSummary),
 * as stackcollapse-vsprof.pl reads them: after the header row, rows
 * "level,function,samples,..." (level 0 is the process, skipped); when
 * a row's level is not deeper than the stack, the stack is printed with
 * the samples of its last row, in input order.  Names lose every blank
 * and their quotes; samples are integers once ".", "," and blanks are
 * taken out ("2,893,824" is 2893824).
 */
#include <stdio.h>
#include <stdlib.h>

#include "layout.h"

#define MAX_STACK 1000 /* the script's "Stack overflow" */

struct vsprof_state {
	struct cl_header h;    /* first: the state is a cl_header's */
	struct ember_buf text; /* the stack's names, ';'-joined */
	size_t *ends;	       /* where each level's name ends in text */
	size_t n, alloc;
	struct ember_buf samples, tmp;
};

/* ("[^"]+" | [^,]+), at s: the field's length (quotes included), 0 if
 * none */
static size_t field(const char *s, size_t n)
{
	if (n && s[0] == '"') {
		const char *q = memchr(s + 1, '"', n - 1);
		if (q && q > s + 1 && q + 1 < s + n && q[1] == ',')
			return (size_t)(q + 1 - s);
	}
	const char *c = memchr(s, ',', n);
	return c && c > s ? (size_t)(c - s) : 0;
}

/* s/^"|"$//: the quote at each end goes */
static void unquote(const char **s, size_t *n)
{
	if (*n && (*s)[0] == '"')
		(*s)++, (*n)--;
	if (*n && (*s)[*n - 1] == '"')
		(*n)--;
}

/* int() of the samples field without ".", ",", " " and end quotes, as
 * Perl's number of a string; into out as Perl prints it */
static void samples(const char *s, size_t n, struct ember_buf *tmp,
		    struct ember_buf *out)
{
	uint64_t v;

	unquote(&s, &n);
	ember_buf_reset(tmp);
	for (size_t i = 0; i < n; i++)
		if (s[i] != '.' && s[i] != ',' && s[i] != ' ')
			ember_buf_addch(tmp, s[i]);
	/* leading blanks, a sign, digits (and an exponent) */
	const char *p = tmp->buf, *e;
	while (*p && cl_space((unsigned char)*p))
		p++;
	e = p + (*p == '-' || *p == '+');
	while (cl_digit((unsigned char)*e))
		e++;
	ember_buf_reset(out);
	if (*e != 'e' && *e != 'E' && *p != '-' && *p != '+' && e > p &&
	    ember_parse_u64(p, (size_t)(e - p), &v)) {
		ember_buf_addu(out, v);
		return;
	}
	char num[64];
	size_t m = 0;
	for (const char *q = p; *q && m < sizeof(num) - 1; q++) {
		if (!(cl_digit((unsigned char)*q) || *q == 'e' || *q == 'E' ||
		      ((*q == '-' || *q == '+') &&
		       (q == p || q[-1] == 'e' || q[-1] == 'E'))))
			break;
		num[m++] = *q;
	}
	num[m] = '\0';
	double d = strtod(num, NULL);
	d = d < 0 ? -__builtin_floor(-d) : __builtin_floor(d);
	if (d >= -9223372036854775808.0 && d < 9223372036854775808.0)
		ember_buf_addf(out, "%lld", (long long)d);
	else
		ember_buf_add_nv(out, d);
}

static void print(struct vsprof_state *st)
{
	struct ember_buf *o = &st->h.k->out;

	ember_buf_add(o, st->text.buf, st->text.len);
	ember_buf_addch(o, ' ');
	ember_buf_add(o, st->samples.buf, st->samples.len);
	ember_buf_addch(o, '\n');
	st->h.k->n.records++;
}

static void vsprof_line(void *arg, const char *s, size_t n)
{
	struct vsprof_state *st = arg;
	size_t i = 0, d, f2, f3;
	uint64_t level = 0;

	if (cl_blank(s, n))
		return;

	/* ^\s*(\d+?),("[^"]+" | [^,]+),("[^"]+" | [^,]+), */
	while (i < n && cl_space((unsigned char)s[i]))
		i++;
	d = i;
	while (i < n && cl_digit((unsigned char)s[i])) {
		if (level < 100000000)
			level = level * 10 + (uint64_t)(s[i] - '0');
		i++;
	}
	if (i == d || i >= n || s[i] != ',' ||
	    !(f2 = field(s + i + 1, n - i - 1)) ||
	    !(f3 = field(s + i + 2 + f2, n - i - 2 - f2))) {
		cl_bad(st->h.k, s, n); /* the script dies here */
		return;
	}
	const char *fn = s + i + 1, *sm = fn + f2 + 1;
	if (!level)
		return;
	if (level > st->n + 1 || st->n >= MAX_STACK) {
		cl_bad(st->h.k, s, n); /* "Error in stack", "Stack overflow" */
		return;
	}
	if (level <= st->n) {
		print(st);
		st->n = (size_t)level - 1;
		ember_buf_setlen(&st->text, st->n ? st->ends[st->n - 1] : 0);
	}
	/* s/\s*|^"|"$//g: every blank, and the end quotes */
	size_t nn = f2;
	unquote(&fn, &nn);
	if (st->n)
		ember_buf_addch(&st->text, ';');
	for (size_t k = 0; k < nn; k++)
		if (!cl_space((unsigned char)fn[k]))
			ember_buf_addch(&st->text, fn[k]);
	EMBER_GROW(st->ends, st->n + 1, st->alloc);
	st->ends[st->n++] = st->text.len;
	samples(sm, f3, &st->tmp, &st->samples);
}

static void vsprof_parse(void *arg, const char *p, size_t len)
{
	cl_header_parse(arg, p, len, vsprof_line);
}

/* The last stack; none in an input without one (the script prints
 * " 0"). */
static void vsprof_end(void *arg)
{
	struct vsprof_state *st = arg;

	if (st->n)
		print(st);
	st->n = 0;
	ember_buf_reset(&st->text);
	ember_buf_reset(&st->samples);
}

static void *vsprof_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct vsprof_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	cl_header_init(&st->h, k, NULL);
	ember_buf_init(&st->text, 0);
	ember_buf_init(&st->samples, 0);
	ember_buf_init(&st->tmp, 0);
	return st;
}

static void vsprof_free(void *arg)
{
	struct vsprof_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->text);
	ember_buf_release(&st->samples);
	ember_buf_release(&st->tmp);
	free(st->ends);
	free(st);
}

/* Visual Studio's call tree header (after a UTF-8 byte order mark). */
static int vsprof_detect(const char *p, size_t len)
{
	if (cl_starts(p, len, "\xef\xbb\xbf"))
		p += 3, len -= 3;
	return cl_starts(p, len, "Level,Function Name,");
}

const struct ember_collapser ember_collapser_vsprof = {
    .name = "vsprof",
    .summary = "Visual Studio profiler call trees, CSV "
	       "(stackcollapse-vsprof.pl)",
    .order = CL_INPUT,
    .detect = vsprof_detect,
    .state_new = vsprof_new,
    .state_free = vsprof_free,
    .begin = cl_header_begin,
    .parse = vsprof_parse,
    .end = vsprof_end,
};
