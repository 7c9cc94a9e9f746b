/*
 * A program for the perf.data benchmark: deep stacks (about 120 frames
 * of two alternating functions, chosen by the bits of a counter, so that
 * there are many distinct stacks) on two threads, each for SECONDS of CPU
 * time (a fixed number of samples on a busy machine too).  Built with
 * frame pointers.
 *   deep SECONDS
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))
#define DEPTH	 120

static volatile unsigned long sink;
static double seconds;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

NOINLINE static void spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink += acc;
}

NOINLINE static void even(int d, unsigned long path);
NOINLINE static void odd(int d, unsigned long path);

NOINLINE static void even(int d, unsigned long path)
{
	if (!d)
		spin(2000);
	else if ((path >> (d % 8)) & 1)
		odd(d - 1, path);
	else
		even(d - 1, path);
	sink++;
}

NOINLINE static void odd(int d, unsigned long path)
{
	if (!d)
		spin(2000);
	else if ((path >> (d % 8)) & 1)
		even(d - 1, path);
	else
		odd(d - 1, path);
	sink++;
}

static void *run(void *arg)
{
	(void)arg;
	for (unsigned long i = 0; now() < seconds; i++)
		even(DEPTH, i * 2654435761u >> 7);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	seconds = argc > 1 ? atof(argv[1]) : 1;
	pthread_create(&t, NULL, run, NULL);
	run(NULL);
	pthread_join(t, NULL);
	return 0;
}
