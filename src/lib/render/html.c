/*
 * The HTML writer: one self-contained page that draws the flame graph on
 * a <canvas> (assets/viewer.js) from a compact frame table.
 *
 * The table holds the same boxes as the SVG, in the same order (root
 * first, pre-order, children right to left).  It starts with a count of
 * parent names and, for each (0: above the root, k + 1: under frames of
 * name k), how many names are seen under it; then per frame:
 *
 *   head   up << 2 | (rest != 0) << 1 | (gap != 0), where up is how many
 *          levels above the previous frame's child this one is (0: a
 *          child of the previous frame, 1: its sibling, ...); in a
 *          wall-clock graph up << 3 | off << 2 | ..., off set for a
 *          frame with only off-CPU time below it
 *   name   0 and then the index into the name table for a name not seen
 *          under a frame of its parent's name before, else k + 1 for the
 *          k-th name seen there (in order of first sight)
 *   rest   (when set in head) its width less its children's widths and
 *          gaps, in units (see below): its whole width without children
 *   gap    (when set in head) how far its end lies before its parent's
 *          end (first child) or its previous sibling's start, in units
 *   delta  (differential graphs only) the self delta, zigzag-encoded
 *
 * so a frame inside others, called from there before, takes two
 * characters.  Every number is a little-endian varint of 5-bit digits
 * written with a 64-character alphabet: the first 32 characters end a
 * number, the last 32 continue it.  Positions are rounded to whole units
 * before the differences are taken, so rounding never accumulates; the
 * unit is 1 for integer counts, a power of ten for fractional ones, a
 * power of two for counts beyond 2^53.  The table is the text of the
 * <script type="text/plain" class="ember-frames"> elements (64 KiB each)
 * between the page's two scripts, joined: the viewer's script comes after
 * them and reads them (a data block is not scanned as script; a string
 * literal of the same size was most of a big page's load).
 *
 * A big graph has a first table too, in the same encoding and its own
 * counts, in "ember-first" blocks before those: the frames at least
 * 1/16384 of the graph wide (and so their parents), where the graph has
 * 2^18 frames or more and they are at most a quarter of all (not in
 * differential graphs and flame charts).
 * EMBER.first is how many, EMBER.maxdepth the whole table's depth.  The
 * viewer draws its first paint from it (every frame that is half a pixel
 * wide on a canvas up to 8192 pixels), then reads the whole table in
 * slices; ember.ready says when that is done.  Names are
 * distinct (annotation and all), joined by '\n' into one string literal,
 * with a colour each (4 digits, 24 bits), and in a wall-clock graph a
 * second one, off-CPU time's (io palette).
 *
 * All text from the input goes through js_string(): '<' is escaped so no
 * name can close the <script>, and invalid UTF-8 becomes U+FFFD.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fg.h"
#include "nameattr.h"
#include "profile.h"

#define FLUSH_AT (1 << 16)

static const char digits[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    "0123456789-_";

struct out {
	struct ember_buf b;
	ember_write_fn w;
	void *ctx;
	int err;
};

static void out_flush(struct out *o, int force)
{
	if (o->err || (!force && o->b.len < FLUSH_AT))
		return;
	if (o->b.len)
		o->err = o->w(o->ctx, o->b.buf, o->b.len);
	ember_buf_reset(&o->b);
}

/* d as <script type="text/plain" class="cls"> elements of 64 KiB at most
 * (its characters are the digits': any cut is between two of them) */
static void data_blocks(struct out *o, const char *cls,
			const struct ember_buf *d)
{
	for (size_t at = 0; at < d->len || !at; at += 1u << 16) {
		size_t n = d->len - at < (1u << 16) ? d->len - at : 1u << 16;
		ember_buf_addf(
		    &o->b, "<script type=\"text/plain\" class=\"%s\">", cls);
		ember_buf_add(&o->b, d->buf + at, n);
		ember_buf_adds(&o->b, "</script>\n");
		out_flush(o, 0);
		if (!d->len)
			break;
	}
}

