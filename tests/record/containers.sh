#!/bin/sh
# ember record on processes in other mount and PID namespaces, as in
# containers: their programs at paths only they see (another file at the
# same path outside), their perf maps and jitdumps in their own /tmp under
# the pid of their namespace, with the same trust checks as outside.  The
# namespaces are made with unshare; skips, saying why, where unshare, the
# namespaces or perf_event_open are not available.
. tests/cli/lib.sh
suite=containers
R="$T/bin"
mkdir -p "$R" "$T/ns"
CC=${CC:-cc}
CFLAGS_FP="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

skip_all() {
	echo "containers: skipped: $*"
	echo "containers: 0 passed, 0 failed"
	exit 0
}

command -v unshare > /dev/null 2>&1 || skip_all "unshare is not installed (util-linux)"
for p in calltree jitmap noperf; do
	$CC $CFLAGS_FP -o "$R/$p" "tests/record/$p.c" 2> "$T/cc.err" ||
		skip_all "cannot compile tests/record/$p.c: $(head -1 "$T/cc.err")"
done
"$EMBER" record -q -o "$T/probe.folded" -- "$R/calltree" 0.05 > /dev/null 2> "$T/probe.err" ||
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"
unshare --mount --pid --fork --kill-child --mount-proc sh -c 'mount -t tmpfs ember-ns /tmp' 2> "$T/probe.err" ||
	skip_all "cannot make mount and PID namespaces here (needs root or user namespaces): $(head -1 "$T/probe.err")"

# ns_start COMM SCRIPT: runs SCRIPT with sh in new mount and PID namespaces
# (they die with unshare, which ignores SIGTERM), in the background; nsp is
# the host pid of the namespace's first process once it runs COMM and has
# written a line to standard output ($T/ns.out), or empty
ns_start() {
	: > "$T/ns.out"
	unshare --mount --pid --fork --kill-child --mount-proc sh -c "$2" > "$T/ns.out" 2> "$T/ns.err" &
	nsu=$!
	nsp=
	i=0
	while [ $i -lt 400 ]; do
		c=$(cat "/proc/$nsu/task/$nsu/children" 2> /dev/null | awk '{ print $1 }')
		if [ -n "$c" ] && [ "$(cat "/proc/$c/comm" 2> /dev/null)" = "$1" ] && [ -s "$T/ns.out" ]; then
			nsp=$c
			return 0
		fi
		sleep 0.05
		i=$((i + 1))
	done
	bad "$1 did not start in its namespaces: $(head -2 "$T/ns.err")"
	return 1
}
ns_stop() { [ -z "$nsu" ] || { kill -KILL "$nsu" 2> /dev/null; wait "$nsu" 2> /dev/null; nsu=; }; }
nsu=
trap 'ns_stop; rm -rf "$T"' EXIT
nspid() { awk '/^NSpid:/ { print $NF }' "/proc/$1/status"; }

# --- a program only the namespace sees; another file at its path outside --
cp "$R/noperf" "$T/ns/calltree-ns"
if ns_start calltree-ns "mount -t tmpfs ember-ns '$T/ns' && cp '$R/calltree' '$T/ns/calltree-ns' && echo started && exec '$T/ns/calltree-ns' 0"; then
	check "the program is in another PID namespace" test "$(nspid "$nsp")" = 1
	status 0 "-p on a process in other namespaces" "$EMBER" record -d 1 -o "$T/c.folded" -p "$nsp"
	grep -q '^calltree-ns;_start;.*;main;work_a;leaf_hot;spin [0-9]' "$T/c.folded" && ok ||
		bad "-p: the program's functions named from the file it runs ($(head -c 300 "$T/c.folded"))"
	check "-p: nothing named from the other file at its path" sh -c "! grep -q '\[calltree-ns\]' '$T/c.folded'"
	status 0 "-a with a process in other namespaces" "$EMBER" record -a -d 1 -o "$T/ca.folded"
	grep -q '^calltree-ns;.*;main;work_a;leaf_hot;spin [0-9]' "$T/ca.folded" && ok ||
		bad "-a: the program's functions named ($(grep '^calltree-ns' "$T/ca.folded" | head -c 300))"
	ns_stop
fi

# --- a perf map in the namespace's own /tmp, under its own pid -------------
# (the program is read before /tmp is covered, and run from the new /tmp)
jit_ns() { # MODE
	ns_start jitmap "exec 3< '$R/jitmap'; mount -t tmpfs ember-ns /tmp && cat <&3 > /tmp/jitmap && chmod 755 /tmp/jitmap && exec /tmp/jitmap $1 600"
}
if jit_ns good; then
	check "the JIT writes its map as pid $(cat "$T/ns.out") of its namespace" test "$(cat "$T/ns.out")" = 1
	check "no perf map of its host pid" test ! -e "/tmp/perf-$nsp.map"
	status 0 "JIT in other namespaces: recorded" "$EMBER" record -d 1 -o "$T/j.folded" -p "$nsp"
	grep -q ';main;jit_trampoline;c_callback;c_spin' "$T/j.folded" && ok || bad "JIT frame named from the namespace's perf map ($(head -c 300 "$T/j.folded"))"
	grep -q ';main;run_jit_leaf;jit_spin_loop [0-9]' "$T/j.folded" && ok || bad "JIT leaf named from the namespace's perf map"
	# perf's recording of it, read back while it runs
	if command -v perf > /dev/null 2>&1 &&
		perf record -q -g -p "$nsp" -o "$T/j.data" -- sleep 1 > /dev/null 2> "$T/perf.err"; then
		status 0 "perf.data of a JIT in other namespaces: read" "$EMBER" collapse perf "$T/j.data"
		grep -q ';main;jit_trampoline;c_callback;c_spin' "$T/out" && ok ||
			bad "perf.data: JIT frame named from the namespace's perf map ($(head -c 300 "$T/out"))"
	else
		echo "containers: perf.data test skipped: perf is missing or may not record"
	fi
	ns_stop
