/*
 * flamegraph.pl's renderer: folded lines in, SVG out.
 *
 * Lines are read as they come and kept once each with the number of times
 * they came (a flame chart keeps runs of one line in time order), so
 * memory grows with the distinct lines, not with the input.  Each distinct
 * line is parsed once (stack and one or two counts, with the Perl script's
 * regular expression); the lines are sorted in byte order unless this is
 * a flame chart and fed to the tree, which merges them as Perl's flow()
 * does, each as many times as it came: the counts are summed in the
 * script's order.  Boxes narrower than --minwidth are dropped as they
 * close, so the tree grows with what is drawn.
 *
 * Folded input is usually sorted, and neighbours share most frames.  So
 * lines are front-coded as they come: each is compared with the one
 * before (kept whole), and only the bytes from the first frame that
 * differs on are stored (`pre` bytes are the previous line's).  While
 * every line is greater than the one before, a line can repeat no earlier
 * line but the last, and nothing is hashed; the first line out of order
 * turns the lines whole and hashes them (a flame chart never hashes).
 * A front-coded line's frames all lie in its own bytes or in earlier
 * lines' (they start after a ';'), so the tree's names point into them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
	fg->maxdelta = 1;
	fg->coded = 1;
	fg->sorted = !o->flamechart;
	ember_buf_init(&fg->prev, 0);
	fg->last_s = fg->prev.buf;
	ember_arena_init(&fg->arena);
	ember_arena_init(&fg->tails);
	return fg;
}

void ember_flamegraph_set_countname(struct ember_flamegraph *fg,
				    const char *countname)
{
	fg->o.countname = countname;
}

void ember_flamegraph_set_prof(struct ember_flamegraph *fg,
			       const struct ember_prof *prof)
{
	fg->prof = prof;
}

void ember_flamegraph_free(struct ember_flamegraph *fg)
{
	if (!fg)
		return;
	free(fg->lines);
	free(fg->slots);
	ember_buf_release(&fg->prev);
	ember_arena_release(&fg->arena);
	ember_arena_release(&fg->tails);
	free(fg);
}

/* Parses one line into l; returns 0, or -1 for an invalid line.  inferno
 * keeps the whole part of the counts (and warns of the rest). */
static int parse_line(struct ember_flamegraph *fg, const char *s, size_t len,
		      struct fg_line *l)
{
	double c1, c2;
	size_t st, st2;

	if (ember_folded_split(s, len, &st, &c1))
		return -1;
	l->s = s;
	l->len = (uint32_t)len;
	l->stack_len = (uint32_t)st;
	l->c1 = c1;
	l->c2 = 0;
	l->two = 0;
	/* a second count column makes a differential line */
	if (!ember_folded_split(s, st, &st2, &c2)) {
		l->stack_len = (uint32_t)st2;
		l->c1 = c2;
		l->c2 = c1;
		l->two = 1;
	}
	if (fg->o.inferno) {
		/* its stack ends before the spaces (Perl's keeps one) */
		while (l->stack_len && folded_space(s[l->stack_len - 1]))
			l->stack_len--;
		if (l->c1 != floor(l->c1) || l->c2 != floor(l->c2))
			fg->fractional = 1;
		l->c1 = floor(l->c1);
		l->c2 = floor(l->c2);
	}
	return 0;
}

/* --base: the stack from the last of its frames (not the leaf) that is
 * one of the base frames on; 0 when none is, or it is the root (then
 * inferno drops the line). */
static int base_cut(const struct ember_fg_options *o, const char **s, size_t *n)
{
	const char *p = *s, *end = *s + *n;
	const char *last = memrchr(p, ';', *n);

	while (last) {
		const char *f = memrchr(p, ';', (size_t)(last - p));
		const char *fs = f ? f + 1 : p;
		for (size_t i = 0; i < o->nbase; i++) {
			size_t m = strlen(o->base[i]);
			if ((size_t)(last - fs) == m &&
			    !memcmp(fs, o->base[i], m)) {
				if (fs == p)
					return 0;
				*n = (size_t)(end - fs);
				*s = fs;
				return 1;
			}
		}
		last = f;
	}
	return 0;
}

