/*
 * Two threads passing a byte back and forth over two pipes for SECONDS
 * (default 1): every round trip is two context switches, so the threads
 * switch tens of thousands of times a second, running a few microseconds
 * each time.  For the --wall test: each thread's on-CPU and off-CPU time
 * together is its life.
 * Usage: switches [SECONDS]; prints "life TID SECONDS" for each thread
 * (the main thread's from the start of main to its end, the other's from
 * its start to its end), then "switches PER-SECOND".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static double life[2];
static int tids[2];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *echo(void *arg)
{
	double t0 = now();
	char c;

	(void)arg;
	tids[1] = gettid();
	while (read(ping[0], &c, 1) == 1 && c == 'x')
		if (write(pong[1], &c, 1) != 1)
			abort();
	life[1] = now() - t0;
	return NULL;
}

int main(int argc, char **argv)
{
	double t0 = now(), secs = argc > 1 ? atof(argv[1]) : 1;
	struct rusage ru;
	pthread_t t;
	char c = 'x';

	tids[0] = gettid();
	if (secs <= 0 || pipe(ping) || pipe(pong) ||
	    pthread_create(&t, NULL, echo, NULL))
		return 1;
	double end = t0 + secs;
	for (long i = 0; (i & 255) || now() < end; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			abort();
	c = 'q';
	if (write(ping[1], &c, 1) != 1)
		abort();
	pthread_join(t, NULL);
	getrusage(RUSAGE_SELF, &ru);
	life[0] = now() - t0;
	printf("life %d %.6f\nlife %d %.6f\nswitches %.0f\n", tids[0], life[0],
	       tids[1], life[1], (double)ru.ru_nvcsw / life[0]);
	return 0;
}
