/*
 * `go tool pprof -raw` output, as stackcollapse-go.pl reads it: after
 * "Samples:", "  N  V: loc loc ..." lines (the first value counts; the
 * locations leaf first), after "Locations", "  ID: 0xADDR M=N func file"
 * lines naming each location by its first function (inlined callers on
 * the continuation lines are not frames); "Mappings" ends the input.
 *
 * The names come after the samples: the samples are kept by their
 * location lists (as text, summed) and named at the end; memory grows
 * with the distinct location lists and locations.
 */
#include <stdlib.h>

#include "collapse.h"

enum { GO_IGNORE, GO_SAMPLE, GO_LOCATION, GO_DONE };

struct go_state {
	struct collapse_sink *k;
	int state;
	struct ember_intern keys; /* location lists, as text */
	uint64_t *counts;	  /* by key */
	size_t acounts;
	struct ember_intern locs; /* location ids (text) ... */
	uint32_t *names;	  /* ... -> index in fnames + 1 (0: none) */
	size_t anames;
	struct ember_intern fnames;
	struct cl_frames v;
};

/* /^\s*([0-9]+)\s*[0-9]+: ([0-9 ]+)/ with its backtracking: the first
 * number (one digit shorter when the two touch) and the list. */
static int sample(const char *s, size_t n, uint64_t *count, const char **l,
		  size_t *ln)
{
	size_t i = 0, a, b, c;

	while (i < n && cl_space(s[i]))
		i++;
	a = i;
	while (i < n && cl_digit(s[i]))
		i++;
	b = i;
	if (b == a)
		return 0;
	while (i < n && cl_space(s[i]))
		i++;
	c = i;
	while (i < n && cl_digit(s[i]))
		i++;
	if (c == b && i == c) {
		/* "12: ...": the second number is the last digit */
		if (b - a < 2)
			return 0;
		c = b - 1;
		b = c;
	} else if (i == c) {
		return 0;
	}
	if (i + 1 >= n || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	i += 2;
	size_t e = i;
	while (e < n && (cl_digit(s[e]) || s[e] == ' '))
		e++;
	if (e == i)
		return 0;
	*count = 0;
	for (size_t j = a; j < b; j++)
		*count = *count * 10 + (uint64_t)(s[j] - '0');
	*l = s + i;
	*ln = e - i;
	return 1;
}

/* /^\s*([0-9]*): 0x[0-9a-f]+ (M=[0-9]+ )?([^ ]+) .*\/ */
static int location(const char *s, size_t n, const char **id, size_t *idn,
		    const char **f, size_t *fn)
{
	size_t i = 0, h;

	while (i < n && cl_space(s[i]))
		i++;
	*id = s + i;
	while (i < n && cl_digit(s[i]))
		i++;
	*idn = (size_t)(s + i - *id);
	if (!cl_starts(s + i, n - i, ": 0x"))
		return 0;
	i += 4;
	h = i;
	while (i < n && (cl_digit(s[i]) || (s[i] >= 'a' && s[i] <= 'f')))
		i++;
	if (i == h || i >= n || s[i] != ' ')
		return 0;
	i++;
	for (int m = 1; m >= 0; m--) {
		size_t j = i;
		if (m) {
			if (!cl_starts(s + j, n - j, "M="))
				continue;
			j += 2;
			size_t d = j;
			while (j < n && cl_digit(s[j]))
				j++;
			if (j == d || j >= n || s[j] != ' ')
				continue;
			j++;
		}
		const char *sp = memchr(s + j, ' ', n - j);
		if (!sp || sp == s + j)
			continue;
		*f = s + j;
		*fn = (size_t)(sp - (s + j));
		return 1;
	}
	return 0;
}

static void go_parse(void *arg, const char *p, size_t len)
{
	struct go_state *st = arg;
	const char *end = p + len;

	while (p < end && st->state != GO_DONE) {
		const char *s, *a, *b;
		size_t n = cl_line(&p, end, &s), an, bn;
		uint64_t count;
		st->k->n.lines++;
		if (n && s[0] == '#')
			continue;
		switch (st->state) {
		case GO_IGNORE:
			if (memmem(s, n, "Samples:", 8))
				st->state = GO_SAMPLE;
			break;
		case GO_SAMPLE:
			if (sample(s, n, &count, &a, &an)) {
				uint32_t id = ember_intern(&st->keys, a, an);
				if (id >= st->acounts) {
					size_t o = st->acounts;
					EMBER_GROW(st->counts, id + 1,
						   st->acounts);
					memset(st->counts + o, 0,
					       (st->acounts - o) *
						   sizeof(*st->counts));
				}
				st->counts[id] += count;
			} else if (memmem(s, n, "Locations", 9)) {
				st->state = GO_LOCATION;
			}
			break;
		case GO_LOCATION:
			if (location(s, n, &a, &an, &b, &bn)) {
				uint32_t id = ember_intern(&st->locs, a, an);
				if (id >= st->anames) {
					size_t o = st->anames;
					EMBER_GROW(st->names, id + 1,
						   st->anames);
					memset(st->names + o, 0,
					       (st->anames - o) *
						   sizeof(*st->names));
				}
				st->names[id] =
				    ember_intern(&st->fnames, b, bn) + 1;
			} else if (memmem(s, n, "Mappings", 8)) {
				st->state = GO_DONE;
			}
			break;
		}
	}
}

/* Names each list's locations (a location without a name, or named
 * "0", Perl's false, stays a number) and adds the stacks. */
static void go_end(void *arg)
{
	struct go_state *st = arg;
	size_t nk = ember_intern_count(&st->keys);

	for (size_t i = 0; i < nk; i++) {
		size_t kn;
		const char *key = ember_intern_str(&st->keys, (uint32_t)i, &kn);
		const char *e = key + kn;
		st->v.n = 0;
		/* split / /: empty fields kept but the trailing ones */
		while (e > key && e[-1] == ' ')
			e--;
		for (const char *f = key; f <= e;) {
			const char *sp = memchr(f, ' ', (size_t)(e - f));
			size_t fn = sp ? (size_t)(sp - f) : (size_t)(e - f);
			const char *name = f;
			size_t nn = fn;
			uint32_t loc = ember_intern_find(&st->locs, f, fn);
			if (loc < st->anames && st->names[loc]) {
				name = ember_intern_str(
				    &st->fnames, st->names[loc] - 1, &nn);
				if (nn == 1 && name[0] == '0')
					name = f, nn = fn;
			}
			cl_frames_push_rev(st->k, &st->v, name, nn);
			if (!sp)
				break;
			f = sp + 1;
		}
		if (e == key)
			st->v.n = 0; /* an empty list: an empty stack */
		cl_frames_reverse(&st->v);
		cl_add_u64(st->k, st->v.f, st->v.n, st->counts[i]);
	}
	if (st->acounts)
		memset(st->counts, 0, st->acounts * sizeof(*st->counts));
	if (st->anames)
		memset(st->names, 0, st->anames * sizeof(*st->names));
	ember_intern_release(&st->keys);
	ember_intern_init(&st->keys);
	ember_intern_release(&st->locs);
	ember_intern_init(&st->locs);
	ember_intern_release(&st->fnames);
	ember_intern_init(&st->fnames);
	st->state = GO_IGNORE;
}

static void *go_new(const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	struct go_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	ember_intern_init(&st->keys);
	ember_intern_init(&st->locs);
	ember_intern_init(&st->fnames);
	return st;
}

static void go_free(void *arg)
{
	struct go_state *st = arg;

	if (!st)
		return;
	ember_intern_release(&st->keys);
	ember_intern_release(&st->locs);
	ember_intern_release(&st->fnames);
	free(st->counts);
	free(st->names);
	free(st->v.f);
	free(st);
}

/* pprof -raw starts "PeriodType: " and has "Samples:". */
static int go_detect(const char *p, size_t len)
{
	const char *end = p + len, *s;
	size_t n;

	if (p == end)
		return 0;
	n = cl_line(&p, end, &s);
	return cl_starts(s, n, "PeriodType: ") &&
	       memmem(p, (size_t)(end - p), "\nSamples:", 9);
}

const struct ember_collapser ember_collapser_go = {
    .name = "go",
    .summary = "Go pprof profiles, go tool pprof -raw "
	       "(stackcollapse-go.pl)",
    .detect = go_detect,
    .state_new = go_new,
    .state_free = go_free,
    .parse = go_parse,
    .end = go_end,
};
