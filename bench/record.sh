# ember record: the profiler's overhead at 999 Hz (the test programs' own
# wall time with and without sampling, best of N: the machine's other load
# makes single runs noisy), in DWARF mode (32 KiB stack copies, the
# default) and frame-pointer mode; the DWARF unwinding cost per sample on
# Python 3.12 -X perf stacks; and the time to symbolize and write about
# 100,000 samples, with inlined frames (the default) and without, of C and
# Node.js and of C++ whose hot code is inlined.
. bench/lib.sh
N=${BENCH_RUNS:-10}
CT=$W/calltree
CTN=$W/calltree-nofp
cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$CT" tests/record/calltree.c &&
	cc -O2 -g -fomit-frame-pointer -o "$CTN" tests/record/calltree.c ||
	{ echo "  cannot build the test program"; exit 1; }
if ! "$EMBER" record -q -o "$W/probe.folded" -- "$CT" 0.05 > /dev/null 2> "$W/stderr"; then
	echo "  skipped: $(head -1 "$W/stderr")"
	exit 0
fi

lower() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
# overhead LABEL EMBER-OPTIONS TARGET% COMMAND...: best of N runs each,
# alone and recorded, alternating so that load from elsewhere hits both
# alike; the command prints its own wall time last
overhead() {
	label=$1 opts=$2 target=$3; shift 3
	plain= recorded=
	for i in $(seq "$N"); do
		t=$("$@" | tail -1)
		plain=$(lower "$plain" "$t")
		t=$("$EMBER" record -q -F 999 $opts -o "$W/rec.folded" -- "$@" 2> /dev/null | tail -1)
		recorded=$(lower "$recorded" "$t")
	done
	printf '  %-44s %7.3f s\n' "$label alone (best of $N)" "$plain"
	printf '  %-44s %7.3f s  %+5.1f %% overhead  (target: under %s%%)\n' \
		"  under ember record -F 999 ${opts:-}" "$recorded" \
		"$(echo "($recorded - $plain) * 100 / $plain" | bc -l)" "$target"
}

rounds=${BENCH_ROUNDS:-800}
overhead "C, frame pointers" "--call-graph fp" 5 "$CT" --rounds "$rounds"
overhead "C, no frame pointers" "" 10 "$CTN" --rounds "$rounds"

# whole command, recording included, against the program alone
start=$(date +%s.%N)
"$EMBER" record -q -F 999 -o "$W/rec.folded" -- "$CTN" --rounds "$rounds" > /dev/null
end=$(date +%s.%N)
printf '  %-44s %7.3f s\n' "ember record ... end to end (one run)" "$(echo "$end - $start" | bc -l)"

# Python 3.12 -X perf: a fixed amount of work through <module> -> baz ->
# bar -> foo; and the unwinding cost per sample from the summary
py=
for c in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2> /dev/null; then
		py=$c
		break
	fi
done
if [ -n "$py" ]; then
	cat > "$W/pywork.py" << 'EOF'
import os, sys, time
def foo(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def bar(n):
    return foo(n) + 1
def baz(n):
    return bar(n) + 1
t0 = time.monotonic()
for _ in range(int(sys.argv[1])):
    baz(2000)
print("%.4f" % (time.monotonic() - t0))
try:  # only the time matters: leave no perf map behind
    os.unlink("/tmp/perf-%d.map" % os.getpid())
except OSError:
    pass
EOF
	pyrounds=${BENCH_PY_ROUNDS:-12000}
	overhead "Python 3.12 -X perf" "--no-jit-env" 10 "$py" -X perf "$W/pywork.py" "$pyrounds"
	best= worst=
	for i in $(seq "$N"); do
		"$EMBER" record --pid -F 999 -o "$W/py.folded" -- "$py" -X perf tests/unwind/nested.py 2 > /dev/null 2> "$W/stderr"
		rm -f "/tmp/perf-$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$W/py.folded" | head -1).map"
		line=$(grep 'user stacks: DWARF' "$W/stderr")
		us=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) us each.*/\1/p')
		[ -n "$us" ] || continue
		if [ -z "$best" ] || [ "$(echo "$us < $best" | bc)" = 1 ]; then
			best=$us
			bestline=$(echo "$line" | sed 's/^ember: user stacks: //')
		fi
		if [ -z "$worst" ] || [ "$(echo "$us > $worst" | bc)" = 1 ]; then
			worst=$us
		fi
	done
	printf '  %-44s %7.2f us  (worst of %s: %s us; target: under 5 us)\n' \
		"DWARF unwinding per sample, Python (best)" "$best" "$N" "$worst"
	echo "    ($bestline)"
