/*
 * Frame colours, exactly as flamegraph.pl computes them: the same palettes,
 * the same per-name random variables (Perl's srand/rand, which is drand48),
 * the name hash of --hash, the differential scale and palette.map files.
 * Names are read as UTF-8 code points, as Perl reads its input.
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
};

struct map_ent {
	char *name;
	size_t len;
	struct ember_rgb rgb;
	char *text; /* as read from the file, written back unchanged */
};

struct ember_palette {
	enum base base;
	int mode;
	uint64_t rand_state; /* drand48 state for --random */
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
	p->mode = mode;
	p->rand_state = ((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20)) &
			((1ull << 48) - 1);
	return p;
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

struct ember_rgb ember_palette_color(struct ember_palette *p, const char *s,
				     size_t n)
{
	struct ember_rgb c = {0, 0, 0};
	double v1, v2, v3;
	enum base b = p->base;

	if (p->mode == EMBER_COLOR_HASH) {
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
		b = java_base(s, n);
		break;
	case P_PERL:
		b = perl_base(s, n);
		break;
	case P_JS:
		b = js_base(s, n);
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
		c.r = (uint8_t)(205 + (int)(50 * v3));
		c.g = (uint8_t)(230 * v1);
		c.b = (uint8_t)(55 * v2);
		break;
	case P_MEM:
		c.r = 0;
		c.g = (uint8_t)(190 + (int)(50 * v2));
		c.b = (uint8_t)(210 * v1);
		break;
	case P_IO:
		c.r = c.g = (uint8_t)(80 + (int)(60 * v1));
		c.b = (uint8_t)(190 + (int)(55 * v2));
		break;
	case P_RED:
		c.r = (uint8_t)(200 + (int)(55 * v1));
		c.g = c.b = (uint8_t)(50 + (int)(80 * v1));
		break;
	case P_GREEN:
		c.g = (uint8_t)(200 + (int)(55 * v1));
		c.r = c.b = (uint8_t)(50 + (int)(60 * v1));
		break;
	case P_BLUE:
		c.r = c.g = (uint8_t)(80 + (int)(60 * v1));
		c.b = (uint8_t)(205 + (int)(50 * v1));
		break;
	case P_YELLOW:
		c.r = c.g = (uint8_t)(175 + (int)(55 * v1));
		c.b = (uint8_t)(50 + (int)(20 * v1));
		break;
	case P_PURPLE:
		c.r = c.b = (uint8_t)(190 + (int)(65 * v1));
		c.g = (uint8_t)(80 + (int)(60 * v1));
		break;
	case P_AQUA:
		c.r = (uint8_t)(50 + (int)(60 * v1));
		c.g = c.b = (uint8_t)(165 + (int)(55 * v1));
		break;
	case P_ORANGE:
		c.r = (uint8_t)(190 + (int)(65 * v1));
		c.g = (uint8_t)(90 + (int)(65 * v1));
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
