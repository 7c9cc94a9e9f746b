#!/bin/sh
# ember record: the profiler's overhead on a frame-pointer test program
# (its own wall time with and without sampling at 999 Hz, best of N), and
# the time to symbolize and write about 100,000 samples.
. bench/lib.sh
N=${BENCH_RUNS:-10}
CT=$W/calltree
cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$CT" tests/record/calltree.c || { echo "  cannot build the test program"; exit 1; }
if ! "$EMBER" record -q -o "$W/probe.folded" -- "$CT" 0.05 > /dev/null 2> "$W/stderr"; then
	echo "  skipped: $(head -1 "$W/stderr")"
	exit 0
fi

# best (lowest) of N runs each, alternating, so that load from elsewhere
# hits both alike; the program prints its own wall time
rounds=${BENCH_ROUNDS:-800}
plain= recorded=
lower() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
for i in $(seq "$N"); do
	t=$("$CT" --rounds "$rounds" | tail -1)
	plain=$(lower "$plain" "$t")
	t=$("$EMBER" record -q -F 999 -o "$W/rec.folded" -- "$CT" --rounds "$rounds" 2> /dev/null | tail -1)
	recorded=$(lower "$recorded" "$t")
done
printf '  %-44s %7.3f s\n' "test program alone (best of $N)" "$plain"
printf '  %-44s %7.3f s\n' "test program under ember record -F 999" "$recorded"
printf '  %-44s %7.1f %%  (target: under 5%%)\n' "overhead" \
	"$(echo "($recorded - $plain) * 100 / $plain" | bc -l)"

# whole command, recording included, against the program alone
start=$(date +%s.%N)
"$EMBER" record -q -F 999 -o "$W/rec.folded" -- "$CT" --rounds "$rounds" > /dev/null
end=$(date +%s.%N)
printf '  %-44s %7.3f s\n' "ember record ... end to end (one run)" "$(echo "$end - $start" | bc -l)"

# about 100,000 samples: two CPUs at 33 kHz for 2 s, both programs busy
load="$CT 2 & $CT 2; wait"
if command -v node > /dev/null 2>&1; then
	cat > "$W/hot.js" << 'EOF'
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7); return s; }
function middle(n) { return leaf(n) + 1; }
function top(n) { return middle(n) * 2; }
const end = Date.now() + 2000;
let acc = 0;
while (Date.now() < end) acc += top(100000);
EOF
	load="node $W/hot.js & $CT 2; wait"
fi
best=
for i in 1 2 3; do
	"$EMBER" record -F 33000 -o "$W/many.folded" -- sh -c "$load" > /dev/null 2> "$W/stderr"
	line=$(grep 'ember: recorded' "$W/stderr")
	t=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) s to symbolize and write).*/\1/p')
	if [ -n "$t" ] && { [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; }; then
		best=$t
		samples=$(echo "$line" | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')
		stacks=$(echo "$line" | sed -n 's/.* \([0-9]*\) stacks.*/\1/p')
		addrs=$(echo "$line" | sed -n 's/.* \([0-9]*\) addresses.*/\1/p')
	fi
done
printf '  %-44s %7.3f s  (%s samples, %s stacks, %s addresses; target: under 1 s)\n' \
	"symbolize and write (best of 3)" "$best" "$samples" "$stacks" "$addrs"
