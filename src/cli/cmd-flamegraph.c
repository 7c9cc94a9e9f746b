/* ember flamegraph: folded stacks in, an interactive SVG out, with every
 * option of flamegraph.pl. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void help(FILE *f, const char *prog)
{
	fprintf(
	    f,
	    "usage: %s [OPTIONS] [FILE...] > out.svg\n"
	    "\n"
	    "Draws folded stacks (\"a;b;c 42\" lines, from files, '-' or "
	    "standard\n"
	    "input, compressed (gzip, xz, zstd, bzip2) or not) as an "
	    "interactive SVG\n"
	    "flame graph: hover for details, click to zoom, Ctrl-F to search.  "
	    "Same\n"
	    "options and output as FlameGraph's flamegraph.pl.  Any input "
	    "'ember\n"
	    "collapse' knows (pprof, perf script, trace events, .cpuprofile,\n"
	    "speedscope...) is folded first.\n"
	    "\n"
	    "  -o, --output FILE    write the SVG to FILE (default: standard "
	    "output);\n"
	    "                       FILE.html: the HTML viewer\n"
	    "  --open               once written, open FILE ($BROWSER, else "
	    "xdg-open;\n"
	    "                       with no display, its file:// URL on "
	    "stderr)\n"
	    "  --format svg|html    svg (default), or html: one self-contained "
	    "page that\n"
	    "                       draws on a canvas, for any number of "
	    "frames, with\n"
	    "                       search, a function table, sandwich, focus "
	    "and exclude\n"
	    "  --title TEXT         title (default \"Flame Graph\")\n"
	    "  --subtitle TEXT      second title line\n"
	    "  --width NUM          image width in pixels (default 1200)\n"
	    "  --height NUM         frame height in pixels (default 16)\n"
	    "  --minwidth NUM[%%]    omit frames narrower than NUM pixels, or "
	    "NUM %% of\n"
	    "                       the total (default 0.1)\n"
	    "  --fonttype FONT      font (default Verdana)\n"
	    "  --fontsize NUM       font size (default 12)\n"
	    "  --fontwidth NUM      average glyph width / font size (default "
	    "0.59)\n"
	    "  --countname TEXT     what the counts are (default \"samples\")\n"
	    "  --nametype TEXT      what the frames are (default "
	    "\"Function:\")\n"
	    "  --colors PALETTE     hot (default) mem io wakeup chain java js "
	    "perl python\n"
	    "                       rust red green blue aqua yellow purple "
	    "orange\n"
	    "  --bgcolors COLOR     background: yellow blue green grey or "
	    "#rrggbb\n"
	    "  --hash               colours by a hash of the name "
	    "(positional)\n"
	    "  --random             random colours\n"
	    "  --cp                 consistent palette: reuse and update "
	    "palette.map\n"
	    "  --reverse            reverse the stacks (bottom-up, callers on "
	    "top)\n"
	    "  --inverted           icicle graph (root at the top)\n"
	    "  --flamechart         keep input order (time on the x axis)\n"
	    "  --negate             swap the differential colours\n"
	    "  --notes TEXT         add a comment to the SVG\n"
	    "  --factor NUM         multiply the counts shown (default 1)\n"
	    "  --total NUM          use NUM as the full width instead of the "
	    "sum\n"
	    "  --encoding ENC       XML encoding declaration\n"
	    "  --nameattr FILE      per-function attributes (title, href, "
	    "class...)\n"
	    "  --colors python, rust and the options below are inferno's:\n"
	    "  --deterministic      colours by a hash of the name (FNV-1a)\n"
	    "  --colordiffusion     wider frames are redder\n"
	    "  --truncate-text-right cut long names on the right\n"
	    "  --no-sort            the input is sorted already\n"
	    "  --pretty-xml, --no-javascript  accepted (no effect)\n"
	    "  --uicolor COLOR      the colour of the controls (#rrggbb)\n"
	    "  --search-color COLOR the colour of search matches (#rrggbb)\n"
	    "  --stroke-color COLOR the frames' outline (#rrggbb, or none)\n"
	    "  --base FRAME         frames drawn as the base of every stack "
	    "(repeatable)\n"
	    "  -h, --help           this help\n"
	    "\n"
	    "Lines with two counts (\"stack before after\", from ember diff) "
	    "draw a\n"
	    "differential graph: red grew, blue shrank.\n"
	    "\n"
	    "EXAMPLES\n"
	    "  %s out.folded > out.svg\n"
	    "  grep ext4 out.folded | %s --title 'ext4 only' > ext4.svg\n"
	    "  %s --colors java --minwidth 0.5%% -o java.svg java.folded.gz\n"
	    "  ember diff before.folded after.folded | %s > diff.svg\n"
	    "  %s profile.pb.gz > profile.svg\n"
	    "  %s --open -o out.html out.folded\n",
	    prog, prog, prog, prog, prog, prog, prog);
}

/* inferno-flamegraph's -h: its options, as ember reads them. */
static void help_inferno(FILE *f)
{
	fputs("usage: inferno-flamegraph [OPTIONS] [PATH...] > out.svg\n"
	      "\n"
	      "Draws folded stacks as an interactive SVG flame graph, as "
	      "inferno's\n"
	      "inferno-flamegraph (0.12) does: its defaults (monospace, "
	      "--minwidth in\n"
	      "percent), labels, tooltips and colours, frame for frame.  "
	      "With no PATH,\n"
	      "or PATH '-', reads standard input.\n"
	      "\n"
	      "      --cp                  consistent palette (palette.map)\n"
	      "      --hash                colours by a hash of the name, "
	      "early characters\n"
	      "                            weighing more\n"
	      "      --deterministic       colours by a hash of the name "
	      "(FNV-1a)\n"
	      "  -i, --inverted            icicle graph\n"
	      "      --truncate-text-right cut long names on the right\n"
	      "      --negate              switch differential hues\n"
	      "      --no-sort             the input is sorted already\n"
	      "      --pretty-xml          accepted (ember writes a line a "
	      "frame)\n"
	      "      --no-javascript       accepted (ember's script is always "
	      "there)\n"
	      "  -q, --quiet               no warnings\n"
	      "  -v, --verbose             more messages\n"
	      "      --reverse             stack-reversed flame graph\n"
	      "      --flamechart          flame chart (time order, "
	      "unmerged)\n"
	      "      --bgcolors STRING     yellow (default), blue, green, grey "
	      "or #rrggbb\n"
	      "  -c, --colors STRING       hot (default), mem, io, wakeup, "
	      "java, js, perl,\n"
	      "                            python, rust, red, green, blue, "
	      "aqua, yellow,\n"
	      "                            purple, orange\n"
	      "      --colordiffusion      wider frames are redder\n"
	      "      --countname STRING    count type label (default "
	      "samples)\n"
	      "      --factor FLOAT        scale the counts shown (default "
	      "1)\n"
	      "      --fontsize UINT       font size (default 12)\n"
	      "      --fonttype STRING     font (default monospace)\n"
	      "      --fontwidth FLOAT     glyph width / font size (default "
	      "0.59)\n"
	      "      --uicolor #RRGGBB     colour of the texts (default "
	      "#000000)\n"
	      "      --height UINT         frame height (default 16)\n"
	      "      --minwidth FLOAT      omit frames under FLOAT percent "
	      "(default 0.01)\n"
	      "      --nameattr PATH       per-function attributes\n"
	      "      --nametype STRING     name type label (default "
	      "\"Function:\")\n"
	      "      --notes STRING        notes in the SVG\n"
	      "      --search-color STRING search colour (default #e600e6)\n"
	      "      --stroke-color STRING frame outline (default none)\n"
	      "      --subtitle STRING     second title line\n"
	      "      --title STRING        title (default \"Flame Graph\")\n"
	      "      --width UINT          image width (default 1200)\n"
	      "      --base STRING         keep only stacks through this "
	      "frame, drawn from\n"
	      "                            it up (repeatable)\n"
	      "  -o, --output FILE         write the SVG to FILE (ember's)\n"
	      "  -h, --help                this help\n"
	      "\n"
	      "Also ember's: --total, --encoding, --random, --format html.  "
	      "Lines with\n"
	      "two counts draw a differential graph.\n"
	      "\n"
	      "EXAMPLES\n"
	      "  inferno-collapse-perf perf.txt | inferno-flamegraph > "
	      "out.svg\n"
	      "  inferno-flamegraph --colors rust --deterministic out.folded > "
	      "out.svg\n"
	      "  inferno-diff-folded before.folded after.folded | "
	      "inferno-flamegraph > diff.svg\n",
	      f);
}

