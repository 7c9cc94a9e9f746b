/*
 * The SVG writer: flamegraph.pl's image, frame for frame (same geometry,
 * tooltips, labels and colours), with ember's own JavaScript and CSS.
 *
 * Frames are written root first, in pre-order, each as flamegraph.pl
 * writes it: a <g> (or <a>) holding its <title>, <rect> and optional
 * <text>.  They are not nested in their parents, which would make the
 * document as deep as the deepest stack (XML parsers stop at 256 levels,
 * Chromium at 5,000), but grouped in blocks of EMBER_FG_FANOUT, blocks of
 * blocks, and so on: a subtree is a run of frames, and the script hides
 * any run with a few blocks.  After the frames, a second script gives the
 * script exact geometry, one "depth, gap, width" triple per frame in
 * document order, in units of the input's counts: a frame ends `gap`
 * before its parent's end (first child) or its previous sibling's start
 * (children are written right to left); a frame without a parent starts
 * at `gap`.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fg.h"
#include "nameattr.h"

#define FLUSH_AT (1 << 16)

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

static void esc(struct ember_buf *b, const char *s)
{
	ember_xml_escape(b, s, strlen(s), 1);
}

/* A string as a JavaScript literal that is also safe inside CDATA. */
static void js_string(struct ember_buf *b, const char *s)
{
	ember_buf_addch(b, '"');
	for (const unsigned char *p = (const void *)s; *p; p++) {
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || *p == ' ' || *p == ':' ||
		    *p == '_' || *p == '-' || *p == '.' || *p == ',')
			ember_buf_addch(b, (char)*p);
		else if (*p >= 0x80)
			ember_buf_addch(b, (char)*p); /* UTF-8 passes through */
		else
			ember_buf_addf(b, "\\u%04x", *p);
	}
	ember_buf_addch(b, '"');
}

/* "1234567" -> "1,234,567", as flamegraph.pl formats counts. */
static void add_grouped(struct ember_buf *b, double v)
{
	size_t start = b->len;

	ember_buf_addfix(b, v, 0);
	if (b->buf[start] == '-')
		start++;
	size_t n = b->len - start, commas = (n - 1) / 3;
	if (!commas)
		return;
	ember_buf_grow(b, commas);
	/* spread the digits out from the right, a comma every three */
	char *d = b->buf + start;
	size_t src = n, dst = n + commas;
	for (size_t k = 0; src > 0; k++) {
		if (k && k % 3 == 0)
			d[--dst] = ',';
		d[--dst] = d[--src];
	}
	b->len += commas;
	b->buf[b->len] = '\0';
}

static void add_rgb(struct ember_buf *b, struct ember_rgb c)
{
	ember_buf_adds(b, "rgb(");
	ember_buf_addu(b, c.r);
	ember_buf_addch(b, ',');
	ember_buf_addu(b, c.g);
	ember_buf_addch(b, ',');
	ember_buf_addu(b, c.b);
	ember_buf_addch(b, ')');
}

