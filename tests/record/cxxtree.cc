// C++ frames for the profiler's tests: a template method in a namespace
// and a function in an anonymous namespace, whose mangled names must come
// out demangled.  Built with frame pointers.
#include <cstdlib>
#include <ctime>

namespace shapes {
template <typename T> struct Worker {
	__attribute__((noinline)) T run(T n)
	{
		volatile T acc = 0;
		for (T i = 0; i < n; i++)
			acc += i ^ (acc >> 3);
		return acc;
	}
};
} // namespace shapes

namespace {
__attribute__((noinline)) long anon_spin(long n)
{
	volatile long acc = 0;
	for (long i = 0; i < n; i++)
		acc += i * 3;
	return acc;
}
} // namespace

static double cpu_seconds()
{
	timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? std::strtod(argv[1], nullptr) : 0.5;
	shapes::Worker<long> w;
	long t = 0;
	while (cpu_seconds() < secs)
		t += w.run(200000) + anon_spin(200000);
	return t == 42;
}
