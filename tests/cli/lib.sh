# Helpers for the command-line tests: ok/fail accounting and assertions.
# Sourced; expects $EMBER.  Each test file ends with `finish`.
set -u
top=$(pwd)
EMBER="$top/${EMBER:-build/ember}"
SVGFRAMES="$top/${SVGFRAMES:-build/tests/svgframes}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
suite=$(basename "$0" .sh)

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $suite: $*"; }
# check DESCRIPTION COMMAND...: passes when the command succeeds
check() { d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }
# status WANT DESCRIPTION COMMAND...: runs COMMAND, compares exit status;
# its stdout and stderr are left in $T/out and $T/err
status() {
	want=$1 d=$2; shift 2
	"$@" > "$T/out" 2> "$T/err"
	got=$?
	if [ "$got" = "$want" ]; then ok; else bad "$d: exit status $got, want $want"; sed 's/^/  /' "$T/err" | head -5; fi
	if grep -q 'AddressSanitizer\|runtime error:' "$T/err"; then bad "$d: sanitizer report"; cat "$T/err"; fi
}
has() { grep -qF -- "$1" "$2"; }
# well-formed XML, by xmllint where it is installed
wellformed() {
	if command -v xmllint > /dev/null 2>&1; then
		xmllint --noout "$1" 2> "$T/xmlerr"
	else
		grep -q '</svg>' "$1"
	fi
}
# cut_while_read SIZE FILE COMMAND...: runs COMMAND with
# EMBER_READ_STOP_AT=2000000, so that ember stops itself (SIGSTOP) once it
# has read 2 MB of FILE (past the first MiB read to tell the format),
# cuts FILE to SIZE bytes there and lets ember go on (SIGCONT).  Its exit
# status is left in $rc, its output in $T/out and $T/err; $stopped is
# empty unless ember stopped where it was to.  An ember without that hook
# is cut short once it has FILE mapped, or after it has ended.
cut_while_read() {
	cut_size=$1 cut_file=$2
	shift 2
	EMBER_READ_STOP_AT=2000000 "$@" > "$T/out" 2> "$T/err" &
	cut_pid=$!
	stopped= i=0
	while [ $i -lt 2000 ]; do
		cut_state=$(sed 's/.*) //' "/proc/$cut_pid/stat" 2> /dev/null | cut -c1)
		case $cut_state in
		T) stopped=1; break ;;
		Z | '') break ;;
		esac
		grep -qF "$cut_file" "/proc/$cut_pid/maps" 2> /dev/null && break
		sleep 0.01
		i=$((i + 1))
	done
	truncate -s "$cut_size" "$cut_file"
	kill -CONT "$cut_pid" 2> /dev/null
	wait "$cut_pid"
	rc=$?
}
# cut_checks LABEL FILE SIZE OUTPUT: after cut_while_read, ember stopped,
# exited 1 (not killed) saying FILE of SIZE bytes was cut short, and left
# neither OUTPUT (a name in $T) nor a temporary file of it
cut_checks() {
	check "$1 cut short while read: ember stopped where the test cuts it" test -n "$stopped"
	check "$1 cut short while read: exit status 1, not killed (got $rc)" test "$rc" = 1
	check "$1 cut short while read: said" has \
		"cannot read '$2': the file was cut short while being read (expected $3 bytes, got " "$T/err"
	check "$1 cut short while read: no sanitizer report" sh -c "! grep -q 'AddressSanitizer\|runtime error:' '$T/err'"
	check "$1 cut short while read: no output, no temporary file" test -z "$(ls "$T" | grep -F "$4")"
}
finish() {
	echo "$suite: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
