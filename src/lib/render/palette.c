/*
 * Frame colours, exactly as flamegraph.pl computes them: the same palettes,
 * the same per-name random variables (Perl's srand/rand, which is drand48),
 * the name hash of --hash, the differential scale and palette.map files.
 * Names are read as UTF-8 code points, as Perl reads its input.
 *
 * inferno's rules too (EMBER_COLOR_INFERNO): its own java, js and perl
 * palettes and its python and rust ones, the same formulas in single
 * precision, --hash over bytes, --deterministic (FNV-1a) and its default,
 * a xorshift64 generator seeded with 1234 and drawn three times a frame.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "render.h"

enum base {
	P_NONE, /* unknown palette name: black, as flamegraph.pl draws it */
	P_HOT,
	P_MEM,
	P_IO,
	P_RED,
	P_GREEN,
	P_BLUE,
	P_AQUA,
	P_YELLOW,
	P_PURPLE,
	P_ORANGE,
	/* multi palettes pick a base palette per name */
	P_JAVA,
	P_PERL,
	P_JS,
	P_WAKEUP,
	P_CHAIN,
	P_PYTHON,
	P_RUST,
};

static const struct {
	const char *name;
	enum base p;
} palettes[] = {
    {"hot", P_HOT},	  {"mem", P_MEM},	{"io", P_IO},
    {"red", P_RED},	  {"green", P_GREEN},	{"blue", P_BLUE},
    {"aqua", P_AQUA},	  {"yellow", P_YELLOW}, {"purple", P_PURPLE},
    {"orange", P_ORANGE}, {"java", P_JAVA},	{"perl", P_PERL},
    {"js", P_JS},	  {"wakeup", P_WAKEUP}, {"chain", P_CHAIN},
    {"python", P_PYTHON}, {"rust", P_RUST},
};

struct map_ent {
	char *name;
	size_t len;
	struct ember_rgb rgb;
	char *text; /* as read from the file, written back unchanged */
};

struct ember_palette {
	enum base base;
	int mode, inferno;
	uint64_t rand_state; /* drand48 state for --random, xorshift64's */
	/* --cp: palette.map entries, by name */
	struct map_ent *map;
	size_t nmap, amap;
	int map_sorted;
};

/* Perl's drand48: X' = (a X + c) mod 2^48, seeded with (seed << 16) + 0x330e.
 */
static double drand48_step(uint64_t *x)
{
	*x = (*x * 0x5deece66dull + 0xb) & ((1ull << 48) - 1);
	return ldexp((double)*x, -48);
}

struct ember_palette *ember_palette_new(const char *colors, int mode)
{
	struct ember_palette *p = ember_xcalloc(1, sizeof(*p));

	p->base = P_NONE;
	for (size_t i = 0; i < ARRAY_SIZE(palettes); i++)
		if (colors && !strcmp(colors, palettes[i].name))
			p->base = palettes[i].p;
	p->inferno = !!(mode & EMBER_COLOR_INFERNO);
	p->mode = mode & ~EMBER_COLOR_INFERNO;
	p->rand_state = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20)) &
			((1ull << 48) - 1);
	if (p->mode == EMBER_COLOR_SEEDED)
		p->rand_state = 1234;
	return p;
}

int ember_fg_palette_known(const char *colors, int inferno)
{
	for (size_t i = 0; i < ARRAY_SIZE(palettes); i++)
		if (!strcmp(colors, palettes[i].name))
			return !inferno || palettes[i].p != P_CHAIN;
	return 0;
}

const char *ember_fg_palette(size_t i)
{
	return i < ARRAY_SIZE(palettes) ? palettes[i].name : NULL;
}

/* inferno's generator: xorshift64, its top 53 bits as a double, then
 * single precision. */
static double xorshift_step(uint64_t *a)
{
	uint64_t x = *a;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*a = x;
	return (float)ldexp((double)(x >> 11), -53);
}

/* --deterministic: FNV-1a of the bytes, then two more rounds of a zero
 * byte, each scaled to [0, 1] in single precision. */
