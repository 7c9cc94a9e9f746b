/*
 * The folded-stack core: the rules of a folded line ("a;b;c 42"), read and
 * written as FlameGraph's Perl scripts read and write them, for every part
 * of ember (collapse, diff, render, record).
 *
 * - Characters: Perl's \s, \d and \w on bytes.
 * - The count at the end of a line: /^(.*)\s+?(\d+(?:\.\d*)?)$/.
 * - Numbers: a sum stays an integer while every count is written in digits
 *   and no addition overflows 64 bits (Perl's IV), else it is a double
 *   (Perl's NV, printed with %.15g).
 * - Order: folded lines sort by their bytes (the frames' names, each
 *   followed by ';' when its stack goes on).
 */
#ifndef EMBER_FOLDED_H
#define EMBER_FOLDED_H

#include <string.h>

#include "intern.h"
#include "stacks.h"

/* ---- characters and lines --------------------------------------------- */

/* Perl's \s (without \n, which never is inside a line), \d and \w. */
static inline int folded_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}
static inline int folded_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}
extern const unsigned char ember_folded_word[256];
static inline int folded_word(unsigned char c)
{
	return ember_folded_word[c];
}
/* A line of blanks only. */
static inline int folded_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!folded_space((unsigned char)s[i]))
			return 0;
	return 1;
}

/* The next line of [*p, end): its length without the newline (and
 * without a '\r' before it), *p moved past it.  The caller checks
 * *p < end first. */
static inline size_t folded_line(const char **p, const char *end,
				 const char **line)
{
	const char *s = *p;
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	size_t n;

	if (nl) {
		n = (size_t)(nl - s);
		*p = nl + 1;
	} else {
		n = (size_t)(end - s);
		*p = end;
	}
	if (n && s[n - 1] == '\r')
		n--;
	*line = s;
	return n;
}

/* Counts a bad line (number `line` of input, NULL: standard input),
 * remembering the first. */
void ember_bad_lines_add(struct ember_bad_lines *b, uint64_t line,
			 const char *input, const char *s, size_t n);

/* ---- counts ------------------------------------------------------------ */

/* "a;b 12" lines as the Perl scripts read them, /^(.*)\s+?(\d+(?:\.\d*)?)$/,
 * and with an exponent (1.8e+19, 1e-22), as Perl and ember write large
 * and small sums: the count is the number after the last whitespace; the
 * stack is what comes before that one whitespace character.  Returns 0
 * (and the stack's length and the count) or -1. */
int ember_folded_split(const char *s, size_t n, size_t *stack_len,
		       double *count);

/* Digits as an integer: 1, or 0 when not all digits or beyond 64 bits. */
int ember_parse_u64(const char *s, size_t n, uint64_t *v);
/* A count as Perl reads the digits (and fraction) of a number. */
double ember_perl_number(const char *s, size_t n);

/* A sum held as Perl holds it: the integer, or FOLDED_INEXACT when it is
 * a float (see the double beside it). */
#define FOLDED_INEXACT UINT64_MAX

/* Perl's $sum += $n: *x the sum as an integer (FOLDED_INEXACT: a float),
 * *d as a float; n is count, or the integer v when `integer`. */
static inline void ember_perl_add(uint64_t *x, double *d, double count,
				  uint64_t v, int integer)
{
	if (integer && *x == FOLDED_INEXACT && *d >= 0 &&
	    *d < 18446744073709551616.0 && *d == (double)(uint64_t)*d)
		*x = (uint64_t)*d; /* an integral float: an integer again */
	if (integer && *x != FOLDED_INEXACT) {
		uint64_t sum;
		if (!__builtin_add_overflow(*x, v, &sum) &&
		    sum != FOLDED_INEXACT) {
			*x = sum;
			*d = (double)sum;
			return;
		}
	}
	*d = (*x != FOLDED_INEXACT ? (double)*x : *d) + count;
	*x = FOLDED_INEXACT;
}

/* Appends x as Python's str(float) prints it (repr: the shortest digits
 * that read back as x; "25.0", "1e-05", "1e+16"). */
