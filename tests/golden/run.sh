#!/bin/sh
# Golden tests: tests/golden/<command>/<case>/ holds `args` (one argument
# per line; the case's files are found relative to the case folder), and
# the expected result: `expected` (standard output, byte for byte) or
# `expected.frames` (an SVG's frames, as tests/tools/svgframes describes
# them), optionally `expected.stderr` (lines that must appear) and `status`
# (exit status, default 0).  BLESS=1 rewrites the expectations.
set -u
top=$(pwd)
ember="$top/${EMBER:-build/ember}"
svgframes="$top/${SVGFRAMES:-build/tests/svgframes}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for dir in tests/golden/*/*/; do
	[ -f "$dir/args" ] || continue
	dir=${dir%/}
	cmd=$(basename "$(dirname "$dir")")
	set -- "$cmd"
	while IFS= read -r a || [ -n "$a" ]; do set -- "$@" "$a"; done < "$dir/args"
	stdin=/dev/null
	[ -f "$dir/stdin" ] && stdin="$dir/stdin"
	(cd "$dir" && "$ember" "$@") < "$stdin" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	want_rc=0
	[ -f "$dir/status" ] && want_rc=$(cat "$dir/status")
	ok=1
	if [ "${BLESS:-0}" = 1 ]; then
		if [ -f "$dir/expected.frames" ]; then
			"$svgframes" "$tmp/out" > "$dir/expected.frames"
		else
			cp "$tmp/out" "$dir/expected"
		fi
		[ $rc = 0 ] || echo $rc > "$dir/status"
	fi
	if [ -f "$dir/expected.frames" ]; then
		"$svgframes" --check "$dir/expected.frames" "$tmp/out" > "$tmp/diff" || ok=0
	elif [ -f "$dir/expected" ]; then
		cmp -s "$dir/expected" "$tmp/out" || {
			ok=0; diff "$dir/expected" "$tmp/out" | head -10 > "$tmp/diff"; }
	fi
	[ "$rc" = "$want_rc" ] || { ok=0; echo "exit status $rc, want $want_rc" >> "$tmp/diff"; }
	if [ -f "$dir/expected.stderr" ]; then
		while IFS= read -r l; do
			grep -qF -- "$l" "$tmp/err" || { ok=0; echo "stderr lacks: $l" >> "$tmp/diff"; }
		done < "$dir/expected.stderr"
	fi
	if grep -q 'AddressSanitizer\|runtime error:' "$tmp/err"; then
		ok=0; cat "$tmp/err" >> "$tmp/diff"
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL golden $cmd/$(basename "$dir")"
		sed 's/^/  /' "$tmp/diff" | head -20
	fi
	rm -f "$tmp/diff"
done
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
