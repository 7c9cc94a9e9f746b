/*
 * Python faulthandler dumps (dump_traceback(), dump_traceback_later()),
 * as stackcollapse-faulthandler.pl reads them: '  File "f", line N in
 * func' frames, most recent first, become "f:N:func" frames; a "Thread"
 * line starts a stack afresh, any other line ends one, which counts once.
 */
#include <stdlib.h>

#include "collapse.h"

struct fh_state {
	struct collapse_sink *k;
	struct cl_frames v; /* leaf first */
	struct ember_buf tmp;
};

static void flush(struct fh_state *st)
{
	if (!st->v.n)
		return;
	cl_frames_reverse(&st->v);
	cl_add_u64(st->k, st->v.f, st->v.n, 1);
	st->v.n = 0;
}

/* m/^  File "([^"]*)", line ([0-9]*) in (.*)/ as "$1:$2:$3" in out */
static int frame(const char *s, size_t n, struct ember_buf *out)
{
	const char *end = s + n, *q, *d;

	if (!cl_starts(s, n, "  File \""))
		return 0;
	s += 8;
	q = memchr(s, '"', (size_t)(end - s));
	if (!q || !cl_starts(q, (size_t)(end - q), "\", line "))
		return 0;
	d = q + 8;
	while (d < end && cl_digit(*d))
		d++;
	if (!cl_starts(d, (size_t)(end - d), " in "))
		return 0;
	ember_buf_reset(out);
	ember_buf_add(out, s, (size_t)(q - s));
	ember_buf_addch(out, ':');
	ember_buf_add(out, q + 8, (size_t)(d - q - 8));
	ember_buf_addch(out, ':');
	ember_buf_add(out, d + 4, (size_t)(end - d - 4));
	return 1;
}

static void fh_parse(void *arg, const char *p, size_t len)
{
	struct fh_state *st = arg;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		st->k->n.lines++;
		if (cl_starts(s, n, "Thread"))
			st->v.n = 0;
		else if (frame(s, n, &st->tmp))
			cl_frames_push_rev(st->k, &st->v, st->tmp.buf,
					   st->tmp.len);
		else
			flush(st);
	}
}

static void fh_end(void *arg)
{
	flush(arg);
}

static void *fh_new(const struct ember_collapse_options *o,
		    struct collapse_sink *k)
{
	struct fh_state *st = ember_xcalloc(1, sizeof(*st));

	(void)o;
	st->k = k;
	ember_buf_init(&st->tmp, 0);
	return st;
}

static void fh_free(void *arg)
{
	struct fh_state *st = arg;

	if (!st)
		return;
	free(st->v.f);
	ember_buf_release(&st->tmp);
	free(st);
}

/* faulthandler's "(most recent call first):" header, then a frame. */
static int fh_detect(const char *p, size_t len)
{
	const char *end = p + len;
	int header = 0;
	struct ember_buf tmp = EMBER_BUF_INIT;
	int found = 0;

	for (int lines = 0; p < end && lines < 50 && !found; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (header)
			found = frame(s, n, &tmp);
		header =
		    n > 26 &&
		    !memcmp(s + n - 26, " (most recent call first):", 26) &&
		    (cl_starts(s, n, "Thread 0x") ||
		     cl_starts(s, n, "Current thread 0x") ||
		     cl_starts(s, n, "Stack "));
	}
	ember_buf_release(&tmp);
	return found;
}

const struct ember_collapser ember_collapser_faulthandler = {
    .name = "faulthandler",
    .summary = "Python faulthandler tracebacks "
	       "(stackcollapse-faulthandler.pl)",
    .detect = fh_detect,
    .state_new = fh_new,
    .state_free = fh_free,
    .parse = fh_parse,
    .end = fh_end,
};
