#!/bin/sh
# ember record reads CPython's frames at each sample (BPF) and merges
# them into the native stacks, for Pythons started with no flag: pyenv's
# 3.11, 3.12 and 3.13 (libpython shared) and Debian's python3 (3.11,
# static, stripped).  Attached with -p and as a command (--no-jit-env):
# >= 95% of the samples in the interpreter carry py:: frames, in the
# order <module> -> main -> baz -> bar -> foo; Python called back from C
# (sorted's key, functools.reduce) under its caller; two threads apart
# under --tid; no file left in /tmp, the command's output and status
# unchanged; --no-python reads none; each frame carries its line (pprof
# -lines); -a finds Pythons started before, as and after ember starts.
# Skips, saying why, where BPF is not permitted or no such Python exists.
. tests/cli/lib.sh
suite=python

skip_all() {
	echo "python: skipped: $*"
	echo "python: 0 passed, 0 failed"
	exit 0
}

# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
# A >= P% of B
atleast() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { exit !(b > 0 && 100 * a >= p * b) }'; }

pythons=
root=$(pyenv root 2> /dev/null || echo "$HOME/.pyenv")
for v in 3.11 3.12 3.13; do
	p=$(ls -d "$root"/versions/$v.*/bin/python3 2> /dev/null | tail -1)
	[ -n "$p" ] && pythons="$pythons $p"
done
if [ -x /usr/bin/python3 ] &&
	/usr/bin/python3 -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 13))'; then
	pythons="$pythons /usr/bin/python3"
fi
[ -n "$pythons" ] || skip_all "no CPython 3.11-3.13 (pyenv or /usr/bin/python3)"
set -- $pythons
"$EMBER" record -v --no-jit-env -o "$T/probe.folded" -- "$1" -c 'pass' > /dev/null 2> "$T/probe.err" ||
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"
if grep -q "Python frames were not read" "$T/probe.err"; then
	skip_all "$(grep "Python frames were not read" "$T/probe.err" | head -1)"
fi

NESTED=tests/unwind/nested.py
CALLBACK=tests/record/pycallback.py
THREADS=tests/record/pythreads.py
CHAIN='py::<module>:[^;]*nested.py;py::main:[^;]*;py::baz:[^;]*;py::bar:[^;]*;py::foo:'

# the samples of FILE in the interpreter (under PyEval_EvalCode) and how
# many carry py:: frames in the order of nested.py
check_nested() {
	what=$1 f=$2
	all=$(weight "$f" 'PyEval_EvalCode')
	withpy=$(weight "$f" 'PyEval_EvalCode.*py::')
	chain=$(weight "$f" "$CHAIN")
	foo=$(weight "$f" 'py::foo:')
	check "$what: >= 95% of interpreter samples have py:: frames ($withpy of $all)" atleast "$withpy" "$all" 95
	check "$what: foo under bar, baz, main, <module> ($chain of $foo)" atleast "$chain" "$foo" 95
	check "$what: foo is most of the samples ($foo of $all)" atleast "$foo" "$all" 50
}

for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	name="$v ($py)"
	# attached to a Python started with no flag
	rm -f /tmp/perf-*.map.ember-test
	"$py" $NESTED 4 > /dev/null &
	pid=$!
	# a map of an earlier process with this pid is none of this run's
	stale=
	[ -e /tmp/perf-$pid.map ] || [ -e /tmp/jit-$pid.dump ] && stale=1
	sleep 0.5
	"$EMBER" record -v -p $pid -d 2 -o "$T/p.folded" > "$T/p.out" 2> "$T/p.err"
	check "$name -p: ember exits 0" test $? -eq 0
	wait $pid
	check_nested "$name -p" "$T/p.folded"
	check "$name -p: the summary tells" has "Python frames: 1 process read" "$T/p.err"
	check "$name -p: top Python functions listed" has "top Python functions" "$T/p.err"
	toppy=$(awk 'f { print $2; exit } /top Python functions/ { f = 1 }' "$T/p.err")
	check "$name -p: the top Python function is foo ($toppy)" test "${toppy%%:/*}" = "py::foo"
	if [ -n "$stale" ]; then
		echo "python: $name -p: a map of an earlier process $pid was there: not checked"
	else
		check "$name -p: no perf map or jitdump left" test ! -e /tmp/perf-$pid.map -a ! -e /tmp/jit-$pid.dump
	fi

	# as a command, nothing set in its environment
	"$EMBER" record -q --no-jit-env -o "$T/c.folded" -- "$py" $NESTED 2 > /dev/null 2> "$T/c.err"
	check "$name command: ember exits 0" test $? -eq 0
	check_nested "$name command" "$T/c.folded"

	# Python -> C -> Python, in that order
	"$EMBER" record -q --no-jit-env -o "$T/cb.folded" -- "$py" $CALLBACK 2 > /dev/null 2> "$T/cb.err"
	key=$(weight "$T/cb.folded" 'py::key:')
	keyok=$(weight "$T/cb.folded" 'py::main:[^;]*;py::sorter:[^;]*;[^p][^;]*;.*py::key:')
	add=$(weight "$T/cb.folded" 'py::add:')
	addok=$(weight "$T/cb.folded" 'py::main:[^;]*;py::reducer:[^;]*;[^p][^;]*;.*py::add:')
	check "$name: key() under sorter() and C ($keyok of $key)" atleast "$keyok" "$key" 90
	check "$name: add() under reducer() and C ($addok of $add)" atleast "$addok" "$add" 90
	check "$name: key() sampled" test "$key" -gt 0
	check "$name: no C frame order reversed" test "$(weight "$T/cb.folded" 'py::key:.*py::sorter:')" -eq 0

	# threads apart
	"$EMBER" record -q --tid --no-jit-env -o "$T/t.folded" -- "$py" $THREADS 2 > /dev/null 2> "$T/t.err"
	a=$(weight "$T/t.folded" 'py::alpha:')
	b=$(weight "$T/t.folded" 'py::beta:')
	check "$name --tid: both threads' functions ($a, $b)" test "$a" -gt 0 -a "$b" -gt 0
	check "$name --tid: no thread has both" test -z "$(awk '/py::alpha:/ { sub(/;.*/, ""); a[$0] = 1 }
		/py::beta:/ { sub(/;.*/, ""); b[$0] = 1 } END { for (k in a) if (k in b) print k }' "$T/t.folded")"

	# the command's output and status unchanged
	prog='import sys; print("out", sum(range(10))); sys.exit(3)'
	"$py" -c "$prog" > "$T/alone.out" 2>&1
	"$EMBER" record -q --no-jit-env -o "$T/s.folded" -- "$py" -c "$prog" > "$T/under.out" 2> /dev/null
	check "$name: exit status kept" test $? -eq 3
	check "$name: output kept" cmp -s "$T/alone.out" "$T/under.out"
