/*
 * The collapsers' output: the stacks in the byte order of their folded
 * lines (Perl's sort, ember_stacks_order), written as "a;b;c count" lines
 * with each count as Perl sums it.
 */
#include <stdarg.h>
#include <stdio.h>

#include "collapse.h"

int ember_collapse_write_order(const struct collapse_sink *k,
			       const uint32_t *order,
			       void (*number)(struct ember_buf *, double),
			       ember_write_fn w, void *ctx)
{
	struct ember_folded_out o;
	int err = 0;

	ember_folded_out_init(&o, w, ctx);
	for (size_t i = 0; i < k->stacks.n && !err; i++) {
		uint32_t e = order ? order[i] : (uint32_t)i;
		/* in sorted order the stacks are all over memory: fetch the
		 * entries ahead, then their frames and counts */
		if (order && i + 16 < k->stacks.n)
			__builtin_prefetch(&k->stacks.ents[order[i + 16]]);
		if (order && i + 8 < k->stacks.n) {
			uint32_t a = order[i + 8];
			__builtin_prefetch(k->stacks.ids +
					   k->stacks.ents[a].off);
			if (a < k->aexact)
				__builtin_prefetch(&k->exact[a]);
		}
		uint64_t x = e < k->aexact ? k->exact[e] : FOLDED_INEXACT;
		ember_stacks_add_folded(&o.b, &k->stacks, &k->names, e);
		ember_buf_addch(&o.b, ' ');
		if (number && x == FOLDED_INEXACT)
			number(&o.b, k->stacks.ents[e].count);
		else
			ember_folded_add_count(&o.b, x,
					       k->stacks.ents[e].count);
		ember_buf_addch(&o.b, '\n');
		err = ember_folded_out_line(&o);
	}
	return ember_folded_out_finish(&o);
}

void cl_fail(struct collapse_sink *k, const char *fmt, ...)
{
	va_list ap;

	if (k->n.error[0])
		return;
	va_start(ap, fmt);
	vsnprintf(k->n.error, sizeof(k->n.error), fmt, ap);
	va_end(ap);
}
