/*
 * A program with known phases, one after the other on one thread, for
 * the tests of the formats that keep time order: parse, compute,
 * write_out, parse again, each spinning SECONDS of CPU time (default
 * 0.1) in its own frame.  Built -O2 -g with frame pointers.
 *   phases [SECONDS]
 */
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Each phase spins in its own body (no call it could tail-call away). */
#define PHASE(name)                                                            \
	NOINLINE void name(double s)                                           \
	{                                                                      \
		double end = cpu_now() + s;                                    \
		while (cpu_now() < end)                                        \
			for (volatile int i = 0; i < 20000; i++)               \
				sink += (unsigned long)i;                      \
		sink++;                                                        \
	}

PHASE(parse)
PHASE(compute)
PHASE(write_out)

int main(int argc, char **argv)
{
	double s = argc > 1 ? strtod(argv[1], NULL) : 0.1;

	parse(s);
	compute(s);
	write_out(s);
	parse(s);
	return (int)(sink & 0);
}
