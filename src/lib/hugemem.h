/*
 * Memory for tables and buffers that grow large (hugemem.c): a mapping of
 * their own in huge pages, grown by mremap, rather than malloc's heap
 * faulted in a 4 KiB page at a time.  Sizes are rounded up to whole huge
 * pages (2 MiB) here, the same way each time.
 */
#ifndef EMBER_HUGEMEM_H
#define EMBER_HUGEMEM_H

#include "internal.h"

/* A mapping of n bytes, zeroed; NULL: no memory. */
void *ember_huge_map(size_t n);
/* p of old bytes made n, its bytes kept (maybe moved); NULL: no memory,
 * p as it was. */
void *ember_huge_remap(void *p, size_t old, size_t n);
/* A mapping of n bytes given back (NULL: nothing). */
void ember_huge_unmap(void *p, size_t n);

/* For tables: from a megabyte on a mapping, below that malloc's; out of
 * memory, the out-of-memory handler. */
/* n bytes, zeroed. */
void *ember_huge_alloc(size_t n);
/* p of old bytes made n (more), its bytes kept and the new ones zeroed. */
void *ember_huge_grow(void *p, size_t old, size_t n);
/* p of n bytes given back (NULL: nothing). */
void ember_huge_free(void *p, size_t n);

#endif
