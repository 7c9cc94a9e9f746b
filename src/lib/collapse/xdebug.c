/*
 * Xdebug function traces (xdebug.trace_format=1), as
 * stackcollapse-xdebug.php reads them: after "TRACE START", entry lines
 * "level\tfn\t0\ttime\tmemory\tname..." push a frame and exit lines
 * "level\tfn\t1\ttime..." pop one (runs of tabs count as one: the script
 * squeezes them in its input file first); a line starting with a tab or
 * "TRACE END" ends the trace.  With -t (the default) each stack is
 * weighted by the time spent in it, in microseconds; with -c each exit
 * after an entry counts its stack once.  The stacks come out in the order
 * first seen (a PHP array), the times as PHP prints floats.
 */
#include <stdio.h>
#include <stdlib.h>

#include "collapse.h"

struct xdebug_state {
	struct collapse_sink *k;
	int counts;
	int started, ended, was_exit;
	struct ember_buf stack; /* the names, ';'-joined */
	size_t *ends;
	size_t n, alloc;
	double prev_time;
	struct ember_intern keys;
	double *sums;
	size_t asums;
};

/* PHP's float to string with precision=14 (zend_gcvt). */
static void php_float(struct ember_buf *o, double x)
{
	char buf[64], digits[32];
	size_t nd = 0;
	int exp10;

	if (x == 0) {
		ember_buf_adds(o, __builtin_signbit(x) ? "-0" : "0");
		return;
	}
	if (x != x) {
		ember_buf_adds(o, "NAN");
		return;
	}
	if (__builtin_isinf(x)) {
		ember_buf_adds(o, x < 0 ? "-INF" : "INF");
		return;
	}
	snprintf(buf, sizeof(buf), "%.13e", x);
	const char *p = buf;
	if (*p == '-') {
		ember_buf_addch(o, '-');
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (cl_digit((unsigned char)*p))
			digits[nd++] = *p;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = '\0';
	exp10 = atoi(p + 1);
	int decpt = exp10 + 1;
	if (decpt < -3 || decpt > 14) {
		ember_buf_addch(o, digits[0]);
		ember_buf_addch(o, '.');
		if (nd == 1)
			ember_buf_addch(o, '0');
		else
			ember_buf_add(o, digits + 1, nd - 1);
		ember_buf_addf(o, "E%c%d", exp10 < 0 ? '-' : '+',
			       exp10 < 0 ? -exp10 : exp10);
	} else if (decpt >= 0) {
		for (int i = 0; i < decpt; i++)
			ember_buf_addch(o, (size_t)i < nd ? digits[i] : '0');
		if ((size_t)decpt < nd) {
			if (!decpt)
				ember_buf_addch(o, '0');
			ember_buf_addch(o, '.');
			ember_buf_add(o, digits + decpt, nd - (size_t)decpt);
		}
	} else {
		ember_buf_adds(o, "0.");
		for (int i = decpt; i < 0; i++)
			ember_buf_addch(o, '0');
		ember_buf_add(o, digits, nd);
	}
}

/* PHP's number of a string in arithmetic: a leading decimal number, or 0 */
static double php_num(const char *s, size_t n)
{
	char num[64];
	size_t i = 0, m = 0;

	while (i < n && cl_space((unsigned char)s[i]))
		i++;
	while (i < n && m < sizeof(num) - 1 &&
	       (cl_digit((unsigned char)s[i]) || s[i] == '.' || s[i] == 'e' ||
		s[i] == 'E' ||
		((s[i] == '-' || s[i] == '+') &&
		 (m == 0 || num[m - 1] == 'e' || num[m - 1] == 'E'))))
		num[m++] = s[i++];
	num[m] = '\0';
	return strtod(num, NULL);
}

static void add(struct xdebug_state *st, double v)
{
	uint32_t id = ember_intern(&st->keys, st->stack.buf, st->stack.len);

	if (id >= st->asums) {
		size_t o = st->asums;
		EMBER_GROW(st->sums, (size_t)id + 1, st->asums);
		memset(st->sums + o, 0, (st->asums - o) * sizeof(*st->sums));
	}
	st->sums[id] += v;
	st->k->n.records++;
}

static void push(struct xdebug_state *st, const char *s, size_t n)
{
	if (st->n)
		ember_buf_addch(&st->stack, ';');
	ember_buf_add(&st->stack, s, n);
	EMBER_GROW(st->ends, st->n + 1, st->alloc);
	st->ends[st->n++] = st->stack.len;
}

static void pop(struct xdebug_state *st)
{
	if (!st->n)
		return;
	st->n--;
	ember_buf_setlen(&st->stack, st->n ? st->ends[st->n - 1] : 0);
}

static void line(struct xdebug_state *st, const char *s, size_t n)
{
	const char *f[6] = {0};
	size_t fl[6] = {0}, nf = 0, i = 0;

	/* explode("\t") of the line with its runs of tabs squeezed */
	for (;;) {
		size_t a = i;
		while (i < n && s[i] != '\t')
			i++;
		if (nf < 6) {
			f[nf] = s + a;
			fl[nf] = i - a;
		}
		nf++;
		if (i == n)
			break;
		while (i < n && s[i] == '\t')
			i++;
	}
	const char *ex = nf > 2 ? f[2] : "";
	size_t exn = nf > 2 ? fl[2] : 0;
	if (st->counts) {
		if (exn == 1 && ex[0] == '1') {
			if (!st->was_exit)
				add(st, 1);
			pop(st);
			st->was_exit = 1;
		} else {
			push(st, nf > 5 ? f[5] : "", nf > 5 ? fl[5] : 0);
			st->was_exit = 0;
		}
		return;
	}
	double t = nf > 3 ? php_num(f[3], fl[3]) : 0;
	if (exn && !(exn == 1 && ex[0] == '0')) { /* PHP's true string */
		if (!st->n) {
			cl_bad(st->k, s, n); /* an exit without its entry */
			return;
		}
		add(st, 1000000 * (t - st->prev_time));
		pop(st);
	} else {
		if (st->n)
			add(st, 1000000 * (t - st->prev_time));
		push(st, nf > 5 ? f[5] : "", nf > 5 ? fl[5] : 0);
	}
	st->prev_time = t;
}

static void xdebug_parse(void *arg, const char *p, size_t len)
{
	struct xdebug_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->k->n.lines++;
		if (st->ended)
			continue;
		if (!st->started) {
			st->started = cl_starts(s, n, "TRACE START");
			continue;
		}
		if ((n && s[0] == '\t') || cl_starts(s, n, "TRACE END")) {
			st->ended = 1;
			continue;
		}
		line(st, s, n);
	}
}