static void varint(struct ember_buf *b, uint64_t v)
{
	while (v >= 32) {
		ember_buf_addch(b, digits[32 + (v & 31)]);
		v >>= 5;
	}
	ember_buf_addch(b, digits[v]);
}

static void zigzag(struct ember_buf *b, int64_t v)
{
	varint(b, v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1);
}

/* The bytes of s as the inside of a JavaScript string literal that is
 * safe in a <script> element: valid UTF-8 passes through, '<', quotes,
 * backslashes, control characters and U+2028/9 are escaped, and a byte
 * that starts no valid sequence becomes U+FFFD. */
static void js_chars(struct ember_buf *b, const char *s, size_t n)
{
	size_t i = 0, len;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' &&
		    c != '<' && c != '>' && c != '&') {
			ember_buf_addch(b, (char)c);
			i++;
			continue;
		}
		if (c < 0x80) {
			ember_buf_addf(b, "\\u%04x", c);
			i++;
			continue;
		}
		uint32_t cp = ember_utf8_next(s + i, n - i, &len);
		if (len == 1)
			ember_buf_adds(b, "\\ufffd");
		else if (cp == 0x2028 || cp == 0x2029)
			ember_buf_addf(b, "\\u%04x", cp);
		else
			ember_buf_add(b, s + i, len);
		i += len;
	}
}

static void js_string(struct ember_buf *b, const char *s)
{
	ember_buf_addch(b, '"');
	if (s)
		js_chars(b, s, strlen(s));
	ember_buf_addch(b, '"');
}

/* A comment can hold anything but "--" (and may not end in "-"). */
static void comment(struct ember_buf *b, const char *s)
{
	struct ember_buf t = EMBER_BUF_INIT;

	ember_xml_escape(&t, s, strlen(s), 0);
	ember_buf_adds(b, "<!-- NOTES: ");
	for (size_t i = 0; i < t.len; i++) {
		ember_buf_addch(b, t.buf[i]);
		if (t.buf[i] == '-' && (i + 1 == t.len || t.buf[i + 1] == '-'))
			ember_buf_addch(b, ' ');
	}
	ember_buf_adds(b, " -->\n");
	ember_buf_release(&t);
}