else
	echo "  Python 3.12 not found: no Python figures"
fi

# about 100,000 samples: two CPUs at 33 kHz for 2 s, both programs busy
# (frame-pointer mode: 32 KiB stack copies at that rate would overflow
# any ring; this measures symbolizing and writing)
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
# symbolize LABEL OPTIONS LOAD: best of 3 at 33 kHz, frame pointers; the
# wall time ember reports, and its CPU time (user and system, of ember's
# own threads, -v), which the machine's other load changes less
symbolize() {
	label=$1 opts=$2 load=$3
	best= bestcpu=
	for i in 1 2 3; do
		"$EMBER" record -v --call-graph fp -F 33000 $opts -o "$W/many.folded" -- sh -c "$load" > /dev/null 2> "$W/stderr"
		line=$(grep 'ember: recorded' "$W/stderr")
		t=$(echo "$line" | sed -n 's/.*(\([0-9.]*\) s to symbolize and write).*/\1/p')
		cpu=$(sed -n 's/.* \([0-9.]*\) s of CPU time to symbolize and write$/\1/p' "$W/stderr")
		if [ -n "$cpu" ] && { [ -z "$bestcpu" ] || [ "$(echo "$cpu < $bestcpu" | bc)" = 1 ]; }; then
			bestcpu=$cpu
		fi
		if [ -n "$t" ] && { [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; }; then
			best=$t
			samples=$(echo "$line" | sed -n 's/.*: \([0-9]*\) samples.*/\1/p')
			stacks=$(echo "$line" | sed -n 's/.* \([0-9]*\) stacks.*/\1/p')
			addrs=$(echo "$line" | sed -n 's/.* \([0-9]*\) addresses.*/\1/p')
		fi
	done
	printf '  %-44s %7.3f s  %5.3f s CPU  (%s samples, %s stacks, %s addresses%s)\n' \
		"$label" "$best" "${bestcpu:-0}" "$samples" "$stacks" "$addrs" "${4:-}"
	LAST_CPU=${bestcpu:-0}
}
# ratio LABEL CPU-WITH CPU-WITHOUT: inlined frames' cost, by CPU time
ratio() {
	printf '  %-44s %7.2fx  (target: at most 2x)\n' "$1" \
		"$(echo "$2 / ($3 + 0.0001)" | bc -l)"
}
symbolize "symbolize and write (best of 3)" "" "$load" "; target: under 1 s"
with=$LAST_CPU
symbolize "  the same, --no-inline" "--no-inline" "$load"
ratio "  inlined frames' cost (CPU, best of 3)" "$with" "$LAST_CPU"
# C++ built -O2 -g, most of its time in inlined code (std::map,
# std::unordered_map, std::sort): inlined frames read from its DWARF and
# libc's separate debug file, against none
CI=$W/inline-fp
if c++ -O2 -g -fno-omit-frame-pointer -o "$CI" tests/record/inline.cc 2> /dev/null; then
	symbolize "C++ -O2 -g, inlined frames (best of 3)" "" "$CI 2 & $CI 2; wait"
	with=$LAST_CPU
	symbolize "  the same, --no-inline" "--no-inline" "$CI 2 & $CI 2; wait"
	ratio "  inlined frames' cost (CPU, best of 3)" "$with" "$LAST_CPU"
fi
