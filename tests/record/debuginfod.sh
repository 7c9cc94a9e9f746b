#!/bin/sh
# Symbols of a stripped program from a debuginfod server: Debian's
# debuginfod serves the program's separate debug file on 127.0.0.1;
# `ember record` and `ember collapse perf perf.data` name its functions
# with DEBUGINFOD_URLS set, from the cache once fetched, and not without
# it.  The calls inlined in a stripped C++ program come from its served
# debug file too; `collapse perf --inline` fetches nothing (libdwfl would,
# silently).  A slow server (a stand-in in Python) shows the progress line on a
# terminal and the summary line.  Skips, saying why, where debuginfod or
# perf_event_open is missing.
. tests/cli/lib.sh
suite=debuginfod
R="$T/bin"
mkdir -p "$R" "$T/srv"
CC=${CC:-cc}

skip_all() {
	echo "debuginfod: skipped: $*"
	echo "debuginfod: 0 passed, 0 failed"
	exit 0
}

command -v debuginfod > /dev/null 2>&1 && command -v debuginfod-find > /dev/null 2>&1 ||
	skip_all "debuginfod is not installed (apt-get install debuginfod)"
$CC -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -Wl,--build-id -o "$R/full" tests/record/calltree.c 2> "$T/cc.err" ||
	skip_all "cannot compile tests/record/calltree.c: $(head -1 "$T/cc.err")"
# the debug file where only the server finds it, the program stripped
objcopy --only-keep-debug "$R/full" "$T/srv/calltree.debug" &&
	strip -o "$R/calltree" "$R/full" ||
	skip_all "cannot split the debug info with objcopy and strip"
