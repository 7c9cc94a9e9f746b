/* A recursion DEPTH calls deep (default 200) that spins at the bottom for
 * SECS of CPU time, for stacks deeper than the kernel's frame-pointer walk
 * goes (kernel.perf_event_max_stack).  Built with frame pointers. */
#include <stdlib.h>
#include <time.h>

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long bottom(double secs)
{
	volatile long acc = 0;

	while (cpu_seconds() < secs)
		for (int i = 0; i < 100000; i++)
			acc += i;
	return acc;
}

__attribute__((noinline)) static long deep(int n, double secs)
{
	if (n <= 1)
		return bottom(secs) + 1;
	return deep(n - 1, secs) + 1; /* not a tail call */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 0.5;
	int depth = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 200;

	return deep(depth, secs) == 42;
}
