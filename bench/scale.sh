#!/bin/sh
# How time and memory grow with the number of distinct stacks: ember
# collapse perf, collapse recursive and flamegraph on 1M, 2M and 4M
# distinct stacks (bench/gen-stacks.sh, one sample each).  Close to linear
# means the seconds per million stacks stay flat.  SCALE_STACKS lists the
# sizes in millions ("1 2 4 10": 10M takes 4 GB of perf text in build/
# and about 3 GB of memory); best of MEASURE_RUNS runs (1 here).
. bench/lib.sh

sizes=${SCALE_STACKS:-1 2 4}
MEASURE_RUNS=${MEASURE_RUNS:-1}
for m in $sizes; do
	f=$W/stacks-${m}M.folded
	[ -s "$f" ] || sh bench/gen-stacks.sh $((m * 1000000)) folded > "$f"
	[ -s "$f.perf" ] || sh bench/gen-stacks.sh $((m * 1000000)) perf > "$f.perf"
done
for what in "collapse perf" "collapse recursive" flamegraph; do
	for m in $sizes; do
		in=$W/stacks-${m}M.folded
		[ "$what" = "collapse perf" ] && in=$in.perf
		# shellcheck disable=SC2086
		measure "$what, ${m}M stacks" "$(stat -c %s "$in")" "$EMBER" $what "$in" || continue
		echo "    $(echo "scale=2; $LAST_SECONDS / $m" | bc) s per million stacks"
	done
done
