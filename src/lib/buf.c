/* Growable byte buffers, with the number formats the writers need. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

char ember_buf_empty[1];

void ember_buf_init(struct ember_buf *b, size_t hint)
{
	b->buf = ember_buf_empty;
	b->len = b->alloc = 0;
	if (hint)
		ember_buf_grow(b, hint);
}

void ember_buf_release(struct ember_buf *b)
{
	if (b->alloc)
		free(b->buf);
	ember_buf_init(b, 0);
}

void ember_buf_grow(struct ember_buf *b, size_t extra)
{
	size_t want;

	if (__builtin_add_overflow(b->len, extra, &want) ||
	    __builtin_add_overflow(want, 1, &want))
		ember_xmalloc(SIZE_MAX); /* calls the out-of-memory handler */
	if (want <= b->alloc)
		return;
	size_t na = b->alloc ? b->alloc : 64;
	while (na < want)
		na = na < SIZE_MAX / 2 ? na * 2 : want;
	if (!b->alloc)
		b->buf = NULL;
	b->buf = ember_xrealloc(b->buf, na);
	b->alloc = na;
	b->buf[b->len] = '\0';
}

void ember_buf_add(struct ember_buf *b, const void *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n >= b->alloc)
		ember_buf_grow(b, n);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void ember_buf_adds(struct ember_buf *b, const char *s)
{
	ember_buf_add(b, s, strlen(s));
}

void ember_buf_vaddf(struct ember_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	if (b->alloc - b->len < 64)
		ember_buf_grow(b, 64);
	va_copy(cp, ap);
	n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= b->alloc - b->len) {
		ember_buf_grow(b, (size_t)n);
		n = vsnprintf(b->buf + b->len, b->alloc - b->len, fmt, ap);
	}
	b->len += (size_t)n;
}

void ember_buf_addf(struct ember_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ember_buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void ember_buf_addu(struct ember_buf *b, uint64_t u)
{
	/* two digits a division, written in place: the JSON writers print
	 * millions of small numbers */
	static const char pairs[] = "00010203040506070809"
				    "10111213141516171819"
				    "20212223242526272829"
				    "30313233343536373839"
				    "40414243444546474849"
				    "50515253545556575859"
				    "60616263646566676869"
				    "70717273747576777879"
				    "80818283848586878889"
				    "90919293949596979899";
	char tmp[24];
	char *p = tmp + sizeof(tmp);

	while (u >= 100) {
		unsigned r = (unsigned)(u % 100);
		u /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * r, 2);
	}
	if (u >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * u, 2);
	} else {
		*--p = (char)('0' + u);
	}
	size_t n = (size_t)(tmp + sizeof(tmp) - p);
	if (b->len + n >= b->alloc)
		ember_buf_grow(b, n);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

/*
 * printf's "%.Nf" is exact: it rounds the binary value of x, ties to even.
 * Writing x = mant * 2^-k, the digits are round(mant * 10^N / 2^k), which
 * 128-bit integers compute exactly for the magnitudes we print.
 */
/* round(|x| * 10^prec) with ties to even, exactly; x finite, |x| < 1e15 */
static uint64_t fix_digits(double x, int prec)
{
	static const uint64_t p10[] = {1, 10, 100, 1000};
	int e;
	double m = frexp(fabs(x), &e);
	uint64_t mant = (uint64_t)ldexp(m, 53);
	int k = 53 - e; /* |x| = mant * 2^-k, and k > 0 as |x| < 2^50 */
	__uint128_t v = (__uint128_t)mant * p10[prec];
	__uint128_t q = 0;

	if (k < 128) {
		__uint128_t half = (__uint128_t)1 << (k - 1);
		__uint128_t rem;
		q = v >> k;
		rem = v - (q << k);
		if (rem > half || (rem == half && (q & 1)))
			q++;
	}
	return (uint64_t)q;
}

static int fix_ok(double x, int prec)
{
	return isfinite(x) && fabs(x) < 1e15 && prec >= 0 && prec <= 3;
}

double ember_round_fixed(double x, int prec)
{
	static const double p10[] = {1, 10, 100, 1000};
	char tmp[64];

	if (!fix_ok(x, prec)) {
		snprintf(tmp, sizeof(tmp), "%.*f", prec, x);
		return strtod(tmp, NULL);
	}
	double v = (double)fix_digits(x, prec) / p10[prec];
	return signbit(x) ? -v : v;
}

void ember_buf_addfix(struct ember_buf *b, double x, int prec)
{
	static const uint64_t p10[] = {1, 10, 100, 1000};

	if (!fix_ok(x, prec)) {
		ember_buf_addf(b, "%.*f", prec, x);
		return;
	}
	uint64_t q = fix_digits(x, prec);
	if (signbit(x))
		ember_buf_addch(b, '-');
	ember_buf_addu(b, q / p10[prec]);
	if (prec) {
		char frac[4];
		uint64_t f = q % p10[prec];
		for (int i = prec - 1; i >= 0; i--) {
			frac[i] = (char)('0' + f % 10);
			f /= 10;
		}
		ember_buf_addch(b, '.');
		ember_buf_add(b, frac, (size_t)prec);
	}
}

void ember_buf_addnum(struct ember_buf *b, double x)
{
	if (x == floor(x) && fabs(x) < 9.2e18) {
		if (x < 0) {
			ember_buf_addch(b, '-');
			x = -x;
		}
		ember_buf_addu(b, (uint64_t)x);
		return;
	}
	ember_buf_addf(b, "%.15g", x);
}

void ember_buf_setlen(struct ember_buf *b, size_t len)
{
	if (!b->alloc)
		return; /* only 0 is valid for the empty buffer */
	b->len = len < b->alloc ? len : b->alloc - 1;
	b->buf[b->len] = '\0';
}

char *ember_buf_detach(struct ember_buf *b, size_t *len)
{
	char *s = b->alloc ? b->buf : ember_xstrdup("");

	if (len)
		*len = b->len;
	b->buf = ember_buf_empty;
	b->len = b->alloc = 0;
	return s;
}