/* The stacks in the order first seen; the input's state starts afresh. */
static void xdebug_end(void *arg)
{
	struct xdebug_state *st = arg;
	struct ember_buf *o = &st->k->out;
	size_t nk = ember_intern_count(&st->keys);

	for (size_t i = 0; i < nk; i++) {
		size_t kn;
		const char *key = ember_intern_str(&st->keys, (uint32_t)i, &kn);
		ember_buf_add(o, key, kn);
		ember_buf_addch(o, ' ');
		if (st->counts)
			ember_buf_addf(o, "%.0f", st->sums[i]);
		else
			php_float(o, st->sums[i]);
		ember_buf_addch(o, '\n');
	}
	ember_intern_release(&st->keys);
	ember_intern_init(&st->keys);
	if (st->asums)
		memset(st->sums, 0, st->asums * sizeof(*st->sums));
	st->started = st->ended = st->was_exit = 0;
	st->n = 0;
	ember_buf_reset(&st->stack);
	st->prev_time = 0;
}

static void *xdebug_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	struct xdebug_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->counts = o->xdebug_counts;
	ember_buf_init(&st->stack, 0);
	ember_intern_init(&st->keys);
	return st;
}

static void xdebug_free(void *arg)
{
	struct xdebug_state *st = arg;

	if (!st)
		return;
	ember_buf_release(&st->stack);
	ember_intern_release(&st->keys);
	free(st->ends);
	free(st->sums);
	free(st);
}

/* "TRACE START [" among the first lines. */
static int xdebug_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 5; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (cl_starts(s, n, "TRACE START ["))
			return 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_xdebug = {
    .name = "xdebug",
    .summary = "Xdebug function traces, trace_format=1 "
	       "(stackcollapse-xdebug.php)",
    .order = CL_INPUT,
    .detect = xdebug_detect,
    .state_new = xdebug_new,
    .state_free = xdebug_free,
    .parse = xdebug_parse,
    .end = xdebug_end,
};
