#!/bin/sh
# pprof written by `ember record`, checked with its real consumer, `go
# tool pprof`: a C program built -O2 -g with known functions and lines
# (tests/record/calltree.c, threads.c) recorded to .pb.gz; -top's header
# (File, Type, Duration, Period), both sample types, the pid/tid/thread
# labels (-tags, -tagfocus), source lines (-list, -lines) and the
# instructions (-disasm).  The programs are built -no-pie: Go's own pprof
# (Debian's golang-go) disassembles only binaries at their link address.
# Skips, saying why, without go, a compiler or perf_event_open.
. tests/cli/lib.sh
suite=pprof
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}

skip_all() {
	echo "pprof: skipped: $*"
	echo "pprof: 0 passed, 0 failed"
	exit 0
}

command -v go > /dev/null 2>&1 || skip_all "no go (Debian package golang-go)"
export GOCACHE="$T/gocache" GOTOOLCHAIN=local
$CC -O2 -g -no-pie -fno-omit-frame-pointer -o "$R/calltree" tests/record/calltree.c 2> "$T/cc.err" &&
	$CC -O2 -g -no-pie -fno-omit-frame-pointer -pthread -o "$R/threads" tests/record/threads.c 2>> "$T/cc.err" ||
	skip_all "cannot compile the test programs: $(head -1 "$T/cc.err")"
if ! "$EMBER" record -q -o "$T/probe.folded" -- "$R/calltree" 0.05 > /dev/null 2> "$T/probe.err"; then
	skip_all "ember record cannot record here: $(head -1 "$T/probe.err")"
fi
pp() { go tool pprof "$@" 2> "$T/pp.err"; }

status 0 "record -o .pb.gz" "$EMBER" record -q -F 999 -o "$T/c.pb.gz" -- "$R/calltree" 1
pp -top "$T/c.pb.gz" > "$T/top"
check "-top: File is the program" has "File: calltree" "$T/top"
check "-top: its build-id" has "Build ID: $(readelf -n "$R/calltree" | awk '/Build ID:/ { print $3 }')" "$T/top"
check "-top: Type: cpu" has "Type: cpu" "$T/top"
check "-top: a Duration" grep -q "^Duration: [0-9.]*m*s, Total samples = " "$T/top"
check "-top: the hot function" grep -q " spin$" "$T/top"
pp -raw "$T/c.pb.gz" > "$T/raw"
check "the period of 999 Hz in ns" grep -qx "Period: 1001001" "$T/raw"
check "its type" grep -qx "PeriodType: cpu nanoseconds" "$T/raw"
check "a time" grep -q "^Time: 2[0-9][0-9][0-9]-" "$T/raw"

pp -top -sample_index=samples "$T/c.pb.gz" > "$T/top-s"
check "-sample_index=samples" has "Type: samples" "$T/top-s"
pp -top -sample_index=cpu "$T/c.pb.gz" > "$T/top-c"
check "-sample_index=cpu" has "Type: cpu" "$T/top-c"
# the two agree: 999 Hz, each sample about 1 ms
n=$(awk '/Total samples =/ { print $NF; exit }' "$T/top-s")
check "  samples counted" sh -c "test '${n:-0}' -gt 100"

pp -tags "$T/c.pb.gz" > "$T/tags"
check "-tags: pid" grep -q "^ *pid: Total" "$T/tags"
check "-tags: tid" grep -q "^ *tid: Total" "$T/tags"
check "-tags: thread, by name" grep -q "%): calltree$" "$T/tags"

pp -list=work_a "$T/c.pb.gz" > "$T/list"
check "-list: source information" sh -c "! grep -q 'No source information' '$T/list' && grep -q 'ROUTINE.*work_a.*calltree.c' '$T/list'"
# the call of leaf_hot in work_a's line, with its time (cumulative: a
# sample now and then lands in work_a's own instructions, its flat time)
if grep -Eq "^ +(\.|[0-9.]+[mu]?s) +[0-9.]+[mu]?s +[0-9]+:NOINLINE void work_a" "$T/list"; then
	ok