fi
for m in stale foreign symlink writable; do
	jit_ns $m || continue
	status 0 "JIT $m map in other namespaces: recorded" "$EMBER" record -d 0.5 -o "$T/j$m.folded" -p "$nsp"
	has "ignoring '/proc/$nsp/root/tmp/perf-1.map'" "$T/err" && ok || bad "JIT $m map in other namespaces: warned ($(cat "$T/err"))"
	check "JIT $m map in other namespaces: not used" sh -c "! grep -q 'jit_trampoline\|jit_spin_loop' '$T/j$m.folded'"
	ns_stop
done

# --- a JIT in a container that exits while ember records: its /tmp and the
# perf map in it go with its mount namespace before ember names the frames
# (the program, in that /tmp too, is named [jitmap] then)
status 0 "JIT in other namespaces, exited early: recorded" "$EMBER" record -o "$T/je.folded" -- sh -c \
	"unshare --mount --pid --fork --kill-child --mount-proc sh -c \"exec 3< '$R/jitmap'; mount -t tmpfs ember-ns /tmp && cat <&3 > /tmp/jitmap && chmod 755 /tmp/jitmap && exec /tmp/jitmap good 0.8\" > /dev/null; sleep 0.5"
grep -q ';jit_trampoline;' "$T/je.folded" && ok ||
	bad "JIT exited early in other namespaces: JIT frame named from its perf map ($(grep -o '[^;]*perf-[^;]*' "$T/je.folded" | sort -u | head -3 | tr '\n' ' '))"
grep -q ';jit_spin_loop [0-9]' "$T/je.folded" && ok || bad "JIT exited early in other namespaces: JIT leaf named"
check "JIT exited early in other namespaces: no [perf-PID.map] frame" sh -c "! grep -q 'perf-[0-9]*\.map' '$T/je.folded'"

# --- Python -X perf (a perf map) and -X perf_jit (a jitdump) ---------------
pyroot=${PYENV_ROOT:-$HOME/.pyenv}
pyprog='
import sys, time
def leaf(n):
    s = 0
    for i in range(n): s += i * i
    return s
def middle(): return leaf(20000)
print("started", flush=True)
while True: middle()'
py_ns() { # PYTHON OPTION
	ns_start "$(basename "$1")" "mount -t tmpfs ember-ns /tmp && exec '$1' -X $2 -c '$pyprog'"
}
py_check() { # WHAT PYTHON OPTION
	py_ns "$2" "$3" || return
	check "$1: in another PID namespace" test "$(nspid "$nsp")" = 1
	status 0 "$1 -p: recorded" "$EMBER" record -d 1 -o "$T/py.folded" -p "$nsp"
	grep -q ';py::middle:<string>;.*;py::leaf:<string>' "$T/py.folded" && ok ||
		bad "$1 -p: py:: frames named ($(grep -o 'py::[^;]*' "$T/py.folded" | sort -u | head -5 | tr '\n' ' '))"
	status 0 "$1 -a: recorded" "$EMBER" record -a -d 1 -o "$T/pya.folded"
	grep -q ';py::middle:<string>;.*;py::leaf:<string>' "$T/pya.folded" && ok || bad "$1 -a: py:: frames named"
	ns_stop
}
# the interpreter itself (not a pyenv shim), if it is VERSION or later
python_at_least() { # VERSION CANDIDATES...
	v=$1; shift
	for c in "$@"; do
		"$c" -c "import sys; sys.exit(sys.version_info < ($v,))" 2> /dev/null &&
			"$c" -c 'import sys; print(sys.executable)' 2> /dev/null && return
	done
}
py12=$(python_at_least 3,12 python3.12 "$pyroot"/versions/3.12*/bin/python3)
if [ -n "$py12" ]; then
	py_check "python 3.12 -X perf in other namespaces" "$py12" perf
else
	echo "containers: python 3.12 tests skipped: no Python 3.12 (pyenv install 3.12)"
fi
py13=$(python_at_least 3,13 python3.13 "$pyroot"/versions/3.1[3-9]*/bin/python3)
# CPython buffers its jitdump until it exits: the namespaced process is
# the command recorded, and runs a fixed amount of work
if [ -n "$py13" ]; then
	status 0 "python 3.13 -X perf_jit in other namespaces: recorded" "$EMBER" record -o "$T/pyj.folded" -- \
		unshare --mount --pid --fork --kill-child --mount-proc sh -c \
		"mount -t tmpfs ember-ns /tmp && exec '$py13' -X perf_jit -c '$(echo "$pyprog" | sed 's/^while True: middle()/for i in range(300): middle()/')'"
	grep -q ';py::middle:<string>;.*;py::leaf:<string>' "$T/pyj.folded" && ok ||
		bad "python 3.13 -X perf_jit in other namespaces: py:: frames named from its jitdump ($(grep -o 'py::[^;]*' "$T/pyj.folded" | sort -u | head -5 | tr '\n' ' '))"
else
	echo "containers: jitdump tests skipped: no Python 3.13 or later"
fi

finish
