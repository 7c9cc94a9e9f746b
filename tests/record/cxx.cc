// A C++ program for the pprof test: a member function in a namespace,
// whose mangled name (_ZN10ember_test7Spinner4spinEm) and demangled one
// differ.
//   cxx [SECONDS]    (default 1 second of CPU time)
#include <cstdlib>
#include <ctime>

namespace ember_test {
struct Spinner {
	volatile unsigned long acc = 0;
	__attribute__((noinline)) void spin(unsigned long n);
};

void Spinner::spin(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		acc = acc + (i ^ (acc >> 3));
}
} // namespace ember_test

static double cpu_seconds()
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], nullptr) : 1;
	ember_test::Spinner s;

	while (cpu_seconds() < secs)
		s.spin(100000);
	return 0;
}
