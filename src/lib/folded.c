/* The folded-stack core (folded.h): reading counts as the Perl scripts
 * read them, splitting stacks into frames, ordering and writing stacks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "folded.h"

#define W6(c)                                                                  \
	[c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, [c + 4] = 1, [c + 5] = 1
#define W10(c) W6(c), [c + 6] = 1, [c + 7] = 1, [c + 8] = 1, [c + 9] = 1
/* Perl's \w in byte strings: [0-9A-Za-z_] */
const unsigned char ember_folded_word[256] = {
    W10('0'),  W10('A'), W10('K'), W6('U'),
    ['_'] = 1, W10('a'), W10('k'), W6('u'),
};

int ember_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!folded_digit(s[i]) || __builtin_mul_overflow(x, 10, &x) ||
		    __builtin_add_overflow(x, (uint64_t)(s[i] - '0'), &x))
			return 0;
	}
	*v = x;
	return 1;
}

void ember_buf_add_nv(struct ember_buf *b, double x)
{
	if (isnan(x))
		ember_buf_adds(b, "NaN");
	else if (isinf(x))
		ember_buf_adds(b, x < 0 ? "-Inf" : "Inf");
	else
		ember_buf_addf(b, "%.15g", x);
}

/* Python's repr of a float, for the writers of other profilers' formats
 * and the readers that print counts as their scripts (Python) do. */
void ember_buf_add_pyfloat(struct ember_buf *b, double x)
{
	char s[40];
	int prec;

	if (isnan(x)) {
		ember_buf_adds(b, "nan");
		return;
	}
	if (isinf(x)) {
		ember_buf_adds(b, x < 0 ? "-inf" : "inf");
		return;
	}
	if (x == 0) {
		ember_buf_adds(b, signbit(x) ? "-0.0" : "0.0");
		return;
	}
	/* an integer below 1e16 (the usual weight or time): its digits and
	 * ".0", exact, where the search below takes up to 17 snprintf's of
	 * glibc's slow %e */
	if (fabs(x) < 1e16 && x == floor(x)) {
		if (x < 0)
			ember_buf_addch(b, '-');
		ember_buf_addu(b, (uint64_t)fabs(x));
		ember_buf_adds(b, ".0");
		return;
	}
	/* the shortest digits that read back as x */
	for (prec = 0; prec < 17; prec++) {
		snprintf(s, sizeof(s), "%.*e", prec, x);
		if (strtod(s, NULL) == x)
			break;
	}
	snprintf(s, sizeof(s), "%.*e", prec, x);
	/* s is [-]d[.ddd]e±XX: the digits and the decimal exponent */
	char digits[24];
	size_t nd = 0;
	const char *q = s;
	int neg = *q == '-';
	if (neg)
		q++;
	for (; *q && *q != 'e'; q++)
		if (*q != '.')
			digits[nd++] = *q;
	int exp = (int)strtol(q + 1, NULL, 10); /* of the first digit */
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	int decpt = exp + 1; /* digits before the point */
	if (neg)
		ember_buf_addch(b, '-');
	if (decpt > -4 && decpt <= 16) {
		if (decpt <= 0) {
			ember_buf_adds(b, "0.");
			for (int i = decpt; i < 0; i++)
				ember_buf_addch(b, '0');
			ember_buf_add(b, digits, nd);
		} else if ((size_t)decpt >= nd) {
			ember_buf_add(b, digits, nd);
			for (size_t i = nd; i < (size_t)decpt; i++)
				ember_buf_addch(b, '0');
			ember_buf_adds(b, ".0");
		} else {
			ember_buf_add(b, digits, (size_t)decpt);
			ember_buf_addch(b, '.');
			ember_buf_add(b, digits + decpt, nd - (size_t)decpt);
		}
		return;
	}
	ember_buf_addch(b, digits[0]);
	if (nd > 1) {
		ember_buf_addch(b, '.');
		ember_buf_add(b, digits + 1, nd - 1);
	}
	ember_buf_addf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

double ember_perl_number(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < n && folded_digit(s[i]) && v < (UINT64_C(1) << 53) / 10)
		v = v * 10 + (uint64_t)(s[i++] - '0');
	if (i == n)
		return (double)v;
	/* a fraction, or digits beyond 2^53: strtod rounds correctly */
	char small[64], *tmp = n < sizeof(small) ? small : ember_xmalloc(n + 1);
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	double d = strtod(tmp, NULL);
	if (tmp != small)
		free(tmp);
	return d;
}

