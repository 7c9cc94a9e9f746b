#!/bin/sh
# make install: the binary, and the FlameGraph-named links in libexec that
# act as the Perl scripts.
. tests/cli/lib.sh
IN=tests/conformance/flamegraph/inputs
status 0 "make install" make -s install BUILD="${BUILD:-build}" PREFIX=/usr/local DESTDIR="$T/root"
check "binary installed" test -x "$T/root/usr/local/bin/ember"
for l in $(sed -n "/^LINKS :=/,/[^\\]$/p" Makefile | sed "s/^LINKS :=//; s/\\\\//"); do
	check "link ${l%.*}" test -L "$T/root/usr/local/libexec/ember/${l%.*}"
	check "link $l" test -L "$T/root/usr/local/libexec/ember/$l"
done
check "links resolve to the binary" test "$(readlink -f "$T/root/usr/local/libexec/ember/flamegraph.pl")" = "$(readlink -f "$T/root/usr/local/bin/ember")"
status 0 "installed flamegraph.pl runs" "$T/root/usr/local/libexec/ember/flamegraph.pl" "$IN/calltree.folded"
check "installed flamegraph.pl draws" has '</svg>' "$T/out"
status 0 "make uninstall" make -s uninstall PREFIX=/usr/local DESTDIR="$T/root"
check "uninstall removes the binary" test ! -e "$T/root/usr/local/bin/ember"
check "uninstall removes the links" test ! -e "$T/root/usr/local/libexec/ember"
finish
