#!/bin/sh
# The installed library: a program built with pkg-config --cflags --libs
# ember (shared, and --static) against DESTDIR, which has functions of its
# own named as libember's internal ones, links and runs; libember.so.0 and
# libember.a export only ember_* names, those include/ember.h declares.
. tests/cli/lib.sh
B=${BUILD:-build}
cc=${CC:-cc}
status 0 "make install" make -s install BUILD="$B" DESTDIR="$T/root" PREFIX=/usr/local
sed 's/^/  /' "$T/err" | head -5
L=$T/root/usr/local/lib
export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$T/root"
printf 'prog;main;leaf 1\nown: 3 2 7 4 4 9\n' > "$T/want"

status 0 "pkg-config --cflags --libs ember" pkg-config --cflags --libs ember
flags=$(cat "$T/out")
check "pkg-config: the header's folder" has "-I$T/root/usr/local/include" "$T/out"
check "pkg-config: -lember" has "-lember" "$T/out"
status 0 "a program with src_open, job_append, rec_init of its own links with libember.so" \
	$cc -std=gnu11 -Wall -Werror ${SANFLAGS:-} -o "$T/shared" tests/cli/pkgconfig.c $flags
sed 's/^/  /' "$T/err" | head -5
check "it needs libember.so.0" sh -c "readelf -d '$T/shared' | grep -q 'NEEDED.*\\[libember.so.0\\]'"
status 0 "it runs (LD_LIBRARY_PATH)" env LD_LIBRARY_PATH="$L" "$T/shared"
check "it folds, and its own functions are its own" cmp "$T/want" "$T/out"

# --static: Debian names yajl's static library libyajl_s.a
if [ -n "${SANFLAGS:-}" ]; then
	echo "pkgconfig: --static skipped: the sanitizers do not link statically"
else
	status 0 "pkg-config --static" pkg-config --static --cflags --libs ember
	check "pkg-config --static: the private libraries" has "-ldw" "$T/out"
	check "pkg-config --static: Libs.private" has "-liberty" "$T/out"
	sflags=$(sed 's/-lyajl\b/-lyajl_s/' "$T/out")
	status 0 "the same program links statically with libember.a" \
		$cc -std=gnu11 -Wall -Werror -static -o "$T/static" tests/cli/pkgconfig.c $sflags
	grep -v "statically linked applications requires at runtime" "$T/err" | grep -v 'in function' | sed 's/^/  /' | head -5
	check "it is static" sh -c "! readelf -d '$T/static' 2> /dev/null | grep -q NEEDED"
	status 0 "it runs" "$T/static"
	check "it folds, and its own functions are its own (static)" cmp "$T/want" "$T/out"
fi

# what the libraries export
nm -D --defined-only "$L/libember.so.0" | awk 'NF == 3 { print $3 }' | sort > "$T/so"
nm --defined-only -g "$L/libember.a" | awk 'NF == 3 { print $3 }' | sort > "$T/a"
check "libember.so.0 exports names ($(wc -l < "$T/so"))" test "$(wc -l < "$T/so")" -gt 50
check "libember.so.0 exports only ember_* ($(grep -v '^ember_' "$T/so" | head -3 | tr '\n' ' '))" \
	test -z "$(grep -v '^ember_' "$T/so")"
check "libember.a exports only ember_* ($(grep -v '^ember_' "$T/a" | head -3 | tr '\n' ' '))" \
	test -z "$(grep -v '^ember_' "$T/a")"
check "both export the same names" cmp "$T/so" "$T/a"
grep -o '\bember_[a-z0-9_]*' include/ember.h | sort -u > "$T/h"
check "every name exported is in ember.h ($(comm -23 "$T/so" "$T/h" | head -3 | tr '\n' ' '))" \
	test -z "$(comm -23 "$T/so" "$T/h")"
for f in ember_collapse_new ember_flamegraph_new ember_record_new ember_strerror ember_set_log; do
	check "exported: $f" grep -qx "$f" "$T/so"
done
for f in ember_hash ember_log ember_intern_init src_open job_append; do
	check "not exported: $f" sh -c "! grep -qx '$f' '$T/so' && ! grep -qx '$f' '$T/a'"
done
finish
