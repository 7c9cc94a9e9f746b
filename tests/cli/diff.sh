#!/bin/sh
# ember diff from the command line: inputs, outputs, errors, the
# difffolded.pl link and the differential flame graph pipeline.
. tests/cli/lib.sh
D=tests/golden/diff/basic
status 0 "two files" "$EMBER" diff "$D/before.folded" "$D/after.folded"
cp "$T/out" "$T/want"
check "output as expected" cmp -s "$T/out" "$D/expected"
status 0 "before from stdin" sh -c "\"$EMBER\" diff - $D/after.folded < $D/before.folded"
check "stdin: same output" cmp -s "$T/out" "$T/want"
gzip -c "$D/after.folded" > "$T/after.gz"
status 0 "gzip input" "$EMBER" diff "$D/before.folded" "$T/after.gz"
check "gzip: same output" cmp -s "$T/out" "$T/want"
status 0 "-o" "$EMBER" diff -o "$T/o.folded" "$D/before.folded" "$D/after.folded"
check "-o writes the diff" cmp -s "$T/o.folded" "$T/want"
status 0 "long options" "$EMBER" diff --normalize --strip-hex "$D/before.folded" "$D/after.folded"
status 0 "short options" "$EMBER" diff -ns "$D/before.folded" "$D/after.folded"
cp "$T/out" "$T/ns"
status 0 "options after the files" "$EMBER" diff "$D/before.folded" "$D/after.folded" -n -s
check "options anywhere: same output" cmp -s "$T/out" "$T/ns"

# the output chosen by --format or -o's extension: the differential graph
"$EMBER" diff "$D/before.folded" "$D/after.folded" | "$EMBER" flamegraph > "$T/pipe.svg" 2> /dev/null
status 0 "-o .svg draws the differential graph" "$EMBER" diff -o "$T/d.svg" "$D/before.folded" "$D/after.folded"
check "  as the pipe through flamegraph" cmp -s "$T/d.svg" "$T/pipe.svg"
status 0 "--format svg" "$EMBER" diff --format svg "$D/before.folded" "$D/after.folded"
check "  the same SVG" cmp -s "$T/out" "$T/pipe.svg"
status 0 "--format folded wins over .svg" "$EMBER" diff --format folded -o "$T/f.svg" "$D/before.folded" "$D/after.folded"
check "  folded" cmp -s "$T/f.svg" "$D/expected"
status 2 "--format pprof: two counts have no place there" "$EMBER" diff --format pprof "$D/before.folded" "$D/after.folded"
check "  names what it takes" has "folded|svg" "$T/err"

# errors
echo keep > "$T/keep"
status 1 "missing input" "$EMBER" diff -o "$T/keep" "$D/before.folded" "$T/nope"
check "missing input named" has "cannot read '$T/nope'" "$T/err"
check "output untouched" test "$(cat "$T/keep")" = keep
status 2 "one input" "$EMBER" diff "$D/before.folded"
check "one input explained" has "BEFORE AFTER" "$T/err"
status 2 "three inputs" "$EMBER" diff "$D/before.folded" "$D/after.folded" "$D/after.folded"
status 2 "unknown option" "$EMBER" diff -x "$D/before.folded" "$D/after.folded"
status 2 "both from stdin" "$EMBER" diff - -
status 0 "-h" "$EMBER" diff -h
check "-h ends with examples" has "EXAMPLES" "$T/out"
check "-h shows the reverse view" has "--negate" "$T/out"
if [ -w /dev/full ]; then
	status 1 "full disk" sh -c "\"$EMBER\" diff $D/before.folded $D/after.folded > /dev/full"
	check "full disk reported" has "cannot write" "$T/err"
fi
head -c 300 /dev/urandom > "$T/random"
status 0 "random bytes" "$EMBER" diff "$T/random" "$D/after.folded"
printf 'a 1\n' > "$T/one"
: > "$T/empty"
status 0 "-n with an empty BEFORE" "$EMBER" diff -n "$T/empty" "$T/one"
check "-n with an empty BEFORE: said" has "has no samples" "$T/err"
check "-n with an empty BEFORE: counts kept" test "$(cat "$T/out")" = "a 0 1"

# the difffolded.pl link, and the differential flame graphs
ln -s "$EMBER" "$T/difffolded.pl"
ln -s "$EMBER" "$T/difffolded"
status 0 "difffolded.pl link" "$T/difffolded.pl" "$D/before.folded" "$D/after.folded"
check "difffolded.pl: same output" cmp -s "$T/out" "$T/want"
status 0 "difffolded.pl -n -s" "$T/difffolded" -n -s "$D/before.folded" "$D/after.folded"
check "difffolded -n -s: same output" cmp -s "$T/out" "$T/ns"
status 2 "difffolded.pl with one input" "$T/difffolded.pl" "$D/before.folded"
status 0 "diff | flamegraph" sh -c "\"$EMBER\" diff $D/before.folded $D/after.folded | \"$EMBER\" flamegraph > $T/diff.svg"
check "differential SVG is well-formed" wellformed "$T/diff.svg"
check "differential SVG colours growth red" grep -q 'rgb(255,' "$T/diff.svg"
status 0 "reverse view with --negate" sh -c "\"$EMBER\" diff $D/after.folded $D/before.folded | \"$EMBER\" flamegraph --negate > $T/rev.svg"
check "reverse SVG is well-formed" wellformed "$T/rev.svg"
# a stack gone from AFTER: not in the SVG (flamegraph.pl's widths), kept in
# the HTML page for its Before view
printf 'a;gone 6\na;kept 5\n' > "$T/b1.folded"
printf 'a;kept 9\n' > "$T/b2.folded"
status 0 "diff -o d.html" "$EMBER" diff "$T/b1.folded" "$T/b2.folded" -o "$T/d.html"
check "HTML: the stack gone after is in the page" grep -q '^EMBER.names = ".*gone' "$T/d.html"
status 0 "diff -o d.svg" "$EMBER" diff "$T/b1.folded" "$T/b2.folded" -o "$T/d.svg"
check "SVG: it is not" sh -c "! grep -q gone '$T/d.svg'"

finish
