/*
 * The merged call tree (tree.c): a flame graph's boxes, for the renderer.
 */
#ifndef EMBER_TREE_H
#define EMBER_TREE_H

#include "internal.h"

/* A flame graph's boxes, built as flamegraph.pl's `flow` builds them: the
 * caller feeds stacks in drawing order (sorted for a flame graph, time
 * order for a flame chart); a stack's frames shared with the previous
 * stack extend the boxes already open, the rest close and new ones open.
 * Frame names are slices that must outlive the tree. */
struct ember_tree_node {
	const char *name;
	uint32_t len;
	uint32_t depth; /* 0 = the root ("all") */
	double start, end;
	double delta;  /* self delta of a differential stack */
	double before; /* with keep_before: the first counts below it */
	int has_delta;
	int on_cpu; /* holds time of a stack that is not off-CPU */
};
struct ember_tree {
	struct ember_tree_node *nodes; /* closed boxes, children first */
	size_t n, alloc;
	double min_width; /* boxes narrower than this are dropped */
	/* a differential tree keeps the boxes the first counts make wide
	 * enough, however narrow the second make them (the HTML viewer draws
	 * either); the SVG, as flamegraph.pl, only the second's */
	int keep_before;
	uint32_t maxdepth; /* of the boxes kept */
	double time;	   /* sum of counts so far */
	/* stacks seen with and without an "[off-cpu...]" end frame */
	int offcpu_seen, oncpu_seen;
	/* the boxes open now, one per depth */
	struct ember_tree_node *open;
	size_t nopen, aopen;
};
void ember_tree_init(struct ember_tree *t, double min_width);
void ember_tree_release(struct ember_tree *t);
/* Adds one stack (frames root first, without the implicit root); delta is
 * NULL for a one-count stack. */
void ember_tree_flow(struct ember_tree *t, const struct ember_slice *frames,
		     size_t n, double count, const double *delta);
/* The same, when the caller knows that the first `known` frames equal
 * the previous stack's (it then skips comparing them). */
void ember_tree_flow_keep(struct ember_tree *t,
			  const struct ember_slice *frames, size_t n,
			  size_t known, double count, const double *delta);
/* The last stack again, `times` more times: time advances by count each
 * time (summed as one addition at a time would sum). */
void ember_tree_repeat(struct ember_tree *t, double count, uint64_t times);
/* Closes every open box; the root, if kept, is the last node. */
void ember_tree_finish(struct ember_tree *t);

#endif
