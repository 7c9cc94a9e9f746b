#!/bin/sh
# ember flamegraph from the command line: inputs, outputs, errors, links,
# and the deliberate differences from flamegraph.pl (docs/COMPATIBILITY.md).
. tests/cli/lib.sh
IN=tests/conformance/flamegraph/inputs

# inputs: file, standard input, '-', several files, gzip
status 0 "file input" "$EMBER" flamegraph "$IN/calltree.folded"
cp "$T/out" "$T/file.svg"
check "SVG is well-formed" wellformed "$T/file.svg"
status 0 "stdin input" sh -c "\"$EMBER\" flamegraph < $IN/calltree.folded"
check "stdin gives the same SVG" cmp -s "$T/out" "$T/file.svg"
gzip -c "$IN/calltree.folded" > "$T/c.folded.gz"
status 0 "gzip input" "$EMBER" flamegraph "$T/c.folded.gz"
check "gzip gives the same SVG" cmp -s "$T/out" "$T/file.svg"
status 0 "gzip on stdin" sh -c "\"$EMBER\" flamegraph - < $T/c.folded.gz"
check "gzip on stdin gives the same SVG" cmp -s "$T/out" "$T/file.svg"
head -20 "$IN/calltree.folded" > "$T/a"
tail -n +21 "$IN/calltree.folded" > "$T/b"
status 0 "two files" "$EMBER" flamegraph "$T/b" "$T/a"
check "two files make one graph" cmp -s "$T/out" "$T/file.svg"
printf 'a;b 1' > "$T/nonl1"; printf 'a;c 2' > "$T/nonl2"
status 0 "files without final newlines" "$EMBER" flamegraph "$T/nonl1" "$T/nonl2"
"$SVGFRAMES" "$T/out" > "$T/frames"
check "a last line without newline stays its own line" has "c (2 samples" "$T/frames"

# -o writes atomically; failures leave no file and no partial output
status 0 "-o" "$EMBER" flamegraph -o "$T/o.svg" "$IN/calltree.folded"
check "-o writes the SVG" cmp -s "$T/o.svg" "$T/file.svg"
check "-o leaves no temporary file" test -z "$(ls "$T" | grep '\.tmp\.')"
echo keep > "$T/keep.svg"
status 1 "missing input" "$EMBER" flamegraph -o "$T/keep.svg" "$T/nope.folded"
check "missing input named" has "cannot read '$T/nope.folded'" "$T/err"
check "existing output untouched on error" test "$(cat "$T/keep.svg")" = keep
status 1 "unwritable output" "$EMBER" flamegraph -o /nonexistent/dir/x.svg "$IN/calltree.folded"
check "unwritable output named" has "cannot write '/nonexistent/dir/x.svg'" "$T/err"
if [ -w /dev/full ]; then
	status 1 "full disk" sh -c "\"$EMBER\" flamegraph $IN/calltree.folded > /dev/full"
	check "full disk reported" has "cannot write" "$T/err"
fi

# usage errors exit 2 and say what is wrong
status 2 "bad --width" "$EMBER" flamegraph --width abc "$IN/calltree.folded"
check "bad --width explained" has "--width" "$T/err"
status 2 "bad --minwidth" "$EMBER" flamegraph --minwidth 5px "$IN/calltree.folded"
status 2 "bad --bgcolors" "$EMBER" flamegraph --bgcolors '#zzzzzz' "$IN/calltree.folded"
status 2 "unknown option" "$EMBER" flamegraph --no-such-option "$IN/calltree.folded"
status 0 "-h" "$EMBER" flamegraph -h
check "-h ends with examples" has "EXAMPLES" "$T/out"
status 0 "--help" "$EMBER" flamegraph --help

# flamegraph.pl's single-dash and --opt=value spellings
status 0 "-title=X" "$EMBER" flamegraph -title=Single --width=600 "$IN/calltree.folded"
check "-title=X sets the title" has ">Single</text>" "$T/out"
check "--width=600 sets the width" has 'width="600"' "$T/out"

# empty input: flamegraph.pl's error SVG and a failing status
: > "$T/empty"
status 1 "empty input" "$EMBER" flamegraph "$T/empty"
check "error SVG written" has "ERROR: No valid input provided" "$T/out"
check "error SVG well-formed" wellformed "$T/out"
check "empty input explained" has "no stack counts found" "$T/err"

