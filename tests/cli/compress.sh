#!/bin/sh
# Compressed input (gzip, xz, zstd, bzip2), recognised by its magic bytes,
# for every command that reads input: files and pipes, concatenated
# streams, and data cut short (a clear error, no output file).
. tests/cli/lib.sh
C=tests/conformance/collapse
D=tests/golden/diff/basic
gzip -dc "$C/perf/inputs/rec-sys-slice.txt.gz" > "$T/sys.perf"
"$EMBER" collapse perf "$T/sys.perf" > "$T/sys.want"
"$EMBER" flamegraph "$T/sys.want" > "$T/sys.svg"
"$EMBER" diff "$D/before.folded" "$D/after.folded" > "$T/diff.want"
# a text that starts as bzip2's magic bytes does is no bzip2 data
printf 'BZh9;main 1\n' > "$T/bzh.folded"
status 0 "text starting with BZh9" "$EMBER" flamegraph "$T/bzh.folded"
check "  read as text" has "BZh9" "$T/out"

for c in gzip xz zstd bzip2; do
	if ! command -v $c > /dev/null 2>&1; then
		echo "skip $suite: $c: no $c command to compress with"
		continue
	fi
	z() { $c -c "$@" 2> /dev/null; }
	z "$T/sys.perf" > "$T/sys.$c"
	z "$T/sys.want" > "$T/folded.$c"
	z "$D/after.folded" > "$T/after.$c"

	status 0 "collapse: $c file" "$EMBER" collapse perf "$T/sys.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.want"
	status 0 "collapse: $c guessed" "$EMBER" collapse "$T/sys.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.want"
	status 0 "collapse: $c pipe" sh -c "cat '$T/sys.$c' | '$EMBER' collapse perf"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.want"
	status 0 "flamegraph: $c file" "$EMBER" flamegraph "$T/folded.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.svg"
	status 0 "flamegraph: $c pipe" sh -c "cat '$T/folded.$c' | '$EMBER' flamegraph"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.svg"
	status 0 "flamegraph: perf script as $c" "$EMBER" flamegraph "$T/sys.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/sys.svg"
	status 0 "diff: $c file" "$EMBER" diff "$D/before.folded" "$T/after.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/diff.want"
	status 0 "diff: $c pipe" sh -c "cat '$T/after.$c' | '$EMBER' diff '$D/before.folded' -"
	check "  as the plain file" cmp -s "$T/out" "$T/diff.want"

	# two streams one after the other read as one
	head -n 3 "$D/after.folded" | z > "$T/two.$c"
	tail -n +4 "$D/after.folded" | z >> "$T/two.$c"
	status 0 "diff: two $c streams" "$EMBER" diff "$D/before.folded" "$T/two.$c"
	check "  as the plain file" cmp -s "$T/out" "$T/diff.want"

	# cut short: an error naming the file, exit 1, no output file
	size=$(stat -c %s "$T/sys.$c")
	head -c $((size / 2)) "$T/sys.$c" > "$T/cut.$c"
	size=$(stat -c %s "$T/folded.$c")
	head -c $((size - 6)) "$T/folded.$c" > "$T/cutf.$c"
	for cmd in "collapse perf" "flamegraph" "diff $D/before.folded"; do
		in="$T/cutf.$c"
		[ "$cmd" = "collapse perf" ] && in="$T/cut.$c"
		rm -f "$T/o"
		status 1 "$cmd: $c cut short" "$EMBER" $cmd -o "$T/o" "$in"
		check "  says so" has "corrupt or truncated compressed data" "$T/err"
		check "  names the file" has "${in##*/}" "$T/err"
		check "  no output file" test ! -e "$T/o"
		status 1 "$cmd: $c cut short, pipe" sh -c "'$EMBER' $cmd - < '$in' > /dev/null"
		check "  says so" has "corrupt or truncated compressed data" "$T/err"
	done
done
finish
