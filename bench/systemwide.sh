#!/bin/sh
# systemwide: perf.data of the whole machine (perf record -a) made here
# while the compiler builds a few of ember's sources and bench/deep.c runs
# (and whatever else the machine runs): `ember collapse perf perf.data`
# against `perf script | ember collapse perf` with frame pointers (-g) and
# with DWARF (--call-graph dwarf), perf script both as typed (its inlined
# frames named by addr2line: given up after SW_CAP seconds, then "> Nx")
# and with --no-inline; the writers' CPU time (user + system,
# least of 5 on the short recording and of 3 on the long one, the
# formats' runs interleaved) as a ratio to folded
# output's; and the peak memory of writing folded output, pprof,
# speedscope, Firefox and Chrome trace events
# from a recording of about 1.2M samples, what 10 minutes at 999 Hz on 2
# CPUs make, recorded here at a high rate (-F 40000) for 40 seconds.
# The frame-pointer ratio is given twice: on the short recording (6 s,
# where ember's fixed costs, /proc/kallsyms and the symbol tables of the
# programs sampled, weigh most) and on a longer one of the same
# workload (SW_LONG seconds, 60 by default: a tenth of the 10-minute
# recording above), closer to what a recording of a machine is.
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
	echo "timeout $1 '$W/deep' 1000 & timeout $1 sh -c 'while :; do for f in src/lib/*.c src/lib/*/*.c; do cc -O2 -g -Iinclude -Isrc/lib -D_GNU_SOURCE -c \"\$f\" -o \"$W/sw-cc/x.o\" 2> /dev/null; done; done'; wait"
}

