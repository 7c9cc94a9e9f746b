/*
 * A program with known phases on its main thread and a background thread
 * beside them, for the HTML viewer's tracks and stack chart: phase_one,
 * phase_two, phase_three spin SECONDS of CPU time each (default 0.3) one
 * after the other, while the thread "<b onclick=x>" (a name that must be
 * shown as text) runs background_work in short bursts.  Prints each
 * phase's start and end (CLOCK_MONOTONIC, microseconds) as
 *   NAME START END
 * Built -O2 -g with frame pointers.
 *   timeline [SECONDS]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static volatile unsigned long sink;
static volatile int done;

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

#define PHASE(name)                                                            \
	NOINLINE void name(double s)                                           \
	{                                                                      \
		spin(s);                                                       \
		sink++; /* no tail call: the phase stays on the stack */       \
	}

PHASE(phase_one)
PHASE(phase_two)
PHASE(phase_three)

NOINLINE void background_work(void)
{
	spin(0.002);
	sink++;
}

static void *background(void *arg)
{
	struct timespec nap = {0, 8000000};

	(void)arg;
	while (!done) {
		background_work();
		nanosleep(&nap, NULL);
	}
	return NULL;
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
	double s = argc > 1 ? strtod(argv[1], NULL) : 0.3;
	pthread_t t;

	if (pthread_create(&t, NULL, background, NULL))
		return 1;
	pthread_setname_np(t, "<b onclick=x>");
	timed("phase_one", phase_one, s);
	timed("phase_two", phase_two, s);
	timed("phase_three", phase_three, s);
	done = 1;
	pthread_join(t, NULL);
	return 0;
}
