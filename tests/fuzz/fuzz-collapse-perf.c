/* libFuzzer target: any bytes as perf input to ember collapse, with the
 * options picked by the first bytes.
 * max_len: 8192
 */
#include "collapse-fuzz.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_collapse_options o;
	unsigned char mode = size ? data[0] : 0, job = size > 1 ? data[1] : 0;

	ember_collapse_options_init(&o);
	o.format = "perf";
	static const char *const skip[] = {"main", "[unknown]"};
	o.pid = mode & 1;
	o.tid = (mode >> 1) & 1;
	o.kernel = (mode >> 2) & 1;
	o.jit = (mode >> 3) & 1;
	o.addrs = (mode >> 4) & 1;
	o.event_filter = (mode >> 5) & 1 ? "cycles" : NULL;
	if ((mode >> 6) & 1) {
		o.skip_after = skip;
		o.nskip_after = 2;
	}
	o.srcline = (mode >> 7) & 1;
	/* the sample-level profile too: the same folded output */
	o.profile = (job >> 7) & 1;
	if (size >= 2) {
		/* the format is guessed from bytes that are not perf's: must
		 * not crash either */
		ember_collapse_guess((const char *)data + 2, size - 2);
		ember_collapse_is_folded((const char *)data + 2, size - 2);
		fuzz_collapse(&o, data + 2, size - 2, job);
	}
	return 0;
}