done

# lines: each Python frame carries the line it executes, in the profile
# (pprof: go tool pprof -lines); the folded names stay without it.
# tests/record/pylines.py's hot() is on line 10, warm() on line 16.
LINES=tests/record/pylines.py
if command -v go > /dev/null 2>&1; then
	export GOCACHE="$T/gocache" GOTOOLCHAIN=local
	for py in $pythons; do
		v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
		name="$v ($py) lines"
		"$EMBER" record -q --no-jit-env -o "$T/l.pb.gz" -- "$py" $LINES 2 > /dev/null 2> "$T/l.err"
		check "$name: ember exits 0" test $? -eq 0
		go tool pprof -lines -top "$T/l.pb.gz" > "$T/l.top" 2> "$T/l.pperr"
		# the line of the most flat time of py::hot and of py::warm
		for fl in hot:10 warm:16; do
			got=$(awk -v f="py::${fl%:*}:" 'index($6, f) == 1 && $1 + 0 > best { best = $1 + 0; l = $NF } END { sub(/.*:/, "", l); print l }' "$T/l.top")
			check "$name: py::${fl%:*} is on line ${fl#*:} (pprof -lines: $got)" test "$got" = "${fl#*:}"
		done
		"$EMBER" record -q --no-jit-env -o "$T/l.folded" -- "$py" $LINES 1 > /dev/null 2>&1
		check "$name: folded names without lines" grep -q 'py::hot:[^;]*pylines\.py[; ]' "$T/l.folded"
	done
else
	echo "python: lines: skipped: no go (Debian package golang-go)"
fi

