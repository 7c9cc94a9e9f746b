/* ember diff: two folded profiles in, one differential profile out
 * ("stack before after" lines), as FlameGraph's difffolded.pl. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [-n] [-s] [-o FILE] BEFORE AFTER > diff.folded\n"
	    "\n"
	    "Compares two folded profiles (files or '-', compressed (gzip, xz, "
	    "zstd,\n"
	    "bzip2) or not): every stack of either, with its count in BEFORE "
	    "and in\n"
	    "AFTER (0 where it is missing), sorted.  'ember flamegraph' draws "
	    "such\n"
	    "lines as a differential flame graph: widths from AFTER, red where "
	    "a stack\n"
	    "grew, blue where it shrank.  Same output as FlameGraph's "
	    "difffolded.pl\n"
	    "(which leaves the lines in no particular order).\n"
	    "\n"
	    "  -n, --normalize      scale BEFORE's counts so that both totals "
	    "match\n"
	    "  -s, --strip-hex      replace hex numbers (0x1234) by 0x... "
	    "before\n"
	    "                       comparing (addresses that differ between "
	    "runs)\n"
	    "  -o, --output FILE    write to FILE (default: standard output)\n"
	    "      --format FMT     folded (the default), svg or html: the "
	    "differential\n"
	    "                       flame graph itself (or the HTML "
	    "viewer); or by -o's\n"
	    "                       extension (.folded, .svg, .html).  The "
	    "other formats\n"
	    "                       (pprof, speedscope, ...) have no place "
	    "for two counts\n"
	    "                       per stack: their names are refused\n"
	    "      --open           once an SVG or HTML file is written, open "
	    "it ($BROWSER,\n"
	    "                       else xdg-open; with no display, its "
	    "file:// URL on\n"
	    "                       stderr)\n"
	    "  -q, --quiet          no warnings\n"
	    "  -v, --verbose        more messages (inferno-diff-folded)\n"
	    "  -h, --help           this help\n"
	    "\n"
	    "As inferno-diff-folded (inferno 0.12), counts are cut to whole "
	    "numbers, as\n"
	    "inferno reads them; the lines come sorted (inferno's are in no "
	    "order).\n"
	    "\n"
	    "Widths follow AFTER: to see what disappeared too, draw the "
	    "reverse with\n"
	    "the colours swapped (widths from BEFORE), as in the second "
	    "example.\n"
	    "\n"
	    "EXAMPLES\n"
	    "  %s before.folded after.folded | ember flamegraph > diff.svg\n"
	    "  %s after.folded before.folded | ember flamegraph --negate > "
	    "diff-rev.svg\n"
	    "  %s -n -s old.folded.gz new.folded.gz -o diff.folded\n"
	    "  %s --open -o diff.svg before.folded after.folded\n",
	    prog, prog, prog, prog, prog);
}

static const struct option longopts[] = {
    {"normalize", no_argument, NULL, 'n'},
    {"strip-hex", no_argument, NULL, 's'},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, 'F'},
    {"open", no_argument, NULL, 'O'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};
static const char shortopts[] = "nso:qh";

const char *cmd_diff_options(struct option *v)
{
	cli_longopts_copy(v, longopts);
	return shortopts;
}

static const char *name(const char *path)
{
	return strcmp(path, "-") ? path : "standard input";
}

int cmd_diff(int argc, char **argv, const char *preset)
{
	const char *prog = preset ? "difffolded.pl" : "ember diff";
	const char *cmd = "diff";
	const char *output = NULL, *format = NULL;
	struct ember_diff_options o = {0, 0};
	struct ember_diff_stats st;
	struct cli_out out;
	int c, open_it = 0;

	if (preset) {
		const char *base = strrchr(argv[0], '/');
		prog = base ? base + 1 : argv[0];
	}
	/* inferno-diff-folded: whole counts, and -v */
	int inferno = preset && !strcmp(preset, "inferno");
	o.whole = inferno;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, inferno ? "nso:qhv" : shortopts,
				longopts, NULL)) != -1) {
		switch (c) {
		case 'v':
			if (cli_verbose >= 0)
				cli_verbose++;
			break;
		case 'n':
			o.normalize = 1;
			break;
		case 's':
			o.strip_hex = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'F':
			format = optarg;
			break;
		case 'O':
			open_it = 1;
			break;
		case 'q':
			cli_verbose = -1;
			break;
		case 'h':
			help(stdout, prog);
			return 0;
		default:
			return cli_bad_option(cmd, argv, "o");
		}
	}
	if (argc - optind != 2)
		return cli_usage(cmd, "give two folded profiles: BEFORE AFTER");
	const char *before = argv[optind], *after = argv[optind + 1];
	if (!strcmp(before, "-") && !strcmp(after, "-"))
		return cli_usage(cmd, "only one of BEFORE and AFTER can be "
				      "standard input");
	/* two counts per stack: pprof, speedscope and the others have no
	 * place for them; the flame graph draws them (SVG, HTML) */
	int as;
	unsigned can = 1u << CLI_FOLDED | 1u << CLI_SVG | 1u << CLI_HTML;
	if (cli_format_pick(cmd, format, output, can, CLI_FOLDED, &as))
		return 2;
	int named = format ? -1 : cli_format_of(output);
	if (named >= 0 && !(can & 1u << named))
		return cli_usage(cmd,
				 "cannot write a difference as %s ('%s'): give "
				 "-o FILE.folded, .svg or .html (or --format "
				 "folded|svg|html)",
				 cli_format_name(named), output);
	if (open_it && cli_open_check(cmd, output, as))
		return 2;
	if (cli_out_open(&out, output))
		return 1;
	errno = 0;
	struct ember_buf folded = EMBER_BUF_INIT;
	int err =
	    as != CLI_FOLDED
		? ember_diff(before, after, &o, cli_buf_write, &folded, &st)
		: ember_diff(before, after, &o, ember_write_stdio, out.f, &st);
	if (!err && as != CLI_FOLDED) {
		err =
		    cli_write_as(out.f, as, folded.buf, folded.len, NULL, NULL);
		if (err && err != EMBER_EIO)
			cli_error("cannot draw the flame graph: %s",
				  ember_strerror(err));
	}
	ember_buf_release(&folded);
	if (err == EMBER_ETOOLONG && st.failed_input >= 0) {
		cli_error("cannot read '%s': line %llu is longer than %zu MiB",
			  name(st.failed_input ? after : before),
			  (unsigned long long)st.lines[st.failed_input] + 1,
			  EMBER_MAX_LINE >> 20);
		return cli_out_close(&out, 0);
	}
	if (err && st.failed_input >= 0) {
		const char *path = st.failed_input ? after : before;
		cli_error("cannot read '%s': %s", name(path),
			  err == EMBER_ETRUNC
			      ? "the file was cut short while being read"
			  : err == EMBER_EFORMAT
			      ? "corrupt or truncated compressed data"
			  : err == EMBER_ENOENT ? "No such file or directory"
			  : err == EMBER_EPERM	? "Permission denied"
					       : strerror(errno ? errno : EIO));
		return cli_out_close(&out, 0);
	}
	for (int i = 0; i < 2; i++)
		if (st.bad[i].count)
			cli_warn("skipped %llu line%s with no count in %s (the "
				 "first is line %llu)",
				 (unsigned long long)st.bad[i].count,
				 st.bad[i].count == 1 ? "" : "s",
				 name(i ? after : before),
				 (unsigned long long)st.bad[i].first_line);
	if (st.normalize_skipped)
		cli_warn("-n: %s has no samples: counts left as they are",
			 name(before));
	if (!st.stacks)
		cli_warn("no stacks in either profile");
	/* a failed write is reported by cli_out_close */
	int rc = cli_out_close(&out, !err || err == EMBER_EIO);
	if (!rc && open_it)
		cli_open(output);
	return rc;
}
