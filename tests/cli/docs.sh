#!/bin/sh
# The man pages and shell completions, made from ember itself (make man,
# make completions): every long option of every command is in its man
# page and in each completion, the pages render without a warning, and
# bash completes what it should; zsh and fish read their files (skipped,
# saying so, where those shells are not installed).
. tests/cli/lib.sh
B=${BUILD:-build}
status 0 "make man completions" make -s man completions BUILD="$B"
sed 's/^/  /' "$T/err" | head -5
cmds=$("$EMBER" __options | awk -F '\t' '$1 == "command" { print $2 }')
check "ember __options lists the commands" test "$(echo $cmds)" = "record collapse flamegraph diff"
# the options as getopt_long takes them, straight from the tables
longs() { "$EMBER" __options "$1" | awk -F '\t' '$1 == "long" { print $2 }'; }
check "record's table has --output" sh -c "'$EMBER' __options record | grep -q '^long	output	1	o\$'"
check "collapse's formats" sh -c "'$EMBER' __options collapse | grep -q '^format	perf	'"
status 2 "__options of no command" "$EMBER" __options nosuch
has "'nosuch' is not a command" "$T/err" && ok || bad "__options of no command says so"

# man pages: one per command, rendering cleanly, holding every option
for page in ember $(for c in $cmds; do echo "ember-$c"; done); do
	f=$B/man/$page.1
	check "man page $page" test -s "$f"
	if ! command -v man > /dev/null 2>&1 || ! command -v groff > /dev/null 2>&1; then
		# the pages' text, roughly, for the checks below
		sed 's/\\-/-/g; s/\\f[BIR]//g' "$f" > "$T/$page.txt"
		continue
	fi
	MANWIDTH=100 man --warnings -l "$f" > "$T/$page.txt" 2> "$T/man.err"
	check "man -l $page renders" test -s "$T/$page.txt"
	check "man --warnings $page: none ($(head -c 300 "$T/man.err"))" test ! -s "$T/man.err"
	groff -man -ww -z "$f" > "$T/groff.err" 2>&1
	check "groff -ww $page: no warning ($(head -c 300 "$T/groff.err"))" test ! -s "$T/groff.err"
	has "SEE ALSO" "$T/$page.txt" && ok || bad "$page has SEE ALSO"
done
for c in $cmds; do
	txt=$T/ember-$c.txt
	has "ember $c" "$txt" && ok || bad "ember-$c names its command"
	has "EXAMPLES" "$txt" && ok || bad "ember-$c has its examples"
	n=0
	for o in $(longs "$c"); do
		n=$((n + 1))
		grep -q -- "--$o\\b" "$txt" || bad "ember-$c(1) has no --$o"
		grep -q -- "--$o\\b" "$B/completions/ember.bash" || bad "bash completion of $c has no --$o"
		grep -q -- "'--$o\\b" "$B/completions/_ember" || bad "zsh completion of $c has no --$o"
		grep -q -- "from $c' -l $o\\b" "$B/completions/ember.fish" || bad "fish completion of $c has no --$o"
	done
	check "$c has options ($n)" test "$n" -gt 4
	ok
done
grep -q 'FORMATS$' "$T/ember-collapse.txt" && ok || bad "ember-collapse(1) lists the formats"
grep -q 'perf-sched' "$T/ember-collapse.txt" && ok || bad "ember-collapse(1) names perf-sched"
grep -q 'OPTIONS' "$T/ember-record.txt" && ok || bad "ember-record(1) has OPTIONS"

# bash: complete -p, and COMP_WORDS as bash fills them on <TAB>
if command -v bash > /dev/null 2>&1; then
	cat > "$T/comp.bash" <<'END'
. "$1"
complete -p ember
shift
COMP_WORDS=("$@")
COMP_CWORD=$(($# - 1))
_ember
printf '%s\n' "${COMPREPLY[@]}"
END
	comp() { bash "$T/comp.bash" "$B/completions/ember.bash" "$@" > "$T/comp" 2>&1; }
	comp ember ""
	check "bash: complete -p ember" grep -q '^complete .*-F _ember ember$' "$T/comp"
	check "bash: ember <TAB> gives the commands" grep -qx flamegraph "$T/comp"
	comp ember collapse ""
	check "bash: ember collapse <TAB> gives perf" grep -qx perf "$T/comp"
	check "bash: ember collapse <TAB> gives every format" \
		test "$(grep -c . "$T/comp")" -ge "$("$EMBER" __options collapse | grep -c '^format')"
	comp ember collapse perf-s
	check "bash: ember collapse perf-s<TAB>" test "$(sed 1d "$T/comp")" = perf-sched
	comp ember flamegraph --co
	check "bash: ember flamegraph --co<TAB>" test "$(sed 1d "$T/comp" | sort | tr '\n' ' ')" = "--colordiffusion --colors --countname "
	comp ember flamegraph --colors ja
	check "bash: --colors ja<TAB> gives java" test "$(sed 1d "$T/comp")" = java
	comp ember record --no-i
	check "bash: ember record --no-i<TAB>" test "$(sed 1d "$T/comp")" = --no-inline
	comp ember diff --str
	check "bash: ember diff --str<TAB>" test "$(sed 1d "$T/comp")" = --strip-hex
	comp ember record -o x.svg --
	check "bash: options after record's own" grep -qx -- --freq "$T/comp"
fi

if command -v zsh > /dev/null 2>&1; then
	check "zsh -n _ember" zsh -n "$B/completions/_ember"
	check "_ember is a zsh completion" test "$(head -1 "$B/completions/_ember")" = "#compdef ember"
else
	echo "docs: zsh parts skipped: no zsh (Debian package zsh)"
fi
if command -v fish > /dev/null 2>&1; then
	check "fish -n ember.fish" fish -n "$B/completions/ember.fish"
	fish -c "source $B/completions/ember.fish; complete -C 'ember collapse perf-s'; complete -C 'ember flamegraph --co'; complete -C 'ember re'" > "$T/fish" 2>&1
	check "fish: ember collapse perf-s<TAB>" grep -q '^perf-sched	' "$T/fish"
	check "fish: ember flamegraph --co<TAB>" grep -qx -- --colors "$T/fish"
	check "fish: ember re<TAB>" grep -q '^record	sample' "$T/fish"
else
	echo "docs: fish parts skipped: no fish (Debian package fish)"
fi
finish
