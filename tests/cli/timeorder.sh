#!/bin/sh
# The readers that know when each sample was taken (perf script text with
# or without -F's cpu, time, period and event; Chrome traces' CPU
# profiles; .cpuprofile) keep time order and threads into the writers
# that have a place for them: perf script text, speedscope, trace
# events, .cpuprofile, pprof.  Inputs: tests/interchange/README.md.
. tests/cli/lib.sh
suite=timeorder
I=tests/interchange

# The phases of a perf script text, in the order of its samples: per
# sample the first frame that is a phase, each change printed once.
phases() {
	awk '/^[^ \t]/ { ph = ""; next }
		/^$/ { if (ph != "" && ph != last) { printf "%s ", ph; last = ph } ph = ""; next }
		ph == "" && match($0, / (parse|compute|write_out)[ +(]/) { ph = substr($0, RSTART + 1, RLENGTH - 2) }
		END { if (ph != "" && ph != last) printf "%s ", ph; print "" }' "$1"
}
order="parse compute write_out parse "

# perf script text as perf prints it, and two -F variations
for v in default pidcpu nop; do
	in="$I/phases-perf-$v.txt.gz"
	gzip -dc "$in" > "$T/in.txt"
	status 0 "perf script ($v) -o .perf.txt" "$EMBER" collapse perf "$in" -o "$T/$v.perf.txt"
	check "  the phases in time order" test "$(phases "$T/$v.perf.txt")" = "$order"
	check "  every sample's time, in order" sh -c "grep '^phases ' '$T/in.txt' |
		awk '{ for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+[.][0-9]+:\$/) { print \$i; break } }' > '$T/want';
		grep '^phases ' '$T/$v.perf.txt' |
		awk '{ for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+[.][0-9]+:\$/) { print \$i; break } }' |
		cmp -s - '$T/want'"
	check "  the thread" grep -q '^phases [-0-9]*/12992 ' "$T/$v.perf.txt"
	check "  the addresses" grep -q '^	 *1[0-9a-f][0-9a-f][0-9a-f] parse+0x0 (/opt/ember-test/phases)$' "$T/$v.perf.txt"
	status 0 "  collapse perf reads it back to the same stacks" "$EMBER" collapse perf "$T/$v.perf.txt"
	"$EMBER" collapse perf "$in" > "$T/want" 2> /dev/null
	check "  (the folded stacks of the input)" cmp -s "$T/out" "$T/want"
	status 0 "perf script ($v) -o .speedscope.json" "$EMBER" collapse perf "$in" -o "$T/$v.speedscope.json"
	check "  a profile of the thread" has '"name":"phases (tid 12992)"' "$T/$v.speedscope.json"
	status 0 "perf script ($v) -o .trace.json" "$EMBER" collapse perf "$in" -o "$T/$v.trace.json"
	check "  its CPU samples on the thread" sh -c "grep -q '\"ProfileChunk\"' '$T/$v.trace.json' &&
		grep -q '\"tid\":12992' '$T/$v.trace.json'"
	status 0 "  collapse chrome reads it" "$EMBER" collapse chrome "$T/$v.trace.json" -o "$T/$v.back.perf.txt"
	check "  to the phases in time order" test "$(phases "$T/$v.back.perf.txt")" = "$order"
	status 0 "perf script ($v) -o .pb.gz" "$EMBER" collapse perf "$in" -o "$T/$v.pb.gz"
done
check "perf script: the CPU where perf printed it" grep -q '^phases [-0-9]*/12992 \[001\] ' "$T/default.perf.txt"
check "  the pid where perf printed it" grep -q '^phases 12992/12992 \[001\] ' "$T/pidcpu.perf.txt"
check "  periods of cpu-clock in nanoseconds" has '"unit":"nanoseconds"' "$T/default.speedscope.json"
check "  no period: samples" sh -c "! grep -q '\"unit\":\"nanoseconds\"' '$T/nop.speedscope.json'"

# Chrome's trace: the CPU samples of its main thread, and the spans
printf 'run file:///phases.html:6;parse file:///phases.html:3;spin file:///phases.html:2 290462\n' > "$T/want"
status 0 "trace (Chromium): collapse chrome" "$EMBER" collapse chrome "$I/phases.trace.json"
check "  the CPU samples' stacks, in microseconds" grep -qxF -f "$T/want" "$T/out"
check "  and the spans" grep -q '^TimerFire;FunctionCall [0-9]' "$T/out"
status 0 "trace (Chromium) -o .perf.txt" "$EMBER" collapse chrome "$I/phases.trace.json" -o "$T/c.perf.txt"
check "  the phases in time order" test "$(phases "$T/c.perf.txt")" = "$order"
check "  on the renderer's main thread, by its name" sh -c "grep -B2 ' parse file' '$T/c.perf.txt' | grep -q '^CrRendererMain '"
status 0 "trace (Chromium) -o .speedscope.json" "$EMBER" collapse chrome "$I/phases.trace.json" -o "$T/c.speedscope.json"
check "  a profile per thread, by name" has '"name":"CrRendererMain (tid ' "$T/c.speedscope.json"
check "  in microseconds" has '"unit":"microseconds"' "$T/c.speedscope.json"
# a chunk whose samples outrun its deltas, a node of no profile
cat > "$T/bad.json" << 'EOT'
{"traceEvents":[
{"ph":"P","name":"Profile","id":"0x1","pid":1,"tid":2,"ts":0,"args":{"data":{"startTime":100}}},
{"ph":"P","name":"ProfileChunk","id":"0x1","pid":1,"tid":3,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}},{"id":3,"parent":3,"callFrame":{"functionName":"loop"}}],"samples":[2,9,3,2,2]},"timeDeltas":[10,10,10,10]}}}
]}
EOT
status 0 "trace: odd CPU profiles" "$EMBER" collapse chrome "$T/bad.json" -o "$T/bad.speedscope.json"
check "  warned of the samples without a delta" has "fewer time deltas than samples" "$T/err"
check "  the good samples kept" has '"name":"f"' "$T/bad.speedscope.json"

