/*
 * The collapsers' output: the stacks in the byte order of their folded
 * lines (Perl's sort, ember_stacks_order), written as "a;b;c count" lines
 * with each count as Perl sums it.
 */
#include "collapse.h"

int ember_collapse_write_order(const struct collapse_sink *k,
			       const uint32_t *order, ember_write_fn w,
			       void *ctx)
{
	struct ember_folded_out o;
	int err = 0;

	ember_folded_out_init(&o, w, ctx);
	for (size_t i = 0; i < k->stacks.n && !err; i++) {
		uint32_t e = order[i];
		ember_stacks_add_folded(&o.b, &k->stacks, &k->names, e);
		ember_buf_addch(&o.b, ' ');
		ember_folded_add_count(&o.b, k->exact[e],
				       k->stacks.ents[e].count);
		ember_buf_addch(&o.b, '\n');
		err = ember_folded_out_line(&o);
	}
	return ember_folded_out_finish(&o);
}