static void fnv_vars(const char *s, size_t n, double v[3])
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	for (int k = 0; k < 3; k++) {
		if (k)
			h *= 0x100000001b3ull;
		v[k] = (float)((double)h / (double)UINT64_MAX);
	}
}

struct nh {
	float vector, weight, max;
	int mod;
};

static void nh_update(struct nh *h, unsigned char c)
{
	float i = (float)(c % h->mod);

	h->vector += (i / (float)(h->mod - 1)) * h->weight;
	h->mod++;
	h->max += h->weight;
	h->weight *= 0.70f;
}

/* inferno's namehash: flamegraph.pl's over bytes, in single precision,
 * read backwards when rev.  The first three bytes weigh in; a '`' after
 * the first starts the hash again after it (s/.(.*?)`//). */
static double inferno_namehash(const char *s, size_t n, int rev)
{
	struct nh h = {0, 1, 1, 10};
	size_t i = 0, found = 0;
#define AT(k) ((unsigned char)s[rev ? n - 1 - (k) : (k)])

	if (!n)
		return 1;
	nh_update(&h, AT(i++));
	for (int k = 0; k < 2 && i < n; k++) {
		if (AT(i++) == '`') {
			found = 1;
			break;
		}
		nh_update(&h, AT(i - 1));
	}
	while (!found && i < n)
		found = AT(i++) == '`';
	if (found) {
		h = (struct nh){0, 1, 1, 10};
		for (int k = 0; k < 3 && i < n; k++)
			nh_update(&h, AT(i++));
	}
#undef AT
	return 1.0f - h.vector / h.max;
}

void ember_palette_free(struct ember_palette *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nmap; i++) {
		free(p->map[i].name);
		free(p->map[i].text);
	}
	free(p->map);
	free(p);
}

/* Decodes a name into code points (at most cap of them); returns count. */
static size_t codepoints(const char *s, size_t n, uint32_t *cp, size_t cap)
{
	size_t i = 0, k = 0, len;

	while (i < n && k < cap) {
		cp[k++] = ember_utf8_next(s + i, n - i, &len);
		i += len;
	}
	return k;
}

/* flamegraph.pl's namehash(): weights the first three characters, after
 * dropping a "module`" prefix (s/.(.*?)`//). */
static double namehash(const uint32_t *cp, size_t n)
{
	double vector = 0, weight = 1, max = 1;
	int mod = 10;
	size_t start = 0;

	for (size_t i = 1; i < n; i++)
		if (cp[i] == '`') {
			start = i + 1;
			break;
		}
	for (size_t i = start; i < n; i++) {
		int v = (int)(cp[i] % (uint32_t)mod);
		vector += ((double)v / (mod++ - 1)) * weight;
		max += 1 * weight;
		weight *= 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / max;
}

static int contains(const char *s, size_t n, const char *pat)
{
	return memmem(s, n, pat, strlen(pat)) != NULL;
}

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t m = strlen(suf);
	return n >= m && !memcmp(s + n - m, suf, m);
}

static enum base java_base(const char *s, size_t n)
{
	static const char *const pkgs[] = {"java/", "javax/", "jdk/", "net/",
					   "org/",  "com/",   "io/",  "sun/"};
	const char *t = s;
	size_t tn = n;

	if (ends_with(s, n, "_[j]"))
		return P_GREEN; /* JIT */
	if (ends_with(s, n, "_[i]"))
		return P_AQUA; /* inlined */
	if (tn && *t == 'L')
		t++, tn--;
	for (size_t i = 0; i < ARRAY_SIZE(pkgs); i++) {
		size_t m = strlen(pkgs[i]);
		if (tn >= m && !memcmp(t, pkgs[i], m))
			return P_GREEN; /* Java */
	}
	if (contains(s, n, ":::"))
		return P_GREEN; /* perf-map-agent method separator */
	if (contains(s, n, "::"))
		return P_YELLOW; /* C++ */
	if (ends_with(s, n, "_[k]"))
		return P_ORANGE; /* kernel */
	return P_RED;
}

