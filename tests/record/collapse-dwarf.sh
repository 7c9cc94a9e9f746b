#!/bin/sh
# `ember collapse perf` on perf script text of DWARF recordings, kept in
# tests/record/perf-script/:
#   dwarf-c.txt.gz       perf record --call-graph dwarf -F 199 of a C
#                        program built without frame pointers (tests/record/
#                        calltree.c), then dd (kernel frames, [unknown]
#                        user frames); perf's inline frames "(inlined)"
#   dwarf-py-jit.txt.gz  perf record -k 1 --call-graph dwarf,16384 -F 99 of
#                        Python 3.13 -X perf_jit tests/unwind/nested.py,
#                        then perf inject --jit: JIT frames in
#                        /tmp/jitted-PID-N.so images (the interpreter's
#                        install prefix rewritten to /usr/local)
# NAME--OPT.folded is what stackcollapse-perf.pl --OPT gives, with
# jitted-*.so modules counting as JIT for --jit as inferno counts them.
# They were made by collapse-ref.awk, an independent reading of the Perl
# script's rules, and checked against perf's own stackcollapse script
# (same stacks and sample counts, periods aside).
. tests/cli/lib.sh
suite=collapse-dwarf
D=tests/record/perf-script

printf 'p 1 1.0: 7 cpu-clock:\n\t1 f+0x1 (/bin/x)\n\n' > "$T/probe.txt"
if ! "$EMBER" collapse perf "$T/probe.txt" > "$T/probe.out" 2> /dev/null ||
	[ "$(cat "$T/probe.out")" != "p;f 7" ]; then
	echo "collapse-dwarf: skipped: ember collapse not available"
	echo "collapse-dwarf: 0 passed, 0 failed"
	exit 0
fi

for exp in "$D"/*--*.folded; do
	name=$(basename "$exp" .folded)
	input="$D/${name%%--*}.txt.gz"
	opt=${name#*--}
	set --
	[ "$opt" = default ] || set -- "--$opt"
	status 0 "$name" "$EMBER" collapse perf "$@" "$input"
	if cmp -s "$exp" "$T/out"; then
		ok
	else
		bad "$name: output differs from $exp"
		diff "$exp" "$T/out" | cut -c1-200 | head -10
	fi
	# the same text from standard input, uncompressed
	gzip -dc "$input" | "$EMBER" collapse perf "$@" > "$T/out2" 2> "$T/err2"
	cmp -s "$exp" "$T/out2" && ok || bad "$name: from standard input"
done

finish
