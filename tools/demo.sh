#!/bin/sh
# make demo: profiles the bundled example program (examples/demo.c, a toy
# web server) with ember record and draws it as an SVG and as the HTML
# viewer.  Where perf_event_open is not allowed, or there is no compiler,
# it draws the bundled recording of the same program instead.
set -eu
BUILD=${BUILD:-build}
out=$BUILD/demo
mkdir -p "$out"
title="ember demo: a toy web server (examples/demo.c)"
how="a recording made just now"
if ${CC:-cc} -O1 -g -fno-omit-frame-pointer -fno-inline -o "$out/demo" examples/demo.c 2> "$out/cc.log" &&
	"$BUILD/ember" record -F 999 -o "$out/demo.folded" -- "$out/demo" > /dev/null 2> "$out/record.log"; then
	:
else
	how="the bundled recording (recording here failed: see $out/record.log)"
	cp examples/demo.folded "$out/demo.folded"
fi
"$BUILD/ember" flamegraph --title "$title" --countname ns -o "$out/flamegraph.svg" "$out/demo.folded"
"$BUILD/ember" flamegraph --title "$title" --countname ns -o "$out/flamegraph.html" "$out/demo.folded"
echo
echo "ember: drew $how of examples/demo.c:"
echo "       $(pwd)/$out/flamegraph.html  the viewer: click to zoom, Ctrl-F to search,"
echo "           Functions for the table, right-click for focus, exclude and sandwich"
echo "       $(pwd)/$out/flamegraph.svg   the same as flamegraph.pl draws it"
echo "       (folded stacks in $out/demo.folded; to profile a program of your own:"
echo "       $BUILD/ember record -o profile.html -- ./program args)"
