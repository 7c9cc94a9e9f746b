/* A stripped program calling a stripped library (unnamedlib.c): the frames of
 * neither have names, each is named by its module. */
#include <stdlib.h>
#include <time.h>
void lib_work(unsigned long n);
static volatile unsigned long sink;
__attribute__((noinline)) static void own_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink += i;
}
__attribute__((noinline)) static void own_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink ^= i;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		own_a(100000);
		own_b(100000);
		lib_work(100000);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 <
		 secs);
	return 0;
}