enum { O_FORMAT = 256, O_VERBOSE, O_OPEN };

static const struct option longopts[] = {
    {"format", required_argument, NULL, O_FORMAT},
    {"open", no_argument, NULL, O_OPEN},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

const char *cmd_flamegraph_options(struct option *v)
{
	cli_fg_longopts(v, longopts, 1);
	return "o:h";
}

/* inferno-flamegraph's own: -c, -i, -q, -v */
static const struct option inferno_longopts[] = {
    {"format", required_argument, NULL, O_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {"quiet", no_argument, NULL, 'q'},
    {"verbose", no_argument, NULL, 'v'},
    {NULL, 0, NULL, 0},
};

/* An input that is not folded stacks but a format `ember collapse` knows
 * (pprof, perf script, trace events...): read whole from r and folded into
 * fg; 0, or 1 after saying why it cannot be read. */
static int collapse_input(struct ember_flamegraph *fg, struct ember_reader *r,
			  const char *path, const char *fmt,
			  struct ember_fg_options *o)
{
	const char *show = strcmp(path, "-") ? path : "standard input";
	struct ember_buf all = EMBER_BUF_INIT, out = EMBER_BUF_INIT;
	struct ember_collapse_options co;
	struct ember_collapse *c = NULL;
	const char *p;
	size_t n;
	int rc = 1, err;

	ember_reader_set_max_line(r, 0); /* lines or not, read whole */
	while ((err = ember_reader_next(r, &p, &n)) == 1)
		ember_buf_add(&all, p, n);
	if (err) {
		cli_error("cannot read '%s': %s", show,
			  err == EMBER_EFORMAT
			      ? "corrupt or truncated compressed data"
			  : err == EMBER_ETRUNC
			      ? "the file was cut short while being read"
			      : strerror(errno));
		goto out;
	}
	ember_collapse_options_init(&co);
	co.format = fmt;
	if (ember_collapse_new(&c, &co)) {
		ember_flamegraph_add(fg, path, all.buf, all.len);
		rc = 0;
		goto out;
	}
	err = ember_collapse_mem(c, path, all.buf, all.len);
	const struct ember_collapse_stats *st = ember_collapse_stats(c);
	if (err) {
		cli_error("cannot read '%s' as %s: %s", show, fmt,
			  st->error[0] ? st->error : ember_strerror(err));
		goto out;
	}
	err = ember_collapse_write(c, cli_buf_write, &out);
	if (err) {
		cli_error("cannot read '%s': %s", path, ember_strerror(err));
		goto out;
	}
	ember_flamegraph_add(fg, path, out.buf, out.len);
	/* the weights' unit, unless --countname said */
	static char unit[32];
	if (!strcmp(o->countname, "samples") && st->sample_unit[0] &&
	    strcmp(st->sample_unit, "count")) {
		memcpy(unit, st->sample_unit, sizeof(unit));
		o->countname = unit;
		ember_flamegraph_set_countname(fg, unit);
	}
	rc = 0;
out:
	ember_collapse_free(c);
	ember_buf_release(&all);
	ember_buf_release(&out);
	return rc;
}

/* Reads one input into fg: folded stacks as they come, so that memory
 * follows the distinct stacks; with `fold`, any other format ember
 * collapse knows is folded first.  0, or 1 after saying why not. */
static int read_input(struct ember_flamegraph *fg, const char *path, int fold,
		      struct ember_fg_options *o)
{
	const char *show = strcmp(path, "-") ? path : "standard input";
	struct ember_reader *r;
	const char *p = NULL, *fmt;
	size_t n = 0;
	uint64_t line;
	int rc;

	errno = 0;
	rc = ember_reader_open(&r, path);
	if (rc) {
		cli_error("cannot read '%s': %s", show, strerror(errno));
		return 1;
	}
	ember_flamegraph_begin(fg, path);
	rc = ember_reader_peek(r, &p, &n);
	size_t head = n < 65536 ? n : 65536;
	if (fold && rc == 1 && !ember_collapse_is_folded(p, head) &&
	    (fmt = ember_collapse_guess(p, head))) {
		rc = collapse_input(fg, r, path, fmt, o);
		ember_reader_close(r);
		return rc;
	}
	while ((rc = ember_reader_next(r, &p, &n)) == 1)
		ember_flamegraph_feed(fg, p, n);
	line = ember_flamegraph_lines(fg) + 1;
	ember_reader_close(r);
	if (rc == EMBER_ETOOLONG)
		cli_error("cannot read '%s': line %llu is longer than %zu MiB",
			  show, (unsigned long long)line, EMBER_MAX_LINE >> 20);
	else if (rc == EMBER_ETRUNC)
		cli_error("cannot read '%s': the file was cut short while "
			  "being read",
			  show);
	else if (rc)
		cli_error("cannot read '%s': %s", show,
			  rc == EMBER_EFORMAT
			      ? "corrupt or truncated compressed data"
			      : strerror(errno ? errno : EIO));
	return rc != 0;
}

int cmd_flamegraph(int argc, char **argv, const char *preset)
{
	struct ember_fg_options o;
	const char *prog = preset ? "flamegraph.pl" : "ember flamegraph";
	const char *cmd = "flamegraph";
	const char *output = NULL, *format = NULL;
	int c, rc = 1, as, open_it = 0;

	int inferno = preset && !strcmp(preset, "inferno");

	ember_fg_options_init(&o);
	o.perl_compat = preset != NULL && !inferno;
	if (inferno) {
		prog = "inferno-flamegraph";
		o.inferno = 1;
		o.fonttype = "monospace";
		o.minwidth = 0.01;
		o.minwidth_pct = 1;
		o.empty_text = "ERROR: No valid input provided to flamegraph";
	}
	opterr = 0;
	optind = 1;
	/* single-dash long options too, as Perl's Getopt::Long takes them;
	 * inferno's (clap's) take two dashes and have short forms */
	struct option opts[CLI_OPTS_MAX];
	int stop = -1; /* the exit status when the options end the command */

	const char *shortopts = cmd_flamegraph_options(opts);
	if (inferno)
		cli_fg_longopts(opts, inferno_longopts, 1);
	while (stop < 0 &&
	       (c = inferno ? getopt_long(argc, argv, "o:hc:iqv", opts, NULL)
			    : getopt_long_only(argc, argv, shortopts, opts,
					       NULL)) != -1) {
		int fg = cli_fg_option(cmd, c, optarg, &o);
		if (fg) {
			stop = fg == 1 ? -1 : fg;
			continue;
		}
		if (inferno && c == 'c')
			c = cli_fg_short('c');
		else if (inferno && c == 'i')
			c = cli_fg_short('i');
		if (c >= CLI_FG_OPT) {
			fg = cli_fg_option(cmd, c, optarg, &o);
			stop = fg == 1 ? -1 : fg;
			continue;
		}
		switch (c) {
		case 'q':
			cli_verbose = -1;
			break;
		case 'v':
			if (cli_verbose >= 0)
				cli_verbose++;
			break;
		case O_FORMAT:
			format = optarg;
			break;
		case O_OPEN:
			open_it = 1;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			if (inferno)
				help_inferno(stdout);
			else
				help(stdout, prog);
			stop = 0;
			break;
		default:
			stop = cli_bad_option(cmd, argv, inferno ? "oc" : "o");
			break;
		}
	}
	if (stop >= 0)
		return stop;
	o.minwidth_pct |= inferno; /* inferno's is a percentage always */
	if (cli_fg_check(cmd, &o))
		return 2;
	if (cli_format_pick(cmd, format, output, 1u << CLI_SVG | 1u << CLI_HTML,
			    CLI_SVG, &as))
		return 2;
	if (open_it && cli_open_check(cmd, output, as))
		return 2;
	o.html = as == CLI_HTML;

	/* all inputs are read before anything is written */
	int nin = argc - optind > 0 ? argc - optind : 1;
	struct ember_flamegraph *fg = ember_flamegraph_new(&o);
	struct cli_out out = {0};
	for (int i = 0; i < nin; i++) {
		const char *path = optind + i < argc ? argv[optind + i] : "-";
		if (read_input(fg, path, !preset, &o))
			goto out;
	}

	if (cli_out_open(&out, output))
		goto out;
	struct ember_fg_stats st;
	int err = ember_flamegraph_render(fg, ember_write_stdio, out.f, &st);
	if (st.bad.count)
		cli_warn("ignored %llu line%s with invalid format (the first "
			 "is line %llu of %s)",
			 (unsigned long long)st.bad.count,
			 st.bad.count == 1 ? "" : "s",
			 (unsigned long long)st.bad.first_line,
			 st.bad.first_input ? st.bad.first_input
					    : "standard input");
	if (st.total_ignored)
		cli_warn("--total %g is less than the actual total %g, so "
			 "ignored",
			 o.total, st.total);
	if (err == EMBER_EEMPTY) {
		cli_error("no stack counts found in the input");
		/* the error SVG, as flamegraph.pl, but never over a file */
		cli_out_close(&out, cli_out_is_stream(&out));
		rc = preset && !inferno ? 2 : 1;
		goto out;
	}
	if (st.fractional)
		cli_warn("the input has fractional sample counts, cut to whole "
			 "numbers (scale them up and use --factor to keep "
			 "them)");
	if (!err && !inferno && !strcmp(o.countname, "samples") &&
	    st.total < 100)
		cli_warn("stack count is low (%g); did something go wrong?",
			 st.total);
	if (err == EMBER_EFORMAT && st.bad_file)
		cli_error("invalid line in '%s' (want \"function<TAB>"
			  "key=value...\")",
			  st.bad_file);
	else if (err && st.bad_file)
		cli_error("cannot use '%s': %s", st.bad_file, strerror(errno));
	else if (err && err != EMBER_EIO)
		cli_error("cannot draw the flame graph: %s",
			  ember_strerror(err));
	/* a failed write is reported by cli_out_close */
	rc = cli_out_close(&out, !err || (err == EMBER_EIO && !st.bad_file));
	if (!rc && open_it)
		cli_open(output);
out:
	ember_flamegraph_free(fg);
	return rc;
}