static enum base perl_base(const char *s, size_t n)
{
	if (contains(s, n, "::"))
		return P_YELLOW;
	if (contains(s, n, "Perl") || contains(s, n, ".pl"))
		return P_GREEN;
	if (ends_with(s, n, "_[k]"))
		return P_ORANGE;
	return P_RED;
}

static enum base js_base(const char *s, size_t n)
{
	if (ends_with(s, n, "_[j]"))
		return memchr(s, '/', n) ? P_GREEN : P_AQUA;
	if (contains(s, n, "::"))
		return P_YELLOW; /* C++ */
	const char *slash = memchr(s, '/', n);
	if (slash && contains(slash, n - (size_t)(slash - s), ".js"))
		return P_GREEN; /* JavaScript source */
	if (memchr(s, ':', n))
		return P_AQUA; /* builtin */
	if ((n == 1 && s[0] == ' ') || (n == 2 && !memcmp(s, " \n", 2)))
		return P_GREEN; /* missing symbol */
	if (contains(s, n, "_[k]"))
		return P_ORANGE;
	return P_RED;
}

static int starts_with(const char *s, size_t n, const char *pre)
{
	size_t m = strlen(pre);
	return n >= m && !memcmp(s, pre, m);
}

/* inferno's java: the annotation, C++ and Objective-C, then Java by a
 * '/', a '.' or a capital. */
static enum base inferno_java(const char *s, size_t n)
{
	if (n >= 4 && s[n - 1] == ']' && s[n - 4] == '_' && s[n - 3] == '[') {
		if (s[n - 2] == 'k')
			return P_ORANGE;
		if (s[n - 2] == 'i')
			return P_AQUA;
		if (s[n - 2] == 'j')
			return P_GREEN;
	}
	const char *t = s;
	size_t tn = n;
	if (tn && *t == 'L')
		t++, tn--;
	if (contains(s, n, "::") || starts_with(s, n, "-[") ||
	    starts_with(s, n, "+["))
		return P_YELLOW;
	if (memchr(t, '/', tn) || (memchr(t, '.', tn) && !(tn && *t == '[')) ||
	    (tn && *t >= 'A' && *t <= 'Z'))
		return P_GREEN;
	return P_RED;
}

static enum base inferno_perl(const char *s, size_t n)
{
	if (ends_with(s, n, "_[k]"))
		return P_ORANGE;
	if (contains(s, n, "Perl") || contains(s, n, ".pl"))
		return P_GREEN;
	if (contains(s, n, "::"))
		return P_YELLOW;
	return P_RED;
}

static enum base inferno_js(const char *s, size_t n)
{
	size_t sp = 0;

	while (sp < n && strchr(" \t\n\r\v\f", s[sp]) && s[sp])
		sp++;
	if (n && sp == n)
		return P_GREEN; /* missing symbol */
	if (ends_with(s, n, "_[k]"))
		return P_ORANGE;
	if (ends_with(s, n, "_[j]"))
		return memchr(s, '/', n) ? P_GREEN : P_AQUA;
	if (contains(s, n, "::"))
		return P_YELLOW;
	if (memchr(s, ':', n))
		return P_AQUA;
	const char *slash = memchr(s, '/', n);
	if (slash) {
		size_t rest = n - (size_t)(slash - s);
		if (contains(slash, rest, "node_modules/"))
			return P_PURPLE;
		if (contains(slash, rest, ".js"))
			return P_GREEN;
	}
	return P_RED;
}

/* python (inferno's): site-packages aqua, the standard library (a
 * pythonX.Y directory) and built-ins yellow, the program red. */
static enum base python_base(const char *s, size_t n)
{
	int std = starts_with(s, n, "<built-in") ||
		  starts_with(s, n, "<method") || starts_with(s, n, "<frozen");
	const char *p = s, *end = s + n;

	for (;;) {
		const char *q = p;
		while (q < end && *q != '/' && *q != '\\')
			q++;
		size_t len = (size_t)(q - p);
		if (len == 13 && !memcmp(p, "site-packages", 13))
			return P_AQUA;
		if (starts_with(p, len, "python") ||
		    starts_with(p, len, "Python")) {
			size_t k = 6;
			while (k < len &&
			       ((p[k] >= '0' && p[k] <= '9') || p[k] == '.'))
				k++;
			std |= k == len;
		}
		if (q == end)
			break;
		p = q + 1;
	}
	return std ? P_YELLOW : P_RED;
}

