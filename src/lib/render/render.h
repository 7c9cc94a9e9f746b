/* Shared inside the renderer: colours, text and the SVG writer. */
#ifndef EMBER_RENDER_H
#define EMBER_RENDER_H

#include "folded.h"
#include "tree.h"

/* ---- utf8.c ---- */
/* Decodes the code point at s (n > 0 bytes left) and stores its length in
 * *len; a byte that starts no valid UTF-8 sequence stands for itself. */
uint32_t ember_utf8_next(const char *s, size_t n, size_t *len);
/* Number of code points in s. */
size_t ember_utf8_count(const char *s, size_t n);
/* Appends s with & < > (and " when quot) escaped, as well-formed XML text:
 * control characters and invalid UTF-8 become U+FFFD. */
void ember_xml_escape(struct ember_buf *b, const char *s, size_t n, int quot);

/* ---- palette.c ---- */
enum ember_color_mode {
	EMBER_COLOR_NAME,   /* default: seeded by the name, as flamegraph.pl */
	EMBER_COLOR_HASH,   /* --hash */
	EMBER_COLOR_RANDOM, /* --random */
	EMBER_COLOR_FNV,    /* --deterministic: FNV-1a of the name's bytes */
	EMBER_COLOR_SEEDED, /* inferno's default: xorshift64 seeded 1234, one
			     * draw of three per frame in its order */
	/* or'ed in: inferno's rules (its java, js and perl palettes, single
	 * precision, --hash over bytes) */
	EMBER_COLOR_INFERNO = 0x100,
};
struct ember_rgb {
	uint8_t r, g, b;
};
struct ember_palette;
struct ember_palette *ember_palette_new(const char *colors, int mode);
void ember_palette_free(struct ember_palette *p);
/* The colour of a frame (annotations such as _[k] included in name). */
struct ember_rgb ember_palette_color(struct ember_palette *p, const char *name,
				     size_t len);
/* --cp: reads palette.map (missing is fine), returns 0 or EMBER_EIO. */
int ember_palette_load_map(struct ember_palette *p, const char *path);
/* --cp colour: the stored one, else a new one that is remembered. */
struct ember_rgb ember_palette_map_color(struct ember_palette *p,
					 const char *name, size_t len);
int ember_palette_save_map(struct ember_palette *p, const char *path);
/* The differential colour of flamegraph.pl's color_scale(). */
struct ember_rgb ember_color_scale(double value, double max);
/* inferno's: integer arithmetic, 250 grey for no change. */
struct ember_rgb ember_color_scale_inferno(int64_t value, int64_t max);

#endif