# drop-in links: flamegraph.pl and flamegraph act as the Perl script
ln -s "$EMBER" "$T/flamegraph.pl"
ln -s "$EMBER" "$T/flamegraph"
status 0 "flamegraph.pl link" "$T/flamegraph.pl" "$IN/calltree.folded"
check "link draws the same SVG" cmp -s "$T/out" "$T/file.svg"
status 0 "flamegraph link" sh -c "\"$T/flamegraph\" < $IN/calltree.folded"
check "link without .pl draws the same SVG" cmp -s "$T/out" "$T/file.svg"
status 2 "link: empty input exits 2 as flamegraph.pl" "$T/flamegraph.pl" "$T/empty"
check "link names flamegraph.pl in the error SVG" has "provided to flamegraph.pl." "$T/out"

# deviations (docs/COMPATIBILITY.md): every byte sequence gives valid XML
printf 'main;\001ctl\033[0m;bad\377\376utf8;ok&<>"x\n main;\357\277\276 3\n' > "$T/nasty"
printf 'main;]]>;<!-- -->;a--b 2\n' >> "$T/nasty"
status 0 "control chars and invalid UTF-8" "$EMBER" flamegraph --title 'T <&> "q" ]]>' \
	--subtitle "s&<" --notes 'n <b> -- end-' --nametype 'N"</script>' "$T/nasty"
cp "$T/out" "$T/nasty.svg"
check "escaped SVG is well-formed" wellformed "$T/nasty.svg"
check "title escaped" has 'T &lt;&amp;&gt; "q" ]]&gt;</text>' "$T/nasty.svg"
check "notes kept, comment safe" has '<!-- NOTES: n &lt;b&gt; - - end-  -->' "$T/nasty.svg"
# CRLF input is read as LF input
printf 'a;b 3\r\na;c 4\r\n' > "$T/crlf"
printf 'a;b 3\na;c 4\n' > "$T/lf"
status 0 "CRLF input" "$EMBER" flamegraph "$T/crlf"
cp "$T/out" "$T/crlf.svg"
"$EMBER" flamegraph "$T/lf" > "$T/lf.svg" 2>/dev/null
check "CRLF input draws as LF input" cmp -s "$T/crlf.svg" "$T/lf.svg"
# deterministic output: the same input gives the same bytes
"$EMBER" flamegraph "$IN/sys-all.folded" > "$T/r1.svg"
"$EMBER" flamegraph "$IN/sys-all.folded" > "$T/r2.svg"
check "same input, same SVG" cmp -s "$T/r1.svg" "$T/r2.svg"
# bad lines: counted, the first named, the rest drawn
status 0 "bad lines" "$EMBER" flamegraph "$IN/bad-lines.folded"
check "bad lines reported with the first line number" has "ignored 4 lines with invalid format (the first is line 2 of" "$T/err"
# unknown palette: drawn black, as flamegraph.pl, but with a warning
status 0 "unknown palette" "$EMBER" flamegraph --colors nosuch "$IN/calltree.folded"
check "unknown palette warned" has "unknown palette 'nosuch'" "$T/err"

# ember record reads the same options with the same parser: the same
# messages, before anything is recorded
for bad in "--width abc" "--minwidth 5px" "--fontsize -1" "--bgcolors #zzzzzz"; do
	"$EMBER" flamegraph $bad "$IN/calltree.folded" > /dev/null 2> "$T/fg.err"
	status 2 "record $bad" "$EMBER" record $bad -o "$T/r.svg" -- true
	head -1 "$T/err" > "$T/err.first"
	check "record $bad: flamegraph's message" \
		sh -c "head -1 '$T/fg.err' | cmp -s - '$T/err.first'"
done

# --cp keeps colours in palette.map across runs
(cd "$T" && "$EMBER" flamegraph --cp "$top/$IN/calltree.folded" > cp1.svg)
check "--cp writes palette.map" test -s "$T/palette.map"
cp "$T/palette.map" "$T/palette.first"
(cd "$T" && "$EMBER" flamegraph --cp --colors blue "$top/$IN/calltree.folded" > cp2.svg)
check "--cp reuses stored colours" cmp -s "$T/palette.map" "$T/palette.first"
"$SVGFRAMES" "$T/cp1.svg" > "$T/f1"; "$SVGFRAMES" "$T/cp2.svg" > "$T/f2"
check "--cp: same colours with another palette" cmp -s "$T/f1" "$T/f2"

