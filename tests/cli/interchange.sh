#!/bin/sh
# Profiles in and out: round trips through pprof and speedscope, pprof
# read back by Go's own `go tool pprof`, real producers read (Go's
# runtime/pprof, node --cpu-prof, Chromium's tracing), the output chosen
# by --format or the -o extension, and bad input refused clearly.  The
# parts that need go, node or chromium skip, saying so, where missing.
. tests/cli/lib.sh
D=tests/interchange
P=tests/conformance/collapse/perf

# ---- round trips: folded -> pprof/speedscope -> folded, exactly ----
roundtrip() { # NAME FOLDED-FILE
	"$EMBER" collapse folded "$2" > "$T/want" 2> "$T/err" || { bad "$1: folded"; return; }
	for ext in pb.gz speedscope.json; do
		status 0 "$1: to .$ext" "$EMBER" collapse folded "$2" -o "$T/rt.$ext"
		status 0 "$1: .$ext read back" "$EMBER" collapse "$T/rt.$ext"
		check "$1: .$ext round trip exact" cmp -s "$T/out" "$T/want"
	done
}
roundtrip names "$D/names.folded"
n=0
for f in "$P"/expected/*--default.folded.gz "$P"/expected/*--tid.folded.gz; do
	[ -f "$f" ] || continue
	gzip -dc "$f" > "$T/in.folded"
	roundtrip "$(basename "$f" .folded.gz)" "$T/in.folded"
	n=$((n + 1))
	[ $n -ge 12 ] && break
done
# pprof holds integers: 9223372036854775807 is the largest weight
printf 'a 9223372036854775808\n' > "$T/huge.folded"
status 1 "a weight beyond int64 in pprof" "$EMBER" collapse folded "$T/huge.folded" -o "$T/h.pb.gz"
check "  says so" has "does not fit in pprof" "$T/err"
check "  leaves no file" test ! -e "$T/h.pb.gz"

# perf --tid: a speedscope profile per thread (named "comm (tid N)", as
# record names them), read back with a root frame per thread again
in=$P/inputs/perf-iperf-stacks-pidtid-01.txt.gz
"$EMBER" collapse perf --tid "$in" > "$T/want" 2> /dev/null
status 0 "perf --tid to speedscope" "$EMBER" collapse perf --tid "$in" -o "$T/t.speedscope.json"
check "  a profile per thread" test "$(grep -c '"type":"sampled"' "$T/t.speedscope.json")" -gt 1
status 0 "  read back" "$EMBER" collapse "$T/t.speedscope.json"
# the stacks below the roots, and the roots' threads
below() { sed 's/^[^;]*;//' "$1" | awk '{ c = $NF; sub(/ [^ ]*$/, ""); s[$0] += c } END { for (k in s) print k, s[k] }' | LC_ALL=C sort; }
below "$T/out" > "$T/o1"
below "$T/want" > "$T/o2"
check "  the same stacks below the roots" cmp -s "$T/o1" "$T/o2"
check "  a root per thread" test "$(sed 's/;.*//; s/.*[/(]tid //; s/.*\///; s/)$//' "$T/out" | sort -u | wc -l)" = \
	"$(sed 's/;.*//; s/.*\///' "$T/want" | sort -u | wc -l)"

# ---- the output format: --format or the -o extension ----
status 0 "-o .svg draws" "$EMBER" collapse "$D/go-cpu.pb.gz" -o "$T/g.svg"
check "  an SVG" wellformed "$T/g.svg"
check "  the count's unit" has "nanoseconds" "$T/g.svg"
status 0 "--format speedscope to stdout" "$EMBER" collapse --format speedscope "$D/go-cpu.pb.gz"
check "  speedscope JSON" has '"$schema":"https://www.speedscope.app/file-format-schema.json"' "$T/out"
status 0 "--format pprof to stdout" "$EMBER" collapse --format pprof "$D/go-cpu.pb.gz"
check "  gzip" sh -c "head -c 2 '$T/out' | od -An -tx1 | grep -q '1f 8b'"
status 0 "--format folded wins over -o .svg" "$EMBER" collapse --format folded "$D/go-cpu.pb.gz" -o "$T/f.svg"
check "  folded" has "runtime.main;main.main" "$T/f.svg"
status 2 "--format unknown" "$EMBER" collapse --format png "$D/go-cpu.pb.gz"
check "  names the formats" has "folded|svg|pprof|speedscope" "$T/err"
status 0 "flamegraph reads pprof" "$EMBER" flamegraph "$D/go-cpu.pb.gz"
check "  an SVG with Go's frames" has "main.leafA" "$T/out"
check "  weights in nanoseconds" has "nanoseconds" "$T/out"
status 0 "flamegraph reads trace events" "$EMBER" flamegraph "$D/chrome-begin-end.json"
check "  an SVG" has "main" "$T/out"

# ---- pprof in: Go's profiles, with go tool pprof -traces as the oracle ----
# `-traces` lists each sample, leaf first; folded: root first, summed
traces_folded() {
	awk '/^-+\+-+$/ { flush(); next }
	     n == 0 && /^ +-?[0-9]/ { v = $1; sub(/^ +-?[0-9]+ +/, ""); add($0); next }
	     n > 0 && /^  +[^ ]/ { sub(/^ +/, ""); add($0) }
	     function add(f) { sub(/ \(inline\)$/, "", f); fr[++n] = f }
	     function flush(  s, i) { if (!n) return; s = fr[n]
		for (i = n - 1; i >= 1; i--) s = s ";" fr[i]
		sum[s] += v; n = 0 }
	     END { flush(); for (s in sum) print s " " sum[s] }' "$1" | LC_ALL=C sort
}
nonzero() { grep -v ' 0$' "$1" | LC_ALL=C sort; }
traces_folded "$D/go-cpu.traces" > "$T/want"
status 0 "Go CPU profile" "$EMBER" collapse --sample-type=samples "$D/go-cpu.pb.gz"
nonzero "$T/out" > "$T/got"
check "  the stacks go tool pprof -traces gives" cmp -s "$T/got" "$T/want"
check "  inlined calls as frames" has "main.middle;main.inlined;main.leafA" "$T/got"
traces_folded "$D/go-heap.traces" > "$T/want"
status 0 "Go heap profile" "$EMBER" collapse pprof --sample-type alloc_objects "$D/go-heap.pb.gz"
nonzero "$T/out" > "$T/got"
check "  the stacks go tool pprof -traces gives" cmp -s "$T/got" "$T/want"
status 0 "heap: the default sample type is the last" "$EMBER" collapse "$D/go-heap.pb.gz"
status 0 "  (inuse_space)" "$EMBER" collapse --sample-type inuse_space "$D/go-heap.pb.gz"
status 0 "--label: root frames" "$EMBER" collapse --label bytes "$D/go-heap.pb.gz"
check "  numeric label values" grep -q '^[0-9][0-9]*;' "$T/out"
status 1 "--sample-type unknown" "$EMBER" collapse --sample-type nope "$D/go-heap.pb.gz"
check "  lists the types" has "alloc_objects, alloc_space, inuse_objects, inuse_space" "$T/err"
status 2 "--sample-type with perf" "$EMBER" collapse perf --sample-type cpu "$D/go-heap.pb.gz"

if command -v go > /dev/null 2>&1; then
	# ember's pprof as Go reads it: the functions' flat and cumulative
	# counts and the total, against the folded file
	top_folded() {
		awk '{ c = $NF; s = $0; sub(/ [^ ]*$/, "", s); n = split(s, f, ";")
		       flat[f[n]] += c; split("", seen)
		       for (i = 1; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; cum[f[i]] += c } }
		     END { for (k in cum) printf "%s\t%d\t%d\n", k, flat[k], cum[k] }' "$1" | LC_ALL=C sort
	}
	top_pprof() {
		go tool pprof -top -nodecount=1000000 -nodefraction=0 -edgefraction=0 "$1" 2> /dev/null |
		awk 'go { name = $0; sub(/^ *[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +[^ ]+ +/, "", name)
			  printf "%s\t%s\t%s\n", name, $1, $4 }
		     /flat%/ { go = 1 }' | LC_ALL=C sort
	}
	export GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	gzip -dc "$P/expected/perf-java-stacks-01--default.folded.gz" > "$T/java.folded"
	"$EMBER" collapse folded "$T/java.folded" -o "$T/java.pb.gz"
	top_folded "$T/java.folded" > "$T/want"
	top_pprof "$T/java.pb.gz" > "$T/got"
	check "go tool pprof -top: ember's pprof, the folded file's functions" \
		sh -c "test -s '$T/got' && cmp -s '$T/got' '$T/want'"
	total=$(awk '{ t += $NF } END { print t }' "$T/java.folded")
	go tool pprof -top "$T/java.pb.gz" > "$T/top" 2> /dev/null
	check "go tool pprof -top: the total" has "of $total total" "$T/top"
	# a Go program's CPU profile, recorded now
	mkdir -p "$T/go" && cp "$D/burn.go" "$T/go/main.go"
	printf 'module burn\ngo 1.19\n' > "$T/go/go.mod"
	if (cd "$T/go" && go build -o burn . && ./burn cpu.pb.gz heap.pb.gz) > "$T/goerr" 2>&1; then
		go tool pprof -traces -sample_index=samples "$T/go/cpu.pb.gz" > "$T/tr" 2> /dev/null
		traces_folded "$T/tr" > "$T/want"
		"$EMBER" collapse --sample-type=samples "$T/go/cpu.pb.gz" > "$T/out"
		nonzero "$T/out" > "$T/got"
		check "runtime/pprof CPU profile now: go tool pprof -traces's stacks" \
			sh -c "test -s '$T/want' && cmp -s '$T/got' '$T/want'"
		"$EMBER" collapse "$T/go/cpu.pb.gz" -o "$T/back.pb.gz"
		go tool pprof -top "$T/go/cpu.pb.gz" 2> /dev/null | grep 'total$' > "$T/t1"
		go tool pprof -top "$T/back.pb.gz" 2> /dev/null | grep 'total$' > "$T/t2"
		check "  written back: go tool pprof's total (cpu nanoseconds)" \
			sh -c "test -s '$T/t1' && cmp -s '$T/t1' '$T/t2'"
	else
		bad "the Go test program does not build or run"; head -5 "$T/goerr"
	fi
