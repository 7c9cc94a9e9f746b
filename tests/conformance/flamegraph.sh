#!/bin/sh
# Runs every case of tests/conformance/flamegraph/cases.tsv through
# `ember flamegraph` and compares the SVG's frames with flamegraph.pl's.
# Options in cases.tsv are "--name value" chunks: a value runs to the
# next " --".
set -u
ember=${EMBER:-build/ember}
check=${SVGFRAMES:-build/tests/svgframes}
dir=tests/conformance/flamegraph
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
tab=$(printf '\t')
while IFS= read -r line; do
	name=${line%%"$tab"*}; rest=${line#*"$tab"}
	input=${rest%%"$tab"*}; rest=${rest#*"$tab"}
	args=${rest%"$tab"*}
	[ "$name" = name ] && continue
	set --
	if [ -n "$args" ]; then
		printf '%s\n' "$args" | sed 's/ --/\n--/g' > "$tmp/args"
		while IFS= read -r chunk; do
			case "$chunk" in
			*" "*) set -- "$@" "${chunk%% *}" "${chunk#* }" ;;
			*) set -- "$@" "$chunk" ;;
			esac
		done < "$tmp/args"
	fi
	(cd "$tmp" && "$OLDPWD/$ember" flamegraph "$@" "$OLDPWD/$dir/inputs/$input") \
		> "$tmp/out.svg" 2> "$tmp/err"
	rc=$?
	ok=1
	if ! "$check" --check "$dir/expected/$name.frames.gz" "$tmp/out.svg" > "$tmp/diff"; then
		ok=0
	fi
	case "$name" in
	empty-*) [ $rc -ne 0 ] || { echo "  $name: exit status 0 on empty input"; ok=0; } ;;
	bad-lines-*) grep -q 'ignored 4 lines with invalid format (the first is line 2 of' "$tmp/err" ||
		{ echo "  $name: no warning naming the bad lines"; ok=0; } ;;
	*) [ $rc -eq 0 ] || { echo "  $name: exit status $rc"; cat "$tmp/err"; ok=0; } ;;
	esac
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL flamegraph conformance: $name"
		head -8 "$tmp/diff" | sed 's/^/  /'
	fi
done < "$dir/cases.tsv"
echo "flamegraph conformance: $pass passed, $fail failed"
[ $fail -eq 0 ]
