# Helpers for the benchmark parts (sourced).
set -u
BUILD=${BUILD:-build}
EMBER=${EMBER:-$BUILD/ember}
W=$BUILD/bench
mkdir -p "$W"

# measure LABEL INPUT_BYTES COMMAND...: runs COMMAND (3 times, keeps the
# fastest) and prints seconds, MB/s of input and peak RSS in MB.
measure() {
	label=$1 bytes=$2; shift 2
	best=
	for i in 1 2 3; do
		/usr/bin/time -f '%e %M' -o "$W/time" "$@" > /dev/null 2> "$W/stderr" || {
			echo "  $label: failed"; sed 's/^/    /' "$W/stderr" | tail -3; return 1; }
		t=$(cut -d' ' -f1 "$W/time"); m=$(cut -d' ' -f2 "$W/time")
		if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; mem=$m; fi
	done
	[ "$best" = "0.00" ] && best=0.01
	printf '  %-44s %7.2f s  %8.1f MB/s  %7.1f MB peak\n' "$label" "$best" \
		"$(echo "$bytes / 1000000 / $best" | bc -l)" "$(echo "$mem / 1024" | bc -l)"
	LAST_SECONDS=$best
}

# the benchmark's perf script text, decompressed once
bench_perf() {
	[ -s "$W/system-wide.perf" ] || xz -dc bench/system-wide.perf.xz > "$W/system-wide.perf"
	echo "$W/system-wide.perf"
}
