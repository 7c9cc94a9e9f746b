#!/bin/sh
# ember record end to end: test programs with known call trees, threads,
# children, attaching, the whole system, Ctrl-C, JIT perf maps, Node.
# Skips, saying why, where perf_event_open (or Node, or Python) is missing.
. tests/cli/lib.sh
suite=record
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}
CFLAGS_FP="-O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls"

skip_all() {
	echo "record: skipped: $*"
	echo "record: 0 passed, 0 failed"
	exit 0
}

for p in calltree threads forkexec jitmap noperf deepfp plt; do
	$CC $CFLAGS_FP -pthread -o "$R/$p" "tests/record/$p.c" 2> "$T/cc.err" ||
		skip_all "cannot compile tests/record/$p.c: $(head -1 "$T/cc.err")"
done
CT="$R/calltree"
# the root of a complete C stack: DWARF unwinding reaches _start (frame
# pointers stop at libc's __libc_start_call_main, built without them)
START='_start;__libc_start_main[^;]*;__libc_start_call_main'

# Can this machine sample at all?
"$EMBER" record -q -o "$T/probe.folded" -- "$CT" 0.05 > /dev/null 2> "$T/probe.err"
if [ $? -ne 0 ]; then
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"
fi

# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
# percentage of A in B, rounded
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f\n", 100 * a / b; else print -1 }'; }
# |A - B| <= TOL
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }
folded_ok() { awk 'NF < 2 || $NF !~ /^[0-9]+$/ { bad = 1 } END { exit bad || NR == 0 }' "$1"; }

# --- a known call tree: shares of the hot paths, roots -----------------
status 0 "calltree recorded" "$EMBER" record -o "$T/ct.folded" -- "$CT" 1.5
check "calltree folded is well-formed" folded_ok "$T/ct.folded"
total=$(weight "$T/ct.folded" "^calltree;$START;main;")
all=$(weight "$T/ct.folded" '.')
a=$(pct "$(weight "$T/ct.folded" ';main;work_a;leaf_hot;spin')" "$total")
b=$(pct "$(weight "$T/ct.folded" ';main;work_b;mid_b;leaf_b;spin')" "$total")
c=$(pct "$(weight "$T/ct.folded" ';main;recurse;recurse;recurse;recurse;recurse;leaf_warm;spin')" "$total")
check "work_a share $a% within 5 points of 60%" near "$a" 60 5
check "work_b share $b% within 5 points of 30%" near "$b" 30 5
check "recurse share $c% within 5 points of 10%" near "$c" 10 5
check "95% of samples under main's callers" near "$(pct "$total" "$all")" 100 5
check "every stack through main starts at main's callers" \
	sh -c "! grep ';main;' '$T/ct.folded' | grep -v '^calltree;$START;main;' | grep -q ."
has "ember: recorded" "$T/err" && ok || bad "no summary"
has "ember: wrote $T/ct.folded" "$T/err" && ok || bad "summary names the output"
has "spin" "$T/err" && ok || bad "summary lists the top function"

# the same through the SVG writer, default name and title
mkdir -p "$T/svg"
(cd "$T/svg" && "$EMBER" record -q -- "$CT" 0.3) > "$T/out" 2> "$T/err"
check "flamegraph.svg by default" test -s "$T/svg/flamegraph.svg"
check "flamegraph.svg is well-formed" wellformed "$T/svg/flamegraph.svg"
has "$CT 0.3" "$T/svg/flamegraph.svg" && ok || bad "SVG title is the command line"
has "work_a" "$T/svg/flamegraph.svg" && ok || bad "SVG has the frames"
check "no temporary file left" sh -c "! ls '$T/svg' | grep -q tmp"
status 0 "--title passed through" "$EMBER" record -q --title 'my title' --colors blue -o "$T/t.svg" -- "$CT" 0.2
has "my title" "$T/t.svg" && ok || bad "--title in the SVG"
# -o FILE.html: the HTML viewer, with the same title and frames
status 0 "-o FILE.html" "$EMBER" record -q --title 'html title' -o "$T/t.html" -- "$CT" 0.2
check "-o FILE.html: an HTML page" sh -c "head -1 '$T/t.html' | grep -qx '<!DOCTYPE html>'"
has "html title" "$T/t.html" && ok || bad "--title in the HTML"
grep '^EMBER.names' "$T/t.html" | grep -q 'work_a' && ok || bad "HTML has the frames"
status 0 "--format html on standard output" "$EMBER" record -q --format html -o - -- "$CT" 0.2
check "--format html -o -: an HTML page" sh -c "head -1 '$T/out' | grep -qx '<!DOCTYPE html>'"
status 2 "-o with an unknown extension" "$EMBER" record -q -o "$T/t.pdf" -- "$CT" 0.2
has "name it .svg, .html, .folded" "$T/err" && ok || bad "unknown extension message: $(cat "$T/err")"

# --- exit status of the command ------------------------------------------
status 3 "command's exit status" "$EMBER" record -q -o "$T/x.folded" -- sh -c "'$CT' 0.2; exit 3"
status 134 "command killed by a signal" "$EMBER" record -q -o "$T/abort.folded" -- "$CT" 0.3 --abort
has "work_a" "$T/abort.folded" && ok || bad "profile of a command that died"
status 127 "command not found" "$EMBER" record -q -o "$T/x.folded" -- /nonexistent/prog
has "cannot run '/nonexistent/prog'" "$T/err" && ok || bad "not-found message: $(cat "$T/err")"
status 127 "command not in PATH" "$EMBER" record -q -o "$T/x.folded" -- no-such-command-here
has "cannot run 'no-such-command-here': no such command in PATH" "$T/err" && ok || bad "not-in-PATH message: $(cat "$T/err")"
printf 'echo ran\n' > "$T/noexec.sh"
chmod 644 "$T/noexec.sh"
status 126 "command not executable" "$EMBER" record -q -o "$T/x.folded" -- "$T/noexec.sh"
has "Permission denied" "$T/err" && ok || bad "not-executable message: $(cat "$T/err")"
# NAME=value words before the command set its environment, as in a shell
status 0 "NAME=value before the command" "$EMBER" record -q -o "$T/x.folded" EMBER_T1=a EMBER_T2=b=c EMBER_T1=d sh -c "echo \"\$EMBER_T1|\$EMBER_T2\" > '$T/assign'; '$CT' 0.1"
check "NAME=value: the command's environment ($(cat "$T/assign" 2> /dev/null))" test "$(cat "$T/assign" 2> /dev/null)" = "d|b=c"
status 2 "NAME=value and no command" "$EMBER" record -q -o "$T/x.folded" EMBER_T1=a
has "no command after 'EMBER_T1=a'" "$T/err" && ok || bad "no command message: $(cat "$T/err")"