# --nameattr: links, classes and titles on named frames
printf 'main\thref=http://example.com/?a=1&b=2\tclass=hot\ttitle=The <main>\n' > "$T/attrs"
status 0 "--nameattr" "$EMBER" flamegraph --nameattr "$T/attrs" "$IN/calltree.folded"
check "--nameattr href" has '<a xlink:href="http://example.com/?a=1&amp;b=2" target="_top" class="hot">' "$T/out"
check "--nameattr title" has '<title>The &lt;main&gt;</title>' "$T/out"
cp "$T/out" "$T/na.svg"
check "--nameattr SVG well-formed" wellformed "$T/na.svg"
printf 'no tab here\n' > "$T/badattrs"
status 1 "--nameattr bad line" "$EMBER" flamegraph --nameattr "$T/badattrs" "$IN/calltree.folded"
check "--nameattr bad line explained" has "invalid line in" "$T/err"

# default colours are flamegraph.pl's: srand(sum of code points); rand(1)
# (values computed by perl 5.36 with flamegraph.pl's formula)
printf 'main 5\nmain;\355\225\234\352\270\200_\355\225\250\354\210\230 3\nmain;foo_[k] 2\n' > "$T/colors"
"$EMBER" flamegraph --minwidth 0 "$T/colors" > "$T/colors.svg" 2>/dev/null
"$SVGFRAMES" "$T/colors.svg" > "$T/colors.frames"
check "default colour of main" grep -q '^main (10 samples.*rgb(243,179,42)' "$T/colors.frames"
check "default colour of a UTF-8 name" grep -q 'rgb(216,53,12)' "$T/colors.frames"
check "default colour keyed with the annotation" grep -q '^foo (2 samples.*rgb(227,101,24)' "$T/colors.frames"

# unsorted input is sorted as flamegraph.pl sorts it (whole lines, bytes):
# shuffled lines with shared prefixes, lengths around the 8-byte chunks
# the sort reads, empty frames and spaces in names draw the same graph
awk 'BEGIN { srand(3); split("a b ab ;; a;b abcdefgh abcdefg; x\ty", w, " ");
	for (i = 0; i < 3000; i++) { s = ""; n = int(rand() * 12);
		for (j = 0; j < n; j++) s = s w[int(rand() * 9) + 1];
		print s " " int(rand() * 9) + 1 } }' > "$T/tricky"
LC_ALL=C sort "$T/tricky" > "$T/tricky.sorted"
awk 'BEGIN { srand(4) } { print rand() "\t" $0 }' "$T/tricky" | sort -k1,1 | cut -f2- > "$T/tricky.shuf"
"$EMBER" flamegraph --minwidth 0 "$T/tricky.sorted" > "$T/t1.svg" 2>/dev/null
"$EMBER" flamegraph --minwidth 0 "$T/tricky.shuf" > "$T/t2.svg" 2>/dev/null
check "unsorted input sorted as sort(1) in the C locale" cmp -s "$T/t1.svg" "$T/t2.svg"
check "sort test is not vacuous" test "$(grep -c '<title>' "$T/t1.svg")" -gt 1000

# --format html and -o FILE.html: the canvas viewer page
status 0 "--format html" "$EMBER" flamegraph --format html "$IN/calltree.folded"
check "--format html: an HTML page" sh -c "head -1 '$T/out' | grep -qx '<!DOCTYPE html>'"
check "--format html: a frame table, no SVG" sh -c "grep -q '^<script type=\"text/plain\" class=\"ember-frames\">[A-Za-z0-9_-]*</script>\$' '$T/out' && ! grep -q '<svg' '$T/out'"
check "--format html: the frame table a data block, not a string literal" sh -c "! grep -q '^EMBER.data' '$T/out'"
# calls seen before take two characters a frame: 2,000 stacks 20 deep
# over 300 functions that call 3 each
awk 'BEGIN { srand(7); for (i = 1; i <= 300; i++) for (k = 1; k <= 3; k++)
	c[i, k] = int(rand() * 300) + 1
	for (n = 0; n < 2000; n++) { f = int(rand() * 4) + 1; s = "main;f" f
		for (d = 0; d < 20; d++) { f = c[f, int(rand() * 3) + 1]; s = s ";f" f }
		print s, int(rand() * 100) + 1 } }' > "$T/calls"
status 0 "--format html, 2,000 stacks" "$EMBER" flamegraph --format html --minwidth 0 "$T/calls"
nframes=$(sed -n 's/.*, frames: \([0-9]*\),.*/\1/p' "$T/out")
nchars=$(sed -n 's/^<script type="text\/plain" class="ember-frames">\(.*\)<\/script>$/\1/p' "$T/out" | tr -d '\n' | wc -c)
check "the frame table: under 3 characters a frame ($nchars for ${nframes:-?})" \
	test "${nframes:-0}" -gt 10000 -a "$nchars" -gt 0 -a "$nchars" -lt $((3 * ${nframes:-0}))
