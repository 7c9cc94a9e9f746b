/*
 * A program that waits in a known phase, for the HTML viewer's off-CPU
 * and wall-clock tracks: busy spins SECONDS of CPU time (default 0.15),
 * nap sleeps 2 * SECONDS, busy_again spins SECONDS, one after the other
 * on the main thread.  Prints each phase's start and end
 * (CLOCK_MONOTONIC, microseconds) as
 *   NAME START END
 * With "end" after SECONDS, the program ends with the nap (no
 * busy_again): its wait is the recording's last sample.
 * Built -O2 -g with frame pointers.
 *   naps [SECONDS [end]]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;

static double now(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void spin(double s)
{
	double end = now(CLOCK_THREAD_CPUTIME_ID) + s;

	while (now(CLOCK_THREAD_CPUTIME_ID) < end)
		for (volatile int i = 0; i < 20000; i++)
			sink += (unsigned long)i;
	sink++;
}

NOINLINE void busy(double s)
{
	spin(s);
	sink++; /* no tail call: the phase stays on the stack */
}

NOINLINE void busy_again(double s)
{
	spin(s);
	sink++;
}

/* one sleep: a single wait as long as the phase */
NOINLINE void nap(double s)
{
	struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

	while (nanosleep(&t, &t))
		;
	sink++;
}

static void timed(const char *name, void (*fn)(double), double s)
{
	double a = now(CLOCK_MONOTONIC);
	fn(s);
	double b = now(CLOCK_MONOTONIC);
	printf("%s %.0f %.0f\n", name, a * 1e6, b * 1e6);
}

int main(int argc, char **argv)
{
	double s = argc > 1 ? strtod(argv[1], NULL) : 0.15;

	if (!(s > 0) || s > 10)
		s = 0.15;
	timed("busy", busy, s);
	timed("nap", nap, 2 * s);
	if (argc > 2 && !strcmp(argv[2], "end"))
		return 0;
	timed("busy_again", busy_again, s);
	return 0;
}