/* rust (inferno's): core, std and alloc orange, other paths aqua, the
 * rest yellow; a "module`" prefix is skipped. */
static enum base rust_base(const char *s, size_t n)
{
	const char *tick = memchr(s, '`', n);

	if (tick) {
		n -= (size_t)(tick + 1 - s);
		s = tick + 1;
	}
	if (starts_with(s, n, "core::") || starts_with(s, n, "std::") ||
	    starts_with(s, n, "alloc::") ||
	    (starts_with(s, n, "<core::") &&
	     !starts_with(s, n,
			  "<core::future::from_generator::GenFuture<T>")) ||
	    starts_with(s, n, "<std::") || starts_with(s, n, "<alloc::"))
		return P_ORANGE;
	return contains(s, n, "::") ? P_AQUA : P_YELLOW;
}

/* a * v truncated, in inferno's single precision or Perl's double */
static int part(const struct ember_palette *p, double a, double v)
{
	return p->inferno ? (int)((float)a * (float)v) : (int)(a * v);
}

struct ember_rgb ember_palette_color(struct ember_palette *p, const char *s,
				     size_t n)
{
	struct ember_rgb c = {0, 0, 0};
	double v1, v2, v3;
	enum base b = p->base;

	if (p->mode == EMBER_COLOR_HASH && p->inferno) {
		v1 = inferno_namehash(s, n, 0);
		v2 = v3 = inferno_namehash(s, n, 1);
	} else if (p->mode == EMBER_COLOR_FNV) {
		double v[3];
		fnv_vars(s, n, v);
		v1 = v[0], v2 = v[1], v3 = v[2];
	} else if (p->mode == EMBER_COLOR_SEEDED) {
		v1 = xorshift_step(&p->rand_state);
		v2 = xorshift_step(&p->rand_state);
		v3 = xorshift_step(&p->rand_state);
	} else if (p->mode == EMBER_COLOR_HASH) {
		uint32_t small[256], *cp = small;
		size_t k = ember_utf8_count(s, n);
		if (k > ARRAY_SIZE(small))
			cp = ember_xmalloc(k * sizeof(*cp));
		codepoints(s, n, cp, k);
		v1 = namehash(cp, k);
		for (size_t i = 0; i < k / 2; i++) {
			uint32_t t = cp[i];
			cp[i] = cp[k - 1 - i];
			cp[k - 1 - i] = t;
		}
		v2 = v3 = namehash(cp, k); /* of the reversed name */
		if (cp != small)
			free(cp);
	} else if (p->mode == EMBER_COLOR_RANDOM) {
		v1 = drand48_step(&p->rand_state);
		v2 = drand48_step(&p->rand_state);
		v3 = drand48_step(&p->rand_state);
	} else {
		/* srand(sum of code points mod 2^32); rand(1) */
		uint32_t sum = 0;
		size_t i = 0, len;
		while (i < n) {
			sum += ember_utf8_next(s + i, n - i, &len);
			i += len;
		}
		uint64_t x = ((uint64_t)sum << 16) + 0x330e;
		v1 = v2 = v3 = drand48_step(&x);
	}

	switch (b) {
	case P_JAVA:
		b = p->inferno ? inferno_java(s, n) : java_base(s, n);
		break;
	case P_PERL:
		b = p->inferno ? inferno_perl(s, n) : perl_base(s, n);
		break;
	case P_JS:
		b = p->inferno ? inferno_js(s, n) : js_base(s, n);
		break;
	case P_PYTHON:
		b = python_base(s, n);
		break;
	case P_RUST:
		b = rust_base(s, n);
		break;
	case P_WAKEUP:
		b = P_AQUA;
		break;
	case P_CHAIN:
		b = contains(s, n, "_[w]") ? P_AQUA : P_BLUE;
		break;
	default:
		break;
	}
	switch (b) {
	case P_HOT:
		c.r = (uint8_t)(205 + part(p, 50, v3));
		c.g = (uint8_t)part(p, 230, v1);
		c.b = (uint8_t)part(p, 55, v2);
		break;
	case P_MEM:
		c.r = 0;
		c.g = (uint8_t)(190 + part(p, 50, v2));
		c.b = (uint8_t)part(p, 210, v1);
		break;
	case P_IO:
		c.r = c.g = (uint8_t)(80 + part(p, 60, v1));
		c.b = (uint8_t)(190 + part(p, 55, v2));
		break;
	case P_RED:
		c.r = (uint8_t)(200 + part(p, 55, v1));
		c.g = c.b = (uint8_t)(50 + part(p, 80, v1));
		break;
	case P_GREEN:
		c.g = (uint8_t)(200 + part(p, 55, v1));
		c.r = c.b = (uint8_t)(50 + part(p, 60, v1));
		break;
	case P_BLUE:
		c.r = c.g = (uint8_t)(80 + part(p, 60, v1));
		c.b = (uint8_t)(205 + part(p, 50, v1));
		break;
	case P_YELLOW:
		c.r = c.g = (uint8_t)(175 + part(p, 55, v1));
		c.b = (uint8_t)(50 + part(p, 20, v1));
		break;
	case P_PURPLE:
		c.r = c.b = (uint8_t)(190 + part(p, 65, v1));
		c.g = (uint8_t)(80 + part(p, 60, v1));
		break;
	case P_AQUA:
		c.r = (uint8_t)(50 + part(p, 60, v1));
		c.g = c.b = (uint8_t)(165 + part(p, 55, v1));
		break;
	case P_ORANGE:
		c.r = (uint8_t)(190 + part(p, 65, v1));
		c.g = (uint8_t)(90 + part(p, 65, v1));
		c.b = 0;
		break;
	default:
		break;
	}
	return c;
}

