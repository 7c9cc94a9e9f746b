#!/bin/sh
# Memory that follows distinct stacks and frames plus a few bytes per
# sample: many timed samples of a few stacks, written to each format of
# the sample-level profile, take at most a few tens of bytes a sample
# more than folded output of the same input (the writers stream their
# output: pprof's encoded profile was once held whole, ~70 bytes a
# sample).
. tests/cli/lib.sh
if [ ! -x /usr/bin/time ] || [ -n "${SANFLAGS:-}" ]; then
	echo "memory: skipped: no /usr/bin/time, or a sanitizer build"
	finish
	exit
fi
n=200000
awk -v n=$n 'BEGIN {
	for (i = 0; i < n; i++) {
		printf "app 100/%d [%03d] %d.%06d: 1000000 cpu-clock:\n", 100 + i % 4, i % 2, 1000 + int(i / 1000), (i % 1000) * 1000
		printf "\t    %d leaf%d+0x1e (/usr/bin/app)\n", 4864 + i % 8, i % 8
		printf "\t    13e4 mid+0x4 (/usr/bin/app)\n\t    10f8 main+0x48 (/usr/bin/app)\n\n"
	}
}' > "$T/many.txt"
# rss OUTPUT: the peak kB of writing OUTPUT from many.txt
rss() {
	/usr/bin/time -f 'maxrss %M' -o "$T/rss" "$EMBER" collapse perf -q "$T/many.txt" -o "$T/$1" > /dev/null 2> "$T/err" || { echo 0; return; }
	sed -n 's/^maxrss //p' "$T/rss"
}
base=$(rss many.folded)
check "folded output of $n samples written" test "$base" -gt 0
for x in pb.gz speedscope.json firefox.json trace.json; do
	kb=$(rss "many.$x")
	check "-o .$x of $n samples written" test "$kb" -gt 0
	per=$(( (kb - base) * 1024 / n ))
	check "-o .$x: $per bytes a sample more than folded output (at most 40)" test "$per" -le 40
done
check "the pprof profile holds the $n samples" test "$(gzip -dc "$T/many.pb.gz" | wc -c)" -gt $((n * 20))
finish
