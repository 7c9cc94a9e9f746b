#!/bin/sh
# ember as inferno's tools (invoked as inferno-flamegraph, inferno-collapse-*
# and inferno-diff-folded) against inferno 0.12's own test vectors
# (tests/conformance/inferno/README.md): flame graphs frame by frame with
# build/tests/svgframes (tooltip, label, geometry, fill: inferno's colours
# are all deterministic), folded output byte for byte.
set -u
ember=${EMBER:-build/ember}
check=${SVGFRAMES:-build/tests/svgframes}
root=$(pwd)
dir=tests/conformance
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case "$ember" in /*) ;; *) ember=$root/$ember ;; esac
case "$check" in /*) ;; *) check=$root/$check ;; esac
mkdir "$tmp/bin"
for l in inferno-flamegraph inferno-collapse-perf inferno-collapse-dtrace \
	 inferno-collapse-sample inferno-collapse-vtune inferno-collapse-vsprof \
	 inferno-collapse-guess inferno-collapse-recursive inferno-diff-folded; do
	ln -s "$ember" "$tmp/bin/$l"
done
tab=$(printf '\t')

# a vector's path: as named, or gzip-compressed (the large ones are)
vec() {
	if [ -e "$root/$dir/$1" ]; then echo "$root/$dir/$1"; else echo "$root/$dir/$1.gz"; fi
}

# Splits "--name value --flag" into the positional parameters of `args`:
# a value runs to the next " -"; paths of vectors become absolute.
split_args() {
	printf '%s\n' "$1" | sed 's/ -/\n-/g' > "$tmp/args"
	: > "$tmp/argv"
	while IFS= read -r chunk; do
		case "$chunk" in
		*" "*) printf '%s\n%s\n' "${chunk%% *}" "${chunk#* }" ;;
		?*) printf '%s\n' "$chunk" ;;
		esac >> "$tmp/argv"
	done < "$tmp/args"
}

fg_pass=0 fg_fail=0
while IFS= read -r line; do
	name=${line%%"$tab"*}; rest=${line#*"$tab"}
	inputs=${rest%%"$tab"*}; rest=${rest#*"$tab"}
	expected=${rest%%"$tab"*}; args=${rest#*"$tab"}
	[ "$name" = name ] && continue
	rm -rf "$tmp/run"; mkdir "$tmp/run"
	set --
	split_args "$args"
	while IFS= read -r a; do
		case "$a" in
		inferno/*|collapse/*)
			if [ "${prev:-}" = --cp ]; then
				cp "$root/$dir/$a" "$tmp/run/palette.map"
				prev=; continue
			fi
			a=$root/$dir/$a ;;
		esac
		prev=$a
		set -- "$@" "$a"
	done < "$tmp/argv"
	prev=
	for i in $inputs; do set -- "$@" "$(vec "$i")"; done
	(cd "$tmp/run" && "$tmp/bin/inferno-flamegraph" "$@") > "$tmp/out.svg" 2> "$tmp/err"
	rc=$?
	ok=1
	if ! "$check" --check-svg "$(vec "$expected")" "$tmp/out.svg" > "$tmp/diff" 2>&1; then
		ok=0
	fi
	case "$name" in
	empty) [ $rc -eq 1 ] || { echo "  $name: exit status $rc on empty input, not 1"; ok=0; } ;;
	*) [ $rc -eq 0 ] || { echo "  $name: exit status $rc"; head -3 "$tmp/err"; ok=0; } ;;
	esac
	if [ $ok = 1 ]; then
		fg_pass=$((fg_pass + 1))
	else
		fg_fail=$((fg_fail + 1))
		echo "FAIL inferno-flamegraph: $name"
		head -8 "$tmp/diff" | sed 's/^/  /'
	fi
done < "$dir/inferno/flamegraph/cases.tsv"
echo "inferno-flamegraph: $fg_pass of $((fg_pass + fg_fail)) vectors frame-identical"

# cases where ember's reader is FlameGraph's script and inferno's tool is
# another program (docs/COMPATIBILITY.md says how they differ): they must
# still differ, so that the list stays true
known=" $(grep -v '^#' "$dir/inferno/collapse/differs.txt" | cut -f1 | tr '\n' ' ') "
cl_pass=0 cl_fail=0 cl_known=0
while IFS= read -r line; do
	name=${line%%"$tab"*}; rest=${line#*"$tab"}
	tool=${rest%%"$tab"*}; rest=${rest#*"$tab"}
	inputs=${rest%%"$tab"*}; rest=${rest#*"$tab"}
	expected=${rest%%"$tab"*}; args=${rest#*"$tab"}
	[ "$name" = name ] && continue
	set --
	if [ -n "$args" ]; then
		split_args "$args"
		while IFS= read -r a; do set -- "$@" "$a"; done < "$tmp/argv"
	fi
	for i in $inputs; do set -- "$@" "$(vec "$i")"; done
	"$tmp/bin/$tool" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	exp=$(vec "$expected")
	case "$exp" in *.gz) gzip -dc "$exp" > "$tmp/exp" ;; *) cp "$exp" "$tmp/exp" ;; esac
	# inferno's tests compare lines: a last line without its newline is
	# the same line, and the expected lines lose their trailing blanks
	# (trim_end: vsprof's results end theirs with CR LF)
	[ -s "$tmp/exp" ] && [ -n "$(tail -c 1 "$tmp/exp")" ] && echo >> "$tmp/exp"
	LC_ALL=C sed 's/[[:space:]]*$//' "$tmp/exp" > "$tmp/exp.t" && mv "$tmp/exp.t" "$tmp/exp"
	# inferno-diff-folded prints a hash map's lines in no set order (its
	# tests sort them); ember sorts them
	if [ "$tool" = inferno-diff-folded ]; then
		LC_ALL=C sort "$tmp/exp" > "$tmp/exp.s" && mv "$tmp/exp.s" "$tmp/exp"
	fi
	# FlameGraph's outputs: inferno's tests compare them with inferno's
	# output without its quotes (stackcollapse-perf.pl drops them)
	case "$expected" in collapse/*)
		tr -d "\"'" < "$tmp/out" > "$tmp/out.q" && mv "$tmp/out.q" "$tmp/out" ;;
	esac
	same=0
	[ $rc -eq 0 ] && cmp -s "$tmp/exp" "$tmp/out" && same=1
	case "$known" in
	*" $name "*)
		if [ $same = 0 ]; then
			cl_known=$((cl_known + 1))
		else
			cl_fail=$((cl_fail + 1))
			echo "FAIL $tool: $name is identical now: take it out of differs.txt"
		fi
		continue ;;
	esac
	if [ $same = 1 ]; then
		cl_pass=$((cl_pass + 1))
	else
		cl_fail=$((cl_fail + 1))
		echo "FAIL $tool: $name (exit status $rc)"
		head -3 "$tmp/err" | sed 's/^/  /'
		diff "$tmp/exp" "$tmp/out" | head -6 | sed 's/^/  /'
	fi
done < "$dir/inferno/collapse/cases.tsv"
echo "inferno collapse and diff-folded: $cl_pass of $((cl_pass + cl_fail + cl_known)) vectors byte-identical, $cl_known differing as docs/COMPATIBILITY.md documents"
# inferno's malformed inputs for sample, vtune and vsprof: refused (exit
# 1, nothing printed) where inferno returns InvalidData, empty output and
# exit 0 where it only warns
er_fail=0
while read -r want tool file; do
	"$tmp/bin/$tool" "$root/$dir/inferno/$file" > "$tmp/out" 2> "$tmp/err"
	got=$?
	if [ $got -ne "$want" ] || [ -s "$tmp/out" ]; then
		echo "FAIL $tool: $file: exit status $got (not $want), $(wc -l < "$tmp/out") lines out"
		er_fail=$((er_fail + 1))
	fi
done <<EOF
1 inferno-collapse-sample collapse-sample/bad-stack-line.txt
1 inferno-collapse-sample collapse-sample/end-before-call-graph-end.txt
0 inferno-collapse-sample collapse-sample/end-before-call-graph-start.txt
1 inferno-collapse-sample collapse-sample/invalid-samples-field.txt
1 inferno-collapse-sample collapse-sample/no-four-spaces.txt
1 inferno-collapse-sample collapse-sample/odd-indentation.txt
1 inferno-collapse-sample collapse-sample/skipped-indentation.txt
1 inferno-collapse-sample collapse-sample/stack-line-only-indent-chars.txt
1 inferno-collapse-vtune collapse-vtune/bad-stack-line.csv
0 inferno-collapse-vtune collapse-vtune/end-before-header.csv
1 inferno-collapse-vtune collapse-vtune/invalid-time-field.csv
1 inferno-collapse-vtune collapse-vtune/skipped-indentation.csv
0 inferno-collapse-vsprof collapse-vsprof/empty-file.csv
1 inferno-collapse-vsprof collapse-vsprof/incorrect-header.csv
1 inferno-collapse-vsprof collapse-vsprof/invalid-depth.csv
1 inferno-collapse-vsprof collapse-vsprof/invalid-function-name.csv
1 inferno-collapse-vsprof collapse-vsprof/invalid-number-of-calls.csv
1 inferno-collapse-vsprof collapse-vsprof/missing-function-name.csv
EOF
# a stack met again keeps its last count (inferno's map is set, not
# added to), and the stacks print sorted
printf '%s\n' 'Function Stack,CPU Time:Self,Module' 'a,0.001,m' ' b,0.002,m' \
	'a,0.005,m' > "$tmp/v.csv"
printf '%s\n' 'm`a 5' 'm`a;m`b 2' > "$tmp/v.exp"
"$tmp/bin/inferno-collapse-vtune" "$tmp/v.csv" > "$tmp/out" 2> "$tmp/err"
cmp -s "$tmp/v.exp" "$tmp/out" ||
	{ echo "FAIL inferno-collapse-vtune: a stack met again"; er_fail=$((er_fail + 1)); }
echo "inferno malformed inputs: $er_fail failed"
# inferno's palettes ember had no rule for (rust, python), by their hue
# families, and inferno's option errors
ex_fail=0
hue() { # NAME FAMILY: the fill of the frame whose tooltip starts NAME (
	fill=$("$check" "$tmp/p.svg" | awk -F '\t' -v n="$1 (" 'index($1, n) == 1 { print $6; exit }')
	echo "$fill" | awk -F '[(,)]' -v f="$2" -v n="$1" -v c="$fill" '{
		r = $2; g = $3; b = $4; ok = 0
		if (f == "orange") ok = b == 0 && r >= 190 && g >= 90 && g <= 155
		if (f == "aqua") ok = r >= 50 && r <= 110 && g == b && g >= 165
		if (f == "yellow") ok = r == g && r >= 175 && b >= 50 && b <= 70
		if (f == "red") ok = r >= 200 && g == b && g >= 50 && g <= 130
		if (!ok) { print "FAIL inferno palette: " n " is " c ", not " f; exit 1 }
	}' || ex_fail=$((ex_fail + 1))
}
printf '%s\n' 'main;std::rt::lang_start;mycrate::run;core::ptr::drop_in_place 10' \
	'main;mycrate::run;<alloc::vec::Vec<T> as Drop>::drop 5' > "$tmp/rust.folded"
"$tmp/bin/inferno-flamegraph" --colors rust --hash "$tmp/rust.folded" > "$tmp/p.svg"
hue std::rt::lang_start orange; hue core::ptr::drop_in_place orange
hue '<alloc::vec::Vec<T> as Drop>::drop' orange; hue mycrate::run aqua; hue main yellow
printf '%s\n' 'app.py:main;/usr/lib/python3.11/json/decoder.py:decode;<built-in method loads> 4' \
	'app.py:main;/venv/lib/site-packages/requests/api.py:get 6' > "$tmp/py.folded"
"$tmp/bin/inferno-flamegraph" -c python --deterministic "$tmp/py.folded" > "$tmp/p.svg"
hue app.py:main red; hue /usr/lib/python3.11/json/decoder.py:decode yellow
hue '<built-in method loads>' yellow; hue /venv/lib/site-packages/requests/api.py:get aqua
usage() { # EXPECTED-STATUS WHAT ARGS...
	want=$1 what=$2; shift 2
	"$@" < "$tmp/rust.folded" > "$tmp/out" 2> "$tmp/err"
	got=$?
	if [ $got -ne "$want" ]; then
		echo "FAIL inferno options: $what: exit status $got, not $want"; head -3 "$tmp/err"
		ex_fail=$((ex_fail + 1))
	fi
}
usage 2 "--colors chain (not inferno's)" "$tmp/bin/inferno-flamegraph" --colors chain
usage 2 "--uicolor red" "$tmp/bin/inferno-flamegraph" --uicolor red
usage 2 "--hash with --deterministic" "$tmp/bin/inferno-flamegraph" --hash --deterministic
usage 2 "--flamechart with --reverse" "$tmp/bin/inferno-flamegraph" --flamechart --reverse
usage 2 "-n without a number" "$tmp/bin/inferno-collapse-perf" -n x
usage 0 "-q -v accepted" "$tmp/bin/inferno-flamegraph" -q -v -i
usage 0 "-h" "$tmp/bin/inferno-flamegraph" -h
grep -q -- '--deterministic' "$tmp/out" && grep -q '^EXAMPLES' "$tmp/out" ||
	{ echo "FAIL inferno options: -h lists no --deterministic or EXAMPLES"; ex_fail=$((ex_fail + 1)); }
for t in inferno-collapse-perf inferno-diff-folded; do
	usage 0 "$t -h" "$tmp/bin/$t" -h
	grep -q -- '--nthreads\|--normalize' "$tmp/out" && grep -q '^EXAMPLES' "$tmp/out" ||
		{ echo "FAIL inferno options: $t -h"; ex_fail=$((ex_fail + 1)); }
done
echo "inferno palettes and options: $ex_fail failed"

[ $fg_fail -eq 0 ] && [ $cl_fail -eq 0 ] && [ $ex_fail -eq 0 ] && [ $er_fail -eq 0 ]
