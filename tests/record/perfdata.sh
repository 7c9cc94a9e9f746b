#!/bin/sh
# `ember collapse perf perf.data` on real recordings of Debian's perf: for
# frame-pointer recordings the output is byte for byte that of `perf script
# | ember collapse perf` with each option; DWARF recordings are unwound by
# ember's unwinder, at least as completely as `ember record` unwinds the
# same program.  Bad files: clear errors and warnings with offsets.
# Skips, saying why, where perf is missing or may not record.
. tests/cli/lib.sh
suite=perfdata
R="$T/bin"
mkdir -p "$R"
CC=${CC:-cc}

skip_all() {
	echo "perfdata: skipped: $*"
	echo "perfdata: 0 passed, 0 failed"
	exit 0
}

command -v perf > /dev/null 2>&1 || skip_all "perf is not installed (apt-get install linux-perf)"
$CC -O2 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$R/calltree" tests/record/calltree.c 2> "$T/cc.err" ||
	skip_all "cannot compile tests/record/calltree.c: $(head -1 "$T/cc.err")"
$CC -O2 -g -fomit-frame-pointer -o "$R/calltree-nofp" tests/record/calltree.c 2> "$T/cc.err" ||
	skip_all "cannot compile tests/record/calltree.c: $(head -1 "$T/cc.err")"
$CC -O2 -g -fno-omit-frame-pointer -pthread -o "$R/threads" tests/record/threads.c 2> "$T/cc.err" ||
	skip_all "cannot compile tests/record/threads.c: $(head -1 "$T/cc.err")"
CT="$R/calltree"
if ! perf record -q -g -o "$T/probe.data" -- "$CT" 0.05 > /dev/null 2> "$T/probe.err" ||
	! perf script -i "$T/probe.data" > /dev/null 2>&1; then
	skip_all "perf record is refused here: $(grep -v '^$' "$T/probe.err" | head -1)"
fi

