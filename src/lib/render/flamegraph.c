/*
 * flamegraph.pl's renderer: folded lines in, SVG out.
 *
 * Lines are parsed once (stack and one or two counts, with the Perl
 * script's regular expression), sorted as whole lines in byte order unless
 * this is a flame chart, and fed to the tree, which merges them as Perl's
 * flow() does.  Boxes narrower than --minwidth are dropped as they close,
 * so memory grows with what is drawn, not with the input.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fg.h"

void ember_fg_options_init(struct ember_fg_options *o)
{
	memset(o, 0, sizeof(*o));
	o->width = 1200;
	o->height = 16;
	o->minwidth = 0.1;
	o->fonttype = "Verdana";
	o->fontsize = 12;
	o->fontwidth = 0.59;
	o->countname = "samples";
	o->nametype = "Function:";
	o->colors = "hot";
	o->factor = 1;
}

struct ember_flamegraph *ember_flamegraph_new(const struct ember_fg_options *o)
{
	struct ember_flamegraph *fg = ember_xcalloc(1, sizeof(*fg));

	fg->o = *o;
	ember_arena_init(&fg->arena);
	return fg;
}

void ember_flamegraph_free(struct ember_flamegraph *fg)
{
	if (!fg)
		return;
	free(fg->lines);
	ember_arena_release(&fg->arena);
	free(fg);
}

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/*
 * `^(.*)\s+?(\d+(?:\.\d*)?)$`: the count is what follows the last
 * whitespace character, if it is digits with an optional fraction; the
 * stack is everything before that character.  Returns the stack's length,
 * or -1 when the line does not match.
 */
static long split_count(const char *s, size_t len, double *count)
{
	size_t i = len, dot = 0, ndig = 0;
	uint64_t v = 0;

	while (i > 0 && !is_space((unsigned char)s[i - 1]))
		i--;
	if (i == 0)
		return -1; /* no whitespace */
	for (size_t j = i; j < len; j++) {
		unsigned char c = (unsigned char)s[j];
		if (c >= '0' && c <= '9') {
			if (!dot)
				ndig++;
			if (v < 100000000000000ull)
				v = v * 10 + (c - '0');
		} else if (c == '.' && !dot && ndig) {
			dot = j;
		} else {
			return -1;
		}
	}
	if (!ndig)
		return -1;
	if (!dot && ndig <= 15) {
		*count = (double)v;
	} else {
		char tmp[64];
		size_t n = len - i;
		if (n < sizeof(tmp)) {
			memcpy(tmp, s + i, n);
			tmp[n] = '\0';
			*count = strtod(tmp, NULL);
		} else {
			char *big = ember_xmemdup(s + i, n);
			*count = strtod(big, NULL);
			free(big);
		}
	}
	return (long)(i - 1);
}

/* Parses one line into l; returns 0, or -1 for an invalid line. */
static int parse_line(const char *s, size_t len, struct fg_line *l)
{
	double c1, c2;
	long st = split_count(s, len, &c1);

	if (st < 0)
		return -1;
	l->s = s;
	l->len = (uint32_t)len;
	l->stack_len = (uint32_t)st;
	l->c1 = c1;
	l->c2 = 0;
	l->two = 0;
	/* a second count column makes a differential line */
	long st2 = split_count(s, (size_t)st, &c2);
	if (st2 >= 0) {
		l->stack_len = (uint32_t)st2;
		l->c1 = c2;
		l->c2 = c1;
		l->two = 1;
	}
	return 0;
}

void ember_flamegraph_add(struct ember_flamegraph *fg, const char *name,
			  const char *data, size_t len)
{
	const char *p = data, *end = data + len;
	size_t lineno = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t n = (size_t)(eol - p);
		struct fg_line l;

		lineno++;
		fg->nlines_in++;
		if (n && p[n - 1] == '\r')
			n--; /* CRLF input */
		if (n > UINT32_MAX || parse_line(p, n, &l) < 0) {
			if (!fg->ignored++) {
				fg->first_bad_name = name;
				fg->first_bad_line = lineno;
			}
		} else {
			EMBER_GROW(fg->lines, fg->nlines + 1, fg->alines);
			fg->lines[fg->nlines++] = l;
		}
		p = nl ? nl + 1 : end;
	}
}

/* Perl's split(";", $stack): fields between ';', trailing empty ones
 * dropped.  Returns the number of frames. */
