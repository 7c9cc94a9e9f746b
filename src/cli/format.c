/* What a command writes: folded stacks, an SVG flame graph or the HTML
 * viewer, pprof or speedscope, chosen by --format or by the -o file's
 * extension, the same way for every command. */
#include <string.h>

#include "cli.h"

static const struct {
	const char *name, *ext;
} formats[] = {
    [CLI_FOLDED] = {"folded", ".folded"},
    [CLI_SVG] = {"svg", ".svg"},
    [CLI_PPROF] = {"pprof", ".pb.gz"},
    [CLI_SPEEDSCOPE] = {"speedscope", ".speedscope.json"},
    [CLI_HTML] = {"html", ".html"},
};

static int ends_with(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);
	return n > e && !strcmp(s + n - e, ext);
}

int cli_buf_write(void *ctx, const void *p, size_t n)
{
	ember_buf_add(ctx, p, n);
	return 0;
}

const char *cli_format_name(int f)
{
	return formats[f].name;
}

int cli_format_pick(const char *cmd, const char *format, const char *output,
		    unsigned allowed, int dflt, int *out)
{
	struct ember_buf names = EMBER_BUF_INIT;
	int f = -1;

	for (int i = 0; i < (int)ARRAY_LEN(formats); i++)
		if (allowed & 1u << i)
			ember_buf_addf(&names, "%s%s", names.len ? "|" : "",
				       formats[i].name);
	if (format) {
		for (int i = 0; i < (int)ARRAY_LEN(formats); i++)
			if (!strcmp(format, formats[i].name))
				f = i;
		if (f < 0 || !(allowed & 1u << f)) {
			int rc = cli_usage(cmd, "--format takes %s, not '%s'",
					   names.buf, format);
			ember_buf_release(&names);
			return rc;
		}
	} else if (output && strcmp(output, "-")) {
		for (int i = 0; i < (int)ARRAY_LEN(formats); i++)
			if (allowed & 1u << i &&
			    ends_with(output, formats[i].ext))
				f = i;
		if (f < 0 &&
		    (ends_with(output, ".pb") || ends_with(output, ".pprof")) &&
		    allowed & 1u << CLI_PPROF)
			f = CLI_PPROF;
	}
	ember_buf_release(&names);
	*out = f < 0 ? dflt : f;
	return 0;
}

int cli_write_as(FILE *f, int format, const char *folded, size_t len,
		 const struct ember_profile *p,
		 const struct ember_fg_options *fo)
{
	int err;

	switch (format) {
	case CLI_PPROF:
		return ember_pprof_write(p, ember_write_stdio, f);
	case CLI_SPEEDSCOPE:
		return ember_speedscope_write(p, ember_write_stdio, f);
	case CLI_SVG:
	case CLI_HTML: {
		struct ember_fg_options o;
		struct ember_fg_stats st;
		if (fo)
			o = *fo;
		else
			ember_fg_options_init(&o);
		o.html = format == CLI_HTML;
		struct ember_flamegraph *fg = ember_flamegraph_new(&o);
		ember_flamegraph_add(fg, NULL, folded, len);
		err = ember_flamegraph_render(fg, ember_write_stdio, f, &st);
		ember_flamegraph_free(fg);
		return err;
	}
	default:
		return ember_write_stdio(f, folded, len);
	}
}