# perf record quietly, failing the test if it fails
rec() {
	d=$1; shift
	if perf record -q "$@" > "$T/rec.out" 2> "$T/rec.err"; then ok; else
		bad "$d: perf record failed: $(head -3 "$T/rec.err")"; fi
}
# the total weight of a folded file; its stacks without a frame in a PLT,
# which perf 6.1 names `_init`, `[unknown]` or `@plt` where ember names the
# function called, or `.plt` for the lazy-binding stubs (a documented
# difference: the rest must be identical)
total() { awk '{ s += $NF } END { printf "%.0f\n", s }' "$1"; }
noplt() { grep -v -E '@plt[; ]|;\.plt[; ]|;_init[; ]|\[unknown\]' "$1"; }
# perf 6.1's names without their symbol versions, as ember names them
# (another documented difference: clock_gettime@@GLIBC_2.17 is
# clock_gettime)
# ... and the stacks then the same added together, in ember's order
refold() {
	nover "$1" | awk '{ c = $NF; sub(/ [^ ]*$/, ""); s[$0] += c }
		END { for (k in s) printf "%s %.0f\n", k, s[k] }' | LC_ALL=C sort
}
# (not a PLT's "name@plt")
nover() {
	sed -E 's/@plt([;: ])/%PLT%\1/g; s/([^;@ ])@@?[A-Za-z_][A-Za-z0-9_.]*([;: ])/\1\2/g
		s/([^;@ ])@@?[A-Za-z_][A-Za-z0-9_.]*([;: ])/\1\2/g; s/%PLT%/@plt/g' "$1"
}
# oldalias TEXT OURS: the stacks of TEXT (perf 6.1's names, with their
# versions) and OURS weigh the same, where a frame perf names by an alias
# kept for old binaries (name@VERSION, one @: cfree@GLIBC_2.2.5) may have
# any name in OURS: ember names such a frame by another alias at its
# address (free), which the text cannot tell (COMPATIBILITY.md)
oldalias() {
	python3 - "$1" "$2" <<'PY'
import re, sys
from collections import defaultdict
def lines(path):
    for l in open(path, errors="replace"):
        s, _, c = l.rstrip("\n").rpartition(" ")
        if s:
            yield s.split(";"), float(c)
text = defaultdict(float)
for fr, c in lines(sys.argv[1]):
    key = []
    for x in fr:
        m = re.match(r"^(.*[^@;])@(@?)[A-Za-z_][A-Za-z0-9_.]*$", x)
        if x.endswith("@plt") or not m:
            key.append(x)
        else:
            key.append(None if not m.group(2) else m.group(1))
    text[tuple(key)] += c
bylen = defaultdict(list)
for k in sorted(text, key=lambda k: k.count(None)):
    bylen[len(k)].append(k)  # the fewest wildcards first
ours = defaultdict(float)
for fr, c in lines(sys.argv[2]):
    for k in bylen[len(fr)]:
        if all(a is None or a == b for a, b in zip(k, fr)):
            ours[k] += c
            break
    else:
        sys.exit(1)
sys.exit(0 if all(abs(ours[k] - text[k]) < 0.5 for k in text) else 1)
PY
}
# same DATA DESCRIPTION [OPTION]: ember collapse perf [OPTION] DATA is
# byte for byte perf script | ember collapse perf [OPTION] (--pid and --tid
# read perf script -F+pid, which prints the pid)
same() {
	data=$1 d=$2; shift 2
	F=
	case "${1:-}" in --pid|--tid) F=-F+pid ;; esac
	# perf script once per recording and field set
	txt="$data.txt$F"
	[ -f "$txt" ] || perf script $F -i "$data" > "$txt" 2> /dev/null
	"$EMBER" collapse perf "$@" "$txt" 2> /dev/null |
		grep -E "${ROOTS:-.}" > "$T/text.folded.ver"
	refold "$T/text.folded.ver" > "$T/text.folded"
	noplt "$T/text.folded" > "$T/text.folded.noplt"
	status 0 "$d: read" "$EMBER" collapse perf "$@" "$data"
	grep -E "${ROOTS:-.}" "$T/out" > "$T/out.roots"
	mv "$T/out.roots" "$T/out"
	if [ ! -s "$T/text.folded" ]; then
		bad "$d: perf script gave nothing to compare with"
	elif cmp -s "$T/out" "$T/text.folded"; then
		ok
	elif [ "$(total "$T/out")" = "$(total "$T/text.folded")" ] &&
		noplt "$T/out" | cmp -s - "$T/text.folded.noplt"; then
		ok # only calls through a PLT named otherwise (COMPATIBILITY.md)
	elif oldalias "$T/text.folded.ver" "$T/out"; then
		ok # only old aliases named otherwise (cfree is free)
	else
		bad "$d: differs from perf script | ember collapse perf $*"
		diff "$T/text.folded" "$T/out" | cut -c1-160 | head -6
	fi
}
# weight of the lines of FILE matching the awk regex RE, and shares
weight() { awk -v re="$2" '$0 ~ re { s += $NF } END { printf "%.0f\n", s }' "$1"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f\n", 100 * a / b; else print -1 }'; }

# --- frame pointers: every option -----------------------------------------
rec "fp recording" -g -F 999 -o "$T/fp.data" -- "$CT" 0.4
# the event as perf names it (cpu-clock, or cpu-clock:ppp ...)
perf script -i "$T/fp.data" > "$T/fp.data.txt" 2> /dev/null
ev=$(awk 'NR == 1 { sub(/:$/, "", $NF); print $NF }' "$T/fp.data.txt")
for opt in "" --pid --tid --kernel --jit --all --addrs --inline "--inline --context" \
	"--event-filter=$ev" --skip-after=work_a; do
	# shellcheck disable=SC2086
	same "$T/fp.data" "fp ${opt:-default}" $opt
done
# --srcline: perf script -F+srcline prints each frame's source line; on
# perf.data ember reads it from the module's DWARF.  The program's own
# lines must agree exactly; other modules' file names may not (perf's
# addr2line and libdw name the file of a function defined in a header
# differently), so only their frame names are compared.
srcnorm() { sed -E 's/:(calltree\.c):([0-9]+)/@\1@\2/g; s/:[^; ]*//g; s/@(calltree\.c)@/:\1:/g' "$1"; }
perf script -F+srcline -i "$T/fp.data" > "$T/fp.srcline.txt" 2> /dev/null
for opt in --srcline "--srcline --inline"; do
	# shellcheck disable=SC2086
	"$EMBER" collapse perf $opt "$T/fp.srcline.txt" 2> /dev/null > "$T/text.folded.ver"
	refold "$T/text.folded.ver" > "$T/text.folded"
	# shellcheck disable=SC2086
	status 0 "fp $opt: read" "$EMBER" collapse perf $opt "$T/fp.data"
	has "spin:calltree.c:" "$T/out" && ok || bad "fp $opt: no source line on spin"
	srcnorm "$T/text.folded" > "$T/text.norm"
	srcnorm "$T/out" > "$T/out.norm"
	if [ ! -s "$T/text.norm" ]; then
		bad "fp $opt: perf script gave nothing to compare with"
	elif cmp -s "$T/out.norm" "$T/text.norm"; then
		ok
	else
		bad "fp $opt: differs from perf script -F+srcline | ember collapse perf $opt"
		diff "$T/text.norm" "$T/out.norm" | cut -c1-160 | head -6
	fi
done
"$EMBER" collapse perf "$T/fp.data.txt" > "$T/ref.folded.ver" 2> /dev/null
refold "$T/ref.folded.ver" > "$T/ref.folded"
status 0 "no format named" "$EMBER" collapse "$T/fp.data"
check "no format named: the same" cmp -s "$T/out" "$T/ref.folded"
has "ember: read " "$T/err" && ok || bad "summary paragraph: $(cat "$T/err")"
status 0 "-q" "$EMBER" collapse -q "$T/fp.data"
check "-q: no summary" test ! -s "$T/err"
status 0 "another event asked for" "$EMBER" collapse perf --event-filter=no-such-event "$T/fp.data"
has "no samples of event 'no-such-event'" "$T/err" && ok || bad "--event-filter: other event said: $(cat "$T/err")"
cat "$T/fp.data" | "$EMBER" collapse perf - > "$T/out" 2> "$T/err"
check "a perf.data file through a pipe" cmp -s "$T/out" "$T/ref.folded"
gzip -c "$T/fp.data" > "$T/fp.data.gz"
status 0 "gzip'd perf.data" "$EMBER" collapse "$T/fp.data.gz"
check "gzip'd perf.data: the same" cmp -s "$T/out" "$T/ref.folded"
has "work_a;leaf_hot;spin" "$T/ref.folded" && ok || bad "the recording has the hot path"

# --- the other ways perf records ------------------------------------------
# the whole machine: the test's own processes compared (what else runs
# here is not this test's business)
rec "system-wide" -a -g -F 299 -o "$T/all.data" -- "$R/threads" 0.3
ROOTS='^(threads|worker-[ab])[-;]'
same "$T/all.data" "-a"
same "$T/all.data" "-a --kernel" --kernel
same "$T/all.data" "-a --tid" --tid
check "-a: the program's threads" grep -q '^worker-a-[0-9]*/[0-9]*;' "$T/out"
ROOTS=
# the idle task: what stackcollapse-perf.pl makes of perf script's
# "swapper 0/0" (its tid 0 is false to Perl): swapper-? and swapper-?/0,
# from the text and from the perf.data alike
rec "system-wide, idle" -a -g -F 499 -o "$T/idle.data" -- sleep 0.4
ROOTS='^swapper[-;]'
if perf script -i "$T/idle.data" 2> /dev/null | grep -q '^ *swapper '; then
	same "$T/idle.data" "-a: the idle task, --pid" --pid
	has "swapper-?;" "$T/out" && ok || bad "-a: the idle task, --pid: swapper-?: $(head -2 "$T/out")"
	same "$T/idle.data" "-a: the idle task, --tid" --tid
	has "swapper-?/0;" "$T/out" && ok || bad "-a: the idle task, --tid: swapper-?/0: $(head -2 "$T/out")"
else
	echo "perfdata: -a: no idle samples to compare (a busy machine)"
fi
ROOTS=

# --- kernel symbols: perf's copy of the recording's kallsyms ---------------
# perf record keeps one in its build-id cache (~/.debug/[kernel.kallsyms]/
# BUILD-ID/kallsyms, by the kernel's build-id in the recording), read
# rather than /proc/kallsyms: a copy with a function the samples hit
# renamed shows which was read.  A copy cut short, empty, of garbage or
# that others may write is left for /proc/kallsyms, saying so; a
# recording made under another kernel is named by that kernel's copy.
K="$T/home/.debug/[kernel.kallsyms]"
mkdir -p "$T/home" "$T/nocache"
if HOME="$T/home" perf record -q -a -g -F 499 -o "$T/k.data" -- sleep 0.3 > /dev/null 2> "$T/rec.err"; then
	ok
else
	bad "kallsyms copy: perf record failed: $(head -3 "$T/rec.err")"
fi
kid=$(ls "$K" 2> /dev/null | head -1)
if [ -z "$kid" ] || [ ! -s "$K/$kid/kallsyms" ]; then
	echo "perfdata: perf's copy of kallsyms: skipped: perf record kept none"
else
	kcopy="$K/$kid/kallsyms"
	cp "$kcopy" "$T/kallsyms.orig"
	PERF_BUILDID_DIR="$T/nocache" "$EMBER" collapse perf --kernel "$T/k.data" > "$T/k.proc" 2> /dev/null
	# the kernel functions the samples hit, most frequent first, of
	# plain names; the first of them whose address is no other symbol's
	tr ';' '\n' < "$T/k.proc" | sed -n 's/_\[k\]\( [0-9]*\)\{0,1\}$//p' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' |
		sort | uniq -c | sort -rn | awk '{ print $2 }' > "$T/k.names"
	sym=$(awk 'NR == FNR { want[$1] = NR; next }
		$2 ~ /^[tTwW]$/ { n[$1]++; if (NF == 3 && ($3 in want)) { c[$3]++; a[$3] = $1 } }
		END { b = ""; for (s in c) if (c[s] == 1 && n[a[s]] == 1 && (b == "" || want[s] < want[b])) b = s; print b }' \
		"$T/k.names" "$T/kallsyms.orig")
	if [ -z "$sym" ]; then
		bad "perf's copy of kallsyms: no kernel function in the samples to rename ($(wc -l < "$T/k.names") names)"
	else
		awk -v s="$sym" '$3 == s && NF == 3 { sub(" " s "$", " " s "_renamed") } 1' "$T/kallsyms.orig" > "$kcopy"
		check "perf's copy of kallsyms: $sym renamed in it" grep -q " ${sym}_renamed\$" "$kcopy"
		HOME="$T/home" "$EMBER" collapse perf --kernel "$T/k.data" > "$T/k.cache" 2> "$T/err"
		check "perf's copy of kallsyms (~/.debug): names kernel frames ($sym)" grep -q ";${sym}_renamed_\[k\]" "$T/k.cache"
		sed "s/;${sym}_renamed_\[k\]/;${sym}_[k]/g" "$T/k.cache" > "$T/k.back"
		check "perf's copy of kallsyms: the rest as from /proc/kallsyms" cmp -s "$T/k.back" "$T/k.proc"
		PERF_BUILDID_DIR="$T/home/.debug" HOME="$T/nocache" "$EMBER" collapse perf --kernel "$T/k.data" > "$T/out" 2> /dev/null
		check "perf's copy of kallsyms (\$PERF_BUILDID_DIR)" cmp -s "$T/out" "$T/k.cache"
		HOME="$T/home" "$EMBER" collapse perf --kernel -j 1 "$T/k.data" > "$T/out" 2> /dev/null
		check "perf's copy of kallsyms, one thread" cmp -s "$T/out" "$T/k.cache"
		check "without a copy: /proc/kallsyms's names" grep -q ";${sym}_\[k\]" "$T/k.proc"
		# copies not used: /proc/kallsyms's names, and a warning
		broken() {
			chmod 755 "$kcopy"
			HOME="$T/home" "$EMBER" collapse perf --kernel "$T/k.data" > "$T/out" 2> "$T/err"
			check "perf's copy of kallsyms $1: /proc/kallsyms read instead" cmp -s "$T/out" "$T/k.proc"
			has "perf's copy of the kernel's symbols '$kcopy' $2: ignored" "$T/err" && ok ||
				bad "perf's copy of kallsyms $1: said: $(cat "$T/err")"
		}
		{ head -n 1000 "$T/kallsyms.orig"; printf 'ffffffff81000000 T cut'; } > "$kcopy"
		broken "cut short" "is cut short"
		: > "$kcopy"
		broken "empty" "is empty"
		printf 'not kallsyms\n\001\002 \377\n\n' > "$kcopy"
		broken "of garbage" "holds no kernel symbol with an address"
		sed 's/^[0-9a-f]*/0000000000000000/' "$T/kallsyms.orig" > "$kcopy"
		broken "of hidden addresses" "holds no kernel symbol with an address"
		awk -v s="$sym" '$3 == s && NF == 3 { sub(" " s "$", " " s "_renamed") } 1' "$T/kallsyms.orig" > "$kcopy"
		chmod 757 "$kcopy"
		HOME="$T/home" "$EMBER" collapse perf --kernel "$T/k.data" > "$T/out" 2> "$T/err"
		check "perf's copy of kallsyms others may write: not read" cmp -s "$T/out" "$T/k.proc"
		has "is not readable, or not to be trusted" "$T/err" && ok || bad "others may write: said: $(cat "$T/err")"
		chmod 755 "$kcopy"
		# another kernel: the build-id and release in the recording
		# changed; its frames unnamed but for that kernel's copy
		fake=$(python3 - "$T/k.data" "$T/other.data" "$kid" "$(uname -r)" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
bid, rel = bytes.fromhex(sys.argv[3]), sys.argv[4].encode() + b"\0"
fake = bytes(b ^ 0x5a for b in bid)
if bid in d and rel in d:
    d = d.replace(bid, fake).replace(rel, b"9" * (len(rel) - 1) + b"\0")
    open(sys.argv[2], "wb").write(d)
    print(fake.hex())
PY
)
		if [ -z "$fake" ]; then
			bad "another kernel: the build-id or release not found in the recording"
		else
			HOME="$T/home" "$EMBER" collapse perf --kernel "$T/other.data" > "$T/out" 2> "$T/err"
			has "the recording was made under kernel 999" "$T/err" && ok || bad "another kernel: said: $(cat "$T/err")"
			check "another kernel, no copy of its kallsyms: kernel frames unnamed" sh -c "! grep -q ';${sym}' '$T/out'"
			mkdir -p "$K/$fake"
			cp "$kcopy" "$K/$fake/kallsyms"
			HOME="$T/home" "$EMBER" collapse perf --kernel "$T/other.data" > "$T/out" 2> "$T/err"
			check "another kernel named by its copy of kallsyms" grep -q ";${sym}_renamed_\[k\]" "$T/out"
			has "made under kernel" "$T/err" && bad "another kernel with a copy: warned: $(cat "$T/err")" || ok
		fi
	fi
fi

# --- symbol versions: perf 6.1 names frames in libc after .symtab's
# versioned aliases (cfree@GLIBC_2.2.5 for free, clock_nanosleep@GLIBC_2.2.5);
# ember the same addresses without versions, free rather than its old alias
$CC -O2 -g -fno-omit-frame-pointer -o "$R/libcalls" tests/record/libcalls.c
rec "libc calls" -g -F 999 -o "$T/lc.data" -- "$R/libcalls" 0.4
perf script -i "$T/lc.data" 2> /dev/null | "$EMBER" collapse perf > "$T/lc.text" 2> /dev/null
status 0 "libc calls: read" "$EMBER" collapse perf "$T/lc.data"
check "libc calls: no frame named with a symbol version" sh -c "! grep -q '@GLIBC' '$T/out'"
for pair in "cfree@GLIBC_2.2.5 free" "clock_nanosleep@GLIBC_2.2.5 clock_nanosleep"; do
	set -- $pair
	pw=$(weight "$T/lc.text" "(^|;)$1( |;)") ew=$(weight "$T/out" "(^|;)$2( |;)")
	if [ "$pw" = 0 ]; then
		echo "perfdata: perf names no frame $1 here (another libc)"
	else
		check "libc calls: perf's $1 is ember's $2 ($pw, $ew)" test "$pw" = "$ew"
	fi
done
status 0 "libc calls: ember record" "$EMBER" record -o "$T/lc.folded" -- "$R/libcalls" 0.3
check "ember record: no frame named with a symbol version" sh -c "! grep -q '@GLIBC' '$T/lc.folded'"
check "ember record: _start;__libc_start_main;__libc_start_call_main;main" grep -q '^libcalls;_start;__libc_start_main;__libc_start_call_main;main;' "$T/lc.folded"
check "ember record: free" grep -q ';free[; ]' "$T/lc.folded"

"$CT" 1.5 & bg=$!
rec "-p" -g -F 499 -p "$bg" -o "$T/p.data" -- sleep 0.3
kill "$bg" 2> /dev/null
wait "$bg" 2> /dev/null
same "$T/p.data" "-p"
rec "two events" -g -e cpu-clock,task-clock -o "$T/two.data" -- "$CT" 0.3
same "$T/two.data" "two events"
ev2=$(perf script -i "$T/two.data" 2> /dev/null | awk '$NF ~ /^task-clock/ { sub(/:$/, "", $NF); print $NF; exit }')
same "$T/two.data" "two events, the second" "--event-filter=$ev2"
status 0 "two events: warning" "$EMBER" collapse perf "$T/two.data"
has "counted only 'cpu-clock" "$T/err" && ok || bad "two events: the other event is said: $(cat "$T/err")"
rec "-z" -z -g -o "$T/z.data" -- "$CT" 0.3
same "$T/z.data" "-z (zstd)"
perf record -q -g -o - -- "$CT" 0.3 2> /dev/null > "$T/pipe.data"
same "$T/pipe.data" "pipe mode"
perf record -q -g -o - -- "$CT" 0.3 2> /dev/null | "$EMBER" collapse perf - > "$T/out" 2> "$T/err"
check "perf record -o - | ember collapse perf -" grep -q 'work_a;leaf_hot;spin' "$T/out"

# --- DWARF: ember's unwinder, as complete as ember record -----------------
START='_start;__libc_start_main[^;]*;__libc_start_call_main'
# (at 997 Hz for 0.8 s: at 499 Hz the timer's period kept step with the
# program's rounds, and 200 samples gave work_a 49% to 72%)
rec "DWARF recording" --call-graph dwarf -F 997 -o "$T/dw.data" -- "$R/calltree-nofp" 0.8
status 0 "DWARF: read" "$EMBER" collapse perf "$T/dw.data"
cp "$T/out" "$T/dw.folded"
has "user stacks truncated" "$T/err" && ok || bad "DWARF: summary counts truncation: $(cat "$T/err")"
full_pd=$(pct "$(weight "$T/dw.folded" "^calltree-nofp;$START;main;")" "$(weight "$T/dw.folded" ';main;')")
if "$EMBER" record -q -o "$T/rec.folded" -- "$R/calltree-nofp" 0.4 2> "$T/rec.err"; then
	full_rec=$(pct "$(weight "$T/rec.folded" "^calltree-nofp;$START;main;")" "$(weight "$T/rec.folded" ';main;')")
	echo "perfdata: DWARF C: $full_pd% of main's samples have the whole stack (ember record: $full_rec%)"
	check "DWARF C: stacks as complete as ember record's ($full_pd% vs $full_rec%)" test "$full_pd" -ge $((full_rec - 5))
else
	echo "perfdata: ember record cannot run here: $(head -1 "$T/rec.err")"
fi
check "DWARF C: whole stacks ($full_pd%)" test "$full_pd" -ge 90
a=$(pct "$(weight "$T/dw.folded" ';main;work_a;leaf_hot;spin')" "$(weight "$T/dw.folded" ';main;')")
check "DWARF C: work_a's share $a% near 60%" test "$a" -ge 50 -a "$a" -le 70

# --- JIT: Python 3.12 -X perf and Node's perf maps -------------------------
findpy() {
	for c in python3.12 python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
		if command -v "$c" > /dev/null 2>&1 &&
			"$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2> /dev/null; then
			command -v "$c"
			return
		fi
	done
}
rootpid() { sed -n 's/^[^;]*-\([0-9][0-9]*\);.*/\1/p' "$1" | head -1; }
PYCHAIN=';py::<module>:[^;]*;(.*;)?py::main:[^;]*;(.*;)?py::baz:[^;]*;(.*;)?py::bar:[^;]*;(.*;)?py::foo:[^;]*( |;)'
pychain() { pct "$(weight "$1" "^[^;]*;$START;.*$PYCHAIN")" "$(weight "$1" ';py::foo:[^;]*( |;)')"; }
py=$(findpy)
if [ -n "$py" ]; then
	rec "Python -X perf, fp" -g -F 499 -o "$T/pyfp.data" -- "$py" -X perf tests/unwind/nested.py 0.4
	same "$T/pyfp.data" "Python -X perf, fp"
	same "$T/pyfp.data" "Python -X perf, fp, --jit" --jit
	"$EMBER" collapse perf --pid "$T/pyfp.data" > "$T/pyfp.folded" 2> /dev/null
	rm -f "/tmp/perf-$(rootpid "$T/pyfp.folded").map"
	rec "Python -X perf, DWARF" --call-graph dwarf,32768 -F 499 -o "$T/py.data" -- "$py" -X perf tests/unwind/nested.py 0.6
	status 0 "Python -X perf, DWARF: read" "$EMBER" collapse perf --pid "$T/py.data"
	cp "$T/out" "$T/py.folded"
	rm -f "/tmp/perf-$(rootpid "$T/py.folded").map"
	c=$(pychain "$T/py.folded")
	if "$EMBER" record -q --pid -o "$T/pyrec.folded" -- "$py" -X perf tests/unwind/nested.py 0.6 2> /dev/null; then
		rm -f "/tmp/perf-$(rootpid "$T/pyrec.folded").map"
		cr=$(pychain "$T/pyrec.folded")
		echo "perfdata: Python DWARF: $c% of foo's samples with the whole py:: chain (ember record: $cr%)"
		check "Python DWARF: chains as complete as ember record's ($c% vs $cr%)" test "$c" -ge $((cr - 5))
	fi
	check "Python DWARF: whole py:: chains ($c%)" test "$c" -ge 80
else
	echo "perfdata: Python tests skipped: no Python 3.12 or later"
fi
if command -v node > /dev/null 2>&1; then
	# in $T: node leaves isolate-*.log files in its directory
	check "Node --perf-basic prof recorded" sh -c "cd '$T' && perf record -q -g -F 499 -o node.data -- \
		node --perf-basic-prof '$top/tests/unwind/nested.js' 0.5 > /dev/null 2>&1"
	same "$T/node.data" "Node perf map"
	check "Node perf map: JS frames named" grep -q 'foo' "$T/out"
	"$EMBER" collapse perf --pid "$T/node.data" > "$T/node.folded" 2> /dev/null
	rm -f "/tmp/perf-$(rootpid "$T/node.folded").map"
else
	echo "perfdata: Node tests skipped: node is not installed"
fi

# --- bad input --------------------------------------------------------------
u64() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
poke() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2> /dev/null; }
head -c 60 "$T/fp.data" > "$T/short.data"
status 1 "header cut short" "$EMBER" collapse perf "$T/short.data"
has "the file header is cut short (60 bytes)" "$T/err" && ok || bad "header cut short: $(cat "$T/err")"
size=$(wc -c < "$T/fp.data")
head -c $((size / 2)) "$T/fp.data" > "$T/half.data"
status 0 "truncated file" "$EMBER" collapse perf "$T/half.data"
grep -q "at offset [0-9]* (truncated?)\|ends at offset [0-9]*" "$T/err" && ok || bad "truncated: offset said: $(cat "$T/err")"
check "truncated file: the samples before the cut" test -s "$T/out"
doff=$(u64 "$T/fp.data" 40)
cp "$T/fp.data" "$T/badsize.data"
poke "$T/badsize.data" $((doff + 6)) '\000\000'
status 1 "corrupt record size" "$EMBER" collapse perf "$T/badsize.data"
has "corrupt record size 0 at offset $doff" "$T/err" && ok || bad "corrupt size: $(cat "$T/err")"
cp "$T/fp.data" "$T/newtype.data"
poke "$T/newtype.data" "$doff" '\310\000'
status 0 "unknown record type" "$EMBER" collapse perf "$T/newtype.data"
has "skipped 1 records of types this ember does not know" "$T/err" && ok || bad "unknown type: $(cat "$T/err")"
cp "$T/fp.data" "$T/attr.data"
poke "$T/attr.data" 16 '\001'
status 1 "bad attribute size" "$EMBER" collapse perf "$T/attr.data"
has "at offset 16" "$T/err" && ok || bad "bad attribute size: $(cat "$T/err")"
printf 'PERFILE2\020\000\000\000\000\000\000\000\010\000' > "$T/pipebad.data"
status 0 "pipe stream cut in a record header" "$EMBER" collapse perf "$T/pipebad.data"
has "offset 16" "$T/err" && ok || bad "pipe cut: $(cat "$T/err")"
# cut short while ember reads it (stopped by EMBER_READ_STOP_AT, see
# tests/cli/lib.sh): a clear error with the byte counts, never SIGBUS,
# no output or temporary file left
rec "a recording to cut" --call-graph dwarf -F 1999 -o "$T/cut.data" -- "$R/calltree-nofp" 0.6
size=$(wc -c < "$T/cut.data")
check "a recording to cut: over 3 MB ($size bytes)" test "$size" -gt 3000000
cut_while_read 100 "$T/cut.data" "$EMBER" collapse perf -o "$T/cut.folded" "$T/cut.data"
cut_checks perf.data "$T/cut.data" "$size" cut.folded

# stripped modules: frames of no known symbol at many addresses, named by
# their module ([unnamed], [libunnamed.so]) or, with --addrs, by module and
# address, each as perf script's text names it (symbol versions aside,
# see refold)
if $CC -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -fvisibility=hidden \
	-shared -fPIC -o "$R/libunnamed.so" tests/record/unnamedlib.c &&
	$CC -O2 -fno-omit-frame-pointer -fno-optimize-sibling-calls -o "$R/unnamed" \
	tests/record/unnamed.c -L"$R" -lunnamed -Wl,-rpath,"$R" &&
	strip "$R/unnamed" "$R/libunnamed.so"; then
	rec "stripped modules" -g -F 1999 -o "$T/unnamed.data" -- "$R/unnamed" 0.3
	perf script -i "$T/unnamed.data" > "$T/unnamed.txt" 2> /dev/null
	for opt in "" --addrs --all; do
		"$EMBER" collapse perf $opt "$T/unnamed.txt" > "$T/unnamed.text" 2> /dev/null
		"$EMBER" collapse perf $opt "$T/unnamed.data" > "$T/unnamed.out" 2> /dev/null
		refold "$T/unnamed.text" > "$T/unnamed.want"
		refold "$T/unnamed.out" > "$T/unnamed.got"
		check "stripped modules ${opt:-(no option)}: as perf script's text (but for symbol versions)" \
			cmp -s "$T/unnamed.want" "$T/unnamed.got"
	done
	"$EMBER" collapse perf "$T/unnamed.data" > "$T/unnamed.out" 2> /dev/null
	check "stripped modules: the program's and the library's frames apart" \
		grep -q '\[unnamed\];\[libunnamed.so\] ' "$T/unnamed.out"
	"$EMBER" collapse perf --addrs "$T/unnamed.data" > "$T/unnamed.out" 2> /dev/null
	n=$(tr ';' '\n' < "$T/unnamed.out" | sed 's/ [0-9]*$//' |
		grep '^\[libunnamed.so <' | sort -u | wc -l)
	check "stripped modules --addrs: the library's frames at 2 addresses or more ($n)" test "$n" -ge 2
else
	bad "stripped modules: cannot compile tests/record/unnamed.c"
fi

finish