static size_t split_frames(const char *s, size_t len, struct ember_slice **fr,
			   size_t *afr)
{
	size_t n = 0, keep = 0;
	const char *p = s, *end = s + len;

	if (!len)
		return 0;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *fe = semi ? semi : end;
		EMBER_GROW(*fr, n + 1, *afr);
		(*fr)[n].s = p;
		(*fr)[n].len = (size_t)(fe - p);
		n++;
		if (fe > p)
			keep = n;
		if (!semi)
			break;
		p = semi + 1;
	}
	return keep;
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct fg_line *a = pa, *b = pb;
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->s, b->s, m);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* --reverse: rebuild each line with its frames in reverse order. */
static void reverse_lines(struct ember_flamegraph *fg)
{
	struct ember_slice *fr = NULL;
	size_t afr = 0;

	for (size_t i = 0; i < fg->nlines; i++) {
		struct fg_line *l = &fg->lines[i];
		size_t n = split_frames(l->s, l->stack_len, &fr, &afr);
		size_t tail = l->len - l->stack_len; /* " count[ count2]" */
		char *out = ember_arena_alloc(&fg->arena, l->len + 1);
		size_t pos = 0;
		for (size_t j = n; j-- > 0;) {
			memcpy(out + pos, fr[j].s, fr[j].len);
			pos += fr[j].len;
			if (j)
				out[pos++] = ';';
		}
		memcpy(out + pos, l->s + l->stack_len, tail);
		l->s = out;
		l->stack_len = (uint32_t)pos;
		l->len = (uint32_t)(pos + tail);
	}
	free(fr);
}

/*
 * --colors chain: frames after a "--" separator are the waker's and get
 * "_[w]"; a stack without one gets a trailing "--" frame (flamegraph.pl
 * does both with string edits on ";--;", reproduced here).
 */
static void chain_stack(struct ember_flamegraph *fg, struct fg_line *l,
			struct ember_buf *b)
{
	const char *s = l->s, *end = l->s + l->stack_len;
	const char *sep = memmem(s, l->stack_len, ";--;", 4);

	ember_buf_reset(b);
	ember_buf_add(b, s, (size_t)((sep ? sep : end) - s));
	ember_buf_add(b, ";--;", 4);
	int first = 1;
	/* Perl's split drops trailing empty parts */
	while (sep) {
		const char *part = sep + 4;
		sep = memmem(part, (size_t)(end - part), ";--;", 4);
		const char *pe = sep ? sep : end;
		if (pe == part && !sep)
			break;
		if (!first)
			ember_buf_add(b, ";--;", 4);
		first = 0;
		for (const char *c = part; c < pe; c++) {
			if (*c == ';')
				ember_buf_adds(b, "_[w]");
			ember_buf_addch(b, *c);
		}
		ember_buf_adds(b, "_[w]");
	}
	l->s = ember_arena_strndup(&fg->arena, b->buf, b->len);
	l->stack_len = (uint32_t)b->len;
}

int ember_flamegraph_render(struct ember_flamegraph *fg, ember_write_fn w,
			    void *ctx, struct ember_fg_stats *stats)
{
	const struct ember_fg_options *o = &fg->o;
	struct ember_slice *fr = NULL;
	size_t afr = 0;
	struct ember_buf tmp = EMBER_BUF_INIT;
	double time = 0, maxdelta = 1;
	int err;

	if (o->reverse)
		reverse_lines(fg);
	for (size_t i = 0; i < fg->nlines; i++) {
		const struct fg_line *l = &fg->lines[i];
		time += l->two ? l->c2 : l->c1;
		if (l->two && fabs(l->c2 - l->c1) > maxdelta)
			maxdelta = fabs(l->c2 - l->c1);
	}
	if (!o->flamechart) {
		int sorted = 1;
		for (size_t i = 1; i < fg->nlines && sorted; i++)
			sorted = cmp_line(&fg->lines[i - 1], &fg->lines[i]) <= 0;
		if (!sorted)
			qsort(fg->lines, fg->nlines, sizeof(*fg->lines),
			      cmp_line);
	}

	memset(stats, 0, sizeof(*stats));
	stats->lines = fg->nlines_in;
	stats->ignored = fg->ignored;
	stats->first_bad_name = fg->first_bad_name;
	stats->first_bad_line = fg->first_bad_line;
	stats->total = time;

	if (time <= 0 || fg->nlines == 0) {
		err = ember_fg_write_error(fg, w, ctx);
		return err ? err : EMBER_EEMPTY;
	}

	double timemax = time;
	if (o->total > 0 && o->total >= time)
		timemax = o->total;
	else if (o->total > 0 && o->total / time > 0.02)
		stats->total_ignored = 1;
	double wpt = (o->width - 2 * EMBER_FG_XPAD) / timemax;
	double minwidth_time = o->minwidth_pct ? timemax * o->minwidth / 100
					       : o->minwidth / wpt;

	struct ember_tree tree;
	ember_tree_init(&tree, minwidth_time);
	for (size_t i = 0; i < fg->nlines; i++) {
		struct fg_line *l = &fg->lines[i];
		if (o->colors && !strcmp(o->colors, "chain"))
			chain_stack(fg, l, &tmp);
		size_t n = split_frames(l->s, l->stack_len, &fr, &afr);
		double delta = l->c2 - l->c1;
		ember_tree_flow(&tree, fr, n, l->two ? l->c2 : l->c1,
				l->two ? &delta : NULL);
	}
	ember_tree_finish(&tree);
	free(fr);
	ember_buf_release(&tmp);

	struct fg_layout lay = {
		.time = time,
		.timemax = timemax,
		.wpt = wpt,
		.maxdelta = maxdelta,
	};
	err = ember_fg_write_svg(fg, &tree, &lay, w, ctx, &stats->bad_file);
	stats->frames = tree.n;
	ember_tree_release(&tree);
	return err;
}
