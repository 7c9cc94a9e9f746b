/* Calls into libc through the PLT for SECS of CPU time; run with
 * LD_BIND_NOT=1, every call goes through the dynamic linker's resolver
 * (_dl_runtime_resolve_*), whose CFI keeps the CFA in rbx. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) static size_t caller(const char *s)
{
	return strlen(s) + (size_t)labs(-3);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 0.5;
	struct timespec ts;
	size_t t = 0;

	do {
		for (int i = 0; i < 1000; i++)
			t += caller(argv[0]);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	} while ((double)ts.tv_sec + (double)ts.tv_nsec / 1e9 < secs);
	return t == 42;
}
