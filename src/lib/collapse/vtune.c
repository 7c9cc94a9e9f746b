/*
 * Intel VTune hotspots call stacks exported as CSV (amplxe-cl -R
 * top-down -call-stack-mode all -report-out x.csv -format csv), as
 * stackcollapse-vtune.pl reads them: after the header row, each row is
 * "  function,module,...,self-seconds", the leading blanks its depth;
 * rows with self time print at once, callers first, as
 * "module!function" frames and the self time in milliseconds.
 *
 * As inferno-collapse-vtune (o->inferno), another export: after the
 * header "Function Stack,CPU Time:Self,Module", rows
 * " function,self-seconds,module" ("function" quoted or not), one blank a
 * level; a row with self time sets (not adds) its stack of
 * "module`function" frames (--no-modules: "function") to the time in
 * whole milliseconds, and the stacks print sorted.  A row in no such
 * shape refuses the input.
 */
#include <math.h>
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

/* ---- inferno's reader ---- */

/* Rust's f64::from_str, near enough: all of it a number */
static int rust_f64(const char *s, size_t n, double *v)
{
	char num[64], *e;

	if (!n || n >= sizeof(num) || cl_space((unsigned char)s[0]))
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	if (memchr(num, 'x', n) || memchr(num, 'X', n))
		return 0;
	*v = strtod(num, &e);
	return *e == '\0';
}

static void inf_line(struct cl_vtune *st, const char *s, size_t n)
{
	struct collapse_sink *k = st->h.k;
	size_t sp = 0;

	while (sp < n && s[sp] == ' ')
		sp++;
	if (sp == n)
		return;
	size_t prev = st->stack.n, depth = sp + 1;
	if (depth <= prev) {
		for (size_t j = 0; j <= prev - depth; j++)
			cl_istack_pop(&st->stack);
	} else if (depth > prev + 1) {
		cl_inferno_error(k, "skipped indentation level", s, n);
		return;
	}
	/* function (quoted: up to '",'), CPU time, module (the rest) */
	const char *p = s + sp, *end = s + n, *fn = p, *sep;
	size_t fl;
	if (*p == '"') {
		fn = p + 1;
		sep = memmem(fn, (size_t)(end - fn), "\",", 2);
		fl = sep ? (size_t)(sep - fn) : 0;
		p = sep ? sep + 2 : NULL;
	} else {
		sep = memchr(p, ',', (size_t)(end - p));
		fl = sep ? (size_t)(sep - p) : 0;
		p = sep ? sep + 1 : NULL;
	}
	const char *t = p, *mod = "";
	size_t tl = 0, ml = 0;
	if (p) {
		sep = memchr(p, ',', (size_t)(end - p));
		tl = sep ? (size_t)(sep - p) : (size_t)(end - p);
		if (st->modules && !sep) {
			p = NULL;
		} else if (st->modules) {
			mod = sep + 1;
			ml = (size_t)(end - mod);
		}
	}
	if (!p) {
		cl_inferno_error(k, "cannot parse stack line", s, n);
		return;
	}
	double secs;
	if (!rust_f64(t, tl, &secs)) {
		cl_inferno_error(k, "invalid CPU Time:Self field", s, n);
		return;
	}
	ember_buf_reset(&st->func);
	if (ml) {
		ember_buf_add(&st->func, mod, ml);
		ember_buf_addch(&st->func, '`');
	}
	ember_buf_add(&st->func, fn, fl);
	cl_istack_push(&st->stack, st->func.buf, st->func.len, 0);
	/* Rust's `as u64`: saturating, NaN 0 */
	double ms = round(secs * 1000);
	uint64_t v = !(ms > 0)			    ? 0
		     : ms >= 18446744073709551615.0 ? UINT64_MAX
						    : (uint64_t)ms;
	if (v)
		cl_occ_set(&st->occ, st->stack.text.buf, st->stack.text.len, v);
}

static void inf_parse(struct cl_vtune *st, const char *s, size_t n)
{
	if (st->h.k->n.error[0])
		return;
	if (!st->started) {
		st->started =
		    cl_starts(s, n, "Function Stack,CPU Time:Self,Module");
		return;
	}
	n = cl_trim_end(s, n);
	if (n)
		inf_line(st, s, n);
}

static void vtune_end(void *arg)
{
	struct cl_vtune *st = arg;

	if (!st->inferno)
		return;
	if (!st->h.k->n.error[0])
		cl_occ_write(&st->occ, st->h.k);
	cl_occ_clear(&st->occ);
	st->started = 0;
	while (st->stack.n)
		cl_istack_pop(&st->stack);
}

static void vtune_parse(void *arg, const char *p, size_t len)
{
	struct cl_vtune *st = arg;
	const char *end = p + len;

	if (!st->inferno) {
		cl_header_parse(arg, p, len, vtune_line);
		return;
	}
	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->h.k->n.lines++;
		inf_parse(st, s, n);
	}
}

static void *vtune_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	return cl_vtune_new(o, k, NULL);
}

/* VTune's English header: "Function Stack,Module,CPU Time:Total,...",
 * or inferno's "Function Stack,CPU Time:Self,Module". */
static int vtune_detect(const char *p, size_t len)
{
	return cl_starts(p, len, "Function Stack,Module,CPU Time") ||
	       cl_starts(p, len, "Function Stack,CPU Time:Self,Module") ||
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
    .end = vtune_end,
};
