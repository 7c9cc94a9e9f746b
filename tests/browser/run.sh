#!/bin/sh
# The interactive SVG in headless Chromium (tests/browser/test.js), the
# HTML viewer (html.js) with its views, transforms and differential input
# (views.js), ember's speedscope files against speedscope's schema and page
# (speedscope.js), the time order of `ember record`'s speedscope, Chrome
# and perf script files in speedscope's importer (timeorder.js), the
# Firefox Profiler's format against its definition (firefox.js), the
# HTML viewer's tracks and stack chart of a recording (timeline.js) and
# of off-CPU and wall-clock recordings (waits.js), ember's Chrome trace
# events and .cpuprofile in DevTools' own trace engine (devtools.js), with
# playwright-core, speedscope, ajv and @paulirish/trace_engine from the
# npm registry; skips, saying why, without Chromium, Node.js or the
# registry.
set -u
dir=tests/browser
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
skip() { echo "browser tests: skipped: $*"; exit 0; }
[ -n "$CHROMIUM" ] || skip "no chromium (Debian package chromium)"
command -v node > /dev/null 2>&1 || skip "no node (Debian package nodejs)"
command -v npm > /dev/null 2>&1 || skip "no npm (Debian package npm)"
if ! node -e "require('./$dir/node_modules/playwright-core');
	require('./$dir/node_modules/ajv'); require.resolve('./$dir/node_modules/speedscope/package.json');
	require.resolve('./$dir/node_modules/@paulirish/trace_engine/package.json')" 2> /dev/null; then
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) \
		> "${TMPDIR:-/tmp}/ember-npm.log" 2>&1 ||
		skip "npm ci failed (see ${TMPDIR:-/tmp}/ember-npm.log)"
fi
export CHROMIUM
rc=0
node "$dir/test.js" || rc=1
node "$dir/speedscope.js" || rc=1
node "$dir/timeorder.js" || rc=1
node "$dir/devtools.js" || rc=1
node "$dir/firefox.js" || rc=1
node "$dir/html.js" || rc=1
node "$dir/views.js" || rc=1
node "$dir/timeline.js" || rc=1
node "$dir/waits.js" || rc=1
exit $rc