static void rehash(struct ember_flamegraph *fg)
{
	size_t mask = fg->mask * 2 + 1;
	uint64_t *slots = ember_xcalloc(mask + 1, sizeof(*slots));

	for (size_t k = 0; k <= fg->mask; k++) {
		uint64_t v = fg->slots[k];
		size_t i = (v >> 32) & mask;
		if (!v)
			continue;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = v;
	}
	free(fg->slots);
	fg->slots = slots;
	fg->mask = mask;
}

/* The index of the first byte where a and b differ (or the shorter's
 * length). */
static size_t mismatch(const char *a, size_t na, const char *b, size_t nb)
{
	size_t n = na < nb ? na : nb, i = 0;

#ifdef __SSE2__
	while (i + 16 <= n) {
		__m128i x =
		    _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y =
		    _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		unsigned ne =
		    (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)) ^ 0xffffu;
		if (ne)
			return i + (size_t)__builtin_ctz(ne);
		i += 16;
	}
#endif
	while (i + 8 <= n) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + ((size_t)__builtin_ctzll(x ^ y) >> 3);
		i += 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* The start of the frame holding byte m of s: where front coding and
 * the fields shared with the line before may end. */
static size_t frame_start(const char *s, size_t m)
{
	const char *semi = m ? memrchr(s, ';', m) : NULL;
	return semi ? (size_t)(semi - s) + 1 : 0;
}

/* One more time the line l came: its count is summed in input order. */
static void count_line(struct ember_flamegraph *fg, struct fg_line *l)
{
	l->rep++;
	fg->time += l->two ? l->c2 : l->c1;
}

/* Keeps nl, a new distinct line (or run) whose bytes from nl->pre on
 * are at `at`, copied into `arena`. */
static void keep_line(struct ember_flamegraph *fg, struct fg_line *nl,
		      const char *at, struct ember_arena *arena)
{
	size_t n = nl->len - nl->pre;
	char *copy = ember_arena_alloc(arena, n ? n : 1);

	memcpy(copy, at, n);
	nl->s = copy;
	nl->rep = 0;
	if (nl->two && fabs(nl->c2 - nl->c1) > fg->maxdelta)
		fg->maxdelta = fabs(nl->c2 - nl->c1);
	EMBER_GROW(fg->lines, fg->nlines + 1, fg->alines);
	fg->lines[fg->nlines++] = *nl;
	count_line(fg, &fg->lines[fg->nlines - 1]);
}

/* Turns front-coded lines whole again, each in one piece. */
static void decode_lines(struct ember_flamegraph *fg)
{
	struct ember_buf b = EMBER_BUF_INIT;

	for (size_t i = 0; i < fg->nlines; i++) {
		struct fg_line *l = &fg->lines[i];
		ember_buf_setlen(&b, l->pre);
		ember_buf_add(&b, l->s, l->len - l->pre);
		l->s =
		    memcpy(ember_arena_alloc(&fg->arena, b.len), b.buf, b.len);
		l->pre = 0;
	}
	ember_buf_release(&b);
	ember_arena_release(&fg->tails);
	ember_buf_release(&fg->prev);
	fg->coded = 0;
}

/* Sorted input no more: the lines whole, and hashed. */
static void start_hashing(struct ember_flamegraph *fg)
{
	decode_lines(fg);
	fg->sorted = 0;
	fg->mask = 1023;
	while (fg->mask < fg->nlines * 2)
		fg->mask = fg->mask * 2 + 1;
	fg->slots = ember_xcalloc(fg->mask + 1, sizeof(*fg->slots));
	for (size_t k = 0; k < fg->nlines; k++) {
		uint32_t h =
		    (uint32_t)ember_hash(fg->lines[k].s, fg->lines[k].len);
		size_t i = h & fg->mask;
		while (fg->slots[i])
			i = (i + 1) & fg->mask;
		fg->slots[i] = (uint64_t)h << 32 | (k + 1);
	}
	fg->last = fg->nlines ? &fg->lines[fg->nlines - 1] : NULL;
}

/* Adds line s of front-coded lines; 1 if s is out of order (then it is
 * left for hashing). */