# --- the output: checked first, never lost, kept apart from the command's --
status 1 "output directory missing" "$EMBER" record -o /nonexistent/dir/x.svg -- sh -c "touch '$T/ran'; '$CT' 0.1"
has "cannot write '/nonexistent/dir/x.svg'" "$T/err" && ok || bad "bad output path named: $(cat "$T/err")"
check "bad output path: the command did not run" test ! -e "$T/ran"
if [ -w /dev/full ]; then
	status 1 "a failed final write" "$EMBER" record -o /dev/full --format folded -- "$CT" 0.2
	saved=$(sed -n "s/^ember: the profile is saved in '\(.*\)'\$/\1/p" "$T/err")
	check "failed write: the profile saved in a named file ($saved)" test -n "$saved" -a -s "$saved"
	[ -n "$saved" ] && grep -q 'work_a' "$saved" && ok || bad "failed write: the saved profile has the stacks"
	[ -n "$saved" ] && rm -f "$saved"
fi
# One sample per second of CPU time (-c): these commands use far less, so
# none is sampled however loaded the machine is.
status 0 "no samples: -- true" "$EMBER" record -c 1000000000 -o "$T/none.folded" -- true
check "no samples: an empty folded file" test -f "$T/none.folded" -a ! -s "$T/none.folded"
has "no samples were recorded" "$T/err" && ok || bad "no samples: said so"
check "no samples: no hint to raise -F" sh -c "! grep -q -- '-F' '$T/err'"
status 7 "no samples: the command's exit status" "$EMBER" record -q -c 1000000000 -o "$T/none.folded" -- sh -c 'exit 7'
status 0 "no samples: an SVG" "$EMBER" record -q -c 1000000000 -o "$T/none.svg" -- sleep 0.2
check "no samples: a well-formed SVG" wellformed "$T/none.svg"
has "No samples were recorded" "$T/none.svg" && ok || bad "no samples: the SVG says so"
status 0 "no samples: an HTML page" "$EMBER" record -q -c 1000000000 -o "$T/none.html" -- sleep 0.2
has "No samples were recorded" "$T/none.html" && ok || bad "no samples: the HTML page says so"
"$EMBER" record -q -o - -- sh -c "echo COMMAND-OUTPUT; '$CT' 0.2" > "$T/out" 2> "$T/err"
check "-o -: the command's output is not in the stacks" sh -c "! grep -q COMMAND-OUTPUT '$T/out'"
check "-o -: folded stacks on standard output" folded_ok "$T/out"
has "COMMAND-OUTPUT" "$T/err" && ok || bad "-o -: the command's output on standard error"
"$EMBER" record -q -o /dev/stdout --format folded -- sh -c "echo COMMAND-OUTPUT; '$CT' 0.2" > "$T/out" 2> "$T/err"
check "-o /dev/stdout --format folded: folded stacks only" folded_ok "$T/out"
check "-o /dev/stdout: the command's output apart" sh -c "! grep -q COMMAND-OUTPUT '$T/out'"
status 0 "-o /dev/null --format svg" "$EMBER" record -q -o /dev/null --format svg -- "$CT" 0.1
check "/dev/null is still a device" test -c /dev/null
status 0 "--format svg with any name" "$EMBER" record -q -o "$T/graph.out" --format svg -- "$CT" 0.1
check "--format svg: an SVG" wellformed "$T/graph.out"
status 0 "-o .pb.gz: pprof" "$EMBER" record -q -o "$T/r.pb.gz" -- "$CT" 0.1
status 0 "  its sample type is cpu" "$EMBER" collapse --sample-type cpu --label thread "$T/r.pb.gz"
check "  the program's frames" grep -q "^calltree;" "$T/out"
status 0 "  in nanoseconds" "$EMBER" collapse "$T/r.pb.gz" -o "$T/r.svg"
check "  (the SVG says)" has "nanoseconds" "$T/r.svg"
if command -v go > /dev/null 2>&1; then
	# the mappings as Go reads them: the program and libc, at the
	# build-ids their notes give, and each of their functions at an
	# address inside its mapping
	export GOCACHE="$T/gocache" GOTOOLCHAIN=local
	go tool pprof -raw "$T/r.pb.gz" > "$T/raw" 2> /dev/null
	awk '/^Mappings/ { m = 1; next } m && NF >= 4 { print $3, $4 }' "$T/raw" > "$T/maps"
	buildid() { readelf -n "$1" 2> /dev/null | awk '/Build ID:/ { print $3 }'; }
	check "  pprof mapping: the program with its build-id" \
		grep -qxF "$CT $(buildid "$CT")" "$T/maps"
	libc=$(awk '$1 ~ /\/libc\.so/ { print $1; exit }' "$T/maps")
	check "  pprof mapping: libc with its build-id" \
		sh -c "test -n '$libc' && grep -qxF '$libc $(buildid "${libc:-/}")' '$T/maps'"
	# ADDR MAPPING-ID NAME of the locations, then ID START LIMIT per mapping
	awk '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	     l && $3 ~ /^M=/ { print $2, substr($3, 3), $4 }' "$T/raw" > "$T/locs"
	awk -F'[ :/]+' '/^Mappings/ { m = 1; next } m && NF >= 4 { print $1, $2, $3 }' "$T/raw" > "$T/ranges"
	inside=0
	for fn in main leaf_hot __libc_start_call_main; do
		set -- $(awk -v f="$fn" '$3 == f { print $1, $2; exit }' "$T/locs")
		[ $# -eq 2 ] || continue
		set -- "$1" $(awk -v m="$2" '$1 == m { print $2, $3 }' "$T/ranges")
		[ $# -eq 3 ] && [ $(($1)) -ge $(($2)) ] && [ $(($1)) -lt $(($3)) ] &&
			inside=$((inside + 1))
	done
	check "  pprof locations: main, leaf_hot, libc's start at addresses in their mappings" \
		test "$inside" -eq 3
	# go tool pprof's functions and total, against the folded stacks
	"$EMBER" collapse "$T/r.pb.gz" > "$T/r.folded"
	awk '{ c = $NF; s = $0; sub(/ [^ ]*$/, "", s); n = split(s, f, ";")
	       flat[f[n]] += c; split("", seen)
	       for (i = 1; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; cum[f[i]] += c } }
	     END { for (k in cum) printf "%s\t%d\t%d\n", k, flat[k], cum[k] }' "$T/r.folded" |
		LC_ALL=C sort > "$T/want"
	go tool pprof -top -unit=ns -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$T/r.pb.gz" 2> /dev/null |
		awk 'go { name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
			  sub(/ \(inline\)$/, "", name)  # inlined calls, marked
			  f = $1; c = $4; sub(/ns$/, "", f); sub(/ns$/, "", c)
			  printf "%s\t%s\t%s\n", name, f, c }
		     /flat%/ { go = 1 }' | LC_ALL=C sort > "$T/got"
	check "  go tool pprof -top: the folded stacks' functions" \
		sh -c "test -s '$T/got' && cmp -s '$T/got' '$T/want'"
	total=$(awk '{ t += $NF } END { printf "%.0f", t }' "$T/r.folded")
	go tool pprof -top -unit=ns "$T/r.pb.gz" > "$T/top" 2> /dev/null
	check "  go tool pprof -top: the total" has "of ${total}ns total" "$T/top"