static const char *default_title(const struct ember_fg_options *o)
{
	if (o->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

/* The space above and below the frames: flamegraph.pl's, or inferno's,
 * whose icicle graphs put the details line on top. */
static double ypad1(const struct ember_fg_options *o)
{
	double sub =
	    o->subtitle && (*o->subtitle || o->inferno) ? o->fontsize * 2 : 0;
	if (o->inferno && o->inverted)
		return o->fontsize * 4 + sub + 4;
	return o->fontsize * 3 + (o->inferno ? sub : 0);
}

static double ypad2(const struct ember_fg_options *o)
{
	return o->inferno && o->inverted ? o->fontsize + 10
					 : o->fontsize * 2 + 10;
}

/* "#rrggbb" as "rgb(r,g,b)", or def when s is NULL (or "none"). */
static void add_hex_rgb(struct ember_buf *b, const char *s, const char *def)
{
	unsigned r, g, bl;

	if (s && strlen(s) == 7 && sscanf(s, "#%2x%2x%2x", &r, &g, &bl) == 3)
		ember_buf_addf(b, "rgb(%u,%u,%u)", r, g, bl);
	else
		ember_buf_adds(b, def);
}

static void header(struct out *out, const struct ember_fg_options *o, int w,
		   double h)
{
	struct ember_buf *b = &out->b;

	ember_buf_adds(b, "<?xml version=\"1.0\"");
	if (o->encoding) {
		ember_buf_adds(b, " encoding=\"");
		esc(b, o->encoding);
		ember_buf_addch(b, '"');
	}
	ember_buf_adds(b, " standalone=\"no\"?>\n"
			  "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
			  "\"http://www.w3.org/Graphics/SVG/1.1/DTD/"
			  "svg11.dtd\">\n");
	ember_buf_addf(b, "<svg version=\"1.1\" width=\"%d\" height=\"", w);
	ember_buf_addnum(b, h);
	ember_buf_addf(b, "\" onload=\"init(evt)\" viewBox=\"0 0 %d ", w);
	ember_buf_addnum(b, h);
	ember_buf_adds(b, "\" xmlns=\"http://www.w3.org/2000/svg\" "
			  "xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n"
			  "<!-- Flame graph stack visualization, drawn by "
			  "ember " EMBER_VERSION
			  " after Brendan Gregg's flamegraph.pl. -->\n");
}

/* A comment can hold anything but "--" (and may not end in "-"). */
static void notes(struct ember_buf *b, const char *s)
{
	ember_buf_adds(b, "<!-- NOTES: ");
	struct ember_buf t = EMBER_BUF_INIT;
	ember_xml_escape(&t, s, strlen(s), 0);
	for (size_t i = 0; i < t.len; i++) {
		ember_buf_addch(b, t.buf[i]);
		if (t.buf[i] == '-' && (i + 1 == t.len || t.buf[i + 1] == '-'))
			ember_buf_addch(b, ' ');
	}
	ember_buf_release(&t);
	ember_buf_adds(b, " -->\n");
}

static void text_el(struct ember_buf *b, const char *id, double x, double y,
		    const char *extra, const char *content)
{
	ember_buf_adds(b, "<text id=\"");
	ember_buf_adds(b, id);
	ember_buf_adds(b, "\" x=\"");
	ember_buf_addfix(b, x, 2);
	ember_buf_adds(b, "\" y=\"");
	ember_buf_addnum(b, y);
	ember_buf_adds(b, "\"");
	if (extra) {
		ember_buf_addch(b, ' ');
		ember_buf_adds(b, extra);
	}
	ember_buf_adds(b, ">");
	ember_xml_escape(b, content, strlen(content), 0);
	ember_buf_adds(b, "</text>\n");
}

int ember_fg_write_error(struct ember_flamegraph *fg, ember_write_fn w,
			 void *ctx)
{
	const struct ember_fg_options *o = &fg->o;
	struct out out = {EMBER_BUF_INIT, w, ctx, 0};
	double h = o->fontsize * 5;

	header(&out, o, o->width, h);
	text_el(&out.b, "error", (int)(o->width / 2), o->fontsize * 2,
		"style=\"text-anchor:middle\"",
		o->empty_text	 ? o->empty_text
		: o->perl_compat ? "ERROR: No valid input provided to "
				   "flamegraph.pl."
				 : "ERROR: No valid input provided to ember "
				   "flamegraph.");
	ember_buf_adds(&out.b, "</svg>\n");
	out_flush(&out, 1);
	ember_buf_release(&out.b);
	return out.err;
}

static void style_and_script(struct out *out, const struct ember_fg_options *o,
			     double h, uint32_t depthmax, const char *c1,
			     const char *c2)
{
	struct ember_buf *b = &out->b;

	ember_buf_adds(b, "<defs>\n\t<linearGradient id=\"background\" "
			  "y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
			  "\t\t<stop stop-color=\"");
	ember_buf_adds(b, c1);
	ember_buf_adds(b, "\" offset=\"5%\" />\n\t\t<stop stop-color=\"");
	ember_buf_adds(b, c2);
	ember_buf_adds(b, "\" offset=\"95%\" />\n\t</linearGradient>\n"
			  "</defs>\n<style type=\"text/css\">\n");
	ember_buf_adds(b, "text { font-family:");
	ember_xml_escape(b, o->fonttype, strlen(o->fonttype), 0);
	ember_buf_adds(b, "; font-size:");
	ember_buf_addnum(b, o->fontsize);
	ember_buf_adds(b, "px; fill:");
	add_hex_rgb(b, o->uicolor, "rgb(0,0,0)");
	ember_buf_adds(b, "; }\n#frames text { fill:rgb(0,0,0); }\n"
			  "#title { font-size:");
	ember_buf_addnum(b, o->fontsize + 5);
	ember_buf_adds(b, "px; }\n");
	if (o->stroke_color && strcmp(o->stroke_color, "none")) {
		ember_buf_adds(b, "#frames rect { stroke:");
		add_hex_rgb(b, o->stroke_color, "none");
		ember_buf_adds(b, "; stroke-width:1; }\n");
	}
	ember_buf_adds(b, ember_asset_flamegraph_css);
	ember_buf_adds(b, "</style>\n<script type=\"text/ecmascript\">"
			  "<![CDATA[\n\"use strict\";\nvar fg = {nametype: ");
	js_string(b, o->nametype);
	ember_buf_adds(b, ", fontsize: ");
	ember_buf_addnum(b, o->fontsize);
	ember_buf_adds(b, ", fontwidth: ");
	ember_buf_addnum(b, o->fontwidth);
	ember_buf_addf(b, ", xpad: %d, width: %d, height: ", EMBER_FG_XPAD,
		       o->width);
	ember_buf_addnum(b, h);
	ember_buf_addf(b,
		       ", frameheight: %d, inverted: %d, depthmax: %u, "
		       "fanout: %d, ypad1: ",
		       o->height, o->inverted ? 1 : 0, depthmax,
		       EMBER_FG_FANOUT);
	ember_buf_addnum(b, ypad1(o));
	ember_buf_adds(b, ", ypad2: ");
	ember_buf_addnum(b, ypad2(o));
	/* inferno's script cuts long names on the left unless told */
	ember_buf_addf(b, ", truncleft: %d, searchcolor: \"",
		       o->inferno && !o->truncate_right);
	add_hex_rgb(b, o->search_color, "rgb(230,0,230)");
	ember_buf_adds(b, "\"};\n");
	ember_buf_adds(b, ember_asset_flamegraph_js);
	ember_buf_adds(b, "]]></script>\n");
}

/* One frame's opening <g> (or <a> with --nameattr), <title/>, <rect/> and
 * optional <text/>; returns the attributes, which decide the closing tag. */
/* A frame's fill: the grey separators, --colordiffusion, the
 * differential hues, then the palette (or palette.map). */
static struct ember_rgb frame_color(const struct ember_fg_options *o,
				    const struct ember_tree_node *nd,
				    const struct fg_layout *lay,
				    struct ember_palette *pal,
				    struct ember_palette *io)
{
	const char *name = nd->name;
	size_t len = nd->len;
	int root = nd->depth == 0 && len == 0;
	double end = root ? lay->timemax : nd->end;

	if (len == 2 && name[0] == '-' && name[1] == '-')
		return (struct ember_rgb){160, 160, 160};
	if (len == 1 && name[0] == '-')
		return (struct ember_rgb){200, 200, 200};
	if (o->color_diffusion) {
		/* wider is redder, by the square root of the share */
		double x1 = nd->start * (100.0 / lay->timemax);
		double x2 = end * (100.0 / lay->timemax);
		return ember_color_scale_inferno(
		    (int64_t)(sqrt((x2 - x1) / 100.0) * 2000.0), 2000);
	}
	if (nd->has_delta && o->inferno)
		return ember_color_scale_inferno(
		    (int64_t)(o->negate ? -nd->delta : nd->delta),
		    (int64_t)lay->maxdelta);
	if (nd->has_delta)
		return ember_color_scale(o->negate ? -nd->delta : nd->delta,
					 lay->maxdelta);
	if (io && !nd->on_cpu)
		return ember_palette_color(io, name, len); /* off-CPU only */
	if (o->palette_file)
		return ember_palette_map_color(pal, name, len);
	return ember_palette_color(pal, name, len);
}

static int cmp_close(const void *pa, const void *pb, void *ctx)
{
	const struct ember_tree_node *n = ctx;
	const struct ember_tree_node *a = &n[*(const size_t *)pa];
	const struct ember_tree_node *b = &n[*(const size_t *)pb];

	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return (a->depth > b->depth) - (a->depth < b->depth);
}

/*
 * inferno draws its colours at random from a generator seeded once, frame
 * after frame in the order its frames close: by end time, and frames that
 * close together root-side first.  The colours are drawn in that order
 * here, before the frames are written in theirs.
 */
static struct ember_rgb *inferno_colors(const struct ember_fg_options *o,
					struct ember_tree *tree,
					const struct fg_layout *lay,
					struct ember_palette *pal)
{
	struct ember_rgb *c = ember_xreallocarray(NULL, tree->n, sizeof(*c));
	size_t *ord = ember_xreallocarray(NULL, tree->n, sizeof(*ord));

	for (size_t i = 0; i < tree->n; i++)
		ord[i] = i;
	qsort_r(ord, tree->n, sizeof(*ord), cmp_close, tree->nodes);
	for (size_t i = 0; i < tree->n; i++)
		c[ord[i]] =
		    frame_color(o, &tree->nodes[ord[i]], lay, pal, NULL);
	free(ord);
	return c;
}

static const struct ember_nameattr_ent *
frame(struct ember_flamegraph *fg, struct out *out,
      const struct ember_tree_node *nd, const struct fg_layout *lay, double h,
      struct ember_palette *pal, struct ember_palette *io,
      const struct ember_nameattr *na, const struct ember_rgb *color)
{
	const struct ember_fg_options *o = &fg->o;
	struct ember_buf *b = &out->b;
	const char *name = nd->name;
	size_t len = nd->len;
	int root = nd->depth == 0 && len == 0;
	double etime = root ? lay->timemax : nd->end;
	double x1 = EMBER_FG_XPAD + nd->start * lay->wpt;
	double x2 = EMBER_FG_XPAD + etime * lay->wpt;
	double y1, y2;

	if (!o->inverted) {
		y1 = h - ypad2(o) - (nd->depth + 1.0) * o->height +
		     EMBER_FG_FRAMEPAD;
		y2 = h - ypad2(o) - nd->depth * (double)o->height;
	} else {
		y1 = ypad1(o) + nd->depth * (double)o->height;
		y2 = ypad1(o) + (nd->depth + 1.0) * o->height -
		     EMBER_FG_FRAMEPAD;
	}

	/* the annotation (_[k] _[w] _[i] _[j]) only picks the colour */
	size_t shown = len;
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' &&
	    name[len - 1] == ']' && strchr("kwij", name[len - 2]) &&
	    name[len - 2])
		shown = len - 4;

	const struct ember_nameattr_ent *attr =
	    na ? ember_nameattr_find(na, name, len) : NULL;
	ember_nameattr_open(b, attr);

	ember_buf_adds(b, "<title>");
	if (attr && attr->title) {
		esc(b, attr->title);
	} else {
		double samples = (etime - nd->start) * o->factor;
		double rounded = ember_round_fixed(samples, 0);
		if (o->inferno) /* half away from zero, shown rounded */
			samples = rounded = round(samples);
		if (root) {
			ember_buf_adds(b, "all (");
			add_grouped(b, samples);
			ember_buf_addch(b, ' ');
			esc(b, o->countname);
			ember_buf_adds(b, ", 100%)");
		} else {
			ember_xml_escape(b, name, shown, 1);
			ember_buf_adds(b, " (");
			add_grouped(b, samples);
			ember_buf_addch(b, ' ');
			esc(b, o->countname);
			ember_buf_adds(b, ", ");
			ember_buf_addfix(
			    b, 100 * rounded / (lay->timemax * o->factor), 2);
			ember_buf_addch(b, '%');
			if (nd->has_delta) {
				double d = o->negate ? -nd->delta : nd->delta;
				if (d == 0)
					d = 0; /* no "-0.00%" */
				ember_buf_adds(b, "; ");
				if (d > 0)
					ember_buf_addch(b, '+');
				ember_buf_addfix(
				    b, 100 * d / (lay->timemax * o->factor), 2);
				ember_buf_addch(b, '%');
			}
			ember_buf_addch(b, ')');
		}
	}
	ember_buf_adds(b, "</title>\n");

	struct ember_rgb c = color ? *color : frame_color(o, nd, lay, pal, io);

	/* flamegraph.pl rounds both edges to 0.1 px, then subtracts */
	double rx1 = ember_round_fixed(x1, 1), rx2 = ember_round_fixed(x2, 1);

	ember_buf_adds(b, "<rect x=\"");
	ember_buf_addfix(b, x1, 1);
	ember_buf_adds(b, "\" y=\"");
	ember_buf_addnum(b, y1);
	ember_buf_adds(b, "\" width=\"");
	ember_buf_addfix(b, rx2 - rx1, 1);
	ember_buf_adds(b, "\" height=\"");
	ember_buf_addfix(b, y2 - y1, 1);
	ember_buf_adds(b, "\" fill=\"");
	add_rgb(b, c);
	ember_buf_adds(b, "\" rx=\"2\" ry=\"2\"/>");

	/* the label: as many characters as fit, ".." when cut */
	double fitc = (x2 - x1) / (o->fontsize * o->fontwidth);
	if (o->inferno) /* inferno measures by the image's width */
		fitc = (etime - nd->start) * (100.0 / lay->timemax) /
		       (100.0 * o->fontsize * o->fontwidth / o->width);
	size_t chars = fitc >= 3 ? (size_t)fitc : 0;
	if (chars >= 3 && shown) {
		size_t i = 0, k = 0, l;
		while (i < shown && k < chars) {
			ember_utf8_next(name + i, shown - i, &l);
			i += l;
			k++;
		}
		/* flamegraph.pl cuts a name of more characters than fit,
		 * inferno one of as many bytes or more */
		int cut = o->inferno ? shown >= chars : i < shown;
		ember_buf_adds(b, "<text x=\"");
		ember_buf_addfix(b, x1 + 3, 2);
		ember_buf_adds(b, "\" y=\"");
		ember_buf_addnum(b, 3 + (y1 + y2) / 2);
		ember_buf_adds(b, "\">");
		if (cut) {
			/* keep chars - 2 characters, then ".." */
			size_t j = 0, m = 0;
			while (m + 2 < chars && j < shown) {
				ember_utf8_next(name + j, shown - j, &l);
				j += l;
				m++;
			}
			ember_xml_escape(b, name, j, 0);
			ember_buf_adds(b, "..");
		} else {
			ember_xml_escape(b, name, shown, 0);
		}
		ember_buf_adds(b, "</text>");
	}
	ember_buf_addch(b, '\n');
	return attr;
}

/*
 * Writes the frames, one flat element each, in blocks of FANOUT frames,
 * blocks of FANOUT blocks, and so on up to at most FANOUT blocks in
 * #frames: however deep the stacks, the document is a few levels deep,
 * and the script hides any run of frames with a few classes.  Their
 * geometry triples go into data.
 */
static void frames(struct ember_flamegraph *fg, struct out *out,
		   struct ember_tree *tree, const struct fg_layout *lay,
		   double h, struct ember_palette *pal,
		   struct ember_palette *io, const struct ember_nameattr *na,
		   struct ember_buf *data)
{
	struct ember_rgb *colors =
	    fg->o.inferno ? inferno_colors(&fg->o, tree, lay, pal) : NULL;
	/* the frames each level of blocks holds, lowest level first */
	size_t span[EMBER_FG_MAXLEVELS], nlevels = 0, line = 0;
	for (size_t s = EMBER_FG_FANOUT; s < tree->n; s *= EMBER_FG_FANOUT)
		span[nlevels++] = s;
	/* the open frames of the walk, outermost first: their depths, and
	 * where the next child (leftwards) of each must end */
	struct open_frame {
		uint32_t depth;
		double cursor;
	} *st = ember_xcalloc(tree->maxdepth + 2, sizeof(*st));
	size_t nst = 0;

	/* post-order reversed: root first, parents before children */
	for (size_t k = 0; k < tree->n; k++) {
		const struct ember_tree_node *nd =
		    &tree->nodes[tree->n - 1 - k];
		int root = nd->depth == 0 && nd->len == 0;
		double end = root ? lay->timemax : nd->end;

		while (nst && st[nst - 1].depth >= nd->depth)
			nst--;
		double gap = nd->start;
		if (nst) {
			gap = st[nst - 1].cursor - end;
			st[nst - 1].cursor = nd->start;
		}
		if (nst <= tree->maxdepth) /* always, for depths from a tree */
			st[nst++] = (struct open_frame){nd->depth, end};
		ember_buf_addu(data, nd->depth);
		ember_buf_addch(data, ',');
		ember_buf_addnum(data, gap);
		ember_buf_addch(data, ',');
		ember_buf_addnum(data, end - nd->start);
		ember_buf_addch(data, ',');
		if (data->len - line > 100) {
			ember_buf_addch(data, '\n');
			line = data->len;
		}
		for (size_t l = nlevels; l-- > 0;)
			if (k % span[l] == 0)
				ember_buf_adds(&out->b, "<g>");
		ember_nameattr_close(
		    &out->b, frame(fg, out, nd, lay, h, pal, io, na,
				   colors ? &colors[tree->n - 1 - k] : NULL));
		for (size_t l = 0; l < nlevels; l++)
			if ((k + 1) % span[l] == 0 || k + 1 == tree->n)
				ember_buf_adds(&out->b, "</g>");
		out_flush(out, 0);
	}
	free(st);
	free(colors);
}

int ember_fg_write_svg(struct ember_flamegraph *fg, struct ember_tree *tree,
		       const struct fg_layout *lay, ember_write_fn w, void *ctx,
		       const char **bad_file)
{
	const struct ember_fg_options *o = &fg->o;
	struct out out = {EMBER_BUF_INIT, w, ctx, 0};
	struct ember_buf *b = &out.b;
	struct ember_nameattr *na = NULL;
	char c1[8], c2[8];
	int err;

	if (ember_fg_bgcolors(o->bgcolors, o->colors, c1, c2))
		return EMBER_EINVAL;
	if (o->nameattr_file) {
		err = ember_nameattr_load(&na, o->nameattr_file);
		if (err) {
			*bad_file = o->nameattr_file;
			return err;
		}
	}
	int mode = o->hash	      ? EMBER_COLOR_HASH
		   : o->deterministic ? EMBER_COLOR_FNV
		   : o->random	      ? EMBER_COLOR_RANDOM
		   : o->inferno	      ? EMBER_COLOR_SEEDED
				      : EMBER_COLOR_NAME;
	if (o->inferno)
		mode |= EMBER_COLOR_INFERNO;
	struct ember_palette *pal = ember_palette_new(o->colors, mode);
	/* Gregg's wall-clock graphs: off-CPU time in the io palette */
	struct ember_palette *io =
	    lay->mixed && !o->inferno ? ember_palette_new("io", mode) : NULL;
	if (o->palette_file) {
		err = ember_palette_load_map(pal, o->palette_file);
		if (err) {
			*bad_file = o->palette_file;
			goto out;
		}
	}

	double pad1 = ypad1(o), pad2 = ypad2(o);
	double h = (tree->maxdepth + 1.0) * o->height + pad1 + pad2;
	if (o->subtitle && *o->subtitle && !o->inferno)
		h += o->fontsize * 2;
	/* inferno halves its pads in whole pixels */
	double half2 = o->inferno ? floor(pad2 / 2) : pad2 / 2;

	ember_buf_grow(b, FLUSH_AT + 4096);
	header(&out, o, o->width, h);
	if (o->notes && *o->notes)
		notes(b, o->notes);
	style_and_script(&out, o, h, tree->maxdepth, c1, c2);
	ember_buf_addf(b, "<rect x=\"0.0\" y=\"0\" width=\"%d.0\" height=\"",
		       o->width);
	ember_buf_addfix(b, h, 1);
	ember_buf_adds(b, "\" fill=\"url(#background)\"/>\n");
	text_el(b, "title", (int)(o->width / 2), o->fontsize * 2, NULL,
		o->title ? o->title : default_title(o));
	if (o->subtitle && *o->subtitle)
		text_el(b, "subtitle", (int)(o->width / 2), o->fontsize * 4,
			NULL, o->subtitle);
	text_el(b, "details", EMBER_FG_XPAD,
		o->inferno && o->inverted ? pad1 - o->fontsize : h - half2,
		NULL, " ");
	text_el(b, "unzoom", EMBER_FG_XPAD, o->fontsize * 2, "class=\"hide\"",
		"Reset Zoom");
	text_el(b, "search", o->width - EMBER_FG_XPAD - 100, o->fontsize * 2,
		NULL, "Search");
	text_el(b, "ignorecase", o->width - EMBER_FG_XPAD - 16, o->fontsize * 2,
		NULL, "ic");
	text_el(b, "matched", o->width - EMBER_FG_XPAD - 100, h - half2, NULL,
		" ");
	ember_buf_adds(b, "<g id=\"frames\">\n");
	struct ember_buf data = EMBER_BUF_INIT;
	frames(fg, &out, tree, lay, h, pal, io, na, &data);
	ember_buf_adds(b, "\n</g>\n<script type=\"text/ecmascript\"><![CDATA[\n"
			  "fg.data = [");
	ember_buf_add(b, data.buf, data.len);
	ember_buf_adds(b, "];\n]]></script>\n</svg>\n");
	ember_buf_release(&data);
	out_flush(&out, 1);
	err = out.err;
	if (!err && o->palette_file) {
		err = ember_palette_save_map(pal, o->palette_file);
		if (err)
			*bad_file = o->palette_file;
	}
out:
	ember_buf_release(b);
	ember_palette_free(pal);
	ember_palette_free(io);
	ember_nameattr_free(na);
	return err;
}
