/*
 * The stack table's insides (its interface is in ember.h): the library
 * embeds tables in its own structs (_init/_release) and reads their
 * entries directly where a loop is hot.
 */
#ifndef EMBER_STACKS_H
#define EMBER_STACKS_H

#include "internal.h"

/* A stack is a run of frame ids in `ids`; `ents` holds one entry per
 * distinct stack, in order of first appearance (until sorted), and
 * `slots` is an open-addressing hash over the entries (entry + 1, 0 for
 * empty, load at most 1/2). */
struct ember_stack_ent {
	uint64_t hash;
	uint32_t off, n; /* frames are ids[off .. off + n) */
	double count;
	double count2; /* second column (differential), 0 if unused */
};
struct ember_stacks {
	uint32_t *ids;
	size_t nids, aids;
	struct ember_stack_ent *ents;
	size_t n, alloc;
	uint32_t *slots;
	size_t mask;
};
void ember_stacks_init(struct ember_stacks *s);
void ember_stacks_release(struct ember_stacks *s);

#endif
