/* Reading folded lines ("a;b;c 42") and their counts as the Perl scripts
 * read them. */
#include <math.h>
#include <stdlib.h>

#include "collapse/collapse.h"

#define W6(c)                                                                  \
	[c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1, [c + 4] = 1, [c + 5] = 1
#define W10(c) W6(c), [c + 6] = 1, [c + 7] = 1, [c + 8] = 1, [c + 9] = 1
/* Perl's \w in byte strings: [0-9A-Za-z_] */
const unsigned char ember_cl_word[256] = {
    W10('0'),  W10('A'), W10('K'), W6('U'),
    ['_'] = 1, W10('a'), W10('k'), W6('u'),
};

int ember_parse_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!cl_digit(s[i]) || __builtin_mul_overflow(x, 10, &x) ||
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

double ember_perl_number(const char *s, size_t n)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < n && cl_digit(s[i]) && v < (UINT64_C(1) << 53) / 10)
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

int ember_folded_split(const char *s, size_t n, size_t *stack_len,
		       double *count)
{
	size_t i = n, k;

	while (i && cl_digit(s[i - 1]))
		i--;
	k = i;
	if (i && s[i - 1] == '.') {
		/* digits '.' digits*: the integer part must be there */
		k = i - 1;
		while (k && cl_digit(s[k - 1]))
			k--;
		if (k == i - 1)
			return -1;
	} else if (i == n) {
		return -1; /* no digits at the end */
	}
	if (!k || !cl_space(s[k - 1]))
		return -1;
	*stack_len = k - 1;
	*count = ember_perl_number(s + k, n - k);
	return 0;
}
