/*
 * Two named threads with distinct hot functions, for the profiler's tests:
 * "worker-a" runs thread_a_work, "worker-b" thread_b_work, each for about
 * SECONDS of CPU time (default 0.5).  Built with frame pointers.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

static double secs = 0.5;
static volatile unsigned long sink;

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE void thread_spin(unsigned long n)
{
	volatile unsigned long acc = 0;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	sink += acc;
}

NOINLINE void thread_a_work(void)
{
	while (thread_cpu() < secs)
		thread_spin(100000);
	sink++;
}

NOINLINE void thread_b_work(void)
{
	while (thread_cpu() < secs)
		thread_spin(100000);
	sink++;
}

static void *run(void *arg)
{
	if (arg) {
		pthread_setname_np(pthread_self(), "worker-a");
		thread_a_work();
	} else {
		pthread_setname_np(pthread_self(), "worker-b");
		thread_b_work();
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t a, b;

	if (argc > 1)
		secs = strtod(argv[1], NULL);
	pthread_create(&a, NULL, run, (void *)1);
	pthread_create(&b, NULL, run, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
