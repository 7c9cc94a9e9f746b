#!/bin/sh
# Writes the man page of `ember` or `ember CMD` from that command's own -h
# text, so that the two cannot differ: usage: lines become the SYNOPSIS,
# the paragraphs that follow the DESCRIPTION, lists of options and formats
# ("  -o, --output FILE    what it does", continued further in) tagged
# paragraphs, a line ending in ':' above a list its heading, and EXAMPLES
# the examples.  `ember __options` gives the commands' one-line summaries.
#   man.sh EMBER [CMD] > ember[-CMD].1
set -eu
ember=$1
cmd=${2:-}
version=$("$ember" --version | sed 's/^ember //')
date=
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
	date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d)
fi
commands=$("$ember" __options | awk -F '\t' '$1 == "command" { print $2 }')
if [ -n "$cmd" ]; then
	page=ember-$cmd
	summary=$("$ember" __options | awk -F '\t' -v c="$cmd" \
		'$1 == "command" && $2 == c { print $3 }')
	[ -n "$summary" ] || { echo "man.sh: '$cmd' is not a command" >&2; exit 2; }
	prog="ember $cmd"
	"$ember" "$cmd" -h > "${TMPDIR:-/tmp}/ember-man.$$"
else
	page=ember
	summary="record stack samples, fold profiler output, draw flame graphs"
	prog=ember
	"$ember" -h > "${TMPDIR:-/tmp}/ember-man.$$"
fi
see=
for c in '' $commands; do
	p=ember${c:+-$c}
	[ "$p" = "$page" ] || see="$see $p"
done
trap 'rm -f "${TMPDIR:-/tmp}/ember-man.$$"' EXIT
awk -v page="$page" -v summary="$summary" -v prog="$prog" \
	-v version="$version" -v date="$date" -v see="$see" '
# roff text: backslashes and hyphens escaped, no control character first
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/)
		s = "\\&" s
	return s
}
# a list entry: its options (or names) bold, their arguments italic
function tag(s,    n, i, parts, out, p, name, arg, sep) {
	n = split(s, parts, /, /)
	out = ""
	for (i = 1; i <= n; i++) {
		p = parts[i]
		if (match(p, /[ =]/)) {
			name = substr(p, 1, RSTART - 1)
			arg = substr(p, RSTART)
			sep = substr(arg, 1, 1)
			arg = substr(arg, 2)
			p = "\\fB" esc(name) "\\fR" sep "\\fI" esc(arg) "\\fR"
		} else {
			p = "\\fB" esc(p) "\\fR"
		}
		out = out (i > 1 ? ", " : "") p
	}
	return out
}
function section(name) {
	if (sect == name)
		return
	print ".SH " name
	sect = name
	sub_open = 0
}
function indent(s) {
	match(s, /^ */)
	return RLENGTH
}
{ lines[NR] = $0 }
END {
	print ".\\\" Generated from \x27" prog " -h\x27 by tools/man.sh: edit that text, not this file."
	printf ".TH %s 1 \"%s\" \"ember %s\" \"User Commands\"\n", toupper(page), date, version
	print ".nh\n.ad l"
	print ".SH NAME"
	print esc(page) " \\- " esc(summary)
	sect = "NAME"
	blank = 0
	for (i = 1; i <= NR; i++) {
		l = lines[i]
		if (l ~ /^usage: / || (sect == "SYNOPSIS" && l ~ /^       [^ ]/)) {
			if (sect != "SYNOPSIS") {
				section("SYNOPSIS")
				print ".nf"
			}
			sub(/^usage: +/, "", l)
			sub(/^ +/, "", l)
			if (substr(l, 1, length(prog)) == prog)
				l = "\\fB" esc(prog) "\\fR" esc(substr(l, length(prog) + 1))
			else
				l = esc(l)
			print l
			continue
		}
		if (sect == "SYNOPSIS") {
			print ".fi"
			section("DESCRIPTION")
			blank = 0
		}
		if (l ~ /^ *$/) {
			blank = 1
			continue
		}
		if (l ~ /^(EXAMPLES|Examples:?)$/) {
			section("EXAMPLES")
			print ".nf"
			print ".RS 4"
			continue
		}
		if (sect == "EXAMPLES") {
			sub(/^  /, "", l)
			print esc(l)
			continue
		}
		n = indent(l)
		nextl = i < NR ? lines[i + 1] : ""
		# a heading: a line ending in ":" above an indented list
		if (n == 0 && l ~ /:$/ && nextl ~ /^  +[^ ]/) {
			h = substr(l, 1, length(l) - 1)
			if (h ~ /^(formats|commands)$/) {
				section(toupper(h))
			} else {
				section("OPTIONS")
				print ".SS"
				print esc(h)
				sub_open = 1
			}
			heading = 1
			blank = 0
			continue
		}
		if (n == 0) { # a paragraph
			if (blank)
				print ".PP"
			print esc(l)
			blank = 0
			heading = 0
			continue
		}
		if (n < 8) { # an entry of a list
			if (!heading && blank) {
				if (sect != "OPTIONS") {
					section("OPTIONS")
				} else if (sub_open) {
					print ".SS"
					print "Common options"
				}
			}
			heading = 0
			blank = 0
			l = substr(l, n + 1)
			if (match(l, /  +/)) {
				t = substr(l, 1, RSTART - 1)
				d = substr(l, RSTART + RLENGTH)
			} else {
				t = l
				d = ""
			}
			print ".TP"
			print tag(t)
			if (d != "")
				print esc(d)
			continue
		}
		# more of an entry
		sub(/^ +/, "", l)
		print esc(l)
		blank = 0
	}
	if (sect == "EXAMPLES")
		print ".RE\n.fi"
	print ".SH SEE ALSO"
	n = split(see, s, " ")
	for (i = 1; i <= n; i++)
		print ".BR " s[i] " (1)" (i < n ? "," : "")
}' "${TMPDIR:-/tmp}/ember-man.$$"
