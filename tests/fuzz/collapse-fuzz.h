/* Shared by the collapse fuzz targets: runs a collapser over the input
 * in one piece, then cut into tiny jobs parsed by three workers in turn,
 * and aborts unless both give the same bytes.  Neither may crash, hang or
 * leak.  Sums Perl holds as floats (fractional counts, sums past 2^64) are
 * rounded at every addition, in the order of the additions, which jobs
 * change: those lines must have the same stacks, not the same last
 * digits (as ember collapse -h and the architecture notes say).  The jobs run on the calling thread (the driver's inline_jobs):
 * the splitting, the workers' states and the merge are those of threads,
 * at a hundred times the speed of starting threads for every input. */
#include <stdlib.h>
#include <string.h>

#include "collapse/driver.h"

struct sink {
	char *buf;
	size_t len, alloc;
};

static int sink_write(void *ctx, const void *p, size_t n)
{
	struct sink *s = ctx;

	if (!n) /* a writer may hand nothing (and no buffer) */
		return 0;
	if (s->len + n > s->alloc) {
		s->alloc = (s->len + n) * 2 + 64;
		s->buf = realloc(s->buf, s->alloc);
		if (!s->buf)
			abort();
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	return 0;
}

/* Whether the format reads the input whole (a perf.data): no jobs, the
 * same work on any number of threads. */
static int read_whole(const struct ember_collapser *f, const unsigned char *p,
		      size_t n)
{
	return f && f->read &&
	       (!f->parse || (n && f->whole && f->whole((const char *)p, n)));
}

/* Whether a sum of the merged table is a float. */
static int has_float_sum(struct ember_collapse *c)
{
	const struct collapse_sink *k = &collapse_worker(c, 0)->sink;

	for (size_t e = 0; e < k->stacks.n && e < k->aexact; e++)
		if (k->exact[e] == CL_INEXACT)
			return 1;
	return 0;
}

/* Whether a and b have the same lines, each up to its last space. */
static int same_stacks(const struct sink *a, const struct sink *b)
{
	const char *p = a->buf, *pe = p + a->len;
	const char *q = b->buf, *qe = q + b->len;

	while (p < pe && q < qe) {
		const char *nl = memchr(p, '\n', (size_t)(pe - p));
		const char *ml = memchr(q, '\n', (size_t)(qe - q));
		if (!nl || !ml)
			return 0;
		const char *sp = memrchr(p, ' ', (size_t)(nl - p));
		const char *sq = memrchr(q, ' ', (size_t)(ml - q));
		size_t np = sp ? (size_t)(sp - p) : (size_t)(nl - p);
		size_t nq = sq ? (size_t)(sq - q) : (size_t)(ml - q);
		if (np != nq || memcmp(p, q, np))
			return 0;
		p = nl + 1;
		q = ml + 1;
	}
	return p == pe && q == qe;
}

/* 0, or the error of an input a whole-input format refused (a perf.data
 * cut short): an error is an answer, not a crash.  *whole: both inputs
 * were read whole.  *floats: a sum is a float. */
static int collapse_into(const struct ember_collapse_options *o,
			 const unsigned char *data, size_t size,
			 struct sink *out, int *whole, int *floats)
{
	struct ember_collapse *c;
	int err;

	if (ember_collapse_new(&c, o))
		abort();
	c->inline_jobs = 1;
	/* nor is /proc/kallsyms read ahead on another thread for a perf.data
	 * (how far it gets before it is stopped would change the coverage
	 * from run to run of one input: features that are not the input's) */
	c->o.threads = 1;
	/* two inputs: the state a record leaves must not leak into the next */
	size_t half = size / 2;
	err = ember_collapse_mem(c, "a", (const char *)data, half);
	if (!err)
		err = ember_collapse_mem(c, "b", (const char *)data + half,
					 size - half);
	*whole = read_whole(c->fmt, data, half) &&
		 read_whole(c->fmt, data + half, size - half);
	if (err) {
		ember_collapse_free(c);
		return err;
	}
	if (ember_collapse_write(c, sink_write, out))
		abort();
	*floats = has_float_sum(c);
	if (o->profile) { /* the sample-level profile, written and dropped */
		struct ember_profile p;
		struct sink text = {0};
		ember_collapse_profile(c, &p);
		(void)!ember_perfscript_write(&p, sink_write, &text);
		(void)!ember_speedscope_write(&p, sink_write, &text);
		free(text.buf);
	}
	const struct ember_collapse_stats *st = ember_collapse_stats(c);
	if (st->bad.count > st->lines || st->bad.first_line > st->lines)
		abort();
	ember_collapse_free(c);
	return 0;
}

static void fuzz_collapse(struct ember_collapse_options *o,
			  const unsigned char *data, size_t size, unsigned job)
{
	struct sink one = {0}, three = {0};
	int whole, floats1 = 0, floats3 = 0;

	o->threads = 1;
	int err1 = collapse_into(o, data, size, &one, &whole, &floats1);
	if (whole) {
		/* nothing for jobs to change: the same run again would only
		 * halve the executions per second */
		free(one.buf);
		return;
	}
	o->threads = 3;
	o->job_size = 1 + job % 97;
	int err3 = collapse_into(o, data, size, &three, &whole, &floats3);
	if (err1 != err3)
		abort(); /* jobs changed the answer */
	if (floats1 || floats3 ? !same_stacks(&one, &three)
		    : one.len != three.len ||
			  (one.len && memcmp(one.buf, three.buf, one.len)))
		abort(); /* jobs changed the output */
	free(one.buf);
	free(three.buf);
}
