#!/bin/sh
# make static: build/ember-static alone in an empty root (unshare, its own
# mount namespace; a user namespace unless run as root) folds perf script
# output, draws it, and records a static program when perf_event_open is
# permitted.  Skips, saying why, where the binary was not built (under the
# sanitizers) or unshare is not permitted; fails where it was not built.
. tests/cli/lib.sh
S=$top/${BUILD:-build}/ember-static
skip() {
	echo "static: skipped: $*"
	echo "static: 0 passed, 0 failed"
	exit 0
}
[ -n "${SANFLAGS:-}" ] && skip "the sanitizers do not link statically"
if [ ! -x "$S" ]; then
	bad "no ${BUILD:-build}/ember-static (make static)"
	finish
	exit
fi
check "ember-static is static" sh -c "! readelf -d '$S' 2> /dev/null | grep -q NEEDED"
R=$T/root
mkdir -p "$R/proc"
cp "$S" "$R/ember"
cp tests/conformance/collapse/perf/inputs/perf-dd-stacks-01.txt "$R/in.txt"
# the empty root: only /proc, which record needs
if [ "$(id -u)" = 0 ]; then
	inroot() { unshare -m -p -f --mount-proc --root="$R" "$@"; }
else
	inroot() { unshare -r -m -p -f --mount-proc --root="$R" "$@"; }
fi
inroot /ember --version > /dev/null 2> "$T/err" ||
	skip "unshare is not permitted here: $(head -1 "$T/err")"
status 0 "collapse perf in an empty root" inroot /ember collapse perf /in.txt
"$EMBER" collapse perf "$R/in.txt" > "$T/want" 2> /dev/null
check "the same folded stacks as ember" cmp "$T/want" "$T/out"
status 0 "flamegraph in an empty root" inroot /ember flamegraph -o /out.svg /in.txt
check "it draws" wellformed "$R/out.svg"
"$EMBER" flamegraph "$R/in.txt" > "$T/want.svg" 2> /dev/null
check "the same SVG as ember" cmp "$T/want.svg" "$R/out.svg"
status 0 "collapse -o in the empty root" inroot /ember collapse perf /in.txt -o /in.folded
check "folded written" test -s "$R/in.folded"

# record: a static program with a known call tree
cc=${CC:-cc}
if ! $cc -static -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
	-o "$R/calltree" tests/record/calltree.c 2> "$T/cc.err"; then
	echo "static: record skipped: cannot build a static program: $(head -1 "$T/cc.err")"
elif ! "$EMBER" record -q -o "$T/probe.folded" -- "$R/calltree" 0.05 > /dev/null 2> "$T/probe.err"; then
	echo "static: record skipped: perf_event_open is not usable here: $(head -1 "$T/probe.err")"
else
	inroot /ember record -o /rec.folded -- /calltree 0.3 > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc != 0 ] && grep -q 'perf_event_open is not permitted' "$T/err"; then
		echo "static: record skipped: perf_event_open is not permitted in the namespace: $(head -1 "$T/err")"
	else
		check "record in an empty root: exit status 0 ($(head -2 "$T/err"))" test "$rc" = 0
		check "record: stacks of the program" grep -q '^calltree;.*main;work_a;leaf_hot;spin [0-9]' "$R/rec.folded"
		check "record: its summary" has "top functions by self time" "$T/err"
		DEBUGINFOD_URLS=http://127.0.0.1:1 inroot /ember record -o /rec2.folded -- /calltree 0.05 > "$T/out" 2> "$T/err"
		check "record with DEBUGINFOD_URLS still records" test -s "$R/rec2.folded"
	fi
fi
finish