static const char *default_title(const struct ember_fg_options *o)
{
	if (o->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

static void head(struct ember_buf *b, const struct ember_fg_options *o)
{
	const char *title = o->title ? o->title : default_title(o);

	ember_buf_adds(b,
		       "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		       "<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-"
		       "width, initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"ember " EMBER_VERSION
		       "\">\n");
	if (o->notes && *o->notes)
		comment(b, o->notes);
	ember_buf_adds(b, "<title>");
	ember_xml_escape(b, title, strlen(title), 0);
	ember_buf_adds(b, "</title>\n<style>\n");
	ember_buf_adds(b, ember_asset_viewer_css);
	ember_buf_adds(b,
		       "</style>\n</head>\n<body>\n<script>\n\"use strict\";\n"
		       "var EMBER = {title: ");
	js_string(b, title);
	ember_buf_adds(b, ", subtitle: ");
	js_string(b, o->subtitle ? o->subtitle : "");
	ember_buf_adds(b, ",\ncountname: ");
	js_string(b, o->countname);
	ember_buf_adds(b, ", nametype: ");
	js_string(b, o->nametype);
	ember_buf_adds(b, ", fonttype: ");
	js_string(b, o->fonttype);
	ember_buf_adds(b, ", fontsize: ");
	ember_buf_addnum(b, o->fontsize);
	ember_buf_adds(b, ", fontwidth: ");
	ember_buf_addnum(b, o->fontwidth);
	ember_buf_addf(b, ", frameheight: %d", o->height);
	ember_buf_adds(b, ", factor: ");
	ember_buf_addf(b, "%.17g", o->factor);
	ember_buf_addf(b, ",\ninverted: %d, flamechart: %d, negate: %d",
		       !!o->inverted, !!o->flamechart, !!o->negate);
}

/* A position in whole units. */
static inline uint64_t at(double x, double unit)
{
	double v = nearbyint(x / unit);
	return v > 0 ? (uint64_t)v : 0;
}

/* The largest unit in which every position and delta is whole: 1, 0.1,
 * ... 1e-6 (rounding below that), or 2^k when the total is beyond 2^53. */
static double pick_unit(const struct ember_tree *tree, double timemax)
{
	const double limit = 9007199254740992.0; /* 2^53 */

	if (timemax >= limit)
		return exp2(ceil(log2(timemax)) - 52);
	double unit = 1;
	for (int k = 0; k <= 6; k++, unit /= 10) {
		if (timemax / unit >= limit)
			return unit * 10;
		int whole = 1;
		for (size_t i = 0; i < tree->n && whole; i++) {
			const struct ember_tree_node *nd = &tree->nodes[i];
			double v[3] = {nd->start / unit, nd->end / unit,
				       nd->delta / unit};
			for (int j = 0; j < 3; j++)
				whole &= fabs(v[j] - nearbyint(v[j])) <= 1e-6;
		}
		if (whole)
			return unit;
	}
	return unit * 10;
}

struct names {
	struct ember_intern ids;
	struct ember_buf text, colors;
	struct ember_buf attrs;
	struct ember_palette *io; /* off-CPU colours, or NULL */
};

static void add_color(struct ember_buf *b, struct ember_rgb c)
{
	uint32_t rgb = (uint32_t)c.r << 16 | (uint32_t)c.g << 8 | c.b;
	for (int k = 0; k < 4; k++)
		ember_buf_addch(b, digits[(rgb >> (6 * k)) & 63]);
}

/* The id of a frame's name, adding it, its colour and its --nameattr
 * title and link to the tables when new. */
static uint32_t name_id(struct names *t, const char *name, size_t len,
			struct ember_palette *pal,
			const struct ember_fg_options *o,
			const struct ember_nameattr *na)
{
	size_t before = ember_intern_count(&t->ids);
	uint32_t id = ember_intern(&t->ids, name, len);
	if (ember_intern_count(&t->ids) == before)
		return id;

	size_t shown = len;
	/* the annotation (_[k] _[w] _[i] _[j]) only picks the colour */
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' &&
	    name[len - 1] == ']' && name[len - 2] &&
	    strchr("kwij", name[len - 2]))
		shown = len - 4;
	if (id)
		ember_buf_adds(&t->text, "\\n");
	js_chars(&t->text, name, shown);

	struct ember_rgb c, grey = {0, 0, 0};
	if (len == 2 && name[0] == '-' && name[1] == '-')
		c = grey = (struct ember_rgb){160, 160, 160};
	else if (len == 1 && name[0] == '-')
		c = grey = (struct ember_rgb){200, 200, 200};
	else if (o->palette_file)
		c = ember_palette_map_color(pal, name, len);
	else
		c = ember_palette_color(pal, name, len);
	add_color(&t->colors, c);
	if (t->io)
		add_color(&t->colors,
			  grey.r ? grey
				 : ember_palette_color(t->io, name, len));

	const struct ember_nameattr_ent *a =
	    na ? ember_nameattr_find(na, name, len) : NULL;
	if (a && (a->title || a->href)) {
		ember_buf_addf(&t->attrs, "[%u, ", id);
		js_string(&t->attrs, a->title);
		ember_buf_adds(&t->attrs, ", ");
		js_string(&t->attrs, a->href);
		ember_buf_adds(&t->attrs, "],\n");
	}
	return id;
}

/* (parent's name, name) pairs: the index of a name among those seen under
 * frames of the parent's name, in the order first seen.  Keys are
 * parent + 1 (0: above the root) << 32 | name; empty slots are ~0. */
struct pairs {
	uint64_t *key;
	uint32_t *val;
	size_t n, mask;
	uint32_t *count; /* names seen under each parent + 1 */
	size_t ncount;
	size_t used; /* parents + 1 seen: count[] beyond is 0 */
};

static void pairs_init(struct pairs *p)
{
	p->mask = (1u << 12) - 1;
	p->n = 0;
	p->key = ember_xmalloc((p->mask + 1) * sizeof(*p->key));
	memset(p->key, 0xff, (p->mask + 1) * sizeof(*p->key));
	p->val = ember_xmalloc((p->mask + 1) * sizeof(*p->val));
	p->count = NULL;
	p->ncount = 0;
	p->used = 0;
}

static void pairs_release(struct pairs *p)
{
	free(p->key);
	free(p->val);
	free(p->count);
}

static size_t pairs_slot(const struct pairs *p, uint64_t k)
{
	size_t h = (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & p->mask;

	while (p->key[h] != k && p->key[h] != ~(uint64_t)0)
		h = (h + 1) & p->mask;
	return h;
}

static void pairs_grow(struct pairs *p)
{
	uint64_t *key = p->key;
	uint32_t *val = p->val;
	size_t old = p->mask + 1;

	p->mask = old * 2 - 1;
	p->key = ember_xreallocarray(NULL, old * 2, sizeof(*p->key));
	memset(p->key, 0xff, old * 2 * sizeof(*p->key));
	p->val = ember_xreallocarray(NULL, old * 2, sizeof(*p->val));
	for (size_t i = 0; i < old; i++) {
		if (key[i] == ~(uint64_t)0)
			continue;
		size_t h = pairs_slot(p, key[i]);
		p->key[h] = key[i];
		p->val[h] = val[i];
	}
	free(key);
	free(val);
}

/* 0 for a name not seen under parent before (then added), else its
 * index + 1 */
static uint64_t pairs_code(struct pairs *p, uint64_t parent, uint32_t name)
{
	uint64_t k = parent << 32 | name;
	size_t h = pairs_slot(p, k);

	if (p->key[h] == k)
		return (uint64_t)p->val[h] + 1;
	size_t alloc = p->ncount;
	EMBER_GROW(p->count, parent + 1, alloc);
	if (alloc > p->ncount) {
		memset(p->count + p->ncount, 0,
		       (alloc - p->ncount) * sizeof(*p->count));
		p->ncount = alloc;
	}
	p->key[h] = k;
	p->val[h] = p->count[parent]++;
	if (parent >= p->used)
		p->used = parent + 1;
	if (++p->n * 2 > p->mask)
		pairs_grow(p);
	return 0;
}

/* A frame's box in whole units, fitted into its parent's: gap is what
 * lies between its end and its parent's end or its previous sibling's
 * start; rest what lies between its start and its leftmost child's start
 * (all of it without children). */
struct box {
	uint64_t s, e, gap, rest;
	uint32_t parent; /* in output order */
	uint32_t node;	 /* in the tree */
};

/* The boxes in output order (root first, pre-order, children right to
 * left), each fitted into its parent's; with min, only the frames at
 * least min / 2^FIRST_SHIFT of it wide (the root's whole width: min 1
 * keeps those wider than 1/16384 of the graph).  *nb: how many. */
#define FIRST_SHIFT 14
#define FIRST_MIN   (1u << 18) /* frames: a first table from these on */
static struct box *fit(const struct ember_tree *tree,
		       const struct fg_layout *lay, double unit, int min,
		       size_t *nb)
{
	struct box *bx = ember_xcalloc(tree->n ? tree->n : 1, sizeof(*bx));
	uint64_t *cursor = ember_xcalloc(tree->maxdepth + 2, sizeof(*cursor));
	uint32_t *open = ember_xcalloc(tree->maxdepth + 2, sizeof(*open));
	uint32_t below = UINT32_MAX; /* frames deeper are left out */
	size_t k = 0;

	/* post-order reversed: root first, parents before children */
	for (size_t i = tree->n; i-- > 0;) {
		const struct ember_tree_node *nd = &tree->nodes[i];
		int root = nd->depth == 0 && nd->len == 0;
		uint64_t s = at(nd->start, unit);
		uint64_t e = at(root ? lay->timemax : nd->end, unit);
		uint32_t d = nd->depth;
		if (e < s)
			e = s;
		if (d > below)
			continue;
		below = UINT32_MAX;
		if (min && d > 0 &&
		    ldexp((double)(e - s), FIRST_SHIFT) < (double)bx[0].e) {
			below = d;
			continue;
		}
		uint64_t gap = s;
		if (d > 0) {
			struct box *pb = &bx[open[d - 1]];
			uint64_t c = cursor[d - 1];
			if (e > c)
				e = c, s = s < e ? s : e;
			if (s < pb->s)
				s = pb->s, e = e > s ? e : s;
			gap = c - e;
			cursor[d - 1] = s;
			pb->rest = s - pb->s;
			bx[k].parent = open[d - 1];
		}
		cursor[d] = e;
		open[d] = (uint32_t)k;
		bx[k].s = s;
		bx[k].e = e;
		bx[k].gap = gap;
		bx[k].rest = e - s;
		bx[k++].node = (uint32_t)i;
	}
	free(open);
	free(cursor);
	*nb = k;
	return bx;
}

/* Encodes the boxes into frames (see the top of the file): all of them,
 * or with min only the wide ones (see fit()).  Returns how many. */
static size_t encode(const struct ember_tree *tree, const struct fg_layout *lay,
		     double unit, int differential, int min,
		     struct names *names, struct ember_palette *pal,
		     const struct ember_fg_options *o,
		     const struct ember_nameattr *na, struct ember_buf *frames)
{
	size_t nb;
	struct box *bx = fit(tree, lay, unit, min, &nb);
	uint32_t *ids = ember_xcalloc(nb ? nb : 1, sizeof(*ids));
	struct pairs pairs;
	int64_t prev = -1;

	pairs_init(&pairs);
	ember_buf_grow(frames, nb * 3 + 1);
	for (size_t k = 0; k < nb; k++) {
		const struct box *b = &bx[k];
		const struct ember_tree_node *nd = &tree->nodes[b->node];
		uint32_t d = nd->depth;
		uint64_t h = (uint64_t)(prev + 1 - (int64_t)d);
		if (names->io)
			h = h << 1 | !nd->on_cpu;
		h = (h << 1 | !!b->rest) << 1 | !!b->gap;
		varint(frames, h);
		uint32_t id = name_id(names, nd->name, nd->len, pal, o, na);
		ids[k] = id;
		uint64_t code = pairs_code(
		    &pairs, k ? (uint64_t)ids[b->parent] + 1 : 0, id);
		varint(frames, code);
		if (!code)
			varint(frames, id);
		if (b->rest)
			varint(frames, b->rest);
		if (b->gap)
			varint(frames, b->gap);
		if (differential) {
			/* a delta can outgrow the total (c1 is not in it):
			 * clamped to what a JavaScript number holds exactly */
			double dv =
			    nd->has_delta ? nearbyint(nd->delta / unit) : 0;
			dv = dv > 0x1p53 ? 0x1p53 : dv < -0x1p53 ? -0x1p53 : dv;
			zigzag(frames, (int64_t)dv);
		}
		prev = d;
	}
	/* the counts first: how many names each parent's name has under it */
	struct ember_buf counts = EMBER_BUF_INIT;
	size_t np = pairs.used;
	varint(&counts, np);
	for (size_t p = 0; p < np; p++)
		varint(&counts, pairs.count[p]);
	ember_buf_add(&counts, frames->buf, frames->len);
	ember_buf_release(frames);
	*frames = counts;
	pairs_release(&pairs);
	free(ids);
	free(bx);
	return nb;
}

/*
 * The samples of a profile with times, for the tracks, the time range and
 * the stack chart (assets/timeline.js), in the same varints:
 *
 *   EMBER.timeline  tunit (ns a time unit), start (the first sample's
 *                   time in tunits), weighted, the number of stack
 *                   nodes, and the threads: [tid, pid, thread name,
 *                   process name, samples], each with its samples below
 *   ember-tstacks   (the text of the <script type="text/plain"> elements of
 *                   that class, after the scripts, joined) per node of the
 * profile's prefix tree of stacks, in its order (parents first): 0 for a root,
 * else how many nodes back its parent is; its name's index (times two, plus one
 * for an off-CPU state's frame) ember-tsamples  (the same) thread after thread,
 * per sample in time order: the time since the thread's sample before (the
 * first: since the profile's first sample), in whole units, rounded from the
 * start so that errors do not add up; its stack node; when weighted, its weight
 * in the frame table's units, as the difference from the sample before's
 * (zigzag: 2v, or -2v-1 below 0)
 *
 * The weights are those of the value whose sum is the flame graph's
 * total (scaled to it: record's off-CPU microseconds of nanoseconds).
 */
#define TUNIT 1000 /* ns: microseconds */

static int timed(const struct ember_prof *p, const struct ember_fg_options *o,
		 int differential)
{
	return p && p->flags & EMBER_PROF_HAS_TIME && p->n && p->nstacks &&
	       p->ntypes && !differential && !o->reverse && !o->flamechart &&
	       !o->inferno && !o->nbase;
}

/* The value that sums to total, and the factor that makes it so. */
static size_t pick_type(const struct ember_prof *p, double total, double *scale)
{
	size_t best = 0;
	double err = INFINITY;

	*scale = 1;
	for (size_t t = 0; t < p->ntypes; t++) {
		double sum = 0;
		for (size_t i = 0; i < p->n; i++)
			sum += ember_prof_value(p, t, i);
		if (!(sum > 0))
			continue;
		double e = fabs(log(total / sum));
		if (e < err)
			err = e, best = t, *scale = total / sum;
	}
	return best;
}

static void encode_samples(const struct ember_prof *p, double total,
			   double unit, struct names *names,
			   struct ember_palette *pal,
			   const struct ember_fg_options *o,
			   const struct ember_nameattr *na,
			   struct ember_buf *head, struct ember_buf *stacks,
			   struct ember_buf *samples)
{
	size_t nt = p->nthreads + 1; /* the last: samples without one */
	size_t *count = ember_xcalloc(nt + 1, sizeof(*count));
	size_t *order = ember_xcalloc(p->n ? p->n : 1, sizeof(*order));
	double scale;
	size_t type = pick_type(p, total, &scale);
	uint64_t start = UINT64_MAX;
	int weighted = 0;

	for (size_t i = 0; i < p->n; i++) {
		uint32_t th = p->thread ? p->thread[i] : EMBER_PROF_NONE;
		count[(th < p->nthreads ? th : p->nthreads) + 1]++;
		if (p->time[i] < start)
			start = p->time[i];
		if (!weighted)
			weighted =
			    fabs(ember_prof_value(p, type, i) * scale / unit -
				 1) > 1e-9;
	}
	for (size_t t = 1; t <= nt; t++)
		count[t] += count[t - 1];
	for (size_t i = 0; i < p->n; i++) { /* stable: time order kept */
		uint32_t th = p->thread ? p->thread[i] : EMBER_PROF_NONE;
		order[count[th < p->nthreads ? th : p->nthreads]++] = i;
	}

	ember_buf_grow(stacks, p->nstacks * 5);
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct ember_prof_stack *st = &p->stacks[i];
		const struct ember_prof_frame *f = &p->frames[st->frame];
		size_t len;
		const char *s = ember_prof_s(p, p->funcs[f->func].name, &len);
		uint64_t id = name_id(names, s, len, pal, o, na);
		varint(stacks,
		       st->parent == EMBER_PROF_NONE ? 0 : i - st->parent);
		varint(stacks, id << 1 | (f->kind == EMBER_PROF_OFFCPU));
	}

	/* start: the first sample's time in tunits (CLOCK_MONOTONIC for
	 * perf), for tests that compare with a program's own clock */
	ember_buf_addf(head,
		       ",\ntimeline: {tunit: %d, start: %llu, weighted: %d, "
		       "stacks: %zu, threads: [\n",
		       TUNIT, (unsigned long long)(start / TUNIT), weighted,
		       p->nstacks);
	ember_buf_grow(samples, p->n * (weighted ? 9 : 6));
	size_t at = 0;
	for (size_t t = 0; t < nt; t++) {
		size_t end = count[t];
		if (end == at)
			continue;
		const struct ember_prof_thread *th =
		    t < p->nthreads ? &p->threads[t] : NULL;
		const struct ember_prof_process *pr =
		    th && th->process < p->nprocs ? &p->procs[th->process]
						  : NULL;
		ember_buf_addf(head, "[%d, %d, ", th ? th->tid : -1,
			       th ? th->pid : -1);
		js_string(head, th ? ember_prof_s(p, th->name, NULL) : "");
		ember_buf_adds(head, ", ");
		js_string(head, pr ? ember_prof_s(p, pr->name, NULL) : "");
		ember_buf_addf(head, ", %zu],\n", end - at);
		uint64_t prev = 0;
		int64_t pw = 0;
		for (; at < end; at++) {
			size_t i = order[at];
			uint64_t tu = (p->time[i] - start + TUNIT / 2) / TUNIT;
			varint(samples, tu - prev);
			prev = tu;
			varint(samples, p->stack[i]);
			if (weighted) {
				double v =
				    nearbyint(ember_prof_value(p, type, i) *
					      scale / unit);
				int64_t q =
				    v > 0 && v < 0x1p53 ? (int64_t)v : 0;
				zigzag(samples, q - pw);
				pw = q;
			}
		}
	}
	ember_buf_adds(head, "]}");
	free(order);
	free(count);
}

int ember_fg_write_html(struct ember_flamegraph *fg, struct ember_tree *tree,
			const struct fg_layout *lay, ember_write_fn w,
			void *ctx, const char **bad_file)
{
	const struct ember_fg_options *o = &fg->o;
	struct out out = {EMBER_BUF_INIT, w, ctx, 0};
	struct ember_buf *b = &out.b;
	struct ember_nameattr *na = NULL;
	struct names names = {.text = EMBER_BUF_INIT,
			      .colors = EMBER_BUF_INIT,
			      .attrs = EMBER_BUF_INIT};
	struct ember_buf frames = EMBER_BUF_INIT, first = EMBER_BUF_INIT;
	struct ember_buf thead = EMBER_BUF_INIT, tstacks = EMBER_BUF_INIT;
	struct ember_buf tsamples = EMBER_BUF_INIT;
	char c1[8], c2[8];
	int err, differential = 0;
	size_t nfirst = 0;
	uint32_t maxdepth = 0;

	if (ember_fg_bgcolors(o->bgcolors, o->colors, c1, c2))
		return EMBER_EINVAL;
	/* counts beyond a double's range sum to infinity: nothing to draw */
	if (!isfinite(lay->timemax) || !isfinite(lay->maxdelta) ||
	    !isfinite(o->factor))
		return EMBER_EFORMAT;
	if (o->nameattr_file) {
		err = ember_nameattr_load(&na, o->nameattr_file);
		if (err) {
			*bad_file = o->nameattr_file;
			return err;
		}
	}
	struct ember_palette *pal =
	    ember_palette_new(o->colors, o->hash     ? EMBER_COLOR_HASH
					 : o->random ? EMBER_COLOR_RANDOM
						     : EMBER_COLOR_NAME);
	if (o->palette_file) {
		err = ember_palette_load_map(pal, o->palette_file);
		if (err) {
			*bad_file = o->palette_file;
			goto out;
		}
	}
	for (size_t i = 0; i < tree->n && !differential; i++)
		differential = tree->nodes[i].has_delta;
	/* Gregg's wall-clock graphs: off-CPU time in the io palette */
	if (lay->mixed && !differential)
		names.io =
		    ember_palette_new("io", o->hash	? EMBER_COLOR_HASH
					    : o->random ? EMBER_COLOR_RANDOM
							: EMBER_COLOR_NAME);

	ember_intern_init(&names.ids);
	double unit = pick_unit(tree, lay->timemax);
	encode(tree, lay, unit, differential, 0, &names, pal, o, na, &frames);
	/* the wide frames for the first paint, where the graph is big and
	 * they are few (a differential graph's colours and a flame chart's
	 * order need every frame); below FIRST_MIN frames the whole table is
	 * read before the first paint sooner than in slices after it */
	if (!differential && !o->flamechart && tree->n >= FIRST_MIN) {
		nfirst =
		    encode(tree, lay, unit, 0, 1, &names, pal, o, na, &first);
		if (nfirst * 4 > tree->n)
			nfirst = 0;
	}
	for (size_t i = 0; i < tree->n; i++)
		if (tree->nodes[i].depth > maxdepth)
			maxdepth = tree->nodes[i].depth;
	if (timed(fg->prof, o, differential))
		encode_samples(fg->prof, lay->time, unit, &names, pal, o, na,
			       &thead, &tstacks, &tsamples);

	head(b, o);
	ember_buf_addf(b, ", differential: %d, mixed: %d, maxdelta: ",
		       differential, names.io != NULL);
	ember_buf_addf(b, "%.17g", lay->maxdelta);
	ember_buf_adds(b, ", unit: ");
	ember_buf_addf(b, "%.17g", unit);
	ember_buf_addf(b, ",\nbg: [\"%s\", \"%s\"], frames: %zu,", c1, c2,
		       tree->n);
	if (nfirst)
		ember_buf_addf(b, " first: %zu, maxdepth: %u,", nfirst,
			       maxdepth);
	ember_buf_adds(b, "\nattrs: [\n");
	ember_buf_add(b, names.attrs.buf, names.attrs.len);
	ember_buf_adds(b, "]");
	ember_buf_add(b, thead.buf, thead.len);
	ember_buf_adds(b, "};\nEMBER.names = \"");
	out_flush(&out, 0);
	ember_buf_add(b, names.text.buf, names.text.len);
	ember_buf_adds(b, "\";\nEMBER.colors = \"");
	ember_buf_add(b, names.colors.buf, names.colors.len);
	ember_buf_adds(b, "\";\n</script>\n");
	out_flush(&out, 0);
	/* the frame table as data blocks too: read by the viewer's script,
	 * which comes after it, and never scanned as a string literal (the
	 * first table too) */
	if (nfirst)
		data_blocks(&out, "ember-first", &first);
	data_blocks(&out, "ember-frames", &frames);
	ember_buf_adds(b, "<script>\n");
	if (thead.len)
		ember_buf_adds(b, ember_asset_timeline_js);
	ember_buf_adds(b, ember_asset_viewer_js);
	ember_buf_adds(b, "</script>\n");
	/* data blocks, not string literals: the script parser never reads
	 * them (half the time of a page of samples); after the scripts and
	 * in blocks of 64 KiB, so that the flame graph is drawn while the
	 * parser reads them (it yields between elements, not within one) */
	if (thead.len) {
		data_blocks(&out, "ember-tstacks", &tstacks);
		data_blocks(&out, "ember-tsamples", &tsamples);
	}
	ember_buf_adds(b, "</body>\n</html>\n");
	out_flush(&out, 1);
	err = out.err;
	if (!err && o->palette_file) {
		err = ember_palette_save_map(pal, o->palette_file);
		if (err)
			*bad_file = o->palette_file;
	}
	ember_intern_release(&names.ids);
out:
	ember_buf_release(&names.text);
	ember_buf_release(&names.colors);
	ember_buf_release(&names.attrs);
	ember_buf_release(&frames);
	ember_buf_release(&first);
	ember_buf_release(&thead);
	ember_buf_release(&tstacks);
	ember_buf_release(&tsamples);
	ember_buf_release(b);
	ember_palette_free(pal);
	ember_palette_free(names.io);
	ember_nameattr_free(na);
	return err;
}

int ember_fg_write_html_error(struct ember_flamegraph *fg, ember_write_fn w,
			      void *ctx)
{
	struct out out = {EMBER_BUF_INIT, w, ctx, 0};
	struct ember_buf *b = &out.b;

	head(b, &fg->o);
	ember_buf_adds(b, ",\nerror: ");
	js_string(b, fg->o.empty_text ? fg->o.empty_text
				      : "ERROR: No valid input provided to "
					"ember flamegraph.");
	ember_buf_adds(b, "};\n</script>\n<script>\n");
	ember_buf_adds(b, ember_asset_viewer_js);
	ember_buf_adds(b, "</script>\n</body>\n</html>\n");
	out_flush(&out, 1);
	ember_buf_release(b);
	return out.err;
}
