/*
 * V8's CPU profile, as the .cpuprofile reader (cpuprofile.c) and the
 * trace events' CPU profiles (trace-events.c) both hold it: nodes (id,
 * callFrame, parent or children), samples and their time deltas.
 */
#ifndef EMBER_COLLAPSE_V8PROF_H
#define EMBER_COLLAPSE_V8PROF_H

#include "collapse.h"
#include "profile.h"

/* A node: at the head of each reader's node struct, whose size the
 * calls below take (size), so that one array serves both. */
struct cl_v8node {
	double id;
	double parent_id;	  /* "parent", when has_parent_id */
	size_t child_off, nchild; /* "children": ids in the reader's kids[] */
	uint32_t name;		  /* in the sink's names: "function url:line" */
	uint32_t url;		  /* in the reader's strings */
	uint32_t line;		  /* 1-based, 0: none */
	uint32_t parent;	  /* node index + 1, 0: none (once linked) */
	int has_parent_id;
};

static inline struct cl_v8node *cl_v8_at(const void *nodes, size_t size,
					 size_t i)
{
	return (struct cl_v8node *)((char *)nodes + i * size);
}

/* The node's name, url and line from its callFrame (line: 0-based, as
 * V8 gives it, negative: none); tmp is scratch. */
void cl_v8_name(struct cl_v8node *n, struct collapse_sink *k,
		struct ember_intern *urls, struct ember_buf *tmp,
		const char *fn, size_t fn_len, const char *url, size_t url_len,
		double line);

/* Sorts the nodes by id; the index of the node of an id, or -1. */
void cl_v8_sort(void *nodes, size_t n, size_t size);
ptrdiff_t cl_v8_find(const void *nodes, size_t n, size_t size, double id);

/* Parent links of the sorted nodes: from children lists, then parent
 * ids.  A child that is no node: -1, its id in *bad and its parent's in
 * *bad_parent. */
int cl_v8_link(void *nodes, size_t n, size_t size, const double *kids,
	       double *bad_parent, double *bad);

/* The names from the root down to node i, the root (V8's "(root)")
 * left out, into *ids (grown): their count, or SIZE_MAX where the
 * parents loop. */
size_t cl_v8_names(const void *nodes, size_t n, size_t size, size_t i,
		   uint32_t **ids, size_t *aids);

/* The profile's stack node of node i: its frame (function, url as the
 * file, line; interpreted) under its parent's, made on first use and
 * kept in memo[i] (+1; zeroed by the caller, one per node).  The root
 * and nodes whose parents loop: EMBER_PROF_NONE. */
uint32_t cl_v8_stack(struct ember_prof *p, const struct collapse_sink *k,
		     const struct ember_intern *urls, const void *nodes,
		     size_t n, size_t size, uint32_t *memo, size_t i);

/* The samples' times: start plus the deltas up to each (microseconds),
 * sorted by time, samples of one time in order; sample i's time into
 * times[i] when given.  The caller frees the array. */
struct cl_v8stamp {
	double t;
	size_t i;
};
struct cl_v8stamp *cl_v8_stamps(double start, const double *deltas, size_t n,
				double *times);

#endif
