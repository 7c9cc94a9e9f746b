/*
 * Intel VTune memory-consumption call stacks exported as CSV (amplxe-cl
 * -R top-down -call-stack-mode all -column="Allocations:Self",
 * "Allocation Size:Self","Module"), as stackcollapse-vtune-mc.pl reads
 * them: "war:" lines and the header row skipped, then rows
 * "  function,size,N,allocations,module", the leading blanks their
 * depth; rows with allocations (with --size: with a size) print at once,
 * callers first, as "function(module)" frames.
 */
#include <stdlib.h>

#include "layout.h"

/* [0-9]*\.?[0-9]* is the whole of s */
static int num_field(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && cl_digit((unsigned char)s[i]))
		i++;
	if (i < n && s[i] == '.')
		i++;
	while (i < n && cl_digit((unsigned char)s[i]))
		i++;
	return i == n;
}

/* Perl's "$x == 0" for such a field: no digit but 0s */
static int is_zero(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] >= '1' && s[i] <= '9')
			return 0;
	return 1;
}

static void vmc_line(void *arg, const char *s, size_t n)
{
	struct cl_vtune *st = arg;
	size_t w = 0;
	const char *f[4]; /* the commas after $2, $3, $4, $5 */
	int found = 0;

	cl_vtune_unquote(st, &s, &n);
	while (w < n && cl_space((unsigned char)s[w]))
		w++;
	/* /(\s*)(.*?),(N),(N),(N),(.*)/: the first comma that three number
	 * fields and a comma follow */
	for (const char *c = memchr(s + w, ',', n - w); c && !found;
	     c = memchr(c + 1, ',', (size_t)(s + n - c - 1))) {
		f[0] = c;
		int k;
		for (k = 1; k < 4; k++) {
			f[k] = memchr(f[k - 1] + 1, ',',
				      (size_t)(s + n - f[k - 1] - 1));
			if (!f[k] || !num_field(f[k - 1] + 1,
						(size_t)(f[k] - f[k - 1] - 1)))
				break;
		}
		found = k == 4;
	}
	if (!found) {
		cl_bad(st->h.k, s, n); /* the script dies here */
		return;
	}
	ember_buf_reset(&st->func);
	ember_buf_add(&st->func, s + w, (size_t)(f[0] - (s + w)));
	ember_buf_addch(&st->func, '(');
	ember_buf_add(&st->func, f[3] + 1, (size_t)(s + n - f[3] - 1));
	ember_buf_addch(&st->func, ')');
	cl_depth_set(&st->d, w, st->func.buf, st->func.len);

	const char *v = st->size ? f[0] + 1 : f[2] + 1;
	size_t vn = (size_t)((st->size ? f[1] : f[3]) - v);
	if (!(st->size ? vn == 0 : is_zero(v, vn)))
		cl_vtune_print(st, w, v, vn, 0);
}

static void vmc_parse(void *arg, const char *p, size_t len)
{
	cl_header_parse(arg, p, len, vmc_line);
}

static void *vmc_new(const struct ember_collapse_options *o,
		     struct collapse_sink *k)
{
	return cl_vtune_new(o, k, "war:"); /* warnings before the header */
}

/* VTune's memory consumption header, after "war:" lines. */
static int vmc_detect(const char *p, size_t len)
{
	const char *end = p + len;

	for (int lines = 0; p < end && lines < 20; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		if (cl_starts(s, n, "war:"))
			continue;
		return cl_starts(s, n, "Function Stack,Allocation Size") ||
		       cl_starts(s, n, "\"Function Stack\",\"Allocation Size");
	}
	return 0;
}

const struct ember_collapser ember_collapser_vtune_mc = {
    .name = "vtune-mc",
    .summary = "Intel VTune memory consumption call stacks, CSV "
	       "(stackcollapse-vtune-mc.pl)",
    .order = CL_INPUT,
    .detect = vmc_detect,
    .state_new = vmc_new,
    .state_free = cl_vtune_free,
    .begin = cl_header_begin,
    .parse = vmc_parse,
};