else
	echo "record: go tool pprof parts skipped: no go (Debian package golang-go)"
fi
status 0 "--format speedscope" "$EMBER" record -q -o "$T/r.json" --format speedscope -- "$CT" 0.1
check "  nanoseconds" has '"unit":"nanoseconds"' "$T/r.json"
status 2 "-o /dev/null without --format" "$EMBER" record -o /dev/null -- "$CT" 0.1
has "--format svg|html|folded" "$T/err" && ok || bad "unknown output type names --format: $(cat "$T/err")"

# --- frame pointers: stacks cut at kernel.perf_event_max_stack -------------
maxstack=$(cat /proc/sys/kernel/perf_event_max_stack 2> /dev/null || echo 127)
status 0 "fp: a recursion deeper than the kernel walks" "$EMBER" record --call-graph fp -o "$T/deep.folded" -- "$R/deepfp" 0.3 $((maxstack + 50))
check "fp, cut stacks: every stack starts with [truncated]" sh -c "! grep -v '^deepfp;\[truncated\];' '$T/deep.folded' | grep -q 'deep;deep'"
grep -q '^deepfp;\[truncated\];deep;' "$T/deep.folded" && ok || bad "fp, cut stacks: [truncated] above the walk's last frame"
has "reached the kernel's limit of $maxstack frames" "$T/err" && ok || bad "fp, cut stacks: warned: $(cat "$T/err")"
status 0 "fp: a recursion the kernel walks whole" "$EMBER" record --call-graph fp -o "$T/deep.folded" -- "$R/deepfp" 0.3 50
check "fp, whole stacks: no [truncated]" sh -c "! grep -q 'truncated' '$T/deep.folded'"
grep -q "^deepfp;.*;main;deep;" "$T/deep.folded" && ok || bad "fp, whole stacks: from main"

# --- registers CFI rules use: the dynamic linker's resolver (CFA in rbx) ----
status 0 "the resolver on every call (LD_BIND_NOT)" env LD_BIND_NOT=1 "$EMBER" record -o "$T/plt.folded" -- "$R/plt" 0.3
rw=$(weight "$T/plt.folded" ';_dl_runtime_resolve[a-z_]*(;| )')
rm_=$(weight "$T/plt.folded" ';main;(caller;)?_dl_runtime_resolve[a-z_]*(;| )')
check "resolver: sampled ($rw)" test "$rw" -gt 0
check "resolver: under main, unwound by its rbx rule ($(pct "$rm_" "$rw")%)" test "$(pct "$rm_" "$rw")" -ge 95

# --- option values: the option and what it takes -------------------------------
for a in "-F abc" "-F 0" "-d -1" "-c -5"; do
	status 2 "bad value: $a" "$EMBER" record $a -- "$CT" 0.1
	o=${a%% *}
	grep -q -- "option '$o/--[a-z]*' takes [^']* not '${a#* }'" "$T/err" && ok ||
		bad "bad value $a: message names the option and range: $(cat "$T/err")"
done
status 2 "bad value: -F range" "$EMBER" record -F abc -- "$CT" 0.1
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2> /dev/null || echo)
[ -z "$max" ] || { has "from 1 to $max" "$T/err" && ok || bad "-F message gives the range: $(cat "$T/err")"; }

# --- threads, children, exec ----------------------------------------------
status 0 "threads" "$EMBER" record -q --tid -o "$T/th.folded" -- "$R/threads" 0.4
grep -q '^worker-a-[0-9]*/[0-9]*;.*thread_a_work;thread_spin' "$T/th.folded" && ok || bad "thread worker-a"
grep -q '^worker-b-[0-9]*/[0-9]*;.*thread_b_work;thread_spin' "$T/th.folded" && ok || bad "thread worker-b"
check "two thread ids" test "$(cut -d';' -f1 "$T/th.folded" | grep '^worker' | sort -u | wc -l)" -ge 2

status 0 "fork and exec" "$EMBER" record -q -o "$T/fe.folded" -- "$R/forkexec" "$CT" 0.4
grep -q "^forkexec;$START;main;parent_spin" "$T/fe.folded" && ok || bad "parent's stacks"
grep -q "^calltree;$START;main;work_a;leaf_hot;spin" "$T/fe.folded" && ok || bad "exec'd child's stacks"
check "no pre-exec frames in the child" sh -c "! grep -q '^calltree;.*parent_spin' '$T/fe.folded'"
check "no child frames under the parent" sh -c "! grep -q '^forkexec;.*work_a' '$T/fe.folded'"

status 0 "a target that execs" "$EMBER" record -q -o "$T/ex.folded" -- sh -c "exec '$CT' 0.3"
grep -q "^calltree;$START;main;work_a" "$T/ex.folded" && ok || bad "exec followed"

# --- attach, whole system ---------------------------------------------------
"$CT" 5 & bg=$!
"$CT" 5 & bg2=$!
sleep 0.2
status 0 "-p PID" "$EMBER" record -q --pid -d 0.6 -o "$T/p.folded" -p "$bg,$bg2"
grep -q "^calltree-$bg;$START;main;work_a;leaf_hot;spin" "$T/p.folded" && ok || bad "-p stacks of the first process"
grep -q "^calltree-$bg2;$START;main;work_a" "$T/p.folded" && ok || bad "-p stacks of the second process"
# as pidof prints them: separated by spaces (and commas and spaces mixed)
for ps in "$bg $bg2" " $bg, $bg2 "; do
	status 0 "-p '$ps'" "$EMBER" record -q --pid -d 0.4 -o "$T/ps.folded" -p "$ps"
	grep -q "^calltree-$bg;$START;main;work_a" "$T/ps.folded" && ok || bad "-p '$ps': stacks of the first process"
	grep -q "^calltree-$bg2;$START;main;work_a" "$T/ps.folded" && ok || bad "-p '$ps': stacks of the second process"
