#!/bin/sh
# ember record --off-cpu and --wall end to end, with a program whose
# threads spin, sleep, wait on a mutex, block reading a pipe and wait for a
# vfork child for known times (tests/record/offcpu.c, unit 0.3 s): the shares of each
# wait against the truth, the stacks through libc into the program's own
# functions (DWARF, no frame pointers), the states, --min-block, -p, -a,
# the context-switches event where tracefs is missing (forced with
# EMBER_OFF_CPU_EVENT), Python's JIT frames, the blue off-CPU frames of a
# wall graph, and each thread's wall time against its life at a high switch
# rate (tests/record/switches.c).
# Skips, saying why, where the switch tracepoint cannot be recorded.
. tests/cli/lib.sh
suite=offcpu
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}
U=0.3

skip_all() {
	echo "offcpu: skipped: $*"
	echo "offcpu: 0 passed, 0 failed"
	exit 0
}

$CC -O2 -g -fomit-frame-pointer -pthread -o "$R/offcpu" tests/record/offcpu.c 2> "$T/cc.err" ||
	skip_all "cannot compile the test program: $(head -1 "$T/cc.err")"
"$EMBER" record -q --off-cpu -o "$T/probe.folded" -- sleep 0.01 > /dev/null 2> "$T/probe.err" ||
	skip_all "off-CPU recording is not possible here: $(head -1 "$T/probe.err")"

# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
# percentage of A in B, rounded; -1 when B is 0
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f\n", 100 * a / b; else print -1 }'; }
# |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
folded_ok() { awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$1"; }

THREAD='^offcpu;clone3;start_thread;'
K='(;[^;]+)*;__schedule;'
# the waits, as the program's functions through libc into the kernel
SLEEP="${THREAD}sleeper;nap;[^;]*nanosleep;[^;]*nanosleep[^;]*${K}\[off-cpu: S\] "
# (with libc's debug file, lll_mutex_lock_optimized inlined between)
LOCK="${THREAD}lock_waiter;[^;]*pthread_mutex_lock[^;]*;([^;]*;)?[^;]*lll_lock_wait${K}\[off-cpu: S\] "
PIPE="${THREAD}pipe_reader;[^;]*read${K}\[off-cpu: S\] "
VFORK="^offcpu;([^ ]*;)?[^;]*vfork${K}\[off-cpu: D\] "

# FILE LABEL TRUTH: the shares of the sleep, lock, pipe and vfork waits
# against those the program measured (TRUTH: its output; about 1/7, 2/7,
# 3/7 and 1/7, more on a busy machine where a thread woken up waits for a
# CPU)
check_waits() {
	set -- "$1" "$2" $(awk 'NR <= 4 { t[NR] = $2; s += $2 } END {
		for (i = 1; i <= 4; i++) printf "%.1f ", (s > 0 ? 100 * t[i] / s : -1) }' "$3")
	f=$1 label=$2 ts=$3 tl=$4 tp=$5 tv=$6
	s=$(weight "$f" "$SLEEP") l=$(weight "$f" "$LOCK")
	p=$(weight "$f" "$PIPE") v=$(weight "$f" "$VFORK")
	all=$((s + l + p + v))
	set -- "$(pct "$s" "$all")" "$(pct "$l" "$all")" "$(pct "$p" "$all")" "$(pct "$v" "$all")"
	echo "offcpu: $label: sleep/lock/pipe/vfork shares $1/$2/$3/$4% (truth $ts/$tl/$tp/$tv%)"
	check "$label: sleep share $1% within 5 points of $ts%" near "$1" "$ts" 5
	check "$label: lock share $2% within 5 points of $tl%" near "$2" "$tl" 5
	check "$label: pipe share $3% within 5 points of $tp%" near "$3" "$tp" 5
	check "$label: vfork (D) share $4% within 5 points of $tv%" near "$4" "$tv" 5
}

# --- --off-cpu: a command ------------------------------------------------
status 0 "--off-cpu" "$EMBER" record --off-cpu -o "$T/off.folded" -- "$R/offcpu" $U
check "--off-cpu: folded" folded_ok "$T/off.folded"
check_waits "$T/off.folded" "--off-cpu" "$T/out"
check "--off-cpu: the sleep reaches sleeper through libc" grep -Eq "$SLEEP" "$T/off.folded"
check "--off-cpu: the lock wait reaches lock_waiter through libc" grep -Eq "$LOCK" "$T/off.folded"
check "--off-cpu: the pipe read reaches pipe_reader through libc" grep -Eq "$PIPE" "$T/off.folded"
check "--off-cpu: every stack ends in an [off-cpu: STATE] frame" \
	sh -c "! grep -Ev ';\[off-cpu: [RSDTtXZPI]\] [0-9]+\$' '$T/off.folded' | grep -q ."
has "off-CPU: " "$T/err" && ok || bad "--off-cpu: no off-CPU line in the summary: $(cat "$T/err")"
# the summary's top functions: the frames that blocked, with the state
sed -n '/top functions/,$p' "$T/err" > "$T/top"
for f in nap pipe_reader lock_waiter; do
	check "--off-cpu: $f among the summary's top functions, with its state" grep -q "%  $f \[off-cpu: S\]\$" "$T/top"
done
sw=$(sed -n 's/.*off-CPU: \([0-9]*\) switches recorded.*/\1/p' "$T/err")
check "--off-cpu: switches counted in the summary (${sw:-none})" test "${sw:-0}" -ge 10
# the main thread joins for about 3U: microseconds of what it measured
j=$(weight "$T/off.folded" '^offcpu;.*;main;[^;]*join')
tj=$(awk '$1 == "join" { printf "%.0f\n", $2 * 1e6 }' "$T/out")
check "--off-cpu: weights in microseconds (main joins ${j} us, measured $tj)" near "$j" "$tj" "$((tj / 20))"

# --- --wall: the same program, on- and off-CPU together ------------------
status 0 "--wall" "$EMBER" record --wall -o "$T/wall.folded" -- "$R/offcpu" $U
check "--wall: folded" folded_ok "$T/wall.folded"
check_waits "$T/wall.folded" "--wall" "$T/out"
on=$(weight "$T/wall.folded" "${THREAD}spinner;burn( |;[^[]*$)")
check "--wall: the spinner's on-CPU samples are there ($on us)" test "$on" -gt 0
# whole thread lives: spinner 3U and compute 1U (by the clock), sleeper
# and rest as measured (2U and 1U on an idle machine)
# FILE LABEL OUT: whole thread lives: spinner 3U and compute 1U (by the
# clock), sleeper and rest as measured (2U and 1U on an idle machine)
check_lives() {
	cp "$3" "$T/wall.out"
	u=$(val unit)
	set -- "$1" "$2" $(awk -v u="$u" -v s="$(val sleep)" -v r="$(val rest)" 'BEGIN {
		t = 3 * u + s + u + r; printf "%.1f %.1f %.1f %.1f %.1f\n",
		100 * 3 * u / t, 100 * s / t, 100 * u / t, 100 * r / t, 100 * u / (u + r) }')
	f=$1 label=$2 tsp=$3 tsl=$4 tco=$5 tre=$6 tmix=$7
	sp=$(weight "$f" "${THREAD}spinner;") sl=$(weight "$f" "${THREAD}sleeper;")
	co=$(weight "$f" "${THREAD}mixed;compute;") re=$(weight "$f" "${THREAD}mixed;rest;")
	all=$((sp + sl + co + re))
	set -- "$(pct "$sp" "$all")" "$(pct "$sl" "$all")" "$(pct "$co" "$all")" "$(pct "$re" "$all")" "$(pct "$co" $((co + re)))"
	echo "offcpu: $label: spinner/sleeper/compute/rest shares $1/$2/$3/$4% (truth $tsp/$tsl/$tco/$tre%); mixed computes $5% (truth $tmix%)"
	check "$label: spinner share $1% within 5 points of $tsp%" near "$1" "$tsp" 5
	check "$label: sleeper share $2% within 5 points of $tsl%" near "$2" "$tsl" 5
	check "$label: compute share $3% within 5 points of $tco%" near "$3" "$tco" 5
	check "$label: rest share $4% within 5 points of $tre%" near "$4" "$tre" 5
	check "$label: mixed computes $5% of its life, within 5 points of $tmix%" near "$5" "$tmix" 5
}
val() { awk -v k="$1" '$1 == k { print $2 }' "$T/wall.out"; }
check_lives "$T/wall.folded" "--wall" "$T/out"

# --- --wall at a high switch rate: per thread, the CPU samples and the
# waits add up to the thread's life (tests/record/switches.c: two threads
# passing a byte over pipes, tens of thousands of switches a second, a few
# microseconds on CPU each time).  Records lost on a busy machine leave
# time out: compared only without that (one try more).
$CC -O2 -g -pthread -o "$R/switches" tests/record/switches.c
for try in 1 2; do
	status 0 "--wall, many switches" "$EMBER" record --wall --tid -o "$T/sw.folded" -- "$R/switches" 1
	has " 0 lost," "$T/err" && ! has "waits were left out" "$T/err" && break
done
if has " 0 lost," "$T/err" && ! has "waits were left out" "$T/err"; then
	rate=$(awk '$1 == "switches" { print $2 }' "$T/out")
	awk '$1 == "life" { print $2, $3 }' "$T/out" > "$T/lives"
	check "--wall, many switches: two threads' lives" test "$(wc -l < "$T/lives")" = 2
	while read -r tid life; do
		# the weight of the stacks under root COMM-PID/TID, in seconds
		got=$(awk -v t="/$tid;" 'index($0, t) { s += $NF } END { printf "%.4f\n", s / 1e6 }' "$T/sw.folded")
		p=$(pct "$got" "$life")
		echo "offcpu: --wall, $rate switches/s: thread $tid lived $life s, its stacks weigh $got s ($p%)"
		check "--wall, many switches: thread $tid's stacks weigh $p% of its life, within 3 points of 100%" near "$p" 100 3
	done < "$T/lives"
else
	echo "offcpu: --wall, many switches: lives not compared: records were lost (a busy machine)"
fi

# --- --min-block: short waits left out -----------------------------------
status 0 "--min-block" "$EMBER" record --off-cpu --min-block 50000 -o "$T/min.folded" -- "$R/offcpu" $U
short=$(sed -n 's/.*, \([0-9]*\) shorter than --min-block.*/\1/p' "$T/err")
check "--min-block: short waits counted (${short:-none})" test "${short:-0}" -gt 0
# each stack sums waits of 50 ms or more
check "--min-block: every stack weighs 50000 us or more" awk '$NF < 50000 { bad = 1 } END { exit bad || NR == 0 }' "$T/min.folded"
check "--min-block: fewer stacks than without" test "$(wc -l < "$T/min.folded")" -lt "$(wc -l < "$T/off.folded")"
check_waits "$T/min.folded" "--min-block 50000" "$T/out"
status 0 "--min-block above every wait: an empty profile, the command's status" "$EMBER" record --off-cpu --min-block 100000000 -o "$T/none.folded" -- "$R/offcpu" 0.05
check "--min-block above every wait: empty output" test -f "$T/none.folded" -a ! -s "$T/none.folded"
status 2 "--min-block takes a number" "$EMBER" record --off-cpu --min-block x -- true
status 2 "--off-cpu and --wall" "$EMBER" record --off-cpu --wall -- true
status 2 "--wall with a non-clock event" "$EMBER" record --wall -e page-faults -- true
has "cpu-clock or task-clock" "$T/err" && ok || bad "--wall -e: $(cat "$T/err")"

# --- -p: attached to the running program ---------------------------------
# (2 s before the waits start: ember's start-up under a sanitizer on a
# busy machine takes more than a second)
"$R/offcpu" $U 2 > "$T/p.out" & bg=$!
sleep 0.2
status 0 "--off-cpu -p" "$EMBER" record --off-cpu -o "$T/p.folded" -p "$bg"
wait "$bg"
check_waits "$T/p.folded" "--off-cpu -p" "$T/p.out"

# --- -a: the whole system while the command runs (8 KiB stack copies:
# the program's stacks are shallow, the machine's switches many)
status 0 "--off-cpu -a" "$EMBER" record --off-cpu -a --call-graph dwarf,8192 -o "$T/a.folded" -- "$R/offcpu" $U
check "--off-cpu -a: the program's waits" grep -Eq '^offcpu;.*;\[off-cpu: S\] ' "$T/a.folded"
# the whole system's switches on a busy machine can overrun the rings;
# waits going on then are left out, and said: compared only without that
if has "waits were left out" "$T/err"; then
	echo "offcpu: --off-cpu -a: stacks and shares not compared: $(sed -n 's/.*warning: \([0-9]* waits were left out\).*/\1/p' "$T/err") (records lost on this busy machine)"
else
	check "--off-cpu -a: the lock wait reaches lock_waiter through libc" grep -Eq "$LOCK" "$T/a.folded"
	check "--off-cpu -a: the pipe read reaches pipe_reader through libc" grep -Eq "$PIPE" "$T/a.folded"
	check_waits "$T/a.folded" "--off-cpu -a" "$T/out"
fi
check "--off-cpu -a: other processes too" sh -c "grep -v '^offcpu;' '$T/a.folded' | grep -q ."

# --- the context-switches event, as where tracefs is missing (forced):
# no S/D states told apart, the same shares
export EMBER_OFF_CPU_EVENT=context-switches
KCS='(;[^;]+)*;(__)?schedule;'
SLEEP="${THREAD}sleeper;nap;[^;]*nanosleep;[^;]*nanosleep[^;]*${KCS}\[off-cpu: blocked\] "
LOCK="${THREAD}lock_waiter;[^;]*pthread_mutex_lock[^;]*;([^;]*;)?[^;]*lll_lock_wait${KCS}\[off-cpu: blocked\] "
PIPE="${THREAD}pipe_reader;[^;]*read${KCS}\[off-cpu: blocked\] "
VFORK="^offcpu;([^ ]*;)?[^;]*vfork${KCS}\[off-cpu: blocked\] "
status 0 "--off-cpu, context switches" "$EMBER" record --off-cpu -o "$T/cs.folded" -- "$R/offcpu" $U
check "context switches: folded" folded_ok "$T/cs.folded"
has "switches from the context-switches event" "$T/err" && ok ||
	bad "context switches: not said in the summary: $(cat "$T/err")"
check "context switches: every stack ends in [off-cpu: blocked] or [off-cpu: R]" \
	sh -c "! grep -Ev ';\[off-cpu: (blocked|R)\] [0-9]+\$' '$T/cs.folded' | grep -q ."
check_waits "$T/cs.folded" "context switches" "$T/out"
check "context switches: the sleep reaches sleeper through libc" grep -Eq "$SLEEP" "$T/cs.folded"
check "context switches: the lock wait reaches lock_waiter through libc" grep -Eq "$LOCK" "$T/cs.folded"
check "context switches: the pipe read reaches pipe_reader through libc" grep -Eq "$PIPE" "$T/cs.folded"
status 0 "--wall, context switches" "$EMBER" record --wall -o "$T/cswall.folded" -- "$R/offcpu" $U
check_waits "$T/cswall.folded" "--wall, context switches" "$T/out"
check_lives "$T/cswall.folded" "--wall, context switches" "$T/out"
status 0 "--off-cpu -a, context switches" "$EMBER" record --off-cpu -a -o "$T/csa.folded" -- "$R/offcpu" $U
check "--off-cpu -a, context switches: the program's waits" grep -Eq '^offcpu;.*;\[off-cpu: blocked\] ' "$T/csa.folded"
if has "waits were left out" "$T/err"; then
	echo "offcpu: --off-cpu -a, context switches: shares not compared (records lost on this busy machine)"
else
	check_waits "$T/csa.folded" "--off-cpu -a, context switches" "$T/out"
fi
unset EMBER_OFF_CPU_EVENT

# --- the SVG: off-CPU frames blue in a wall graph --------------------------
status 0 "--wall to SVG" "$EMBER" record --wall -o "$T/wall.svg" -- "$R/offcpu" 0.05
check "--wall SVG: well-formed" wellformed "$T/wall.svg"
has "us, " "$T/wall.svg" && ok || bad "--wall SVG: counts named us"
# the marker and the frames only under it are in the io palette
# (r = g in 80..140, b in 190..245); burn (on-CPU) is not
"$SVGFRAMES" "$T/wall.svg" > "$T/frames"
# NAME: 1 when some frame NAME is blue, 0 when none is
blue() {
	awk -F '\t' -v n="$1" '{ t = $1; sub(/ \([^(]*$/, "", t) }
		t == n { f = $6; gsub(/[^0-9,]/, "", f); split(f, c, ",")
			if (c[1] == c[2] && c[1] >= 80 && c[1] <= 140 && c[3] >= 190) b = 1 }
		END { print b + 0 }' "$T/frames"
}
check "--wall SVG: [off-cpu: S] in blue" test "$(blue '[off-cpu: S]')" = 1
check "--wall SVG: nap (off-CPU only) in blue" test "$(blue nap)" = 1
check "--wall SVG: burn (on-CPU) not blue" test "$(blue burn)" = 0
check "--wall SVG: mixed (on- and off-CPU) not blue" test "$(blue mixed)" = 0
# the same folded stacks, only off-CPU: the palette asked for
grep -F '[off-cpu' "$T/wall.folded" | "$EMBER" flamegraph > "$T/offonly.svg"
"$SVGFRAMES" "$T/offonly.svg" > "$T/frames"
check "off-CPU only, default palette: not blue" test "$(blue nap)" = 0

# --- JIT frames: Python 3.12's perf map ------------------------------------
pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
py12=
for c in python3.12 "$pyenv_root"/versions/3.12*/bin/python3; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c "import sys; sys.exit(sys.version_info[:2] != (3, 12))" 2> /dev/null; then
		py12=$(command -v "$c")
		break
	fi
done
if [ -n "$py12" ]; then
	cat > "$T/wait.py" <<'EOF'
import time
def waiter():
    time.sleep(0.3)
def main():
    waiter()
main()
EOF
	status 0 "--off-cpu Python 3.12" "$EMBER" record --off-cpu --pid -o "$T/py.folded" -- "$py12" -X perf "$T/wait.py"
	rm -f "/tmp/perf-$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$T/py.folded" | head -1).map"
	w=$(weight "$T/py.folded" ';py::main:[^;]*;(.*;)?py::waiter:[^;]*;.*\[off-cpu: S\] ')
	check "--off-cpu Python: the sleep under py::main and py::waiter ($w us)" near "$w" 300000 60000
	sed -n '/top functions/,$p' "$T/err" | grep -q "%  py::waiter:$T/wait.py \[off-cpu: S\]\$" && ok ||
		bad "--off-cpu Python: py::waiter among the summary's top functions: $(sed -n '/top functions/,$p' "$T/err" | head -4)"
else
	echo "offcpu: Python 3.12 not found: its JIT frames not tested"
fi

finish
