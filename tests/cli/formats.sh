#!/bin/sh
# The time-ordered output formats on the command line: names and
# extensions (--format, -o) in collapse and record, diff refusing the
# formats that have no place for two counts, and perf script text read
# back by `ember collapse perf` (and stackcollapse-perf.pl where
# FLAMEGRAPH_DIR names FlameGraph's folder) to the same stacks.
. tests/cli/lib.sh
suite=formats
P=tests/record/perf-script
F=tests/interchange/names.folded

# diff: folded, SVG and HTML; the others refused, nothing written
printf 'a;b 1\n' > "$T/a.folded"
printf 'a;b 2\na;c 1\n' > "$T/b.folded"
for o in d.pb.gz d.speedscope.json d.trace.json d.cpuprofile d.firefox.json d.perf.txt; do
	status 2 "diff -o $o: refused" "$EMBER" diff "$T/a.folded" "$T/b.folded" -o "$T/$o"
	check "  nothing written" test ! -e "$T/$o"
	check "  saying why" has "cannot write a difference as" "$T/err"
done
status 2 "diff --format speedscope: refused" "$EMBER" diff --format speedscope "$T/a.folded" "$T/b.folded"
status 0 "diff -o d.html" "$EMBER" diff "$T/a.folded" "$T/b.folded" -o "$T/d.html"
check "  the HTML viewer" has "<!DOCTYPE html>" "$T/d.html"
status 0 "diff -o d.svg" "$EMBER" diff "$T/a.folded" "$T/b.folded" -o "$T/d.svg"
check "  an SVG" has "<svg" "$T/d.svg"
status 0 "diff -o d.folded" "$EMBER" diff "$T/a.folded" "$T/b.folded" -o "$T/d.folded"
check "  two counts" has "a;c 0 1" "$T/d.folded"

# pprof of many timed samples: megabytes encoded, compressed a piece at a
# time (with libdeflate, a gzip member each): read back whole, by gzip
# and by ember, to the same stacks and samples as the input
awk 'BEGIN {
	for (i = 0; i < 60000; i++) {
		printf "app 100/%d [000] %d.%06d: 1000000 cpu-clock:\n", 100 + i % 4, 1000 + int(i / 1000), (i % 1000) * 1000
		printf "\t    %d leaf%d+0x1e (/usr/bin/app)\n\t    13e4 mid%d+0x4 (/usr/bin/app)\n", 4864 + i % 8, i % 8, i % 3
		printf "\t    10f8 main+0x48 (/usr/bin/app)\n\n"
	}
}' > "$T/many.txt"
# (pprof has no place for the process's name as a root frame)
"$EMBER" collapse perf "$T/many.txt" | sed 's/^app;//' > "$T/many.want"
status 0 "60,000 samples -o .pb.gz" "$EMBER" collapse perf -q "$T/many.txt" -o "$T/many.pb.gz"
check "  gzip reads it all" sh -c "gzip -dc '$T/many.pb.gz' | wc -c | awk '{ exit !(\$1 > 2000000) }'"
status 0 "  collapse pprof reads it" "$EMBER" collapse pprof "$T/many.pb.gz"
check "  to the same stacks" cmp -s "$T/out" "$T/many.want"
status 0 "  and to speedscope" "$EMBER" collapse pprof -q "$T/many.pb.gz" -o "$T/many.speedscope.json"
check "  every sample in it" sh -c "grep -o '\"weights\":\[[^]]*\]' '$T/many.speedscope.json' | tr ',' '\n' | wc -l | awk '{ exit !(\$1 == 60000) }'"

# collapse: each format by its name and by its extensions
for x in "chrome .trace.json" "chrome .chrome.json" "cpuprofile .cpuprofile" \
	"firefox .firefox.json" "firefox .json" "perf-script .perf.txt" "perf-script .perf-script"; do
	set -- $x
	status 0 "collapse -o x$2" "$EMBER" collapse folded "$F" -o "$T/x$2"
	status 0 "collapse --format $1" "$EMBER" collapse folded "$F" --format "$1"
	check "  the same as -o x$2" cmp -s "$T/out" "$T/x$2"
done
check "trace events: a JSON array, a cat on the first event" \
	grep -q '^{"ph":"M","name":"process_name","cat":"__metadata"' "$T/x.trace.json"
