#!/bin/sh
# collapse-more: `ember collapse FORMAT` for every format but perf on a
# generated input of about 20 MB (the conformance inputs repeated; a pprof
# -raw text with many samples for go), MB/s of input on one thread; with
# FLAMEGRAPH_DIR set, the script on the same input and the ratio.
. bench/lib.sh
V=tests/conformance/collapse-more
size=${BENCH_MORE_MB:-20}

gen() { # FORMAT INPUT: repeats INPUT to about $size MB
	out=$W/more-$1.txt
	if [ ! -s "$out" ]; then
		case $2 in *.gz) gzip -dc "$2" ;; *) cat "$2" ;; esac > "$W/more-one"
		n=$(( size * 1000000 / $(stat -c %s "$W/more-one") + 1 ))
		i=0; while [ $i -lt "$n" ]; do cat "$W/more-one"; i=$((i + 1)); done > "$out"
	fi
	echo "$out"
}

gen_go() { # many samples over a few hundred locations, then their names
	out=$W/more-go.txt
	[ -s "$out" ] && { echo "$out"; return; }
	awk -v mb="$size" 'BEGIN {
		print "PeriodType: cpu nanoseconds\nPeriod: 10000000\nSamples:"
		print "samples/count cpu/nanoseconds"
		srand(1); bytes = 0
		while (bytes < mb * 1000000) {
			line = sprintf("%11d %10d:", int(rand() * 9) + 1, 10000000)
			d = int(rand() * 30) + 3
			for (j = 0; j < d; j++) line = line " " int(rand() * 400) + 1
			print line " "; bytes += length(line) + 2
		}
		print "Locations"
		for (i = 1; i <= 400; i++)
			printf "%6d: 0x%x M=1 main.func%d /home/user/app/main.go:%d s=0\n", i, 4096 + i * 16, i, i
		print "Mappings"
	}' > "$out"
	echo "$out"
}

bench_one() { # FORMAT SCRIPT INPUT
	fmt=$1 script=$2 in=$3
	bytes=$(stat -c %s "$in")
	measure "ember collapse $fmt -j 1" "$bytes" "$EMBER" collapse "$fmt" -j 1 "$in" || return
	one=$LAST_SECONDS
	[ -n "${FLAMEGRAPH_DIR:-}" ] && [ -f "$FLAMEGRAPH_DIR/$script" ] || return
	case $script in
	*.pl) set -- perl "$FLAMEGRAPH_DIR/$script" ;;
	*.awk) set -- gawk -f "$FLAMEGRAPH_DIR/$script" ;;
	*.php) set -- php -n "$FLAMEGRAPH_DIR/$script" ;;
	esac
	MEASURE_RUNS=1 measure "$script" "$bytes" "$@" "$in" &&
		printf '  %-44s %7.1fx faster\n' "ember / $script" \
			"$(echo "$LAST_SECONDS / $one" | bc -l)"
}

printf '  inputs: about %s MB each\n' "$size"
while read -r fmt script input; do
	if [ "$fmt" = go ]; then in=$(gen_go); else in=$(gen "$fmt" "$V/$input"); fi
	"$EMBER" collapse --help | grep -q "^  $fmt " || continue
	bench_one "$fmt" "$script" "$in"
done <<EOT
jstack stackcollapse-jstack.pl jstack/inputs/jstack-shop.txt
gdb stackcollapse-gdb.pl gdb/inputs/gdb-prog.txt
elfutils stackcollapse-elfutils.pl elfutils/inputs/eu-prog.txt
bpftrace stackcollapse-bpftrace.pl bpftrace/inputs/bpftrace-kstack.txt
go stackcollapse-go.pl -
faulthandler stackcollapse-faulthandler.pl faulthandler/inputs/fh-later.txt
java-exceptions stackcollapse-java-exceptions.pl java-exceptions/inputs/javaex-orders.log
perf-sched stackcollapse-perf-sched.awk perf-sched/inputs/sched-pipeline.txt
sample stackcollapse-sample.awk sample/inputs/sample.txt
ibmjava stackcollapse-ibmjava.pl ibmjava/inputs/javacore-two-dumps.txt
ljp stackcollapse-ljp.awk ljp/inputs/traces-skipped-lines.txt
wcp stackcollapse-wcp.pl wcp/inputs/nimbus-full-stacks.txt
aix stackcollapse-aix.pl aix/inputs/procstack-three-samples.txt
pmc stackcollapse-pmc.pl pmc/inputs/pmcstat-graph.txt
instruments stackcollapse-instruments.pl instruments/inputs/deep-copy-units.txt
EOT
exit 0
