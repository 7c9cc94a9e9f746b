#!/bin/sh
# The library's layers (docs/ARCHITECTURE.md): each folder of src/lib
# includes headers only of the folders below it, so that no two folders
# depend on each other and a reader of perf.data needs nothing of the
# live recorder.  The command includes only the public header and its own.
. tests/cli/lib.sh

# folder: the folders whose headers it may include (the core, src/lib/*.h,
# is below them all)
allowed() {
	case $1 in
	symbols) echo "" ;;
	unwind) echo "symbols" ;;
	interp) echo "symbols" ;;
	perf) echo "interp unwind symbols" ;;
	record) echo "perf interp unwind symbols" ;;
	collapse) echo "perf unwind symbols" ;;
	render | export) echo "" ;;
	*) echo "?" ;;
	esac
}

# the folders a source file includes headers of ("dir/x.h")
uses() {
	sed -n 's@^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z_-]*\)/[^"]*".*@\1@p' "$@" | sort -u
}

dirs=$(cd src/lib && ls -d */ | tr -d / | grep -v '^assets$')
check "the folders are the documented ones" test "$(echo $dirs)" = "collapse export interp perf record render symbols unwind"
for dir in $dirs; do
	ok_list=$(allowed "$dir")
	check "$dir is a documented layer" test "$ok_list" != "?"
	for u in $(uses src/lib/$dir/*.[ch]); do
		[ "$u" = "$dir" ] && continue
		case " $ok_list " in
		*" $u "*) ok ;;
		*) bad "$dir includes a header of $u/: $(grep -l "#include \"$u/" src/lib/$dir/*.[ch] | tr '\n' ' ')" ;;
		esac
	done
	check "docs/ARCHITECTURE.md names $dir/" grep -q "src/lib/$dir/" docs/ARCHITECTURE.md
done
check "the core includes no folder's header" test -z "$(uses src/lib/*.[ch])"
check "the command includes no header of the library but ember.h" \
	test -z "$(uses src/cli/*.[ch])"
check "the command includes no internal header" \
	test -z "$(grep -l '#include "\(internal\|intern\|stacks\|folded\|tree\)\.h"' src/cli/*.[ch])"
# the live session alone: no perf.data decoding, unwinding or symbol
# tables in record/
check "record/ holds no perf.data reader, unwinder or symbol table" \
	test -z "$(ls src/lib/record | grep -E '^(perfdata|unwind|cfi|symtab|elf|events)')"
finish
