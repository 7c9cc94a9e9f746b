#!/bin/sh
# ember collapse from the command line: inputs, outputs, errors, threads,
# progress, the FlameGraph-named links and the classic pipelines.
. tests/cli/lib.sh
C=tests/conformance/collapse
gzip -dc "$C/perf/inputs/rec-sys-slice.txt.gz" > "$T/sys.perf"
gzip -dc "$C/perf/expected/rec-sys-slice--default.folded.gz" > "$T/sys.perl"
gzip -dc "$C/deviations/perf/rec-sys-slice--default.diff.gz" > "$T/sys.dev"
patch -s -o "$T/sys.want" "$T/sys.perl" "$T/sys.dev" || bad "patch the expected output"

# inputs: file, standard input, '-', gzip, several files
status 0 "file input" "$EMBER" collapse perf "$T/sys.perf"
check "output as expected" cmp -s "$T/out" "$T/sys.want"
check "nothing on stderr" test ! -s "$T/err"
status 0 "stdin input" sh -c "\"$EMBER\" collapse perf < $T/sys.perf"
check "stdin: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "'-' input" sh -c "\"$EMBER\" collapse perf - < $T/sys.perf"
check "'-': same output" cmp -s "$T/out" "$T/sys.want"
status 0 "gzip input" "$EMBER" collapse perf "$C/perf/inputs/rec-sys-slice.txt.gz"
check "gzip: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "gzip on stdin" sh -c "\"$EMBER\" collapse perf < $C/perf/inputs/rec-sys-slice.txt.gz"
check "gzip on stdin: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "format guessed" "$EMBER" collapse "$T/sys.perf"
check "guessed: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "guess named" "$EMBER" collapse guess "$T/sys.perf"
check "guess: same output" cmp -s "$T/out" "$T/sys.want"
awk 'NR <= 20000' "$T/sys.perf" > "$T/part1"
awk 'NR > 20000' "$T/sys.perf" > "$T/part2"
status 0 "two inputs" "$EMBER" collapse perf "$T/part1" "$T/part2"
# the cut may fall inside a sample: compare the totals only
total() { awk '{ n += $NF } END { print n }' "$1"; }
check "two inputs count every whole sample" test "$(total "$T/out")" -le "$(total "$T/sys.want")"

# -o writes atomically; errors leave no output
status 0 "-o" "$EMBER" collapse perf -o "$T/o.folded" "$T/sys.perf"
check "-o writes the stacks" cmp -s "$T/o.folded" "$T/sys.want"
check "-o leaves no temporary file" test -z "$(ls "$T" | grep '\.tmp\.')"
echo keep > "$T/keep"
status 1 "missing input" "$EMBER" collapse perf -o "$T/keep" "$T/nope.perf"
check "missing input named" has "cannot read '$T/nope.perf': No such file or directory" "$T/err"
check "output untouched on error" test "$(cat "$T/keep")" = keep
head -c 30000 "$C/perf/inputs/rec-sys-slice.txt.gz" > "$T/cut.gz"
status 1 "truncated gzip" "$EMBER" collapse perf -o "$T/keep" "$T/cut.gz"
check "truncated gzip explained" has "corrupt or truncated compressed data" "$T/err"
check "output untouched after truncated gzip" test "$(cat "$T/keep")" = keep
status 1 "directory input" "$EMBER" collapse perf /
status 1 "unwritable output" "$EMBER" collapse perf -o /nonexistent/dir/x "$T/sys.perf"
check "unwritable output named" has "cannot write '/nonexistent/dir/x'" "$T/err"
if [ -w /dev/full ]; then
	status 1 "full disk" sh -c "\"$EMBER\" collapse perf $T/sys.perf > /dev/full"
	check "full disk reported" has "cannot write" "$T/err"
	# pprof's pieces are compressed and written on a thread of their
	# own: its failed write is still the command's, with its reason
	awk 'BEGIN { for (i = 0; i < 40000; i++) printf "main;f%d;g%d;h%d %d\n", i, i % 97, i % 13, i + 1 }' \
		> "$T/many.folded"
	status 1 "full disk, pprof" sh -c "\"$EMBER\" collapse folded -f pprof $T/many.folded > /dev/full"
	check "full disk, pprof, says why" has "No space left on device" "$T/err"
	status 0 "pprof of many stacks" "$EMBER" collapse folded -o "$T/many.pb.gz" "$T/many.folded"
	"$EMBER" collapse pprof "$T/many.pb.gz" > "$T/many.back" 2> "$T/err"
	check "pprof of many stacks read back whole" test "$(sort "$T/many.back" | md5sum)" = "$(sort "$T/many.folded" | md5sum)"