# -a: a Python started before ember, one started while ember starts (its
# sampling events open, the running processes being read: what starts,
# execs or maps libpython then comes only in the events' records) and one
# started during the recording each get py:: frames in >= 95% of their
# interpreter samples (folded roots COMM-PID)
# the weights of pid P's samples in FILE under PyEval_EvalCode, and of
# those with py:: frames
pidweight() { awk -v p="-$2;" 'index($0, p) && /PyEval_EvalCode/ { a += $NF }
	index($0, p) && /PyEval_EvalCode.*py::/ { b += $NF } END { printf "%.0f %.0f\n", a, b }' "$1"; }
# waits until process $1 has a perf event open (at most 5 s)
perf_opened() {
	i=0
	while [ $i -lt 1000 ]; do
		ls -l /proc/$1/fd 2> /dev/null | grep -q 'perf_event' && return 0
		i=$((i + 1))
		sleep 0.005
	done
	return 1
}
# (a sanitizer build of ember takes several times as long to handle the
# records that announce a new process: its first samples come before it
# is known as Python's; 80% is asked of it for the two started late)
late=95
if grep -q __asan_init "$EMBER" 2> /dev/null; then
	late=80
	echo "python: -a: a sanitizer build: 80% asked of the Pythons started late"
fi
for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	name="$v ($py) -a"
	# each runs until ember has ended, however long ember takes to start
	"$py" $NESTED 60 > /dev/null &
	before=$!
	sleep 0.5
	"$EMBER" record -q --pid -a -d 3 -o "$T/a.folded" > /dev/null 2> "$T/a.err" &
	rec=$!
	perf_opened $rec
	"$py" $NESTED 60 > /dev/null &
	starting=$!
	sleep 1
	"$py" $NESTED 60 > /dev/null &
	during=$!
	wait $rec
	check "$name: ember exits 0" test $? -eq 0
	kill $before $starting $during
	wait $before $starting $during 2> /dev/null # killed: no "Terminated"
	for w in "before:$before" "as_it_starts:$starting" "during:$during"; do
		set -- $(pidweight "$T/a.folded" ${w#*:})
		want=$late
		[ "${w%%:*}" = before ] && want=95
		check "$name: the Python started ${w%%:*}: >= $want% of its interpreter samples have py:: frames ($2 of $1)" atleast "$2" "$1" $want
	done
done

# containers: a Python in its own pid and mount namespaces (its own /tmp,
# pid 1 there), attached with -p from the host
if command -v unshare > /dev/null 2>&1 && unshare --fork --pid --mount --mount-proc true 2> /dev/null; then
	for py in $pythons; do
		v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
		name="$v ($py) in a container"
		unshare --fork --pid --mount --mount-proc sh -c 'mount -t tmpfs tmpfs /tmp && exec "$0" "$1" 3.5' "$py" "$top/$NESTED" > /dev/null 2> "$T/ns.py.err" &
		u=$!
		# unshare's child, pid 1 of the namespace, once it runs Python
		pid=
		i=0
		while [ -z "$pid" ] && [ $i -lt 100 ]; do
			sleep 0.05
			c=$(pgrep -P $u | head -1)
			[ -n "$c" ] && [ "$(readlink /proc/$c/exe 2> /dev/null)" = "$(readlink -f "$py")" ] && pid=$c
			i=$((i + 1))
		done
		check "$name: started" test -n "$pid"
		[ -n "$pid" ] || continue
		sleep 0.3
		"$EMBER" record -q -p $pid -d 2 -o "$T/ns.folded" > /dev/null 2> "$T/ns.err"
		rc=$?
		check "$name: ember exits 0 ($(head -1 "$T/ns.err"))" test $rc -eq 0
		wait
		all=$(weight "$T/ns.folded" 'PyEval_EvalCode')
		withpy=$(weight "$T/ns.folded" 'PyEval_EvalCode.*py::')
		check "$name: >= 95% of interpreter samples have py:: frames ($withpy of $all)" atleast "$withpy" "$all" 95
		check "$name: foo under bar, baz, main" test "$(weight "$T/ns.folded" "$CHAIN")" -gt 0
	done
else
	echo "python: containers: skipped: unshare cannot make pid and mount namespaces here"
fi

# not permitted: a user without CAP_BPF (nobody, perf_event_paranoid -1
# for the test's time) records as before, told once that Python frames
# need BPF; with a Python that nobody may run (pyenv's may be under
# root's home)
nobody() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups --inh-caps=-all "$@"; }
npy=
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1 &&
	[ -w /proc/sys/kernel/perf_event_paranoid ]; then
	for py in $pythons; do
		nobody sh -c '"$1" -c pass' sh "$py" 2> /dev/null && npy=$py && break
	done
fi
if [ -n "$npy" ]; then
	N=$(mktemp -d)
	chmod 755 "$N"
	chown nobody "$N"
	cp "$EMBER" "$N/ember"
	cp $NESTED "$N/nested.py"
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	trap 'echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid; rm -rf "$T" "$N"' EXIT
	echo -1 > /proc/sys/kernel/perf_event_paranoid
	(cd "$N" && nobody ./ember record --no-jit-env -o "$N/np.folded" -- "$npy" "$N/nested.py" 1 > /dev/null 2> "$N/np.err")
	rc=$?
	echo "$paranoid" > /proc/sys/kernel/perf_event_paranoid
	check "not permitted: ember exits 0" test $rc -eq 0
	check "not permitted: told once ($(grep -c 'Python frames' "$N/np.err") times)" test "$(grep -c 'Python frames' "$N/np.err")" -eq 1
	check "not permitted: what Python frames need" has "Python frames need BPF: root, or CAP_BPF and CAP_PERFMON, on Linux 5.8 or later" "$N/np.err"
	check "not permitted: the interpreter's C frames recorded" test "$(weight "$N/np.folded" '_PyEval_EvalFrameDefault')" -gt 0
	check "not permitted: no py:: frames" test "$(weight "$N/np.folded" 'py::')" -eq 0
else
	echo "python: not permitted: skipped: needs root, setpriv, a nobody user who may run a Python, and a writable kernel.perf_event_paranoid"
fi

# --no-python: the interpreter's C frames only (3.12 has no perf map
# without -X perf)
for py in $pythons; do
	case $py in *3.12*) ;; *) continue ;; esac
	"$EMBER" record -q --no-python --no-jit-env -o "$T/n.folded" -- "$py" $NESTED 1 > /dev/null 2>&1
	check "--no-python: no py:: frames" test "$(weight "$T/n.folded" 'py::')" -eq 0
	check "--no-python: samples still" test "$(weight "$T/n.folded" '_PyEval_EvalFrameDefault')" -gt 0
done
finish