status 0 "-o FILE.html" "$EMBER" flamegraph -o "$T/o.html" "$IN/calltree.folded"
check "-o FILE.html: html" sh -c "head -1 '$T/o.html' | grep -qx '<!DOCTYPE html>'"
status 0 "--format svg -o FILE.html" "$EMBER" flamegraph --format svg -o "$T/s.html" "$IN/calltree.folded"
check "--format wins over the name" has "<svg" "$T/s.html"
status 2 "bad --format" "$EMBER" flamegraph --format pdf "$IN/calltree.folded"
check "bad --format: says which" has "--format takes svg|html, not 'pdf'" "$T/err"
status 1 "--format html, no input" "$EMBER" flamegraph --format html "$IN/empty.folded"
check "--format html, no input: an error page" has "No valid input provided" "$T/out"
# names can hold anything: the page's scripts stay two, the names escaped
printf 'a;</script><script>alert(1)//;b\\\\\\"q 5\na;\377\376<!--;\342\200\250 3\n' > "$T/evil"
status 0 "--format html, hostile names" "$EMBER" flamegraph --format html "$T/evil"
check "hostile names cannot close the script" test "$(grep -c '</script>' "$T/out")" = "$(grep -c '^<script' "$T/out")" -a "$(grep -c '^<script>' "$T/out")" = 2
check "hostile names: no <!-- in the data" sh -c "! grep -q '^EMBER.names.*<!--' '$T/out'"
check "hostile names: invalid UTF-8 as U+FFFD" sh -c "grep '^EMBER.names' '$T/out' | grep -qF '\\ufffd\\ufffd\\u003c!--'"
check "hostile names: valid UTF-8 as U+2028 escaped" sh -c "grep '^EMBER.names' '$T/out' | grep -qF '\\u2028'"
# counts past a double's range: an error, not a page of NaN
awk 'BEGIN { s = "a;b 1"; for (i = 0; i < 400; i++) s = s "0"; print s }' > "$T/inf"
status 1 "--format html, infinite total" "$EMBER" flamegraph --format html "$T/inf"
# the same boxes as the SVG: frame counts agree
"$EMBER" flamegraph --minwidth 0 "$IN/example-perf.folded" > "$T/p.svg" 2> /dev/null
"$EMBER" flamegraph --minwidth 0 --format html "$IN/example-perf.folded" > "$T/p.html" 2> /dev/null
check "html: as many frames as the SVG" test "$(grep -c '<title>' "$T/p.svg")" = \
	"$(grep -o 'frames: [0-9]*' "$T/p.html" | cut -d' ' -f2)"
# wall-clock folded stacks (ember record --wall): frames with only off-CPU
# time below them ("[off-cpu: S]" last) in the io palette, others not;
# the same stacks without CPU time keep the palette asked for
printf '%s\n' 'app;main;work;compute 300' \
	'app;main;work;read;ksys_read;schedule;[off-cpu: S] 500' \
	'app;main;nap;clock_nanosleep;[off-cpu: S] 200' > "$T/wall.folded"
"$EMBER" flamegraph "$T/wall.folded" > "$T/wall.svg"
"$SVGFRAMES" "$T/wall.svg" > "$T/wall.frames"
fill() { awk -F '\t' -v n="$1" '{ t = $1; sub(/ \([^(]*$/, "", t) } t == n { print $6; exit }' "$2"; }
isblue() { echo "$1" | awk -F '[(),]' '{ exit !($2 == $3 && $2 >= 80 && $2 <= 140 && $4 >= 190) }'; }
for f in '[off-cpu: S]' read ksys_read nap clock_nanosleep; do
	check "wall graph: $f (off-CPU only) blue: $(fill "$f" "$T/wall.frames")" isblue "$(fill "$f" "$T/wall.frames")"
done
notblue() { ! isblue "$1"; }
for f in main work compute app; do
	check "wall graph: $f (on-CPU time) not blue: $(fill "$f" "$T/wall.frames")" notblue "$(fill "$f" "$T/wall.frames")"
done
grep '\[off-cpu' "$T/wall.folded" | "$EMBER" flamegraph > "$T/off.svg"
"$SVGFRAMES" "$T/off.svg" > "$T/off.frames"
check "off-CPU stacks alone: the palette asked for ($(fill nap "$T/off.frames"))" notblue "$(fill nap "$T/off.frames")"

