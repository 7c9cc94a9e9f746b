#!/bin/sh
# Replays the inputs kept in tests/fuzz/crashes/<target>/ (and the seed
# corpus) through each fuzz target, built with the normal compiler: every
# crash the fuzzers found stays a regression test.
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
pkg="$(pkg-config --cflags --libs libelf libdw zlib yajl libzstd liblzma 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma) -lbz2 $(pkg-config --libs libbpf 2>/dev/null)"
fail=0 n=0
for src in tests/fuzz/fuzz-*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c); t=${name#fuzz-}
	files=$(find tests/fuzz/crashes/$t tests/fuzz/corpus/$t -type f 2>/dev/null | sort)
	[ -n "$files" ] || continue
	bin=$BUILD/tests/replay-$t
	$CC -std=gnu11 -D_GNU_SOURCE -g -O1 ${SANFLAGS:-} -Iinclude -Isrc/lib -o "$bin" \
		"$src" tests/fuzz/replay-main.c "$BUILD/libember.a" $pkg -liberty -lpthread -lm || { fail=1; continue; }
	if "$bin" $files > /dev/null; then n=$((n + 1)); else echo "FAIL replay $t"; fail=1; fi
done
echo "fuzz replay: $n targets replayed, $( [ $fail = 0 ] && echo 0 || echo 1) failed"
exit $fail