else
	bad "-list: the line of the call, with a count"
	grep -A3 ROUTINE "$T/list" | head -4 | sed 's/^/  /'
fi

pp -top -lines "$T/c.pb.gz" > "$T/lines"
line=$(awk '/flat%/ { go = 1; next } go && / spin / { print $NF; exit }' "$T/lines")
want=$(grep -n 'acc += i ^ (acc >> 3);' tests/record/calltree.c | cut -d: -f1)
check "-lines: spin's time on its loop" sh -c "case '$line' in *calltree.c:$want|*calltree.c:$((want - 1))) ;; *) exit 1;; esac"

pp -disasm=leaf_hot "$T/c.pb.gz" > "$T/disasm"
check "-disasm: the function's instructions" grep -q "ROUTINE ======================== leaf_hot" "$T/disasm"
check "-disasm: the call with its count" grep -Eq "[0-9.]+m?s +[0-9a-f]+: CALL spin" "$T/disasm"

# a caller's Location is inside its call instruction (its return address
# - 1, as Go's runtime/pprof writes it), with its line the call's,
# whichever walk found it; its Function has the declaration's line
ret=$(objdump -d --no-show-raw-insn "$R/calltree" 2> /dev/null |
	awk '/<work_a>:/ { f = 1 } f && /call.*<leaf_hot>/ { getline; sub(":", "", $1); print $1; exit }')
ret=$(printf '0x%x' $((0x${ret:-1} - 1)))
decl=$(grep -n '^NOINLINE void work_a' tests/record/calltree.c | cut -d: -f1)
for g in fp dwarf; do
	status 0 "record -g $g" "$EMBER" record -q -g $g -F 999 -o "$T/$g.pb.gz" -- "$R/calltree" 0.5
	pp -raw "$T/$g.pb.gz" > "$T/$g.raw"
	awk '$4 == "work_a" { print $2 }' "$T/$g.raw" | sort -u > "$T/$g.addr"
	check "  -g $g: work_a's Location in its call ($ret)" sh -c "test -n '$ret' && grep -qx '$ret' '$T/$g.addr'"
	check "  -g $g: its line, the call's" grep -Eq "^ +[0-9]+: $ret M=1 work_a .*calltree.c:$decl s=" "$T/$g.raw"
	check "  -g $g: Function.start_line, its declaration's" grep -Eq " work_a .*calltree.c:[0-9]+ s=$decl$" "$T/$g.raw"
done
check "the same caller Locations with -g fp and -g dwarf" cmp -s "$T/fp.addr" "$T/dwarf.addr"

# C++: Function.system_name is the mangled name, name the demangled one
if command -v c++ > /dev/null 2>&1 &&
	c++ -O2 -g -no-pie -fno-omit-frame-pointer -o "$R/cxx" tests/record/cxx.cc 2> "$T/cxx.err"; then
	status 0 "record a C++ program" "$EMBER" record -q -F 999 -o "$T/cxx.pb.gz" -- "$R/cxx" 0.5
	pp -top "$T/cxx.pb.gz" > "$T/cxx.top"
	check "  the demangled name" grep -q " ember_test::Spinner::spin$" "$T/cxx.top"
	gzip -dc "$T/cxx.pb.gz" > "$T/cxx.pb"
	check "  the mangled name (system_name)" grep -aq "_ZN10ember_test7Spinner4spinEm" "$T/cxx.pb"
else
	echo "pprof: C++ part skipped: $(head -1 "$T/cxx.err" 2> /dev/null)"
fi

# threads: labels narrow the profile
# threads: labels narrow the profile
status 0 "record two named threads" "$EMBER" record -q -o "$T/t.pb.gz" -- "$R/threads" 0.5
pp -tags "$T/t.pb.gz" > "$T/ttags"
check "-tags: both threads" sh -c "grep -q ': worker-a$' '$T/ttags' && grep -q ': worker-b$' '$T/ttags'"
pp -top -tagfocus=thread=worker-a "$T/t.pb.gz" > "$T/ta"
check "-tagfocus=thread=worker-a: its function" grep -q " thread_a_work$" "$T/ta"
check "  not the other thread's" sh -c "! grep -q ' thread_b_work$' '$T/ta'"