else
	echo "interchange: go tool pprof parts skipped: no go (Debian package golang-go)"
fi

# ---- cpuprofile: node --cpu-prof, against the profile's own tree ----
if command -v node > /dev/null 2>&1; then
	# the oracle: each sample's node, up the children links to the root
	cat > "$T/oracle.js" << 'JS'
const p = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const time = process.argv[3] == "time";
const byId = new Map(), parent = new Map();
for (const n of p.nodes) byId.set(n.id, n);
for (const n of p.nodes) for (const c of n.children || []) parent.set(c, n.id);
const name = (n) => { const f = n.callFrame;
	let s = f.functionName || "(anonymous)";
	if (f.url) s += " " + f.url + (f.lineNumber >= 0 ? ":" + (f.lineNumber + 1) : "");
	return s.replace(/;/g, ":"); };
const sum = new Map();
// DevTools' durations: samples in order of time, each until the next, the
// last as long as their mean interval
let t = p.startTime;
const at = p.timeDeltas.map((d) => (t += d));
const order = at.map((_, i) => i).sort((a, b) => at[a] - at[b] || a - b);
const dur = [], n = order.length;
order.forEach((i, j) => { dur[i] = j + 1 < n ? at[order[j + 1]] - at[i] :
	(at[order[n - 1]] - at[order[0]]) / (n - 1); });
