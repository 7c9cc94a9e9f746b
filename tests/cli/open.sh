#!/bin/sh
# --open: the file a command wrote shown by $BROWSER, else xdg-open where
# there is a display, else its file:// URL on stderr; never waited for.
. tests/cli/lib.sh
IN=tests/golden/diff/basic
mkdir -p "$T/bin" "$T/a dir"
# a browser that says what it was given, and one that stays open
printf '#!/bin/sh\nprintf "%%s\\n" "$*" > "%s/opened.tmp" && mv "%s/opened.tmp" "%s/opened"\n' \
	"$T" "$T" "$T" > "$T/bin/browser"
{ cat "$T/bin/browser"; echo 'sleep 60'; } > "$T/bin/slow-browser"
cp "$T/bin/browser" "$T/bin/xdg-open"
chmod +x "$T/bin/browser" "$T/bin/slow-browser" "$T/bin/xdg-open"
# opened WANT: the browser was given WANT (it runs detached: waits a while)
opened() {
	i=0
	while [ ! -s "$T/opened" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	test "$(cat "$T/opened" 2> /dev/null)" = "$1"
}
dir=$(cd "$T" && pwd -P)
url="file://$dir/a%20dir/x%25y.svg"
run_open() { # DESCRIPTION COMMAND...: with $BROWSER the recording one
	d=$1; shift
	rm -f "$T/opened" "$T/a dir/x%y.svg"
	status 0 "$d" env BROWSER="$T/bin/browser" "$@"
}

run_open "flamegraph --open" "$EMBER" flamegraph --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  the browser is given its file:// URL, percent-encoded" opened "$url"
check "  the file is there" wellformed "$T/a dir/x%y.svg"
rm -f "$T/opened"
status 0 "flamegraph --open, HTML" env BROWSER="$T/bin/browser" "$EMBER" flamegraph --open -o "$T/g.html" "$IN/after.folded"
check "  opened" opened "file://$dir/g.html"
run_open "collapse --open, an SVG" "$EMBER" collapse folded --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  opened" opened "$url"
run_open "diff --open, an SVG" "$EMBER" diff --open -o "$T/a dir/x%y.svg" "$IN/before.folded" "$IN/after.folded"
check "  opened" opened "$url"

# where BROWSER is unset: xdg-open with a display, else the URL
rm -f "$T/opened"
status 0 "xdg-open where there is a display" env -u BROWSER -u WAYLAND_DISPLAY DISPLAY=:9 PATH="$T/bin:$PATH" "$EMBER" flamegraph --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  opened" opened "$url"
rm -f "$T/opened"
status 0 "  or a Wayland display" env -u BROWSER -u DISPLAY WAYLAND_DISPLAY=wayland-9 PATH="$T/bin:$PATH" "$EMBER" flamegraph --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  opened" opened "$url"
rm -f "$T/opened"
status 0 "no display: the URL" env -u BROWSER -u DISPLAY -u WAYLAND_DISPLAY PATH="$T/bin:$PATH" "$EMBER" flamegraph --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  on stderr" has "$url" "$T/err"
sleep 0.3
check "  nothing run" test ! -e "$T/opened"
status 0 "an opener that cannot run: the URL" env -u BROWSER DISPLAY=:9 PATH=/nonexistent "$EMBER" flamegraph --open -o "$T/a dir/x%y.svg" "$IN/after.folded"
check "  says so" has "cannot run 'xdg-open'" "$T/err"
check "  and gives the URL" has "$url" "$T/err"

# a browser that stays open does not hold ember
rm -f "$T/opened"
start=$(date +%s)
status 0 "a browser that stays open" timeout 30 env BROWSER="$T/bin/slow-browser" "$EMBER" flamegraph --open -o "$T/s.svg" "$IN/after.folded"
check "  ember ends at once" test $(($(date +%s) - start)) -lt 10
check "  opened" opened "file://$dir/s.svg"

# nothing to open
rm -f "$T/opened"
status 2 "--open on standard output" env BROWSER="$T/bin/browser" "$EMBER" flamegraph --open "$IN/after.folded"
check "  says why" has "--open needs a file" "$T/err"
status 2 "--open with folded output" env BROWSER="$T/bin/browser" "$EMBER" collapse folded --open -o "$T/c.folded" "$IN/after.folded"
check "  says why" has "--open opens a flame graph" "$T/err"
status 2 "diff --open, folded" env BROWSER="$T/bin/browser" "$EMBER" diff --open -o "$T/d.folded" "$IN/before.folded" "$IN/after.folded"
: > "$T/empty.folded"
status 1 "a failed command opens nothing" env BROWSER="$T/bin/browser" "$EMBER" flamegraph --open -o "$T/e.svg" "$T/empty.folded"
sleep 0.3
check "  nothing opened" test ! -e "$T/opened"

# record, where perf_event_open is allowed
if "$EMBER" record -q -o "$T/probe.folded" -- true > /dev/null 2>&1; then
	rm -f "$T/opened"
	status 0 "record --open" env BROWSER="$T/bin/browser" "$EMBER" record -q --open -o "$T/r.svg" -- sh -c 'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done'
	check "  opened" opened "file://$dir/r.svg"
	status 2 "record --open, folded" "$EMBER" record --open -o "$T/r.folded" -- true
else
	echo "skip $suite: record: perf_event_open not allowed here"
fi
finish
