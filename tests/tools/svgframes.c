/*
 * svgframes: describes the frames of a flame-graph SVG in the format of the
 * conformance vectors (tests/conformance/flamegraph/README), and compares
 * that description with an expected one.
 *
 *   svgframes FILE.svg                 print the description
 *   svgframes --check EXPECTED FILE.svg   compare (gzip accepted); exit 1
 *                                         and say why when they differ
 *   svgframes --check-svg EXPECTED.svg FILE.svg
 *                                         the same with an SVG as expected:
 *                                         frames, image size, and the title,
 *                                         subtitle and details texts
 *
 * inferno's SVGs are read too: frames in <svg id="frames" x= width=>, x
 * and widths in percent of it, texts' x in percent of the image.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

struct frame {
	char *tip, *fill, *label;
	double x, y, w, h;
};

struct desc {
	double svg_w, svg_h;
	char *texts[16]; /* "id\tx\ty\tcontent" */
	int ntexts;
	struct frame *f;
	size_t n, alloc;
};

static char *slurp(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *buf;
	int r;

	if (!g) {
		fprintf(stderr, "svgframes: cannot open %s\n", path);
		exit(2);
	}
	buf = malloc(cap + 1);
	while ((r = gzread(g, buf + n, (unsigned)(cap - n))) > 0) {
		n += (size_t)r;
		if (n == cap)
			buf = realloc(buf, (cap *= 2) + 1);
	}
	gzclose(g);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Decodes XML character references and the five named entities. */
static char *decode(const char *s, size_t n)
{
	char *out = malloc(n + 1), *o = out;
	const char *end = s + n;

	while (s < end) {
		if (*s != '&') {
			*o++ = *s++;
			continue;
		}
		const char *semi = memchr(s, ';', (size_t)(end - s));
		if (!semi) {
			*o++ = *s++;
			continue;
		}
		size_t k = (size_t)(semi - s);
		unsigned long cp = 0;
		if (k == 4 && !memcmp(s, "&amp", 4))
			cp = '&';
		else if (k == 3 && !memcmp(s, "&lt", 3))
			cp = '<';
		else if (k == 3 && !memcmp(s, "&gt", 3))
			cp = '>';
		else if (k == 5 && !memcmp(s, "&quot", 5))
			cp = '"';
		else if (k == 5 && !memcmp(s, "&apos", 5))
			cp = '\'';
		else if (s[1] == '#' && (s[2] == 'x' || s[2] == 'X'))
			cp = strtoul(s + 3, NULL, 16);
		else if (s[1] == '#')
			cp = strtoul(s + 2, NULL, 10);
		if (!cp) {
			*o++ = *s++;
			continue;
		}
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xc0 | (cp >> 6));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xe0 | (cp >> 12));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		} else {
			*o++ = (char)(0xf0 | (cp >> 18));
			*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
			*o++ = (char)(0x80 | (cp & 0x3f));
		}
		s = semi + 1;
	}
	*o = '\0';
	return out;
}