done
for ps in "$bg x" "$bg,-3" "" " , " "$bg 12a"; do
	status 2 "-p '$ps': a usage error" "$EMBER" record -q -d 0.2 -o "$T/ps.folded" -p "$ps"
	w=$(echo "$ps" | tr ', ' '\n\n' | grep -v "^$bg\$" | grep . | head -1)
	if [ -n "$w" ]; then
		has "-p: '$w' is not a process id" "$T/err" && ok || bad "-p '$ps': the bad word named: $(cat "$T/err")"
	else
		has "-p takes process ids separated by commas or spaces" "$T/err" && ok || bad "-p '$ps': said: $(cat "$T/err")"
	fi
done
status 0 "-a" "$EMBER" record -q -a -d 0.6 -o "$T/a.folded"
grep -q "^calltree;$START;main;work_a;leaf_hot;spin" "$T/a.folded" && ok || bad "-a shows the busy process"
check "-a leaves idle out" sh -c "! grep -q '^swapper' '$T/a.folded'"
kill "$bg" "$bg2" 2> /dev/null
wait "$bg" "$bg2" 2> /dev/null

# -p with a thread's id attaches to its whole process
"$R/threads" 3 & bg=$!
sleep 0.2
tid=$(ls "/proc/$bg/task" | grep -v "^$bg\$" | head -1)
status 0 "-p TID" "$EMBER" record -q --pid -d 0.5 -o "$T/tid.folded" -p "${tid:-$bg}"
grep -q "^worker-a-$bg;.*thread_a_work" "$T/tid.folded" && ok || bad "-p TID: the process's threads"
grep -q "^worker-b-$bg;.*thread_b_work" "$T/tid.folded" && ok || bad "-p TID: every thread"
kill "$bg" 2> /dev/null
wait "$bg" 2> /dev/null

# a process that ends while attached
"$CT" 0.5 & bg=$!
sleep 0.1
status 0 "-p of a process that exits" "$EMBER" record -q -o "$T/pe.folded" -p "$bg"
grep -q 'work_a' "$T/pe.folded" && ok || bad "profile of the exited process"
wait "$bg" 2> /dev/null

# --- Ctrl-C and -d: the command is interrupted, and has time to end ---------
# SIGINT to ember alone: the command, which did not get it, is ended once
# its grace period is over; ember stopped it, and exits 0
"$EMBER" record -o "$T/int.folded" -- "$CT" 0 > /dev/null 2> "$T/int.err" &
ep=$!
# once the command runs (ember's start-up under a sanitizer on a busy
# machine can take longer than the wait itself)
i=0
while [ $i -lt 100 ] && ! pgrep -P "$ep" > /dev/null; do
	sleep 0.1; i=$((i + 1))
done
sleep 0.8
kill -INT "$ep"
wait "$ep"
st=$?
check "SIGINT to ember: exit status 0, ember ended the command ($st)" test "$st" = 0
grep -q "^calltree;$START;main;work_a" "$T/int.folded" && ok || bad "Ctrl-C: output written"
check "Ctrl-C: complete output" folded_ok "$T/int.folded"
check "Ctrl-C: the command is gone" sh -c "! pgrep -f '$CT 0\$' > /dev/null"
check "SIGINT to ember: says the command was ended" has "did not end within 3 s" "$T/int.err"
# -d: the command and its children get SIGINT, as from a terminal, and
# time for their clean-up; ember exits 0, not with the status it caused
status 0 "-d: ember's status, not the stopped command's" "$EMBER" record -q -d 0.6 -o "$T/d.folded" -- sh -c "trap 'sleep 0.3; echo INT > \"$T/d-int\"; exit 3' INT; while :; do '$CT' 0.05; done"
check "-d: the command got SIGINT and ran its clean-up" test "$(cat "$T/d-int" 2> /dev/null)" = INT
check "-d: profile written" folded_ok "$T/d.folded"
if command -v python3 > /dev/null 2>&1; then
	# a real Ctrl-C: SIGINT to the whole process group
	status 5 "Ctrl-C to the group: the command's own status" python3 tests/record/ctrlc.py 0.8 1 "$EMBER" record -q -o "$T/int2.folded" -- sh -c "trap 'sleep 0.3; echo INT > \"$T/c-int\"; exit 5' INT; while :; do '$CT' 0.05; done"
	check "Ctrl-C to the group: the command ran its clean-up" test "$(cat "$T/c-int" 2> /dev/null)" = INT
	check "Ctrl-C to the group: profile written" folded_ok "$T/int2.folded"
	check "Ctrl-C to the group: no escalation" sh -c "! grep -q 'did not end' '$T/err'"
	# a command that ignores it: a second Ctrl-C ends it at once (not
	# the end of the grace period, which says so)
	status 0 "two Ctrl-Cs: ember ended the command" python3 tests/record/ctrlc.py 0.5 2 "$EMBER" record -o "$T/int3.folded" -- sh -c "trap '' INT; exec '$CT' 0 ignoring"
	check "two Ctrl-Cs: ended at the second, not after the grace period" sh -c "! grep -q 'did not end' '$T/err'"
	check "two Ctrl-Cs: profile written" grep -q "^calltree;$START;main;work_a" "$T/int3.folded"
	check "two Ctrl-Cs: the command is gone" sh -c "! pgrep -f '$CT 0 ignoring\$' > /dev/null"
else
	echo "record: Ctrl-C to a process group skipped: no python3"
fi

# --- faults and bad input ---------------------------------------------------
nopid=4194303
while kill -0 "$nopid" 2> /dev/null; do nopid=$((nopid - 1)); done
status 1 "missing PID" "$EMBER" record -o "$T/x.folded" -p "$nopid"
has "no such process: $nopid" "$T/err" && ok || bad "missing-PID message: $(cat "$T/err")"
status 2 "nothing to profile" "$EMBER" record -o "$T/x.folded"
status 2 "bad -p" "$EMBER" record -p abc
status 2 "unknown event" "$EMBER" record -e nosuch -- "$CT" 0.1
has "unknown event 'nosuch'" "$T/err" && ok || bad "unknown-event message"
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2> /dev/null || echo 100000)
status 2 "frequency too high" "$EMBER" record -F $((max + 1)) -- "$CT" 0.1
has "perf_event_max_sample_rate" "$T/err" && ok || bad "frequency message names the sysctl"
status 2 "unknown output type" "$EMBER" record -o "$T/x.png" -- "$CT" 0.1
"$EMBER" record -q -e cycles -o "$T/cyc.folded" -- "$CT" 0.1 > /dev/null 2> "$T/err"
if [ $? -eq 0 ]; then ok; else has "not supported" "$T/err" && ok || bad "unsupported event message: $(cat "$T/err")"; fi
status 0 "task-clock" "$EMBER" record -q -e task-clock -o "$T/tc.folded" -- "$CT" 0.2
grep -q 'work_a' "$T/tc.folded" && ok || bad "task-clock samples"
status 0 "-c period" "$EMBER" record -q -c 2000000 -o "$T/c.folded" -- "$CT" 0.2
check "-c: weights are the period" awk '$NF % 2000000 { bad = 1 } END { exit bad }' "$T/c.folded"

