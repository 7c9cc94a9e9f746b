/*
 * Visual Studio profiler call trees exported as CSV (CallTreeSummary),
 * as stackcollapse-vsprof.pl reads them: after the header row, rows
 * "level,function,samples,..." (level 0 is the process, skipped); when
 * a row's level is not deeper than the stack, the stack is printed with
 * the samples of its last row, in input order.  Names lose every blank
 * and their quotes; samples are integers once ".", "," and blanks are
 * taken out ("2,893,824" is 2893824).
 *
 * As inferno-collapse-vsprof (o->inferno), another reader: the header
 * must be the first line; rows "level,\"function\",calls,..." build the
 * stack, each frame with its number of calls, from which its callees'
 * are taken as the depth falls back; a stack is set (not added) to the
 * calls of its last frame, when they are not 0, and the stacks print
 * sorted.  Names keep their blanks; numbers may group their digits by
 * threes with one of ",", "." or " ".  A row in no such shape refuses
 * the input.
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
	/* inferno's reader */
	int inferno;
	struct cl_istack stack;
	struct cl_occ occ;
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

/* ---- inferno's reader ---- */

#define INF_HEADER                                                             \
	"Level,Function Name,Number of Calls,Elapsed Inclusive Time %,"        \
	"Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,"                 \
	"Avg Elapsed Exclusive Time,Module Name,"

/* inferno's get_next_number: a field (after a ',', quoted or not) read
 * as a number whose digits may be grouped by threes; *s and *n move
 * past it.  0 on an error, with why. */
static int inf_number(const char **s, size_t *n, uint64_t *v, const char **why)
{
	const char *p = *s, *end = *s + *n, *num, *ne, *rest;
	int quoted = 0;

	if (p < end && *p == ',')
		p++;
	if (p < end && *p == '"') {
		quoted = 1;
		num = p + 1;
		ne = memchr(num, '"', (size_t)(end - num));
		if (!ne) {
			*why = "invalid number";
			return 0;
		}
		rest = ne + 1;
	} else {
		num = p;
		ne = memchr(num, ',', (size_t)(end - num));
		rest = ne ? ne + 1 : end;
		if (!ne)
			ne = end;
	}
	int initial = 1, group = 0;
	char sepc = 0;
	*v = 0;
	for (const char *c = num; c < ne; c++) {
		if (cl_digit((unsigned char)*c)) {
			if (group > 2) {
				*why = "missing thousands separator";
				return 0;
			}
			*v = *v * 10 + (uint64_t)(*c - '0');
			group++;
		} else if (*c == ',' || *c == '.' || *c == ' ') {
			if (!initial && group < 3) {
				*why = "missing thousands separator";
				return 0;
			}
			if (sepc && sepc != *c) {
				*why = "cannot parse an integer";
				return 0;
			}
			sepc = *c;
			initial = 0;
			group = 0;
		} else {
			*why = "cannot parse an integer";
			return 0;
		}
	}
	if (quoted && rest < end && *rest == ',')
		rest++;
	*s = rest;
	*n = (size_t)(end - rest);
	return 1;
}

static void inf_write_stack(struct vsprof_state *st)
{
	const struct cl_istack *s = &st->stack;

	if (s->n && s->counts[s->n - 1])
		cl_occ_set(&st->occ, s->text.buf, s->text.len,
			   s->counts[s->n - 1]);
}

static void inf_line(struct vsprof_state *st, const char *s, size_t n)
{
	struct collapse_sink *k = st->h.k;
	const char *p = s, *why;
	size_t rn = n;
	uint64_t depth, calls;

	if (!inf_number(&p, &rn, &depth, &why)) {
		cl_inferno_error(k, why, s, n);
		return;
	}
	if (!rn) {
		cl_inferno_error(k, "missing function name", s, n);
		return;
	}
	const char *q = p[0] == '"' ? memchr(p + 1, '"', rn - 1) : NULL;
	if (!q) {
		cl_inferno_error(k, "cannot parse the function name", s, n);
		return;
	}
	const char *fn = p + 1;
	size_t fl = (size_t)(q - fn);
	p = q + 1;
	rn = (size_t)(s + n - p);
	if (!inf_number(&p, &rn, &calls, &why)) {
		cl_inferno_error(k, why, s, n);
		return;
	}
	struct cl_istack *stk = &st->stack;
	uint64_t prev = stk->n;
	if (prev < depth) {
		if (prev + 1 != depth) {
			cl_inferno_error(k, "invalid depth", s, n);
			return;
		}
	} else if (prev == depth) {
		inf_write_stack(st);
		cl_istack_pop(stk);
	} else {
		uint64_t prev_calls = 0;
		for (uint64_t i = 0; i < prev - depth + 1; i++) {
			if (prev_calls != stk->counts[stk->n - 1])
				inf_write_stack(st);
			prev_calls = stk->counts[stk->n - 1];
			cl_istack_pop(stk);
			if (!stk->n)
				break;
			if (prev_calls < stk->counts[stk->n - 1])
				stk->counts[stk->n - 1] -= prev_calls;
		}
	}
	cl_istack_push(stk, fn, fl, calls);
}

/* the header, after blanks and byte order marks */
static int inf_header(const char *s, size_t n)
{
	while (n && cl_space((unsigned char)*s))
		s++, n--;
	while (cl_starts(s, n, "\xef\xbb\xbf"))
		s += 3, n -= 3;
	return cl_starts(s, n, INF_HEADER);
}

static void inf_parse(struct vsprof_state *st, const char *s, size_t n)
{
	if (st->h.k->n.error[0])
		return;
	if (st->h.pending) {
		st->h.pending = 0;
		if (!inf_header(s, n))
			cl_inferno_error(
			    st->h.k, "the first line is not the header", s, n);
		return;
	}
	n = cl_trim_end(s, n);
	if (n)
		inf_line(st, s, n);
}

static void inf_end(struct vsprof_state *st)
{
	if (!st->h.k->n.error[0]) {
		inf_write_stack(st);
		cl_occ_write(&st->occ, st->h.k);
	}
	cl_occ_clear(&st->occ);
	while (st->stack.n)
		cl_istack_pop(&st->stack);
}

static void vsprof_parse(void *arg, const char *p, size_t len)
{
	struct vsprof_state *st = arg;
	const char *end = p + len;

	if (!st->inferno) {
		cl_header_parse(arg, p, len, vsprof_line);
		return;
	}
	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->h.k->n.lines++;
		inf_parse(st, s, n);
	}
}

/* The last stack; none in an input without one (the script prints
 * " 0"). */
static void vsprof_end(void *arg)
{
	struct vsprof_state *st = arg;

	if (st->inferno) {
		inf_end(st);
		return;
	}
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

	cl_header_init(&st->h, k, NULL);
	st->inferno = o->inferno;
	cl_istack_init(&st->stack);
	cl_occ_init(&st->occ);
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
	cl_istack_release(&st->stack);
	cl_occ_release(&st->occ);
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
