/* perf --inline: inlined calls from DWARF with libdw (placeholder). */
#include <stdlib.h>

#include "collapse.h"

struct ember_inliner {
	int context;
};

struct ember_inliner *ember_inliner_new(int context)
{
	struct ember_inliner *in = ember_xcalloc(1, sizeof(*in));
	in->context = context;
	return in;
}

void ember_inliner_free(struct ember_inliner *in)
{
	free(in);
}

int ember_inliner_lookup(struct ember_inliner *in, const char *module,
			 size_t module_len, uint64_t addr, const char *sym,
			 size_t sym_len, struct ember_buf *out)
{
	return -1;
}