status 0 "page-faults" "$EMBER" record -q -e page-faults -o "$T/pf.folded" -- "$CT" 0.1
check "page-faults: folded" folded_ok "$T/pf.folded"
status 0 "context-switches" "$EMBER" record -q -e cs -o "$T/cs.folded" -- sh -c "sleep 0.05; sleep 0.05; '$CT' 0.1"
check "context-switches: folded" folded_ok "$T/cs.folded"

# lost samples are counted and reported (a one-page ring at a high rate)
status 0 "tiny ring buffer" "$EMBER" record --call-graph fp -F "$((max < 20000 ? max : 20000))" -m 1 -o "$T/lost.folded" -- "$CT" 0.5
check "tiny ring: output still complete" folded_ok "$T/lost.folded"
lost=$(sed -n 's/.* \([0-9]*\) lost,.*/\1/p' "$T/err")
check "lost samples in the summary ($lost)" test -n "$lost"
if [ "${lost:-0}" -gt 0 ]; then
	has "$lost samples were lost" "$T/err" && ok || bad "lost samples warned"
fi
# the same with 64 KiB stack copies in a ring that holds one of them
status 0 "DWARF: small ring buffer" "$EMBER" record --call-graph dwarf,65528 -F "$((max < 20000 ? max : 20000))" -m 32 -o "$T/lost.folded" -- "$CT" 0.5
check "DWARF, small ring: output still complete" folded_ok "$T/lost.folded"
lost=$(sed -n 's/.* \([0-9]*\) lost,.*/\1/p' "$T/err")
check "DWARF, small ring: samples lost and reported ($lost)" test "${lost:-0}" -gt 0
has "$lost samples were lost" "$T/err" && ok || bad "DWARF: lost samples warned"
status 2 "DWARF: a ring smaller than a sample" "$EMBER" record -m 8 -o "$T/x.folded" -- "$CT" 0.1
has "use -m 16 or more" "$T/err" && ok || bad "ring-size message: $(cat "$T/err")"

# --- where perf_event_open is blocked (containers) or not permitted -----
status 1 "no perf_event_open (ENOSYS)" "$R/noperf" ENOSYS "$EMBER" record -o "$T/x.folded" -- "$CT" 0.1
has "perf_event_open is not available" "$T/err" && ok || bad "ENOSYS message: $(cat "$T/err")"
status 1 "perf_event_open blocked (EPERM)" "$R/noperf" EPERM "$EMBER" record -o "$T/x.folded" -- "$CT" 0.1
if [ "$(id -u)" = 0 ]; then
	has "seccomp" "$T/err" && ok || bad "EPERM as root names seccomp: $(cat "$T/err")"
else
	has "perf_event_paranoid" "$T/err" && ok || bad "EPERM names the sysctl: $(cat "$T/err")"
fi
check "blocked: the command did not run on" sh -c "! pgrep -f '$CT 0.1\$' > /dev/null"
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2> /dev/null)
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && [ "$paranoid" -ge 1 ]; then
	mkdir -p "$T/nobody"
	chmod 777 "$T/nobody"
	chmod 755 "$T" "$R"
	asnobody() { setpriv --reuid 65534 --regid 65534 --clear-groups "$@"; }
	status 1 "-a unprivileged" asnobody "$EMBER" record -a -d 0.2 -o "$T/nobody/a.folded"
	has "kernel.perf_event_paranoid" "$T/err" && ok || bad "-a unprivileged names the sysctl: $(cat "$T/err")"
	status 1 "-p of another user's process" asnobody "$EMBER" record -p 1 -d 0.2 -o "$T/nobody/p.folded"
	has "no permission" "$T/err" && ok || bad "-p unprivileged message: $(cat "$T/err")"
	if [ "$paranoid" = 2 ]; then
		status 0 "unprivileged: user stacks only" asnobody "$EMBER" record -o "$T/nobody/u.folded" -- "$CT" 0.2
		has "kernel frames were not recorded" "$T/err" && ok || bad "paranoid 2 warned"
		grep -q "^calltree;$START;main;work_a" "$T/nobody/u.folded" && ok || bad "paranoid 2: user stacks"
	fi
fi

# --- kernel frames ------------------------------------------------------------
status 0 "--kernel" "$EMBER" record -q --kernel -o "$T/k.folded" -- dd if=/dev/zero of=/dev/null bs=1 count=200000
grep -q 'entry_SYSCALL_64[a-z_]*_\[k\]' "$T/k.folded" && ok || bad "--kernel annotates kernel frames"
check "--kernel: kernel frames only after user frames" sh -c "! grep -q '_\[k\];[^;]*[^]];' '$T/k.folded' || true"
status 0 "--no-kernel" "$EMBER" record -q --no-kernel -o "$T/nk.folded" -- dd if=/dev/zero of=/dev/null bs=1 count=200000
check "--no-kernel has no kernel frames" sh -c "! grep -q 'entry_SYSCALL' '$T/nk.folded'"

# --- JIT code from perf maps ------------------------------------------------
jit() { # MODE OUT: runs jitmap, removes its map afterwards
	"$EMBER" record --pid ${3:-} -o "$2" -- "$R/jitmap" "$1" 0.6 > "$T/jit.pid" 2> "$T/err"
	st=$?
	jp=$(cat "$T/jit.pid")
	[ -e "/tmp/perf-$jp.map" ] && jitmap_kept=1 || jitmap_kept=0
	rm -f "/tmp/perf-$jp.map" "/tmp/jitmap-$jp.txt"
	return $st
}
check "JIT: recorded" jit good "$T/j.folded"
check "JIT: a program's own perf map is not removed" test "$jitmap_kept" = 1
grep -q ';main;jit_trampoline;c_callback;c_spin' "$T/j.folded" && ok || bad "JIT frame in a frame-pointer chain"
grep -q ';main;run_jit_leaf;jit_spin_loop [0-9]' "$T/j.folded" && ok || bad "JIT frame as the leaf"
check "JIT: --jit annotation" jit good "$T/jj.folded" --jit
grep -q 'jit_spin_loop_\[j\] [0-9]' "$T/jj.folded" && ok || bad "--jit marks JIT frames"
for m in stale foreign symlink writable; do
	check "JIT $m map: recorded" jit $m "$T/j$m.folded"
	has "ignoring '/tmp/perf-$jp.map'" "$T/err" && ok || bad "JIT $m map: warned ($(cat "$T/err"))"
	check "JIT $m map: not used" sh -c "! grep -q 'jit_trampoline\|jit_spin_loop' '$T/j$m.folded'"
	grep -q "\[perf-$jp.map\];c_callback" "$T/j$m.folded" && ok || bad "JIT $m map: unnamed JIT frame"