# cputime COMMAND...: runs COMMAND (output to /dev/null) and sets c to the
# CPU seconds, user and system, of it and its children: perf stat's
# task-clock, to the microsecond (GNU time prints hundredths, and ember's
# folded output of the short recording takes two or three of them)
cputime() {
	perf stat -x, -e task-clock -o "$W/stat" "$@" > /dev/null 2>&1
	c=$(awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ { printf "%.4f", $1 / 1000 }' "$W/stat")
	c=${c:-999999}
}

# theirs FILE RUNS [OPTIONS]: sets t to the least CPU time of RUNS runs
# of `perf script OPTIONS -i FILE | ember collapse perf`, each given up
# after SW_CAP seconds (default 300: perf 6.1's inlined frames run
# addr2line, which on a machine's worth of DSOs takes hours), and capped
# to 1 when it was (t is then what it had taken by then)
theirs() {
	f=$1 runs=$2; shift 2
	t=999999 capped=0
	for r in $(seq "$runs"); do
		cputime sh -c "{ timeout ${SW_CAP:-300} perf script $* -i '$f' 2> /dev/null; echo \$? > '$W/ps.rc'; } | '$EMBER' collapse perf > /dev/null 2>&1"
		[ "$(cat "$W/ps.rc")" = 124 ] && capped=1
		[ "$(echo "$c < $t" | bc)" = 1 ] && t=$c
		[ "$capped" = 1 ] && break
	done
}

# ratio LABEL THEIRS OURS TARGET: "LABEL: ember collapse perf.data is Nx
# faster than ..." (> Nx when perf script was given up)
ratio() {
	if [ "$capped" = 1 ]; then
		printf '  %s: > %.0fx (perf script given up after %s s; target %s)\n' \
			"$1" "$(echo "$2 / $3" | bc -l)" "${SW_CAP:-300}" "$4"
	else
		printf '  %s: %.0fx (target %s)\n' "$1" "$(echo "$2 / $3" | bc -l)" "$4"
	fi
}

# ours FILE: sets ours to the least CPU time of 5 runs of `ember collapse
# perf FILE` (folded output)
ours() {
	ours=999999
	for i in 1 2 3 4 5; do
		cputime "$EMBER" collapse perf -q "$1"
		[ "$(echo "$c < $ours" | bc)" = 1 ] && ours=$c
	done
}

# against LABEL FILE RUNS OURS TARGET [OPTIONS]: times `perf script
# OPTIONS | ember collapse perf` on FILE (theirs) and prints it and the
# ratio to OURS
against() {
	label=$1 file=$2 n=$3 o=$4 target=$5; shift 5
	theirs "$file" "$n" "$@"
	printf '  %-46s %7.3f s CPU%s\n' "perf script${1:+ $*} | ember collapse perf" "$t" \
		"$([ "$capped" = 1 ] && echo " (given up)")"
	ratio "$label, against perf script${1:+ $*}" "$t" "$o" "$target"
}

fp=$W/sw-fp.perf.data
if ! perf record -q -a -g -F 999 -o "$fp" -- sh -c "$(work 6)" > /dev/null 2> "$W/rec.err"; then
	echo "  skipped: perf record -a failed: $(head -1 "$W/rec.err")"
	exit 0
fi
"$EMBER" collapse perf "$fp" 2>&1 > /dev/null | sed -n 's/^ember: read /  frame pointers, system-wide: /p'
printf '  %s MB perf.data\n' "$(echo "$(stat -c %s "$fp") / 1000000" | bc)"

# writers: each writer's CPU time on $file, interleaved, least of $runs
# each, as a ratio to folded output's ($formats: which; folded first);
# sets folded
writers() {
	set -- ${formats:-folded pb.gz speedscope.json trace.json cpuprofile firefox.json perf.txt}
	for x in "$@"; do echo 999999 > "$W/sw-best.$x"; done
	for i in $(seq "$runs"); do
		for x in "$@"; do
			rm -f "$W/sw-out.$x"
			cputime "$EMBER" collapse perf -q "$file" -o "$W/sw-out.$x"
			[ -s "$W/sw-out.$x" ] || {
				echo "  -o .$x: failed"; "$EMBER" collapse perf -q "$file" -o "$W/sw-out.$x" 2>&1 | tail -3; exit 1; }
			[ "$(echo "$c < $(cat "$W/sw-best.$x")" | bc)" = 1 ] && echo "$c" > "$W/sw-best.$x"
			stat -c %s "$W/sw-out.$x" > "$W/sw-size.$x"
		done
	done
	folded=$(cat "$W/sw-best.folded")
	printf '  %-46s %7.3f s CPU\n' "ember collapse perf perf.data (folded)" "$folded"
	for x in "$@"; do
		[ "$x" = folded ] && continue
		printf '  %-46s %7.3f s CPU  %5.2fx folded  %7.1f MB\n' "-o .$x" "$(cat "$W/sw-best.$x")" \
			"$(echo "$(cat "$W/sw-best.$x") / $folded" | bc -l)" \
			"$(echo "$(cat "$W/sw-size.$x") / 1000000" | bc -l)"
	done
	rm -f "$W"/sw-out.* "$W"/sw-size.*
}
file=$fp runs=5 writers
# perf script as typed (with its inlined frames), and without them
against "frame pointers" "$fp" 5 "$folded" 20x
against "frame pointers" "$fp" 5 "$folded" 20x --no-inline

# the same workload for longer: fixed costs weigh less
long=$W/sw-long.perf.data
if perf record -q -a -g -F 999 -o "$long" -- sh -c "$(work "${SW_LONG:-60}")" > /dev/null 2> "$W/rec.err"; then
	"$EMBER" collapse perf "$long" 2>&1 > /dev/null | sed -n "s/^ember: read /  frame pointers, system-wide, ${SW_LONG:-60} s: /p"
	printf '  %s MB perf.data\n' "$(echo "$(stat -c %s "$long") / 1000000" | bc)"
	file=$long runs=3 writers
	against "frame pointers, ${SW_LONG:-60} s" "$long" 3 "$folded" 20x
	against "frame pointers, ${SW_LONG:-60} s" "$long" 3 "$folded" 20x --no-inline
	rm -f "$long"
else
	echo "  long recording: perf record failed: $(head -1 "$W/rec.err")"
fi

dw=$W/sw-dwarf.perf.data
if perf record -q -a --call-graph dwarf -F 199 -o "$dw" -- sh -c "$(work 3)" > /dev/null 2> "$W/rec.err"; then
	"$EMBER" collapse perf "$dw" 2>&1 > /dev/null | sed -n 's/^ember: read /  DWARF, system-wide: /p'
	printf '  %s MB perf.data\n' "$(echo "$(stat -c %s "$dw") / 1000000" | bc)"
	ours "$dw"
	printf '  %-46s %7.3f s CPU\n' "ember collapse perf perf.data" "$ours"
	# once each: perf script with its inlined frames takes hours
	against DWARF "$dw" 1 "$ours" 100x
	against DWARF "$dw" 1 "$ours" 100x --no-inline
else
	echo "  DWARF: perf record failed: $(head -1 "$W/rec.err")"
fi

big=$W/sw-big.perf.data
if perf record -q -a -g -F 40000 -o "$big" -- sh -c "timeout 40 '$W/deep' 1000; true" > /dev/null 2> "$W/rec.err"; then
	"$EMBER" collapse perf "$big" 2>&1 > /dev/null | sed -n 's/^ember: read /  memory: /p'
	for x in folded pb.gz speedscope.json firefox.json trace.json; do
		/usr/bin/time -f '%M' -o "$W/time" "$EMBER" collapse perf -q "$big" \
			-o "$W/sw-big.$x" > /dev/null 2>&1 || { echo "  -o .$x: failed"; continue; }
		printf '  %-46s %7.1f MB peak (target 200 MB)\n' "-o .$x" \
			"$(echo "$(cat "$W/time") / 1024" | bc -l)"
		rm -f "$W/sw-big.$x"
	done
	# the writers' time at this size, where the fixed costs (DWARF,
	# symbol tables) weigh least and what each writes per sample most
	echo "  the writers on this recording:"
	# (not perf script text: a line per frame, gigabytes of it here)
	file=$big runs=2 formats="folded pb.gz speedscope.json trace.json cpuprofile firefox.json" writers
	rm -f "$big" "$W"/sw-big.*
else
	echo "  memory: perf record failed: $(head -1 "$W/rec.err")"
fi
exit 0