# every number ember writes, it reads back: sums beyond 64 bits and tiny
# fractions come out of collapse and diff with an exponent, as Perl's
printf 'a;b 9000000000000000000\na;b 9000000000000000000\na;b 9000000000000000000\na;c 1\n' > "$T/huge.folded"
"$EMBER" collapse recursive "$T/huge.folded" > "$T/huge.out" 2> /dev/null
check "collapse writes 2.7e+19 as Perl does" has "a;b 2.7e+19" "$T/huge.out"
status 0 "flamegraph reads 2.7e+19" "$EMBER" flamegraph "$T/huge.out"
check "2.7e+19 drawn" has "<title>b (27,000,000,000,000,000,000 samples" "$T/out"
check "no line ignored for 2.7e+19" test -z "$(grep ignored "$T/err")"
"$EMBER" diff "$T/huge.folded" "$T/huge.folded" > "$T/huge.diff" 2> /dev/null
status 0 "flamegraph reads diff's 2.7e+19 2.7e+19" "$EMBER" flamegraph "$T/huge.diff"
check "no line of diff's ignored" test -z "$(grep ignored "$T/err")"
printf 'a;b 0.00000000000000000000001\na;c 0.00000000000000000000002\n' > "$T/tiny.folded"
"$EMBER" collapse recursive "$T/tiny.folded" > "$T/tiny.out" 2> /dev/null
check "collapse writes 1e-23 as Perl does" has "a;b 1e-23" "$T/tiny.out"
status 0 "flamegraph reads 1e-23" "$EMBER" flamegraph "$T/tiny.out"
check "no line ignored for 1e-23" test -z "$(grep ignored "$T/err")"
for l in 'a;b e5' 'a;b 1e' 'a;b1e5' 'a;b 1e+'; do
	printf '%s\n' "$l" > "$T/badexp"
	status 1 "not a number: '$l'" "$EMBER" flamegraph "$T/badexp"
done

# stacks deeper than XML parsers (256) and Chromium (5,000) nest elements:
# the frames are not nested, so the SVG is well-formed for xmllint
# whatever the depth, and holds every frame
for depth in 300 6000 100000; do
	awk -v d=$depth 'BEGIN { s = "f0"; for (i = 1; i < d; i++) s = s ";f" i
		print s " 10"; print "top2 2" }' > "$T/deep.folded"
	status 0 "$depth frames deep" "$EMBER" flamegraph "$T/deep.folded"
	check "$depth frames deep: well-formed" wellformed "$T/out"
	check "$depth frames deep: every frame" test "$(grep -c '<title>' "$T/out")" = $((depth + 2))
	check "$depth frames deep: the deepest frame" has "<title>f$((depth - 1)) (10 samples" "$T/out"
done
printf 'f0\thref=#x\n' > "$T/deep.attr"
status 0 "100000 frames deep, inverted, linked" "$EMBER" flamegraph --inverted --nameattr "$T/deep.attr" "$T/deep.folded"
check "100000 frames deep, inverted, linked: well-formed" wellformed "$T/out"

# Sorted input is read without hashing, each line stored as what follows
# the frames it shares with the line before; the first line out of order
# turns to hashing.  Whatever order the lines come in, and however they
# are split into pieces, the graph is that of their sums per stack,
# sorted (integer counts: the order of the additions cannot matter).
sums() {
	awk '{ c = $NF; sub(/ [^ ]*$/, ""); if (!($0 in s)) o[n++] = $0; s[$0] += c }
	END { for (i = 0; i < n; i++) print o[i] " " s[o[i]] }' "$1" | LC_ALL=C sort
}
shuffle() { awk 'BEGIN { srand(7) } { print rand() "\t" $0 }' "$1" | sort | cut -f 2-; }
# same_graphs NAME REFERENCE OPTIONS FORMS...: each form's graph is the
# reference's, and the reference's is not empty
same_graphs() {
	name=$1 ref=$2 opts=$3; shift 3
	# shellcheck disable=SC2086
	"$EMBER" flamegraph $opts "$ref" > "$T/ref.svg" 2> /dev/null
	check "$name ${opts:+($opts) }reference drawn" has "<title>all (" "$T/ref.svg"
	for form in "$@"; do
		# shellcheck disable=SC2086
		"$EMBER" flamegraph $opts "$form" > "$T/form.svg" 2> /dev/null
		check "$name ${opts:+($opts) }$(basename "$form"): the same graph" cmp -s "$T/form.svg" "$T/ref.svg"
	done
}
cat > "$T/fc" << 'EOT'
a;b;c 1
a;b 2
a;b;c;d 3
a;b c;d 4
a;;b 5
a;b; 6
a;bb;c 7
a;b;cc 8
a;b;c 9
a;b;--;w;z 2
x 10
x;y 11
a;b;c 1
EOT
LC_ALL=C sort "$T/fc" > "$T/fc.sorted"
LC_ALL=C sort -r "$T/fc" > "$T/fc.desc"
shuffle "$T/fc" > "$T/fc.shuffled"
# a line out of order that repeats an early one: merged with it
awk '$0 == "a;b;c 1" && !m++ { held = $0; next } { print } END { print held }' \
	"$T/fc.sorted" > "$T/fc.late"
