#!/bin/sh
# The round trip record -> pprof -> ember -> speedscope and -> pprof again
# keeps what both formats hold: a C program built -O2 -g with known phases
# (tests/record/phases.c: parse, compute, write_out, parse) recorded to
# .pb.gz (each sample's time in a timestamp_ns label), read back by
# `ember collapse pprof` and written as speedscope (one profile per
# thread, the phases in time order, each about a quarter of the time) and
# as pprof (go tool pprof: -list's source lines, -tags' threads, both
# sample types, the samples' times); two named threads
# (tests/record/threads.c) stay two threads.  Skips, saying why, without a
# compiler, perf_event_open or python3; the pprof parts without go.
. tests/cli/lib.sh
suite=roundtrip
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}

skip_all() {
	echo "roundtrip: skipped: $*"
	echo "roundtrip: 0 passed, 0 failed"
	exit 0
}

command -v python3 > /dev/null 2>&1 || skip_all "no python3 (to read the JSON)"
$CC -O2 -g -no-pie -fno-omit-frame-pointer -o "$R/phases" tests/record/phases.c 2> "$T/cc.err" &&
	$CC -O2 -g -no-pie -fno-omit-frame-pointer -pthread -o "$R/threads" tests/record/threads.c 2>> "$T/cc.err" ||
	skip_all "cannot compile the test programs: $(head -1 "$T/cc.err")"
if ! "$EMBER" record -q -o "$T/probe.folded" -- "$R/phases" 0.01 > /dev/null 2> "$T/probe.err"; then
	skip_all "ember record cannot record here: $(head -1 "$T/probe.err")"
fi

# phases FILE: per speedscope profile "name<TAB>the phases' runs in file
# order, as name:weight", runs of under a tenth of the longest left out
# (samples that straddle a phase change)
cat > "$T/phases.py" << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
for p in d["profiles"]:
    runs = []
    for s, w in zip(p["samples"], p["weights"]):
        ph = [names[i] for i in s if names[i] in ("parse", "compute", "write_out")]
        if not ph:
            continue
        if runs and runs[-1][0] == ph[0]:
            runs[-1][1] += w
        else:
            runs.append([ph[0], w])
    most = max([w for _, w in runs] or [0])
    big = []
    for n, w in runs:
        if w <= most * 0.1:
            continue
        if big and big[-1][0] == n:
            big[-1][1] += w
        else:
            big.append([n, w])
    total = sum(w for _, w in big) or 1
    print(p["name"] + "\t" + " ".join("%s:%.2f" % (n, w / total) for n, w in big))
PY

status 0 "record -o .pb.gz" "$EMBER" record -q -F 999 -o "$T/p.pb.gz" -- "$R/phases" 0.15
status 0 "collapse pprof -o .speedscope.json" "$EMBER" collapse pprof -q "$T/p.pb.gz" -o "$T/p.speedscope.json"
python3 "$T/phases.py" "$T/p.speedscope.json" > "$T/runs"
check "one profile, the program's thread" sh -c "test \$(wc -l < '$T/runs') = 1 && grep -Eq '^phases \(tid [0-9]+\)	' '$T/runs'"
order=$(cut -f2 "$T/runs" | sed 's/:[0-9.]*//g')
check "the phases in time order: parse compute write_out parse ($order)" test "$order" = "parse compute write_out parse"
check "each phase about a quarter of their time ($(cut -f2 "$T/runs"))" \
	sh -c "cut -f2 '$T/runs' | tr ' ' '\n' | awk -F: '\$2 < 0.15 || \$2 > 0.35 { bad = 1 } END { exit bad }'"
check "frames with their files" grep -q '"name":"compute","file":"[^"]*phases.c"' "$T/p.speedscope.json"

