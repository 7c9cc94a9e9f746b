/*
 * A time range of `perf script` output, as range-perf.pl cuts it: the
 * samples from MIN to MAX seconds after the first sample (--timeraw: of
 * perf's own clock; --timezerosecs: after the first sample's whole
 * second), passed through as they are (comment lines dropped), for the
 * collapser after it; the output ends at the first sample after MAX.
 */
#include <math.h>
#include <stdlib.h>

#include "collapse.h"

struct range_state {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	double start;
	int ok, done;
};

/* ` *\S* *(\S+):` at t: the text before the event's ':' */
static int event_at(const char *t, size_t n)
{
	size_t i = 0;

	for (size_t q = 0; q < n; q++) {
		if (t[q] != ':' || !q || cl_space((unsigned char)t[q - 1]))
			continue;
		/* t[0..q) is " *\S* *\S+" */
		i = 0;
		while (i < q && t[i] == ' ')
			i++;
		while (i < q && !cl_space((unsigned char)t[i]))
			i++;
		while (i < q && t[i] == ' ')
			i++;
		while (i < q && !cl_space((unsigned char)t[i]))
			i++;
		if (i == q)
			return 1;
	}
	return 0;
}

/* / +([0-9\.]+): *\S* *(\S+):/: the timestamp of a sample's first line */
static int timestamp(const char *s, size_t n, double *ts)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != ' ')
			continue;
		size_t j = i;
		while (j < n && s[j] == ' ')
			j++;
		size_t d = j;
		while (j < n && (cl_digit((unsigned char)s[j]) || s[j] == '.'))
			j++;
		if (j > d && j < n && s[j] == ':' &&
		    event_at(s + j + 1, n - j - 1)) {
			*ts = ember_perl_number(s + d, j - d);
			return 1;
		}
		i = j - 1;
	}
	return 0;
}

static void range_parse(void *arg, const char *p, size_t len)
{
	struct range_state *st = arg;
	const char *end = p + len;

	while (p < end && !st->done) {
		const char *s, *raw = p;
		size_t n = cl_line(&p, end, &s);
		double ts, t;
		st->k->n.lines++;
		if (n && s[0] == '#')
			continue;
		if (timestamp(s, n, &ts)) {
			if (st->start == 0)
				st->start = ts;
			t = st->o->range_zerosecs ? ts - floor(st->start)
			    : st->o->range_raw	  ? ts
						  : ts - st->start;
			if (t >= st->o->range_min)
				st->ok = 1;
			if (t > st->o->range_max) {
				st->done = 1; /* exit */
				break;
			}
			st->k->n.records += st->ok;
		}
		if (st->ok)
			ember_buf_add(&st->k->out, raw, (size_t)(p - raw));
	}
}

static void *range_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct range_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->o = o;
	return st;
}

static void range_free(void *arg)
{
	free(arg);
}

const struct ember_collapser ember_collapser_range_perf = {
    .name = "range-perf",
    .summary = "a time range of perf script output, MIN MAX seconds "
	       "(range-perf.pl)",
    .order = CL_INPUT,
    .detect = NULL,
    .state_new = range_new,
    .state_free = range_free,
    .parse = range_parse,
};