# a CpuProfile event (the whole profile in one, as DevTools makes of a
# .cpuprofile and Chrome wrote before ProfileChunk): what the .cpuprofile
# gives, at the same times, on the event's thread
G=tests/golden/collapse/chrome-cpuprofile-event
status 0 "trace: a CpuProfile event -o .perf.txt" "$EMBER" collapse chrome "$G/devtools.json" -o "$T/cp.perf.txt"
status 0 "  its .cpuprofile -o .perf.txt" "$EMBER" collapse cpuprofile "$G/node.cpuprofile" -o "$T/cpn.perf.txt"
check "  the phases in time order" test "$(phases "$T/cp.perf.txt")" = "$order"
check "  the .cpuprofile's stacks" sh -c "'$EMBER' collapse chrome '$G/devtools.json' > '$T/cp.folded' &&
	'$EMBER' collapse cpuprofile '$G/node.cpuprofile' | cmp -s - '$T/cp.folded'"
check "  the .cpuprofile's times, in order" sh -c "
	awk '/^[^ \t]/ { print \$(NF - 2), \$(NF - 1) }' '$T/cp.perf.txt' > '$T/cp.t' &&
	awk '/^[^ \t]/ { print \$(NF - 2), \$(NF - 1) }' '$T/cpn.perf.txt' > '$T/cpn.t' &&
	test -s '$T/cp.t' && cmp -s '$T/cp.t' '$T/cpn.t'"
check "  on the event's thread" sh -c "grep -q '^[^ \t].* 1/1 [0-9.]*: ' '$T/cp.perf.txt'"

# threads known by name alone (speedscope's "io-thread"; "app (tid 7)"
# has its tid): written with ids above the real ones, never below 0;
# pprof leaves the unknown ones out
S=tests/golden/collapse/speedscope-sampled-times/input.speedscope.json
for o in trace.json perf.txt firefox.json pb.gz; do
	status 0 "speedscope's named threads -o .$o" "$EMBER" collapse speedscope "$S" -o "$T/named.$o"
done
check "  trace events: tid 7, the other thread and the process ids of their own" sh -c "
	grep -c '\"pid\":8,\"tid\":7,' '$T/named.trace.json' | grep -qv '^0\$' &&
	grep -q '\"pid\":8,\"tid\":9,.*\"name\":\"io-thread\"' '$T/named.trace.json' &&
	! grep -q '\"[pt]id\":-' '$T/named.trace.json'"
check "  perf script: pid/tid 8/7 and 8/9" sh -c "grep -q '^app 8/7 ' '$T/named.perf.txt' &&
	grep -q '^io-thread 8/9 ' '$T/named.perf.txt' && ! grep -q '^[^ \t]* -' '$T/named.perf.txt'"
check "  Firefox Profiler: pid 8, tids 7 and 9" sh -c "
	grep -q '\"pid\":\"8\",\"tid\":7,' '$T/named.firefox.json' &&
	grep -q '\"pid\":\"8\",\"tid\":9,' '$T/named.firefox.json' &&
	! grep -q '\"[pt]id\":\"*-' '$T/named.firefox.json'"
