#!/bin/sh
# collapse-more: `ember collapse FORMAT` for each of the other formats on a
# generated input of about 20 MB (BENCH_MORE_MB): the conformance input
# doubled until large enough, or for go, ghcprof and xctrace (whose
# readers stop at the end of the first profile) one large profile made
# here; MB/s of input on one thread, and with FLAMEGRAPH_DIR set, the
# script on the same input and the ratio.
. bench/lib.sh
V=tests/conformance/collapse-more
size=${BENCH_MORE_MB:-20}

gen() { # FORMAT INPUT [HEAD [TAIL]]: INPUT's body (but its first HEAD and
	# last TAIL lines, kept once) doubled until about $size MB
	out=$W/more-$1.txt
	if [ ! -s "$out" ]; then
		case $2 in *.gz) gzip -dc "$2" ;; *) cat "$2" ;; esac > "$W/more-in"
		h=${3:-0} t=${4:-0} n=$(wc -l < "$W/more-in")
		sed -n "$((h + 1)),$((n - t))p" "$W/more-in" > "$W/more-body"
		while [ "$(stat -c %s "$W/more-body")" -lt $((size * 1000000)) ]; do
			cat "$W/more-body" "$W/more-body" > "$W/more-two" &&
				mv "$W/more-two" "$W/more-body"
		done
		{ head -n "$h" "$W/more-in"; cat "$W/more-body"
		  [ "$t" = 0 ] || tail -n "$t" "$W/more-in"; } > "$out"
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

gen_ghcprof() { # one call tree of many cost centres
	out=$W/more-ghcprof.txt
	[ -s "$out" ] && { echo "$out"; return; }
	awk -v mb="$size" 'BEGIN {
		print "\tTime and Allocation Profiling Report\n"
		printf "COST CENTRE MODULE SRC no. entries %%time %%alloc %%time %%alloc ticks bytes\n\n"
		srand(1); bytes = 0; d = 0
		while (bytes < mb * 1000000) {
			d = d && rand() < 0.5 ? d - int(rand() * d) : d + 1
			line = sprintf("%*sf%d Main Main.hs:1:1 %d 0 %.1f %.1f 0.0 0.0 %d %d",
				d, "", int(rand() * 500), bytes, rand() * 3, rand() * 3,
				int(rand() * 100), int(rand() * 100000))
			print line; bytes += length(line) + 1
		}
	}' > "$out"
	echo "$out"
}

gen_xctrace() { # many rows of backtraces over a few hundred frames
	out=$W/more-xctrace.xml
	[ -s "$out" ] && { echo "$out"; return; }
	awk -v mb="$size" 'BEGIN {
		print "<?xml version=\"1.0\"?>\n<trace-query-result>\n<node>"
		srand(1); bytes = 0; id = 1000
		for (f = 1; f <= 400; f++) {
			printf "<row><backtrace id=\"%d\"><frame id=\"%d\" name=\"func_%d::h0123456789abcdef\" addr=\"0x%x\"/></backtrace></row>\n", id++, f, f, f * 16
		}
		while (bytes < mb * 1000000) {
			line = sprintf("<row><sample-time>%d</sample-time><backtrace id=\"%d\">", bytes, id++)
			d = int(rand() * 20) + 2
			for (j = 0; j < d; j++) line = line sprintf("<frame ref=\"%d\"/>", int(rand() * 400) + 1)
			line = line "</backtrace></row>"
			print line; bytes += length(line) + 1
		}
		print "</node>\n</trace-query-result>"
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
	stackcollapse-vtune.pl) # does not compile as it is: $func declared
		sed 's/^my \$funcOnly/my $func = ""; my $funcOnly/' \
			"$FLAMEGRAPH_DIR/$script" > "$W/stackcollapse-vtune.pl"
		set -- perl "$W/stackcollapse-vtune.pl" ;;
	*.pl) set -- perl "$FLAMEGRAPH_DIR/$script" ;;
	*.awk) # perf-sched's \s is gawk's; mawk gives the others' output
		awk=gawk; command -v gawk > /dev/null || awk=awk
		[ $awk = gawk ] || [ "$fmt" != perf-sched ] || return
		set -- $awk -f "$FLAMEGRAPH_DIR/$script" ;;
	*.php) set -- php -n "$FLAMEGRAPH_DIR/$script"
		# the script rewrites its input (sed -in): a copy
		cp "$in" "$W/more-copy" && in=$W/more-copy ;;
	esac
	MEASURE_RUNS=1 measure "$script" "$bytes" "$@" "$in" &&
		printf '  %-44s %7.1fx faster\n' "ember / $script" \
			"$(echo "$LAST_SECONDS / $one" | bc -l)"
}

printf '  inputs: about %s MB each\n' "$size"
while read -r fmt script input; do
	case $fmt in
	go) in=$(gen_go) ;;
	ghcprof) in=$(gen_ghcprof) ;;
	xctrace) in=$(gen_xctrace) ;;
	instruments | vtune | vsprof) in=$(gen "$fmt" "$V/$input" 1) ;;
	vtune-mc) in=$(gen "$fmt" "$V/$input" 2) ;;
	xdebug) in=$(gen "$fmt" "$V/$input" 3 3) ;;
	ljp) in=$(gen "$fmt" "$V/$input" 0 2) ;;
	*) in=$(gen "$fmt" "$V/$input") ;;
	esac
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
vtune stackcollapse-vtune.pl vtune/inputs/tachyon-hotspots.csv
vtune-mc stackcollapse-vtune-mc.pl vtune-mc/inputs/tachyon-allocations.csv
vsprof stackcollapse-vsprof.pl vsprof/inputs/calltree-blank-lines.csv
xdebug stackcollapse-xdebug.php xdebug/inputs/xdebug-loop.xt.gz
ghcprof - ghcprof/inputs/percent.prof
xctrace - xctrace/inputs/generated-two-runs.xml
pkgsplit-perf pkgsplit-perf.pl ../../golden/collapse/pkgsplit-perf-java/input.txt
EOT
exit 0
