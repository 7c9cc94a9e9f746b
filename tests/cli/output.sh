#!/bin/sh
# What -o does with what it finds at the path, for every command that
# writes: regular files replaced atomically keeping their mode and owner,
# symlinks followed, devices, FIFOs and /dev/std* written directly, and no
# good file ever replaced by an error or a partial result.
. tests/cli/lib.sh
IN=tests/conformance/flamegraph/inputs/calltree.folded
D=tests/golden/diff/basic
PERF=tests/golden/collapse/perf-jit/input.txt
"$EMBER" flamegraph "$IN" > "$T/want.svg"
"$EMBER" collapse perf "$PERF" > "$T/want.folded"
"$EMBER" diff "$D/before.folded" "$D/after.folded" > "$T/want.diff"
notmp() { test -z "$(ls -a "$1" | grep '\.tmp\.')"; }

# each command: "flamegraph", "collapse", "diff" writing to $1
draw() {
	case $cmd in
	flamegraph) "$EMBER" flamegraph -o "$1" "$IN" ;;
	collapse) "$EMBER" collapse perf -o "$1" "$PERF" ;;
	diff) "$EMBER" diff -o "$1" "$D/before.folded" "$D/after.folded" ;;
	esac
}
for cmd in flamegraph collapse diff; do
	case $cmd in
	flamegraph) expect=$T/want.svg ;;
	collapse) expect=$T/want.folded ;;
	diff) expect=$T/want.diff ;;
	esac
	W=$T/$cmd
	mkdir -p "$W/sub"

	# a symlink is followed: its target is replaced, the link stays
	echo old > "$W/sub/real"
	ln -s sub/real "$W/link"
	status 0 "$cmd: -o symlink" draw "$W/link"
	check "$cmd: the symlink is still a symlink" test -L "$W/link"
	check "$cmd: the symlink's target is written" cmp -s "$W/sub/real" "$expect"
	check "$cmd: no temporary file beside the link" notmp "$W"
	check "$cmd: no temporary file beside the target" notmp "$W/sub"
	# a dangling symlink makes its target
	ln -s sub/new "$W/dangling"
	status 0 "$cmd: -o dangling symlink" draw "$W/dangling"
	check "$cmd: the dangling symlink's target is made" cmp -s "$W/sub/new" "$expect"
	check "$cmd: the dangling symlink stays a symlink" test -L "$W/dangling"
	# chains of links, relative and absolute
	ln -s "$W/link" "$W/link2"
	echo old > "$W/sub/real"
	status 0 "$cmd: -o link to a link" draw "$W/link2"
	check "$cmd: a chain of links is followed" cmp -s "$W/sub/real" "$expect"
	ln -s loop1 "$W/loop2"; ln -s loop2 "$W/loop1"
	status 1 "$cmd: -o symlink loop" draw "$W/loop1"
	check "$cmd: symlink loop reported" has "cannot write" "$T/err"

	# an existing file keeps its mode and owner
	echo old > "$W/m"
	chmod 600 "$W/m"
	status 0 "$cmd: -o over a 0600 file" draw "$W/m"
	check "$cmd: the mode is kept" test "$(stat -c %a "$W/m")" = 600
	check "$cmd: the file is replaced" cmp -s "$W/m" "$expect"
	chmod 640 "$W/m"
	status 0 "$cmd: -o over a 0640 file" draw "$W/m"
	check "$cmd: the mode 0640 is kept" test "$(stat -c %a "$W/m")" = 640
	if [ "$(id -u)" = 0 ]; then
		chown 65534:65534 "$W/m"
		status 0 "$cmd: -o over a file of another user" draw "$W/m"
		check "$cmd: the owner is kept" test "$(stat -c %u:%g "$W/m")" = 65534:65534
	fi
	# a new file follows the umask
	(umask 027; draw "$W/new2") > /dev/null 2>&1
	check "$cmd: a new file follows the umask" test "$(stat -c %a "$W/new2")" = 640

	# FIFOs are written directly, once
	mkfifo "$W/fifo"
	(timeout 20 cat "$W/fifo" > "$W/fromfifo") &
	reader=$!
	draw "$W/fifo" > /dev/null 2> "$T/err"
	got=$?
	wait $reader
	check "$cmd: -o FIFO exits 0 (got $got)" test "$got" = 0
	check "$cmd: the FIFO is still a FIFO" test -p "$W/fifo"
	check "$cmd: the reader got the output" cmp -s "$W/fromfifo" "$expect"
	check "$cmd: no temporary file beside the FIFO" notmp "$W"

	# /dev/stdout and /dev/fd/N are the command's own descriptors
	status 0 "$cmd: -o /dev/fd/1" draw /dev/fd/1
	check "$cmd: -o /dev/fd/1 writes standard output" cmp -s "$T/out" "$expect"
	# (only when /dev/fd/1 is written directly: an ember that renames
	# over its target must not be let loose on the system's /dev)
	if cmp -s "$T/out" "$expect"; then
		status 0 "$cmd: -o /dev/stdout" draw /dev/stdout
		check "$cmd: -o /dev/stdout writes standard output" cmp -s "$T/out" "$expect"
		check "/dev/stdout is untouched" test -L /dev/stdout
		status 0 "$cmd: -o /dev/stderr" draw /dev/stderr
		check "$cmd: -o /dev/stderr writes standard error" cmp -s "$T/err" "$expect"
		check "/dev/stderr is untouched" test -L /dev/stderr
	fi

	# devices are written directly and their errors reported (made here,
	# so that a broken ember cannot replace the system's own)
	if [ "$(id -u)" = 0 ] && mknod "$W/null" c 1 3 2> /dev/null &&
		mknod "$W/full" c 1 7; then
		status 0 "$cmd: -o null device" draw "$W/null"
		check "$cmd: the null device is still a device" test -c "$W/null"
		status 1 "$cmd: -o full device" draw "$W/full"
		check "$cmd: the full device is still a device" test -c "$W/full"
		check "$cmd: the full device's error is reported" has "No space left on device" "$T/err"
		check "$cmd: no temporary file beside the devices" notmp "$W"
	fi
	# a directory is refused
	status 1 "$cmd: -o directory" draw "$W/sub"
	check "$cmd: -o directory reported" has "cannot write '$W/sub'" "$T/err"
	check "$cmd: no temporary file beside a directory" notmp "$W"
