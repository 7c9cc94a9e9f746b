/*
 * A program with a known call tree, for the profiler's tests: main spends
 * 60% of its CPU time in work_a, 30% in work_b and 10% in recurse (5 deep),
 * all ending in spin.  Built with frame pointers.
 *   calltree [SECONDS] [--abort]    (default 1 second of CPU time; 0:
 *                                    until killed)
 *   calltree --rounds N             a fixed amount of work; prints its
 *                                    wall time in seconds (for benchmarks)
 */
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

/* The local on the stack makes even this leaf set up a frame pointer:
 * gcc leaves it out of leaf functions that need no stack frame, and the
 * caller of such a leaf is then missing from frame-pointer stacks. */
NOINLINE void spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink += acc;
}

/* one line each: a call's line is its function's declaration line (the
 * pprof tests look for it there) */
/* clang-format off */
NOINLINE void leaf_hot(unsigned long n) { spin(n); sink++; }
NOINLINE void work_a(unsigned long n) { leaf_hot(n); sink++; }
NOINLINE void leaf_b(unsigned long n) { spin(n); sink++; }
NOINLINE void mid_b(unsigned long n) { leaf_b(n); sink++; }
NOINLINE void work_b(unsigned long n) { mid_b(n); sink++; }
NOINLINE void leaf_warm(unsigned long n) { spin(n); sink++; }
/* clang-format on */

NOINLINE void recurse(int depth, unsigned long n)
{
	if (depth > 1)
		recurse(depth - 1, n);
	else
		leaf_warm(n);
	sink++;
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	int forever = secs <= 0;
	unsigned long unit = 200000; /* about 0.3 ms per round of 10 units */

	if (argc > 2 && !strcmp(argv[1], "--rounds")) {
		long rounds = strtol(argv[2], NULL, 10);
		double t0 = wall_seconds();
		for (long i = 0; i < rounds; i++) {
			work_a(6 * unit);
			work_b(3 * unit);
			recurse(5, unit);
		}
		printf("%.4f\n", wall_seconds() - t0);
		return 0;
	}

	while (forever || cpu_seconds() < secs) {
		work_a(6 * unit);
		work_b(3 * unit);
		recurse(5, unit);
	}
	if (argc > 2 && !strcmp(argv[2], "--abort"))
		abort();
	return 0;
}
