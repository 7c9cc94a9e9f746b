/*
 * GHC's .prof profiles (+RTS -p / -P), as inferno-collapse-ghcprof reads
 * them: after the call tree's header ("COST CENTRE MODULE SRC no.
 * entries %time %alloc %time %alloc ...") and the line below it, each
 * line is a cost centre, indented one column a level; it adds its own
 * cost to its whole path of "MODULE.centre" frames: %time (the default,
 * in tenths of a percent), --ticks or --bytes, read from the column
 * under that header.  A blank line ends the tree.
 *
 * Columns are counted as inferno counts them: the header's byte offsets
 * taken as character counts in the lines below (UTF-8 names).
 */
#include <math.h>
#include <stdlib.h>

#include "collapse.h"

static const char *const start_line[] = {
    "COST",    "CENTRE", "MODULE", "SRC",   "no.",
    "entries", "%time",	 "%alloc", "%time", "%alloc",
};

enum { GHC_HEADER, GHC_SKIP, GHC_TREE, GHC_DONE };

struct ghc_state {
	struct collapse_sink *k;
	int source; /* EMBER_GHCPROF_TIME, _TICKS, _BYTES */
	int state;
	size_t module_col, source_col;
	struct ember_buf stack; /* "MODULE.centre" frames, ';'-joined */
	size_t *ends;
	size_t n, alloc;
	struct ember_buf tok;
	struct cl_frames v;
};

