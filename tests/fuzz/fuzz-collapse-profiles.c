/* libFuzzer target: any bytes as input to the whole-input formats of ember
 * collapse (trace events, pprof, cpuprofile, speedscope), the format
 * picked by the first byte, fed whole and, read again, with a second
 * input after it.  Bad input must give EMBER_EFORMAT, never a crash, hang
 * or leak; the same input must give the same output twice.  With the
 * sample-level profile (another bit of the first byte) the readers fill
 * it too, and the pprof, speedscope and perf script writers write it.
 * max_len: 8192
 */
#include "collapse-fuzz.h"

static const char *const formats[] = {
    "chrome", "chrome-tracing", "cpuprofile", "speedscope", "pprof", NULL,
};

static int run(const char *format, int time, int profile,
	       const unsigned char *data, size_t size, int twice,
	       struct sink *out)
{
	struct ember_collapse_options o;
	struct ember_collapse *c;
	int err;

	ember_collapse_options_init(&o);
	o.format = format;
	o.time = time;
	o.profile = profile;
	o.threads = 1;
	if (ember_collapse_new(&c, &o))
		abort();
	err = ember_collapse_mem(c, "a", (const char *)data, size);
	if (!err && twice)
		err = ember_collapse_mem(c, "b", (const char *)data, size);
	if (err && err != EMBER_EFORMAT && err != EMBER_EEMPTY)
		abort();
	if (!err && ember_collapse_write(c, sink_write, out))
		abort();
	if (!err && profile) {
		struct ember_profile p;
		ember_collapse_profile(c, &p);
		/* weights pprof cannot hold are refused, not a crash */
		(void)!ember_pprof_write(&p, sink_write, out);
		if (ember_speedscope_write(&p, sink_write, out) ||
		    ember_perfscript_write(&p, sink_write, out))
			abort();
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
	int time = data[0] / nf & 1, profile = data[0] / nf >> 1 & 1;
	int e1 = run(format, time, profile, data + 1, size - 1, 0, &a);
	int e2 = run(format, time, profile, data + 1, size - 1, 0, &b);
	if (e1 != e2 || a.len != b.len ||
	    (a.len && memcmp(a.buf, b.buf, a.len)))
		abort(); /* not deterministic */
	free(a.buf);
	free(b.buf);
	a = (struct sink){0};
	run(format, time, profile, data + 1, size - 1, 1, &a);
	free(a.buf);
	return 0;
}
