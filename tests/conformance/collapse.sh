#!/bin/sh
# Runs every case of tests/conformance/collapse/ through `ember collapse`
# and compares the output with what FlameGraph's script made, byte for
# byte: perf/expected/NAME--OPT.folded.gz is stackcollapse-perf.pl --OPT
# (default: no option) on perf/inputs/NAME.txt[.gz]; stap/ and dtrace/ hold
# stackcollapse-stap.pl and stackcollapse.pl outputs, chrome-tracing/
# stackcollapse-chrome-tracing.py's.
#
# Where the script is plainly wrong, ember's output differs as
# docs/COMPATIBILITY.md documents; deviations/FORMAT/CASE.diff.gz is then
# the exact `diff SCRIPT EMBER` of that case, reviewed, and the case passes
# when ember's output differs by that diff and nothing else.
#
# BLESS=1 records the differences of the cases that differ.
#
# Each case runs on one thread, and on three with tiny jobs so that the
# input is split into many pieces; both must give the same bytes.
set -u
ember=${EMBER:-build/ember}
dir=tests/conformance/collapse
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 same=0 deviating=0

input_of() { # FORMAT NAME
	if [ -f "$dir/$1/inputs/$2.txt" ]; then echo "$dir/$1/inputs/$2.txt"
	else echo "$dir/$1/inputs/$2.txt.gz"; fi
}

run_case() { # FORMAT CASE INPUT ARGS...
	fmt=$1 case=$2 in=$3; shift 3
	want=$dir/$fmt/expected/$case.folded.gz
	dev=$dir/deviations/$fmt/$case.diff.gz
	ok=1
	"$ember" collapse "$fmt" -j 1 "$@" "$in" > "$tmp/out1" 2> "$tmp/err1"
	rc1=$?
	EMBER_JOB_SIZE=4096 "$ember" collapse "$fmt" -j 3 "$@" "$in" \
		> "$tmp/out3" 2> "$tmp/err3"
	rc3=$?
	if [ $rc1 -ne 0 ] || [ $rc3 -ne 0 ]; then
		echo "  exit status $rc1 (one thread), $rc3 (three)"
		ok=0
	fi
	if grep -q 'AddressSanitizer\|runtime error:' "$tmp/err1" "$tmp/err3"; then
		cat "$tmp/err1" "$tmp/err3"
		ok=0
	fi
	cmp -s "$tmp/out1" "$tmp/out3" || { echo "  threads change the output"; ok=0; }
	gzip -dc "$want" > "$tmp/want"
	if [ "${BLESS:-0}" = 1 ] && ! cmp -s "$tmp/want" "$tmp/out1"; then
		# records ember's difference from the script: review it, and
		# document it in docs/COMPATIBILITY.md
		mkdir -p "$(dirname "$dev")"
		diff "$tmp/want" "$tmp/out1" | gzip -9n > "$dev"
	fi
	if cmp -s "$tmp/want" "$tmp/out1"; then
		kind=same
		[ -f "$dev" ] && { echo "  identical, but a deviation is recorded"; ok=0; }
	elif [ -f "$dev" ]; then
		kind=deviating
		diff "$tmp/want" "$tmp/out1" > "$tmp/diff"
		gzip -dc "$dev" | cmp -s - "$tmp/diff" ||
			{ echo "  differs from the script beyond the recorded deviation:"
			  gzip -dc "$dev" | diff - "$tmp/diff" | head -6 | cut -c1-160; ok=0; }
	else
		echo "  differs from the script:"
		diff "$tmp/want" "$tmp/out1" | head -6 | cut -c1-160
		ok=0
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		if [ $kind = same ]; then same=$((same + 1)); else deviating=$((deviating + 1)); fi
	else
		fail=$((fail + 1))
		echo "FAIL collapse conformance: $fmt $case"
	fi
}

for want in "$dir"/perf/expected/*.folded.gz; do
	case=$(basename "$want" .folded.gz)
	name=${case%%--*} opt=${case#*--}
	if [ "$opt" = default ]; then
		run_case perf "$case" "$(input_of perf "$name")"
	else
		run_case perf "$case" "$(input_of perf "$name")" "--$opt"
	fi
done
for fmt in stap dtrace; do
	for want in "$dir/$fmt"/expected/*.folded.gz; do
		case=$(basename "$want" .folded.gz)
		run_case "$fmt" "$case" "$(input_of "$fmt" "$case")"
	done
done
# stackcollapse-chrome-tracing.py: NAME--default.folded.gz from NAME.json
for want in "$dir"/chrome-tracing/expected/*.folded.gz; do
	case=$(basename "$want" .folded.gz)
	run_case chrome-tracing "$case" "$dir/chrome-tracing/inputs/${case%%--*}.json"
done
echo "collapse conformance: $same identical to the scripts, $deviating differing only as docs/COMPATIBILITY.md documents"
echo "collapse conformance: $pass passed, $fail failed"
[ $fail -eq 0 ]
