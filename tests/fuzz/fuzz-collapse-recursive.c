/* libFuzzer target: any bytes as recursive input to ember collapse, with the
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
	o.format = "recursive";
	(void)mode;
	if (size >= 2)
		fuzz_collapse(&o, data + 2, size - 2, job);
	return 0;
}