check "cpuprofile: nodes, samples, timeDeltas" sh -c \
	"grep -q '^{\"nodes\":\\[' '$T/x.cpuprofile' && grep -q '\"timeDeltas\":\\[' '$T/x.cpuprofile'"
check "firefox: processed format 66" has '"preprocessedProfileVersion":66' "$T/x.json"
status 2 "collapse --format bogus: refused, naming the formats" "$EMBER" collapse folded "$F" --format bogus
check "  the new ones" has "chrome|cpuprofile|firefox|perf-script" "$T/err"
status 0 "collapse -h" "$EMBER" collapse -h
check "  lists the formats" has "chrome, cpuprofile, firefox or perf-script" "$T/out"
check "  and the viewers" has "profiler.firefox.com" "$T/out"

# perf script text read back to the same stacks
for input in "$P/dwarf-c--all.folded" "$P/dwarf-c.txt.gz" "$P/dwarf-py-jit.txt.gz"; do
	n=$(basename "$input")
	case $input in *.folded) fmt=folded ;; *) fmt=perf ;; esac
	"$EMBER" collapse $fmt "$input" > "$T/want" 2> /dev/null
	status 0 "$n -o .perf.txt" "$EMBER" collapse $fmt "$input" -o "$T/$n.perf.txt"
	status 0 "  collapse perf reads it" "$EMBER" collapse perf "$T/$n.perf.txt"
	check "  to the same stacks" cmp -s "$T/out" "$T/want"
	if [ -n "${FLAMEGRAPH_DIR:-}" ] && [ -x "$FLAMEGRAPH_DIR/stackcollapse-perf.pl" ]; then
		"$FLAMEGRAPH_DIR/stackcollapse-perf.pl" "$T/$n.perf.txt" > "$T/pl" 2> /dev/null
		check "  stackcollapse-perf.pl too" cmp -s "$T/pl" "$T/want"
	fi
	check "  every sample with a time, pid/tid and an event" sh -c \
		"grep -v '^	' '$T/$n.perf.txt' | grep -v '^\$' | grep -vq '^.* [0-9]*/[0-9]* [0-9]*\.[0-9]\{6\}: *[0-9]* [^ ]*:\$' && exit 1 || exit 0"
done

# record: perf script text of a recording, in time order
R="$T/bin"
mkdir -p "$R"
if ${CC:-cc} -O2 -g -fno-omit-frame-pointer -o "$R/phases" tests/record/phases.c 2> /dev/null &&
	"$EMBER" record -q -o "$T/probe.folded" -- "$R/phases" 0.01 > /dev/null 2>&1; then
	status 0 "record -o .perf.txt" "$EMBER" record -q -F 499 -o "$T/r.perf.txt" -- "$R/phases" 0.05
	status 0 "  collapse perf reads it" "$EMBER" collapse perf "$T/r.perf.txt"
	for f in parse compute write_out; do
		check "  main;$f" grep -q ";main;$f[; ]" "$T/out"
	done
	check "  times in order" sh -c "grep '^phases ' '$T/r.perf.txt' |
		awk '{ t = \$4 + 0; if (t < last) exit 1; last = t }'"
	check "  periods of 499 Hz" sh -c "grep '^phases ' '$T/r.perf.txt' | awk '\$5 != 2004008 { exit 1 }'"
	check "  the CPU" grep -q '^phases [0-9]*/[0-9]* \[[0-9][0-9][0-9]\] ' "$T/r.perf.txt"
	for x in .trace.json .cpuprofile .json --format=firefox; do
		case $x in --*) o="$T/r.out"; a="$x" ;; *) o="$T/r$x"; a= ;; esac
		status 0 "record -o $x" "$EMBER" record -q $a -o "$o" -- "$R/phases" 0.01
		check "  written" test -s "$o"
	done
else
	echo "formats: record skipped: cannot compile or record here"
fi