void ember_bad_lines_add(struct ember_bad_lines *b, uint64_t line,
			 const char *input, const char *s, size_t n)
{
	if (b->count++)
		return;
	if (n >= sizeof(b->first_text))
		n = sizeof(b->first_text) - 1;
	b->first_line = line;
	b->first_input = input;
	memcpy(b->first_text, s, n);
	b->first_text[n] = '\0';
}

int ember_folded_split(const char *s, size_t n, size_t *stack_len,
		       double *count)
{
	size_t i = n, k, m = n;

	while (i && folded_digit(s[i - 1]))
		i--;
	if (i == n && !(i && s[i - 1] == '.'))
		return -1; /* no digits at the end */
	/* an exponent: the form Perl, and so ember, writes sums in beyond
	 * 1e15 or below 1e-4, read back (flamegraph.pl does not) */
	if (i < n && i >= 2 && (s[i - 1] == 'e' || s[i - 1] == 'E'))
		m = i - 1;
	else if (i < n && i >= 3 && (s[i - 1] == '+' || s[i - 1] == '-') &&
		 (s[i - 2] == 'e' || s[i - 2] == 'E'))
		m = i - 2;
	if (m < n) {
		i = m;
		while (i && folded_digit(s[i - 1]))
			i--;
		if (i == m && !(i && s[i - 1] == '.'))
			return -1; /* no mantissa */
	}
	k = i;
	if (i && s[i - 1] == '.') {
		/* digits '.' digits*: the integer part must be there */
		k = i - 1;
		while (k && folded_digit(s[k - 1]))
			k--;
		if (k == i - 1)
			return -1;
	}
	if (!k || !folded_space(s[k - 1]))
		return -1;
	*stack_len = k - 1;
	*count = ember_perl_number(s + k, n - k);
	return 0;
}

size_t ember_folded_fields(const char *s, size_t len, size_t from,
			   struct ember_slice **fr, size_t *afr)
{
	size_t n = from;
	const char *p = s, *end = s + len;

	for (;;) {
		const char *f = p;
		while (p < end && *p != ';')
			p++;
		EMBER_GROW(*fr, n + 1, *afr);
		(*fr)[n].s = f;
		(*fr)[n].len = (size_t)(p - f);
		n++;
		if (p == end)
			break;
		p++;
	}
	return n;
}

size_t ember_folded_frames(const char *s, size_t len, struct ember_slice **fr,
			   size_t *afr)
{
	if (!len)
		return 0;
	size_t n = ember_folded_fields(s, len, 0, fr, afr);
	while (n && !(*fr)[n - 1].len)
		n--;
	return n;
}

/*
 * Ordering stacks as their folded lines sort, in time close to linear.
 *
 * Comparing two stacks frame by frame (ember_stacks_cmp) reads both
 * stacks and the names where they differ: a merge sort of millions does
 * that n log n times, each a few cache misses.  Instead every name gets
 * two ranks, one for "name;" (the stack goes on after it) and one for
 * "name" ending the line, both in the order ember_stacks_cmp gives them:
 * then stacks compare as their sequences of ranks, a frame's rank taken
 * as it goes on or ends.  The stacks are sorted by 64-bit keys that pack
 * the ranks of the next few frames (radix sort, reading each stack once
 * per key); stacks whose keys tie are sorted again by the frames after,
 * and so on.  Two different stacks never have the same ranks, so the
 * order is ember_stacks_cmp's.
 */
struct order_ctx {
	const struct ember_stacks *s;
	const struct ember_intern *t;
	uint32_t *rank; /* by (name id << 1 | goes on): 1...2n */
	unsigned bits;	/* of a rank */
	unsigned per;	/* ranks in a key */
};

struct order_el {
	uint64_t key;
	uint32_t e;
};

/* The order of (name, goes on) pairs, as ember_stacks_cmp orders the
 * frames where two stacks first differ. */
static int cmp_name(const void *pa, const void *pb, void *arg)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return ember_frame_cmp(arg, a >> 1, a & 1, b >> 1, b & 1);
}

