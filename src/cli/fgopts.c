/* The flame graph's options (flamegraph.pl's and inferno-flamegraph's),
 * one table and one parser for every command that draws: ember flamegraph
 * and ember record. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	O_TITLE = CLI_FG_OPT,
	O_SUBTITLE,
	O_WIDTH,
	O_HEIGHT,
	O_MINWIDTH,
	O_FONTTYPE,
	O_FONTSIZE,
	O_FONTWIDTH,
	O_COUNTNAME,
	O_NAMETYPE,
	O_COLORS,
	O_BGCOLORS,
	O_HASH,
	O_RANDOM,
	O_CP,
	O_REVERSE,
	O_INVERTED,
	O_FLAMECHART,
	O_NEGATE,
	O_NOTES,
	O_FACTOR,
	O_TOTAL,
	O_ENCODING,
	O_NAMEATTR,
	O_DETERMINISTIC,
	O_DIFFUSION,
	O_TRUNC_RIGHT,
	O_NO_SORT,
	O_PRETTY,
	O_NO_JS,
	O_UICOLOR,
	O_SEARCHCOLOR,
	O_STROKECOLOR,
	O_BASE,
};

static const struct option fg_longopts[] = {
    {"title", required_argument, NULL, O_TITLE},
    {"subtitle", required_argument, NULL, O_SUBTITLE},
    {"width", required_argument, NULL, O_WIDTH},
    {"height", required_argument, NULL, O_HEIGHT},
    {"minwidth", required_argument, NULL, O_MINWIDTH},
    {"fonttype", required_argument, NULL, O_FONTTYPE},
    {"fontsize", required_argument, NULL, O_FONTSIZE},
    {"fontwidth", required_argument, NULL, O_FONTWIDTH},
    {"countname", required_argument, NULL, O_COUNTNAME},
    {"nametype", required_argument, NULL, O_NAMETYPE},
    {"colors", required_argument, NULL, O_COLORS},
    {"bgcolors", required_argument, NULL, O_BGCOLORS},
    {"hash", no_argument, NULL, O_HASH},
    {"random", no_argument, NULL, O_RANDOM},
    {"cp", no_argument, NULL, O_CP},
    {"reverse", no_argument, NULL, O_REVERSE},
    {"inverted", no_argument, NULL, O_INVERTED},
    {"flamechart", no_argument, NULL, O_FLAMECHART},
    {"negate", no_argument, NULL, O_NEGATE},
    {"notes", required_argument, NULL, O_NOTES},
    {"factor", required_argument, NULL, O_FACTOR},
    {"total", required_argument, NULL, O_TOTAL},
    {"encoding", required_argument, NULL, O_ENCODING},
    {"nameattr", required_argument, NULL, O_NAMEATTR},
    {"deterministic", no_argument, NULL, O_DETERMINISTIC},
    {"colordiffusion", no_argument, NULL, O_DIFFUSION},
    {"truncate-text-right", no_argument, NULL, O_TRUNC_RIGHT},
    {"no-sort", no_argument, NULL, O_NO_SORT},
    {"pretty-xml", no_argument, NULL, O_PRETTY},
    {"no-javascript", no_argument, NULL, O_NO_JS},
    {"uicolor", required_argument, NULL, O_UICOLOR},
    {"search-color", required_argument, NULL, O_SEARCHCOLOR},
    {"stroke-color", required_argument, NULL, O_STROKECOLOR},
    {"base", required_argument, NULL, O_BASE},
};

/* "#rrggbb", as inferno's parse_hex_color takes it */
static int hex_color(const char *s)
{
	return strlen(s) == 7 && s[0] == '#' &&
	       strspn(s + 1, "0123456789abcdefABCDEF") == 6;
}

/* --base frames, for the life of the command */
static const char **bases;

void cli_longopts_copy(struct option *v, const struct option *own)
{
	size_t n = 0;

	while (own[n].name)
		n++;
	if (n >= CLI_OPTS_MAX)
		abort(); /* CLI_OPTS_MAX is too small */
	memcpy(v, own, (n + 1) * sizeof(*v));
}

const char *cli_fg_palette(size_t i)
{
	return ember_fg_palette(i);
}

void cli_fg_longopts(struct option *v, const struct option *own,
		     int input_order)
{
	size_t n = 0, k = 0;

	while (own[n].name)
		n++;
	if (n + sizeof(fg_longopts) / sizeof(fg_longopts[0]) >= CLI_OPTS_MAX)
		abort(); /* CLI_OPTS_MAX is too small */
	for (size_t i = 0; i < n; i++)
		v[k++] = own[i];
	for (size_t i = 0; i < sizeof(fg_longopts) / sizeof(fg_longopts[0]);
	     i++) {
		int val = fg_longopts[i].val;
		if (!input_order && (val == O_FLAMECHART || val == O_NEGATE ||
				     val == O_NO_SORT || val == O_BASE))
			continue;
		v[k++] = fg_longopts[i];
	}
	memset(&v[k], 0, sizeof(v[k]));
}

/* --minwidth: "NUM" pixels or "NUM%" of the total, as flamegraph.pl's
 * ^[0-9.]+%?$ */
static int parse_minwidth(const char *s, struct ember_fg_options *o)
{
	size_t n = strlen(s);
	char *tmp;
	int pct = n && s[n - 1] == '%';

	if (!n || strspn(s, "0123456789.") != n - (size_t)pct)
		return -1;
	tmp = ember_xmemdup(s, n - (size_t)pct);
	int err = cli_double(tmp, &o->minwidth);
	free(tmp);
	o->minwidth_pct = pct;
	return err;
}