sed 's/$/\r/' "$T/fc.sorted" > "$T/fc.crlf"
awk '{ print } /^a;bb;c/ { print "a;b not-a-count" }' "$T/fc.sorted" > "$T/fc.bad"
sums "$T/fc" > "$T/fc.sums"
check "a line out of order repeats an early one" test "$(tail -1 "$T/fc.late")" = "a;b;c 1"
# the boxes, by height and tooltip: the sums per stack, sorted as whole
# lines ("a;b 2" < "a;b c;d 4" < "a;b;--;w;z 2": two boxes b), with an
# empty frame and a trailing ';' dropped
boxes() {
	"$SVGFRAMES" "$1" | awk -F '\t' '!/^#/ { sub(/ samples.*/, "", $1); print $3 "|" $1 }' |
		LC_ALL=C sort
}
cat > "$T/fc.boxes" << 'EOT'
101.0|a (48
101.0|x (21
117.0|all (69
37.0|z (2
53.0|d (3
53.0|w (2
69.0|-- (2
69.0|b (5
69.0|c (14
69.0|c (7
69.0|cc (8
69.0|d (4
85.0| (5
85.0|b (2
85.0|b (30
85.0|b c (4
85.0|bb (7
85.0|y (11
EOT
"$EMBER" flamegraph "$T/fc.sorted" > "$T/out" 2> /dev/null
boxes "$T/out" > "$T/got.boxes"
check "front-coded lines: every box" cmp -s "$T/got.boxes" "$T/fc.boxes"
for opts in "" --reverse --inverted "--colors chain"; do
	same_graphs "front-coded lines" "$T/fc.sums" "$opts" "$T/fc.sorted" "$T/fc.desc" \
		"$T/fc.shuffled" "$T/fc.late" "$T/fc.crlf" "$T/fc.bad"
done
"$EMBER" flamegraph "$T/fc.late" > "$T/out" 2> /dev/null
"$SVGFRAMES" "$T/out" > "$T/frames"
check "a line out of order: merged with the early one" test "$(grep -c '^c (14 samples' "$T/frames")" = 1
# two counts (differential: the colours follow the lines' deltas, so the
# reference is the lines in reverse order, hashed from the second on)
printf 'a;b 1 5\na;b;c 2 2\na;c 3 1\nb 4 0\na;b 1 5\n' > "$T/d2"
LC_ALL=C sort "$T/d2" > "$T/d2.sorted"
LC_ALL=C sort -r "$T/d2" > "$T/d2.desc"
shuffle "$T/d2" > "$T/d2.shuffled"
awk '$0 == "a;b 1 5" && !m++ { held = $0; next } { print } END { print held }' \
	"$T/d2.sorted" > "$T/d2.late"
same_graphs "differential lines" "$T/d2.desc" "" "$T/d2.sorted" "$T/d2.shuffled" "$T/d2.late"
# a recording's stacks (sorted, as collapse writes them), shuffled
sys=tests/conformance/flamegraph/inputs/sys-all.folded
shuffle "$sys" > "$T/sys.shuffled"
same_graphs "a recording's stacks" "$sys" "--minwidth 0" "$T/sys.shuffled"

# many lines sharing frames, repeated, over many pieces of input (pipe,
# file, gzip): more than the reader's 256 KiB at a time
awk 'BEGIN { srand(3)
	for (i = 0; i < 30000; i++) {
		d = 2 + int(rand() * 10); s = "root"
		for (j = 0; j < d; j++) s = s ";fn" int(rand() * (j < 3 ? 3 : 40)) "_x"
		line = s " " (1 + int(rand() * 9)); print line
		if (rand() < 0.2) print line
	} }' > "$T/gen"
LC_ALL=C sort "$T/gen" > "$T/gen.sorted"
shuffle "$T/gen" > "$T/gen.shuffled"
first=$(head -1 "$T/gen.sorted")
awk -v f="$first" '$0 == f && !m++ { next } { print } END { print f }' "$T/gen.sorted" > "$T/gen.late"
gzip -c "$T/gen.sorted" > "$T/gen.sorted.gz"
sums "$T/gen" > "$T/gen.sums"
check "generated lines: more than 256 KiB" test "$(wc -c < "$T/gen.sorted")" -gt 1000000
same_graphs "generated lines" "$T/gen.sums" "--minwidth 0" "$T/gen.sorted" \
	"$T/gen.shuffled" "$T/gen.late" "$T/gen.sorted.gz"
"$EMBER" flamegraph --minwidth 0 < "$T/gen.sorted" > "$T/out" 2> /dev/null
check "generated lines from a pipe: the same graph" cmp -s "$T/out" "$T/ref.svg"
# a flame chart merges runs of one stack only, in time order
awk '{ n = 1 + (NR % 3); for (i = 0; i < n; i++) print }' "$T/gen.shuffled" > "$T/chart"
awk '{ c = $NF; sub(/ [^ ]*$/, "") }
	NR > 1 && $0 != prev { print prev " " sum; sum = 0 }
	{ prev = $0; sum += c } END { print prev " " sum }' "$T/chart" > "$T/chart.runs"
check "flame chart: runs merged" test "$(wc -l < "$T/chart.runs")" -lt "$(wc -l < "$T/chart")"
same_graphs "flame chart" "$T/chart.runs" "--flamechart --minwidth 0" "$T/chart"
printf 'a;b 1\na;b 1\na;c 1\na;b 1\na;b 2\n' > "$T/chart2"
"$EMBER" flamegraph --flamechart "$T/chart2" > "$T/out" 2> /dev/null
"$SVGFRAMES" "$T/out" > "$T/frames"
check "flame chart: a stack that comes back is drawn again" \
	test "$(grep -c '^b (' "$T/frames")" = 2
check "flame chart: the run after it holds its lines" has "b (3 samples" "$T/frames"
# a profile read whole (collapsed on the way) and the same streamed folded
p=tests/conformance/collapse/perf/inputs/rec-sys-slice.txt.gz
"$EMBER" collapse perf "$p" > "$T/slice.folded" 2> /dev/null
same_graphs "collapsed whole or streamed" "$T/slice.folded" "--minwidth 0" "$p"

# memory follows the distinct lines, not the input: 6,000,000 lines of
# one stack (90 MB), from a file and from a pipe, and as a flame chart
if [ -x /usr/bin/time ] && [ -z "${SANFLAGS:-}" ]; then
	yes 'main;foo;bar 1' | head -n 6000000 > "$T/rep.folded"
	for how in file pipe chart; do
		case $how in
		file) set -- "$EMBER" flamegraph "$T/rep.folded" ;;
		pipe) set -- sh -c '"$1" flamegraph < "$2"' sh "$EMBER" "$T/rep.folded" ;;
		chart) set -- "$EMBER" flamegraph --flamechart "$T/rep.folded" ;;
		esac
		status 0 "6,000,000 lines of one stack ($how)" /usr/bin/time -f 'maxrss %M' -o "$T/rss" "$@"
		kb=$(sed -n 's/^maxrss //p' "$T/rss")
		check "6,000,000 lines of one stack ($how): under 40 MB (${kb} kB)" test "$kb" -lt 40000
		check "6,000,000 lines of one stack ($how): all counted" has "<title>bar (6,000,000 samples, 100.00%)" "$T/out"
	done
	rm -f "$T/rep.folded"
fi

# a line is never cut: one with a 70 MB frame (longer than the 64 MiB
# pieces input once came in) stays whole through every reader
head -c 70000000 /dev/zero | tr '\0' x > "$T/frame"
{ printf 'main;'; cat "$T/frame"; printf ';leaf 3\n'; } > "$T/long.folded"
gzip -1 -c "$T/long.folded" > "$T/long.folded.gz"
status 0 "a 70 MB frame" "$EMBER" flamegraph "$T/long.folded"
check "a 70 MB frame: its stack whole" has "<title>main (3 samples, 100.00%)" "$T/out"
check "a 70 MB frame: its leaf" has "<title>leaf (3 samples, 100.00%)" "$T/out"
check "a 70 MB frame: no line ignored" test -z "$(grep ignored "$T/err")"
status 0 "a 70 MB frame, gzip" "$EMBER" flamegraph "$T/long.folded.gz"
check "a 70 MB frame, gzip: its stack whole" has "<title>main (3 samples, 100.00%)" "$T/out"
for how in file pipe gzip; do
	case $how in
	file) set -- "$EMBER" collapse recursive "$T/long.folded" ;;
	pipe) set -- sh -c '"$1" collapse recursive < "$2"' sh "$EMBER" "$T/long.folded" ;;
	gzip) set -- "$EMBER" collapse recursive "$T/long.folded.gz" ;;
	esac
	status 0 "collapse: a 70 MB frame ($how)" "$@"
	check "collapse: a 70 MB frame comes out whole ($how)" cmp -s "$T/out" "$T/long.folded"
done
status 0 "diff: a 70 MB frame" "$EMBER" diff "$T/long.folded" "$T/long.folded.gz"
check "diff: a 70 MB frame comes out whole" test "$(wc -c < "$T/out")" -eq $(($(wc -c < "$T/long.folded") + 2))
rm -f "$T/frame" "$T/long.folded" "$T/long.folded.gz"
# empty frames keep the root
printf 'main;;;x 3\n' > "$T/empty-frames.folded"
status 0 "empty frames" "$EMBER" flamegraph "$T/empty-frames.folded"
check "empty frames: the root kept" has "<title>main (3 samples, 100.00%)" "$T/out"
check "empty frames: the leaf kept" has "<title>x (3 samples, 100.00%)" "$T/out"
# a line longer than 1 GiB is refused, saying which (slow and large:
# not under the sanitizers)
if [ -z "${SANFLAGS:-}" ]; then
	{ printf 'a 1\n'; head -c 1100000000 /dev/zero | tr '\0' x; printf ' 1\n'; } > "$T/huge-line"
	status 1 "flamegraph: a 1.1 GB line" sh -c '"$1" flamegraph < "$2"' sh "$EMBER" "$T/huge-line"
	check "flamegraph: a 1.1 GB line named" has "cannot read 'standard input': line 2 is longer than 1024 MiB" "$T/err"
	status 1 "collapse: a 1.1 GB line" "$EMBER" collapse recursive "$T/huge-line"
	check "collapse: a 1.1 GB line named" has "line 2 is longer than 1024 MiB" "$T/err"
	status 1 "diff: a 1.1 GB line" "$EMBER" diff "$T/huge-line" "$T/huge-line"
	check "diff: a 1.1 GB line named" has "line 2 is longer than 1024 MiB" "$T/err"
	rm -f "$T/huge-line"
fi

# a file cut short while flamegraph reads it: never SIGBUS, an error or
# the graph of what was there, and no temporary file left behind
awk 'BEGIN { for (i = 0; i < 2000000; i++) printf "main;f%d;g%d 1\n", i % 1000, i }' > "$T/cut.folded"
"$EMBER" flamegraph "$T/cut.folded" -o "$T/cut.svg" 2> "$T/cut.err" &
pid=$!
i=0
while [ $i -lt 1000 ] && ! ls -l "/proc/$pid/fd" 2> /dev/null | grep -q cut.folded &&
	! grep -q cut.folded "/proc/$pid/maps" 2> /dev/null; do
	sleep 0.01
	i=$((i + 1))
done
: > "$T/cut.folded"
wait $pid
rc=$?
check "a file cut short while read: not killed (exit status $rc)" test "$rc" -le 1
if [ "$rc" = 1 ]; then
	check "a file cut short while read: said" has "cut short while being read" "$T/cut.err"
elif [ "$rc" = 0 ]; then
	check "a file cut short after it was read: the graph" wellformed "$T/cut.svg"
fi
check "a file cut short while read: no temporary file left" test -z "$(ls "$T" | grep 'cut.svg.tmp')"
rm -f "$T/cut.folded" "$T/cut.svg"

# gzip streams that inflate to more than 4 GiB (slow: EMBER_SLOW_TESTS=1)
if [ -n "${EMBER_SLOW_TESTS:-}" ]; then
	{ printf 'a;b 150\n'; yes 'a;c 1' | head -c 4400000000; } | gzip -1 > "$T/big.gz"
	status 0 "gzip inflating to 4.4 GB" "$EMBER" flamegraph "$T/big.gz"
	check "gzip over 4 GiB: not called corrupt" test ! -s "$T/err" -o -z "$(grep -i corrupt "$T/err")"
	check "gzip over 4 GiB: the stack is drawn" has "<title>b (150 samples" "$T/out"
	rm -f "$T/big.gz"
fi

finish
