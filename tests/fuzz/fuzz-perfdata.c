/* libFuzzer target: any bytes as a perf.data file or stream to ember
 * collapse (its header, records, compressed records and the replay of
 * them), with options picked by the first byte.  Must not crash, hang or
 * leak; a failure is an error code, never an abort. */
#include <stdlib.h>
#include <string.h>

#include "ember.h"

static int drop(void *ctx, const void *p, size_t n)
{
	(void)ctx;
	(void)p;
	(void)n;
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_collapse_options o;
	struct ember_collapse *c;
	unsigned char mode = size ? data[0] : 0;

	if (size < 2)
		return 0;
	ember_collapse_options_init(&o);
	o.format = "perf";
	o.threads = 1;
	o.pid = mode & 1;
	o.tid = (mode >> 1) & 1;
	o.kernel = (mode >> 2) & 1;
	o.addrs = (mode >> 3) & 1;
	o.event_filter = (mode >> 4) & 1 ? "task-clock" : NULL;
	if (ember_collapse_new(&c, &o))
		abort();
	/* the rest; with bit 5, after the magic (so that mutations reach
	 * the header's fields rather than the magic) */
	size_t n = size - 1, pre = (mode >> 5) & 1 ? 8 : 0;
	char *buf = malloc(n + 8);
	if (!buf)
		abort();
	memcpy(buf, "PERFILE2", 8);
	memcpy(buf + pre, data + 1, n);
	if (!ember_collapse_mem(c, "perf.data", buf, n + pre) &&
	    ember_collapse_write(c, drop, NULL))
		abort(); /* drop never fails */
	ember_collapse_stats(c);
	ember_collapse_free(c);
	free(buf);
	return 0;
}
