/*
 * Xcode Instruments call trees (Edit > Deep Copy of the Time Profiler),
 * as stackcollapse-instruments.pl reads them: after a header line,
 * "6.90 s  99.1%\t0.5 ms\t \t   main" lines whose indentation after the
 * tabs is the depth; each line is printed at once, its callers (the last
 * names seen at the depths above) and its self weight in milliseconds,
 * rounded as printf("%.0f") rounds, in input order.
 */
#include <stdio.h>
#include <stdlib.h>

#include "layout.h"

struct ins_state {
	struct cl_header h; /* first: the state is a cl_header's */
	struct ember_buf text;
	size_t *off, *len; /* the name at each depth, in text */
	size_t alloc;
	char num[64];
};

static size_t digits(const char *s, size_t n, size_t i)
{
	while (i < n && cl_digit((unsigned char)s[i]))
		i++;
	return i;
}

/* "min", "s" or "ms" at i followed by c: its end, or 0 */
static size_t unit(const char *s, size_t n, size_t i, int c, double *f)
{
	static const struct {
		const char *u;
		double f;
	} units[] = {{"min", 60 * 1000}, {"s", 1000}, {"ms", 1}};

	for (size_t k = 0; k < 3; k++) {
		size_t m = strlen(units[k].u);
		if (i + m < n && !memcmp(s + i, units[k].u, m) &&
		    (c < 0 ? cl_space((unsigned char)s[i + m])
			   : s[i + m] == c)) {
			*f = units[k].f;
			return i + m;
		}
	}
	return 0;
}

/* /\d+\.\d+ (?:min|s|ms)\s+\d+\.\d+%\s+(\d+(?:\.\d+)?) (min|s|ms)\t \t
 * (\s*)(.+)/ matched at i: the self weight ($1, $2), the depth and the
 * name. */
static int match_at(const char *s, size_t n, size_t i, const char **w,
		    size_t *wn, double *f, size_t *depth, size_t *name)
{
	size_t j = digits(s, n, i), k;
	double f0;

	if (j == i || j >= n || s[j] != '.')
		return 0;
	k = digits(s, n, j + 1);
	if (k == j + 1 || k >= n || s[k] != ' ')
		return 0;
	if (!(j = unit(s, n, k + 1, -1, &f0)))
		return 0;
	while (j < n && cl_space((unsigned char)s[j]))
		j++;
	k = digits(s, n, j);
	if (k == j || k >= n || s[k] != '.')
		return 0;
	j = digits(s, n, k + 1);
	if (j == k + 1 || j >= n || s[j] != '%')
		return 0;
	k = ++j;
	while (j < n && cl_space((unsigned char)s[j]))
		j++;
	if (j == k)
		return 0;
	*w = s + j;
	k = digits(s, n, j);
	if (k == j)
		return 0;
	if (k < n && s[k] == '.' && digits(s, n, k + 1) > k + 1)
		k = digits(s, n, k + 1);
	if (k >= n || s[k] != ' ')
		return 0;
	*wn = (size_t)(s + k - *w);
	if (!(j = unit(s, n, k + 1, '\t', f)))
		return 0;
	if (!cl_starts(s + j, n - j, "\t \t"))
		return 0;
	j += 3;
	k = j;
	while (k < n && cl_space((unsigned char)s[k]))
		k++;
	if (k == n) { /* .+ takes a blank back */
		if (k == j)
			return 0;
		k--;
	}
	*depth = k - j;
	*name = k;
	return 1;
}

static void ins_line(void *arg, const char *s, size_t n)
{
	struct ins_state *st = arg;
	const char *w = NULL;
	size_t wn = 0, depth = 0, name = 0;
	double f = 1;
	size_t i;

	for (i = 0; i < n; i++)
		if (cl_digit((unsigned char)s[i]) &&
		    match_at(s, n, i, &w, &wn, &f, &depth, &name))
			break;
	if (i == n) {
		cl_bad(st->h.k, s, n); /* the script dies here */
		return;
	}
	if (depth >= st->alloc) {
		size_t o = st->alloc;
		st->alloc = depth + 64;
		st->off =
		    ember_xreallocarray(st->off, st->alloc, sizeof(*st->off));
		st->len =
		    ember_xreallocarray(st->len, st->alloc, sizeof(*st->len));
		for (size_t k = o; k < st->alloc; k++)
			st->len[k] = 0, st->off[k] = 0;
	}
	if (st->text.len > (64u << 10) + 64 * n) { /* compact the names */
		struct ember_buf t = EMBER_BUF_INIT;
		for (size_t k = 0; k < st->alloc; k++) {
			size_t at = t.len;
			ember_buf_add(&t, st->text.buf + st->off[k],
				      st->len[k]);
			st->off[k] = at;
		}
		ember_buf_release(&st->text);
		st->text = t;
	}
	st->off[depth] = st->text.len;
	st->len[depth] = n - name;
	ember_buf_add(&st->text, s + name, n - name);

	struct ember_buf *o = &st->h.k->out;
	for (size_t k = 0; k < depth; k++) {
		ember_buf_add(o, st->text.buf + st->off[k], st->len[k]);
		ember_buf_addch(o, ';');
	}
	ember_buf_add(o, s + name, n - name);
	size_t m = wn < sizeof(st->num) - 1 ? wn : sizeof(st->num) - 1;
	memcpy(st->num, w, m);
	st->num[m] = '\0';
	ember_buf_addf(o, " %.0f\n", strtod(st->num, NULL) * f);
	st->h.k->n.records++;
}

static void ins_parse(void *arg, const char *p, size_t len)
{
	cl_header_parse(arg, p, len, ins_line);
}

static void *ins_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	struct ins_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	cl_header_init(&st->h, k, NULL);
	ember_buf_init(&st->text, 0);
	return st;
}

static void ins_free(void *arg)
{
	struct ins_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->text);
	free(st->off);
	free(st->len);
	free(st);
}

/* The Deep Copy's header line. */
static int ins_detect(const char *p, size_t len)
{
	return cl_starts(p, len, "Weight\tSelf Weight\t");
}

const struct ember_collapser ember_collapser_instruments = {
    .name = "instruments",
    .summary = "Xcode Instruments call trees, Deep Copy "
	       "(stackcollapse-instruments.pl)",
    .order = CL_INPUT,
    .detect = ins_detect,
    .state_new = ins_new,
    .state_free = ins_free,
    .begin = cl_header_begin,
    .parse = ins_parse,
};