done

check "JIT: names with control bytes recorded" jit ctrl "$T/jctrl.folded"
check "JIT: control bytes in names are cleaned" test -z "$(tr -d '\n' < "$T/jctrl.folded" | tr -d '[:print:]')"
grep -q ';main;run_jit_leaf;jit?\[31m_spin?loop [0-9]' "$T/jctrl.folded" && ok || bad "JIT: a cleaned name kept whole ($(grep run_jit_leaf "$T/jctrl.folded" | head -2))"

# an interrupt while the profile is being written says so; a second one
# ends ember without the profile (reading a 6-million-entry perf map
# takes seconds)
"$R/jitmap" big 120 > "$T/big.pid" &
bp=$!
i=0
while [ $i -lt 1200 ] && [ ! -s "$T/big.pid" ]; do sleep 0.05; i=$((i + 1)); done
"$EMBER" record -p $bp -o "$T/sym-int.folded" 2> "$T/sym-int.err" &
ep=$!
i=0 # recording: its perf events are open
while [ $i -lt 1200 ] && ! ls -l /proc/$ep/fd 2> /dev/null | grep -q perf_event; do
	sleep 0.05; i=$((i + 1))
done
sleep 1 # samples of the JIT code, whose names are in the map
i=0 # interrupts until one is answered: recording stopped, frames named
while [ $i -lt 1200 ] && kill -INT $ep 2> /dev/null && ! grep -q "interrupt again" "$T/sym-int.err"; do
	sleep 0.05; i=$((i + 1))
done
kill -INT $ep
wait $ep
st=$?
kill $bp; wait $bp 2> /dev/null
rm -f "/tmp/perf-$bp.map"
check "interrupted while writing: ember ends by the signal (status $st)" test "$st" -gt 128
check "interrupted while writing: the first interrupt said what goes on" has "interrupt again to quit" "$T/sym-int.err"
check "interrupted while writing: no profile" test ! -e "$T/sym-int.folded"
check "interrupted while writing: no temporary file" test -z "$(ls "$T" | grep 'sym-int\.folded\.tmp')"

# --- C++ and Rust names come out demangled -----------------------------------
if command -v c++ > /dev/null 2>&1 &&
	c++ $CFLAGS_FP -o "$R/cxxtree" tests/record/cxxtree.cc 2> /dev/null; then
	status 0 "C++" "$EMBER" record -q -o "$T/cxx.folded" -- "$R/cxxtree" 0.4
	grep -q ';main;shapes::Worker<long>::run [0-9]' "$T/cxx.folded" && ok || bad "C++ template method demangled"
	grep -q ';main;(anonymous namespace)::anon_spin [0-9]' "$T/cxx.folded" && ok || bad "C++ anonymous namespace kept"
	status 0 "C++: summary" "$EMBER" record -o "$T/cxx.folded" -- "$R/cxxtree" 0.4
	line=$(grep 'method_that_must_show' "$T/err" | head -1)
	check "C++: a long name in the summary keeps its method ($line)" \
		sh -c "echo '$line' | grep -q 'shapes::Registry<\.\.\.>::method_that_must_show\$'"
else
	echo "record: C++ tests skipped: no C++ compiler"
fi
if command -v rustc > /dev/null 2>&1; then
	cat > "$T/m.rs" << 'EOF'
mod inner {
    pub struct Worker { pub n: u64 }
    impl Worker {
        #[inline(never)]
        pub fn spin(&self) -> u64 { let mut s = 0u64; for i in 0..self.n { s = s.wrapping_add(std::hint::black_box(i) ^ (s >> 3)); } s }
    }
}
fn main() { let w = inner::Worker { n: 1_000_000 }; let mut t = 0; for _ in 0..150 { t += w.spin(); } std::process::exit((t == 42) as i32); }
EOF
	for mangling in default v0; do
		flag=
		[ $mangling = v0 ] && flag="-C symbol-mangling-version=v0"
		if rustc -O -C force-frame-pointers=yes $flag -o "$R/rs-$mangling" "$T/m.rs" 2> /dev/null; then
			status 0 "Rust ($mangling)" "$EMBER" record -q -o "$T/rs.folded" -- "$R/rs-$mangling"
			grep -q 'm::main;\(<m::inner::Worker>\|m::inner::Worker\)::spin [0-9]' "$T/rs.folded" && ok ||
				bad "Rust $mangling symbols demangled: $(tail -1 "$T/rs.folded")"
		fi
	done
else
	echo "record: Rust tests skipped: no rustc"
fi

# --- the JIT environment ------------------------------------------------------
status 0 "JIT environment" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record -q -o "$T/x.folded" -- sh -c "echo \"\$PYTHON_PERF_JIT_SUPPORT|\$PYTHONPERFSUPPORT|\$NODE_OPTIONS\" > '$T/env'; '$CT' 0.1"
grep -q '^1||.*--perf-basic-prof' "$T/env" && ok || bad "PYTHON_PERF_JIT_SUPPORT and NODE_OPTIONS set, PYTHONPERFSUPPORT not: $(cat "$T/env")"
status 0 "--no-jit-env" env -u PYTHON_PERF_JIT_SUPPORT -u NODE_OPTIONS "$EMBER" record -q --no-jit-env -o "$T/x.folded" -- sh -c "echo \"\$PYTHON_PERF_JIT_SUPPORT|\$NODE_OPTIONS\" > '$T/env'; '$CT' 0.1"
check "--no-jit-env leaves the environment" test "$(cat "$T/env")" = "|"

# --- Node.js with perf maps -------------------------------------------------
if command -v node > /dev/null 2>&1; then
	cat > "$T/hot.js" << 'EOF'
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += Math.sqrt(i) * (i & 7); return s; }
function middle(n) { return leaf(n) + 1; }
function top(n) { return middle(n) * 2; }
const end = Date.now() + 1200;
let acc = 0;
while (Date.now() < end) acc += top(100000);
if (!(acc > 0)) console.log("?");
EOF
	status 0 "node" sh -c "cd '$T' && '$EMBER' record --pid -o '$T/node.folded' -- node --no-turbo-inlining '$T/hot.js'"
	check "node: no V8 log left in the working directory" sh -c "! ls '$T' | grep -q '^isolate-'"
	np=$(sed -n 's/^node-\([0-9]*\);.*/\1/p' "$T/node.folded" | head -1)
	check "node: its perf map removed after use" test -n "$np" -a ! -e "/tmp/perf-$np.map"
	lw=$(weight "$T/node.folded" 'JS:[*~^]leaf ')
	ordered=$(weight "$T/node.folded" 'JS:[*~^]top [^;]*;JS:[*~^]middle [^;]*;JS:[*~^]leaf ')
	check "node: JS leaf frames named ($lw)" test "$lw" -gt 0
	check "node: JS frames in order under their callers ($(pct "$ordered" "$lw")%)" \
		test "$(pct "$ordered" "$lw")" -ge 80
	grep -q 'Builtins_JSEntryTrampoline;JS:' "$T/node.folded" && ok || bad "node: JS frames under V8's entry"
	# samples in V8's builtins (no unwinding information, frame
	# pointers kept): walked on to their JS callers
	cat > "$T/builtins.js" << 'EOF'
