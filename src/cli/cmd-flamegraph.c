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
	    "input, gzip-compressed or not) as an interactive SVG flame graph: "
	    "hover\n"
	    "for details, click to zoom, Ctrl-F to search.  Same options and "
	    "output\n"
	    "as FlameGraph's flamegraph.pl.  Any input 'ember collapse' knows "
	    "(pprof,\n"
	    "perf script, trace events, .cpuprofile, speedscope...) is folded "
	    "first.\n"
	    "\n"
	    "  -o, --output FILE    write the SVG to FILE (default: standard "
	    "output);\n"
	    "                       FILE.html: the HTML viewer\n"
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
	    "perl red\n"
	    "                       green blue aqua yellow purple orange\n"
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
	    "  %s -o out.html out.folded\n",
	    prog, prog, prog, prog, prog, prog, prog);
}

enum { O_FORMAT = 256 };

static const struct option longopts[] = {
    {"format", required_argument, NULL, O_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* An input that is not folded stacks but a format `ember collapse`
 * knows (pprof, perf script, trace events...) is folded first, into
 * out; 0, or 1 after saying why it cannot be read. */
static int collapse_input(const struct ember_input *in, const char *path,
			  struct ember_buf *out, struct ember_fg_options *o)
{
	size_t len;
	const char *data = ember_input_data(in, &len);
	size_t head = len < 65536 ? len : 65536;
	const char *fmt;
	struct ember_collapse_options co;
	struct ember_collapse *c;

	if (ember_collapse_is_folded(data, head) ||
	    !(fmt = ember_collapse_guess(data, head)))
		return 0;
	ember_collapse_options_init(&co);
	co.format = fmt;
	if (ember_collapse_new(&c, &co))
		return 0;
	int err = ember_collapse_mem(c, path, data, len);
	const struct ember_collapse_stats *st = ember_collapse_stats(c);
	if (err) {
		cli_error("cannot read '%s' as %s: %s",
			  strcmp(path, "-") ? path : "standard input", fmt,
			  st->error[0] ? st->error : ember_strerror(err));
		ember_collapse_free(c);
		return 1;
	}
	err = ember_collapse_write(c, cli_buf_write, out);
	/* the weights' unit, unless --countname said */
	static char unit[32];
	if (!strcmp(o->countname, "samples") && st->sample_unit[0] &&
	    strcmp(st->sample_unit, "count")) {
		memcpy(unit, st->sample_unit, sizeof(unit));
		o->countname = unit;
	}
	ember_collapse_free(c);
	if (err) {
		cli_error("cannot read '%s': %s", path, ember_strerror(err));
		return 1;
	}
	return 0;
}

int cmd_flamegraph(int argc, char **argv, const char *preset)
{
	struct ember_fg_options o;
	const char *prog = preset ? "flamegraph.pl" : "ember flamegraph";
	const char *cmd = "flamegraph";
	const char *output = NULL, *format = NULL;
	int c, rc = 1, as;

	ember_fg_options_init(&o);
	o.perl_compat = preset != NULL;
	opterr = 0;
	optind = 1;
	/* single-dash long options too, as Perl's Getopt::Long takes them */
	struct option opts[CLI_OPTS_MAX];
	int stop = -1; /* the exit status when the options end the command */

	cli_fg_longopts(opts, longopts, 1);
	while (stop < 0 &&
	       (c = getopt_long_only(argc, argv, "o:h", opts, NULL)) != -1) {
		int fg = cli_fg_option(cmd, c, optarg, &o);
		if (fg) {
			stop = fg == 1 ? -1 : fg;
			continue;
		}
		switch (c) {
		case O_FORMAT:
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'h':
			help(stdout, prog);
			stop = 0;
			break;
		default:
			stop = cli_bad_option(cmd, argv, "o");
			break;
		}
	}
	if (stop >= 0)
		return stop;
	if (cli_fg_check(cmd, &o))
		return 2;
	if (cli_format_pick(cmd, format, output, 1u << CLI_SVG | 1u << CLI_HTML,
			    CLI_SVG, &as))
		return 2;
	o.html = as == CLI_HTML;

	/* all inputs are read before anything is written */
	int nin = argc - optind > 0 ? argc - optind : 1;
	struct ember_input **in = ember_xcalloc((size_t)nin, sizeof(*in));
	struct ember_buf *folded = ember_xcalloc((size_t)nin, sizeof(*folded));
	struct ember_flamegraph *fg = NULL;
	struct cli_out out = {0};
	int loaded = 0;
	for (int i = 0; i < nin; i++) {
		const char *path = optind + i < argc ? argv[optind + i] : "-";
		int err = ember_input_load(&in[i], path);
		if (err) {
			cli_error("cannot read '%s': %s",
				  strcmp(path, "-") ? path : "standard input",
				  err == EMBER_EFORMAT ? "corrupt gzip data"
						       : strerror(errno));
			goto out;
		}
		loaded++;
		ember_buf_init(&folded[i], 0);
		if (!preset && collapse_input(in[i], path, &folded[i], &o)) {
			loaded = i + 1;
			goto out;
		}
	}
	/* made once the inputs are read: they may set the count's name */
	fg = ember_flamegraph_new(&o);
	for (int i = 0; i < nin; i++) {
		size_t len;
		const char *data = ember_input_data(in[i], &len);
		if (folded[i].len)
			data = folded[i].buf, len = folded[i].len;
		ember_flamegraph_add(fg, ember_input_name(in[i]), data, len);
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
		rc = preset ? 2 : 1;
		goto out;
	}
	if (!err && !strcmp(o.countname, "samples") && st.total < 100)
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
out:
	ember_flamegraph_free(fg);
	for (int i = 0; i < loaded; i++) {
		ember_input_free(in[i]);
		ember_buf_release(&folded[i]);
	}
	free(in);
	free(folded);
	return rc;
}