int cli_fg_option(const char *cmd, int c, const char *arg,
		  struct ember_fg_options *o)
{
	long lv;

	switch (c) {
	case O_TITLE:
		o->title = arg;
		break;
	case O_SUBTITLE:
		o->subtitle = arg;
		break;
	case O_WIDTH:
		if (cli_long(arg, 1, 1000000, &lv))
			return cli_usage(cmd,
					 "--width must be a whole number of "
					 "pixels, not '%s'",
					 arg);
		o->width = (int)lv;
		break;
	case O_HEIGHT:
		if (cli_long(arg, 1, 10000, &lv))
			return cli_usage(cmd,
					 "--height must be a whole number of "
					 "pixels, not '%s'",
					 arg);
		o->height = (int)lv;
		break;
	case O_MINWIDTH:
		if (parse_minwidth(arg, o))
			return cli_usage(cmd,
					 "--minwidth takes pixels or a "
					 "percentage (0.5%%), not '%s'",
					 arg);
		break;
	case O_FONTTYPE:
		o->fonttype = arg;
		break;
	case O_FONTSIZE:
		if (cli_double(arg, &o->fontsize) || o->fontsize <= 0)
			return cli_usage(cmd,
					 "--fontsize must be a positive "
					 "number, not '%s'",
					 arg);
		break;
	case O_FONTWIDTH:
		if (cli_double(arg, &o->fontwidth) || o->fontwidth <= 0)
			return cli_usage(cmd,
					 "--fontwidth must be a positive "
					 "number, not '%s'",
					 arg);
		break;
	case O_COUNTNAME:
		o->countname = arg;
		break;
	case O_NAMETYPE:
		o->nametype = arg;
		break;
	case O_COLORS:
		o->colors = arg;
		break;
	case O_BGCOLORS:
		o->bgcolors = arg;
		break;
	case O_HASH:
		o->hash = 1;
		break;
	case O_RANDOM:
		o->random = 1;
		break;
	case O_CP:
		o->palette_file = "palette.map";
		break;
	case O_REVERSE:
		o->reverse = 1;
		break;
	case O_INVERTED:
		o->inverted = 1;
		break;
	case O_FLAMECHART:
		o->flamechart = 1;
		break;
	case O_NEGATE:
		o->negate = 1;
		break;
	case O_NOTES:
		o->notes = arg;
		break;
	case O_FACTOR:
		if (cli_double(arg, &o->factor))
			return cli_usage(
			    cmd, "--factor must be a number, not '%s'", arg);
		break;
	case O_TOTAL:
		if (cli_double(arg, &o->total) || o->total < 0)
			return cli_usage(
			    cmd, "--total must be a number, not '%s'", arg);
		break;
	case O_ENCODING:
		o->encoding = arg;
		break;
	case O_NAMEATTR:
		o->nameattr_file = arg;
		break;
	case O_DETERMINISTIC:
		o->deterministic = 1;
		break;
	case O_DIFFUSION:
		o->color_diffusion = 1;
		break;
	case O_TRUNC_RIGHT:
		o->truncate_right = 1;
		break;
	case O_NO_SORT:
		o->no_sort = 1;
		break;
	case O_PRETTY:
	case O_NO_JS:
		break; /* ember's SVG is a line a frame, its script small */
	case O_UICOLOR:
	case O_SEARCHCOLOR:
	case O_STROKECOLOR:
		if (!hex_color(arg) &&
		    (c != O_STROKECOLOR || strcmp(arg, "none")))
			return cli_usage(cmd,
					 "--%s takes a colour as #rrggbb%s, "
					 "not '%s'",
					 c == O_UICOLOR	      ? "uicolor"
					 : c == O_SEARCHCOLOR ? "search-color"
							      : "stroke-color",
					 c == O_STROKECOLOR ? " or none" : "",
					 arg);
		if (c == O_UICOLOR)
			o->uicolor = arg;
		else if (c == O_SEARCHCOLOR)
			o->search_color = arg;
		else
			o->stroke_color = arg;
		break;
	case O_BASE:
		bases =
		    ember_xreallocarray(bases, o->nbase + 1, sizeof(*bases));
		bases[o->nbase++] = arg;
		o->base = bases;
		break;
	default:
		return 0;
	}
	return 1;
}

int cli_fg_short(int c)
{
	return c == 'c' ? O_COLORS : O_INVERTED;
}

int cli_fg_check(const char *cmd, const struct ember_fg_options *o)
{
	if (o->inferno && !ember_fg_palette_known(o->colors, 1))
		return cli_usage(cmd,
				 "--colors takes aqua, blue, green, hot, io, "
				 "java, js, mem, orange, perl, python, purple, "
				 "red, rust, wakeup or yellow, not '%s'",
				 o->colors);
	if (!ember_fg_palette_known(o->colors, 0))
		cli_warn("unknown palette '%s': frames will be black "
			 "(palettes: hot mem io wakeup chain java js perl "
			 "python rust red green blue aqua yellow purple "
			 "orange)",
			 o->colors);
	if (o->hash && o->deterministic)
		return cli_usage(cmd, "--hash and --deterministic cannot be "
				      "used together");
	if (o->flamechart && (o->reverse || o->no_sort))
		return cli_usage(cmd, "--flamechart cannot be used with "
				      "--reverse or --no-sort");
	if (o->bgcolors) {
		char c1[8], c2[8];
		if (ember_fg_bgcolors(o->bgcolors, o->colors, c1, c2))
			return cli_usage(cmd,
					 "--bgcolors takes yellow, blue, "
					 "green, grey or #rrggbb, not '%s'",
					 o->bgcolors);
	}
	return 0;
}
