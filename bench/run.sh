#!/bin/sh
# make bench: runs each benchmark part (bench/*.sh but this one and lib.sh).
set -u
BUILD=${BUILD:-build}
export BUILD
mkdir -p "$BUILD/bench"
sh tools/deps.sh bench
echo "ember bench on $(nproc) CPUs, $(uname -r), $(date -u '+%Y-%m-%d')"
for part in bench/*.sh; do
	case "$part" in bench/run.sh|bench/lib.sh|bench/gen-*.sh) continue ;; esac
	echo
	echo "== $(basename "$part" .sh)"
	sh "$part" || echo "bench: $part failed"
done
