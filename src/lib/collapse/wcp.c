/*
 * wallClockProfiler's "Full stacks" section, as stackcollapse-wcp.pl
 * reads it: "12.34% ===== (42 samples)" heads a stack of "N: frame"
 * lines, leaf first (the frame is all the text after "N: ", "(at
 * file:line)" included), which a blank line ends; the stack counts the
 * samples of its head.  Lines are taken with their blanks trimmed.
 */
#include <stdlib.h>

#include "collapse.h"

struct wcp_state {
	struct collapse_sink *k;
	int started;
	struct cl_frames v; /* leaf first */
	char samples[32];   /* digits, as in the input */
	size_t nsamples;
};

static void wcp_parse(void *arg, const char *p, size_t len)
{
	struct wcp_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), i = 0;
		st->k->n.lines++;
		/* s/^\s+|\s+$//g */
		while (n && cl_space((unsigned char)s[0]))
			s++, n--;
		while (n && cl_space((unsigned char)s[n - 1]))
			n--;
		if (cl_starts(s, n, "Full stacks")) {
			st->started = 1;
			continue;
		}
		if (!st->started)
			continue;
		/* ^\d+\.\d+% =+ \((\d+) samples\) */
		while (i < n && cl_digit((unsigned char)s[i]))
			i++;
		if (i && i < n && s[i] == '.') {
			size_t j = i + 1, d, e;
			while (j < n && cl_digit((unsigned char)s[j]))
				j++;
			if (j > i + 1 && cl_starts(s + j, n - j, "% =")) {
				j += 2;
				while (j < n && s[j] == '=')
					j++;
				if (cl_starts(s + j, n - j, " (")) {
					d = e = j + 2;
					while (e < n &&
					       cl_digit((unsigned char)s[e]))
						e++;
					if (e > d &&
					    e - d < sizeof(st->samples) &&
					    cl_starts(s + e, n - e,
						      " samples)")) {
						memcpy(st->samples, s + d,
						       e - d);
						st->nsamples = e - d;
						continue;
					}
				}
			}
		}
		if (i && i + 1 < n && s[i] == ':' && s[i + 1] == ' ') {
			cl_frames_push_rev(st->k, &st->v, s + i + 2, n - i - 2);
		} else if (!n && st->v.n) {
			cl_frames_reverse(&st->v);
			if (st->nsamples)
				cl_add_digits(st->k, st->v.f, st->v.n,
					      st->samples, st->nsamples);
			else /* += 0 */
				cl_add_u64(st->k, st->v.f, st->v.n, 0);
			st->v.n = 0;
		}
	}
}

/* A stack not followed by a blank line is not counted, as in the
 * script. */
static void wcp_end(void *arg)
{
	struct wcp_state *st = arg;

	st->v.n = 0;
}

static void *wcp_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct wcp_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	return st;
}

static void wcp_free(void *arg)
{
	struct wcp_state *st = arg;

	if (st)
		free(st->v.f);
	free(st);
}

/* wallClockProfiler starts "Sampling stack while program runs...". */
static int wcp_detect(const char *p, size_t len)
{
	return cl_starts(p, len, "Sampling stack while program runs");
}

const struct ember_collapser ember_collapser_wcp = {
    .name = "wcp",
    .summary = "wallClockProfiler full stacks (stackcollapse-wcp.pl)",
    .detect = wcp_detect,
    .state_new = wcp_new,
    .state_free = wcp_free,
    .parse = wcp_parse,
    .end = wcp_end,
};