bid=$(readelf -n "$R/calltree" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$bid" ] || skip_all "the linker gave the program no build-id"
# C++ whose hot code is inlined, stripped the same way (no C++ compiler:
# no inlined-frame checks)
CXX=${CXX:-c++}
ibid=
if $CXX -O2 -g -Wl,--build-id -o "$R/inline-full" tests/record/inline.cc 2> "$T/cxx.err" &&
	objcopy --only-keep-debug "$R/inline-full" "$T/srv/inline.debug" &&
	strip -o "$R/inline" "$R/inline-full"; then
	ibid=$(readelf -n "$R/inline" | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
	rm -f "$R/inline-full"
else
	echo "debuginfod: no C++ program ($(head -1 "$T/cxx.err")): inlined frames not checked"
fi
check "the program is stripped" sh -c "! readelf -S '$R/calltree' | grep -q '\.symtab'"
"$EMBER" record -q -o "$T/probe.folded" -- "$R/calltree" 0.05 > /dev/null 2> "$T/probe.err" ||
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"

# --- a debuginfod server on a free port, once it has indexed the file -----
srv=
trap '[ -z "$srv" ] || kill "$srv" 2> /dev/null; rm -rf "$T"' EXIT
port=
for try in 1 2 3 4 5; do
	p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
	debuginfod -F -p "$p" -d "$T/db.sqlite" -c 1 "$T/srv" > "$T/srv.log" 2>&1 &
	srv=$!
	i=0
	# a fresh cache each time: libdebuginfod remembers "not found"
	while [ $i -lt 150 ] && kill -0 "$srv" 2> /dev/null; do
		if DEBUGINFOD_URLS="http://127.0.0.1:$p" DEBUGINFOD_CACHE_PATH="$T/probe$i" \
			DEBUGINFOD_TIMEOUT=5 debuginfod-find debuginfo "$bid" > /dev/null 2>&1 &&
			{ [ -z "$ibid" ] || DEBUGINFOD_URLS="http://127.0.0.1:$p" DEBUGINFOD_CACHE_PATH="$T/probe$i" \
				DEBUGINFOD_TIMEOUT=5 debuginfod-find debuginfo "$ibid" > /dev/null 2>&1; }; then
			port=$p
			break 2
		fi
		sleep 0.2
		i=$((i + 1))
	done
	kill "$srv" 2> /dev/null
	wait "$srv" 2> /dev/null
	srv=
done
[ -n "$port" ] || skip_all "debuginfod did not serve the debug file within 30 s: $(tail -1 "$T/srv.log")"
url="http://127.0.0.1:$port"
HOT=';main;work_a;leaf_hot;spin [0-9]'

status 0 "record: with DEBUGINFOD_URLS" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache" \
	"$EMBER" record -o "$T/d.folded" -- "$R/calltree" 0.5
grep -q "$HOT" "$T/d.folded" && ok || bad "record: functions named from debuginfod ($(head -c 300 "$T/d.folded"))"
check "record: the file is in the cache" test -s "$T/cache/$bid/debuginfo"
check "record: a fast fetch makes no summary line" sh -c "! grep -q 'debuginfod:' '$T/err'"

status 0 "record: without DEBUGINFOD_URLS" env -u DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH="$T/cache2" \
	"$EMBER" record -o "$T/n.folded" -- "$R/calltree" 0.3
check "record: without DEBUGINFOD_URLS, no names" sh -c "! grep -q 'work_a' '$T/n.folded'"
grep -q ';\[calltree\];\[calltree\]' "$T/n.folded" && ok || bad "record: without DEBUGINFOD_URLS, frames named by the file"
check "record: without DEBUGINFOD_URLS, nothing cached" test ! -e "$T/cache2"

# the calls inlined in the stripped C++ program: from its served debug
# file, as from a local one (std::map's lookups inlined in lookup_strings)
if [ -n "$ibid" ]; then
	status 0 "record: inlined frames, with DEBUGINFOD_URLS" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cachei" \
		"$EMBER" record --all -o "$T/i.folded" -- "$R/inline" 0.5
	check "record: the C++ debug file is in the cache" test -s "$T/cachei/$ibid/debuginfo"
	grep -q ';lookup_strings;[^;]*_\[i\]' "$T/i.folded" && ok ||
		bad "record: inlined frames from the served debug file ($(grep lookup_strings "$T/i.folded" | head -c 300))"
	grep -q ';lookup_strings;std::map<[^;]*>::find_\[i\]' "$T/i.folded" && ok ||
		bad "record: std::map::find inlined in lookup_strings ($(grep lookup_strings "$T/i.folded" | head -c 300))"
	status 0 "record: inlined frames, without DEBUGINFOD_URLS" env -u DEBUGINFOD_URLS \
		"$EMBER" record --all -o "$T/i2.folded" -- "$R/inline" 0.3
	check "record: without DEBUGINFOD_URLS, no names, no inlined frames of the program" \
		sh -c "! grep -q 'lookup_strings\|std::map' '$T/i2.folded'"
	# collapse perf --inline as addr2line: local debug files only, and
	# no silent fetching
	printf 'inline 1 1.0: 1 cpu-clock:\n\t    1200 [unknown] (%s)\n\n' "$R/inline" > "$T/i.perf"
	status 0 "collapse perf --inline: a stripped program" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache7" \
		"$EMBER" collapse perf --inline "$T/i.perf"
	check "collapse perf --inline: nothing fetched from debuginfod" test ! -e "$T/cache7/$ibid"
fi

# perf.data read back names it the same way
if command -v perf > /dev/null 2>&1 &&
	perf record -q -g -o "$T/x.data" -- "$R/calltree" 0.5 > /dev/null 2> "$T/perf.err"; then
	status 0 "collapse perf perf.data: with DEBUGINFOD_URLS" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache3" \
		"$EMBER" collapse perf "$T/x.data"
	grep -q "$HOT" "$T/out" && ok || bad "collapse perf perf.data: functions named from debuginfod ($(head -c 300 "$T/out"))"
	status 0 "collapse perf perf.data: without DEBUGINFOD_URLS" env -u DEBUGINFOD_URLS "$EMBER" collapse perf "$T/x.data"
	check "collapse perf perf.data: without DEBUGINFOD_URLS, no names" sh -c "! grep -q 'work_a' '$T/out'"
else
	echo "debuginfod: perf.data tests skipped: perf is missing or may not record"
fi

# the server gone: names from the cache
kill "$srv"
wait "$srv" 2> /dev/null
srv=
status 0 "record: server gone, cache kept" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache" \
	"$EMBER" record -o "$T/c.folded" -- "$R/calltree" 0.3
grep -q "$HOT" "$T/c.folded" && ok || bad "record: functions named from the cache"
# ... and no cache: one warning, the profile still written
status 0 "record: server unreachable" env DEBUGINFOD_URLS="$url" DEBUGINFOD_CACHE_PATH="$T/cache4" DEBUGINFOD_TIMEOUT=5 \
	"$EMBER" record -o "$T/u.folded" -- "$R/calltree" 0.3
has "cannot fetch debug info for '$R/calltree' from debuginfod" "$T/err" && ok || bad "record: server unreachable: warned ($(cat "$T/err"))"
check "record: server unreachable: the profile is written" grep -q 'calltree' "$T/u.folded"

# --- a slow server: a progress line on a terminal, a summary line ---------
if [ -x /usr/bin/python3 ]; then
	cat > "$T/slow.py" << 'PY'
import http.server, sys, time
data = open(sys.argv[1], "rb").read()
class Slow(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        time.sleep(1.6)
        if self.path == "/buildid/%s/debuginfo" % sys.argv[2]:
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            self.send_response(404)
            self.end_headers()
    def log_message(self, *args):
        pass
s = http.server.HTTPServer(("127.0.0.1", 0), Slow)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
	/usr/bin/python3 "$T/slow.py" "$T/srv/calltree.debug" "$bid" > "$T/slow.port" 2> "$T/slow.err" &
	srv=$!
	i=0
	while [ $i -lt 100 ] && [ ! -s "$T/slow.port" ]; do sleep 0.1; i=$((i + 1)); done
	surl="http://127.0.0.1:$(cat "$T/slow.port")"
	status 0 "record: a slow server" env DEBUGINFOD_URLS="$surl" DEBUGINFOD_CACHE_PATH="$T/cache5" \
		"$EMBER" record -o "$T/s.folded" -- "$R/calltree" 0.3
	grep -q "$HOT" "$T/s.folded" && ok || bad "record: a slow server: functions named"
	has "debuginfod: 1 of 1 debug file found" "$T/err" && ok || bad "record: a slow server: summary line ($(cat "$T/err"))"
	check "record: no progress line off a terminal" sh -c "! grep -q 'fetching debug info' '$T/err'"
	if command -v script > /dev/null 2>&1; then
		DEBUGINFOD_URLS="$surl" DEBUGINFOD_CACHE_PATH="$T/cache6" script -qec \
			"'$EMBER' record -o '$T/s2.folded' -- '$R/calltree' 0.3" /dev/null > "$T/tty.out" 2>&1
		has "ember: fetching debug info for '$R/calltree' from debuginfod" "$T/tty.out" && ok ||
			bad "record: a slow server: progress line on a terminal ($(tr '\r' '\n' < "$T/tty.out" | head -5))"
	fi
	kill "$srv"
	wait "$srv" 2> /dev/null
	srv=
else
	echo "debuginfod: slow server tests skipped: no /usr/bin/python3"
fi

finish