/* The value of attribute name in the tag starting at tag (up to '>'). */
static char *attr(const char *tag, const char *name)
{
	const char *end = strchr(tag, '>');
	size_t n = strlen(name);

	for (const char *p = tag; p && p < end; p++) {
		p = strstr(p, name);
		if (!p || p >= end)
			break;
		if ((p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n') &&
		    p[n] == '=' && p[n + 1] == '"') {
			const char *v = p + n + 2, *q = strchr(v, '"');
			return decode(v, (size_t)(q - v));
		}
	}
	return NULL;
}

static double num(const char *tag, const char *name)
{
	char *v = attr(tag, name);
	double d = v ? strtod(v, NULL) : NAN;
	free(v);
	return d;
}

/* A length that may be a percentage of scale, then offset by off. */
static double len_at(const char *tag, const char *name, double off,
		     double scale)
{
	char *v = attr(tag, name), *end = NULL;
	double d = v ? strtod(v, &end) : NAN;

	if (v && end && *end == '%')
		d = off + d * scale / 100;
	free(v);
	return d;
}

static void parse_svg(const char *svg, struct desc *d)
{
	static const char *const ids[] = {"title",  "subtitle", "details",
					  "unzoom", "search",	"ignorecase",
					  "matched"};
	const char *p = strstr(svg, "<svg ");

	memset(d, 0, sizeof(*d));
	if (!p) {
		fprintf(stderr, "svgframes: no <svg> element\n");
		exit(2);
	}
	d->svg_w = num(p, "width");
	d->svg_h = num(p, "height");
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		char key[64];
		snprintf(key, sizeof(key), "<text id=\"%s\"", ids[i]);
		const char *t = strstr(svg, key);
		if (!t)
			continue;
		const char *c = strchr(t, '>') + 1, *e = strstr(c, "</text>");
		char *content = decode(c, (size_t)(e - c));
		char *line = malloc(strlen(content) + 128);
		sprintf(line, "%s\t%.1f\t%.1f\t%s", ids[i],
			len_at(t, "x", 0, d->svg_w), num(t, "y"), content);
		free(content);
		d->texts[d->ntexts++] = line;
	}
	/* inferno's: a nested <svg> whose x and width the percentages
	 * are of */
	double fx = 0, fw = 0;
	p = strstr(svg, "<g id=\"frames\"");
	if (!p && (p = strstr(svg, "<svg id=\"frames\""))) {
		fx = num(p, "x");
		fw = num(p, "width");
	}
	while (p && (p = strstr(p, "<title>"))) {
		const char *te = strstr(p, "</title>");
		const char *next = strstr(te, "<title>");
		const char *r = strstr(te, "<rect");
		struct frame f;
		if (!te || !r)
			break;
		f.tip = decode(p + 7, (size_t)(te - p - 7));
		f.x = fw ? len_at(r, "x", fx, fw) : num(r, "x");
		f.y = num(r, "y");
		f.w = fw ? len_at(r, "width", 0, fw) : num(r, "width");
		f.h = num(r, "height");
		f.fill = attr(r, "fill");
		const char *lim = next ? next : r + strlen(r);
		const char *t = memmem(r, (size_t)(lim - r), "<text", 5);
		if (t) {
			const char *c = strchr(t, '>') + 1;
			const char *e = strstr(c, "</text>");
			f.label = decode(c, (size_t)(e - c));
		} else {
			f.label = strdup("");
		}
		if (d->n == d->alloc)
			d->f = realloc(d->f, (d->alloc = d->alloc * 2 + 64) *
						 sizeof(*d->f));
		d->f[d->n++] = f;
		p = te;
	}
}

static char *field(char **s)
{
	char *t = *s, *tab = strchr(t, '\t');
	if (tab) {
		*tab = '\0';
		*s = tab + 1;
	} else {
		*s = t + strlen(t);
	}
	return t;
}

static void parse_frames(char *text, struct desc *d)
{
	memset(d, 0, sizeof(*d));
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *s = line;
		if (!strncmp(line, "#svg\t", 5)) {
			sscanf(line + 5, "%lf\t%lf", &d->svg_w, &d->svg_h);
			continue;
		}
		if (!strncmp(line, "#text\t", 6)) {
			d->texts[d->ntexts++] = strdup(line + 6);
			continue;
		}
		struct frame f;
		f.tip = strdup(field(&s));
		f.x = strtod(field(&s), NULL);
		f.y = strtod(field(&s), NULL);
		f.w = strtod(field(&s), NULL);
		f.h = strtod(field(&s), NULL);
		f.fill = strdup(field(&s));
		f.label = strdup(s);
		if (d->n == d->alloc)
			d->f = realloc(d->f, (d->alloc = d->alloc * 2 + 64) *
						 sizeof(*d->f));
		d->f[d->n++] = f;
	}
}

static int cmp_frame(const void *pa, const void *pb)
{
	const struct frame *a = pa, *b = pb;
	int c = strcmp(a->tip, b->tip);
	if (c)
		return c;
	if (a->y != b->y)
		return a->y < b->y ? -1 : 1;
	if ((c = strcmp(a->label, b->label)))
		return c;
	return a->x < b->x ? -1 : a->x > b->x;
}

static void print_frame(FILE *f, const char *tag, const struct frame *x)
{
	fprintf(f, "%s%s\t%.1f\t%.1f\t%.1f\t%.1f\t%s\t%s\n", tag, x->tip, x->x,
		x->y, x->w, x->h, x->fill, x->label);
}