static int add_coded(struct ember_flamegraph *fg, const char *s, size_t n)
{
	const char *last = fg->last_s;
	struct fg_line nl;

	if (fg->nlines && n == fg->last_n && !memcmp(last, s, n)) {
		count_line(fg, &fg->lines[fg->nlines - 1]);
		return 0;
	}
	size_t m = mismatch(last, fg->last_n, s, n);
	int less = m < fg->last_n &&
		   (m == n || (unsigned char)s[m] < (unsigned char)last[m]);
	if (n > UINT32_MAX || parse_line(fg, s, n, &nl) < 0) {
		ember_bad_lines_add(&fg->bad, fg->lineno, fg->input, s, n);
		return 0;
	}
	if (less && fg->sorted)
		return 1;
	/* front-coded from the frame that differs (never beyond the stack:
	 * counts hold no ';') */
	nl.pre = (uint32_t)frame_start(s, m);
	keep_line(fg, &nl, s + nl.pre, &fg->tails);
	fg->last_s = s; /* in the caller's bytes until the feed ends */
	fg->last_n = n;
	return 0;
}

/* Adds line s, a new distinct one (or run) unless it is l's again. */
static void add_line(struct ember_flamegraph *fg, const char *s, size_t n)
{
	struct fg_line *l = NULL, nl;
	uint32_t h = 0;
	size_t i = 0;

	fg->lineno++;
	fg->nlines_in++;
	if (n && s[n - 1] == '\r')
		n--; /* CRLF input */
	if (fg->o.inferno) {
		/* inferno trims lines, skips blank ones and "# " comments */
		while (n && folded_space(*s))
			s++, n--;
		while (n && folded_space(s[n - 1]))
			n--;
		if (!n || (n >= 2 && s[0] == '#' && s[1] == ' '))
			return;
		if (fg->o.nbase && !fg->o.reverse && !fg->o.flamechart &&
		    !fg->o.no_sort && !base_cut(&fg->o, &s, &n))
			return;
	}
	if (fg->coded) {
		if (!add_coded(fg, s, n))
			return;
		start_hashing(fg);
	}
	/* the line before again (repeated lines): no hashing */
	l = fg->last;
	if (l && l->len == n && !memcmp(l->s, s, n)) {
		count_line(fg, l);
		return;
	}
	h = (uint32_t)ember_hash(s, n);
	for (i = h & fg->mask; fg->slots[i]; i = (i + 1) & fg->mask) {
		if (fg->slots[i] >> 32 != h)
			continue; /* the line is not looked at */
		l = &fg->lines[(uint32_t)fg->slots[i] - 1];
		if (l->len == n && !memcmp(l->s, s, n)) {
			count_line(fg, l);
			fg->last = l;
			return;
		}
	}
	if (n > UINT32_MAX || parse_line(fg, s, n, &nl) < 0) {
		ember_bad_lines_add(&fg->bad, fg->lineno, fg->input, s, n);
		return;
	}
	nl.pre = 0;
	keep_line(fg, &nl, s, &fg->arena);
	fg->last = &fg->lines[fg->nlines - 1];
	fg->slots[i] = (uint64_t)h << 32 | fg->nlines;
	if (fg->nlines * 2 > fg->mask)
		rehash(fg);
}

void ember_flamegraph_begin(struct ember_flamegraph *fg, const char *name)
{
	fg->input = name && strcmp(name, "-") ? name : NULL;
	fg->lineno = 0;
}

void ember_flamegraph_feed(struct ember_flamegraph *fg, const char *data,
			   size_t len)
{
	const char *p = data, *end = data + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		add_line(fg, p, (size_t)(eol - p));
		p = nl ? nl + 1 : end;
	}
	if (fg->coded && fg->last_s != fg->prev.buf) {
		ember_buf_setlen(&fg->prev, 0);
		ember_buf_add(&fg->prev, fg->last_s, fg->last_n);
		fg->last_s = fg->prev.buf;
	}
}

uint64_t ember_flamegraph_lines(const struct ember_flamegraph *fg)
{
	return fg->lineno;
}

void ember_flamegraph_add(struct ember_flamegraph *fg, const char *name,
			  const char *data, size_t len)
{
	ember_flamegraph_begin(fg, name);
	ember_flamegraph_feed(fg, data, len);
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct fg_line *a = pa, *b = pb;
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->s, b->s, m);

	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/*
 * Sorting lines in byte order, fast when they share long prefixes (folded
 * stacks do): a multikey quicksort on 8-byte chunks.  Lines are
 * partitioned by the chunk at depth d into <, = and > parts; only the =
 * part moves on to d + 8, so common prefixes are read once per level
 * rather than once per comparison.
 */
