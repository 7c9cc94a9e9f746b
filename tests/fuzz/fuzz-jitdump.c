/* libFuzzer target: any bytes as a jitdump, queried like the symbolizer
 * and the unwinder do, and walked with a stack taken from the input.
 * Must not crash, hang or leak. */
#include <stdlib.h>
#include <string.h>

#include "symbols/jitdump.h"
#include "unwind/unwind.h"

static const struct ember_unwind_mapping anon = {0, UINT64_MAX, 0, 0,
						 0, "//anon",	1};

static const struct ember_unwind_mapping *find(void *ctx, uint64_t a)
{
	(void)ctx;
	(void)a;
	return &anon;
}

/* Code memory: the input bytes, repeated. */
static size_t readmem(void *ctx, int pid, uint64_t a, void *buf, size_t n)
{
	const struct {
		const uint8_t *p;
		size_t n;
	} *in = ctx;
	(void)pid;
	for (size_t i = 0; i < n; i++)
		((uint8_t *)buf)[i] = in->n ? in->p[(a + i) % in->n] : 0;
	return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_jitdump *jd;
	struct {
		const uint8_t *p;
		size_t n;
	} in = {data, size};

	if (ember_jitdump_from_memory(data, size, &jd))
		return 0;
	size_t n = ember_jitdump_count(jd);
	uint8_t buf[64];
	for (size_t i = 0; i < n && i < 64; i++) {
		const struct ember_jit_code *c = ember_jitdump_get(jd, i);
		const char *file;
		int line;
		uint64_t mid = c->addr + c->size / 2;
		ember_jitdump_find(jd, mid, c->time);
		ember_jitdump_find(jd, c->addr, UINT64_MAX);
		ember_jitdump_line(c, mid, &file, &line);
		ember_jitdump_read_code(jd, c, c->addr, buf, sizeof(buf));
		ember_jitdump_read_code(jd, c, mid, buf, sizeof(buf));
	}
	if (ember_jitdump_update(jd) < 0)
		n = 0;

	/* walk: registers and stack from the input's tail */
	if (n && size >= 64) {
		struct ember_unwinder *u = ember_unwinder_new();
		const struct ember_jit_code *c = ember_jitdump_get(jd, 0);
		uint64_t stack[32], ips[64];
		size_t len =
		    size - 64 < sizeof(stack) ? size - 64 : sizeof(stack);
		int trunc;
		memset(stack, 0, sizeof(stack));
		memcpy(stack, data + 64, len);
		for (size_t i = 0; i < 32; i++)
			if ((stack[i] & 0xff) == 0x7f) /* into the JIT code */
				stack[i] = c->addr + (stack[i] >> 8) % 256;
		struct ember_unwind_regs regs = {
		    c->addr + data[0] % 64, 0x7ff000000000,
		    0x7ff000000000 + data[1] % 256};
		ember_unwinder_set_jitdump(u, 1, jd);
		ember_unwinder_set_reader(u, readmem, &in);
		for (int k = 0; k < 2; k++)
			ember_unwind(u, 1, &regs, (const uint8_t *)stack,
				     sizeof(stack), find, NULL, ips, 64,
				     &trunc);
		ember_unwinder_set_flags(u, EMBER_UNWIND_NO_PATTERNS);
		ember_unwind(u, 1, &regs, (const uint8_t *)stack, len, find,
			     NULL, ips, 64, &trunc);
		ember_unwinder_free(u);
	}
	ember_jitdump_free(jd);
	return 0;
}
