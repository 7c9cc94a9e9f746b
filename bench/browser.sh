#!/bin/sh
# Interactivity in headless Chromium (bench/browser.js): load, one
# click-zoom and one search, each until the next paint, on the benchmark
# profile drawn with every frame (--minwidth 0, about 90,000 frames) and
# with the default minimum width (about 8,000), and on a generated
# recursion 20,000 frames deep (ember's SVG only).  With FLAMEGRAPH_DIR (or
# INFERNO_DIR), the same for flamegraph.pl's (or inferno's) SVGs of the
# same folded input, and the ratios.  Then the HTML viewer
# (bench/html.js) on the same two drawings and on a generated profile of
# about 1,000,000 frames: load, zoom, search and hover, and the HTML's
# size against the SVG's.
#   BROWSER_RUNS=N     runs per SVG, best kept (default 3)
#   BROWSER_TERM=RE    the search (default malloc)
#   FOLDED=FILE        use this folded profile instead of collapsing
#                      bench/system-wide.perf.xz with ember collapse perf
. bench/lib.sh
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
skip() { echo "  skipped: $*"; exit 0; }
[ -n "$CHROMIUM" ] || skip "no chromium (Debian package chromium)"
command -v node > /dev/null 2>&1 || skip "no node (Debian package nodejs)"
if ! node -e "require('./tests/browser/node_modules/playwright-core')" 2> /dev/null; then
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) \
		> "$W/npm.log" 2>&1 || skip "npm ci failed, see $W/npm.log"
fi

folded=${FOLDED:-$W/system-wide.folded}
if [ -z "${FOLDED:-}" ] && [ ! -s "$folded" ]; then
	"$EMBER" collapse perf "$(bench_perf)" > "$folded.tmp" 2> "$W/stderr" &&
		mv "$folded.tmp" "$folded" ||
		{ rm -f "$folded.tmp"; skip "'$EMBER collapse perf' failed: $(head -1 "$W/stderr")"; }
fi

set --
for mw in all default; do
	opt=; [ $mw = all ] && opt="--minwidth 0"
	"$EMBER" flamegraph $opt "$folded" > "$W/ember-$mw.svg" 2> /dev/null ||
		skip "ember flamegraph failed"
	set -- "$@" "ember/$mw=$W/ember-$mw.svg"
	if [ -n "${FLAMEGRAPH_DIR:-}" ]; then
		perl "$FLAMEGRAPH_DIR/flamegraph.pl" $opt "$folded" \
			> "$W/flamegraph.pl-$mw.svg" 2> /dev/null &&
			set -- "$@" "flamegraph.pl/$mw=$W/flamegraph.pl-$mw.svg"
	fi
	if [ -n "${INFERNO_DIR:-}" ]; then
		"$INFERNO_DIR/inferno-flamegraph" $opt "$folded" \
			> "$W/inferno-$mw.svg" 2> /dev/null &&
			set -- "$@" "inferno/$mw=$W/inferno-$mw.svg"
	fi
done
# a recursion 20,000 deep, leaving it every 400 levels
awk 'BEGIN { s = "main"; for (d = 1; d <= 20000; d++) { s = s ";recurse"
	if (d % 400 == 0) print s ";leaf_" d, 1 + d % 7 } }' > "$W/deep.folded"
"$EMBER" flamegraph "$W/deep.folded" > "$W/ember-deep.svg" 2> /dev/null ||
	skip "ember flamegraph failed on the deep profile"
set -- "$@" "ember/deep=$W/ember-deep.svg"
CHROMIUM=$CHROMIUM node bench/browser.js --runs "${BROWSER_RUNS:-3}" \
	--term "${BROWSER_TERM:-malloc}" "$@"

echo
echo "  the HTML viewer (--format html):"
set --
for mw in all default; do
	opt=; [ $mw = all ] && opt="--minwidth 0"
	"$EMBER" flamegraph --format html $opt "$folded" > "$W/ember-$mw.html" 2> /dev/null ||
		skip "ember flamegraph --format html failed"
	set -- "$@" "recording/$mw=$W/ember-$mw.html,$W/ember-$mw.svg"
done
# 60,000 generated stacks make about 1,000,000 frames with --minwidth 0
[ -s "$W/gen-1m.folded" ] || sh bench/gen-folded.sh 60000 > "$W/gen-1m.folded"
"$EMBER" flamegraph --format html --minwidth 0 "$W/gen-1m.folded" > "$W/gen-1m.html" 2> /dev/null &&
	"$EMBER" flamegraph --minwidth 0 "$W/gen-1m.folded" > "$W/gen-1m.svg" 2> /dev/null ||
	skip "ember flamegraph failed on the generated profile"
set -- "$@" "generated/all=$W/gen-1m.html,$W/gen-1m.svg"
CHROMIUM=$CHROMIUM node bench/html.js --runs "${BROWSER_RUNS:-3}" \
	--term "${BROWSER_TERM:-malloc|push_back}" "$@"
