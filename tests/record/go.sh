#!/bin/sh
# ember record on Go programs (DWARF mode, the default): Go's linker
# writes .debug_frame (compressed), not .eh_frame, and its stacks begin in
# runtime.goexit (goroutines) or runtime.mstart (threads), where no CFI
# marks the end.  A program hashing with crypto/sha256 from named
# functions must give whole stacks: few [truncated] ones and the hash's
# block function under its callers; also when the binary is stripped and
# its CFI is in a separate debug file.  Skips, saying why, where go or
# perf_event_open are missing.
. tests/cli/lib.sh
suite=go
R="$T/bin"
mkdir -p "$R"

skip_all() {
	echo "go: skipped: $*"
	echo "go: 0 passed, 0 failed"
	exit 0
}

command -v go > /dev/null 2>&1 || skip_all "go is not installed (golang-go)"
export GOCACHE="$T/gocache" GOPATH="$T/gopath" GOFLAGS=-mod=mod GO111MODULE=off
go build -o "$R/gohash" tests/record/gohash.go 2> "$T/go.err" ||
	skip_all "cannot build tests/record/gohash.go: $(head -1 "$T/go.err")"
"$EMBER" record -q -o "$T/probe.folded" -- "$R/gohash" 0.05 > /dev/null 2> "$T/probe.err" ||
	skip_all "perf_event_open is not usable here: $(head -1 "$T/probe.err")"

# weight of the lines of FILE matching the awk regex RE
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f\n", 100 * a / b; else print -1 }'; }

# FILE WHAT: [truncated] share below 5%, crypto/sha256.block under its
# callers in 90% of its samples
go_checks() {
	all=$(weight "$1" '.')
	tr=$(pct "$(weight "$1" '\[truncated\]')" "$all")
	blk=$(weight "$1" 'crypto/sha256\.block')
	under=$(pct "$(weight "$1" '^gohash;runtime\.goexit[^;]*;runtime\.main;main\.main;main\.worker;main\.hashLoop;crypto/sha256\.Sum256;.*crypto/sha256\.block')" "$blk")
	echo "go: $2: $tr% [truncated], crypto/sha256.block under its callers in $under% of its samples"
	check "$2: [truncated] below 5% ($tr%)" test "$tr" -ge 0 -a "$tr" -lt 5
	check "$2: crypto/sha256.block under main.hashLoop ($under%)" test "$under" -ge 90
	check "$2: no warning of truncated stacks" sh -c "! grep -q 'user stacks were truncated' '$T/err'"
}

status 0 "Go program recorded" "$EMBER" record -o "$T/go.folded" -- "$R/gohash" 1
go_checks "$T/go.folded" "Go, .debug_frame"

# the same with its CFI only in a separate debug file (.gnu_debuglink)
mkdir -p "$R/s"
if command -v objcopy > /dev/null 2>&1 &&
	objcopy --only-keep-debug "$R/gohash" "$R/s/gohash.debug" 2> /dev/null &&
	objcopy --strip-debug --add-gnu-debuglink="$R/s/gohash.debug" "$R/gohash" "$R/s/gohash" 2> /dev/null; then
	check "stripped: no .debug_frame of its own" sh -c "! readelf -S '$R/s/gohash' | grep -q 'debug_frame'"
	status 0 "stripped Go program recorded" "$EMBER" record -o "$T/gos.folded" -- "$R/s/gohash" 1
	go_checks "$T/gos.folded" "Go, .debug_frame in a debug file"
else
	echo "go: separate debug file test skipped: no objcopy (binutils)"
fi

finish
