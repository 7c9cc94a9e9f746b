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

#include "perf/hugemem.h"

#define HUGE_MIN  (1u << 20)
#define HUGE_PAGE ((size_t)2 << 20)

static size_t rounded(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* No memory: the out-of-memory handler, which does not return. */
static void *none(void)
{
	return ember_xreallocarray(NULL, SIZE_MAX, 2);
}

static void *map(size_t n)
{
	if (n > SIZE_MAX - HUGE_PAGE)
		return none();
	void *p = mmap(NULL, rounded(n), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return none();
	madvise(p, rounded(n), MADV_HUGEPAGE);
	return p;
}

void *rec_huge_alloc(size_t n)
{
	return n < HUGE_MIN ? ember_xcalloc(1, n) : map(n);
}

void *rec_huge_grow(void *p, size_t old, size_t n)
{
	if (n < HUGE_MIN) {
		char *q = ember_xrealloc(p, n);
		memset(q + old, 0, n - old);
		return q;
	}
	if (old < HUGE_MIN) {
		void *q = map(n);
		if (old)
			memcpy(q, p, old);
		free(p);
		return q;
	}
	if (n > SIZE_MAX - HUGE_PAGE)
		return none();
	if (rounded(n) == rounded(old))
		return p;
	void *q = mremap(p, rounded(old), rounded(n), MREMAP_MAYMOVE);
	if (q == MAP_FAILED)
		return none();
	madvise(q, rounded(n), MADV_HUGEPAGE);
	return q;
}

void rec_huge_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < HUGE_MIN)
		free(p);
	else
		munmap(p, rounded(n));
}
