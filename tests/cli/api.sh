#!/bin/sh
# The library's interface: a program built against include/ember.h alone
# uses the frame-name and stack tables and inputs through their functions;
# their insides, and the library's own helpers, are not in the header.
. tests/cli/lib.sh
B=$top/${BUILD:-build}
cc=${CC:-cc}
libs="$(pkg-config --libs libelf libdw zlib yajl libzstd liblzma 2>/dev/null || echo -lelf -ldw -lz -lyajl -lzstd -llzma) -lbz2 -liberty -lpthread -lm"
# only include/: the library's own headers are out of reach
build() { # OUT SOURCE
	$cc -std=gnu11 -Wall -Werror ${SANFLAGS:-} -I"$top/include" -o "$1" "$2" "$B/libember.a" $libs
}

status 0 "a program on the public header builds" build "$T/api" tests/cli/api.c
printf 'main;work;hash 3\n' | gzip > "$T/in.gz"
status 0 "it runs" "$T/api" "$T/in.gz"
cat > "$T/want" <<'END'
names 3, stacks 2
stack 0: main work hash = 5
stack 1: main work = 1
main;work 1
main;work;hash 5
END
printf '%s: 17 bytes, as written\n' "$T/in.gz" >> "$T/want"
echo 'profile_only: first input read, second refused' >> "$T/want"
check "tables and inputs through their functions" cmp "$T/want" "$T/out"

# each of these must not compile: the types are opaque, the helpers
# internal
for expr in 'sizeof(struct ember_intern)' 'sizeof(struct ember_stacks)' \
	'sizeof(struct ember_input)' 'sizeof(struct ember_intern_ent)' \
	'sizeof(struct ember_stack_ent)' 'sizeof(struct ember_arena)' \
	'(size_t)ember_intern_init' '(size_t)ember_stacks_release' \
	'(size_t)ember_hash' '(size_t)ember_log' \
	'(size_t)ember_perf_frame_names' '(size_t)ember_tree_flow_keep'; do
	printf '#include "ember.h"\nsize_t f(void);\nsize_t f(void) { return %s; }\n' "$expr" > "$T/x.c"
	if $cc -std=gnu11 -Werror -I"$top/include" -c -o "$T/x.o" "$T/x.c" 2> /dev/null; then
		bad "ember.h exposes $expr"
	else
		ok
	fi
done
# ... while the same file compiles with what the header does declare
printf '#include "ember.h"\nsize_t f(void);\nsize_t f(void) { return (size_t)ember_intern_count + (size_t)ember_stacks_weight + (size_t)ember_input_data; }\n' > "$T/x.c"
check "the probe compiles with public names" $cc -std=gnu11 -Werror -I"$top/include" -c -o "$T/x.o" "$T/x.c"
finish
