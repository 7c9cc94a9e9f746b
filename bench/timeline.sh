#!/bin/sh
# The HTML viewer's timeline in headless Chromium (bench/timeline.js): a
# generated recording (bench/gen-timeline.c: 1,000,000 samples on 2
# threads over 50,000 stacks 20 to 40 deep) drawn as `ember record -o
# x.html` draws it: load to first paint, the tracks ready, a range
# selection's re-draw, the stack chart's zoom, pan and hover, the size.
#   BROWSER_RUNS=N     page loads, best kept (default 3)
. bench/lib.sh
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
skip() { echo "  skipped: $*"; exit 0; }
[ -n "$CHROMIUM" ] || skip "no chromium (Debian package chromium)"
command -v node > /dev/null 2>&1 || skip "no node (Debian package nodejs)"
if ! node -e "require('./tests/browser/node_modules/playwright-core')" 2> /dev/null; then
	(cd tests/browser && npm ci --no-audit --no-fund --loglevel=error) \
		> "$W/npm.log" 2>&1 || skip "npm ci failed, see $W/npm.log"
fi
[ -x "$BUILD/bench/gen-timeline" ] || skip "no $BUILD/bench/gen-timeline (make bench builds it)"
"$BUILD/bench/gen-timeline" > "$W/timeline.html" 2> "$W/stderr" ||
	skip "gen-timeline failed: $(head -1 "$W/stderr")"
sed 's/^gen-timeline: /  /' "$W/stderr"
CHROMIUM=$CHROMIUM node bench/timeline.js --runs "${BROWSER_RUNS:-3}" "$W/timeline.html"
