#!/bin/sh
# make demo: draws the bundled example profile and says where the SVG is.
set -eu
BUILD=${BUILD:-build}
out=$BUILD/demo
mkdir -p "$out"
"$BUILD/ember" flamegraph --title "ember demo: a mixed workload (gcc, rustc, Python, Node.js)" \
	-o "$out/flamegraph.svg" examples/mixed-workload.folded
echo
echo "ember: wrote $(pwd)/$out/flamegraph.svg"
echo "       open it in a browser: hover for details, click to zoom, Ctrl-F to search"
