#!/bin/sh
# make demo: folds the bundled perf recording, draws it, says where it is.
set -eu
BUILD=${BUILD:-build}
out=$BUILD/demo
mkdir -p "$out"
"$BUILD/ember" collapse perf examples/mixed-workload.perf.gz -o "$out/mixed-workload.folded"
"$BUILD/ember" flamegraph --title "ember demo: a mixed workload (gcc, rustc, Python, Node.js)" \
	-o "$out/flamegraph.svg" "$out/mixed-workload.folded"
echo
echo "ember: wrote $(pwd)/$out/flamegraph.svg"
echo "       open it in a browser: hover for details, click to zoom, Ctrl-F to search"
echo "       (folded stacks in $out/mixed-workload.folded; to profile a program"
echo "       of your own: $BUILD/ember record -o profile.svg -- ./program args)"
