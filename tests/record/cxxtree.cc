// C++ frames for the profiler's tests: a template method in a namespace
// and a function in an anonymous namespace, whose mangled names must come
// out demangled, and a method of a template with long arguments whose
// name must still show in the summary.  Built with frame pointers.
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <vector>

namespace shapes
{
template <typename T> struct Worker {
	__attribute__((noinline)) T run(T n)
	{
		volatile T acc = 0;
		for (T i = 0; i < n; i++)
			acc += i ^ (acc >> 3);
		return acc;
	}
};

template <typename K> struct Registry {
	__attribute__((noinline)) long method_that_must_show(long n)
	{
		volatile long acc = 0;
		for (long i = 0; i < n; i++)
			acc += i ^ 5;
		return acc;
	}
};
} // namespace shapes

typedef std::map<std::string, std::vector<std::pair<long, std::string>>>
    LongKey;

namespace
{
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
	shapes::Registry<LongKey> reg;
	long t = 0;
	while (cpu_seconds() < secs)
		t += w.run(200000) + anon_spin(200000) +
		     reg.method_that_must_show(200000);
	return t == 42;
}