/* The next character of s at *i (UTF-8; a bad byte is one U+FFFD). */
static uint32_t next_char(const char *s, size_t n, size_t *i, size_t *len)
{
	const unsigned char *u = (const unsigned char *)s + *i;
	size_t left = n - *i, m;
	uint32_t c;

	if (u[0] < 0x80) {
		*len = 1;
		return u[0];
	}
	if (u[0] >= 0xc2 && u[0] <= 0xdf)
		m = 2, c = u[0] & 0x1f;
	else if (u[0] >= 0xe0 && u[0] <= 0xef)
		m = 3, c = u[0] & 0x0f;
	else if (u[0] >= 0xf0 && u[0] <= 0xf4)
		m = 4, c = u[0] & 0x07;
	else
		m = 0, c = 0;
	if (!m || m > left)
		goto bad;
	for (size_t k = 1; k < m; k++) {
		if ((u[k] & 0xc0) != 0x80)
			goto bad;
		c = c << 6 | (u[k] & 0x3f);
	}
	if ((m == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
	    (m == 4 && (c < 0x10000 || c > 0x10ffff)))
		goto bad;
	*len = m;
	return c;
bad:
	*len = 1;
	return 0xfffd;
}

/* Rust's char::is_whitespace */
static int ws(uint32_t c)
{
	return (c >= 9 && c <= 13) || c == ' ' || c == 0x85 || c == 0xa0 ||
	       c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 ||
	       c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

/* Appends the character at s[i..i+len) as from_utf8_lossy gives it. */
static void add_char(struct ember_buf *o, const char *s, size_t len, uint32_t c)
{
	if (c == 0xfffd && len == 1)
		ember_buf_add(o, "\xef\xbf\xbd", 3);
	else
		ember_buf_add(o, s, len);
}

/* The split_whitespace() words of s from character `skip` on: the first
 * into out (string_range); returns 0 if there is none. */
static int word_at(const char *s, size_t n, size_t skip, struct ember_buf *out)
{
	size_t i = 0, len;
	uint32_t c;

	ember_buf_reset(out);
	for (size_t k = 0; k < skip && i < n; k++) {
		next_char(s, n, &i, &len);
		i += len;
	}
	while (i < n && ws(next_char(s, n, &i, &len)))
		i += len;
	while (i < n && !ws(c = next_char(s, n, &i, &len))) {
		add_char(out, s + i, len, c);
		i += len;
	}
	return out->len > 0;
}

static int is_header(const char *s, size_t n)
{
	size_t i = 0, len, w = 0;

	while (w < ARRAY_SIZE(start_line)) {
		while (i < n && ws(next_char(s, n, &i, &len)))
			i += len;
		size_t a = i;
		while (i < n && !ws(next_char(s, n, &i, &len)))
			i += len;
		if (a == i)
			return 0;
		size_t m = strlen(start_line[w]);
		if (i - a != m || memcmp(s + a, start_line[w], m))
			return 0;
		w++;
	}
	return 1;
}

/* The byte offset of lit in s, or -1. */
static long find(const char *s, size_t n, const char *lit)
{
	const char *p = memmem(s, n, lit, strlen(lit));
	return p ? (long)(p - s) : -1;
}

/* one_off_end_of_col_before(): just after the column before col */
static long col_before(const char *s, size_t n, const char *col)
{
	long at = find(s, n, col);
	size_t i = 0, len, last = SIZE_MAX;

	if (at < 0)
		return -1;
	while (i < (size_t)at) {
		uint32_t c = next_char(s, n, &i, &len);
		if (!ws(c))
			last = i + len - 1;
		i += len;
	}
	return last == SIZE_MAX ? -1 : (long)last + 1;
}

/* Rust's f64 parse of a word */
static int rust_f64(const char *s, size_t n, double *v)
{
	char num[80];
	size_t i = 0, d = 0;

	if (!n || n >= sizeof(num))
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	if (num[0] == '+' || num[0] == '-')
		i++;
	if (!strcasecmp(num + i, "inf") || !strcasecmp(num + i, "infinity") ||
	    !strcasecmp(num + i, "nan")) {
		*v = strtod(num, NULL);
		return 1;
	}
	while (i < n && cl_digit((unsigned char)num[i]))
		i++, d++;
	if (i < n && num[i] == '.')
		for (i++; i < n && cl_digit((unsigned char)num[i]); i++)
			d++;
	if (!d)
		return 0;
	if (i < n && (num[i] == 'e' || num[i] == 'E')) {
		i++;
		if (i < n && (num[i] == '+' || num[i] == '-'))
			i++;
		if (i == n || !cl_digit((unsigned char)num[i]))
			return 0;
		while (i < n && cl_digit((unsigned char)num[i]))
			i++;
	}
	if (i != n)
		return 0;
	*v = strtod(num, NULL);
	return 1;
}

static void tree_line(struct ghc_state *st, const char *s, size_t n)
{
	size_t depth = 0;
	double cost;

	while (depth < n && s[depth] == ' ')
		depth++;
	if (depth > st->n) {
		cl_bad(st->k, s, n); /* "Skipped indentation level" */
		return;
	}
	if (!word_at(s, n, st->source_col, &st->tok) ||
	    !rust_f64(st->tok.buf, st->tok.len, &cost)) {
		cl_bad(st->k, s, n); /* "Invalid cost field" */
		return;
	}
	if (st->source == EMBER_GHCPROF_TIME)
		cost *= 10;
	/* Rust's `as u64`: towards zero, saturating, NaN is 0 */
	uint64_t c = cost != cost || cost <= 0	      ? 0
		     : cost >= 18446744073709551616.0 ? UINT64_MAX
						      : (uint64_t)cost;
	st->n = depth;
	ember_buf_setlen(&st->stack, depth ? st->ends[depth - 1] : 0);
	if (depth)
		ember_buf_addch(&st->stack, ';');
	word_at(s, n, st->module_col, &st->tok);
	ember_buf_add(&st->stack, st->tok.buf, st->tok.len);
	ember_buf_addch(&st->stack, '.');
	word_at(s, n, 0, &st->tok);
	ember_buf_add(&st->stack, st->tok.buf, st->tok.len);
	EMBER_GROW(st->ends, st->n + 1, st->alloc);
	st->ends[st->n++] = st->stack.len;
	st->v.n = 0;
	cl_frames_push(st->k, &st->v, st->stack.buf, st->stack.len);
	if (c == UINT64_MAX)
		cl_add_nv(st->k, st->v.f, st->v.n, 18446744073709551615.0);
	else
		cl_add_u64(st->k, st->v.f, st->v.n, c);
}

static void ghc_parse(void *arg, const char *p, size_t len)
{
	struct ghc_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 0, cl;
		long col;
		st->k->n.lines++;
		switch (st->state) {
		case GHC_HEADER:
			if (!is_header(s, n))
				break;
			st->module_col = (size_t)(find(s, n, "MODULE"));
			col = st->source == EMBER_GHCPROF_TICKS
				  ? col_before(s, n, "ticks")
			      : st->source == EMBER_GHCPROF_BYTES
				  ? col_before(s, n, "bytes")
				  : find(s, n, "%time");
			if (col < 0) {
				cl_bad(st->k, s, n); /* no such column */
				st->state = GHC_DONE;
				break;
			}
			st->source_col = (size_t)col;
			st->state = GHC_SKIP;
			break;
		case GHC_SKIP:
			st->state = GHC_TREE;
			break;
		case GHC_TREE: {
			/* trim_end(); an empty line ends the tree */
			size_t m = 0;
			while (i < n) {
				uint32_t c = next_char(s, n, &i, &cl);
				i += cl;
				if (!ws(c))
					m = i;
			}
			if (!m)
				st->state = GHC_DONE;
			else
				tree_line(st, s, m);
			break;
		}
		}
	}
}

static void ghc_end(void *arg)
{
	struct ghc_state *st = arg;

	st->state = GHC_HEADER;
	st->n = 0;
	ember_buf_reset(&st->stack);
}

static void *ghc_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct ghc_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->source = o->ghcprof_source;
	ember_buf_init(&st->stack, 0);
	ember_buf_init(&st->tok, 0);
	return st;
}

static void ghc_free(void *arg)
{
	struct ghc_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->stack);
	ember_buf_release(&st->tok);
	free(st->ends);
	free(st->v.f);
	free(st);
}

/* The call tree's header among the first lines. */
static int ghc_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 100; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (is_header(s, n))
			return 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_ghcprof = {
    .name = "ghcprof",
    .summary = "GHC .prof profiles (inferno-collapse-ghcprof)",
    .detect = ghc_detect,
    .state_new = ghc_new,
    .state_free = ghc_free,
    .parse = ghc_parse,
    .end = ghc_end,
};
