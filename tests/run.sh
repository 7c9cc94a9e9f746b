#!/bin/sh
# Runs every test suite against $BUILD (default build/): unit tests,
# conformance with the FlameGraph scripts, golden tests, command-line
# behaviour, and the suites that need a browser or perf_event_open (those
# skip, saying why, where the machine lacks them).
set -u
BUILD=${BUILD:-build}
export EMBER="$BUILD/ember" SVGFRAMES="$BUILD/tests/svgframes" BUILD
failed=""
# Under the sanitizers, AddressSanitizer and LeakSanitizer write their
# reports to files (UBSan's stay on stderr, where the tests look): a report
# from a command whose status or stderr a test ignores still fails its suite.
sanlog=
if [ -n "${SANFLAGS:-}" ]; then
	sanlog=$(mktemp -d)
	trap 'rm -rf "$sanlog"' EXIT
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$sanlog/report"
fi
run() {
	name=$1; shift
	echo "== $name"
	if ! "$@"; then failed="$failed $name"; fi
	if [ -n "$sanlog" ] && [ -n "$(ls "$sanlog")" ]; then
		for f in "$sanlog"/*; do
			echo "FAIL $name: sanitizer report:"
			head -40 "$f"
			rm -f "$f"
		done
		case " $failed " in *" $name "*) ;; *) failed="$failed $name" ;; esac
	fi
}
for t in "$BUILD"/tests/test-*; do
	[ -x "$t" ] && run "unit $(basename "$t")" "$t"
done
for t in tests/conformance/*.sh tests/golden/run.sh tests/cli/[!l]*.sh \
	 tests/fuzz/replay.sh tests/browser/run.sh tests/record/*.sh; do
	[ -f "$t" ] && run "$t" sh "$t"
done
echo
if [ -n "$failed" ]; then
	echo "FAILED:$failed"
	exit 1
fi
echo "all test suites passed"
