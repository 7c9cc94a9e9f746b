/*
 * Intel VTune hotspots call stacks exported as CSV (amplxe-cl -R
 * top-down -call-stack-mode all -report-out x.csv -format csv), as
 * stackcollapse-vtune.pl reads them: after the header row, each row is
 * "  function,module,...,self-seconds", the leading blanks its depth;
 * rows with self time print at once, callers first, as
 * "module!function" frames and the self time in milliseconds.
 */
#include <stdlib.h>

#include "layout.h"

/* [0-9]*\.?[0-9]+ at s: its length, 0 if none */
static size_t number(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && cl_digit((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '.' && i + 1 < n &&
	    cl_digit((unsigned char)s[i + 1])) {
		i++;
		while (i < n && cl_digit((unsigned char)s[i]))
			i++;
	}
	return i;
}

static void vtune_line(void *arg, const char *s, size_t n)
{
	struct cl_vtune *st = arg;
	size_t w = 0, c3 = SIZE_MAX, c2 = SIZE_MAX, c1 = SIZE_MAX;

	cl_vtune_unquote(st, &s, &n);
	/* /(\s*)(.*),(.*),.*,([0-9]*\.?[0-9]+)/: the last comma a number
	 * follows, and the two commas before it */
	while (w < n && cl_space((unsigned char)s[w]))
		w++;
	for (size_t i = n; i-- > w;) {
		if (s[i] != ',')
			continue;
		if (c3 == SIZE_MAX) {
			if (number(s + i + 1, n - i - 1))
				c3 = i;
		} else if (c2 == SIZE_MAX) {
			c2 = i;
		} else {
			c1 = i;
			break;
		}
	}
	if (c1 == SIZE_MAX) {
		cl_bad(st->h.k, s, n); /* the script dies here */
		return;
	}
	ember_buf_reset(&st->func);
	ember_buf_add(&st->func, s + c1 + 1, c2 - c1 - 1);
	ember_buf_addch(&st->func, '!');
	ember_buf_add(&st->func, s + w, c1 - w);
	cl_depth_set(&st->d, w, st->func.buf, st->func.len);

	char num[64];
	size_t m = number(s + c3 + 1, n - c3 - 1);
	if (m >= sizeof(num))
		m = sizeof(num) - 1;
	memcpy(num, s + c3 + 1, m);
	num[m] = '\0';
	double ms = strtod(num, NULL) * 1000;
	if (ms != 0)
		cl_vtune_print(st, w, NULL, 0, ms);
}

static void vtune_parse(void *arg, const char *p, size_t len)
{
	cl_header_parse(arg, p, len, vtune_line);
}

static void *vtune_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	return cl_vtune_new(o, k, NULL);
}

/* VTune's English header: "Function Stack,Module,CPU Time:Total,...". */
static int vtune_detect(const char *p, size_t len)
{
	return cl_starts(p, len, "Function Stack,Module,CPU Time") ||
	       cl_starts(p, len, "\"Function Stack\",\"Module\",\"CPU Time");
}

const struct ember_collapser ember_collapser_vtune = {
    .name = "vtune",
    .summary = "Intel VTune hotspots call stacks, CSV "
	       "(stackcollapse-vtune.pl)",
    .order = CL_INPUT,
    .detect = vtune_detect,
    .state_new = vtune_new,
    .state_free = cl_vtune_free,
    .begin = cl_header_begin,
    .parse = vtune_parse,
};
