# An independent reading of stackcollapse-perf.pl's rules (FlameGraph
# 41fee1f), used to make this folder's expected files from its perf script
# texts; `jitted-*.so` modules count as JIT for --jit, as inferno does.
#   awk -v opts="kernel jit" -f collapse-ref.awk perf.txt | LC_ALL=C sort
# Options: pid tid kernel jit (all = kernel jit).  Counts are the periods.
BEGIN {
	n = split(opts, o, " ")
	for (i = 1; i <= n; i++) opt[o[i]] = 1
	if (opt["all"]) opt["kernel"] = opt["jit"] = 1
}
function flush(   s, i) {
	if (comm != "") {
		s = comm
		for (i = nf; i >= 1; i--) s = s ";" f[i]
		count[s] += period
	}
	comm = ""; nf = 0
}
function basename(p,   k) { k = split(p, parts, "/"); return parts[k] }
/^#/ { next }
/^[ \t]*$/ { flush(); next }
/^[^ \t]/ {
	# event line: "comm pid[/tid] time: period event:"
	line = $0
	# comm: "\S.+?" before the first all-digit PID or PID/TID field
	if (!match(substr(line, 3), /[ \t]+[0-9]+(\/[0-9]+)?[ \t]+/)) next
	c = substr(line, 1, RSTART + 1)
	pt = substr(line, RSTART + 2, RLENGTH); gsub(/[ \t]/, "", pt)
	split(pt, ptv, "/")
	gsub(/ /, "_", c)
	if (opt["tid"]) c = c "-" ptv[1] "/" (ptv[2] != "" ? ptv[2] : ptv[1])
	else if (opt["pid"]) c = c "-" ptv[1]
	comm = c
	period = 1
	if (match(line, /:[ \t]*[0-9]+[ \t]+[^ \t]+:[ \t]*$/)) {
		p = substr(line, RSTART + 1); sub(/^[ \t]*/, "", p); sub(/[ \t].*/, "", p)
		period = p + 0
	}
	next
}
{
	# frame line: "pc sym (module)", module is the last (...) group
	line = $0; sub(/^[ \t]*/, "", line)
	if (!match(line, /^[A-Za-z0-9_]+[ \t]*/)) next
	rest = substr(line, RLENGTH + 1)
	if (!match(rest, / \([^()]*\)$/) && !match(rest, / \(.*\)$/)) next
	mod = substr(rest, RSTART + 2, RLENGTH - 3)
	func = substr(rest, 1, RSTART - 1)
	sub(/\+0x[0-9a-f]+$/, "", func)
	if (func ~ /^\(/) next
	nparts = split(func, part, "->")
	for (k = 1; k <= nparts; k++) {
		name = part[k]
		if (name == "[unknown]")
			name = (mod == "[unknown]") ? "[unknown]" : "[" basename(mod) "]"
		gsub(/;/, ":", name)
		# cut from the first "(" outside "(anonymous namespace)",
		# unless it is a Go method "pkg.(*T).m"
		if (!(name ~ /\.\(.*\)\./)) {
			tmp = name; gsub(/\(anonymous namespace\)/, "\001anonymous namespace\002", tmp)
			q = index(tmp, "(")
			if (q) name = substr(name, 1, q - 1)
		}
		gsub(/["']/, "", name)
		if (k > 1) {
			if (name !~ /_\[i\]/) name = name "_[i]"
		} else if (opt["kernel"] && (mod ~ /^\[/ || mod ~ /vmlinux$/) && mod !~ /unknown/) {
			name = name "_[k]"
		} else if (opt["jit"] && (mod ~ /\/tmp\/perf-[0-9]+\.map/ || mod ~ /\/jitted-[^\/]*\.so$/) && name !~ /_\[j\]/) {
			name = name "_[j]"
		}
		f[++nf] = name
	}
}
END {
	flush()
	for (s in count) printf "%s %.0f\n", s, count[s]
}
