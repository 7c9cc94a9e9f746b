#!/bin/sh
# ember record's DWARF unwinding end to end: C built without frame
# pointers (and its negative control in fp mode), libc's qsort, Python
# 3.12 -X perf and 3.13 -X perf_jit, Node.js perf maps and jitdumps, deep
# recursion with a large and a small stack copy, the fallback to frame
# pointers.  Skips, saying why, where perf_event_open, stack copies or a
# runtime are missing.
. tests/cli/lib.sh
suite=dwarf
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}
NOFP="-O2 -g -fomit-frame-pointer"

skip_all() {
	echo "dwarf: skipped: $*"
	echo "dwarf: 0 passed, 0 failed"
	exit 0
}

$CC -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$R/ct-fp" tests/record/calltree.c 2> "$T/cc.err" &&
	$CC $NOFP -o "$R/ct-nofp" tests/record/calltree.c 2>> "$T/cc.err" &&
	$CC $NOFP -o "$R/qsortcmp" tests/record/qsortcmp.c 2>> "$T/cc.err" ||
	skip_all "cannot compile the test programs: $(head -1 "$T/cc.err")"

"$EMBER" record -q --call-graph dwarf -o "$T/probe.folded" -- "$R/ct-nofp" 0.05 > /dev/null 2> "$T/probe.err"
if [ $? -ne 0 ]; then
	skip_all "DWARF recording is not possible here: $(head -1 "$T/probe.err")"
fi

# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
# percentage of A in B, rounded; -1 when B is 0
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f\n", 100 * a / b; else print -1 }'; }
# |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
folded_ok() { awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$1"; }
# the "N unwound, N truncated" of the summary in $T/err
truncated() { sed -n 's/.* \([0-9]*\) truncated (.*/\1/p' "$T/err"; }
unwound() { sed -n 's/.* \([0-9]*\) unwound, .*/\1/p' "$T/err"; }
# the pid in the first COMM-PID root frame of FILE
rootpid() { sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$1" | head -1; }

# --- C without frame pointers: the stacks of the frame-pointer build ----
START='_start;__libc_start_main[^;]*;__libc_start_call_main'
shares() { # FILE: work_a, work_b and recurse shares (%) under main
	all=$(weight "$1" ';main;')
	echo "$(pct "$(weight "$1" ';main;work_a;leaf_hot;spin')" "$all")" \
		"$(pct "$(weight "$1" ';main;work_b;mid_b;leaf_b;spin')" "$all")" \
		"$(pct "$(weight "$1" ';main;recurse;recurse;recurse;recurse;recurse;leaf_warm;spin')" "$all")"
}
status 0 "fp build, fp mode" "$EMBER" record --call-graph fp -o "$T/fp.folded" -- "$R/ct-fp" 1.5
has "user stacks: frame pointers" "$T/err" && ok || bad "fp mode said in the summary"
check "fp build, fp mode: no warning of broken frame-pointer chains" sh -c "! grep -q 'broke off' '$T/err'"
status 0 "no-fp build, DWARF (default)" "$EMBER" record -o "$T/dw.folded" -- "$R/ct-nofp" 1.5
check "no-fp build, DWARF: folded" folded_ok "$T/dw.folded"
has "user stacks: DWARF, 32768-byte copies" "$T/err" && ok || bad "DWARF mode said in the summary: $(cat "$T/err")"
set -- $(shares "$T/fp.folded")
fa=$1 fb=$2 fc=$3
set -- $(shares "$T/dw.folded")
echo "dwarf: C shares work_a/work_b/recurse: frame pointers $fa/$fb/$fc%, DWARF without frame pointers $1/$2/$3%"
check "DWARF work_a share $1% within 5 points of fp's $fa%" near "$1" "$fa" 5
check "DWARF work_b share $2% within 5 points of fp's $fb%" near "$2" "$fb" 5
check "DWARF recurse share $3% within 5 points of fp's $fc%" near "$3" "$fc" 5
check "fp work_a share $fa% near 60%" near "$fa" 60 5
whole=$(weight "$T/dw.folded" '.')
full=$(weight "$T/dw.folded" "^ct-nofp;$START;main;")
check "DWARF: $(pct "$full" "$whole")% of samples complete to _start" near "$(pct "$full" "$whole")" 100 5
check "DWARF: no stack of main that misses its callers" \
	sh -c "! grep ';main;' '$T/dw.folded' | grep -v '^ct-nofp;$START;main;' | grep -q ."
t=$(truncated) u=$(unwound)
check "DWARF: truncation reported (${t:-none})" test -n "$t"
check "DWARF: at most 2% truncated ($t of $u)" test "$(pct "${t:-0}" "${u:-0}")" -le 2
# negative control: the no-fp build's stacks break when walked by frame
# pointers, which proves the assertions above can fail
status 0 "no-fp build, fp mode" "$EMBER" record --call-graph fp -o "$T/fpbroken.folded" -- "$R/ct-nofp" 1
set -- $(shares "$T/fpbroken.folded")
broken=$(pct "$(weight "$T/fpbroken.folded" ';main;work_a;leaf_hot;spin')" "$(weight "$T/fpbroken.folded" '.')")
echo "dwarf: negative control: no-fp build in fp mode, $broken% of samples in main;work_a;leaf_hot;spin"
check "negative control: fp mode breaks without frame pointers ($broken%)" test "$broken" -lt 20
has "frame-pointer chains that broke off" "$T/err" && has "record with DWARF unwinding (the default, --call-graph dwarf) instead" "$T/err" && ok ||
	bad "no-fp build, fp mode: the summary says the chains broke and suggests DWARF: $(cat "$T/err")"
check "no-fp build, fp mode: no advice on kernel.perf_event_max_stack" sh -c "! grep -q 'perf_event_max_stack' '$T/err'"

# --- through libc's qsort: main;qsort...;msort_with_tmp...;cmp ----------
status 0 "qsort" "$EMBER" record -o "$T/qs.folded" -- "$R/qsortcmp" 1
cmpw=$(weight "$T/qs.folded" ';cmp( |;)')
chain=$(weight "$T/qs.folded" "^qsortcmp;$START;main;[^;]*qsort[^;]*;([^;]*;)+cmp( |;)")
echo "dwarf: qsort: $(pct "$chain" "$cmpw")% of the samples in cmp under main;qsort"
check "qsort: cmp under main;qsort ($(pct "$chain" "$cmpw")%)" test "$(pct "$chain" "$cmpw")" -ge 90
if dpkg-query -W -f='${Status}' libc6-dbg 2> /dev/null | grep -q 'ok installed'; then
	named=$(weight "$T/qs.folded" ";main;[^;]*qsort[^;]*;(msort_with_tmp[^;]*;)+cmp( |;)")
	check "qsort: libc's static msort_with_tmp named from its debug file ($(pct "$named" "$cmpw")%)" \
		test "$(pct "$named" "$cmpw")" -ge 90
else
	echo "dwarf: libc's static functions not checked: libc6-dbg is not installed"
fi

# --- Python --------------------------------------------------------------
# cut_ok WHOLE CUT: each truncated stack of CUT (a recursion sampled with a
# small stack copy) is the end of a real one: the frames between [truncated]
# and its first py:: frame end either some whole stack's frames before its
# first py:: frame (from WHOLE or CUT) or the interpreter frames between
# two py:: frames, and its py:: frames are separated by those same frames.
cut_ok() {
	awk '
	function pyidx(s) { return match(s, /(^|;)py::/) ? RSTART + (RSTART > 1) : 0 }
	{ sub(/ [0-9]+$/, "") }
	FNR == NR || !/\[truncated\]/ {
		if (/\[truncated\]/ || !(i = pyidx($0))) next
		pre[substr($0, 1, i - 1)] = 1
		n = split(substr($0, i), f, ";")
		for (k = 2; k <= n && f[k] !~ /^py::/; k++) ;
		if (k <= n && sep == "") for (j = 2; j < k; j++) sep = sep f[j] ";"
		next
	}
	{
		rest = $0; sub(/^[^;]*;\[truncated\];/, "", rest)
		cuts[++nc] = rest
	}
	END {
		if (sep == "") { print "no whole stack"; exit 1 }
		for (c = 1; c <= nc; c++) {
			rest = cuts[c]
			if (rest ~ /\[unknown\]/) { print "unknown frame: " substr(rest, 1, 200); exit 1 }
			if (!(i = pyidx(rest))) continue
			head = substr(rest, 1, i - 1)
			found = head == ""
			pre[sep] = 1 # a cut inside the recursion
			for (p in pre) if (!found && length(p) >= length(head) &&
				substr(p, length(p) - length(head) + 1) == head &&
				(length(p) == length(head) || substr(p, length(p) - length(head), 1) == ";"))
				found = 1
			if (!found) { print "root side not from a whole stack: " head; exit 1 }
			n = split(substr(rest, i), f, ";")
			last = 1
			for (k = 2; k <= n; k++) if (f[k] ~ /^py::/) last = k
			mid = ""
			for (k = 1; k <= last; k++) mid = mid f[k] ";"
			m = split(mid, g, ";")
			for (k = 1; k < m; ) {
				if (g[k] !~ /^py::/) { print "not a py:: frame: " g[k]; exit 1 }
				if (k == last) break
				s = ""
				for (j = k + 1; j < m && g[j] !~ /^py::/; j++) s = s g[j] ";"
				if (s != sep) { print "odd frames between py:: frames: " s; exit 1 }
				k = j
			}
		}
	}' "$1" "$2"
}

pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
findpy() { # VERSION: a python of that version, or nothing
	for c in "python$1" "$pyenv_root/versions/$1"*/bin/python3; do
		if command -v "$c" > /dev/null 2>&1 &&
			"$c" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$1'.split('.'))))" 2> /dev/null; then
			command -v "$c"
			return
		fi
	done
}
# share (%) of the samples in py::foo under the whole chain, in order,
# from the interpreter's entry point
PYCHAIN=';Py_RunMain;.*;py::<module>:[^;]*;(.*;)?py::main:[^;]*;(.*;)?py::baz:[^;]*;(.*;)?py::bar:[^;]*;(.*;)?py::foo:[^;]*( |;)'
pychain() { pct "$(weight "$1" "^[^;]*;$START;.*$PYCHAIN")" "$(weight "$1" ';py::foo:[^;]*( |;)')"; }
py12=$(findpy 3.12)
if [ -n "$py12" ]; then
	status 0 "Python 3.12 -X perf" "$EMBER" record --no-python --pid -o "$T/py12.folded" -- "$py12" -X perf tests/unwind/nested.py 1.5
	rm -f "/tmp/perf-$(rootpid "$T/py12.folded").map"
	c=$(pychain "$T/py12.folded")
	echo "dwarf: Python 3.12 -X perf: $c% of the samples in foo with the whole py:: chain; $(truncated) stacks truncated"
	check "Python 3.12 -X perf: full py:: chains ($c%)" test "$c" -ge 80
	# no -X perf: ember leaves 3.12 as it is (its trampolines cost C
	# recursion), and says how to name its functions
	status 0 "Python 3.12 without -X perf" env -u PYTHONPERFSUPPORT "$EMBER" record --no-python --pid -o "$T/py12env.folded" -- "$py12" tests/unwind/nested.py 1
	check "Python 3.12 without -X perf: no perf map written" test ! -e "/tmp/perf-$(rootpid "$T/py12env.folded").map"
	check "Python 3.12 without -X perf: no py:: frames" sh -c "! grep -q 'py::' '$T/py12env.folded'"
	has "Python 3.12: run it with -X perf" "$T/err" && ok || bad "Python 3.12 without -X perf: the summary says how: $(cat "$T/err")"
	# perf 6.1 gets one py:: frame here; frame pointers get none
	status 0 "Python 3.12, fp mode" "$EMBER" record --no-python --pid --call-graph fp -o "$T/py12fp.folded" -- "$py12" -X perf tests/unwind/nested.py 0.8
	rm -f "/tmp/perf-$(rootpid "$T/py12fp.folded").map"
	c=$(pychain "$T/py12fp.folded")
	check "Python 3.12, fp mode: no full chains ($c%)" test "$c" -le 10

	# attached to a running interpreter: mappings from /proc
	"$py12" -X perf tests/unwind/nested.py 3 & bg=$!
	sleep 0.5
	status 0 "Python 3.12 -p" "$EMBER" record --no-python -d 1 -o "$T/py12p.folded" -p "$bg"
	kill "$bg" 2> /dev/null
	wait "$bg" 2> /dev/null
	rm -f "/tmp/perf-$bg.map"
	c=$(pychain "$T/py12p.folded")
	check "Python 3.12 -p: full py:: chains ($c%)" test "$c" -ge 80

	# a short run whose samples are handled after it exited, as when
	# ember is held up (here stopped while the command runs and ends):
	# the trampolines' code is gone with the process, rebuilt from its
	# perf map
	"$EMBER" record --no-python --pid -m 4096 -o "$T/py12late.folded" -- "$py12" -X perf tests/unwind/nested.py 0.3 > /dev/null 2> "$T/err" & ep=$!
	i=0 c=
	while [ $i -lt 500 ]; do
		c=$(awk '{ print $1 }' "/proc/$ep/task/$ep/children" 2> /dev/null)
		[ -n "$c" ] && [ "$(cat "/proc/$c/comm" 2> /dev/null)" != ember ] && break
		sleep 0.01
		i=$((i + 1))
	done
	kill -STOP "$ep"
	i=0
	while [ $i -lt 500 ] && [ "$(awk '{ print $3 }' "/proc/$c/stat" 2> /dev/null)" != Z ]; do
		sleep 0.02
		i=$((i + 1))
	done
	check "Python 3.12, handled late: the command had exited" test "$(awk '{ print $3 }' "/proc/$c/stat" 2> /dev/null)" = Z
	kill -CONT "$ep"
	wait "$ep"
	check "Python 3.12, handled late: recorded" test $? -eq 0
	rm -f "/tmp/perf-$(rootpid "$T/py12late.folded").map"
	all=$(weight "$T/py12late.folded" '.')
	tr=$(pct "$(weight "$T/py12late.folded" '\[truncated\]')" "$all")
	c=$(pychain "$T/py12late.folded")
	echo "dwarf: Python 3.12, short run handled after it exited: $tr% [truncated], $c% of the samples in foo with the whole py:: chain"
	check "Python 3.12, handled late: [truncated] below 5% ($tr%)" test "$tr" -ge 0 -a "$tr" -lt 5
	check "Python 3.12, handled late: full py:: chains ($c%)" test "$c" -ge 80

	# deep recursion: all 50 levels with 64 KiB copies; cut, said and
	# never guessed with 16 KiB ones
	status 0 "deep recursion, 64 KiB" "$EMBER" record --no-python --pid --call-graph dwarf,65528 -o "$T/deep.folded" -- "$py12" -X perf tests/record/deep.py 1 50
	rm -f "/tmp/perf-$(rootpid "$T/deep.folded").map"
	all50=$(awk '/;py::leaf:/ { n = gsub(/;py::rec:/, "&"); if (n == 50 && /;py::<module>:[^;]*;/) s += $NF; t += $NF }
		END { printf "%.0f\n", t ? 100 * s / t : -1 }' "$T/deep.folded")
	echo "dwarf: deep recursion, 64 KiB copies: $all50% of the samples in leaf with all 50 levels; $(truncated) stacks truncated"
	check "deep recursion, 64 KiB: all 50 py::rec frames ($all50%)" test "$all50" -ge 80
	# deeper than the largest copy: said so, not blamed on unwinding
	# information
	status 0 "deep recursion past 64 KiB" "$EMBER" record --no-python --pid --call-graph dwarf,65528 -o "$T/deep200.folded" -- "$py12" -X perf tests/record/deep.py 1 200
	rm -f "/tmp/perf-$(rootpid "$T/deep200.folded").map"
	has "deeper than the largest stack copy the kernel gives" "$T/err" && ok ||
		bad "deep recursion past 64 KiB: the summary says the stacks are deeper than the largest copy: $(cat "$T/err")"
	deeper=$(sed -n 's/.* \([0-9]*\) deeper than the largest.*/\1/p' "$T/err")
	other=$(sed -n 's/.* \([0-9]*\) in code whose unwinding information.*/\1/p' "$T/err")
	check "deep recursion past 64 KiB: not blamed on unwinding information (${deeper:-0} deeper, ${other:-0} other)" \
		test "${deeper:-0}" -gt $((10 * ${other:-0}))
	status 0 "deep recursion, 16 KiB" "$EMBER" record --no-python --pid --call-graph dwarf,16384 -o "$T/deep16.folded" -- "$py12" -X perf tests/record/deep.py 1 50
	rm -f "/tmp/perf-$(rootpid "$T/deep16.folded").map"
	t=$(truncated)
	echo "dwarf: deep recursion, 16 KiB copies: ${t:-?} stacks truncated"
	check "deep recursion, 16 KiB: truncation counted (${t:-none})" test "${t:-0}" -gt 0
	has "deeper than the 16384-byte stack copy (copy more with --call-graph dwarf,65528)" "$T/err" && ok ||
		bad "deep recursion, 16 KiB: larger copy suggested: $(cat "$T/err")"
	check "deep recursion, 16 KiB: [truncated] right under the root" \
		grep -q '^python[^;]*;\[truncated\];' "$T/deep16.folded"
	check "deep recursion, 16 KiB: [truncated] nowhere else" \
		sh -c "! grep -q ';[^;]*;\[truncated\]' '$T/deep16.folded'"
	# no garbage: what is left after the cut is the end of a whole stack
	# (but for a sample taken in the kernel's execve, once the old image
	# is gone: its user registers are the old program's, [unknown])
	grep -v '_sys_execve;' "$T/deep16.folded" > "$T/deep16.run.folded"
	check "deep recursion, 16 KiB: no invented frames" cut_ok "$T/deep.folded" "$T/deep16.run.folded"
	check "deep recursion, 16 KiB: no [unknown] frame at all" sh -c "! grep -q '\[unknown\]' '$T/deep16.run.folded'"
else
	echo "dwarf: Python 3.12 tests skipped: no Python 3.12"
fi

py13=$(findpy 3.13)
if [ -n "$py13" ]; then
	# no perf map (no PYTHONPERFSUPPORT): names and unwinding info from
	# the jitdump alone
	status 0 "Python 3.13 -X perf_jit" "$EMBER" record --no-python -v --pid --no-jit-env -o "$T/py13.folded" -- "$py13" -X perf_jit tests/unwind/nested.py 1.5
	p=$(rootpid "$T/py13.folded")
	check "Python 3.13 -X perf_jit: no perf map written" test ! -e "/tmp/perf-$p.map"
	check "Python 3.13 -X perf_jit: jitdump written" test -s "/tmp/jit-$p.dump"
	rm -f "/tmp/perf-$p.map" "/tmp/jit-$p.dump"
	has "; 1 jitdumps" "$T/err" && ok || bad "Python 3.13: jitdump found: $(cat "$T/err")"
	c=$(pychain "$T/py13.folded")
	echo "dwarf: Python 3.13 -X perf_jit: $c% of the samples in foo with the whole py:: chain; $(truncated) stacks truncated"
	check "Python 3.13 -X perf_jit: full py:: chains from the jitdump ($c%)" test "$c" -ge 80
	# no switch: ember asks 3.13 for its jitdump, and removes it after
	status 0 "Python 3.13 by the environment" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record --no-python --pid -o "$T/py13env.folded" -- "$py13" tests/unwind/nested.py 1
	p=$(rootpid "$T/py13env.folded")
	c=$(pychain "$T/py13env.folded")
	check "Python 3.13 by the environment: full py:: chains ($c%)" test "$c" -ge 80
	check "Python 3.13 by the environment: nothing left in /tmp" test ! -e "/tmp/perf-$p.map" -a ! -e "/tmp/jit-$p.dump"
else
	echo "dwarf: Python 3.13 tests skipped: no Python 3.13"
fi

# --- Node.js: perf map and jitdump ------------------------------------------
JSCHAIN='Builtins_JSEntryTrampoline;.*JS:[*~^]main [^;]*;JS:[*~^]baz [^;]*;JS:[*~^]bar [^;]*;JS:[*~^]foo [^;]*( |;)'
if command -v node > /dev/null 2>&1; then
	mkdir -p "$T/node"
	for how in --perf-basic-prof --perf-prof; do
		status 0 "node $how" sh -c "cd '$T/node' && '$EMBER' record --pid --no-jit-env -o '$T/node.folded' -- node $how --interpreted-frames-native-stack --no-turbo-inlining '$top/tests/unwind/nested.js' 1.5"
		p=$(rootpid "$T/node.folded")
		[ $how = --perf-prof ] && check "node --perf-prof: jitdump in the working directory" test -s "$T/node/jit-$p.dump"
		rm -f "/tmp/perf-$p.map" "$T/node/jit-$p.dump"
		c=$(pct "$(weight "$T/node.folded" "^node[^;]*;$START;.*$JSCHAIN")" "$(weight "$T/node.folded" ';JS:[*~^]foo [^;]*( |;)')")
		echo "dwarf: node $how: $c% of the samples in foo with main;baz;bar;foo; $(truncated) stacks truncated"
		check "node $how: complete JS stacks ($c%)" test "$c" -ge 80
	done
else
	echo "dwarf: node tests skipped: node is not installed"
fi

# --- options and the fallback to frame pointers ----------------------------
status 2 "--call-graph bogus" "$EMBER" record --call-graph lbr -- "$R/ct-nofp" 0.1
has "--call-graph takes dwarf[,SIZE]" "$T/err" && ok || bad "--call-graph message: $(cat "$T/err")"
status 2 "--call-graph dwarf,65536" "$EMBER" record --call-graph dwarf,65536 -- "$R/ct-nofp" 0.1
status 2 "--call-graph dwarf,x" "$EMBER" record --call-graph dwarf,x -- "$R/ct-nofp" 0.1
status 0 "--call-graph dwarf,1000 (rounded up to 8)" "$EMBER" record --call-graph dwarf,1000 -o "$T/x.folded" -- "$R/ct-nofp" 0.2
has "DWARF, 1000-byte copies" "$T/err" && ok || bad "dwarf,1000 in the summary: $(cat "$T/err")"
status 0 "-g fp" "$EMBER" record -g fp -o "$T/x.folded" -- "$R/ct-fp" 0.2
has "user stacks: frame pointers" "$T/err" && ok || bad "-g fp"

if $CC -shared -fPIC -o "$R/nostack.so" tests/record/nostack.c -ldl 2> "$T/cc.err"; then
	# the sanitizers' runtime tolerates another preloaded library so
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
	status 0 "no stack copies: frame pointers instead" env LD_PRELOAD="$R/nostack.so" "$EMBER" record -o "$T/fb.folded" -- "$R/ct-fp" 0.5
	has "user stacks were walked by frame pointers" "$T/err" && ok || bad "fallback said: $(cat "$T/err")"
	has "refused copies of user stacks" "$T/err" && ok || bad "fallback says why"
	grep -q '^ct-fp;__libc_start_call_main;main;work_a;leaf_hot;spin' "$T/fb.folded" && ok || bad "fallback: frame-pointer stacks"
	status 1 "no stack copies, --call-graph dwarf" env LD_PRELOAD="$R/nostack.so" "$EMBER" record --call-graph dwarf -o "$T/x.folded" -- "$R/ct-fp" 0.2
	has "use --call-graph fp" "$T/err" && ok || bad "explicit dwarf refused: $(cat "$T/err")"
else
	echo "dwarf: fallback tests skipped: cannot build an LD_PRELOAD shim: $(head -1 "$T/cc.err")"
fi

finish
