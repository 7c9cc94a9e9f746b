#!/bin/sh
# Runs every case of tests/conformance/collapse-more/cases.tsv (name,
# format, options, input, expected, compare; see collapse-more/README.md)
# through `ember collapse FORMAT OPTIONS INPUT` and compares the output with
# what the reference collapser printed: byte for byte (`exact`) or as the
# same lines in any order (`sorted`).  A `files` case extracts its tar
# and runs from the folder holding the tree.
#
# Where the script is plainly wrong, ember's output differs as
# docs/COMPATIBILITY.md documents: deviations/NAME.diff is then the exact
# `diff SCRIPT EMBER` of that case, and the case passes when ember's
# output differs by that diff and nothing else.  BLESS=1 records them.
#
# Each case runs on one thread, and on three with tiny jobs so that the
# input is split into many pieces; both must give the same bytes.
set -u
ember=${EMBER:-build/ember}
case $ember in /*) ;; *) ember=$(pwd)/$ember ;; esac
dir=$(pwd)/tests/conformance/collapse-more
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 same=0 deviating=0

ungz() { case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; }

known=" $("$ember" collapse --help | sed -n "/^formats:/,/^$/s/^  \([a-z-]*\) .*/\1/p" | tr "\n" " ") "
skipped=
# tabs are whitespace to `read`: empty fields would merge
tr '\t' '|' < "$dir/cases.tsv" > "$tmp/cases"
while IFS='|' read -r name fmt opts input expected compare; do
	[ "$name" = name ] && continue
	case $known in *" $fmt "*) ;; *)
		case " $skipped " in *" $fmt "*) ;; *) skipped="$skipped $fmt" ;; esac
		continue ;;
	esac
	ok=1
	# shellcheck disable=SC2086 # options split on spaces, as documented
	if [ "$fmt" = files ]; then
		rm -rf "$tmp/tree" && mkdir "$tmp/tree"
		tar -xzf "$dir/$input" -C "$tmp/tree"
		top=$(ls "$tmp/tree")
		(cd "$tmp/tree" && "$ember" collapse files $opts "$top") \
			> "$tmp/out1" 2> "$tmp/err1"
		rc1=$?
		cp "$tmp/out1" "$tmp/out3"; : > "$tmp/err3"; rc3=$rc1
		# folder sizes come from the file system: the reference's
		# are ext4's (4096 a folder); elsewhere compare names only
		if [ "$(stat -f -c %T "$tmp/tree")" != ext2/ext3 ]; then
			ungz "$dir/$expected" | sed 's/ [0-9]*$//' | sort > "$tmp/want"
			sed 's/ [0-9]*$//' "$tmp/out1" | sort > "$tmp/got"
			compare=names
		fi
	else
		"$ember" collapse "$fmt" -j 1 $opts "$dir/$input" \
			> "$tmp/out1" 2> "$tmp/err1"
		rc1=$?
		EMBER_JOB_SIZE=4096 "$ember" collapse "$fmt" -j 3 $opts \
			"$dir/$input" > "$tmp/out3" 2> "$tmp/err3"
		rc3=$?
	fi
	if [ $rc1 -ne 0 ] || [ $rc3 -ne 0 ]; then
		echo "  exit status $rc1 (one thread), $rc3 (three)"
		head -3 "$tmp/err1"
		ok=0
	fi
	if grep -q 'AddressSanitizer\|runtime error:' "$tmp/err1" "$tmp/err3"; then
		cat "$tmp/err1" "$tmp/err3"
		ok=0
	fi
	cmp -s "$tmp/out1" "$tmp/out3" || { echo "  threads change the output"; ok=0; }
	case $compare in
	exact)
		ungz "$dir/$expected" > "$tmp/want"
		cp "$tmp/out1" "$tmp/got" ;;
	sorted)
		ungz "$dir/$expected" | LC_ALL=C sort > "$tmp/want"
		LC_ALL=C sort "$tmp/out1" > "$tmp/got" ;;
	esac
	dev=$dir/deviations/$name.diff
	if [ "${BLESS:-0}" = 1 ] && ! cmp -s "$tmp/want" "$tmp/got"; then
		# records ember's difference from the script: review it, and
		# document it in docs/COMPATIBILITY.md
		mkdir -p "$(dirname "$dev")"
		diff "$tmp/want" "$tmp/got" > "$dev"
	fi
	if cmp -s "$tmp/want" "$tmp/got"; then
		kind=same
		[ -f "$dev" ] && { echo "  identical, but a deviation is recorded"; ok=0; }
	elif [ -f "$dev" ]; then
		kind=deviating
		diff "$tmp/want" "$tmp/got" > "$tmp/diff"
		cmp -s "$dev" "$tmp/diff" ||
			{ echo "  differs from the reference beyond the recorded deviation:"
			  diff "$dev" "$tmp/diff" | head -6 | cut -c1-160; ok=0; }
	else
		echo "  differs from the reference:"
		diff "$tmp/want" "$tmp/got" | head -6 | cut -c1-160
		ok=0
	fi
	if [ $ok = 1 ]; then
		pass=$((pass + 1))
		if [ $kind = same ]; then same=$((same + 1)); else deviating=$((deviating + 1)); fi
	else
		fail=$((fail + 1))
		echo "FAIL collapse-more conformance: $name"
	fi
done < "$tmp/cases"
[ -z "$skipped" ] || echo "collapse-more conformance: not run (formats ember does not read yet):$skipped"
echo "collapse-more conformance: $same identical to the reference, $deviating differing only as docs/COMPATIBILITY.md documents"
echo "collapse-more conformance: $pass passed, $fail failed"
[ $fail -eq 0 ]
