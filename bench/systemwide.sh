#!/bin/sh
# systemwide: perf.data of the whole machine (perf record -a) made here
# while the compiler builds a few of ember's sources and bench/deep.c runs
# (and whatever else the machine runs): `ember collapse perf perf.data`
# against `perf script | ember collapse perf` with frame pointers (-g) and
# with DWARF (--call-graph dwarf); the writers' CPU time (user + system,
# least of 5, the formats' runs interleaved) as a ratio to folded
# output's; and the peak memory of writing pprof, speedscope and Firefox
# from a recording of about 1.2M samples, what 10 minutes at 999 Hz on 2
# CPUs make, recorded here at a high rate (-F 40000) for 40 seconds.
. bench/lib.sh
if ! command -v perf > /dev/null 2>&1; then
	echo "  skipped: perf is not installed"
	exit 0
fi
cc -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -pthread \
	-o "$W/deep" bench/deep.c || exit 1
mkdir -p "$W/sw-cc"
# the workload: deep stacks on two threads, and the compiler
work() {
	echo "timeout $1 '$W/deep' 1000 & timeout $1 sh -c 'for f in src/lib/*.c src/lib/*/*.c; do cc -O2 -g -Iinclude -Isrc/lib -D_GNU_SOURCE -c \"\$f\" -o \"$W/sw-cc/x.o\" 2> /dev/null; done'; wait"
}

# cpu FILE: the user + system seconds GNU time wrote to FILE
cpu() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }

fp=$W/sw-fp.perf.data
if ! perf record -q -a -g -F 999 -o "$fp" -- sh -c "$(work 6)" > /dev/null 2> "$W/rec.err"; then
	echo "  skipped: perf record -a failed: $(head -1 "$W/rec.err")"
	exit 0
fi
"$EMBER" collapse perf "$fp" 2>&1 > /dev/null | sed -n 's/^ember: read /  frame pointers, system-wide: /p'
printf '  %s MB perf.data\n' "$(echo "$(stat -c %s "$fp") / 1000000" | bc)"

# the writers, interleaved, least CPU time of 5 each
set -- folded pb.gz speedscope.json trace.json cpuprofile firefox.json perf.txt
for x in "$@"; do echo 999999 > "$W/sw-best.$x"; done
for i in 1 2 3 4 5; do
	for x in "$@"; do
		/usr/bin/time -f '%U %S' -o "$W/time" "$EMBER" collapse perf -q "$fp" \
			-o "$W/sw-out.$x" > /dev/null 2> "$W/stderr" || {
			echo "  -o .$x: failed"; sed 's/^/    /' "$W/stderr" | tail -3; exit 1; }
		t=$(cpu "$W/time")
		[ "$(echo "$t < $(cat "$W/sw-best.$x")" | bc)" = 1 ] && echo "$t" > "$W/sw-best.$x"
	done
done
folded=$(cat "$W/sw-best.folded")
printf '  %-44s %7.3f s CPU\n' "ember collapse perf perf.data (folded)" "$folded"
for x in "$@"; do
	[ "$x" = folded ] && continue
	printf '  %-44s %7.3f s CPU  %5.2fx folded\n' "-o .$x" "$(cat "$W/sw-best.$x")" \
		"$(echo "$(cat "$W/sw-best.$x") / $folded" | bc -l)"
done
best=999999
for i in 1 2 3 4 5; do
	/usr/bin/time -f '%U %S' -o "$W/time" sh -c "perf script -i '$fp' 2> /dev/null | '$EMBER' collapse perf > /dev/null 2>&1"
	t=$(cpu "$W/time")
	[ "$(echo "$t < $best" | bc)" = 1 ] && best=$t
done
printf '  %-44s %7.3f s CPU\n' "perf script | ember collapse perf" "$best"
printf '  frame pointers: ember collapse perf.data is %.0fx faster (target 20x)\n' \
	"$(echo "$best / $folded" | bc -l)"

dw=$W/sw-dwarf.perf.data
if perf record -q -a --call-graph dwarf -F 199 -o "$dw" -- sh -c "$(work 3)" > /dev/null 2> "$W/rec.err"; then
	"$EMBER" collapse perf "$dw" 2>&1 > /dev/null | sed -n 's/^ember: read /  DWARF, system-wide: /p'
	printf '  %s MB perf.data\n' "$(echo "$(stat -c %s "$dw") / 1000000" | bc)"
	ours=999999
	for i in 1 2 3 4 5; do
		/usr/bin/time -f '%U %S' -o "$W/time" "$EMBER" collapse perf -q "$dw" > /dev/null 2>&1
		t=$(cpu "$W/time")
		[ "$(echo "$t < $ours" | bc)" = 1 ] && ours=$t
	done
	# --no-inline: perf 6.1 names inlined frames by running addr2line,
	# which on a machine's worth of DSOs takes hours; at most 5 minutes
	/usr/bin/time -f '%U %S' -o "$W/time" sh -c "timeout 300 perf script --no-inline -i '$dw' 2> /dev/null | '$EMBER' collapse perf > /dev/null 2>&1"
	theirs=$(cpu "$W/time")
	printf '  %-44s %7.3f s CPU\n' "ember collapse perf perf.data" "$ours" \
		"perf script | ember collapse perf (once)" "$theirs"
	printf '  DWARF: ember collapse perf.data is %.0fx faster (target 100x)\n' \
		"$(echo "$theirs / $ours" | bc -l)"
else
	echo "  DWARF: perf record failed: $(head -1 "$W/rec.err")"
fi

big=$W/sw-big.perf.data
if perf record -q -a -g -F 40000 -o "$big" -- timeout 40 "$W/deep" 1000 > /dev/null 2> "$W/rec.err"; then
	"$EMBER" collapse perf "$big" 2>&1 > /dev/null | sed -n 's/^ember: read /  memory: /p'
	for x in folded pb.gz speedscope.json firefox.json; do
		/usr/bin/time -f '%M' -o "$W/time" "$EMBER" collapse perf -q "$big" \
			-o "$W/sw-big.$x" > /dev/null 2>&1 || { echo "  -o .$x: failed"; continue; }
		printf '  %-44s %7.1f MB peak (target 200 MB)\n' "-o .$x" \
			"$(echo "$(cat "$W/time") / 1024" | bc -l)"
	done
	rm -f "$big" "$W"/sw-big.*
else
	echo "  memory: perf record failed: $(head -1 "$W/rec.err")"
fi
exit 0