# the stacks and weights are the pprof's own
"$EMBER" collapse pprof -q "$T/p.pb.gz" -o "$T/p.folded"
status 0 "speedscope read back to folded" "$EMBER" collapse speedscope -q "$T/p.speedscope.json"
check "  the same stacks and weights as the pprof's" cmp -s "$T/out" "$T/p.folded"

status 0 "record two named threads" "$EMBER" record -q -o "$T/t.pb.gz" -- "$R/threads" 0.3
status 0 "  to speedscope through pprof" "$EMBER" collapse pprof -q "$T/t.pb.gz" -o "$T/t.speedscope.json"
check "  a profile for each thread, named after it" sh -c "python3 '$T/phases.py' '$T/t.speedscope.json' | cut -f1 > '$T/tn' && grep -Eq '^worker-a \(tid [0-9]+\)$' '$T/tn' && grep -Eq '^worker-b \(tid [0-9]+\)$' '$T/tn'"
check "  each with its own function" python3 -c "
import json, sys
d = json.load(open('$T/t.speedscope.json'))
names = [f['name'] for f in d['shared']['frames']]
for p in d['profiles']:
    fs = set(names[i] for s in p['samples'] for i in s)
    if p['name'].startswith('worker-a') and ('thread_a_work' not in fs or 'thread_b_work' in fs):
        sys.exit(1)
    if p['name'].startswith('worker-b') and ('thread_b_work' not in fs or 'thread_a_work' in fs):
        sys.exit(1)
"

if ! command -v go > /dev/null 2>&1; then
	echo "roundtrip: pprof parts skipped: no go (Debian package golang-go)"
	finish
	exit
fi
export GOCACHE="$T/gocache" GOTOOLCHAIN=local
pp() { go tool pprof "$@" 2> "$T/pp.err"; }
status 0 "pprof read back and written again" "$EMBER" collapse pprof -q "$T/p.pb.gz" -o "$T/q.pb.gz"
pp -list=compute "$T/q.pb.gz" > "$T/list"
check "-list: source lines" sh -c "! grep -q 'No source information' '$T/list' && grep -q 'ROUTINE.*compute.*phases.c' '$T/list'"
check "-list: the phase's line with a count" grep -Eq "^ +[0-9.]+m?s +[0-9.]+m?s +[0-9]+:PHASE\(compute\)" "$T/list"
pp -top "$T/q.pb.gz" > "$T/top"
check "-top: File is the program" has "File: phases" "$T/top"
check "-top: a Duration" grep -q "^Duration: [0-9.]*m*s, Total samples = " "$T/top"
pp -top -sample_index=samples "$T/q.pb.gz" > "$T/top-s"
check "-sample_index=samples" has "Type: samples" "$T/top-s"
pp -raw "$T/q.pb.gz" > "$T/raw"
check "the period" grep -qx "Period: 1001001" "$T/raw"
check "the samples' times (timestamp_ns)" grep -q "timestamp_ns:\[[0-9]*\]" "$T/raw"
pp -tags "$T/t.pb.gz" > "$T/ttags0"
status 0 "threads' pprof read back and written again" "$EMBER" collapse pprof -q "$T/t.pb.gz" -o "$T/u.pb.gz"
pp -tags "$T/u.pb.gz" > "$T/ttags"
check "-tags: both threads" sh -c "grep -q ': worker-a$' '$T/ttags' && grep -q ': worker-b$' '$T/ttags'"
check "-tags: pid and tid" sh -c "grep -q '^ *pid: Total' '$T/ttags' && grep -q '^ *tid: Total' '$T/ttags'"
# and the pprof's samples in time order come back as speedscope's
status 0 "pprof to pprof to speedscope" "$EMBER" collapse pprof -q "$T/q.pb.gz" -o "$T/q.speedscope.json"
order=$(python3 "$T/phases.py" "$T/q.speedscope.json" | cut -f2 | sed 's/:[0-9.]*//g')
check "  the phases still in time order ($order)" test "$order" = "parse compute write_out parse"

finish
