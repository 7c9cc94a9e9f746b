/*
 * The merged call tree, built the way flamegraph.pl's flow() builds it.
 *
 * `open` is the path of boxes open now: open[0] is the root, open[d] the
 * box at depth d.  Each new stack keeps the prefix it shares with that path
 * and closes the rest at the current time (deepest first), then opens its
 * own frames; time then advances by the stack's count.  So every box spans
 * [start, end) of the time axis, children lie inside their parent, and a
 * box closes only after all its children: `nodes` is in post-order (a
 * subtree is a contiguous run ending at its root).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tree.h"

void ember_tree_init(struct ember_tree *t, double min_width)
{
	memset(t, 0, sizeof(*t));
	t->min_width = min_width;
}

void ember_tree_release(struct ember_tree *t)
{
	free(t->nodes);
	free(t->open);
	memset(t, 0, sizeof(*t));
}

static void close_to(struct ember_tree *t, size_t keep)
{
	while (t->nopen > keep) {
		struct ember_tree_node *o = &t->open[--t->nopen];
		o->end = t->time;
		double w = o->end - o->start;
		if (t->keep_before && o->before > w)
			w = o->before;
		if (w < t->min_width)
			continue;
		EMBER_GROW(t->nodes, t->n + 1, t->alloc);
		t->nodes[t->n++] = *o;
		if (o->depth > t->maxdepth)
			t->maxdepth = o->depth;
	}
}

static void open_box(struct ember_tree *t, const char *name, size_t len,
		     const double *delta)
{
	EMBER_GROW(t->open, t->nopen + 1, t->aopen);
	struct ember_tree_node *o = &t->open[t->nopen];
	o->name = name;
	o->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	o->depth = (uint32_t)t->nopen;
	o->start = t->time;
	o->end = t->time;
	o->has_delta = delta != NULL;
	o->delta = delta ? *delta : 0;
	o->before = 0;
	o->on_cpu = 0;
	t->nopen++;
}

/* Whether a stack is off-CPU time: ember record's last frame (or first,
 * reversed) names the state, "[off-cpu: S]". */
static int is_offcpu(const struct ember_slice *frames, size_t n)
{
	return n &&
	       ((frames[n - 1].len >= 9 &&
		 !memcmp(frames[n - 1].s, "[off-cpu", 8)) ||
		(frames[0].len >= 9 && !memcmp(frames[0].s, "[off-cpu", 8)));
}

void ember_tree_flow(struct ember_tree *t, const struct ember_slice *frames,
		     size_t n, double count, const double *delta)
{
	ember_tree_flow_keep(t, frames, n, 0, count, delta);
}

void ember_tree_flow_keep(struct ember_tree *t,
			  const struct ember_slice *frames, size_t n,
			  size_t known, double count, const double *delta)
{
	static const double zero;
	size_t same = 0;

	if (t->nopen) {
		same = 1 + known; /* the root, and what the caller knows */
		if (same > t->nopen)
			same = t->nopen;
		while (same < t->nopen && same - 1 < n) {
			const struct ember_tree_node *o = &t->open[same];
			const struct ember_slice *f = &frames[same - 1];
			if (o->len != f->len || memcmp(o->name, f->s, f->len))
				break;
			same++;
		}
		close_to(t, same);
	}
	/* a new box carries the stack's delta only if it is the leaf */
	if (!t->nopen)
		open_box(t, "", 0, delta ? (n == 0 ? delta : &zero) : NULL);
	for (size_t i = t->nopen - 1; i < n; i++)
		open_box(t, frames[i].s, frames[i].len,
			 delta ? (i == n - 1 ? delta : &zero) : NULL);
	t->time += count;
	if (delta && t->keep_before)
		for (size_t i = 0; i < t->nopen; i++)
			t->open[i].before += count - *delta;
	if (is_offcpu(frames, n)) {
		t->offcpu_seen = 1;
		return;
	}
	t->oncpu_seen = 1;
	/* a marked box's ancestors are marked: stop at the first */
	for (size_t i = t->nopen; i-- > 0 && !t->open[i].on_cpu;)
		t->open[i].on_cpu = 1;
}

void ember_tree_repeat(struct ember_tree *t, double count, uint64_t times)
{
	/* one product when every sum on the way is an integer below 2^53,
	 * so exact: the same double as adding one count at a time */
	double sum = count * (double)times;
	if (count >= 0 && count == floor(count) && t->time >= 0 &&
	    t->time == floor(t->time) && times < (UINT64_C(1) << 53) &&
	    sum < 9007199254740992.0 && t->time + sum < 9007199254740992.0) {
		t->time += sum;
		return;
	}
	while (times--)
		t->time += count;
}

void ember_tree_finish(struct ember_tree *t)
{
	close_to(t, 0);
}