p.samples.forEach((id, i) => {
	const w = !time ? 1 : dur[i];
	const st = [];
	for (let k = id; parent.has(k); k = parent.get(k)) st.unshift(name(byId.get(k)));
	if (!st.length || !(w > 0)) return;
	const key = st.join(";");
	sum.set(key, (sum.get(key) || 0) + w);
});
// counts print as Perl prints them (%.15g)
for (const [k, v] of sum) console.log(k + " " + Number(v.toPrecision(15)));
JS
	if (cd "$T" && node --cpu-prof --cpu-prof-dir=prof "$top/$D/burn.js") > "$T/nodeerr" 2>&1; then
		cpu=$(ls "$T"/prof/*.cpuprofile)
		node "$T/oracle.js" "$cpu" | LC_ALL=C sort > "$T/want"
		status 0 "node --cpu-prof: --samples" "$EMBER" collapse cpuprofile --samples "$cpu"
		LC_ALL=C sort "$T/out" > "$T/got"
		check "  the samples' stacks" sh -c "test -s '$T/want' && cmp -s '$T/got' '$T/want'"
		check "  the script's functions" has "leafA file://" "$T/got"
		node "$T/oracle.js" "$cpu" time | LC_ALL=C sort > "$T/want"
		status 0 "  guessed and read: time by default" "$EMBER" collapse "$cpu"
		LC_ALL=C sort "$T/out" > "$T/got"
		check "  microseconds as DevTools shows them" cmp -s "$T/got" "$T/want"
		status 0 "  --time" "$EMBER" collapse cpuprofile --time "$cpu"
		LC_ALL=C sort "$T/out" > "$T/got"
		check "  --time: the same" cmp -s "$T/got" "$T/want"
	else
		bad "node --cpu-prof failed"; head -5 "$T/nodeerr"
	fi
else
	echo "interchange: node parts skipped: no node (Debian package nodejs)"
fi
status 2 "--time with pprof" "$EMBER" collapse pprof --time "$D/go-cpu.pb.gz"

# ---- trace events: Chromium's own tracing ----
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -n "$CHROMIUM" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$T/chromium-profile" --trace-startup='*' \
		--trace-startup-format=json --trace-startup-file="$T/trace.json" \
		--trace-startup-duration=2 --dump-dom about:blank > /dev/null 2>&1
	if [ -s "$T/trace.json" ]; then
		status 0 "Chromium's trace: guessed and read" "$EMBER" collapse -q "$T/trace.json"
		check "  stacks of Chromium's spans" sh -c "test \$(wc -l < '$T/out') -gt 10"
		check "  its main loop" has "RunLoop::Run" "$T/out"
		status 0 "  as chrome-tracing" "$EMBER" collapse chrome-tracing -q "$T/trace.json"
	else
		bad "chromium --trace-startup wrote no trace"
	fi
else
	echo "interchange: Chromium tracing skipped: no chromium (Debian package chromium)"
fi

# ---- bad input: a clear error, never a crash ----
gzip -dc "$D/go-cpu.pb.gz" > "$T/raw.pb"
status 0 "pprof not compressed" "$EMBER" collapse "$T/raw.pb"
head -c 300 "$D/go-cpu.pb.gz" > "$T/cut.pb.gz"
status 1 "truncated gzip" "$EMBER" collapse pprof "$T/cut.pb.gz"
check "  says so" has "corrupt or truncated compressed" "$T/err"
head -c 500 "$T/raw.pb" > "$T/cut.pb"
status 1 "truncated protobuf" "$EMBER" collapse pprof "$T/cut.pb"
check "  says so" has "truncated" "$T/err"
# sample_type (field 1) as an integer, not a message
printf '\010\001\062\000' > "$T/wire.pb"
status 1 "a field of the wrong wire type" "$EMBER" collapse pprof "$T/wire.pb"
check "  says which" has "field 1 of a Profile is an integer" "$T/err"
printf '[1,2,3]' > "$T/arr.json"
status 1 "speedscope: JSON of the wrong shape" "$EMBER" collapse speedscope "$T/arr.json"
check "  says so" has "not a speedscope file" "$T/err"
printf '{"nodes":{"id":1}}' > "$T/obj.json"
status 1 "cpuprofile: nodes not an array" "$EMBER" collapse cpuprofile "$T/obj.json"
check "  says so" has '"nodes", "samples" or "timeDeltas" is not an array' "$T/err"
printf '{"traceEvents":[{"ph":"X","ts":1,"dur":2,"name":"a"' > "$T/cut.json"
status 1 "trace events cut short" "$EMBER" collapse chrome "$T/cut.json"
check "  says so" has "ends too soon" "$T/err"
printf '{"traceEvents":[{"ph":"X","pid":1,"tid":1,"ts":NaN,"dur":1,"name":"a"}]}' > "$T/nan.json"
status 1 "trace events: NaN is not JSON" "$EMBER" collapse chrome-tracing "$T/nan.json"
check "  says so" has "not valid JSON" "$T/err"
printf '{"shared":{"frames":[{"name":"a"}]},"profiles":[{"type":"sampled","unit":"none","samples":[[0,3]],"weights":[1]}]}' > "$T/idx.json"
status 1 "speedscope: frame index out of range" "$EMBER" collapse speedscope "$T/idx.json"
check "  says so" has "names frame 3" "$T/err"
printf '{"shared":{"frames":[{"name":"a"},{"name":"b"}]},"profiles":[{"type":"evented","name":"p","unit":"milliseconds","startValue":0,"endValue":4,"events":[{"type":"O","frame":0,"at":0},{"type":"O","frame":1,"at":1},{"type":"C","frame":1,"at":3},{"type":"C","frame":0,"at":4}]}]}' > "$T/ev.json"
status 0 "speedscope: evented" "$EMBER" collapse speedscope "$T/ev.json"
check "  time between events" sh -c "printf 'a 2\na;b 2\n' | cmp -s - '$T/out'"
# a profile cut short while ember reads it (stopped by EMBER_READ_STOP_AT,
# see lib.sh): a clear error with the byte counts, never SIGBUS, and no
# output or temporary file left; pprof raw and gzipped, a JSON profile
awk 'BEGIN { for (i = 0; i < 150000; i++) printf "main;f%d;g%d;h%d 1\n", i % 1000, i, i }' > "$T/many.folded"
"$EMBER" collapse folded "$T/many.folded" -o "$T/many.pb.gz" || bad "many stacks to pprof"
"$EMBER" collapse folded "$T/many.folded" -o "$T/many.speedscope.json" || bad "many stacks to speedscope"
gzip -dc "$T/many.pb.gz" > "$T/many.pb"
rm -f "$T/many.folded"
for f in many.pb:pprof many.pb.gz:pprof many.speedscope.json:speedscope; do
	in=$T/${f%:*} fmt=${f#*:}
	size=$(wc -c < "$in")
	cut_while_read 100 "$in" "$EMBER" collapse "$fmt" -o "$T/cut.folded" "$in"
	cut_checks "$fmt ${f%:*}" "$in" "$size" cut.folded
	rm -f "$in"
done

# 1 GB of zeros: refused at once, without reading it all into memory
if truncate -s 1G "$T/big" 2> /dev/null; then
	for fmt in pprof chrome speedscope cpuprofile; do
		status 1 "1 GB of zeros as $fmt" "$EMBER" collapse $fmt "$T/big"
		check "  a clear error" has "cannot read '$T/big' as $fmt" "$T/err"
	done
	rm -f "$T/big"
fi
finish
