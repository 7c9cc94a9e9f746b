// C++ whose hot code is inlined, for the profiler's inlined-frame tests:
// lookups in a std::map of strings (std::less, basic_string::compare,
// char_traits::compare inlined into lookup_strings), in a
// std::unordered_map of ints (_M_find_before_node, _M_equals, equal_to)
// and std::sort (introsort inlined into sort_ints).  Built -O2 -g, with or
// without frame pointers.
//   inline [SECONDS]    (default 1 second of wall time)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

static double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static long
lookup_strings(const std::map<std::string, int> &m,
	       const std::vector<std::string> &keys)
{
	long s = 0;

	for (const auto &k : keys) {
		auto it = m.find(k);
		if (it != m.end())
			s += it->second;
	}
	return s;
}

__attribute__((noinline)) static long
lookup_ints(const std::unordered_map<int, int> &m, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		auto it = m.find(i * 7);
		if (it != m.end())
			s += it->second;
	}
	return s;
}

/* sorts a copy in w (no allocation: page faults would make its share
 * vary from run to run) */
__attribute__((noinline)) static long sort_ints(const std::vector<int> &v,
					       std::vector<int> &w)
{
	std::copy(v.begin(), v.end(), w.begin());
	std::sort(w.begin(), w.end());
	return w[w.size() / 2];
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	std::map<std::string, int> sm;
	std::vector<std::string> keys;

	/* keys alike in their first 30 bytes: comparing them is the work */
	for (int i = 0; i < 2000; i++) {
		std::string k = "a-common-prefix-for-every-key/" +
				std::to_string(i * 7919 % 10007);
		sm[k] = i;
		keys.push_back(k);
	}
	std::unordered_map<int, int> um;
	for (int i = 0; i < 100000; i++)
		um[i * 13] = i;
	std::vector<int> v(8000), w(8000);
	unsigned x = 1;
	for (auto &e : v)
		e = (int)(x = x * 1103515245 + 12345);
	long sum = 0;
	double end = now() + secs;
	while (now() < end) {
		sum += lookup_strings(sm, keys);
		sum += lookup_ints(um, 150000);
		sum += sort_ints(v, w);
	}
	printf("%ld\n", sum);
	return 0;
}