fi

# usage errors exit 2 and say what is wrong
status 2 "unknown option" "$EMBER" collapse perf --no-such-option "$T/sys.perf"
status 1 "mistyped format" "$EMBER" collapse pref "$T/sys.perf"
check "mistyped format explained" has "'pref' is neither a format" "$T/err"
status 2 "perf option for stap" "$EMBER" collapse stap --pid "$T/sys.perf"
check "perf option for stap explained" has "applies to perf or elfutils input only, not stap" "$T/err"
status 2 "--includeoffset for perf" "$EMBER" collapse perf --includeoffset "$T/sys.perf"
status 2 "bad --threads" "$EMBER" collapse perf -j 0 "$T/sys.perf"
check "bad --threads explained" has "--threads" "$T/err"
status 2 "--threads needs a value" "$EMBER" collapse perf --threads
status 0 "-h" "$EMBER" collapse -h
check "-h lists the formats" has "dtrace" "$T/out"
check "-h ends with examples" has "EXAMPLES" "$T/out"
status 0 "perf -h" "$EMBER" collapse perf -h
check "perf -h lists --event-filter" has "--event-filter" "$T/out"
status 0 "Perl's single-dash spelling" "$EMBER" collapse perf -pid -tid "$T/sys.perf"
status 0 "--event-filter=EV spelling" "$EMBER" collapse perf --event-filter=cpu-clock:ppp "$T/sys.perf"
check "--event-filter=EV keeps the samples" cmp -s "$T/out" "$T/sys.want"
status 0 "--event-filter EV spelling" "$EMBER" collapse perf --event-filter cpu-clock:ppp "$T/sys.perf"
check "--event-filter EV keeps the samples" cmp -s "$T/out" "$T/sys.want"
status 0 "an event nobody has" "$EMBER" collapse perf --event-filter=cycles "$T/sys.perf"
check "no samples of that event: said" has "no samples of event 'cycles'" "$T/err"
check "no samples: no output" test ! -s "$T/out"

# threads: the same bytes whatever the number of threads and the cuts
cat "$T/sys.perf" "$T/sys.perf" "$T/sys.perf" > "$T/big.perf"
status 0 "one thread" "$EMBER" collapse perf -j 1 --all --tid "$T/big.perf"
cp "$T/out" "$T/big1"
status 0 "two threads" "$EMBER" collapse perf -j 2 --all --tid "$T/big.perf"
check "two threads: same output" cmp -s "$T/out" "$T/big1"
status 0 "default threads" "$EMBER" collapse perf --all --tid "$T/big.perf"
check "default threads: same output" cmp -s "$T/out" "$T/big1"
status 0 "many small jobs" env EMBER_JOB_SIZE=1000 "$EMBER" collapse perf -j 8 --all --tid "$T/big.perf"
check "many small jobs: same output" cmp -s "$T/out" "$T/big1"
status 0 "threads on a pipe" sh -c "cat $T/big.perf | \"$EMBER\" collapse perf -j 2 --all --tid"
check "threads on a pipe: same output" cmp -s "$T/out" "$T/big1"
# a stretch without any sample boundary is read in order
awk '!/^$/' "$T/sys.perf" | head -3000 > "$T/noblank.perf"
echo >> "$T/noblank.perf"
status 0 "no boundary, one thread" "$EMBER" collapse perf -j 1 "$T/noblank.perf"
cp "$T/out" "$T/nb1"
status 0 "no boundary, threads" env EMBER_JOB_SIZE=500 "$EMBER" collapse perf -j 2 "$T/noblank.perf"
check "no boundary: same output" cmp -s "$T/out" "$T/nb1"