static void rank_names(struct order_ctx *x)
{
	size_t n = 2 * x->t->n;
	uint32_t *v = ember_xreallocarray(NULL, n ? n : 1, sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	qsort_r(v, n, sizeof(*v), cmp_name, (void *)x->t);
	x->rank = ember_xreallocarray(NULL, n ? n : 1, sizeof(*x->rank));
	for (size_t i = 0; i < n; i++)
		x->rank[v[i]] = (uint32_t)i + 1;
	free(v);
	x->bits = 1;
	while (x->bits < 64 && (uint64_t)n >> x->bits)
		x->bits++;
	x->per = 64 / x->bits;
}

/* The ranks of entry e's frames from depth d on, packed (0: no frame). */
static uint64_t key_at(const struct order_ctx *x, uint32_t e, size_t d)
{
	const struct ember_stack_ent *en = &x->s->ents[e];
	const uint32_t *f = x->s->ids + en->off;
	uint64_t k = 0;

	for (size_t i = d; i < d + x->per; i++) {
		uint64_t r = 0;
		if (i < en->n)
			r = x->rank[(size_t)f[i] << 1 | (i + 1 < en->n)];
		k = k << x->bits | r;
	}
	return k;
}

/* Sorts a[0..n) by key: least significant byte first, skipping the bytes
 * that are the same in every key. */
static void radix_sort(struct order_el *a, struct order_el *tmp, size_t n)
{
	size_t count[8][256];

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
			count[b][(a[i].key >> (8 * b)) & 255]++;
	for (int b = 0; b < 8; b++) {
		size_t *c = count[b], sum = 0;
		if (c[(a[0].key >> (8 * b)) & 255] == n)
			continue;
		for (int k = 0; k < 256; k++) {
			size_t m = c[k];
			c[k] = sum;
			sum += m;
		}
		for (size_t i = 0; i < n; i++)
			tmp[c[(a[i].key >> (8 * b)) & 255]++] = a[i];
		memcpy(a, tmp, n * sizeof(*a));
	}
}

/* A run of a[] to sort: stacks equal in their first d frames. */
struct order_run {
	size_t at, n, d;
};

/* Sorts a run by the key at its depth; runs of equal keys, the same
 * frames so far and more to come (a stack ending within the key would be
 * the same stack), are added to *todo. */
static void sort_run(const struct order_ctx *x, struct order_el *a,
		     struct order_el *tmp, struct order_run r,
		     struct order_run **todo, size_t *ntodo, size_t *atodo)
{
	a += r.at;
	for (size_t i = 0; i < r.n; i++)
		a[i].key = key_at(x, a[i].e, r.d);
	if (r.n > 64) {
		radix_sort(a, tmp, r.n);
	} else {
		for (size_t i = 1; i < r.n; i++) {
			struct order_el v = a[i];
			size_t j = i;
			for (; j && a[j - 1].key > v.key; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
	}
	for (size_t i = 0, j; i < r.n; i = j) {
		for (j = i + 1; j < r.n && a[j].key == a[i].key; j++)
			;
		if (j - i > 1) {
			EMBER_GROW(*todo, *ntodo + 1, *atodo);
			(*todo)[(*ntodo)++] =
			    (struct order_run){r.at + i, j - i, r.d + x->per};
		}
	}
}

uint32_t *ember_stacks_order(const struct ember_stacks *s,
			     const struct ember_intern *t)
{
	struct order_ctx x = {.s = s, .t = t};
	size_t n = s->n;
	uint32_t *v = ember_xreallocarray(NULL, n ? n : 1, sizeof(*v));
	struct order_el *a = ember_xreallocarray(NULL, n ? n : 1, sizeof(*a));
	struct order_el *tmp = ember_xreallocarray(NULL, n ? n : 1, sizeof(*a));
	struct order_run *todo = NULL;
	size_t ntodo = 0, atodo = 0;

	rank_names(&x);
	for (size_t i = 0; i < n; i++)
		a[i].e = (uint32_t)i;
	if (n > 1) {
		EMBER_GROW(todo, 1, atodo);
		todo[ntodo++] = (struct order_run){0, n, 0};
	}
	while (ntodo) {
		struct order_run r = todo[--ntodo];
		sort_run(&x, a, tmp, r, &todo, &ntodo, &atodo);
	}
	for (size_t i = 0; i < n; i++)
		v[i] = a[i].e;
	free(todo);
	free(tmp);
	free(a);
	free(x.rank);
	return v;
}

void ember_stacks_add_folded(struct ember_buf *b, const struct ember_stacks *s,
			     const struct ember_intern *t, size_t i)
{
	const struct ember_stack_ent *e = &s->ents[i];
	const uint32_t *f = s->ids + e->off;

	for (uint32_t j = 0; j < e->n; j++) {
		const struct ember_intern_ent *ne = &t->ents[f[j]];
		if (j)
			ember_buf_addch(b, ';');
		ember_buf_add(b, ne->s, ne->len);
	}
}

void ember_folded_out_init(struct ember_folded_out *o, ember_write_fn w,
			   void *ctx)
{
	ember_buf_init(&o->b, (1 << 16) - 1); /* 64 KiB with the NUL */
	o->w = w;
	o->ctx = ctx;
	o->err = 0;
}

int ember_folded_out_finish(struct ember_folded_out *o)
{
	if (!o->err && o->b.len)
		o->err = o->w(o->ctx, o->b.buf, o->b.len);
	ember_buf_release(&o->b);
	return o->err;
}
