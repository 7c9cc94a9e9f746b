#!/bin/sh
# perfdata: `ember collapse perf perf.data` against `perf script | ember
# collapse perf` on recordings made here by perf: a ~40 MB frame-pointer
# recording of a program with deep stacks (bench/deep.c), and a DWARF
# recording (--call-graph dwarf) of the compiler building a few of ember's
# sources.  Wall seconds (best of five; perf script on the DWARF file
# once, it takes minutes), peak memory, and the ratio; the same file
# written as pprof (the sample-level profile, with source lines) and as
# speedscope, Chrome trace events, Firefox Profiler and perf script text
# (every sample in time order).
. bench/lib.sh
if ! command -v perf > /dev/null 2>&1; then
	echo "  skipped: perf is not installed"
	exit 0
fi
cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$W/deep" bench/deep.c || exit 1
fp=$W/fp.perf.data
if ! perf record -q -g -F 10000 -o "$fp" -- "$W/deep" 2.5 > /dev/null 2> "$W/rec.err"; then
	echo "  skipped: perf record failed: $(head -1 "$W/rec.err")"
	exit 0
fi
bytes=$(stat -c %s "$fp")
printf '  frame pointers: %s MB perf.data\n' "$(echo "$bytes / 1000000" | bc)"
measure "ember collapse perf perf.data" "$bytes" "$EMBER" collapse perf -q "$fp" || exit 1
ours=$LAST_SECONDS
# pprof keeps samples, threads, addresses and source lines (DWARF)
measure "ember collapse perf perf.data -o .pb.gz" "$bytes" \
	"$EMBER" collapse perf -q "$fp" -o "$W/fp.pb.gz" || exit 1
printf '  pprof takes %.2fx the folded time\n' "$(echo "$LAST_SECONDS / $ours" | bc -l)"
# the time-ordered formats: every sample, in time order, per thread
for x in speedscope.json trace.json firefox.json perf.txt; do
	measure "ember collapse perf perf.data -o .$x" "$bytes" \
		"$EMBER" collapse perf -q "$fp" -o "$W/fp.$x" || exit 1
	printf '  .%s takes %.2fx the folded time (%s MB)\n' "$x" \
		"$(echo "$LAST_SECONDS / $ours" | bc -l)" "$(echo "$(stat -c %s "$W/fp.$x") / 1000000" | bc)"
done
measure "perf script | ember collapse perf" "$bytes" \
	sh -c "perf script -i '$fp' 2> /dev/null | '$EMBER' collapse perf" || exit 1
printf '  ember collapse perf.data is %.0fx faster\n' "$(echo "$LAST_SECONDS / $ours" | bc -l)"
"$EMBER" collapse perf -q "$fp" > "$W/fp-direct.folded"
perf script -i "$fp" 2> /dev/null | "$EMBER" collapse perf > "$W/fp-text.folded" 2> /dev/null
if cmp -s "$W/fp-direct.folded" "$W/fp-text.folded"; then
	echo "  output: identical ($(wc -l < "$W/fp-direct.folded") stacks)"
else
	echo "  output: $(diff "$W/fp-direct.folded" "$W/fp-text.folded" | grep -c '^<') of $(wc -l < "$W/fp-direct.folded") lines differ"
fi

dw=$W/dwarf.perf.data
mkdir -p "$W/cc"
perf record -q --call-graph dwarf -F 499 -o "$dw" -- sh -c '
	for f in src/lib/collapse/perf.c src/lib/unwind/unwind.c src/lib/unwind/cfi.c src/lib/tree.c; do
		cc -O2 -g -Iinclude -Isrc/lib -D_GNU_SOURCE -c "$f" -o "$0/$(basename "$f").o" || exit 1
	done' "$W/cc" > /dev/null 2> "$W/rec.err" || { echo "  DWARF: perf record failed: $(head -1 "$W/rec.err")"; exit 0; }
bytes=$(stat -c %s "$dw")
printf '  DWARF: %s MB perf.data of cc1\n' "$(echo "$bytes / 1000000" | bc)"
measure "ember collapse perf perf.data" "$bytes" "$EMBER" collapse perf -q "$dw" || exit 1
ours=$LAST_SECONDS
MEASURE_RUNS=1 measure "perf script | ember collapse perf (once)" "$bytes" \
	sh -c "perf script -i '$dw' 2> /dev/null | '$EMBER' collapse perf" || exit 1
printf '  ember collapse perf.data is %.0fx faster\n' "$(echo "$LAST_SECONDS / $ours" | bc -l)"
exit 0
