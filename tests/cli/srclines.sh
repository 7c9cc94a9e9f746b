#!/bin/sh
# Source lines read by ember's own reader of line programs
# (src/lib/symbols/lines.c) against libdw's dwfl_module_getsrc and
# dwarf_decl_file, by build/tests/test-lines, on programs built here: C
# in DWARF 4 and 5 (two units, inlined calls, one section per function;
# functions end to end, a sequence ending where the next starts),
# C++ -O2 -g with the standard library's templates inlined (its units'
# many sequences), clang's where it is installed, and libc's debug file
# where libc6-dbg is installed.
. tests/cli/lib.sh
B=${BUILD:-build}
LINES="$top/$B/tests/test-lines"
cc=${CC:-cc}
cxx=${CXX:-c++}

cat > "$T/a.c" << 'SRC'
#include <stdio.h>
#include <stdlib.h>
static volatile int sink;
static inline int sq(int x)
{
	sink++;
	return x * x;
}
int other(int n);
int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < argc * 1000; i++)
		s += sq(i) + other(i);
	printf("%d\n", s);
	return argv[1] ? atoi(argv[1]) : 0;
}
SRC
cat > "$T/b.c" << 'SRC'
#include "b.h"
int other(int n)
{
	return twice(n) + (n & 1 ? twice(n + 1) : 3);
}
SRC
cat > "$T/b.h" << 'SRC'
static inline int twice(int n)
{
	return n * 2;
}
SRC

# functions in sections of their own, one after the other: a sequence
# ends where the next one starts
cat > "$T/adj.c" << 'SRC'
static volatile int sink;
__attribute__((noinline)) void f1(void) { sink++; }
__attribute__((noinline)) void f2(void) { sink += 2; }
__attribute__((noinline)) void f3(void) { sink += 3; }
int main(void) { f1(); f2(); f3(); return 0; }
SRC

built=
o=$T/c-adjacent
status 0 "cc -O2 -g -ffunction-sections -falign-functions=1" \
	$cc -O2 -g -ffunction-sections -falign-functions=1 -o "$o" "$T/adj.c"
built="$built $o"
for v in 4 5; do
	for fs in "" -ffunction-sections; do
		o=$T/c-dwarf$v$fs
		status 0 "cc -O2 -gdwarf-$v $fs" $cc -O2 -gdwarf-$v $fs -o "$o" "$T/a.c" "$T/b.c"
		built="$built $o"
	done
done
o=$T/c-O0
status 0 "cc -O0 -g" $cc -O0 -g -o "$o" "$T/a.c" "$T/b.c"
built="$built $o"
o=$T/cxx
status 0 "c++ -O2 -g" $cxx -O2 -g -o "$o" tests/record/inline.cc
built="$built $o"
if command -v clang > /dev/null 2>&1; then
	for v in 4 5; do
		o=$T/clang-dwarf$v
		status 0 "clang -O2 -gdwarf-$v" clang -O2 -gdwarf-$v -o "$o" "$T/a.c" "$T/b.c"
		built="$built $o"
	done
else
	echo "srclines: clang skipped: not installed"
fi

for o in $built; do
	status 0 "$(basename "$o"): ember's lines are libdw's" "$LINES" "$o"
	grep -v ' 0 failed$' "$T/out" | sed 's/^/  /'
	check "$(basename "$o"): addresses compared" grep -q ' [1-9][0-9]* addresses, 0 differ' "$T/out"
done

# line programs with bytes changed (the same 40 each run): ember reads
# what libdw reads, leaves to it what it refuses, and never reads past
# the section
o=$T/c-dwarf5
sec=$(readelf -S -W "$o" | awk '$2 == ".debug_line" { print $5, $6 }')
off=$((0x${sec% *})) size=$((0x${sec#* }))
seed=7 bad=0
for i in $(seq 40); do
	cp "$o" "$T/mut"
	for j in 1 2; do
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		pos=$((off + seed % size))
		seed=$(( (seed * 1103515245 + 12345) % 2147483648 ))
		printf "\\$(printf %03o $((seed % 256)))" |
			dd of="$T/mut" bs=1 seek=$pos conv=notrunc 2> /dev/null
	done
	LINES_ALLOW_FALLBACK=1 "$LINES" "$T/mut" > "$T/out" 2> "$T/err"
	if grep -q 'libdw .*, ember \|Sanitizer\|runtime error' "$T/err"; then
		bad=$((bad + 1))
		sed 's/^/  /' "$T/err" | head -5
	fi
done
check "40 changed line programs: ember's lines are libdw's" [ "$bad" = 0 ]

# libc's own, built by Debian (DWARF 5, its sections compressed)
bid=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 2> /dev/null | awk '/Build ID/ { print $3 }')
dbg=/usr/lib/debug/.build-id/$(echo "$bid" | cut -c1-2)/$(echo "$bid" | cut -c3-).debug
if [ -n "$bid" ] && [ -f "$dbg" ]; then
	status 0 "libc's debug file: ember's lines are libdw's" "$LINES" "$dbg"
	grep -v ' 0 failed$' "$T/out" | sed 's/^/  /'
else
	echo "srclines: libc skipped: libc6-dbg is not installed"
fi
finish
