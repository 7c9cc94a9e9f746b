/*
 * Folded stacks read back: `folded` as they are (equal stacks summed,
 * for conversion to other formats), `recursive` with directly repeated
 * frames collapsed ("a;b;b;b;c" -> "a;b;c"), as stackcollapse-recursive.pl
 * does.  Lines are independent: there is no state between them.
 */
#include <stdlib.h>

#include "collapse.h"

struct recursive_state {
	struct collapse_sink *k;
	uint32_t *frames;
	size_t alloc;
	int keep_repeats; /* folded: "a;a" stays two frames */
};

static void recursive_parse(void *arg, const char *p, size_t len)
{
	struct recursive_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), sl;
		double count;
		st->k->n.lines++;
		if (ember_folded_split(s, n, &sl, &count) || !sl) {
			size_t i = 0;
			while (i < n && cl_space(s[i]))
				i++;
			if (i < n)
				cl_bad(st->k, s, n);
			continue;
		}
		/* the count: the digits after the stack and one space */
		const char *digits = s + sl + 1;
		size_t nd = n - sl - 1;
		/* split /;/ drops empty trailing frames; a frame equal to the
		 * one before it goes (the one before the first is "") */
		while (sl && s[sl - 1] == ';')
			sl--;
		const char *f = s, *last = "";
		size_t nf = 0, lastn = 0;
		while (f <= s + sl && sl) {
			const char *sc = memchr(f, ';', (size_t)(s + sl - f));
			size_t fl =
			    sc ? (size_t)(sc - f) : (size_t)(s + sl - f);
			if (st->keep_repeats || fl != lastn ||
			    memcmp(f, last, fl)) {
				EMBER_GROW(st->frames, nf + 1, st->alloc);
				st->frames[nf++] =
				    ember_intern(&st->k->names, f, fl);
				last = f;
				lastn = fl;
			}
			if (!sc)
				break;
			f = sc + 1;
		}
		if (memchr(digits, '.', nd))
			cl_add_nv(st->k, st->frames, nf, count);
		else
			cl_add_digits(st->k, st->frames, nf, digits, nd);
	}
}

static void recursive_end(void *arg)
{
	(void)arg;
}

static void recursive_begin(void *arg, const struct collapse_shared *sh,
			    int file_start)
{
	(void)arg;
	(void)sh;
	(void)file_start;
}

static void *recursive_new(const struct ember_collapse_options *o,
			   struct collapse_sink *k)
{
	struct recursive_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	return st;
}

static void recursive_free(void *arg)
{
	struct recursive_state *st = arg;

	if (st)
		free(st->frames);
	free(st);
}

/* Each line is a stack. */
static int recursive_boundary(const char *s, size_t n)
{
	(void)s;
	(void)n;
	return 1;
}

static size_t recursive_split(const char *p, size_t len, int file_start)
{
	(void)file_start;
	return cl_split_after(p, 0, len, recursive_boundary);
}

/* Counts may have fractions, whose sum in doubles depends on the order
 * of the additions: one thread keeps the input's order (folded input is
 * small and fast to read anyway). */
static int recursive_parallel(const struct ember_collapse_options *o)
{
	(void)o;
	return 0;
}

static void *folded_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct recursive_state *st = recursive_new(o, k);

	st->keep_repeats = 1;
	return st;
}

const struct ember_collapser ember_collapser_folded = {
    .name = "folded",
    .summary = "folded stacks as they are, to convert (--format pprof, ...)",
    .detect = NULL, /* not profiler output: drawn as it is */
    .parallel = recursive_parallel,
    .state_new = folded_new,
    .state_free = recursive_free,
    .begin = recursive_begin,
    .parse = recursive_parse,
    .end = recursive_end,
    .split = recursive_split,
};

const struct ember_collapser ember_collapser_recursive = {
    .name = "recursive",
    .summary = "folded stacks, direct recursion collapsed "
	       "(stackcollapse-recursive.pl)",
    .detect = NULL, /* folded input is not profiler output */
    .parallel = recursive_parallel,
    .state_new = recursive_new,
    .state_free = recursive_free,
    .begin = recursive_begin,
    .parse = recursive_parse,
    .end = recursive_end,
    .split = recursive_split,
};
