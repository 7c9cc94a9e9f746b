/*
 * A program whose time goes to libc functions that glibc exports under
 * symbol versions and with aliases (free, also cfree@GLIBC_2.2.5;
 * clock_nanosleep@@GLIBC_2.17 and @GLIBC_2.2.5; __libc_start_main@@
 * GLIBC_2.34): for the tests of how frames in them are named.
 * Usage: libcalls [SECONDS] (default 0.5).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile long sink;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 0.5);
	struct timespec nap = {0, 100000};

	do {
		for (int i = 0; i < 2000; i++) {
			char *p = malloc(100 + (size_t)i);
			if (!p)
				return 1;
			memset(p, i, 16);
			sink += p[3];
			free(p);
		}
		clock_nanosleep(CLOCK_MONOTONIC, 0, &nap, NULL);
	} while (now() < end);
	return 0;
}
