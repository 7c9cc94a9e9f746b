/*
 * Memory for tables that grow large (hugemem.c): from a megabyte on, a
 * mapping of their own in huge pages, grown by mremap, rather than
 * malloc's heap faulted in a 4 KiB page at a time.
 */
#ifndef EMBER_PERF_HUGEMEM_H
#define EMBER_PERF_HUGEMEM_H

#include "internal.h"

/* n bytes, zeroed (out of memory: the out-of-memory handler). */
void *rec_huge_alloc(size_t n);
/* p of old bytes made n (more), its bytes kept and the new ones zeroed. */
void *rec_huge_grow(void *p, size_t old, size_t n);
/* p of n bytes given back (NULL: nothing). */
void rec_huge_free(void *p, size_t n);

#endif