static inline uint64_t chunk(const struct fg_line *l, size_t d)
{
	uint64_t v = 0;

	if (d + 8 <= l->len) {
		memcpy(&v, l->s + d, 8);
	} else if (d < l->len) {
		unsigned char t[8] = {0};
		memcpy(t, l->s + d, l->len - d);
		memcpy(&v, t, 8);
	}
	return __builtin_bswap64(v);
}

static int cmp_len(const void *pa, const void *pb)
{
	const struct fg_line *a = *(struct fg_line *const *)pa;
	const struct fg_line *b = *(struct fg_line *const *)pb;
	return (a->len > b->len) - (a->len < b->len);
}

static int cmp_line_ptr(const void *pa, const void *pb)
{
	return cmp_line(*(struct fg_line *const *)pa,
			*(struct fg_line *const *)pb);
}

#define SWAP(x, y)                                                             \
	do {                                                                   \
		struct fg_line *t_ = (x);                                      \
		(x) = (y);                                                     \
		(y) = t_;                                                      \
	} while (0)

static void mkqs(struct fg_line **a, size_t n, size_t d, int budget)
{
	while (n > 16) {
		if (budget-- <= 0) {
			/* pathological pivots: plain comparisons will do */
			qsort(a, n, sizeof(*a), cmp_line_ptr);
			return;
		}
		uint64_t x = chunk(a[0], d), y = chunk(a[n / 2], d);
		uint64_t z = chunk(a[n - 1], d), pv;
		pv = x < y ? (y < z ? y : (x < z ? z : x))
			   : (x < z ? x : (y < z ? z : y));
		size_t lt = 0, i = 0, gt = n;
		while (i < gt) {
			uint64_t k = chunk(a[i], d);
			if (k < pv) {
				SWAP(a[lt], a[i]);
				lt++, i++;
			} else if (k > pv) {
				gt--;
				SWAP(a[i], a[gt]);
			} else {
				i++;
			}
		}
		mkqs(a, lt, d, budget);
		mkqs(a + gt, n - gt, d, budget);
		a += lt;
		n = gt - lt;
		/* lines that end within this chunk are prefixes of the rest */
		size_t e = 0;
		for (size_t j = 0; j < n; j++)
			if (a[j]->len <= d + 8) {
				SWAP(a[e], a[j]);
				e++;
			}
		qsort(a, e, sizeof(*a), cmp_len);
		a += e;
		n -= e;
		d += 8;
	}
	/* few lines left: insertion sort */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_line(a[j - 1], a[j]) > 0; j--)
			SWAP(a[j - 1], a[j]);
}

static void sort_lines(struct ember_flamegraph *fg)
{
	size_t n = fg->nlines;
	struct fg_line **ptr = ember_xreallocarray(NULL, n, sizeof(*ptr));
	struct fg_line *out = ember_xreallocarray(NULL, n, sizeof(*out));

	for (size_t i = 0; i < n; i++)
		ptr[i] = &fg->lines[i];
	mkqs(ptr, n, 0, 64);
	for (size_t i = 0; i < n; i++)
		out[i] = *ptr[i];
	free(ptr);
	free(fg->lines);
	fg->lines = out;
	fg->alines = n;
}

