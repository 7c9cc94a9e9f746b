#!/bin/sh
# gen-stacks.sh N [folded|perf] > out: N distinct stacks, one sample each,
# in a shuffled order, as folded lines or as `perf script` text: frames
# from a pool of 3,000 C++-, kernel-, Java- and Python-style names, eight
# deep (deterministic: the same N gives the same file).  For measuring how
# time and memory grow with the number of distinct stacks.
set -eu
n=${1:-1000000}
form=${2:-folded}
awk -v n="$n" -v form="$form" 'BEGIN {
	split("std::vector<int>::push_back|do_syscall_64|java/util/HashMap.get|py::handle:/srv/app.py", kind, "|")
	B = 3000
	for (k = 0; k < B; k++)
		name[k] = "fn_" k "_" kind[k % 4 + 1]
	for (i = 0; i < n; i++) {
		j = (i * 999983) % n	# a permutation unless n is a multiple
		f[0] = "main"
		f[1] = "worker_" (j % 7)
		x = j
		for (d = 0; d < 3; d++) {
			f[2 + 2 * d] = name[x % B]
			x = int(x / B)
			f[3 + 2 * d] = name[(x * 7 + d) % B]
		}
		if (form == "folded") {
			s = f[0]
			for (d = 1; d < 8; d++)
				s = s ";" f[d]
			print s, 1
		} else {
			printf "app 123/123 [000] %d.%06d: 1 cpu-clock:\n", 100 + int(i / 1000000), i % 1000000
			for (d = 7; d >= 0; d--)
				printf "\t%x %s (/usr/bin/app)\n", 4194304 + d, f[d]
			print ""
		}
	}
}'
