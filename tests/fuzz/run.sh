#!/bin/sh
# Builds each libFuzzer target tests/fuzz/fuzz-*.c against the library
# (clang, -fsanitize=fuzzer,address,undefined) and runs it briefly from its
# corpus in tests/fuzz/corpus/<name>/.  Crashes found are kept as files in
# tests/fuzz/crashes/<name>/, which `make test` replays as regressions.
# FUZZ_SECONDS sets the time per target (default 20).  A target's
# " * max_len: N" line caps its inputs (default 65536): small inputs run
# fast, and the bugs of line formats show in a few lines.
#
# Undefined behaviour stops a run as a crash does (as in `make check`):
# reported and going on, it was lost in the logs, and the checks' own
# branches were more than half of the coverage counters.
#
# libFuzzer's entropic schedule looks every feature a run hits up in its
# list of rare features, which by default holds every feature seen fewer
# than 255 times: with the tens of thousands of features of the collapse
# and perf.data targets that search took half of each run.  Rare here is
# fewer than 8 times: as much coverage for the CPU time, up to three times
# the executions.
set -u
secs=${FUZZ_SECONDS:-20}
CC=${FUZZ_CC:-clang}
if ! command -v "$CC" > /dev/null 2>&1; then
	echo "fuzz: skipped: $CC is not installed (apt-get install clang)"
	exit 0
fi
out=build/fuzz
mkdir -p "$out"
pkg="$(pkg-config --cflags --libs libelf libdw zlib yajl libzstd liblzma 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma) -lbz2 $(pkg-config --libs libbpf 2>/dev/null)"
flags="-std=gnu11 -D_GNU_SOURCE -g -O1 -Iinclude -Isrc/lib"
# the library once, instrumented, for every target (two compilers at once)
rm -rf "$out/lib" && mkdir -p "$out/lib"
for f in src/lib/*.c src/lib/*/*.c build/gen/assets.c; do
	case $f in *.bpf.c) continue ;; esac # BPF programs: not host code
	echo "$f"
done | CC=$CC FLAGS=$flags LIB=$out/lib xargs -P 2 -n 1 sh -c \
	'$CC $FLAGS -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -c -o "$LIB/$(echo "$1" | tr / _).o" "$1"' sh \
	2> "$out/lib.log" || {
	echo "fuzz: the library: build failed:"; tail -5 "$out/lib.log"; exit 1; }
rm -f "$out/libember-fuzz.a" && ar rcs "$out/libember-fuzz.a" "$out"/lib/*.o
failed=0 n=0
for src in tests/fuzz/fuzz-*.c; do
	[ -f "$src" ] || continue
	name=$(basename "$src" .c)
	n=$((n + 1))
	if ! $CC $flags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -o "$out/$name" \
		"$src" "$out/libember-fuzz.a" \
		$pkg -liberty -lpthread -lm 2> "$out/$name.log"; then
		echo "fuzz: $name: build failed:"; tail -5 "$out/$name.log"
		failed=1; continue
	fi
	# a target with a " * formats: a b c" line runs once per format,
	# from corpus/NAME/FORMAT/, for a share of the time (2 s at least)
	fmts=$(sed -n 's/^ \* formats: //p' "$src" | tr '\n' ' ')
	max_len=$(sed -n 's/^ \* max_len: //p' "$src")
	for fmt in ${fmts:-.}; do
		t=${name#fuzz-} run=$name s=$secs
		if [ "$fmt" != . ]; then
			t=$t/$fmt run=$name-$fmt
			s=$((secs / 4)); [ $s -ge 2 ] || s=2
		fi
		corpus=tests/fuzz/corpus/$t
		mkdir -p "$out/corpus-$run" "tests/fuzz/crashes/${name#fuzz-}"
		EMBER_FUZZ_FORMAT=$( [ "$fmt" != . ] && echo "$fmt" ) \
		"$out/$name" -max_total_time="$s" -max_len="${max_len:-65536}" -timeout=10 -print_final_stats=1 \
			-entropic_feature_frequency_threshold=8 \
			-artifact_prefix="tests/fuzz/crashes/${name#fuzz-}/" \
			"$out/corpus-$run" $( [ -d "$corpus" ] && echo "$corpus" ) \
			> "$out/$run.run" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			echo "fuzz: $run: FAILED (crash kept in tests/fuzz/crashes/${name#fuzz-}/)"
			grep -m5 'ERROR\|SUMMARY' "$out/$run.run"
			failed=1
		else
			echo "fuzz: $run: $(grep -o 'stat::number_of_executed_units: [0-9]*' "$out/$run.run" | tail -1 || tail -1 "$out/$run.run")"
			grep -m1 -o '#[0-9]*.*DONE.*' "$out/$run.run" || true
		fi
	done
done
echo "fuzz: $n targets, $( [ $failed = 0 ] && echo clean || echo 'crashes found' )"
exit $failed