struct ember_rgb ember_color_scale(double value, double max)
{
	struct ember_rgb c = {255, 255, 255};

	if (value > 0) {
		c.g = c.b = (uint8_t)(int)(210 * (max - value) / max);
	} else if (value < 0) {
		c.r = c.g = (uint8_t)(int)(210 * (max + value) / max);
	}
	return c;
}

struct ember_rgb ember_color_scale_inferno(int64_t value, int64_t max)
{
	struct ember_rgb c = {250, 250, 250};

	if (value > 0) {
		c.r = 255;
		c.g = c.b =
		    (uint8_t)(100 + (uint8_t)(150 * (max - value) / max));
	} else if (value < 0) {
		c.b = 255;
		c.r = c.g =
		    (uint8_t)(100 + (uint8_t)(150 * (max + value) / max));
	}
	return c;
}

int ember_fg_bgcolors(const char *bg, const char *colors, char c1[8],
		      char c2[8])
{
	static const struct {
		const char *name, *c1, *c2;
	} grads[] = {
	    {"yellow", "#eeeeee", "#eeeeb0"},
	    {"blue", "#eeeeee", "#e0e0ff"},
	    {"green", "#eef2ee", "#e0ffe0"},
	    {"grey", "#f8f8f8", "#e8e8e8"},
	};
	static const char *const grey_palettes[] = {
	    "red", "green", "blue", "aqua", "yellow", "purple", "orange"};

	if (!bg || !*bg) {
		bg = "yellow";
		if (!strcmp(colors, "mem"))
			bg = "green";
		else if (!strcmp(colors, "io") || !strcmp(colors, "wakeup") ||
			 !strcmp(colors, "chain"))
			bg = "blue";
		for (size_t i = 0; i < ARRAY_SIZE(grey_palettes); i++)
			if (!strcmp(colors, grey_palettes[i]))
				bg = "grey";
	}
	for (size_t i = 0; i < ARRAY_SIZE(grads); i++)
		if (!strcmp(bg, grads[i].name)) {
			memcpy(c1, grads[i].c1, 8);
			memcpy(c2, grads[i].c2, 8);
			return 0;
		}
	/* "#rrggbb": flamegraph.pl takes any six characters after '#'; we
	 * insist on hex digits, as anything else breaks the SVG */
	if (strlen(bg) == 7 && bg[0] == '#' &&
	    strspn(bg + 1, "0123456789abcdefABCDEF") == 6) {
		memcpy(c1, bg, 8);
		memcpy(c2, bg, 8);
		return 0;
	}
	return EMBER_EINVAL;
}

