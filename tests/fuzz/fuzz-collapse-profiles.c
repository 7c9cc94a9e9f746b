/* libFuzzer target: any bytes as input to the whole-input formats of ember
 * collapse (trace events, pprof, cpuprofile, speedscope), the format
 * picked by the first byte, fed whole and, read again, with a second
 * input after it (and then into the sample-level profile, written as
 * speedscope and trace events).  Bad input must give EMBER_EFORMAT, never a crash, hang
 * or leak; the same input must give the same output twice.
 * max_len: 8192
 */
#include "collapse-fuzz.h"

static const char *const formats[] = {
    "chrome", "chrome-tracing", "cpuprofile", "speedscope", "pprof", NULL,
};

static int run(const char *format, int time, const unsigned char *data,
	       size_t size, int twice, struct sink *out)
{
	struct ember_collapse_options o;
	struct ember_collapse *c;
	int err;

	ember_collapse_options_init(&o);
	o.format = format;
	o.time = time;
	o.threads = 1;
	o.profile = twice;
	if (ember_collapse_new(&c, &o))
		abort();
	err = ember_collapse_mem(c, "a", (const char *)data, size);
	if (!err && twice)
		err = ember_collapse_mem(c, "b", (const char *)data, size);
	if (err && err != EMBER_EFORMAT && err != EMBER_EEMPTY)
		abort();
	if (!err && ember_collapse_write(c, sink_write, out))
		abort();
	if (!err && o.profile) {
		struct ember_profile p;
		ember_collapse_profile(c, &p);
		/* errors of their own (nothing to write) are fine */
		(void)!ember_speedscope_write(&p, sink_write, out);
		(void)!ember_chrome_write(&p, 0, sink_write, out);
	}
	if (err && !ember_collapse_stats(c)->error[0] && err != EMBER_EEMPTY)
		abort(); /* an error without a reason */
	ember_collapse_free(c);
	return err;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct sink a = {0}, b = {0};
	size_t nf = sizeof(formats) / sizeof(formats[0]) - 1;

	if (size < 1)
		return 0;
	const char *format = formats[data[0] % nf];
	int time = data[0] / nf & 1;
	int e1 = run(format, time, data + 1, size - 1, 0, &a);
	int e2 = run(format, time, data + 1, size - 1, 0, &b);
	if (e1 != e2 || a.len != b.len ||
	    (a.len && memcmp(a.buf, b.buf, a.len)))
		abort(); /* not deterministic */
	free(a.buf);
	free(b.buf);
	a = (struct sink){0};
	run(format, time, data + 1, size - 1, 1, &a);
	free(a.buf);
	return 0;
}