# read back by ember: the thread label as root frames, as the folded
# output has them
status 0 "ember reads it back" "$EMBER" collapse --label thread "$T/c.pb.gz"
check "  the program's frames under its thread" grep -q "^calltree;.*;main;work_a;leaf_hot;spin " "$T/out"

# perf.data: the same from perf's own recording, read by ember
if command -v perf > /dev/null 2>&1 &&
	perf record -q -g -F 999 -o "$T/c.perf.data" -- "$R/calltree" 1 > /dev/null 2> "$T/perf.err"; then
	status 0 "collapse perf perf.data -o .pb.gz" "$EMBER" collapse perf -q "$T/c.perf.data" -o "$T/p.pb.gz"
	pp -top "$T/p.pb.gz" > "$T/ptop"
	check "perf.data: File is the program" has "File: calltree" "$T/ptop"
	check "perf.data: Type: cpu" has "Type: cpu" "$T/ptop"
	check "perf.data: a Duration" grep -q "^Duration: [0-9.]*m*s, Total samples = " "$T/ptop"
	pp -raw "$T/p.pb.gz" > "$T/praw"
	check "perf.data: the period" grep -qx "Period: 1001001" "$T/praw"
	check "perf.data: addresses" grep -Eq "^ +[0-9]+: 0x[1-9a-f][0-9a-f]+ M=1 leaf_hot " "$T/praw"
	check "perf.data: Function.start_line" grep -Eq " work_a .*calltree.c:[0-9]+ s=$decl$" "$T/praw"
	awk '$4 == "work_a" { print $2 }' "$T/praw" | sort -u > "$T/pfp.addr"
	check "perf.data: work_a's Location in its call" grep -qx "$ret" "$T/pfp.addr"
	if perf record -q --call-graph dwarf -F 999 -o "$T/d.perf.data" -- "$R/calltree" 0.5 > /dev/null 2>&1; then
		status 0 "perf.data --call-graph dwarf -o .pb.gz" "$EMBER" collapse perf -q "$T/d.perf.data" -o "$T/pd.pb.gz"
		pp -raw "$T/pd.pb.gz" | awk '$4 == "work_a" { print $2 }' | sort -u > "$T/pdw.addr"
		check "  the same caller Locations as with frame pointers" cmp -s "$T/pfp.addr" "$T/pdw.addr"
	fi
	pp -top -sample_index=samples "$T/p.pb.gz" > "$T/ptop-s"
	check "perf.data: -sample_index=samples" has "Type: samples" "$T/ptop-s"
	pp -tags "$T/p.pb.gz" > "$T/ptags"
	check "perf.data: -tags: the thread" grep -q "%): calltree$" "$T/ptags"
	pp -list=work_a "$T/p.pb.gz" > "$T/plist"
	check "perf.data: -list: source lines with counts" grep -Eq "^ +\. +[0-9.]+m?s +[0-9]+:NOINLINE void work_a" "$T/plist"
	pp -disasm=leaf_hot "$T/p.pb.gz" > "$T/pdisasm"
	# the caller's return address: its count on the instruction after the call
	check "perf.data: -disasm" sh -c "grep -q 'CALL spin' '$T/pdisasm' && grep -Eq '[0-9.]+m?s +[0-9a-f]+: .*leaf_hot calltree.c:' '$T/pdisasm'"
	# the folded stacks, read back with the thread as root frames
	"$EMBER" collapse perf -q "$T/c.perf.data" > "$T/pwant"
	status 0 "perf.data: its pprof read back" "$EMBER" collapse -q --label thread "$T/p.pb.gz"
	check "  the folded stacks of the perf.data" cmp -s "$T/out" "$T/pwant"
else
	echo "pprof: perf.data parts skipped: perf cannot record here: $(head -1 "$T/perf.err")"
fi

finish
