/* The folded-stack core (folded.h): reading counts as the Perl scripts
 * read them, splitting stacks into frames, ordering and writing stacks. */
#include <math.h>
#include <pthread.h>
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
 * Ordering: an array of entry indices is merge-sorted (stable, top-down;
 * in two halves on two threads when there are threads to spare), so that
 * the table itself is left as it is.
 */
struct order_ctx {
	const struct ember_stacks *s;
	const struct ember_intern *t;
};

static inline int cmp(const struct order_ctx *x, uint32_t ia, uint32_t ib)
{
	return ember_stacks_cmp(x->s, x->t, &x->s->ents[ia], &x->s->ents[ib]);
}

/* Merges the sorted halves tmp[0..h) and tmp[h..n) into v. */
static void merge(const struct order_ctx *x, uint32_t *v, const uint32_t *tmp,
		  size_t h, size_t n)
{
	size_t i = 0, j = h, k = 0;

	while (i < h && j < n)
		v[k++] = cmp(x, tmp[j], tmp[i]) < 0 ? tmp[j++] : tmp[i++];
	while (i < h)
		v[k++] = tmp[i++];
	while (j < n)
		v[k++] = tmp[j++];
}

/* Sorts v[0..n) using tmp[0..n). */
static void sort(const struct order_ctx *x, uint32_t *v, uint32_t *tmp,
		 size_t n)
{
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			uint32_t e = v[i];
			size_t j = i;
			while (j && cmp(x, v[j - 1], e) > 0) {
				v[j] = v[j - 1];
				j--;
			}
			v[j] = e;
		}
		return;
	}
	size_t h = n / 2;
	sort(x, v, tmp, h);
	sort(x, v + h, tmp + h, n - h);
	if (cmp(x, v[h - 1], v[h]) <= 0)
		return;
	memcpy(tmp, v, n * sizeof(*v));
	merge(x, v, tmp, h, n);
}

struct half {
	const struct order_ctx *x;
	uint32_t *v, *tmp;
	size_t n;
};

static void *sort_half(void *arg)
{
	struct half *h = arg;

	sort(h->x, h->v, h->tmp, h->n);
	return NULL;
}

uint32_t *ember_stacks_order(const struct ember_stacks *s,
			     const struct ember_intern *t, int threads)
{
	struct order_ctx x = {s, t};
	size_t n = s->n;
	uint32_t *v = ember_xreallocarray(NULL, n ? n : 1, sizeof(*v));
	uint32_t *tmp = ember_xreallocarray(NULL, n ? n : 1, sizeof(*tmp));
	pthread_t th;

	for (size_t i = 0; i < n; i++)
		v[i] = (uint32_t)i;
	if (threads > 1 && n >= 8192) {
		size_t h = n / 2;
		struct half a = {&x, v + h, tmp + h, n - h};
		if (!pthread_create(&th, NULL, sort_half, &a)) {
			sort(&x, v, tmp, h);
			pthread_join(th, NULL);
			memcpy(tmp, v, n * sizeof(*v));
			merge(&x, v, tmp, h, n);
			free(tmp);
			return v;
		}
	}
	sort(&x, v, tmp, n);
	free(tmp);
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
