# ember record -p on a running CPython (started with no flag): the
# target's loop rate (bench/pyloop.py, calls per second) alone, under
# ember record -p at 999 Hz with Python frames read by BPF at each sample,
# and with --no-python (stack copies and unwinding only).  Best of N runs
# each, alternating, as the machine's other load makes single runs noisy.
. bench/lib.sh
N=${BENCH_RUNS:-5}
SECS=${BENCH_PY_SECONDS:-3}
PY=${BENCH_PYTHON:-$(ls -d "$(pyenv root 2> /dev/null || echo "$HOME/.pyenv")"/versions/3.12.*/bin/python3 2> /dev/null | tail -1)}
[ -n "$PY" ] || PY=$(command -v python3)
[ -n "$PY" ] || { echo "  skipped: no python3"; exit 0; }
"$EMBER" record -v --no-jit-env -o "$W/probe.folded" -- "$PY" -c pass > /dev/null 2> "$W/stderr" ||
	{ echo "  skipped: $(head -1 "$W/stderr")"; exit 0; }
if grep -q "Python frames were not read" "$W/stderr"; then
	echo "  skipped: $(grep "Python frames were not read" "$W/stderr" | head -1)"
	exit 0
fi
# mean, standard deviation and highest of the numbers in $1
summary() { echo $1 | tr ' ' '\n' | awk 'NF { n++; s += $1; q += $1 * $1; if ($1 > m) m = $1 }
	END { mean = s / n; v = q / n - mean * mean; printf "%.0f %.0f %.0f\n", mean, (v > 0 ? sqrt(v) : 0), m }'; }

# one run: the rate of the target, attached to with OPTIONS (or "alone")
run() {
	"$PY" bench/pyloop.py "$SECS" > "$W/py.out" &
	pid=$!
	if [ "$1" != alone ]; then
		sleep 0.2
		"$EMBER" record -q -F 999 $1 -p $pid -o "$W/py.folded" 2> "$W/py.err" &
		rec=$!
		sleep 1
		bpftool prog show 2> /dev/null | awk '/name ember_interp_sa/ {
			for (i = 1; i < NF; i++) { if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) } }
			END { if (c) print t, c }' > "$W/bpf.stats"
		[ -s "$W/bpf.stats" ] && cp "$W/bpf.stats" "$W/bpf.last"
		wait $rec
	fi
	wait $pid
	cat "$W/py.out"
}
# the program's own time per sample, from the kernel's BPF statistics
stats=/proc/sys/kernel/bpf_stats_enabled
old_stats=$(cat $stats 2> /dev/null)
[ -w $stats ] && echo 1 > $stats
alone= bpf= nopy=
for r in $(seq "$N"); do
	alone="$alone $(run alone)"
	bpf="$bpf $(run "--call-graph dwarf")"
	nopy="$nopy $(run "--no-python")"
done
set -- $(summary "$alone")
a_mean=$1
echo "  $($PY -c 'import sys; print(sys.version.split()[0])'), $N interleaved runs of ${SECS} s, calls per second of the target's CPU time"
printf '  %-40s %9s %7s %9s\n' "" mean spread best
row() {
	label=$1
	set -- $(summary "$2")
	printf '  %-40s %9d %6.1f%% %9d  %+.1f%%\n' "$label" "$1" "$(echo "100 * $2 / $1" | bc -l)" "$3" \
		"$(echo "100 * ($1 - $a_mean) / $a_mean" | bc -l)"
}
row "alone" "$alone"
row "ember record -p -F 999 (Python frames)" "$bpf"
row "ember record -p -F 999 --no-python" "$nopy"
if [ -s "$W/bpf.last" ]; then
	set -- $(cat "$W/bpf.last")
	printf '  %-40s %9.0f ns per sample (%.2f%% of the target at 999 Hz)\n' \
		"the BPF program, in the target" "$(echo "$1 / $2" | bc -l)" "$(echo "$1 / $2 * 999 / 10000000" | bc -l)"
fi
[ -n "$old_stats" ] && [ -w $stats ] && echo "$old_stats" > $stats
rm -f "$W/bpf.last"
