# ember record --off-cpu: the overhead on a program that switches context
# about 100,000 times a second (two threads passing a byte over pipes,
# bench/pingpong.c), against the program alone and against perf's ways of
# recording the same switches: perf sched record (the sched tracepoints,
# no stacks), perf record on sched:sched_switch with stacks (ember's
# mechanism, in perf), the context-switches software event with stacks
# (the alternative mechanism), and perf record --off-cpu where perf was
# built with BPF skeletons.  Best of N runs each, alternating, as the
# machine's other load makes single runs noisy: the program's wall time
# and its CPU time (user and system: what each switch costs in the kernel
# is charged to it, whatever else runs); the switches ember recorded and
# the records it lost, from its summary, and the share perf lost.
. bench/lib.sh
N=${BENCH_RUNS:-5}
PP=$W/pingpong
ROUNDS=${BENCH_PP_ROUNDS:-100000}
cc -O2 -g -pthread -o "$PP" bench/pingpong.c || { echo "  cannot build the test program"; exit 1; }
if ! "$EMBER" record -q --off-cpu -o "$W/probe.folded" -- "$PP" 1000 > /dev/null 2> "$W/stderr"; then
	echo "  skipped: $(head -1 "$W/stderr")"
	exit 0
fi

lower() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }
have_perf=0
command -v perf > /dev/null 2>&1 && perf sched record -o "$W/probe.data" -- true > /dev/null 2>&1 && have_perf=1
perf_offcpu=0
if [ $have_perf = 1 ]; then
	perf record --off-cpu -o "$W/probe.data" -- true > /dev/null 2> "$W/stderr"
	grep -q 'off-cpu.*ignored' "$W/stderr" || perf_offcpu=1
fi

# the ways, one command each; the program prints its wall time last
set -- "alone" "" \
	"ember record --off-cpu" "$EMBER record -q --off-cpu -o $W/rec.folded --" \
	"ember record --off-cpu -g dwarf,32768" "$EMBER record -q --off-cpu --call-graph dwarf,32768 -o $W/rec.folded --" \
	"ember record --off-cpu -g fp" "$EMBER record -q --off-cpu --call-graph fp -o $W/rec.folded --" \
	"ember record --wall" "$EMBER record -q --wall -o $W/rec.folded --"
if [ $have_perf = 1 ]; then
	set -- "$@" \
		"perf sched record (no stacks)" "perf sched record -q -o $W/perf.data --" \
		"perf record -e sched:sched_switch -g dwarf" "perf record -q -e sched:sched_switch -c 1 --call-graph dwarf -o $W/perf.data --" \
		"perf record -e sched:sched_switch -g fp" "perf record -q -e sched:sched_switch -c 1 -g -o $W/perf.data --" \
		"perf record -e context-switches -g dwarf" "perf record -q -e context-switches -c 1 --call-graph dwarf -o $W/perf.data --" \
		"perf record -e context-switches -g fp" "perf record -q -e context-switches -c 1 -g -o $W/perf.data --"
	[ $perf_offcpu = 1 ] && set -- "$@" \
		"perf record --off-cpu" "perf record -q --off-cpu -g -o $W/perf.data --"
fi
nways=$(($# / 2))
i=0
for k in $(seq "$nways"); do eval "best_$k= cpu_$k="; done
for r in $(seq "$N"); do
	k=0
	while [ $k -lt $nways ]; do
		k=$((k + 1))
		eval "cmd=\${$((2 * k))}"
		$cmd "$PP" "$ROUNDS" > "$W/pp.out" 2> /dev/null
		t=$(tail -1 "$W/pp.out") c=$(sed -n 's/ cpu s$//p' "$W/pp.out")
		eval "best_$k=\$(lower \"\$best_$k\" \"$t\")"
		eval "cpu_$k=\$(lower \"\$cpu_$k\" \"$c\")"
	done
done
# one more ember run for its summary: switches recorded, records lost
"$EMBER" record --off-cpu -o "$W/rec.folded" -- "$PP" "$ROUNDS" > "$W/pp.out" 2> "$W/stderr"
rate=$("$PP" "$ROUNDS" | head -1)
eval "alone=\$best_1 alone_cpu=\$cpu_1"
echo "  pingpong $ROUNDS round trips alone: $rate (best of $N runs each below: wall, then CPU time)"
k=0
while [ $k -lt $nways ]; do
	k=$((k + 1))
	eval "label=\${$((2 * k - 1))} t=\$best_$k c=\$cpu_$k"
	if [ $k = 1 ]; then
		printf '  %-46s %7.3f s          %7.3f s cpu\n' "$label" "$t" "$c"
	else
		printf '  %-46s %7.3f s %+7.1f%%  %7.3f s cpu %+7.1f%%\n' "$label" "$t" \
			"$(echo "($t - $alone) * 100 / $alone" | bc -l)" "$c" \
			"$(echo "($c - $alone_cpu) * 100 / $alone_cpu" | bc -l)"
	fi
done
if [ $have_perf = 1 ]; then
	perf record -e sched:sched_switch -c 1 --call-graph dwarf -o "$W/perf.data" -- "$PP" "$ROUNDS" > /dev/null 2> "$W/perf.err"
	pl=$(sed -n 's/.*lost \([0-9.]*%\).*/\1/p' "$W/perf.err" | head -1)
	echo "  perf record -e sched:sched_switch -g dwarf (one run): ${pl:-0%} of its samples lost"
	rm -f "$W/perf.data" "$W/perf.data.old"
fi
[ $have_perf = 1 ] && [ $perf_offcpu = 0 ] && echo "  perf record --off-cpu: not available (this perf was built without BPF skeletons)"
sed -n 's/^ember: \(recorded .*\)/  ember --off-cpu (one run): \1/p; s/^ember: \(off-CPU: .*\)/  ember --off-cpu (one run): \1/p' "$W/stderr" | cut -c1-150
