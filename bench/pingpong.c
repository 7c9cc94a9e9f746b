/*
 * Two threads passing a byte back and forth over two pipes: each read
 * blocks, so every round trip is two context switches (one per thread).
 * Usage: pingpong ROUNDS; prints the voluntary switches per second, its
 * CPU time (user and system, where a profiler's in-kernel work at each
 * switch is charged), then its wall time in seconds (last line).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds = 100000;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *echo(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			abort();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	struct rusage ru;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (rounds <= 0 || pipe(ping) || pipe(pong) ||
	    pthread_create(&t, NULL, echo, NULL))
		return 1;
	double t0 = now();
	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			abort();
	pthread_join(t, NULL);
	double s = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	printf("%.0f switches/s\n%.4f cpu s\n%.4f\n", (double)ru.ru_nvcsw / s,
	       cpu, s);
	return 0;
}
