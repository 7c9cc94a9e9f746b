#!/bin/sh
# collapse: `ember collapse perf` on the benchmark's perf script (150 MB of
# text): one thread, all threads, standard input; stackcollapse-perf.pl and
# inferno-collapse-perf on the same input when FLAMEGRAPH_DIR / INFERNO_DIR
# are set.  MB/s of input, wall seconds (best of three), peak memory.
. bench/lib.sh
in=$(bench_perf)
bytes=$(stat -c %s "$in")
cpus=$(nproc)
printf '  input: %s, %s MB of perf script\n' "$in" "$(echo "$bytes / 1000000" | bc)"

measure "ember collapse perf -j 1" "$bytes" "$EMBER" collapse perf -j 1 "$in" || exit 1
one=$LAST_SECONDS
measure "ember collapse perf -j $cpus" "$bytes" "$EMBER" collapse perf -j "$cpus" "$in" || exit 1
all=$LAST_SECONDS
measure "ember collapse perf -j $cpus, standard input" "$bytes" \
	sh -c "exec \"$EMBER\" collapse perf -j $cpus < \"$in\"" || exit 1
measure "ember collapse perf --all --tid -j $cpus" "$bytes" \
	"$EMBER" collapse perf --all --tid -j "$cpus" "$in" || exit 1

# the threads must not change a byte
"$EMBER" collapse perf -j 1 "$in" > "$W/collapse-1.folded"
"$EMBER" collapse perf -j "$cpus" "$in" > "$W/collapse-n.folded"
if cmp -s "$W/collapse-1.folded" "$W/collapse-n.folded"; then
	echo "  output of -j 1 and -j $cpus: identical ($(wc -l < "$W/collapse-1.folded") stacks)"
else
	echo "  output of -j 1 and -j $cpus: DIFFERENT"
fi

if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
	measure "stackcollapse-perf.pl" "$bytes" perl "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" "$in" &&
	printf '  ember is %.0fx faster on one thread, %.0fx on %s\n' \
		"$(echo "$LAST_SECONDS / $one" | bc -l)" "$(echo "$LAST_SECONDS / $all" | bc -l)" "$cpus"
fi
if [ -n "${INFERNO_DIR:-}" ] && [ -x "$INFERNO_DIR/inferno-collapse-perf" ]; then
	measure "inferno-collapse-perf" "$bytes" "$INFERNO_DIR/inferno-collapse-perf" "$in" &&
	printf '  ember is %.1fx faster on one thread, %.1fx on %s\n' \
		"$(echo "$LAST_SECONDS / $one" | bc -l)" "$(echo "$LAST_SECONDS / $all" | bc -l)" "$cpus"
fi
exit 0
