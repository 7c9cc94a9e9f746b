/* What a command writes: folded stacks, an SVG flame graph or the HTML
 * viewer, or another tool's format (pprof, speedscope, Chrome, Firefox
 * Profiler, perf script), chosen by --format or by the -o file's
 * extension, the same way for every command. */
#include <string.h>

#include "cli.h"

static const char *const names[] = {
    [CLI_FOLDED] = "folded",
    [CLI_SVG] = "svg",
    [CLI_PPROF] = "pprof",
    [CLI_SPEEDSCOPE] = "speedscope",
    [CLI_HTML] = "html",
    [CLI_CHROME] = "chrome",
    [CLI_CPUPROFILE] = "cpuprofile",
    [CLI_FIREFOX] = "firefox",
    [CLI_PERFSCRIPT] = "perf-script",
};

/* The extensions, the first of each format its default; the longest
 * that matches wins (.speedscope.json before .json). */
static const struct {
	int fmt;
	const char *ext;
} exts[] = {
    {CLI_FOLDED, ".folded"},
    {CLI_SVG, ".svg"},
    {CLI_PPROF, ".pb.gz"},
    {CLI_PPROF, ".pb"},
    {CLI_PPROF, ".pprof"},
    {CLI_SPEEDSCOPE, ".speedscope.json"},
    {CLI_HTML, ".html"},
    {CLI_CHROME, ".trace.json"},
    {CLI_CHROME, ".chrome.json"},
    {CLI_CPUPROFILE, ".cpuprofile"},
    {CLI_FIREFOX, ".firefox.json"},
    {CLI_FIREFOX, ".json"},
    {CLI_PERFSCRIPT, ".perf.txt"},
    {CLI_PERFSCRIPT, ".perf-script"},
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
	return names[f];
}

const char *cli_format_ext(int f)
{
	for (size_t i = 0; i < ARRAY_LEN(exts); i++)
		if (exts[i].fmt == f)
			return exts[i].ext;
	return "";
}

/* The format of path's longest matching extension among allowed. */
static int of_path(const char *path, unsigned allowed)
{
	size_t best = 0;
	int f = -1;

	for (size_t i = 0; i < ARRAY_LEN(exts); i++)
		if (allowed & 1u << exts[i].fmt &&
		    ends_with(path, exts[i].ext) &&
		    strlen(exts[i].ext) > best) {
			best = strlen(exts[i].ext);
			f = exts[i].fmt;
		}
	return f;
}

int cli_format_of(const char *path)
{
	return path && strcmp(path, "-") ? of_path(path, CLI_ALL_FORMATS) : -1;
}

void cli_format_names(struct ember_buf *b, unsigned allowed)
{
	size_t start = b->len;

	for (int i = 0; i < CLI_NFORMATS; i++)
		if (allowed & 1u << i)
			ember_buf_addf(b, "%s%s", b->len > start ? "|" : "",
				       names[i]);
}

int cli_format_pick(const char *cmd, const char *format, const char *output,
		    unsigned allowed, int dflt, int *out)
{
	int f = -1;

	if (format) {
		for (int i = 0; i < CLI_NFORMATS; i++)
			if (!strcmp(format, names[i]))
				f = i;
		if (f < 0 || !(allowed & 1u << f)) {
			struct ember_buf b = EMBER_BUF_INIT;
			cli_format_names(&b, allowed);
			int rc = cli_usage(cmd, "--format takes %s, not '%s'",
					   b.buf, format);
			ember_buf_release(&b);
			return rc;
		}
	} else if (output && strcmp(output, "-")) {
		f = of_path(output, allowed);
	}
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
	case CLI_CHROME:
		return ember_chrome_write(p, 0, ember_write_stdio, f);
	case CLI_CPUPROFILE:
		return ember_chrome_write(p, 1, ember_write_stdio, f);
	case CLI_FIREFOX:
		return ember_firefox_write(p, ember_write_stdio, f);
	case CLI_PERFSCRIPT:
		return ember_perfscript_write(p, ember_write_stdio, f);
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
		if (format == CLI_HTML && p)
			ember_flamegraph_set_prof(fg, p->prof);
		err = ember_flamegraph_render(fg, ember_write_stdio, f, &st);
		ember_flamegraph_free(fg);
		return err;
	}
	default:
		return ember_write_stdio(f, folded, len);
	}
}
