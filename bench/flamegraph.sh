#!/bin/sh
# ember flamegraph: MB/s of folded input, wall time and peak memory on the
# bench recording's folded form and on a larger generated profile; ratios
# to flamegraph.pl (FLAMEGRAPH_DIR) and inferno-flamegraph (INFERNO_DIR).
# Where perf is at hand, also the CPU time (user and system, perf's
# task-clock: steadier than wall time on a busy machine), the least of
# MEASURE_RUNS runs.
. bench/lib.sh

# cpu_time COMMAND...: prints the least CPU time of the runs, in ms
cpu_time() {
	command -v perf > /dev/null 2>&1 || return 0
	best=
	for i in $(seq "${MEASURE_RUNS:-5}"); do
		t=$(perf stat -x, -e task-clock "$@" 2>&1 > /dev/null | sed -n 's/^\([0-9.]*\),msec,task-clock.*/\1/p')
		[ -n "$t" ] || return 0
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
	done
	echo "    CPU time (user + system): $best ms"
}

folded=$W/system-wide.folded
if [ ! -s "$folded" ]; then
	if ! "$EMBER" collapse perf "$(bench_perf)" > "$folded" 2> "$W/collapse.err"; then
		rm -f "$folded"
		echo "  (skipping the recording's folded form: ember collapse perf failed: $(head -1 "$W/collapse.err"))"
	fi
fi
gen=$W/generated.folded
[ -s "$gen" ] || sh bench/gen-folded.sh 300000 > "$gen"
[ -s "$gen.sorted" ] || LC_ALL=C sort "$gen" > "$gen.sorted"

for f in "$folded" "$gen" "$gen.sorted"; do
	[ -s "$f" ] || continue
	bytes=$(stat -c %s "$f")
	lines=$(wc -l < "$f")
	echo "  input $(basename "$f"): $(echo "$bytes / 1000000" | bc) MB, $lines lines"
	measure "ember flamegraph" "$bytes" "$EMBER" flamegraph "$f" || continue
	ours=$LAST_SECONDS
	cpu_time "$EMBER" flamegraph "$f"
	echo "    peak memory / input size: $(echo "scale=2; $mem * 1024 / $bytes" | bc)x;" \
		"frames drawn: $("$EMBER" flamegraph "$f" 2>/dev/null | grep -c '<title>')"
	[ "$f" = "$folded" ] &&
		measure "ember flamegraph --minwidth 0" "$bytes" "$EMBER" flamegraph --minwidth 0 "$f"
	if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -x "$FLAMEGRAPH_DIR/flamegraph.pl" ] && [ "$f" = "$folded" ]; then
		measure "flamegraph.pl" "$bytes" "$FLAMEGRAPH_DIR/flamegraph.pl" "$f" &&
			echo "    ember is $(echo "scale=1; $LAST_SECONDS / $ours" | bc)x faster than flamegraph.pl"
	fi
	if [ -n "${INFERNO_DIR:-}" ] && [ -x "$INFERNO_DIR/inferno-flamegraph" ]; then
		measure "inferno-flamegraph" "$bytes" "$INFERNO_DIR/inferno-flamegraph" "$f" &&
			echo "    ember is $(echo "scale=1; $LAST_SECONDS / $ours" | bc)x faster than inferno"
	fi
done
[ -n "${FLAMEGRAPH_DIR:-}" ] || echo "  (set FLAMEGRAPH_DIR to a FlameGraph checkout to time flamegraph.pl too;" \
	"reference here: 1.0 s for the 10 MB folded form, 10 MB/s)"
