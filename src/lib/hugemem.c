/*
 * Memory for tables that grow large: a fault for each 4 KiB page written
 * costs microseconds (more in a VM), so a table from a megabyte on is a
 * mapping of its own, in huge pages where the kernel has them (the
 * mapping is whole ones of 2 MiB); smaller ones are malloc's.  Which of
 * the two a table is follows from its size alone.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "hugemem.h"

#define HUGE_MIN  (1u << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static size_t rounded(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *ember_huge_map(size_t n)
{
	if (n > SIZE_MAX - HUGE_PAGE)
		return NULL;
	void *p = mmap(NULL, rounded(n), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, rounded(n), MADV_HUGEPAGE);
	return p;
}

void *ember_huge_remap(void *p, size_t old, size_t n)
{
	if (n > SIZE_MAX - HUGE_PAGE)
		return NULL;
	if (rounded(n) == rounded(old))
		return p;
	void *q = mremap(p, rounded(old), rounded(n), MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return NULL;
	madvise(q, rounded(n), MADV_HUGEPAGE);
	return q;
}

void ember_huge_unmap(void *p, size_t n)
{
	if (p)
		munmap(p, rounded(n));
}

/* No memory: the out-of-memory handler, which does not return. */
static void *none(void)
{
	return ember_xreallocarray(NULL, SIZE_MAX, 2);
}

void *ember_huge_alloc(size_t n)
{
	if (n < HUGE_MIN)
		return ember_xcalloc(1, n);
	void *p = ember_huge_map(n);
	return p ? p : none();
}

void *ember_huge_grow(void *p, size_t old, size_t n)
{
	if (n < HUGE_MIN) {
		char *q = ember_xrealloc(p, n);
		memset(q + old, 0, n - old);
		return q;
	}
	if (old < HUGE_MIN) {
		void *q = ember_huge_map(n);
		if (!q)
			return none();
		if (old)
			memcpy(q, p, old);
		free(p);
		return q;
	}
	void *q = ember_huge_remap(p, old, n);
	return q ? q : none();
}

void ember_huge_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < HUGE_MIN)
		free(p);
	else
		ember_huge_unmap(p, n);
}
