/* libFuzzer target: any bytes as .eh_frame + .eh_frame_hdr, as an ELF
 * image, or as a DWARF expression, looked up at the FDEs' addresses and
 * around them.  Must not crash, hang or leak. */
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind-cfi.h"

struct ranges {
	uint64_t s[16], e[16];
	int n;
};

static int collect(void *ctx, uint64_t s, uint64_t e)
{
	struct ranges *r = ctx;
	r->s[r->n] = s;
	r->e[r->n] = e;
	return ++r->n == 16;
}

static void lookups(const struct ember_cfi *c, const uint8_t *p, size_t n)
{
	struct ranges r = {.n = 0};
	struct ember_cfi_rule rule;
	uint64_t s, e;

	ember_cfi_each_fde(c, collect, &r);
	for (int i = 0; i < r.n; i++) {
		uint64_t pcs[3] = {r.s[i], r.s[i] + (r.e[i] - r.s[i]) / 2,
				   r.e[i] - 1};
		for (int k = 0; k < 3; k++)
			ember_cfi_rule(c, pcs[k], pcs[k], &rule, &s, &e);
	}
	for (size_t i = 0; i + 8 <= n && i < 64; i += 8) {
		uint64_t pc;
		memcpy(&pc, p + i, 8);
		ember_cfi_rule(c, pc, pc, &rule, &s, &e);
		ember_cfi_rule(c, c->eh_addr + (pc & 0xffff), pc, &rule, &s,
			       &e);
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);
int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct ember_cfi c;
	struct ember_dwval init = {EMBER_DW_CFA, 0, 0}, out;

	if (size < 3)
		return 0;
	uint8_t mode = data[0];
	size_t split = (size_t)(data[1] | data[2] << 8) % (size - 2);
	/* copies, so that ASan sees reads past the end */
	uint8_t *eh = malloc(split ? split : 1);
	uint8_t *hdr = malloc(size - 3 - split ? size - 3 - split : 1);
	memcpy(eh, data + 3, split);
	memcpy(hdr, data + 3 + split, size - 3 - split);

	switch (mode & 3) {
	case 0:
	case 1: /* .eh_frame, then its header right after it */
		ember_cfi_init(&c, eh, split, 0x10000, hdr, size - 3 - split,
			       0x10000 + split,
			       (mode & 1) ? EMBER_CFI_NOINDEX : 0);
		lookups(&c, data, size);
		ember_cfi_release(&c);
		break;
	case 2: { /* an ELF image */
		struct ember_uw_elf e;
		uint8_t *img = malloc(size - 3 ? size - 3 : 1);
		memcpy(img, data + 3, size - 3);
		if (!ember_uw_elf_mem(&e, img, size - 3)) {
			uint64_t svma;
			if (e.has_cfi)
				lookups(&e.cfi, data, size);
			ember_uw_elf_svma(&e, split, &svma);
			ember_uw_elf_release(&e);
		}
		free(img);
		break;
	}
	case 3: /* a DWARF expression */
		ember_dwarf_expr(eh, split, 0x1234, (mode & 4) ? &init : NULL,
				 &out);
		ember_dwarf_expr(hdr, size - 3 - split, 0x1234, &init, &out);
		break;
	}
	free(eh);
	free(hdr);
	return 0;
}