# perf script text out, byte for byte: the header's fields padded as
# perf pads them (the CPU to 3 digits, the micros to 6, the period to 10
# columns), a module's ')' made '_', each frame's line alike every time
printf 'my prog 12/34 [007] 12.500000: 1234567 cpu-clock:\n\t    1234 operator new(unsigned long)+0x4 (/opt/my lib (x)/libz.so)\n\t  abcdef main+0x10 (/opt/p)\n\nmy prog 12/35 [123] 100.000001: 7 cpu-clock:\n\t    1234 operator new(unsigned long)+0x4 (/opt/my lib (x)/libz.so)\n\t  abcdef main+0x10 (/opt/p)\n\n' > "$T/h.txt"
printf 'my prog 12/34 [007] 12.500000:    1234567 cpu:\n\t            1234 operator new+0x0 (x_/libz.so)\n\t          abcdef main+0x0 (/opt/p)\n\nmy prog 12/35 [123] 100.000001:          7 cpu:\n\t            1234 operator new+0x0 (x_/libz.so)\n\t          abcdef main+0x0 (/opt/p)\n\n' > "$T/h.want"
status 0 "perf script -o .perf.txt" "$EMBER" collapse perf "$T/h.txt" -o "$T/h.perf.txt"
check "  as perf script prints it" cmp -s "$T/h.perf.txt" "$T/h.want"
printf 'a b;c(d) 3\na b;c(d) 2\n' > "$T/h.folded"
printf 'a b 0/0 0.000000:          5 cpu-clock:\n\t               0 c(d)+0x0 ([unknown])\n\n' > "$T/h.want"
status 0 "folded -o .perf.txt" "$EMBER" collapse folded "$T/h.folded" -o "$T/h.perf.txt"
check "  the root as the comm, one sample a stack" cmp -s "$T/h.perf.txt" "$T/h.want"

# a thread known by no name (a Chrome trace without thread_name): its
# comm ":TID", as perf names a thread it has seen no comm for
printf '{"traceEvents":[{"ph":"P","name":"Profile","id":"0x1","pid":5,"tid":7,"ts":1000,"args":{"data":{"startTime":1000}}},{"ph":"P","name":"ProfileChunk","id":"0x1","pid":5,"tid":7,"ts":1000,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}},{"id":2,"parent":1,"callFrame":{"functionName":"f","url":"a.js","lineNumber":1}}],"samples":[2]},"timeDeltas":[10]}}}]}' > "$T/nn.json"
status 0 "a nameless thread -o .perf.txt" "$EMBER" collapse chrome "$T/nn.json" -o "$T/nn.perf.txt"
check "  its comm :TID" grep -q '^:7 5/7 0\.001010: ' "$T/nn.perf.txt"

# perf.data: its perf script text read back to the same stacks as perf's
# own perf script
if command -v perf > /dev/null 2>&1 && test -x "$R/phases" &&
	perf record -q -g -F 499 -o "$T/p.data" -- "$R/phases" 0.05 > /dev/null 2>&1; then
	"$EMBER" collapse perf -q "$T/p.data" > "$T/want"
	status 0 "perf.data -o .perf.txt" "$EMBER" collapse perf -q "$T/p.data" -o "$T/p.perf.txt"
	status 0 "  collapse perf reads it" "$EMBER" collapse perf "$T/p.perf.txt"
	check "  to the same stacks" cmp -s "$T/out" "$T/want"
	# perf 6.1 keeps symbol versions in names (clock_gettime@@GLIBC_2.17),
	# which ember leaves out (docs/COMPATIBILITY.md)
	perf script -i "$T/p.data" 2> /dev/null | "$EMBER" collapse perf 2> /dev/null |
		sed -E 's/@plt([;: ])/%PLT%\1/g; s/([^;@ ])@@?[A-Za-z_][A-Za-z0-9_.]*([;: ])/\1\2/g; s/%PLT%/@plt/g' |
		awk '{ c = $NF; sub(/ [^ ]*$/, ""); s[$0] += c } END { for (k in s) printf "%s %.0f\n", k, s[k] }' |
		LC_ALL=C sort > "$T/perf"
	if cmp -s "$T/out" "$T/perf"; then
		ok
	else
		bad "  as perf script's"
		diff "$T/out" "$T/perf" | head -8 | sed 's/^/  /'
	fi
	check "  with the times perf script prints" sh -c "perf script -F time -i '$T/p.data' 2> /dev/null |
		tr -d ' :' > '$T/pt'; grep '^phases ' '$T/p.perf.txt' |
		awk '{ for (i = 2; i <= NF; i++) if (\$i ~ /^[0-9]+[.][0-9]+:\$/) { print \$i; break } }' | tr -d ':' |
		cmp -s - '$T/pt'"
else
	echo "formats: perf.data skipped: no perf, or it cannot record here"
fi
finish
