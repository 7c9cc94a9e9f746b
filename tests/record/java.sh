#!/bin/sh
# ember record on Java (HotSpot, JDK 17+): a program with a known call
# chain (tests/record/Hot.java, compiled here) named by method under its
# callers and the JVM's own frames, as a command and attached to with -p;
# the perf maps cleaned up; the java palette by default; --no-jit-env;
# another user's JVM.
# Skips, saying why, where Java, javac or perf_event_open is missing.
. tests/cli/lib.sh
suite=java

skip_all() {
	echo "java: skipped: $*"
	echo "java: 0 passed, 0 failed"
	exit 0
}

command -v java > /dev/null 2>&1 || skip_all "java is not installed (openjdk-17-jdk-headless)"
command -v javac > /dev/null 2>&1 || skip_all "javac is not installed (openjdk-17-jdk-headless)"
mkdir -p "$T/classes"
javac -d "$T/classes" tests/record/Hot.java 2> "$T/javac.err" ||
	skip_all "cannot compile tests/record/Hot.java: $(head -1 "$T/javac.err")"
"$EMBER" record -q -o "$T/probe.folded" -- sleep 0.01 > /dev/null 2> "$T/probe.err" ||
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"

# each method its own compiled code, so its own frame
JAVA="java -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,demo.Hot::* -cp $T/classes"
# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
# percentage of A in B, rounded
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f\n", 100 * a / b; else print -1 }'; }
# the fill of the first frame titled NAME in an SVG, as "R G B"
fill() {
	awk -v t="<title>$2 (" 'index($0, t) { f = 1; next }
		f && /fill="rgb\(/ { sub(/.*fill="rgb\(/, ""); sub(/\).*/, ""); gsub(/,/, " "); print; exit }' "$1"
}
# FlameGraph's green (r = b < 110, g >= 200) and yellow (r = g >= 175, b < 70)
green() { set -- $1; [ $# -eq 3 ] && [ "$1" = "$3" ] && [ "$1" -lt 110 ] && [ "$2" -ge 200 ]; }
yellow() { set -- $1; [ $# -eq 3 ] && [ "$1" = "$2" ] && [ "$1" -ge 175 ] && [ "$3" -lt 70 ]; }
other() { [ -n "$1" ] && ! green "$1"; }

# the JVM's frames down to the Java main method, and the chain under it
# (main compiled, or still interpreted)
JVM='start_thread;([^;]*;)*JavaMain;([^;]*;)*JavaCalls::call_helper;'
CHAIN='(demo/Hot:::main|Interpreter);demo/Hot:::a;demo/Hot:::b( |;)'

# --- a command: JAVA_TOOL_OPTIONS, the map written at exit --------------
status 0 "java recorded" "$EMBER" record --pid -o "$T/j.folded" -- $JAVA demo.Hot 1
jp=$(sed -n 's/^java-\([0-9]*\);.*/\1/p' "$T/j.folded" | head -1)
all=$(weight "$T/j.folded" '.')
b=$(weight "$T/j.folded" ';demo/Hot:::b( |;)')
chain=$(weight "$T/j.folded" "^java-$jp;([^;]*;)*$JVM([^;]*;)*$CHAIN")
echo "java: b $(pct "$b" "$all")% of the samples, $(pct "$chain" "$b")% of them under main, a and the JVM's frames"
check "java: b named, $(pct "$b" "$all")% of the samples (at least 50%)" test "$(pct "$b" "$all")" -ge 50
check "java: b under a, main and the JVM's frames from start_thread ($(pct "$chain" "$b")%)" \
	test "$(pct "$chain" "$b")" -ge 90
check "java: main compiled and named" grep -q ';demo/Hot:::main;demo/Hot:::a;' "$T/j.folded"
check "java: interpreted frames named Interpreter" grep -q ';Interpreter[; ]' "$T/j.folded"
check "java: the summary lists b" grep -q '%  demo/Hot:::b$' "$T/err"
check "java: the JVM had the switches" grep -q 'Picked up JAVA_TOOL_OPTIONS: .*-XX:+PreserveFramePointer.*-XX:+DumpPerfMapAtExit' "$T/err"
check "java: its perf map removed after use" test -n "$jp" -a ! -e "/tmp/perf-$jp.map"

# stopped by -d: the JVM, ended by ember (SIGINT, then SIGTERM), still
# writes its map, and ember exits 0: it ended the JVM itself
status 0 "java -d: ember ended the JVM, exit 0" "$EMBER" record --pid -d 0.6 -o "$T/d.folded" -- $JAVA demo.Hot 10
jp=$(sed -n 's/^java-\([0-9]*\);.*/\1/p' "$T/d.folded" | head -1)
check "java -d: b named" grep -q ';demo/Hot:::a;demo/Hot:::b' "$T/d.folded"
check "java -d: its perf map removed after use" test -n "$jp" -a ! -e "/tmp/perf-$jp.map"

# --- the java palette by default; the user's own map is kept ------------
status 0 "java svg" "$EMBER" record --pid -o "$T/j.svg" -- $JAVA -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit demo.Hot 0.4
jp=$(sed -n 's/.*<title>java-\([0-9]*\) (.*/\1/p' "$T/j.svg" | head -1)
check "java svg: a Java method is green ($(fill "$T/j.svg" 'demo/Hot:::b'))" green "$(fill "$T/j.svg" 'demo/Hot:::b')"
check "java svg: the JVM's C++ is yellow ($(fill "$T/j.svg" 'JavaCalls::call_helper'))" \
	yellow "$(fill "$T/j.svg" 'JavaCalls::call_helper')"
check "java svg: the perf map the command asked for is kept" test -n "$jp" -a -e "/tmp/perf-$jp.map"
[ -n "$jp" ] && rm -f "/tmp/perf-$jp.map"
# an explicit --colors wins
status 0 "java svg --colors" "$EMBER" record -q --colors hot -o "$T/h.svg" -- $JAVA demo.Hot 0.2
check "java svg --colors hot: a Java method is not green ($(fill "$T/h.svg" 'demo/Hot:::b'))" \
	other "$(fill "$T/h.svg" 'demo/Hot:::b')"

# --- --no-jit-env: no switches, no names --------------------------------
status 0 "java --no-jit-env" "$EMBER" record --pid --no-jit-env -o "$T/n.folded" -- $JAVA demo.Hot 0.3
jp=$(sed -n 's/^java-\([0-9]*\);.*/\1/p' "$T/n.folded" | head -1)
check "java --no-jit-env: no Java names" sh -c "! grep -q ':::' '$T/n.folded'"
check "java --no-jit-env: JIT code unnamed" grep -q "\[perf-$jp.map\]" "$T/n.folded"
check "java --no-jit-env: no JAVA_TOOL_OPTIONS" sh -c "! grep -q JAVA_TOOL_OPTIONS '$T/err'"
check "java --no-jit-env: no perf map written" test -n "$jp" -a ! -e "/tmp/perf-$jp.map"

# --- -p: a running JVM is asked for its map -----------------------------
# start JVM SECONDS ARGS...: a JVM running Hot in the background, $jvm its
# pid, once it says it runs
start() {
	s=$1; shift
	$JAVA "$@" demo.Hot "$s" ready > "$T/ready" 2> /dev/null &
	jvm=$!
	i=0
	while ! grep -q ready "$T/ready" 2> /dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
jcmd=$(dirname "$(readlink -f "$(command -v java)")")/jcmd
if [ -x "$jcmd" ] || command -v jcmd > /dev/null 2>&1; then
	start 6 -XX:+PreserveFramePointer
	status 0 "java -p" "$EMBER" record -p "$jvm" -d 1 -o "$T/p.folded"
	check "java -p: the JVM still runs" kill -0 "$jvm"
	check "java -p: the map ember asked for is removed" test ! -e "/tmp/perf-$jvm.map"
	kill "$jvm" 2> /dev/null
	wait "$jvm" 2> /dev/null
	all=$(weight "$T/p.folded" '.')
	b=$(weight "$T/p.folded" ';demo/Hot:::b( |;)')
	chain=$(weight "$T/p.folded" "^java;([^;]*;)*$JVM([^;]*;)*$CHAIN")
	check "java -p: b named, $(pct "$b" "$all")% of the samples (at least 50%)" test "$(pct "$b" "$all")" -ge 50
	check "java -p: b under a, main and the JVM's frames ($(pct "$chain" "$b")%)" test "$(pct "$chain" "$b")" -ge 90
	check "java -p: no warning about the JVM" sh -c "! grep -q 'JVM\\|perf map' '$T/err'"

	# another user's JVM: jcmd runs as that user, the map is that user's
	if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null 2>&1 && id nobody > /dev/null 2>&1; then
		chmod -R a+rX "$T"
		plain=$JAVA
		JAVA="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups $plain"
		start 6 -XX:+PreserveFramePointer
		JAVA=$plain
		status 0 "java -p, another user's JVM" "$EMBER" record -p "$jvm" -d 0.5 -o "$T/u.folded"
		check "java -p, another user's JVM: b named" grep -q ';demo/Hot:::a;demo/Hot:::b' "$T/u.folded"
		check "java -p, another user's JVM: the map ember asked for is removed" test ! -e "/tmp/perf-$jvm.map"
		kill "$jvm" 2> /dev/null
		wait "$jvm" 2> /dev/null
	else
		echo "java: -p on another user's JVM skipped: not root, or no setpriv or nobody"
	fi

	# a JVM that keeps no frame pointers and refuses to be attached to
	start 6 -XX:+DisableAttachMechanism
	status 0 "java -p, attach disabled" "$EMBER" record -p "$jvm" -d 0.3 -o "$T/d.folded"
	kill "$jvm" 2> /dev/null
	wait "$jvm" 2> /dev/null
	check "java -p: says the JVM keeps no frame pointers" grep -q "JVM $jvm runs without -XX:+PreserveFramePointer" "$T/err"
	check "java -p: says why the JVM gave no map" \
		grep -q "cannot ask JVM $jvm for its perf map: .*Compiler.perfmap' failed: .*attach" "$T/err"
	check "java -p: no Java names without a map" sh -c "! grep -q ':::' '$T/d.folded'"
else
	echo "java: -p tests skipped: no jcmd (openjdk-17-jdk-headless)"
fi

finish
