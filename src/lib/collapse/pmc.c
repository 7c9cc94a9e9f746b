/*
 * FreeBSD pmcstat -G call graphs, as stackcollapse-pmc.pl reads them:
 * "  12.34%  [42]  func @ module" lines, indented one column a level
 * (callers below their callees); when a line does not go deeper than the
 * one before, the path to that one is printed with its count, leaf
 * first reversed, in input order as the script prints it.
 */
#include <stdlib.h>

#include "collapse.h"

struct pmc_state {
	struct collapse_sink *k;
	struct ember_buf text; /* the names by level, NUL-separated */
	size_t *off, *len;     /* by level; len SIZE_MAX: never set */
	size_t alloc;
	long prev; /* the previous line's level (-1: none) */
	struct ember_buf count;
};

static void print(struct pmc_state *st)
{
	struct ember_buf *o = &st->k->out;

	/* join(';', reverse(@stack[0 .. $prev_indent])) " $prev_count" */
	for (long i = st->prev; i >= 0; i--) {
		if (st->len[i] != SIZE_MAX)
			ember_buf_add(o, st->text.buf + st->off[i], st->len[i]);
		if (i)
			ember_buf_addch(o, ';');
	}
	ember_buf_addch(o, ' ');
	ember_buf_add(o, st->count.buf, st->count.len);
	ember_buf_addch(o, '\n');
	st->k->n.records++;
}

static void pmc_parse(void *arg, const char *p, size_t len)
{
	struct pmc_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 0, j, c, e;
		st->k->n.lines++;
		/* m/^( *)[0-9.]+%  \[([0-9]+)\]\s*(\S+)/ */
		while (i < n && s[i] == ' ')
			i++;
		j = i;
		while (j < n && (cl_digit((unsigned char)s[j]) || s[j] == '.'))
			j++;
		if (j == i || !cl_starts(s + j, n - j, "%  ["))
			continue;
		c = e = j + 4;
		while (e < n && cl_digit((unsigned char)s[e]))
			e++;
		if (e == c || e >= n || s[e] != ']')
			continue;
		size_t a = e + 1;
		while (a < n && cl_space((unsigned char)s[a]))
			a++;
		size_t b = a;
		while (b < n && !cl_space((unsigned char)s[b]))
			b++;
		if (b == a)
			continue;
		if ((long)i <= st->prev)
			print(st);
		if (i >= st->alloc) {
			size_t o = st->alloc;
			st->alloc = i + 64;
			st->off = ember_xreallocarray(st->off, st->alloc,
						      sizeof(*st->off));
			st->len = ember_xreallocarray(st->len, st->alloc,
						      sizeof(*st->len));
			for (size_t k = o; k < st->alloc; k++)
				st->len[k] = SIZE_MAX;
		}
		/* the text only grows: compact it now and then */
		if (st->text.len > (64u << 10) + 64 * (b - a)) {
			struct ember_buf t = EMBER_BUF_INIT;
			for (size_t k = 0; k < st->alloc; k++) {
				if (st->len[k] == SIZE_MAX)
					continue;
				size_t at = t.len;
				ember_buf_add(&t, st->text.buf + st->off[k],
					      st->len[k]);
				st->off[k] = at;
			}
			ember_buf_release(&st->text);
			st->text = t;
		}
		st->off[i] = st->text.len;
		st->len[i] = b - a;
		ember_buf_add(&st->text, s + a, b - a);
		ember_buf_reset(&st->count);
		ember_buf_add(&st->count, s + c, e - c);
		st->prev = (long)i;
	}
}

/* The script prints the last path at the end, also of an input without
 * one (a line " "): ember only when there is one. */
static void pmc_end(void *arg)
{
	struct pmc_state *st = arg;

	if (st->prev >= 0)
		print(st);
	st->prev = -1;
	for (size_t k = 0; k < st->alloc; k++)
		st->len[k] = SIZE_MAX;
	ember_buf_reset(&st->text);
}

static void *pmc_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct pmc_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	st->prev = -1;
	ember_buf_init(&st->text, 0);
	ember_buf_init(&st->count, 0);
	return st;
}

static void pmc_free(void *arg)
{
	struct pmc_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->text);
	ember_buf_release(&st->count);
	free(st->off);
	free(st->len);
	free(st);
}

/* pmcstat -G starts "@ EVENT [N samples]". */
static int pmc_detect(const char *p, size_t len)
{
	const char *nl = memchr(p, '\n', len);
	size_t n = nl ? (size_t)(nl - p) : len;

	return cl_starts(p, n, "@ ") && n > 9 &&
	       !memcmp(p + n - 9, " samples]", 9);
}

const struct ember_collapser ember_collapser_pmc = {
    .name = "pmc",
    .summary = "FreeBSD pmcstat -G call graphs (stackcollapse-pmc.pl)",
    .order = CL_INPUT,
    .detect = pmc_detect,
    .state_new = pmc_new,
    .state_free = pmc_free,
    .parse = pmc_parse,
    .end = pmc_end,
};
