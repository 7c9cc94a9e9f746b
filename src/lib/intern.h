/*
 * The frame-name table's insides (its interface is in ember.h): the
 * library embeds tables in its own structs (_init/_release) and reads
 * their entries directly where a loop is hot.
 */
#ifndef EMBER_INTERN_H
#define EMBER_INTERN_H

#include "internal.h"

/* ents[id] is the string of id; slots is an open-addressing hash (linear
 * probing, load at most 1/2) holding id + 1, 0 for an empty slot. */
struct ember_intern_ent {
	const char *s; /* in the arena, NUL-terminated */
	uint32_t len;
	uint32_t hash; /* low bits of ember_hash */
};
struct ember_intern {
	struct ember_arena arena;
	uint32_t *slots;
	size_t mask;
	struct ember_intern_ent *ents;
	size_t n, alloc;
};
void ember_intern_init(struct ember_intern *t);
void ember_intern_release(struct ember_intern *t);

#endif
