# Unwinding cost per sample (µs), on stack snapshots of live programs:
# C without frame pointers, Python 3.12 -X perf, Python 3.13 -X perf_jit
# and Node.js, with a cold unwinder, a warm rule cache and no cache.
. bench/lib.sh
CC=${CC:-cc}
pkg="$(pkg-config --cflags --libs libelf libdw zlib yajl libzstd liblzma 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma) -lbz2 $(pkg-config --libs libbpf 2>/dev/null)"
make -s --no-print-directory BUILD="$BUILD" "$BUILD/libember.a" || exit 1
$CC -std=gnu11 -O2 -g -D_GNU_SOURCE -Iinclude -Isrc/lib -Itests/unit \
	-o "$W/unwind-bench" bench/unwind-bench.c "$BUILD/libember.a" $pkg \
	-liberty -lpthread -lm || exit 1
"$W/unwind-bench" tests/unwind ${UNWIND_ROUNDS:-200}
