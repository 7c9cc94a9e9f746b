/*
 * SystemTap stacks, as stackcollapse-stap.pl reads them: frame lines
 * (print_stack()/print_ustack(): " 0xaddr : func+0x1/0x2 [module]"),
 * leaf first, then a line holding only the count.  The state is the
 * frames read since the last count line.
 */
#include <stdlib.h>

#include "collapse.h"

struct stap_state {
	struct collapse_sink *k;
	uint32_t *frames; /* leaf first */
	size_t n, alloc;
};

static void stap_parse(void *arg, const char *p, size_t len)
{
	struct stap_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), d;
		st->k->n.lines++;
		if (cl_count_line(s, n, &d)) {
			cl_add_leaf_first(st->k, st->frames, st->n, s + d,
					  n - d);
			st->n = 0;
			continue;
		}
		if (cl_blank(s, n))
			continue;
		/* leading whitespace, the offset (from the last +) and the
		 * address (up to the last " : ") go; "-" if nothing is left */
		while (n && cl_space(s[0]))
			s++, n--;
		const char *plus = memrchr(s, '+', n);
		if (plus)
			n = (size_t)(plus - s);
		for (size_t i = n; i >= 3; i--) {
			if (s[i - 3] == ' ' && s[i - 2] == ':' &&
			    s[i - 1] == ' ') {
				s += i;
				n -= i;
				break;
			}
		}
		if (!n) {
			s = "-";
			n = 1;
		}
		/* a ';' in a frame makes two, as in the script's joined
		 * stacks; pushed leaf first */
		const char *e = s + n;
		for (;;) {
			const char *sc = memrchr(s, ';', (size_t)(e - s));
			const char *a = sc ? sc + 1 : s;
			EMBER_GROW(st->frames, st->n + 1, st->alloc);
			st->frames[st->n++] =
			    ember_intern(&st->k->names, a, (size_t)(e - a));
			if (!sc)
				break;
			e = sc;
		}
	}
}

static void stap_end(void *arg)
{
	struct stap_state *st = arg;

	if (st->n)
		st->k->n.truncated++;
	st->n = 0;
}

static void stap_begin(void *arg, const struct collapse_shared *sh,
		       int file_start)
{
	struct stap_state *st = arg;

	(void)sh;
	(void)file_start;
	st->n = 0;
}

static void *stap_new(const struct ember_collapse_options *o,
		      struct collapse_sink *k)
{
	struct stap_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	return st;
}

static void stap_free(void *arg)
{
	struct stap_state *st = arg;

	if (st)
		free(st->frames);
	free(st);
}

/* After the last count line of p. */
/* A stack ends at its count line. */
static int stap_boundary(const char *s, size_t n)
{
	size_t d;

	return cl_count_line(s, n, &d);
}

static size_t stap_split(const char *p, size_t len, int file_start)
{
	(void)file_start;
	return cl_split_after(p, 0, len, stap_boundary);
}

static int stap_parallel(const struct ember_collapse_options *o)
{
	(void)o;
	return 1;
}

/* print_stack()'s " 0x... : func+0x0/0x0 [module]" or print_ustack()'s
 * " 0x... [module+0x0]" first. */
static int stap_detect(const char *p, size_t len)
{
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 0;
		if (cl_blank(s, n))
			continue;
		while (i < n && cl_space(s[i]))
			i++;
		if (i + 3 > n || s[i] != '0' || s[i + 1] != 'x')
			return 0;
		i += 2;
		size_t h = i;
		while (i < n && ((s[i] >= '0' && s[i] <= '9') ||
				 (s[i] >= 'a' && s[i] <= 'f') ||
				 (s[i] >= 'A' && s[i] <= 'F')))
			i++;
		return i > h && i + 2 < n && s[i] == ' ' &&
		       (s[i + 1] == '[' ||
			(s[i + 1] == ':' && s[i + 2] == ' '));
	}
	return 0;
}

const struct ember_collapser ember_collapser_stap = {
    .name = "stap",
    .summary = "SystemTap print_stack()/print_ustack() dumps "
	       "(stackcollapse-stap.pl)",
    .detect = stap_detect,
    .parallel = stap_parallel,
    .state_new = stap_new,
    .state_free = stap_free,
    .begin = stap_begin,
    .parse = stap_parse,
    .end = stap_end,
    .split = stap_split,
};
