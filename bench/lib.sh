# Helpers for the benchmark parts (sourced).
set -u
BUILD=${BUILD:-build}
EMBER=${EMBER:-$BUILD/ember}
W=$BUILD/bench
mkdir -p "$W"

# measure LABEL INPUT_BYTES COMMAND...: runs COMMAND (5 times, or
# MEASURE_RUNS, keeps the fastest) and prints seconds, MB/s of input and peak RSS in MB.  Times
# come from the nanosecond clock (GNU time's own is 10 ms coarse); peak
# memory from GNU time.
measure() {
	label=$1 bytes=$2; shift 2
	best=
	for i in $(seq "${MEASURE_RUNS:-5}"); do
		t0=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$W/time" "$@" > /dev/null 2> "$W/stderr" || {
			echo "  $label: failed"; sed 's/^/    /' "$W/stderr" | tail -3; return 1; }
		t1=$(date +%s%N)
		t=$(echo "scale=4; ($t1 - $t0) / 1000000000" | bc); m=$(cat "$W/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; mem=$m; fi
	done
	printf '  %-44s %7.3f s  %8.1f MB/s  %7.1f MB peak\n' "$label" "$best" \
		"$(echo "$bytes / 1000000 / $best" | bc -l)" "$(echo "$mem / 1024" | bc -l)"
	LAST_SECONDS=$best
}

# the benchmark's perf script text, decompressed once
bench_perf() {
	[ -s "$W/system-wide.perf" ] || xz -dc bench/system-wide.perf.xz > "$W/system-wide.perf"
	echo "$W/system-wide.perf"
}
