#!/bin/sh
# gen-folded.sh LINES > out.folded: a synthetic profile of LINES unique-ish
# stacks, unsorted, from a random call tree of ~20,000 functions with
# C++-style names (deterministic: the same LINES give the same file).
set -eu
lines=${1:-500000}
awk -v lines="$lines" 'BEGIN {
	srand(42)
	split("std::vector<int>::push_back|tokio::runtime::task::poll|ext4_file_write_iter|do_syscall_64|__libc_start_main|v8::internal::Execution::Call|py::handle_request:/srv/app.py|java/util/HashMap.get|[unknown]|memcpy", base, "|")
	nf = 20000
	for (i = 1; i <= nf; i++)
		name[i] = base[int(rand() * 10) + 1] "_" i
	# each function calls a few others: a tree-shaped graph
	for (i = 1; i <= nf; i++)
		for (k = 1; k <= 4; k++)
			callee[i, k] = int(rand() * nf) + 1
	for (n = 0; n < lines; n++) {
		f = int(rand() * 8) + 1
		s = "app-" f ";" name[f]
		depth = int(rand() * 40) + 3
		for (d = 0; d < depth; d++) {
			f = callee[f, int(rand() * 4) + 1]
			s = s ";" name[f]
		}
		print s, int(rand() * 1000) + 1
	}
}'