if command -v go > /dev/null 2>&1 && go tool pprof -tags "$T/named.pb.gz" > "$T/tags" 2> /dev/null; then
	check "  pprof: tid 7 alone, no pid" sh -c "grep -A3 '^ *tid:' '$T/tags' | grep -q ': 7\$' &&
		! grep -q '^ *pid:' '$T/tags' && ! grep -q ': -' '$T/tags'"
fi

# .cpuprofile: the samples at startTime + timeDeltas
P=tests/golden/collapse/cpuprofile-time/p.cpuprofile
status 0 ".cpuprofile -o .speedscope.json" "$EMBER" collapse cpuprofile "$P" -o "$T/p.speedscope.json"
check "  the samples in time order, weighing their durations" \
	sh -c "grep -qF '\"samples\":[[0],[0,1],[2],[0,1],[0,1]],' '$T/p.speedscope.json' &&
		grep -qF '\"weights\":[50,180,20,280,132.5]' '$T/p.speedscope.json'"
check "  from the first sample, 100 us after startTime" has '"startValue":100.0,' "$T/p.speedscope.json"
if command -v node > /dev/null 2>&1 &&
	(cd "$T" && node --cpu-prof --cpu-prof-name=n.cpuprofile "$top/tests/record/phases.js" 0.05) 2> /dev/null; then
	status 0 "node --cpu-prof -o .perf.txt" "$EMBER" collapse cpuprofile "$T/n.cpuprofile" -o "$T/n.perf.txt"
	check "  the phases in time order" test "$(phases "$T/n.perf.txt")" = "$order"
else
	echo "timeorder: node --cpu-prof skipped: no node here"
fi

# perf record, perf script: a live recording, where perf records
R="$T/bin"
mkdir -p "$R"
if command -v perf > /dev/null 2>&1 &&
	${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$R/phases" tests/record/phases.c 2> /dev/null &&
	perf record -q -g -F 499 -o "$T/p.data" -- "$R/phases" 0.05 > /dev/null 2>&1; then
	perf script -i "$T/p.data" > "$T/p.txt" 2> /dev/null
	perf script -i "$T/p.data" -F comm,tid,time,ip,sym,dso > "$T/pF.txt" 2> /dev/null
	for f in p pF; do
		status 0 "perf record, perf script ($f) -o .perf.txt" "$EMBER" collapse perf "$T/$f.txt" -o "$T/$f.out.perf.txt"
		check "  the phases in time order" test "$(phases "$T/$f.out.perf.txt")" = "$order"
	done
	# perf.data and its text in one run: nothing time-ordered to merge,
	# the folded stacks of both
	status 0 "perf.data and perf script text together" "$EMBER" collapse perf -q "$T/p.data" "$T/p.txt" -o "$T/both.speedscope.json"
	check "  written" has '"profiles":' "$T/both.speedscope.json"
	# one perf.data written from its profile alone (not folded): the
	# stacks of its folded output (less the process, a profile's name),
	# and no count of folded stacks said; two are folded, as before
	"$EMBER" collapse perf -q "$T/p.data" > "$T/p.folded"
	status 0 "perf.data -o .speedscope.json" sh -c "'$EMBER' collapse perf '$T/p.data' -o '$T/one.speedscope.json' 2> '$T/one.err'"
	"$EMBER" collapse speedscope "$T/one.speedscope.json" | sed 's/ [0-9]*$//' | sort > "$T/one.got"
	sed 's/^[^;]*;//; s/ [0-9]*$//' "$T/p.folded" | sort > "$T/one.want"
	check "  the stacks of its folded output" sh -c "test -s '$T/one.want' && cmp -s '$T/one.got' '$T/one.want'"
	check "  the samples read said, no folded stacks" sh -c "grep -q '^ember: read [0-9]* samples: [0-9]* lost\$' '$T/one.err' || { sed 's/^/    /' '$T/one.err' >&2; false; }"
	"$EMBER" collapse perf -q "$T/p.data" "$T/p.data" > "$T/two.folded"
	status 0 "perf.data twice -o .speedscope.json" "$EMBER" collapse perf -q "$T/p.data" "$T/p.data" -o "$T/two.speedscope.json"
	"$EMBER" collapse speedscope "$T/two.speedscope.json" > "$T/two.got"
	check "  the folded stacks of both" sh -c "test -s '$T/two.folded' && cmp -s '$T/two.got' '$T/two.folded'"
else
	echo "timeorder: perf record skipped: no perf, or it cannot record here"
fi
finish