/* ---- palette.map (--cp) ---- */

static int cmp_map(const void *a, const void *b)
{
	const struct map_ent *x = a, *y = b;
	size_t m = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, m);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static struct map_ent *map_find(struct ember_palette *p, const char *s,
				size_t n)
{
	struct map_ent key = {(char *)s, n, {0, 0, 0}, NULL};

	if (!p->nmap)
		return NULL;
	if (!p->map_sorted) {
		qsort(p->map, p->nmap, sizeof(*p->map), cmp_map);
		p->map_sorted = 1;
	}
	return bsearch(&key, p->map, p->nmap, sizeof(*p->map), cmp_map);
}

static void map_add(struct ember_palette *p, const char *s, size_t n,
		    const char *text, size_t tn)
{
	EMBER_GROW(p->map, p->nmap + 1, p->amap);
	struct map_ent *e = &p->map[p->nmap++];
	e->name = ember_xmemdup(s, n);
	e->len = n;
	e->text = ember_xmemdup(text, tn);
	unsigned r = 0, g = 0, b = 0;
	if (sscanf(e->text, "rgb(%u,%u,%u)", &r, &g, &b) == 3) {
		e->rgb.r = (uint8_t)r;
		e->rgb.g = (uint8_t)g;
		e->rgb.b = (uint8_t)b;
	}
	p->map_sorted = 0;
}

int ember_palette_load_map(struct ember_palette *p, const char *path)
{
	struct ember_input *in;
	int err = ember_input_load(&in, path);

	if (err == EMBER_ENOENT)
		return 0;
	if (err)
		return err;
	size_t len;
	const char *s = ember_input_data(in, &len), *end = s + len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl ? nl : end;
		/* NAME->rgb(r,g,b); Perl splits at the first "->" */
		const char *arrow = memmem(s, (size_t)(eol - s), "->", 2);
		if (arrow) {
			const char *v = arrow + 2;
			const char *vend =
			    memmem(v, (size_t)(eol - v), "->", 2);
			if (!vend)
				vend = eol;
			if (!map_find(p, s, (size_t)(arrow - s)))
				map_add(p, s, (size_t)(arrow - s), v,
					(size_t)(vend - v));
		}
		s = nl ? nl + 1 : end;
	}
	ember_input_free(in);
	return 0;
}

struct ember_rgb ember_palette_map_color(struct ember_palette *p, const char *s,
					 size_t n)
{
	struct map_ent *e = map_find(p, s, n);
	char text[32];

	if (e)
		return e->rgb;
	struct ember_rgb c = ember_palette_color(p, s, n);
	int len = snprintf(text, sizeof(text), "rgb(%u,%u,%u)", c.r, c.g, c.b);
	map_add(p, s, n, text, (size_t)len);
	return c;
}

/* Written under a new temporary name (O_EXCL: never a file planted
 * there) and renamed over the old map, keeping its mode. */
int ember_palette_save_map(struct ember_palette *p, const char *path)
{
	struct ember_buf tmp = EMBER_BUF_INIT;
	struct stat st;
	FILE *f = NULL;
	int err = EMBER_EIO, fd;

	map_find(p, "", 0); /* sorts */
	ember_buf_addf(&tmp, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp.buf);
	if (fd < 0)
		goto out;
	if (!stat(path, &st)) {
		fchmod(fd, st.st_mode & 0777);
	} else {
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		goto fail;
	}
	for (size_t i = 0; i < p->nmap; i++) {
		fwrite(p->map[i].name, 1, p->map[i].len, f);
		fprintf(f, "->%s\n", p->map[i].text);
	}
	if (ferror(f) | fclose(f) || rename(tmp.buf, path))
		goto fail;
	err = 0;
	goto out;
fail:;
	int saved = errno;
	unlink(tmp.buf);
	errno = saved;
out:
	ember_buf_release(&tmp);
	return err;
}
