/* libFuzzer target: any bytes as folded input to the renderer, with a few
 * option sets picked by the first byte.  Must not crash, hang or leak, and
 * the SVG must come out whole. */
#include <stdlib.h>
#include <string.h>

#include "ember.h"

static int sink(void *ctx, const void *p, size_t n)
{
	*(size_t *)ctx += n;
	(void)p;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_fg_options o;
	struct ember_fg_stats st;
	size_t written = 0;
	unsigned char mode = size ? data[0] : 0;

	ember_fg_options_init(&o);
	o.reverse = mode & 1;
	o.inverted = (mode >> 1) & 1;
	o.flamechart = (mode >> 2) & 1;
	o.hash = (mode >> 3) & 1;
	o.minwidth = (mode >> 4) & 1 ? 0 : 0.1;
	o.colors = (mode >> 5) & 1 ? "chain" : (mode >> 6) & 1 ? "js" : "hot";
	o.negate = (mode >> 7) & 1;
	char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	struct ember_flamegraph *fg = ember_flamegraph_new(&o);
	ember_flamegraph_add(fg, "fuzz", copy, size);
	int err = ember_flamegraph_render(fg, sink, &written, &st);
	if ((err == 0 || err == EMBER_EEMPTY) && written == 0)
		abort(); /* an SVG is always written */
	ember_flamegraph_free(fg);
	free(copy);
	return 0;
}