function strs(n) { const a = []; for (let i = 0; i < n; i++) a.push(String(i) + 'x'); return a.join(',').length; }
const end = Date.now() + 1200;
let acc = 0;
while (Date.now() < end) acc += strs(20000);
if (!(acc > 0)) console.log("?");
EOF
	status 0 "node builtins" sh -c "cd '$T' && '$EMBER' record -o '$T/nb.folded' -- node '$T/builtins.js'"
	bw=$(weight "$T/nb.folded" ';Builtins_[A-Za-z]* [0-9]')
	bj=$(weight "$T/nb.folded" 'JS:[*~^]strs [^;]*;(.*;)?Builtins_[A-Za-z]* [0-9]')
	check "node: builtins sampled as the leaf ($bw)" test "$bw" -gt 0
	check "node: builtins under their JS caller ($(pct "$bj" "$bw")%)" test "$(pct "$bj" "$bw")" -ge 90
	tr=$(weight "$T/nb.folded" '\[truncated\]')
	check "node: under 2% of stacks truncated ($(pct "$tr" "$(weight "$T/nb.folded" .)")%)" \
		test "$(pct "$tr" "$(weight "$T/nb.folded" .)")" -lt 2
	check "node: no hint to copy more" sh -c "! grep -q 'copy more' '$T/err'"
else
	echo "record: node tests skipped: node is not installed"
fi

# --- Python 3.12+ writes its perf map under ember ------------------------------
py=
for c in python3.13 python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2> /dev/null; then
		py=$c
		break
	fi
done
if [ -n "$py" ]; then
	status 0 "python" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record --no-python --pid -o "$T/py.folded" -- "$py" -c '
def leaf(n):
    s = 0
    for i in range(n): s += i
    return s
leaf(2000000)'
	pp=$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$T/py.folded" | head -1)
	if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 13))'; then
		grep -q ';py::leaf:<string>' "$T/py.folded" && ok || bad "python: py:: frames named"
	else
		has "Python functions are not named" "$T/err" && ok || bad "python 3.12: the summary says how to name py:: frames"
	fi
	check "python: no perf map or jitdump left" test ! -e "/tmp/perf-$pp.map" -a ! -e "/tmp/jit-$pp.dump"
	status 0 "python --keep-jit-maps" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record --no-python -q --keep-jit-maps --pid -o "$T/py.folded" -- "$py" -c 'sum(range(3000000))'
	pp=$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$T/py.folded" | head -1)
	if "$py" -c 'import sys; sys.exit(sys.version_info < (3, 13))'; then
		check "python --keep-jit-maps: its map kept" test -e "/tmp/jit-$pp.dump" -o -e "/tmp/perf-$pp.map"
	fi
	rm -f "/tmp/perf-$pp.map" "/tmp/jit-$pp.dump"
	# the summary's top functions: the one the user wrote, not the
	# interpreter's C functions under it
	status 0 "python -X perf: top functions" "$EMBER" record --no-python --pid -o "$T/py.folded" -- "$py" -X perf -c '
def leaf(n):
    s = 0
    for i in range(n): s += i
    return s
leaf(3000000)'
	sed -n '/top functions/,$p' "$T/err" | grep -q '^ *[0-9.]*%  py::leaf:<string>$' && ok ||
		bad "python: py::leaf among the summary's top functions: $(sed -n '/top functions/,$p' "$T/err" | head -4)"
	rm -f "/tmp/perf-$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$T/py.folded" | head -1).map"
	status 0 "python -X perf: the user's own map" "$EMBER" record --no-python -q --pid -o "$T/py.folded" -- "$py" -X perf -c 'sum(range(3000000))'
	pp=$(sed -n 's/^[^;]*-\([0-9]*\);.*/\1/p' "$T/py.folded" | head -1)
	check "python -X perf: the map asked for stays" test -e "/tmp/perf-$pp.map"
	rm -f "/tmp/perf-$pp.map"
else
	echo "record: python tests skipped: no Python 3.12 or later"
fi

# --- Python 3.13 stopped by -d or Ctrl-C keeps its names --------------------
# share of the interpreter's samples (those in _PyEval_EvalFrameDefault)
# that carry a py:: frame, in percent; not counting CPython's start-up
# (pymain_init), which runs Python code before any trampoline can be on
pyshare() {
	grep -v ';pymain_init;' "$1" > "$1.run"
	pct "$(weight "$1.run" '_PyEval_EvalFrameDefault.*py::|py::.*_PyEval_EvalFrameDefault')" "$(weight "$1.run" _PyEval_EvalFrameDefault)"
}
py13=
for c in python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[3-9]*/bin/python3; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info < (3, 13))' 2> /dev/null; then
		py13=$c
		break
	fi
done
if [ -n "$py13" ]; then
	# the interpreter itself, not a launcher such as pyenv's shims
	py13=$("$py13" -c 'import sys; print(sys.executable)')
	cat > "$T/long.py" << 'PYEOF'
import os, sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def middle():
    return leaf(20000)
def top():
    end = time.time() + 30
    while time.time() < end:
        middle()
print(os.getpid(), flush=True)
try:
    top()
finally:
    print("clean-up ran", flush=True)