# bad input: never a crash or a hang, a clear report
head -c 200000 /dev/urandom > "$T/random"
for f in $("$EMBER" collapse -h | sed -n "/^formats:/,/^$/s/^  \\([a-z-]*\\) .*/\\1/p" | grep -v guess); do
	# lines are skipped and counted; a whole JSON or protobuf input is
	# refused, saying why; files walks folders; range-perf takes MIN MAX
	want=0
	case $f in pprof|cpuprofile|chrome|chrome-tracing|speedscope) want=1 ;; esac
	case $f in files) continue ;; range-perf) set -- 0 1e9 ;; *) set -- ;; esac
	status $want "random bytes as $f" "$EMBER" collapse "$f" -j 1 "$@" "$T/random"
	cp "$T/out" "$T/r1"
	[ $want = 0 ] || check "random bytes as $f: why" has "cannot read '$T/random' as $f: " "$T/err"
	status $want "random bytes as $f, threads" env EMBER_JOB_SIZE=3000 "$EMBER" collapse "$f" -j 3 "$@" "$T/random"
	check "random bytes as $f: threads agree" cmp -s "$T/out" "$T/r1"
done
status 1 "random bytes, format guessed" "$EMBER" collapse "$T/random"
check "unknown format explained" has "cannot tell the format of '$T/random'" "$T/err"
check "the formats are listed" has "formats: perf stap dtrace recursive" "$T/err"
printf 'app 1 [000] 1.0: 1 cycles:\n\t1 f+0x1 (/bin/a)\n\ngarbage here\n\nmore garbage\n' > "$T/bad.perf"
status 0 "unrecognised lines" "$EMBER" collapse perf "$T/bad.perf"
check "unrecognised lines counted, the first named" has "skipped 2 unrecognised lines (the first is line 4 of $T/bad.perf: \"garbage here\")" "$T/err"
check "the good sample is kept" has "app;f 1" "$T/out"
status 0 "-q silences warnings" "$EMBER" collapse perf -q "$T/bad.perf"
check "-q: nothing on stderr" test ! -s "$T/err"
head -c 300000 "$T/sys.perf" > "$T/cut.perf"
status 0 "input cut mid-sample" "$EMBER" collapse perf "$T/cut.perf"
check "cut input reported" has "ends inside a sample (truncated?)" "$T/err"
: > "$T/empty"
status 0 "empty input, format named" "$EMBER" collapse perf "$T/empty"
check "empty input: empty output" test ! -s "$T/out"

# progress: a line on a terminal, nothing otherwise
status 0 "no progress when not a terminal" env EMBER_PROGRESS_DELAY=0 "$EMBER" collapse perf -o "$T/p.folded" "$T/big.perf"
check "no progress line" test ! -s "$T/err"
if command -v script > /dev/null 2>&1; then
	script -qec "env EMBER_PROGRESS_DELAY=0 $EMBER collapse perf -j 1 -o $T/p.folded $T/big.perf" /dev/null > "$T/tty" 2>&1
	check "progress line on a terminal" grep -q "collapsing $T/big.perf:.*MB/s" "$T/tty"
fi

# --inline: inlined calls from DWARF, as addr2line -i sees them
if command -v gcc > /dev/null 2>&1 && command -v nm > /dev/null 2>&1; then
	cat > "$T/inl.c" <<'CEOF'
