#!/bin/sh
# make install: the binary, the FlameGraph-named links in libexec that act
# as the Perl scripts (relative to wherever BINDIR and LIBEXEC are), the man
# pages, the completions, the header, the libraries and ember.pc; make
# uninstall removes exactly those.
. tests/cli/lib.sh
IN=tests/conformance/flamegraph/inputs
B=${BUILD:-build}
links=$(sed -n "/^LINKS :=/,/[^\\]$/p" Makefile | sed "s/^LINKS :=//; s/\\\\//")
version=$(sed -n 's/^#define EMBER_VERSION "\(.*\)"/\1/p' include/ember.h)

# installs into $T/root with the make arguments given, into $T/layout
# the files and links it made
install_in() {
	rm -rf "$T/root"
	status 0 "make install $*" make -s install BUILD="$B" DESTDIR="$T/root" "$@"
	sed 's/^/  /' "$T/err" | head -5
	(cd "$T/root" && find . ! -type d | sort) > "$T/layout"
}

install_in PREFIX=/usr/local
R=$T/root/usr/local
check "binary installed" test -x "$R/bin/ember"
for l in $links; do
	check "link ${l%.*}" test -L "$R/libexec/ember/${l%.*}"
	check "link $l" test -L "$R/libexec/ember/$l"
done
check "links resolve to the binary" test "$(readlink -f "$R/libexec/ember/flamegraph.pl")" = "$(readlink -f "$R/bin/ember")"
check "links are relative" test "$(readlink "$R/libexec/ember/flamegraph.pl")" = ../../bin/ember
status 0 "installed flamegraph.pl runs" "$R/libexec/ember/flamegraph.pl" "$IN/calltree.folded"
check "installed flamegraph.pl draws" has '</svg>' "$T/out"

# every other place, and what goes there
install_in PREFIX=/usr/local BINDIR=/p/sbin LIBEXEC=/q/lib/x
R=$T/root/usr/local
check "binary in BINDIR" test -x "$T/root/p/sbin/ember"
check "nothing in PREFIX/bin" test ! -e "$R/bin/ember"
for l in $links; do
	for n in "${l%.*}" "$l"; do
		check "link $n in LIBEXEC resolves to the binary" \
			test "$(readlink -f "$T/root/q/lib/x/$n")" = "$(readlink -f "$T/root/p/sbin/ember")"
	done
done
check "links are relative (DESTDIR-proof)" test "$(readlink "$T/root/q/lib/x/flamegraph")" = ../../../p/sbin/ember
status 0 "a link in LIBEXEC runs" "$T/root/q/lib/x/stackcollapse-perf.pl" tests/conformance/collapse/perf/inputs/perf-dd-stacks-01.txt
check "the link acts as stackcollapse-perf.pl" has 'dd;' "$T/out"
for p in ember ember-record ember-collapse ember-flamegraph ember-diff; do
	check "man page $p.1" test -s "$R/share/man/man1/$p.1"
done
check "bash completion" test -s "$R/share/bash-completion/completions/ember"
check "zsh completion" test -s "$R/share/zsh/vendor-completions/_ember"
check "fish completion" test -s "$R/share/fish/vendor_completions.d/ember.fish"
check "header" cmp include/ember.h "$R/include/ember.h"
check "libember.so.$version" test -f "$R/lib/libember.so.$version"
check "libember.so.0 links to it" test "$(readlink "$R/lib/libember.so.0")" = "libember.so.$version"
check "libember.so links to libember.so.0" test "$(readlink "$R/lib/libember.so")" = libember.so.0
check "soname libember.so.0" sh -c "readelf -d '$R/lib/libember.so.$version' | grep -q 'SONAME.*\\[libember.so.0\\]'"
check "libember.a" test -s "$R/lib/libember.a"
check "ember.pc" test -s "$R/lib/pkgconfig/ember.pc"
check "ember.pc: libdir" grep -qx 'libdir=/usr/local/lib' "$R/lib/pkgconfig/ember.pc"
check "ember.pc: Requires.private" grep -q '^Requires.private: .*libdw' "$R/lib/pkgconfig/ember.pc"
check "ember.pc: Libs.private" grep -q '^Libs.private: .*-liberty' "$R/lib/pkgconfig/ember.pc"
# the man pages and completions of every command ember has
for c in $("$EMBER" __options | awk -F '\t' '$1 == "command" { print $2 }'); do
	check "man page of $c installed" test -s "$R/share/man/man1/ember-$c.1"
done

status 0 "make uninstall" make -s uninstall BUILD="$B" DESTDIR="$T/root" PREFIX=/usr/local BINDIR=/p/sbin LIBEXEC=/q/lib/x
(cd "$T/root" && find . ! -type d | sort) > "$T/left"
check "uninstall leaves no file ($(head -3 "$T/left" | tr '\n' ' '))" test ! -s "$T/left"
check "uninstall removed LIBEXEC" test ! -e "$T/root/q/lib/x"
check "install had installed files" test "$(wc -l < "$T/layout")" -gt 60
finish