/* --reverse: rebuild each line with its frames in reverse order. */
static void reverse_lines(struct ember_flamegraph *fg)
{
	struct ember_slice *fr = NULL;
	size_t afr = 0;

	for (size_t i = 0; i < fg->nlines; i++) {
		struct fg_line *l = &fg->lines[i];
		/* Perl's split drops trailing empty frames, Rust's keeps them
		 */
		size_t n =
		    fg->o.inferno
			? ember_folded_fields(l->s, l->stack_len, 0, &fr, &afr)
			: ember_folded_frames(l->s, l->stack_len, &fr, &afr);
		size_t tail = l->len - l->stack_len; /* " count[ count2]" */
		char *out = ember_arena_alloc(&fg->arena, l->len + 1);
		size_t pos = 0;
		for (size_t j = n; j-- > 0;) {
			memcpy(out + pos, fr[j].s, fr[j].len);
			pos += fr[j].len;
			if (j)
				out[pos++] = ';';
		}
		/* inferno trims the reversed line's start */
		size_t lead = 0;
		while (fg->o.inferno && lead < pos && folded_space(out[lead]))
			lead++;
		memmove(out, out + lead, pos - lead);
		pos -= lead;
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
	double time, maxdelta;
	int err;

	int chain = o->colors && !strcmp(o->colors, "chain");
	if (fg->coded && (o->reverse || chain || (o->inferno && o->flamechart)))
		decode_lines(fg); /* rewritten whole */
	if (o->reverse)
		reverse_lines(fg);
	/* inferno's flame chart runs from the input's last line */
	for (size_t i = 0; o->inferno && o->flamechart && i < fg->nlines / 2;
	     i++) {
		struct fg_line t = fg->lines[i];
		fg->lines[i] = fg->lines[fg->nlines - 1 - i];
		fg->lines[fg->nlines - 1 - i] = t;
	}
	free(fg->slots); /* no more lines come */
	fg->slots = NULL;
	time = fg->time;
	maxdelta = fg->maxdelta;
	if (!o->flamechart && !(fg->sorted && !o->reverse)) {
		int sorted = 1;
		for (size_t i = 1; i < fg->nlines && sorted; i++)
			sorted =
			    cmp_line(&fg->lines[i - 1], &fg->lines[i]) <= 0;
		if (!sorted)
			sort_lines(fg);
	}

	memset(stats, 0, sizeof(*stats));
	stats->lines = fg->nlines_in;
	stats->bad = fg->bad;
	stats->total = time;
	stats->fractional = fg->fractional;

	if (time <= 0 || fg->nlines == 0) {
		err = o->html ? ember_fg_write_html_error(fg, w, ctx)
			      : ember_fg_write_error(fg, w, ctx);
		return err ? err : EMBER_EEMPTY;
	}

	double timemax = time;
	if (o->total > 0 && o->total >= time)
		timemax = o->total;
	else if (o->total > 0 && o->total / time > 0.02)
		stats->total_ignored = 1;
	double wpt = (o->width - 2 * EMBER_FG_XPAD) / timemax;
	double minwidth_time =
	    o->minwidth_pct ? timemax * o->minwidth / 100 : o->minwidth / wpt;

	struct ember_tree tree;
	ember_tree_init(&tree, minwidth_time);
	tree.keep_before = o->html;
	/* fr holds the previous stack's fields; a sorted stack shares most
	 * of them, so only the part from the first frame that differs on is
	 * split (the first pre bytes are the previous stack's) */
	const char *prev = "";
	size_t plen = 0, nraw = 0, nprev = 0;
	for (size_t i = 0; i < fg->nlines; i++) {
		struct fg_line *l = &fg->lines[i];
		if (chain)
			chain_stack(fg, l, &tmp);
		size_t clen = l->stack_len, pre = l->pre, k = 0, at = 0;
		if (!fg->coded) {
			pre =
			    frame_start(l->s, mismatch(prev, plen, l->s, clen));
			prev = l->s;
			plen = clen;
		}
		/* the fields before pre end in a ';' there in both stacks */
		while (k < nraw && at + fr[k].len < pre)
			at += fr[k++].len + 1;
		if (!clen)
			nraw = 0;
		else
			nraw = ember_folded_fields(l->s + (fg->coded ? 0 : pre),
						   clen - pre, k, &fr, &afr);
		size_t n = nraw;
		while (n && !fr[n - 1].len && !o->inferno)
			n--; /* Perl's split drops trailing empty fields */
		size_t known = k < n ? k : n;
		if (known > nprev)
			known = nprev;
		double delta = l->c2 - l->c1;
		double count = l->two ? l->c2 : l->c1;
		ember_tree_flow_keep(&tree, fr, n, known, count,
				     l->two ? &delta : NULL);
		/* the same line again: as many times, only time moves */
		if (l->rep > 1)
			ember_tree_repeat(&tree, count, l->rep - 1);
		nprev = n;
	}
	ember_tree_finish(&tree);
	free(fr);
	ember_buf_release(&tmp);

	struct fg_layout lay = {
	    .time = time,
	    .timemax = timemax,
	    .wpt = wpt,
	    .maxdelta = maxdelta,
	    .mixed = tree.offcpu_seen && tree.oncpu_seen,
	};
	if (o->html)
		err = ember_fg_write_html(fg, &tree, &lay, w, ctx,
					  &stats->bad_file);
	else
		err = ember_fg_write_svg(fg, &tree, &lay, w, ctx,
					 &stats->bad_file);
	stats->frames = tree.n;
	ember_tree_release(&tree);
	return err;
}