PYEOF
	status 0 "python 3.13 -d" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record --no-python -d 3 -o "$T/py13d.folded" -- "$py13" "$T/long.py"
	s=$(pyshare "$T/py13d.folded")
	check "python 3.13 -d: py:: frames in ${s}% of the interpreter's samples" test "$s" -ge 95
	check "python 3.13 -d: a KeyboardInterrupt" has KeyboardInterrupt "$T/err"
	check "python 3.13 -d: its clean-up ran" grep -q "clean-up ran" "$T/out"
	pp=$(head -1 "$T/out")
	check "python 3.13 -d: no perf map or jitdump left" test -n "$pp" -a ! -e "/tmp/perf-$pp.map" -a ! -e "/tmp/jit-$pp.dump"
	if command -v python3 > /dev/null 2>&1; then
		status 130 "python 3.13 Ctrl-C" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT python3 tests/record/ctrlc.py 3 1 "$EMBER" record --no-python -o "$T/py13c.folded" -- "$py13" "$T/long.py"
		s=$(pyshare "$T/py13c.folded")
		check "python 3.13 Ctrl-C: py:: frames in ${s}% of the interpreter's samples" test "$s" -ge 95
		check "python 3.13 Ctrl-C: a KeyboardInterrupt" has KeyboardInterrupt "$T/err"
		check "python 3.13 Ctrl-C: its clean-up ran" grep -q "clean-up ran" "$T/out"
	fi
	# what the user asked for stays: -X perf (a perf map, not a jitdump)
	status 0 "python 3.13 -X perf" env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$EMBER" record --no-python -q -o "$T/x.folded" -- "$py13" -X perf -c 'import os; print(os.getpid()); sum(i * i for i in range(2000000))'
	pp=$(head -1 "$T/out")
	check "python 3.13 -X perf: its perf map written and kept" test -n "$pp" -a -s "/tmp/perf-$pp.map"
	check "python 3.13 -X perf: no jitdump instead" test ! -e "/tmp/jit-$pp.dump"
	rm -f "/tmp/perf-$pp.map" "/tmp/jit-$pp.dump"
	status 0 "python 3.13 PYTHONPERFSUPPORT=1" env -u PYTHON_PERF_JIT_SUPPORT PYTHONPERFSUPPORT=1 "$EMBER" record --no-python -q -o "$T/x.folded" -- "$py13" -c 'import os; print(os.getpid()); sum(i * i for i in range(2000000))'
	pp=$(head -1 "$T/out")
	check "python 3.13 PYTHONPERFSUPPORT=1: a perf map, no jitdump" test -n "$pp" -a -s "/tmp/perf-$pp.map" -a ! -e "/tmp/jit-$pp.dump"
	rm -f "/tmp/perf-$pp.map" "/tmp/jit-$pp.dump"
	# attached to a Python 3.13 without perf support: what would name it
	env -u PYTHONPERFSUPPORT -u PYTHON_PERF_JIT_SUPPORT "$py13" "$T/long.py" > "$T/bg.out" 2>&1 &
	bg=$!
	sleep 1
	status 0 "python 3.13 -p without perf support" "$EMBER" record --no-python -d 1 -o "$T/x.folded" -p "$bg"
	kill "$bg" 2> /dev/null
	wait "$bg" 2> /dev/null
	check "python 3.13 -p: the note says how to name its functions" has "in process $bg, Python 3.13: it runs without perf support; restart it with -X perf or PYTHONPERFSUPPORT=1, or have it call sys.activate_stack_trampoline(\"perf\")" "$T/err"
	check "python 3.13 -p: no advice for 3.12" sh -c "! grep -q 'Python 3.12 with' '$T/err'"
else
	echo "record: python 3.13 tests skipped: no Python 3.13 or later"
fi
py11=
for c in /usr/bin/python3 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.11*/bin/python3.11; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2> /dev/null; then
		py11=$c
		break
	fi
done
if [ -n "$py11" ]; then
	"$py11" -c 'import time
end = time.time() + 5
while time.time() < end: sum(range(1000))' &
	bg=$!
	sleep 1
	status 0 "python 3.11 -p" "$EMBER" record --no-python -d 1 -o "$T/x.folded" -p "$bg"
	kill "$bg" 2> /dev/null
	wait "$bg" 2> /dev/null
	check "python 3.11 -p: the note says it has no perf support" has "Python 3.11 has no perf support" "$T/err"
fi
if command -v node > /dev/null 2>&1; then
	cat > "$T/spin.js" << 'JSEOF'
function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i; return s; }
const end = Date.now() + 8000;
while (Date.now() < end) leaf(10000);
JSEOF
	env -u NODE_OPTIONS node "$T/spin.js" &
	bg=$!
	sleep 1.5
	status 0 "node -p without a perf map" "$EMBER" record --no-python -d 1 -o "$T/x.folded" -p "$bg"
	kill "$bg" 2> /dev/null
	wait "$bg" 2> /dev/null
	check "node -p: the note says its JIT code has no map, and what writes one" has "JIT code of process $bg is not named ([perf-$bg.map] frames): it wrote no /tmp/perf-$bg.map; start it with node --perf-basic-prof" "$T/err"
fi

# Python 3.12 behaves as without ember (a recursion 900 deep, fine alone)
py12=
for c in python3.12 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.12*/bin/python3; do
	if command -v "$c" > /dev/null 2>&1 &&
		"$c" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 12))' 2> /dev/null; then
		py12=$c
		break
	fi
done
if [ -n "$py12" ]; then
	cat > "$T/r.py" << 'EOF'
def r(n):
    return 0 if n == 0 else 1 + r(n - 1)
print(r(900))
EOF
	status 0 "python 3.12: a recursion 900 deep" env -u PYTHONPERFSUPPORT "$EMBER" record --no-python -q -o "$T/x.folded" -- "$py12" "$T/r.py"
	check "python 3.12: no RecursionError" sh -c "! grep -q RecursionError '$T/err'"
	check "python 3.12: the program's own output" grep -qx 900 "$T/out"
	# PYTHONPERFSUPPORT=1 before the command, as CPython's docs write it
	status 0 "python 3.12: PYTHONPERFSUPPORT=1 before the command" env -u PYTHONPERFSUPPORT "$EMBER" record --no-python -q -o "$T/py12a.folded" PYTHONPERFSUPPORT=1 "$py12" -c 'import os; print(os.getpid())
def leaf(n):
    return sum(i * i for i in range(n))
leaf(3000000)'
	grep -q ';py::leaf:<string>' "$T/py12a.folded" && ok || bad "python 3.12: PYTHONPERFSUPPORT=1 word: py:: frames named"
	pp=$(head -1 "$T/out")
	check "python 3.12: PYTHONPERFSUPPORT=1 word: the map asked for stays" test -n "$pp" -a -e "/tmp/perf-$pp.map"
	rm -f "/tmp/perf-$pp.map"
	# a program that writes its own perf map keeps it
	status 0 "python 3.12: its own trampoline" env -u PYTHONPERFSUPPORT "$EMBER" record --no-python -q -o "$T/py12t.folded" -- "$py12" -c 'import os, sys
sys.activate_stack_trampoline("perf")
print(os.getpid())
def leaf(n):
    return sum(i * i for i in range(n))
leaf(3000000)'
	pp=$(head -1 "$T/out")
	check "python 3.12: the map it wrote itself stays" test -n "$pp" -a -e "/tmp/perf-$pp.map"
	rm -f "/tmp/perf-$pp.map"
fi

finish