static int check(struct desc *exp, struct desc *act)
{
	int bad = 0;

	if (exp->svg_w != act->svg_w || exp->svg_h != act->svg_h) {
		printf("image size: expected %gx%g, got %gx%g\n", exp->svg_w,
		       exp->svg_h, act->svg_w, act->svg_h);
		bad++;
	}
	for (int i = 0; i < exp->ntexts; i++) {
		int found = 0;
		for (int j = 0; j < act->ntexts; j++)
			found |= !strcmp(exp->texts[i], act->texts[j]);
		if (!found) {
			printf("text missing or different: %s\n",
			       exp->texts[i]);
			bad++;
		}
	}
	if (exp->ntexts != act->ntexts && exp->ntexts) {
		printf("header texts: expected %d, got %d\n", exp->ntexts,
		       act->ntexts);
		bad++;
	}
	qsort(exp->f, exp->n, sizeof(*exp->f), cmp_frame);
	qsort(act->f, act->n, sizeof(*act->f), cmp_frame);
	if (exp->n != act->n) {
		printf("frames: expected %zu, got %zu\n", exp->n, act->n);
		bad++;
	}
	size_t i = 0, j = 0, shown = 0;
	while ((i < exp->n || j < act->n) && shown < 12) {
		const struct frame *e = i < exp->n ? &exp->f[i] : NULL;
		const struct frame *a = j < act->n ? &act->f[j] : NULL;
		int c = !e ? 1 : !a ? -1 : strcmp(e->tip, a->tip);
		if (!c && e->y != a->y)
			c = e->y < a->y ? -1 : 1;
		if (!c && strcmp(e->label, a->label))
			c = strcmp(e->label, a->label);
		if (c) {
			print_frame(stdout, c < 0 ? "missing: " : "extra:   ",
				    c < 0 ? e : a);
			c < 0 ? i++ : j++;
			bad++, shown++;
			continue;
		}
		if (fabs(e->x - a->x) > 0.15 || fabs(e->w - a->w) > 0.15 ||
		    e->h != a->h ||
		    (strcmp(e->fill, "-") && strcmp(e->fill, a->fill))) {
			print_frame(stdout, "expected: ", e);
			print_frame(stdout, "got:      ", a);
			bad++, shown++;
		}
		i++, j++;
	}
	return bad;
}

/* Only the title, subtitle and details texts: where ember and inferno
 * place the search and zoom buttons differs. */
static void keep_common_texts(struct desc *d)
{
	int k = 0;

	for (int i = 0; i < d->ntexts; i++) {
		if (!strncmp(d->texts[i], "title\t", 6) ||
		    !strncmp(d->texts[i], "subtitle\t", 9) ||
		    !strncmp(d->texts[i], "details\t", 8))
			d->texts[k++] = d->texts[i];
		else
			free(d->texts[i]);
	}
	d->ntexts = k;
}

int main(int argc, char **argv)
{
	struct desc exp, act;
	size_t len;

	if (argc == 2) {
		char *svg = slurp(argv[1], &len);
		parse_svg(svg, &act);
		printf("#svg\t%g\t%g\n", act.svg_w, act.svg_h);
		for (int i = 0; i < act.ntexts; i++)
			printf("#text\t%s\n", act.texts[i]);
		qsort(act.f, act.n, sizeof(*act.f), cmp_frame);
		for (size_t i = 0; i < act.n; i++)
			print_frame(stdout, "", &act.f[i]);
		return 0;
	}
	if (argc != 4 ||
	    (strcmp(argv[1], "--check") && strcmp(argv[1], "--check-svg"))) {
		fprintf(stderr, "usage: svgframes FILE.svg\n"
				"       svgframes --check EXPECTED FILE.svg\n"
				"       svgframes --check-svg EXPECTED.svg "
				"FILE.svg\n");
		return 2;
	}
	char *e = slurp(argv[2], &len);
	char *svg = slurp(argv[3], &len);
	if (!strcmp(argv[1], "--check-svg")) {
		/* the texts both drawings have in the same place */
		parse_svg(e, &exp);
		parse_svg(svg, &act);
		keep_common_texts(&exp);
		keep_common_texts(&act);
	} else {
		parse_frames(e, &exp);
		parse_svg(svg, &act);
	}
	return check(&exp, &act) ? 1 : 0;
}
