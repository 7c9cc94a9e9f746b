#!/bin/sh
# Installs the Debian packages ember needs, when run as root, or prints the
# exact command to run.  `deps.sh build` covers building (clang, bpftool
# and libbpf-dev for the BPF program reading interpreters' frames); `deps.sh test`
# adds what the tests use (Chromium for the browser tests, xz, zstd and bzip2 for inputs,
# Go for reading pprof back with go tool pprof, GNU time for peak memory,
# libc6-dbg for libc's static functions in profiles, a JDK for profiling
# Java, debuginfod for a local debuginfod server serving a stripped
# program's symbols, man-db and groff for checking the man pages, zsh and
# fish for their completions); `deps.sh build` includes the static
# libraries of libdw's own dependencies (liblzma, libbz2) for make static;
# `deps.sh bench` adds libdeflate0, which ember loads
# when present to decompress debug files faster; `deps.sh fmt` the formatter (Debian 12's
# clang-format, the version .clang-format is for).
set -u
case "${1:-build}" in
build) pkgs="gcc make pkg-config libelf-dev libdw-dev libiberty-dev zlib1g-dev libyajl-dev libzstd-dev liblzma-dev libbz2-dev clang libbpf-dev bpftool" ;;
test)  pkgs="xz-utils libxml2-utils chromium nodejs npm libc6-dbg golang-go openjdk-17-jdk-headless debuginfod time zstd bzip2 man-db groff-base zsh fish" ;;
bench) pkgs="xz-utils bc time libdeflate0" ;;
fmt)   pkgs="clang-format" ;;
*) echo "usage: deps.sh build|test|bench|fmt" >&2; exit 2 ;;
esac
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian: the build says what is missing
missing=
for p in $pkgs; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = installed ] || missing="$missing $p"
done
# Node.js may come from elsewhere than Debian; only ask for it when absent.
case "$missing" in *nodejs*|*npm*)
	if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
		missing=$(echo "$missing" | sed 's/ nodejs//; s/ npm//')
	fi ;;
esac
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
	echo "ember: installing Debian packages:$missing"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q $missing >/tmp/ember-apt.log 2>&1; then
		apt-get update -q >/dev/null 2>&1
		apt-get install -y -q $missing >/tmp/ember-apt.log 2>&1 || {
			echo "ember: apt-get install failed, see /tmp/ember-apt.log" >&2
			case "${1:-build}" in build|fmt) exit 1 ;; esac
			exit 0   # test extras are optional: those tests skip
		}
	fi
else
	echo "ember: missing Debian packages; run:" >&2
	echo "  sudo apt-get install -y$missing" >&2
	case "${1:-build}" in build|fmt) exit 1 ;; esac
fi
exit 0