void ember_buf_add_pyfloat(struct ember_buf *b, double x);
/* Appends a floating-point count as Perl prints one (%.15g). */
void ember_buf_add_nv(struct ember_buf *b, double x);
/* Appends a sum as Perl prints it: the integer x, else (FOLDED_INEXACT)
 * the float d. */
static inline void ember_folded_add_count(struct ember_buf *b, uint64_t x,
					  double d)
{
	if (x != FOLDED_INEXACT)
		ember_buf_addu(b, x);
	else
		ember_buf_add_nv(b, d);
}

/* ---- frames ------------------------------------------------------------ */

/* The ';'-separated fields of s (all of them, empty ones too) into *fr
 * (grown as needed) from index `from`; returns the index past the last. */
size_t ember_folded_fields(const char *s, size_t len, size_t from,
			   struct ember_slice **fr, size_t *afr);
/* Perl's split(";", $stack): the frames of a stack, without trailing empty
 * ones, into *fr; returns how many. */
size_t ember_folded_frames(const char *s, size_t len, struct ember_slice **fr,
			   size_t *afr);

/* ---- stacks in order, and written -------------------------------------- */

/*
 * The byte order of two frames of folded lines: name a, followed by ';'
 * when its stack goes on (a_more) and by nothing when it ends there, against
 * name b likewise (names hold no ';').
 */
static inline int ember_frame_cmp(const struct ember_intern *t, uint32_t a,
				  int a_more, uint32_t b, int b_more)
{
	const struct ember_intern_ent *ea = &t->ents[a];
	const struct ember_intern_ent *eb = &t->ents[b];
	const unsigned char *sa = (const void *)ea->s;
	const unsigned char *sb = (const void *)eb->s;
	size_t la = ea->len, lb = eb->len, m = la < lb ? la : lb;
	int c = memcmp(sa, sb, m);
	if (c)
		return c;
	/* one name is a prefix of the other: what follows decides */
	int ca = la > m ? sa[m] : (a_more ? ';' : -1);
	int cb = lb > m ? sb[m] : (b_more ? ';' : -1);
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return (la > lb) - (la < lb);
}

/* The byte order of two entries' folded lines "a;b;c": at the first frame
 * that differs, the frames decide. */
static inline int ember_stacks_cmp(const struct ember_stacks *s,
				   const struct ember_intern *t,
				   const struct ember_stack_ent *a,
				   const struct ember_stack_ent *b)
{
	const uint32_t *fa = s->ids + a->off, *fb = s->ids + b->off;
	uint32_t n = a->n < b->n ? a->n : b->n;

	for (uint32_t i = 0; i < n; i++)
		if (fa[i] != fb[i])
			return ember_frame_cmp(t, fa[i], i + 1 < a->n, fb[i],
					       i + 1 < b->n);
	return (a->n > b->n) - (a->n < b->n);
}

/* The entries' indices in the order of their folded lines (malloc'd). */
uint32_t *ember_stacks_order(const struct ember_stacks *s,
			     const struct ember_intern *t);

/* Appends entry i's stack as a folded line's stack part, "a;b;c". */
void ember_stacks_add_folded(struct ember_buf *b, const struct ember_stacks *s,
			     const struct ember_intern *t, size_t i);

/* Folded lines on their way out: a line is appended to b, then
 * ember_folded_out_line writes the buffer when it is full (64 KiB writes);
 * ember_folded_out_finish writes the rest and releases the buffer.  Both
 * return the first write error (0: none). */
struct ember_folded_out {
	struct ember_buf b;
	ember_write_fn w;
	void *ctx;
	int err;
};
void ember_folded_out_init(struct ember_folded_out *o, ember_write_fn w,
			   void *ctx);
static inline int ember_folded_out_line(struct ember_folded_out *o)
{
	if (o->b.len >= (1 << 16) - 4096 && !o->err) {
		o->err = o->w(o->ctx, o->b.buf, o->b.len);
		ember_buf_reset(&o->b);
	}
	return o->err;
}
int ember_folded_out_finish(struct ember_folded_out *o);

#endif