done

# an error never replaces a good file: empty input with -o keeps the old
# SVG (the error picture goes only to standard output, as flamegraph.pl)
cp "$T/want.svg" "$T/good.svg"
: > "$T/empty.folded"
status 1 "flamegraph: empty input with -o" "$EMBER" flamegraph "$T/empty.folded" -o "$T/good.svg"
check "the good SVG is kept" cmp -s "$T/good.svg" "$T/want.svg"
check "no temporary file after the error" notmp "$T"
status 1 "flamegraph: empty input on stdout" "$EMBER" flamegraph "$T/empty.folded"
check "the error SVG on standard output" has "ERROR: No valid input provided" "$T/out"
printf 'no stacks here\n' > "$T/bad.txt"
cp "$T/want.folded" "$T/good.folded"
status 1 "collapse: bad input with -o" "$EMBER" collapse guess "$T/bad.txt" -o "$T/good.folded"
check "the good folded file is kept" cmp -s "$T/good.folded" "$T/want.folded"

# --cp's palette.map: its temporary file is never one planted in advance
mkdir "$T/cp"
echo secret > "$T/cp/victim"
(cd "$T/cp" && sh -c 'ln -s victim palette.map.tmp.$$; exec "$0" flamegraph --cp "$1" > out.svg' "$EMBER" "$top/$IN")
check "--cp does not write through a planted link" test "$(cat "$T/cp/victim")" = secret
check "--cp writes palette.map" test -s "$T/cp/palette.map"
rm -f "$T/cp"/palette.map.tmp.*
check "--cp leaves no temporary file" notmp "$T/cp"
finish
