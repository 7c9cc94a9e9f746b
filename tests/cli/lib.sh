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
finish() {
	echo "$suite: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}
