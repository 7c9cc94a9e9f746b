#!/bin/sh
# Writes ember's bash, zsh and fish completions from the option tables
# themselves (`ember __options`: each command's long and short options as
# getopt_long reads them, collapse's formats, the palettes), so that they
# hold every option ember takes and no other.
#   completions.sh EMBER DIR   writes DIR/ember.bash, DIR/_ember, DIR/ember.fish
set -eu
ember=$1
dir=$2
mkdir -p "$dir"
tab=$(printf '\t')
commands=$("$ember" __options | awk -F "$tab" '$1 == "command" { print $2 }')
# each command's table, then all of them in one file: "CMD<tab>line..."
all=$dir/.options
: > "$all"
"$ember" __options | sed "s/^/-$tab/" >> "$all"
for c in $commands; do
	"$ember" __options "$c" | sed "s/^/$c$tab/" >> "$all"
done
head='generated from its option tables (ember __options) by
# tools/completions.sh: change the options in the source, not this file.'

# ---- bash ----
awk -F "$tab" -v head="$head" '
function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
$2 == "command" { cmds = cmds " " $3; order[++n] = $3 }
$2 == "long" { opts[$1] = opts[$1] " --" $3; if ($4 == 1) args[$1] = args[$1] " --" $3 }
$2 == "short" { opts[$1] = opts[$1] " -" $3; if ($4 == 1) args[$1] = args[$1] " -" $3 }
$2 == "format" { formats = formats " " $3 }
$2 == "value" {
	if (!(($1 " " $3) in values))
		vorder[++nv] = $1 " " $3
	values[$1 " " $3] = values[$1 " " $3] " " $4
}
END {
	print "# bash completion for ember, " head
	print ""
	print "_ember()"
	print "{"
	print "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}"
	print "\tlocal cmd=${COMP_WORDS[1]} opts args i w"
	print "\tCOMPREPLY=()"
	print "\tif [ \"$COMP_CWORD\" -eq 1 ]; then"
	print "\t\tCOMPREPLY=($(compgen -W " q(substr(cmds, 2) " --help --version") " -- \"$cur\"))"
	print "\t\treturn"
	print "\tfi"
	print "\tcase $cmd in"
	for (i = 1; i <= n; i++) {
		c = order[i]
		print "\t" c ")"
		print "\t\topts=" q(substr(opts[c], 2))
		print "\t\targs=" q(args[c] " ")
		print "\t\t;;"
	}
	print "\t*) return ;;"
	print "\tesac"
	print "\t# a value: the known ones, else files (-o default)"
	print "\tcase \"$cmd $prev\" in"
	for (j = 1; j <= nv; j++) {
		k = vorder[j]
		split(k, kp, " ")
		print "\t" q(kp[1] " --" kp[2]) ")"
		print "\t\tCOMPREPLY=($(compgen -W " q(substr(values[k], 2)) " -- \"$cur\"))"
		print "\t\treturn"
		print "\t\t;;"
	}
	print "\tesac"
	print "\tcase $args in *\" $prev \"*) return ;; esac"
	print "\tif [ \"$cmd\" = record ]; then"
	print "\t\t# the profiled command: its name, then its own arguments"
	print "\t\ti=2"
	print "\t\twhile [ \"$i\" -lt \"$COMP_CWORD\" ]; do"
	print "\t\t\tw=${COMP_WORDS[i]}"
	print "\t\t\tcase $w in"
	print "\t\t\t--) i=$((i + 1)); break ;;"
	print "\t\t\t-*) case $args in *\" $w \"*) i=$((i + 1)) ;; esac ;;"
	print "\t\t\t*) break ;;"
	print "\t\t\tesac"
	print "\t\t\ti=$((i + 1))"
	print "\t\tdone"
	print "\t\tif [ \"$i\" -lt \"$COMP_CWORD\" ]; then"
	print "\t\t\tif declare -F _command_offset > /dev/null; then"
	print "\t\t\t\t_command_offset \"$i\""
	print "\t\t\tfi"
	print "\t\t\treturn"
	print "\t\tfi"
	print "\t\tif [[ $cur != -* ]]; then"
	print "\t\t\tCOMPREPLY=($(compgen -c -- \"$cur\"))"
	print "\t\t\treturn"
	print "\t\tfi"
	print "\tfi"
	print "\tif [[ $cur == -* ]]; then"
	print "\t\tCOMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))"
	print "\telif [ \"$cmd\" = collapse ] && [ \"$COMP_CWORD\" -eq 2 ]; then"
	print "\t\tCOMPREPLY=($(compgen -W " q(substr(formats, 2)) " -- \"$cur\") $(compgen -f -- \"$cur\"))"
	print "\tfi"
	print "}"
	print "complete -o bashdefault -o default -F _ember ember"
}' "$all" > "$dir/ember.bash"

