/*
 * Sorts with libc's qsort and a comparator, for the profiler's tests: the
 * stacks go main -> qsort -> libc's merge sort (static functions, named
 * only by libc's separate debug file) -> cmp, through libc built without
 * frame pointers.
 *   qsortcmp [SECONDS]    (default 1)
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

NOINLINE static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

	for (int i = 0; i < 20; i++)
		sink += (unsigned long)i;
	return x < y ? -1 : x > y;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	enum { N = 20000 };
	static unsigned v[N];
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1, t0 = now();

	do {
		for (int i = 0; i < N; i++)
			v[i] = (unsigned)rand();
		qsort(v, N, sizeof(v[0]), cmp);
	} while (now() - t0 < secs);
	return 0;
}
