/* The flame-graph renderer's state, shared by flamegraph.c and svg.c. */
#ifndef EMBER_FG_H
#define EMBER_FG_H

#include "render.h"

#define EMBER_FG_XPAD	  10
#define EMBER_FG_FRAMEPAD 1
/* The SVG's frames come in blocks of this many, blocks of blocks...: the
 * levels of blocks a graph of 2^64 frames would need, at most. */
#define EMBER_FG_FANOUT	   32
#define EMBER_FG_MAXLEVELS 13

/* One distinct valid input line (in a flame chart: one run of identical
 * lines): the line from byte `pre` on (pre is 0 unless the lines are
 * front-coded), its lengths and counts, c2 the second column of a
 * differential line, and how many times it came. */
struct fg_line {
	const char *s;
	uint32_t len, stack_len;
	uint32_t pre; /* bytes (whole frames) as in the line before */
	int two;
	double c1, c2;
	uint64_t rep;
};

struct ember_flamegraph {
	struct ember_fg_options o;
	struct fg_line *lines; /* in order of first appearance */
	size_t nlines, alines;
	/* the lines by hash: the hash's 32 bits, then the index + 1 (0:
	 * empty), load at most 1/2 */
	uint64_t *slots;
	struct fg_line *last; /* the line before, if valid */
	size_t mask;
	/* front-coded lines (each stores only what follows the frames it
	 * shares with the line before), and whether each is greater than the
	 * one before, so that a line can only repeat the last one: no
	 * hashing while input stays sorted */
	int coded, sorted;
	/* the last line whole: in the bytes being fed, or a copy in prev */
	const char *last_s;
	size_t last_n;
	struct ember_buf prev;
	struct ember_arena tails; /* the front-coded lines' bytes */
	size_t nlines_in;
	struct ember_bad_lines bad;
	/* sums over the input lines in input order, as the script makes them */
	double time, maxdelta;
	int fractional;	   /* inferno: counts with a fraction were cut */
	const char *input; /* the input being read, and its lines so far */
	uint64_t lineno;
	struct ember_arena arena;      /* the lines, and rewritten ones */
	const struct ember_prof *prof; /* the samples (HTML), or NULL */
};

struct fg_layout {
	double time, timemax, wpt, maxdelta;
	/* on- and off-CPU stacks: frames with only off-CPU time are blue */
	int mixed;
};

int ember_fg_write_svg(struct ember_flamegraph *fg, struct ember_tree *tree,
		       const struct fg_layout *lay, ember_write_fn w, void *ctx,
		       const char **bad_file);
int ember_fg_write_html(struct ember_flamegraph *fg, struct ember_tree *tree,
			const struct fg_layout *lay, ember_write_fn w,
			void *ctx, const char **bad_file);
int ember_fg_write_html_error(struct ember_flamegraph *fg, ember_write_fn w,
			      void *ctx);
int ember_fg_write_error(struct ember_flamegraph *fg, ember_write_fn w,
			 void *ctx);

#endif