# ---- zsh ----
awk -F "$tab" -v head="$head" '
function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
function spec(c, name, arg,    v) {
	v = values[c " " substr(name, 3)]
	if (arg == 0)
		return name
	if (arg == 2)
		return name "=-::value:_files"
	if (v != "")
		return name (substr(name, 2, 1) == "-" ? "=" : "+") ":value:(" substr(v, 2) ")"
	return name (substr(name, 2, 1) == "-" ? "=" : "+") ":value:_files"
}
$2 == "command" { order[++n] = $3; summary[$3] = $4 }
$2 == "long" { opt[$1, ++no[$1]] = "--" $3; oarg[$1, no[$1]] = $4 }
$2 == "short" { opt[$1, ++no[$1]] = "-" $3; oarg[$1, no[$1]] = $4 }
$2 == "format" { gsub(/:/, "\\:", $3); formats = formats "\n\t\t" q($3 ":" $4) }
$2 == "value" { values[$1 " " $3] = values[$1 " " $3] " " $4 }
END {
	print "#compdef ember"
	print "# zsh completion for ember, " head
	print ""
	print "_ember_format_or_file() {"
	print "\tlocal -a formats"
	print "\tformats=(" formats "\n\t)"
	print "\t_describe -t formats \"format\" formats"
	print "\t_files"
	print "}"
	print ""
	print "_ember() {"
	print "\tlocal -a commands"
	printf "\tcommands=("
	for (i = 1; i <= n; i++)
		printf "\n\t\t%s", q(order[i] ":" summary[order[i]])
	print "\n\t)"
	print "\tif (( CURRENT == 2 )); then"
	print "\t\t_describe -t commands \"ember command\" commands"
	print "\t\treturn"
	print "\tfi"
	print "\tlocal cmd=$words[2]"
	print "\tshift words"
	print "\t(( CURRENT-- ))"
	print "\tcase $cmd in"
	for (i = 1; i <= n; i++) {
		c = order[i]
		print "\t" c ")"
		printf "\t\t_arguments -s -S"
		for (j = 1; j <= no[c]; j++)
			printf " \\\n\t\t\t%s", q(spec(c, opt[c, j], oarg[c, j]))
		if (c == "record")
			printf " \\\n\t\t\t%s \\\n\t\t\t%s", q("(-)1:command:_command_names -e"), q("*::arguments:_normal")
		else if (c == "collapse")
			printf " \\\n\t\t\t%s \\\n\t\t\t%s", q("1:format:_ember_format_or_file"), q("*:file:_files")
		else
			printf " \\\n\t\t\t%s", q("*:file:_files")
		print "\n\t\t;;"
	}
	print "\tesac"
	print "}"
	print ""
	print "_ember \"$@\""
}' "$all" > "$dir/_ember"

# ---- fish ----
awk -F "$tab" -v head="$head" '
function q(s) { gsub(/\\/, "\\\\", s); gsub(/\047/, "\\\047", s); return "\047" s "\047" }
$2 == "command" { order[++n] = $3; summary[$3] = $4 }
$2 == "long" { longs[$1, ++nl[$1]] = $3; larg[$1, nl[$1]] = $4; lshort[$1, nl[$1]] = $5; paired[$1, $5] = 1 }
$2 == "short" { shorts[$1, ++ns[$1]] = $3; sarg[$1, ns[$1]] = $4 }
$2 == "format" { fmts[++nf] = $3; fsum[nf] = $4 }
$2 == "value" { values[$1 " " $3] = values[$1 " " $3] " " $4 }
END {
	print "# fish completion for ember, " head
	print ""
	for (i = 1; i <= n; i++)
		print "complete -c ember -f -n __fish_use_subcommand -a " order[i] " -d " q(summary[order[i]])
	for (i = 1; i <= n; i++) {
		c = order[i]
		cond = "-n " q("__fish_seen_subcommand_from " c)
		for (j = 1; j <= nl[c]; j++) {
			l = "complete -c ember " cond " -l " longs[c, j]
			if (lshort[c, j] != "-")
				l = l " -s " lshort[c, j]
			v = values[c " " longs[c, j]]
			if (v != "")
				l = l " -x -a " q(substr(v, 2))
			else if (larg[c, j] == 1)
				l = l " -r"
			print l
		}
		for (j = 1; j <= ns[c]; j++) {
			if ((c, shorts[c, j]) in paired)
				continue
			print "complete -c ember " cond " -s " shorts[c, j] (sarg[c, j] == 1 ? " -r" : "")
		}
	}
	for (i = 1; i <= nf; i++)
		print "complete -c ember -n " q("__fish_seen_subcommand_from collapse; and __fish_is_nth_token 2") " -a " q(fmts[i]) " -d " q(fsum[i])
}' "$all" > "$dir/ember.fish"
rm -f "$all"