#include <stdio.h>
static inline __attribute__((always_inline)) int leaf(int x) { return x * 3 + (x >> 2); }
static inline __attribute__((always_inline)) int mid(int x) { int s = 0; for (int i = 0; i < x; i++) s += leaf(i); return s; }
__attribute__((noinline)) int caller(int x) { return mid(x) + 1; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", caller(argc * 1000)); return 0; }
CEOF
	gcc -O2 -g -o "$T/inl" "$T/inl.c"
	# an address inside leaf's code, inlined in mid, inlined in caller
	start=$(nm "$T/inl" | awk '$3 == "caller" { print $1 }')
	addr=$(objdump -d --no-show-raw-insn "$T/inl" | awk -v s="$start" '
		$0 ~ "<caller>:" { on = 1; next } on && /lea|sar|imul/ { sub(":", "", $1); print $1; exit }')
	printf 'inl 1 [000] 1.0: 1 cpu-clock:\n\t%s caller+0x12 (%s)\n\t1 main+0x1 (%s)\n\t7f00 g+0x1 (%s/gone.so)\n\n' \
		"$addr" "$T/inl" "$T/inl" "$T" > "$T/inl.perf"
	status 0 "--inline" "$EMBER" collapse perf --inline "$T/inl.perf"
	check "--inline expands the inlined calls" has "inl;g;main;caller;mid;leaf 1" "$T/out"
	check "--inline: a module without debugging information is said" has "no debugging information for 1 frame" "$T/err"
	status 0 "--inline --context" "$EMBER" collapse perf -q --inline --context "$T/inl.perf"
	check "--context adds where each call is" has ";caller:inl.c:4;mid:inl.c:3;leaf:inl.c:2 1" "$T/out"
	status 0 "without --inline" "$EMBER" collapse perf "$T/inl.perf"
	check "without --inline: perf's symbols" has "inl;g;main;caller 1" "$T/out"
fi

# drop-in links act as the scripts
for l in stackcollapse-perf.pl stackcollapse-perf stackcollapse-stap.pl \
	 stackcollapse.pl stackcollapse-recursive.pl difffolded.pl flamegraph.pl; do
	ln -s "$EMBER" "$T/$l"
done
status 0 "stackcollapse-perf.pl link" "$T/stackcollapse-perf.pl" "$T/sys.perf"
check "stackcollapse-perf.pl: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "stackcollapse-perf link" sh -c "\"$T/stackcollapse-perf\" < $T/sys.perf"
check "stackcollapse-perf: same output" cmp -s "$T/out" "$T/sys.want"
status 0 "link with Perl's options" "$T/stackcollapse-perf.pl" --all "$T/sys.perf"
gzip -dc "$C/perf/expected/rec-sys-slice--all.folded.gz" > "$T/all.perl"
gzip -dc "$C/deviations/perf/rec-sys-slice--all.diff.gz" > "$T/all.dev"
patch -s -o "$T/all.want" "$T/all.perl" "$T/all.dev"
check "link with --all: as expected" cmp -s "$T/out" "$T/all.want"
status 0 "stackcollapse-perf.pl -h" "$T/stackcollapse-perf.pl" -h
check "link help names the script" has "usage: stackcollapse-perf.pl" "$T/out"
status 0 "stackcollapse-stap.pl link" "$T/stackcollapse-stap.pl" "$C/stap/inputs/rec-calltree.txt"
gzip -dc "$C/stap/expected/rec-calltree.folded.gz" > "$T/stap.want"
check "stackcollapse-stap.pl: same output" cmp -s "$T/out" "$T/stap.want"
status 0 "stackcollapse.pl link" "$T/stackcollapse.pl" "$C/dtrace/inputs/rec-calltree.txt"
gzip -dc "$C/dtrace/expected/rec-calltree.folded.gz" > "$T/dtrace.want"
check "stackcollapse.pl: same output" cmp -s "$T/out" "$T/dtrace.want"
printf 'a;b;b;b;c 1\na;b;c 2\n' > "$T/rec.folded"
status 0 "stackcollapse-recursive.pl link" "$T/stackcollapse-recursive.pl" "$T/rec.folded"
check "stackcollapse-recursive.pl folds recursion" test "$(cat "$T/out")" = "a;b;c 3"

# the classic pipelines, with the links in PATH
(
	cd "$T" && PATH="$T:$PATH" && export PATH &&
	cp sys.perf out.perf &&
	stackcollapse-perf.pl out.perf > out.folded &&
	flamegraph.pl out.folded > out.svg &&
	grep ext4 out.folded | flamegraph.pl > ext4.svg &&
	perf_folded=$(cat out.folded | wc -l) && test "$perf_folded" -gt 100
) 2> "$T/err"
check "seed workflow runs" test -s "$T/out.svg" -a -s "$T/ext4.svg"
check "seed workflow SVGs are well-formed" wellformed "$T/out.svg"
check "the ext4 graph has ext4 frames" has "ext4" "$T/ext4.svg"
check "the seed workflow is quiet" test ! -s "$T/err"
status 0 "perf script | ember collapse | ember flamegraph" sh -c "cat $T/sys.perf | \"$EMBER\" collapse perf | \"$EMBER\" flamegraph > $T/pipe.svg"
check "the pipeline's SVG is well-formed" wellformed "$T/pipe.svg"

# the other formats: links named after their scripts, options per format
G=tests/golden/collapse
for l in stackcollapse-jstack.pl stackcollapse-gdb.pl stackcollapse-elfutils.pl \
	 stackcollapse-bpftrace.pl stackcollapse-go.pl stackcollapse-faulthandler.pl \
	 stackcollapse-java-exceptions.pl; do
	ln -s "$EMBER" "$T/$l"
done
status 0 "stackcollapse-jstack.pl link with the script's options" \
	"$T/stackcollapse-jstack.pl" --shorten-pkgs --include-tid "$G/jstack-jdk17/input.txt"
check "stackcollapse-jstack.pl: same output" cmp -s "$T/out" "$G/jstack-jdk17-shorten/expected"
check "jstack: JDK 17's SMR lines reported once" has "unrecognised lines (the first is line 4" "$T/err"
status 0 "stackcollapse-elfutils link --pid --tid" "$T/stackcollapse-elfutils.pl" --pid --tid "$G/elfutils-threads/input.txt"
check "stackcollapse-elfutils.pl: same output" cmp -s "$T/out" "$G/elfutils-threads-tid/expected"
for f in gdb:gdb-threads bpftrace:bpftrace-ustack-comm go:go-pprof-raw \
	 faulthandler:faulthandler-py311 java-exceptions:java-exceptions-npe; do
	status 0 "stackcollapse-${f%%:*}.pl link" "$T/stackcollapse-${f%%:*}.pl" "$G/${f#*:}/input.txt"
	check "stackcollapse-${f%%:*}.pl: same output" cmp -s "$T/out" "$G/${f#*:}/expected"
done
status 2 "jstack option for gdb" "$EMBER" collapse gdb --shorten-pkgs "$G/gdb-threads/input.txt"
check "jstack option for gdb explained" has "option '--shorten-pkgs' applies to jstack or ibmjava or java-exceptions input only, not gdb" "$T/err"
S=tests/conformance/collapse-more/perf-sched
status 0 "perf-sched -v recurse=1" "$EMBER" collapse perf-sched -v recurse=1 "$S/inputs/sched-pipeline.txt"
LC_ALL=C sort "$S/expected/sched-pipeline--recurse1.folded" > "$T/sched.want"
check "perf-sched -v recurse=1: the script's stacks" cmp -s "$T/out" "$T/sched.want"
status 0 "perf-sched -v recurse=0 is false, as in awk" "$EMBER" collapse perf-sched -v recurse=0 "$S/inputs/sched-pipeline.txt"
LC_ALL=C sort "$S/expected/sched-pipeline--default.folded" > "$T/sched.want"
check "perf-sched -v recurse=0: no chains" cmp -s "$T/out" "$T/sched.want"
status 2 "perf-sched unknown variable" "$EMBER" collapse perf-sched -v recurs=1 "$S/inputs/sched-pipeline.txt"
check "perf-sched unknown variable explained" has "-v takes record_tid=N" "$T/err"
status 2 "-v for perf" "$EMBER" collapse perf -v recurse=1 "$S/inputs/sched-pipeline.txt"
check "-v for perf explained" has "option '-v' applies to perf-sched input only, not perf" "$T/err"
printf '@ CPU_CLK [0 samples]\n\n' > "$T/empty.pmc"
status 0 "empty pmc" "$EMBER" collapse pmc "$T/empty.pmc"
check "empty pmc: no output" test ! -s "$T/out"
I=tests/conformance/collapse-more/instruments
{ cat "$I/inputs/deep-copy-units.txt"; printf 'garbage\n'; tail -n 2 "$I/inputs/deep-copy-units.txt"; } > "$T/bad.instruments"
status 0 "instruments bad line" "$EMBER" collapse instruments "$T/bad.instruments"
check "instruments bad line: skipped and reported" has "skipped 1 unrecognised line" "$T/err"
check "instruments bad line: the lines after it" test "$(wc -l < "$T/out")" = "$(( $(wc -l < "$I/expected/deep-copy-units--default.folded") + 2 ))"
status 0 "sample MODULES=0 operand" "$EMBER" collapse sample MODULES=0 tests/conformance/collapse-more/sample/inputs/sample.txt
check "sample MODULES=0: no modules" cmp -s "$T/out" tests/conformance/collapse-more/sample/expected/sample--MODULES0.folded
status 2 "files without a folder" "$EMBER" collapse files
check "files without a folder explained" has "files takes the folders" "$T/err"
status 1 "files of a missing folder" "$EMBER" collapse files "$T/no-such-folder"
check "files of a missing folder explained" has "No such file or directory" "$T/err"
mkdir -p "$T/tree/a b/c" && printf 12345 > "$T/tree/a b/c/f.txt" && ln -s f.txt "$T/tree/a b/c/l"
status 0 "files of a tree" "$EMBER" collapse files "$T/tree"
check "files: a file's size, blanks and slashes turned" has "tree;a_b;c;f.txt 5" "$T/out"
check "files: a link's own size" has "tree;a_b;c;l 5" "$T/out"
status 2 "range-perf without MIN MAX" "$EMBER" collapse range-perf tests/golden/collapse/range-perf-py312/input.txt
check "range-perf without MIN MAX explained" has "range-perf takes MIN MAX" "$T/err"
X=tests/conformance/collapse-more/xdebug
status 0 "xdebug -ct (PHP's getopt)" "$EMBER" collapse xdebug -ct "$X/inputs/header-example.xt"
check "xdebug -ct counts" cmp -s "$T/out" "$X/expected/header-example--c.folded"
status 0 "stackcollapse-xdebug.php link -c" sh -c "ln -s \"\$1\" \"\$2/stackcollapse-xdebug.php\" && \"\$2/stackcollapse-xdebug.php\" -c \"\$3\"" sh "$EMBER" "$T" "$X/inputs/header-example.xt"
check "stackcollapse-xdebug.php -c: the script's output" cmp -s "$T/out" "$X/expected/header-example--c.folded"
status 0 "--no-include-tname" "$EMBER" collapse jstack --no-include-tname "$G/jstack-jdk17/input.txt"
check "--no-include-tname: no thread names" test "$(grep -c '^worker;\|^sorter;' "$T/out")" = 0
check "--include-tname (default): thread names" has "worker;" "$G/jstack-jdk17/expected"


# perf script of a recording without -g: no call chains, and it says so
cat > "$T/nog.txt" << 'EOF'
            r9ct 20321  8742.257195:    1001001 cpu-clock:ppp:      5571dc4a837b spin+0x2b (/tmp/r9ct)
            r9ct 20321  8742.258192:    1001001 cpu-clock:ppp:      5571dc4a8374 spin+0x24 (/tmp/r9ct)
            r9ct 20321  8742.259192:    1001001 cpu-clock:ppp:      5571dc4a837b spin+0x2b (/tmp/r9ct)
EOF
status 0 "perf without -g" "$EMBER" collapse perf "$T/nog.txt"
check "perf without -g: no stacks, as the script" test ! -s "$T/out"
check "perf without -g: says there are no call chains" has "the recording has no call chains: its 3 samples" "$T/err"
check "perf without -g: says how to make them" has "perf record -g" "$T/err"
check "perf without -g: not 'no stacks found'" sh -c "! grep -q 'no stacks found' '$T/err'"

# a count with no frames before it: an empty stack, kept as the Perl
# scripts keep it (under UBSan this once passed NULL to memcpy)
status 0 "stap: a count without frames" sh -c "printf ' 7\\n' | \"$EMBER\" collapse stap"
check "stap: the empty stack is kept" test "$(cat "$T/out")" = " 7"
status 0 "recursive: a stack of empty frames" sh -c "printf ';;; 5\\n' | \"$EMBER\" collapse recursive"

# guessing reads the first bytes once: endless, unseekable or huge
# inputs end with the same message, in bounded memory
status 1 "guess on /dev/urandom ends" timeout 15 "$EMBER" collapse /dev/urandom
check "guess on /dev/urandom: not a known format" has "cannot tell the format of '/dev/urandom'" "$T/err"
# random bytes with a backtick line, then a line of one digit, looked like
# dtrace output (a frame and a count) and were read for ever
printf '\001x`y\n7\n\002z`w\n8\n' > "$T/ctl"
status 1 "guess: control bytes are not dtrace text" "$EMBER" collapse "$T/ctl"
mkfifo "$T/fifo"
(timeout 20 sh -c 'printf "a;b 1\n" > "$1"' sh "$T/fifo" 2> /dev/null &)
status 1 "guess on a FIFO of folded stacks ends" timeout 15 "$EMBER" collapse "$T/fifo"
timeout 1 cat "$T/fifo" > /dev/null 2>&1 # a writer still waiting
check "guess on a FIFO: folded stacks said" has "'$T/fifo' holds folded stacks already" "$T/err"
status 1 "guess on folded standard input" sh -c "printf 'a;b 1\\n' | \"$EMBER\" collapse"
check "guess on standard input: folded stacks said" has "standard input holds folded stacks already" "$T/err"
if [ -x /usr/bin/time ] && [ -z "${SANFLAGS:-}" ]; then
	head -c 300000000 /dev/zero | gzip -1 > "$T/zeros.gz"
	status 1 "guess on 300 MB of gzipped zeros" /usr/bin/time -f 'maxrss %M' -o "$T/rss" "$EMBER" collapse "$T/zeros.gz"
	kb=$(sed -n 's/^maxrss //p' "$T/rss")
	check "guess on 300 MB of zeros stays under 150 MB (${kb} kB)" test "$kb" -lt 150000
	rm -f "$T/zeros.gz"
fi

# stacks the scripts build by prepending ("stack = $1 \";\" stack") are
# built in time linear in their depth: 200,000 frames took minutes
awk 'BEGIN { print "3 1 leaf(A.java:1)"; for (i = 1; i <= 200000; i++) print "com.example.app.Service.method" i; print "Total 3" }' > "$T/deep.ljp"
status 0 "ljp: a trace 200,000 frames deep" timeout 30 "$EMBER" collapse ljp "$T/deep.ljp"
check "ljp: the deep trace is root first, 200,001 frames" test "$(tr ';' '\n' < "$T/out" | sed -n '1p;$p' | tr '\n' ,)" = "com.example.app.Service.method200000,leaf 3,"
check "ljp: the deep trace has 200,001 frames" test "$(tr ';' '\n' < "$T/out" | wc -l)" -eq 200001
{
	echo "dd 5/5  1.000000: sched:sched_switch: prev_comm=dd prev_pid=5 prev_prio=0 prev_state=S ==> next_comm=x next_pid=1 next_prio=120"
	awk 'BEGIN { for (i = 1; i <= 200000; i++) printf "\tffff%x f%d ([kernel.kallsyms])\n", i, i; print "" }'
	printf 'sh 6/6  2.000000: sched:sched_stat_sleep: comm=dd pid=5 delay=3000000 [ns]\n\tffff a ([k])\n\n'
} > "$T/deep.sched"
status 0 "perf-sched: a switch stack 200,000 frames deep" timeout 30 "$EMBER" collapse perf-sched "$T/deep.sched"
check "perf-sched: the deep stack is under its task, root first" test "$(tr ';' '\n' < "$T/out" | sed -n '1,2p;$p' | tr '\n' ,)" = "dd,f200000,f1 3000,"

# control bytes of inputs and file names are escaped in every message
printf 'a;b 1\n\033]0;title\007junk\r\n' > "$T/esc.txt"
status 0 "a line with terminal escapes" "$EMBER" collapse recursive "$T/esc.txt"
check "its warning holds no control byte" test -z "$(tr -d '\n' < "$T/err" | tr -d '[:print:]')"
check "its warning shows the bytes escaped" has '\x1b]0;title\x07junk' "$T/err"
status 1 "a file name with terminal escapes" "$EMBER" flamegraph "$T/no$(printf '\033')[31mpe"
check "the file name is escaped" has "no\x1b[31mpe" "$T/err"
status 2 "a command name with terminal escapes" "$EMBER" "x$(printf '\033')[2J"
check "the command name is escaped" has "x\x1b[2J" "$T/err"

finish
