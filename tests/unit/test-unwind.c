/* Unit tests of the unwinder: the CFI interpreter on crafted and real
 * .eh_frame, walks over synthetic stacks (every rule kind, fallback and
 * validation), and walks of this process's own stack through functions
 * without frame pointers and through libc's qsort. */
#include <stdint.h>
#include <zlib.h>

#include "harness.h"
#include "unwind/unwind-cfi.h"
#include "unwind-helpers.h"

/* ---- the CFI interpreter on crafted sections ---- */

static int rule_at(const struct bytes *eh, uint64_t base, uint64_t pc,
		   uint64_t rip, struct ember_cfi_rule *r)
{
	struct ember_cfi c;
	ember_cfi_init(&c, eh->b, eh->n, base, NULL, 0, 0, 0);
	int err = ember_cfi_rule(&c, pc, rip, r, NULL, NULL);
	ember_cfi_release(&c);
	return err;
}

static void test_cfi_basic(void)
{
	/* push %rbp at +0, push %rbx at +1, body from +2; an epilogue with
	 * remember/restore_state at +0x20 */
	static const uint8_t ins[] = {
	    0x41, 0x0e, 0x10, 0x86, 0x02, /* +1: cfa 16, rbp at cfa-16 */
	    0x41, 0x0e, 0x18, 0x83, 0x03, /* +2: cfa 24, rbx */
	    0x5e, 0x0a, 0x0e, 0x08,	  /* +0x20: remember; cfa 8 */
	    0x41, 0x0b,			  /* +0x21: restore */
	};
	struct bytes eh = {0};
	struct ember_cfi_rule r;
	uint64_t base = 0x2000, f = 0x1000;

	eh_add(&eh, base, "zR", f, 0x40, ins, sizeof(ins));
	CHECK(rule_at(&eh, base, f, f, &r) == 0);
	CHECK(r.kind == EMBER_RULE_CFA && r.cfa == EMBER_CFA_SP &&
	      r.cfa_off == 8 && r.ra == EMBER_LOC_CFA && r.ra_off == -8 &&
	      r.bp == EMBER_LOC_SAME);
	CHECK(rule_at(&eh, base, f + 1, f + 1, &r) == 0);
	CHECK(r.cfa_off == 16 && r.bp == EMBER_LOC_CFA && r.bp_off == -16);
	CHECK(rule_at(&eh, base, f + 0x1f, f + 0x1f, &r) == 0);
	CHECK(r.cfa_off == 24 && r.bp_off == -16);
	CHECK(rule_at(&eh, base, f + 0x20, f + 0x20, &r) == 0);
	CHECK(r.cfa_off == 8);
	CHECK(rule_at(&eh, base, f + 0x21, f + 0x21, &r) == 0);
	CHECK(r.cfa_off == 24); /* restore_state brings the CFA back */
	CHECK(rule_at(&eh, base, f + 0x40, f + 0x40, &r) == EMBER_ENOENT);
	CHECK(rule_at(&eh, base, f - 1, f - 1, &r) == EMBER_ENOENT);
	free(eh.b);
}

static void test_cfi_expressions(void)
{
	/* the .plt: CFA = rsp + 8 + ((rip & 15) >= 11 ? 8 : 0) */
	static const uint8_t plt[] = {0x0f, 0x0b, 0x77, 0x08, 0x80, 0x00, 0x3f,
				      0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
	/* glibc's __restore_rt: CFA = [rsp + 160], rip at rsp + 168, rbp at
	 * rsp + 120 */
	static const uint8_t sig[] = {0x0f, 0x04, 0x77, 0xa0, 0x01, 0x06,
				      0x10, 0x10, 0x03, 0x77, 0xa8, 0x01,
				      0x10, 0x06, 0x03, 0x77, 0xf8, 0x00};
	/* a stack-realigning prologue: CFA = [rbp - 8] */
	static const uint8_t realign[] = {0x0f, 0x03, 0x76, 0x78, 0x06};
	/* CFA in r10: not expressible */
	static const uint8_t r10[] = {0x0c, 0x0a, 0x00};
	/* return address undefined: the outermost frame */
	static const uint8_t outer[] = {0x07, 0x10};
	struct bytes eh = {0};
	struct ember_cfi_rule r;
	uint64_t base = 0x9000;

	eh_add(&eh, base, "zR", 0x1000, 0x100, plt, sizeof(plt));
	eh_add(&eh, base, "zRS", 0x2000, 0x10, sig, sizeof(sig));
	eh_add(&eh, base, "zR", 0x3000, 0x10, realign, sizeof(realign));
	eh_add(&eh, base, "zR", 0x4000, 0x10, r10, sizeof(r10));
	eh_add(&eh, base, "zR", 0x5000, 0x10, outer, sizeof(outer));
	CHECK(rule_at(&eh, base, 0x1010, 0x1010, &r) == 0);
	CHECK(r.cfa == EMBER_CFA_SP && r.cfa_off == 8);
	CHECK(rule_at(&eh, base, 0x101b, 0x101b, &r) == 0);
	CHECK(r.cfa == EMBER_CFA_SP && r.cfa_off == 16);
	CHECK(rule_at(&eh, base, 0x2004, 0x2004, &r) == 0);
	CHECK(r.cfa == (EMBER_CFA_SP | EMBER_CFA_DEREF) && r.cfa_off == 160 &&
	      r.ra == EMBER_LOC_SP && r.ra_off == 168 && r.bp == EMBER_LOC_SP &&
	      r.bp_off == 120 && r.signal);
	CHECK(rule_at(&eh, base, 0x3004, 0x3004, &r) == 0);
	CHECK(r.cfa == (EMBER_CFA_BP | EMBER_CFA_DEREF) && r.cfa_off == -8);
	CHECK(rule_at(&eh, base, 0x4004, 0x4004, &r) == EMBER_ENOTSUP);
	CHECK(rule_at(&eh, base, 0x5004, 0x5004, &r) == 0);
	CHECK(r.kind == EMBER_RULE_END);
	free(eh.b);
}

/* An .eh_frame_hdr for eh (at eh_addr) placed at hdr_addr. */
static void make_hdr(struct bytes *hdr, const struct bytes *eh,
		     uint64_t eh_addr, uint64_t hdr_addr, const uint64_t *pcs,
		     const uint64_t *fdes, size_t n)
{
	put8(hdr, 1);
	put8(hdr, 0x1b);
	put8(hdr, 0x03);
	put8(hdr, 0x3b);
	put32(hdr, (uint32_t)(eh_addr - (hdr_addr + 4)));
	put32(hdr, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		put32(hdr, (uint32_t)(pcs[i] - hdr_addr));
		put32(hdr, (uint32_t)(eh_addr + fdes[i] - hdr_addr));
	}
	(void)eh;
}

static int count_fde(void *ctx, uint64_t s, uint64_t e)
{
	(void)s;
	(void)e;
	++*(int *)ctx;
	return 0;
}

static void test_cfi_index(void)
{
	static const uint8_t a[] = {0x0e, 0x10}, b[] = {0x0e, 0x20};
	struct bytes eh = {0}, hdr = {0};
	struct ember_cfi c;
	struct ember_cfi_rule r;
	uint64_t base = 0x10000, hbase = 0x20000, fdes[2], pcs[2];
	size_t fb, fa;
	int n = 0;

	/* FDEs out of address order: the scan must sort them */
	fb = eh_add(&eh, base, "zR", 0x3000, 0x100, b, sizeof(b));
	fa = eh_add(&eh, base, "zR", 0x1000, 0x100, a, sizeof(a));
	ember_cfi_init(&c, eh.b, eh.n, base, NULL, 0, 0, 0);
	CHECK(c.own_n == 2 && !c.tab);
	CHECK(ember_cfi_rule(&c, 0x1050, 0x1050, &r, NULL, NULL) == 0 &&
	      r.cfa_off == 16);
	CHECK(ember_cfi_rule(&c, 0x3050, 0x3050, &r, NULL, NULL) == 0 &&
	      r.cfa_off == 32);
	CHECK(ember_cfi_rule(&c, 0x2050, 0x2050, &r, NULL, NULL) ==
	      EMBER_ENOENT);
	CHECK(ember_cfi_each_fde(&c, count_fde, &n) == 2 && n == 2);
	ember_cfi_release(&c);
	/* the same through a header table, and a linear scan */
	pcs[0] = 0x1000;
	fdes[0] = fa;
	pcs[1] = 0x3000;
	fdes[1] = fb;
	make_hdr(&hdr, &eh, base, hbase, pcs, fdes, 2);
	ember_cfi_init(&c, eh.b, eh.n, base, hdr.b, hdr.n, hbase, 0);
	CHECK(c.tab && c.tab_n == 2 && !c.own);
	CHECK(ember_cfi_rule(&c, 0x1050, 0x1050, &r, NULL, NULL) == 0 &&
	      r.cfa_off == 16);
	CHECK(ember_cfi_rule(&c, 0x30ff, 0x30ff, &r, NULL, NULL) == 0 &&
	      r.cfa_off == 32);
	CHECK(ember_cfi_rule(&c, 0x0fff, 0x0fff, &r, NULL, NULL) ==
	      EMBER_ENOENT);
	ember_cfi_release(&c);
	ember_cfi_init(&c, eh.b, eh.n, base, NULL, 0, 0, EMBER_CFI_NOINDEX);
	CHECK(!c.tab && !c.own);
	CHECK(ember_cfi_rule(&c, 0x3050, 0x3050, &r, NULL, NULL) == 0 &&
	      r.cfa_off == 32);
	ember_cfi_release(&c);
	free(eh.b);
	free(hdr.b);
}

/* Every truncation and every single-byte change of a valid section must
 * give a rule or an error, never a crash (ASan checks the reads). */
static void test_cfi_corrupt(void)
{
	static const uint8_t ins[] = {0x41, 0x0e, 0x10, 0x86, 0x02, 0x0a,
				      0x0f, 0x03, 0x76, 0x78, 0x06, 0x0b};
	struct bytes eh = {0};
	struct ember_cfi_rule r;
	int ok = 0, bad = 0;

	eh_add(&eh, 0x2000, "zR", 0x1000, 0x40, ins, sizeof(ins));
	for (size_t len = 0; len <= eh.n; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		memcpy(copy, eh.b, len);
		struct bytes t = {copy, len, len};
		int err = rule_at(&t, 0x2000, 0x1002, 0x1002, &r);
		if (len < eh.n)
			CHECK(err != 0);
		free(copy);
	}
	for (size_t i = 0; i < eh.n; i++) {
		for (int v = 0; v < 256; v += 7) {
			uint8_t keep = eh.b[i];
			eh.b[i] = (uint8_t)v;
			if (rule_at(&eh, 0x2000, 0x1002, 0x1002, &r) == 0)
				ok++;
			else
				bad++;
			eh.b[i] = keep;
		}
	}
	CHECK(ok > 0 && bad > 0);
	/* a CIE pointer before the section, an absurd length */
	set32(&eh, 0x1c, 0x7fffffff);
	CHECK(rule_at(&eh, 0x2000, 0x1002, 0x1002, &r) != 0);
	set32(&eh, 0x18, 0xfffffff0);
	CHECK(rule_at(&eh, 0x2000, 0x1002, 0x1002, &r) != 0);
	free(eh.b);
}

/* Every FDE of real libraries evaluates, at its start and middle. */
struct real_ctx {
	const struct ember_cfi *c;
	size_t n, bad;
};

static int eval_fde(void *ctx, uint64_t s, uint64_t e)
{
	struct real_ctx *r = ctx;
	struct ember_cfi_rule rule;
	int err = ember_cfi_rule(r->c, s, s, &rule, NULL, NULL);
	int err2 = ember_cfi_rule(r->c, s + (e - s) / 2, s, &rule, NULL, NULL);

	r->n++;
	/* ENOTSUP is fine (CFA in another register, as in longjmp) */
	if (e > s && (err == EMBER_EFORMAT || err == EMBER_ENOENT ||
		      err2 == EMBER_EFORMAT || err2 == EMBER_ENOENT))
		r->bad++;
	return 0;
}

static void test_cfi_real(void)
{
	/* libstdc++'s CIEs are "zPLR" (personality, LSDA) */
	static const char *libs[] = {
	    "/proc/self/exe", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	    "/usr/lib/x86_64-linux-gnu/libstdc++.so.6"};
	for (size_t i = 0; i < ARRAY_SIZE(libs); i++) {
		struct ember_uw_elf e;
		int fd = open(libs[i], O_RDONLY);
		if (fd < 0)
			continue;
		CHECK(ember_uw_elf_open(&e, fd) == 0);
		close(fd);
		CHECK(e.has_cfi && e.cfi.tab);
		struct real_ctx r = {&e.cfi, 0, 0};
		ember_cfi_each_fde(&e.cfi, eval_fde, &r);
		CHECK(r.n > 10 && r.bad == 0);
		ember_uw_elf_release(&e);
	}
}

/* ---- .debug_frame ---- */

/* Appends a .debug_frame CIE as Go writes it (version 3, no
 * augmentation, code alignment 1, data alignment -4, CFA = rsp + 8, ra at
 * CFA - 8), in 64-bit DWARF if dw64; returns its offset. */
static size_t dbg_cie(struct bytes *o, int dw64)
{
	static const uint8_t init[] = {0x0c, 0x07, 0x08, 0x90, 0x02};
	size_t at = o->n;

	if (dw64) {
		put32(o, 0xffffffffu);
		put64(o, 0);
		put64(o, UINT64_MAX);
	} else {
		put32(o, 0);
		put32(o, 0xffffffffu);
	}
	put8(o, 3);
	put8(o, 0);    /* augmentation "" */
	put8(o, 1);    /* code alignment */
	put8(o, 0x7c); /* data alignment -4 */
	put8(o, 16);   /* return address column (uleb in version 3) */
	put(o, init, sizeof(init));
	while ((o->n - at) % 8)
		put8(o, 0);
	if (dw64)
		memcpy(o->b + at + 4, &(uint64_t){o->n - at - 12}, 8);
	else
		set32(o, at, (uint32_t)(o->n - at - 4));
	return at;
}

/* An FDE for [start, start + size) of the CIE at offset cie, its
 * addresses absolute, as .debug_frame has them. */
static void dbg_fde(struct bytes *o, size_t cie, int dw64, uint64_t start,
		    uint64_t size, const uint8_t *ins, size_t nins)
{
	size_t at = o->n;

	if (dw64) {
		put32(o, 0xffffffffu);
		put64(o, 0);
		put64(o, cie);
	} else {
		put32(o, 0);
		put32(o, (uint32_t)cie);
	}
	put64(o, start);
	put64(o, size);
	put(o, ins, nins);
	while ((o->n - at) % 8)
		put8(o, 0);
	if (dw64)
		memcpy(o->b + at + 4, &(uint64_t){o->n - at - 12}, 8);
	else
		set32(o, at, (uint32_t)(o->n - at - 4));
}

/* Go's sha256 block: a 544-byte frame from +4 to +0x30 */
static const uint8_t go_ins[] = {
    0x44,	      /* advance 4 */
    0x13, 0xf8, 0x7e, /* def_cfa_offset_sf -136: CFA = rsp + 544 */
    0x6c,	      /* advance 0x2c */
    0x13, 0x7e,	      /* def_cfa_offset_sf -2: CFA = rsp + 8 */
};

/* The .debug_frame of test_debug_frame: a 32-bit and a 64-bit CIE, and
 * FDEs at 0x401000 (go_ins), 0x402000 (64-bit) and 0x403000 (its CIE
 * pointer leads past the section). */
static void debug_frame_bytes(struct bytes *d)
{
	static const uint8_t leaf[] = {0};
	size_t c32 = dbg_cie(d, 0);
	dbg_fde(d, c32, 0, 0x401000, 0x40, go_ins, sizeof(go_ins));
	size_t c64 = dbg_cie(d, 1);
	dbg_fde(d, c64, 1, 0x402000, 0x10, go_ins, sizeof(go_ins));
	dbg_fde(d, 0x7fff0, 0, 0x403000, 0x10, leaf, sizeof(leaf));
}

static int dbg_rule_at(const struct bytes *d, uint64_t pc,
		       struct ember_cfi_rule *r)
{
	struct ember_cfi c;
	ember_cfi_init(&c, d->b, d->n, 0, NULL, 0, 0, EMBER_CFI_DEBUG_FRAME);
	int err = ember_cfi_rule(&c, pc, pc, r, NULL, NULL);
	ember_cfi_release(&c);
	return err;
}

/* A minimal x86-64 ELF image holding a .debug_frame section (name sec,
 * flags; data d as is), a .symtab naming runtime.goexit.abi0 at
 * [0x401000, 0x401040) and, if go, an empty .gopclntab. */
static void elf_with(struct bytes *img, const char *sec, uint64_t flags,
		     const struct bytes *d, int go)
{
	static const char strtab[] = "\0runtime.goexit.abi0";
	struct bytes names = {0};
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	Elf64_Sym syms[2];
	Elf64_Shdr sh[6];
	size_t off[6] = {0}, nm[6] = {0};
	const char *secnames[6] = {"",	      sec,	   ".symtab",
				   ".strtab", ".shstrtab", ".gopclntab"};
	int nsec = go ? 6 : 5;

	put8(&names, 0);
	for (int i = 1; i < nsec; i++) {
		nm[i] = names.n;
		put(&names, secnames[i], strlen(secnames[i]) + 1);
	}
	memset(syms, 0, sizeof(syms));
	syms[1].st_name = 1;
	syms[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	syms[1].st_value = 0x401000;
	syms[1].st_size = 0x40;
	img->n = 0;
	put(img, &(Elf64_Ehdr){0}, sizeof(eh));
	put(img, &(Elf64_Phdr){0}, sizeof(ph));
	off[1] = img->n;
	put(img, d->b, d->n);
	off[2] = img->n;
	put(img, syms, sizeof(syms));
	off[3] = img->n;
	put(img, strtab, sizeof(strtab));
	off[4] = img->n;
	put(img, names.b, names.n);
	off[5] = img->n;
	while (img->n % 8)
		put8(img, 0);
	memset(sh, 0, sizeof(sh));
	for (int i = 1; i < nsec; i++) {
		sh[i].sh_name = (uint32_t)nm[i];
		sh[i].sh_offset = off[i];
		sh[i].sh_type = SHT_PROGBITS;
	}
	sh[1].sh_size = d->n;
	sh[1].sh_flags = flags;
	sh[2].sh_type = SHT_SYMTAB;
	sh[2].sh_size = sizeof(syms);
	sh[2].sh_link = 3;
	sh[2].sh_entsize = sizeof(Elf64_Sym);
	sh[3].sh_type = SHT_STRTAB;
	sh[3].sh_size = sizeof(strtab);
	sh[4].sh_type = SHT_STRTAB;
	sh[4].sh_size = names.n;
	size_t shoff = img->n;
	put(img, sh, (size_t)nsec * sizeof(*sh));
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)nsec;
	eh.e_shstrndx = 4;
	memcpy(img->b, &eh, sizeof(eh));
	memset(&ph, 0, sizeof(ph));
	ph.p_type = PT_LOAD;
	ph.p_flags = PF_R | PF_X;
	ph.p_vaddr = 0x400000;
	ph.p_filesz = ph.p_memsz = 0x10000;
	memcpy(img->b + sizeof(eh), &ph, sizeof(ph));
	free(names.b);
}

/* .debug_frame as Go writes it, compressed both ways. */
static void elf_debug_frame(const struct bytes *d, const char *how,
			    uint64_t *rule_off, int *is_root)
{
	struct bytes sec = {0}, img = {0};
	struct ember_uw_elf e;
	struct ember_cfi_rule r;
	uLongf zn = compressBound(d->n);
	uint8_t *z = malloc(zn);

	*rule_off = 0;
	*is_root = -1;
	CHECK(compress(z, &zn, d->b, d->n) == Z_OK);
	if (!strcmp(how, "plain")) {
		put(&sec, d->b, d->n);
		elf_with(&img, ".debug_frame", 0, &sec, 1);
	} else if (!strcmp(how, "SHF_COMPRESSED")) {
		Elf64_Chdr ch = {ELFCOMPRESS_ZLIB, 0, d->n, 1};
		put(&sec, &ch, sizeof(ch));
		put(&sec, z, zn);
		elf_with(&img, ".debug_frame", SHF_COMPRESSED, &sec, 1);
	} else if (!strcmp(how, "zdebug")) {
		put(&sec, "ZLIB", 4);
		for (int i = 7; i >= 0; i--)
			put8(&sec, (uint8_t)(d->n >> (8 * i)));
		put(&sec, z, zn);
		elf_with(&img, ".zdebug_frame", 0, &sec, 1);
	} else { /* not a Go program: no roots */
		put(&sec, d->b, d->n);
		elf_with(&img, ".debug_frame", 0, &sec, 0);
	}
	if (ember_uw_elf_mem(&e, img.b, img.n) == 0) {
		CHECK(e.has_dcfi && !e.has_cfi);
		if (!ember_uw_elf_rule(&e, 0x401010, 0x401010, &r))
			*rule_off = (uint64_t)r.cfa_off;
		*is_root = ember_uw_elf_is_root(&e, 0x401010);
		CHECK(!ember_uw_elf_is_root(&e, 0x401040));
		ember_uw_elf_release(&e);
	} else {
		CHECK(!"ember_uw_elf_mem failed");
	}
	free(z);
	free(sec.b);
	free(img.b);
}

static void test_debug_frame(void)
{
	struct bytes d = {0};
	struct ember_cfi_rule r;
	uint64_t off;
	int root, n = 0;

	debug_frame_bytes(&d);
	CHECK(dbg_rule_at(&d, 0x401000, &r) == 0);
	CHECK(r.kind == EMBER_RULE_CFA && r.cfa == EMBER_CFA_SP &&
	      r.cfa_off == 8 && r.ra == EMBER_LOC_CFA && r.ra_off == -8);
	CHECK(dbg_rule_at(&d, 0x401004, &r) == 0 && r.cfa_off == 544);
	CHECK(dbg_rule_at(&d, 0x40102f, &r) == 0 && r.cfa_off == 544);
	CHECK(dbg_rule_at(&d, 0x401030, &r) == 0 && r.cfa_off == 8);
	CHECK(dbg_rule_at(&d, 0x401040, &r) == EMBER_ENOENT);
	/* 64-bit DWARF */
	CHECK(dbg_rule_at(&d, 0x402008, &r) == 0 && r.cfa_off == 544);
	/* a CIE pointer past the section: no FDE */
	CHECK(dbg_rule_at(&d, 0x403004, &r) == EMBER_ENOENT);
	/* read as .eh_frame, the same bytes are not CFI */
	CHECK(rule_at(&d, 0, 0x401004, 0x401004, &r) != 0);
	struct ember_cfi c;
	ember_cfi_init(&c, d.b, d.n, 0, NULL, 0, 0, EMBER_CFI_DEBUG_FRAME);
	CHECK(ember_cfi_each_fde(&c, count_fde, &n) == 2 && n == 2);
	ember_cfi_release(&c);
	/* every cut of it is only ever less CFI */
	for (size_t cut = 0; cut < d.n; cut++) {
		ember_cfi_init(&c, d.b, cut, 0, NULL, 0, 0,
			       EMBER_CFI_DEBUG_FRAME);
		ember_cfi_rule(&c, 0x401004, 0x401004, &r, NULL, NULL);
		ember_cfi_release(&c);
	}
	/* in an ELF file: as it is, compressed, the older .zdebug_frame */
	static const char *const hows[] = {"plain", "SHF_COMPRESSED", "zdebug"};
	for (size_t i = 0; i < ARRAY_SIZE(hows); i++) {
		elf_debug_frame(&d, hows[i], &off, &root);
		CHECK(off == 544);
		CHECK(root == 2);
	}
	elf_debug_frame(&d, "not go", &off, &root);
	CHECK(off == 544 && root == 0);
	free(d.b);
}

/* ---- walks over a synthetic process ---- */

#define SP0  0x7ff000000000ull
#define JIT  0x100000ull
#define CODE 0x150000ull /* code bytes the fake reader returns */

static struct ember_unwind_mapping fake_maps[] = {
    {JIT, 0x200000, 0, 0, 0, "//anon", 1},
    {0x300000, 0x400000, 0, 0, 0, "//anon", 0},
};

static const struct ember_unwind_mapping *fake_find(void *ctx, uint64_t a)
{
	(void)ctx;
	for (size_t i = 0; i < ARRAY_SIZE(fake_maps); i++)
		if (a >= fake_maps[i].start && a < fake_maps[i].end)
			return &fake_maps[i];
	return NULL;
}

static uint8_t fake_code[256];

/* The JIT mapping's bytes: zeros, but fake_code at CODE. */
static size_t fake_read(void *ctx, int pid, uint64_t a, void *buf, size_t n)
{
	(void)ctx;
	(void)pid;
	if (a < JIT || a >= 0x200000)
		return 0;
	if (n > 0x200000 - a)
		n = (size_t)(0x200000 - a);
	for (size_t i = 0; i < n; i++)
		((uint8_t *)buf)[i] =
		    a + i >= CODE && a + i < CODE + sizeof(fake_code)
			? fake_code[a + i - CODE]
			: 0;
	return n;
}

/* jitted functions with CFI */
#define F_LEAF	 (JIT + 0x000) /* from +4: CFA sp+16, rbp saved at CFA-16 */
#define F_OUTER	 (JIT + 0x100) /* return address undefined */
#define F_STUCK	 (JIT + 0x200) /* CFA = sp, ra at [sp]: never advances */
#define F_MID	 (JIT + 0x300) /* CFA = sp+8 */
#define F_BP	 (JIT + 0x400) /* CFA = rbp+16 */
#define F_EPI	 (JIT + 0x500) /* CFA = sp+8, rbp "saved" at CFA-16 */
#define F_SAVEBX (JIT + 0x600) /* CFA = sp+16, rbx saved at CFA-16 */
#define F_BXCFA	 (JIT + 0x700) /* CFA = rbx+16 (_dl_runtime_resolve's) */

static struct ember_jitdump *fake_jitdump(void)
{
	static const uint8_t leaf[] = {0x44, 0x0e, 0x10, 0x86, 0x02};
	static const uint8_t outer[] = {0x07, 0x10};
	static const uint8_t stuck[] = {0x0e, 0x00, 0x11, 0x10, 0x00};
	static const uint8_t bp[] = {0x0c, 0x06, 0x10, 0x86, 0x02};
	static const uint8_t epi[] = {0x86, 0x02};
	static const uint8_t savebx[] = {0x0e, 0x10, 0x83, 0x02};
	static const uint8_t bxcfa[] = {0x0c, 0x03, 0x10};
	static const struct {
		uint64_t addr;
		const uint8_t *ins;
		size_t n;
		const char *name;
	} fn[] = {
	    {F_LEAF, leaf, sizeof(leaf), "leaf"},
	    {F_OUTER, outer, sizeof(outer), "outer"},
	    {F_STUCK, stuck, sizeof(stuck), "stuck"},
	    {F_MID, NULL, 0, "mid"},
	    {F_BP, bp, sizeof(bp), "bp"},
	    {F_EPI, epi, sizeof(epi), "epilogue"},
	    {F_SAVEBX, savebx, sizeof(savebx), "savebx"},
	    {F_BXCFA, bxcfa, sizeof(bxcfa), "bxcfa"},
	};
	struct bytes d = {0}, eh = {0};
	struct ember_jitdump *jd;

	jd_header(&d, 42);
	for (size_t i = 0; i < ARRAY_SIZE(fn); i++) {
		jd_eh_for(&eh, fn[i].addr, 0x40, "zR", fn[i].ins, fn[i].n);
		jd_unwind(&d, 2000 + i, &eh);
		jd_load(&d, 2000 + i, fn[i].addr, 0x40, i, fn[i].name, NULL);
	}
	CHECK(ember_jitdump_from_memory(d.b, d.n, &jd) == 0);
	free(d.b);
	free(eh.b);
	return jd;
}

struct walk {
	uint64_t ips[16];
	size_t n;
	int trunc;
};

static void walk(struct ember_unwinder *u, uint64_t ip, uint64_t bp,
		 const uint64_t *stk, size_t len, size_t max, struct walk *w)
{
	struct ember_unwind_regs regs = {ip, SP0, bp};
	w->n = ember_unwind(u, 42, &regs, (const uint8_t *)stk, len, fake_find,
			    NULL, w->ips, max, &w->trunc);
}

/* A CFA in rbx, whose value the frame below saved and clobbered: the
 * sampled rbx and its restore rule are needed (_dl_runtime_resolve). */
static void test_walk_callee_saved(void)
{
	struct ember_unwinder *u = ember_unwinder_new();
	struct ember_jitdump *jd = fake_jitdump();
	struct ember_unwind_regs regs = {
	    F_SAVEBX + 8, SP0, 0, 0xdead, 0, 0, 0, 0};
	uint64_t stk[16], ips[8];
	int trunc;

	ember_unwinder_set_reader(u, fake_read, NULL);
	ember_unwinder_set_jitdump(u, 42, jd);
	memset(stk, 0, sizeof(stk));
	stk[0] = SP0 + 32;    /* the caller's rbx, saved by savebx */
	stk[1] = F_BXCFA + 5; /* savebx's return address */
	stk[5] = F_OUTER + 5; /* bxcfa's: at rbx + 16 - 8 */
	size_t n = ember_unwind(u, 42, &regs, (const uint8_t *)stk, sizeof(stk),
				fake_find, NULL, ips, 8, &trunc);
	CHECK(n == 3 && !trunc && ips[1] == F_BXCFA + 5 &&
	      ips[2] == F_OUTER + 5);
	/* rbx as it was in bxcfa, never restored: the walk cannot go on */
	stk[0] = 0;
	n = ember_unwind(u, 42, &regs, (const uint8_t *)stk, sizeof(stk),
			 fake_find, NULL, ips, 8, &trunc);
	CHECK(n == 2 && trunc);

	struct bytes eh = {0};
	struct ember_cfi_rule r;
	static const uint8_t ins[] = {0x0c, 0x03, 0x10, 0x8c, 0x03};
	eh_add(&eh, 0x9000, "zR", 0x1000, 0x10, ins, sizeof(ins));
	CHECK(rule_at(&eh, 0x9000, 0x1004, 0x1004, &r) == 0);
	CHECK(r.cfa == EMBER_CFA_BX && r.cfa_off == 16 &&
	      r.save[EMBER_SAVE_R12] == EMBER_LOC_CFA &&
	      r.save_off[EMBER_SAVE_R12] == -24 &&
	      r.save[EMBER_SAVE_BX] == EMBER_LOC_SAME);
	free(eh.b);
	ember_unwinder_free(u);
	ember_jitdump_free(jd);
}

static void test_walk_synthetic(void)
{
	struct ember_unwinder *u = ember_unwinder_new();
	struct ember_jitdump *jd = fake_jitdump();
	const struct ember_unwind_stats *st = ember_unwinder_stats(u);
	uint64_t stk[16];
	struct walk w;

	ember_unwinder_set_reader(u, fake_read, NULL);
	ember_unwinder_set_jitdump(u, 42, jd);

	/* CFA rules from jitdump CFI, ending at an undefined RA */
	memset(stk, 0, sizeof(stk));
	stk[0] = 0xb0b0;
	stk[1] = F_OUTER + 5;
	walk(u, F_LEAF + 0x10, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[0] == F_LEAF + 0x10 &&
	      w.ips[1] == F_OUTER + 5);
	CHECK(st->by_src[EMBER_SRC_JIT] == 1);
	uint64_t hits = st->cache_hits;
	walk(u, F_LEAF + 0x10, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && st->cache_hits == hits + 2);
	ember_unwinder_invalidate(u, 42);
	walk(u, F_LEAF + 0x10, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && st->cache_hits == hits + 2);

	/* at the function's first byte, before the push */
	stk[0] = F_OUTER + 5;
	walk(u, F_LEAF, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);

	/* the stack pointer does not move: stop, keep what was found */
	stk[0] = F_MID + 9;
	walk(u, F_STUCK + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_sp == 1);

	/* return address outside executable memory: never reported */
	stk[0] = 0x300010;
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_no_exec == 1);
	stk[0] = 0x12345678;
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_no_exec == 2);

	/* a zero return address ends the stack */
	stk[0] = 0;
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && !w.trunc);

	/* stack copy too short for the return address */
	stk[0] = F_OUTER + 5;
	walk(u, F_MID + 8, 1, stk, 4, 16, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_stack == 1);
	walk(u, F_MID + 8, 1, NULL, 0, 16, &w);
	CHECK(w.n == 1 && w.trunc);

	/* max frames */
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 1, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_max == 1);

	/* CFA from rbp */
	memset(stk, 0, sizeof(stk));
	stk[2] = 0xdead0;
	stk[3] = F_OUTER + 5;
	walk(u, F_BP + 0x10, SP0 + 16, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);

	/* at a ret after pop %rbp: the CFI still names the old slot, below
	 * sp now; rbp already holds the caller's value */
	memset(stk, 0, sizeof(stk));
	stk[0] = F_BP + 0x11;
	stk[2] = 0xdead0;
	stk[3] = F_OUTER + 5;
	walk(u, F_EPI + 0x10, SP0 + 16, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 3 && !w.trunc && w.ips[1] == F_BP + 0x11 &&
	      w.ips[2] == F_OUTER + 5);

	/* the sampled ip outside any mapping: reported, then stop */
	walk(u, 0x5000, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.ips[0] == 0x5000 && w.trunc);

	ember_unwinder_free(u);
	ember_jitdump_free(jd);
}

static void test_walk_fallbacks(void)
{
	struct ember_unwinder *u = ember_unwinder_new();
	struct ember_jitdump *jd = fake_jitdump();
	const struct ember_unwind_stats *st = ember_unwinder_stats(u);
	static const uint8_t tramp[] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
					0x48, 0x83, 0xc4, 0x08, 0xc3};
	uint64_t stk[16], anon = 0x180000;
	struct walk w;

	ember_unwinder_set_reader(u, fake_read, NULL);
	ember_unwinder_set_jitdump(u, 42, jd);
	memset(fake_code, 0x90, sizeof(fake_code));
	memcpy(fake_code, tramp, sizeof(tramp));
	memcpy(fake_code + 0x40, "\x55\x48\x89\xe5", 4);
	fake_code[0x50] = 0xc3;

	/* frame-pointer chain through code without CFI, ended by RA 0 */
	memset(stk, 0, sizeof(stk));
	stk[1] = SP0 + 32; /* saved rbp */
	stk[2] = anon + 0x105;
	walk(u, anon + 0x10, SP0 + 8, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == anon + 0x105);
	CHECK(st->by_src[EMBER_SRC_FP] == 2);
	ember_unwinder_set_flags(u, EMBER_UNWIND_NO_FP);
	walk(u, anon + 0x10, SP0 + 8, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.trunc && st->stop_no_rule == 1);
	ember_unwinder_set_flags(u, 0);

	/* a frame-pointer loop stops */
	stk[1] = SP0 + 8;
	walk(u, anon + 0x10, SP0 + 8, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && w.trunc);

	/* CPython's trampoline between two frames with CFI */
	memset(stk, 0, sizeof(stk));
	stk[0] = CODE + 6; /* the leaf's return address */
	stk[2] = F_OUTER + 5;
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 3 && !w.trunc && w.ips[1] == CODE + 6 &&
	      w.ips[2] == F_OUTER + 5);
	CHECK(st->by_src[EMBER_SRC_PATTERN] == 1);
	ember_unwinder_set_flags(u, EMBER_UNWIND_NO_PATTERNS);
	walk(u, F_MID + 8, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && w.trunc); /* frame pointers cannot do it */
	ember_unwinder_set_flags(u, 0);

	/* sampled inside the trampoline */
	stk[0] = F_OUTER + 5;
	walk(u, CODE, 1, stk, sizeof(stk), 16, &w); /* before the sub */
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);
	stk[0] = 0;
	stk[1] = F_OUTER + 5;
	walk(u, CODE + 4, 1, stk, sizeof(stk), 16, &w); /* at the call */
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);
	walk(u, CODE + 6, 1, stk, sizeof(stk), 16, &w); /* returned */
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);
	stk[0] = F_OUTER + 5;
	walk(u, CODE + 10, 1, stk, sizeof(stk), 16, &w); /* at the ret */
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);

	/* frame-pointer prologue and ret in a leaf without CFI */
	stk[0] = F_OUTER + 5;
	walk(u, CODE + 0x40, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);
	stk[0] = 0xb0b0;
	stk[1] = F_OUTER + 5;
	walk(u, CODE + 0x41, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);
	stk[0] = F_OUTER + 5;
	walk(u, CODE + 0x50, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc && w.ips[1] == F_OUTER + 5);

	ember_unwinder_free(u);
	ember_jitdump_free(jd);
}

/* A jitdump that grows while the walk needs it. */
static void test_walk_jitdump_grows(void)
{
	static const uint8_t leaf[] = {0x44, 0x0e, 0x10, 0x86, 0x02};
	char path[] = "/tmp/ember-test-jit-XXXXXX";
	int fd = mkstemp(path);
	struct bytes d = {0}, eh = {0};
	struct ember_jitdump *jd;
	uint64_t stk[4] = {0xb0b0, F_OUTER + 5, 0, 0};
	struct walk w;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	jd_header(&d, 42);
	jd_eh_for(&eh, F_OUTER, 0x40, "zR", (const uint8_t *)"\x07\x10", 2);
	jd_unwind(&d, 1, &eh);
	jd_load(&d, 1, F_OUTER, 0x40, 1, "outer", NULL);
	CHECK(write(fd, d.b, d.n) == (ssize_t)d.n);
	CHECK(ember_jitdump_open(path, &jd) == 0);
	struct ember_unwinder *u = ember_unwinder_new();
	ember_unwinder_set_reader(u, fake_read, NULL);
	ember_unwinder_set_jitdump(u, 42, jd);
	walk(u, F_LEAF + 0x10, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 1 && w.trunc); /* leaf unknown: frame pointer fails */
	d.n = 0;
	jd_eh_for(&eh, F_LEAF, 0x40, "zR", leaf, sizeof(leaf));
	jd_unwind(&d, 2, &eh);
	jd_load(&d, 2, F_LEAF, 0x40, 2, "leaf", NULL);
	CHECK(write(fd, d.b, d.n) == (ssize_t)d.n);
	/* the cached fallback for the leaf goes once the dump grows: the
	 * miss on another address re-reads the dump */
	walk(u, F_LEAF + 0x11, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc);
	walk(u, F_LEAF + 0x10, 1, stk, sizeof(stk), 16, &w);
	CHECK(w.n == 2 && !w.trunc);
	CHECK(ember_unwinder_stats(u)->jit_updates >= 1);
	ember_unwinder_free(u);
	ember_jitdump_free(jd);
	close(fd);
	unlink(path);
	free(d.b);
	free(eh.b);
}

/* ---- this process's own stack ---- */

#define NOFP __attribute__((noinline, noclone, optimize("omit-frame-pointer")))

static struct snap cap;
static volatile int sink;

#define CAPTURE()                                                              \
	do {                                                                   \
		__asm__ volatile("leaq 0(%%rip), %0\n\t"                       \
				 "movq %%rsp, %1\n\t"                          \
				 "movq %%rbp, %2"                              \
				 : "=r"(cap.regs.ip), "=r"(cap.regs.sp),       \
				   "=r"(cap.regs.bp)                           \
				 :                                             \
				 : "memory");                                  \
		snap_copy(getpid(), &cap, 32768);                              \
	} while (0)

NOFP static int chain3(int x)
{
	CAPTURE();
	sink += x;
	return x + 1;
}

NOFP static int chain2(int x)
{
	int r = chain3(x + 1);
	sink += r;
	return r * 2;
}

NOFP static int chain1(int x)
{
	int r = chain2(x + 1);
	sink += r;
	return r * 3;
}

static int cmp_calls;

NOFP static int cmp_int(const void *a, const void *b)
{
	if (cmp_calls++ == 250) /* past ASan's own sortedness check */
		CAPTURE();
	return *(const int *)a - *(const int *)b;
}

NOFP static void on_signal(int sig)
{
	(void)sig;
	CAPTURE();
}

struct named {
	const char *names[64];
	size_t n;
	int trunc;
	uint64_t ips[64];
};

static void unwind_self(struct ember_unwinder *u, struct maps *m,
			struct symbolizer *z, size_t len, struct named *out)
{
	out->n = ember_unwind(u, getpid(), &cap.regs, cap.stack, len, maps_find,
			      m, out->ips, 64, &out->trunc);
	for (size_t i = 0; i < out->n; i++)
		out->names[i] = sym_name(z, m, out->ips[i] - (i ? 1 : 0));
}

/* The index of name in out from position from on, or -1. */
static int find_name(const struct named *out, size_t from, const char *name)
{
	for (size_t i = from; i < out->n; i++)
		if (out->names[i] && !strcmp(out->names[i], name))
			return (int)i;
	return -1;
}

static void print_stack(const char *what, const struct named *out)
{
	fprintf(stderr, "%s (%s):\n", what,
		out->trunc ? "truncated" : "complete");
	for (size_t i = 0; i < out->n; i++)
		fprintf(stderr, "  #%zu %#llx %s\n", i,
			(unsigned long long)out->ips[i], out->names[i]);
}

/* Whether frames from..to (exclusive) include one in a file whose path
 * contains lib. */
static int has_lib(struct maps *m, const struct named *out, size_t from,
		   size_t to, const char *lib)
{
	for (size_t i = from; i < to && i < out->n; i++) {
		const struct ember_unwind_mapping *mp =
		    maps_find(m, out->ips[i] - 1);
		if (mp && mp->path && strstr(mp->path, lib))
			return 1;
	}
	return 0;
}

__attribute__((noinline)) static void test_self(void)
{
	struct ember_unwinder *u = ember_unwinder_new();
	struct maps m;
	struct symbolizer z = {0};
	struct named full, part;
	const struct ember_unwind_stats *st = ember_unwinder_stats(u);

	CHECK(maps_load(getpid(), &m) == 0);

	/* functions without frame pointers, then main and libc */
	chain1(1);
	unwind_self(u, &m, &z, cap.len, &full);
	int ok = !full.trunc && find_name(&full, 0, "chain3") == 0 &&
		 find_name(&full, 0, "chain2") == 1 &&
		 find_name(&full, 0, "chain1") == 2 &&
		 find_name(&full, 3, "test_self") == 3 &&
		 find_name(&full, 4, "main") > 0 &&
		 !strcmp(full.names[full.n - 1], "_start");
	CHECK(ok);
	if (!ok || getenv("VERBOSE"))
		print_stack("chain", &full);
	/* the same without the frame-pointer fallback: all from CFI */
	ember_unwinder_set_flags(u, EMBER_UNWIND_NO_FP);
	unwind_self(u, &m, &z, cap.len, &part);
	CHECK(part.n == full.n && !part.trunc &&
	      !memcmp(part.ips, full.ips, full.n * 8));
	ember_unwinder_set_flags(u, 0);
	/* a warm cache answers every frame */
	unwind_self(u, &m, &z, cap.len, &part);
	uint64_t miss = st->cache_misses;
	unwind_self(u, &m, &z, cap.len, &part);
	CHECK(st->cache_misses == miss && part.n == full.n);
	/* a short copy stops early, with a prefix of the full stack */
	for (size_t len = 0; len < 512; len += 8) {
		unwind_self(u, &m, &z, len, &part);
		CHECK(part.trunc && part.n >= 1 && part.n < full.n &&
		      !memcmp(part.ips, full.ips, part.n * 8));
	}
	/* garbage above the leaf's frame: no crash, only valid frames */
	for (int seed = 1; seed < 50; seed++) {
		uint64_t *w = (uint64_t *)cap.stack;
		srand(seed);
		for (size_t i = 4 + seed % 8; i < cap.len / 8 && i < 64; i++)
			w[i] = (uint64_t)rand() << 20 ^ (uint64_t)rand();
		unwind_self(u, &m, &z, cap.len, &part);
		for (size_t i = 1; i < part.n; i++) {
			const struct ember_unwind_mapping *mp =
			    maps_find(&m, part.ips[i] - 1);
			CHECK(mp && mp->exec);
		}
	}
	free(cap.stack);

	/* through libc's qsort (no frame pointers in Debian's libc) */
	int v[200];
	for (int i = 0; i < 200; i++)
		v[i] = (i * 7919) % 200;
	qsort(v, 200, sizeof(int), cmp_int);
	unwind_self(u, &m, &z, cap.len, &full);
	int t = find_name(&full, 0, "test_self");
	ok = !full.trunc && find_name(&full, 0, "cmp_int") == 0 && t > 2 &&
	     has_lib(&m, &full, 1, (size_t)t, "/libc.so") &&
	     find_name(&full, (size_t)t, "main") > t &&
	     !strcmp(full.names[full.n - 1], "_start");
	CHECK(ok);
	if (!ok || getenv("VERBOSE"))
		print_stack("qsort", &full);
	free(cap.stack);

	/* out of a signal handler, through the kernel's signal frame and
	 * the interrupted code (raise) */
	signal(SIGUSR1, on_signal);
	raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	unwind_self(u, &m, &z, cap.len, &full);
	/* the return address into __restore_rt is its first byte */
	int rt = full.n > 1 &&
		 !strcmp(sym_name(&z, &m, full.ips[1]), "__restore_rt");
	t = find_name(&full, 0, "test_self");
	ok = !full.trunc && find_name(&full, 0, "on_signal") == 0 && rt &&
	     t > 2 && !strcmp(full.names[full.n - 1], "_start");
	CHECK(ok);
	if (!ok || getenv("VERBOSE"))
		print_stack("signal", &full);
	free(cap.stack);

	sym_free(&z);
	maps_free(&m);
	ember_unwinder_free(u);
}

/* ---- the dynamic linker's entry point ends the stack ---- */

static int first_fde(void *ctx, uint64_t start, uint64_t end)
{
	(void)end;
	*(uint64_t *)ctx = start;
	return 1;
}

static const struct ember_unwind_mapping *one_map(void *ctx, uint64_t a)
{
	const struct ember_unwind_mapping *m = ctx;
	return a >= m->start && a < m->end ? m : NULL;
}

/* Address of svma s when the file is mapped whole at base. */
static uint64_t at_svma(const struct ember_uw_elf *e, uint64_t base, uint64_t s)
{
	for (int i = 0; i < e->nload; i++)
		if (s >= e->load[i].vaddr &&
		    s - e->load[i].vaddr < e->load[i].filesz)
			return base + e->load[i].off + (s - e->load[i].vaddr);
	return 0;
}

/* ld.so's _start has no CFI: "call _dl_start" at its entry point is the
 * root of every stack sampled before main, not a place to give up. */
static void test_walk_entry(void)
{
	static const char path[] = "/lib64/ld-linux-x86-64.so.2";
	const uint64_t base = 0x7f0000000000ull;
	struct ember_uw_elf e;
	struct stat st;
	uint64_t fn = 0, stk[4] = {0}, ips[4];
	int fd = open(path, O_RDONLY), trunc;

	if (fd < 0 || fstat(fd, &st) || ember_uw_elf_open(&e, fd)) {
		if (fd >= 0)
			close(fd);
		printf("entry-point test skipped: no %s\n", path);
		return;
	}
	close(fd);
	ember_cfi_each_fde(&e.cfi, first_fde, &fn);
	struct ember_unwind_mapping m = {
	    base, base + (uint64_t)st.st_size, 0, 0, 0, path, 1};
	struct ember_unwinder *u = ember_unwinder_new();
	/* at a function's first byte, returning just after the entry's
	 * 8 bytes (mov %rsp,%rdi; call _dl_start) */
	struct ember_unwind_regs regs = {at_svma(&e, base, fn), SP0, 0};
	stk[0] = at_svma(&e, base, e.entry + 8);
	CHECK(fn && e.entry && regs.ip && stk[0]);
	size_t n = ember_unwind(u, 7, &regs, (const uint8_t *)stk, sizeof(stk),
				one_map, &m, ips, 4, &trunc);
	CHECK(n == 2 && !trunc && ips[1] == stk[0]);
	/* elsewhere, a return address without CFI and no frame pointer
	 * still stops the walk as truncated */
	stk[0] = at_svma(&e, base, e.entry + 200);
	n = ember_unwind(u, 7, &regs, (const uint8_t *)stk, sizeof(stk),
			 one_map, &m, ips, 4, &trunc);
	CHECK(n == 2 && trunc);
	ember_unwinder_free(u);
	ember_uw_elf_release(&e);
}

int main(void)
{
	test_cfi_basic();
	test_cfi_expressions();
	test_cfi_index();
	test_cfi_corrupt();
	test_cfi_real();
	test_debug_frame();
	test_walk_synthetic();
	test_walk_callee_saved();
	test_walk_fallbacks();
	test_walk_jitdump_grows();
	test_walk_entry();
	test_self();
	DONE();
}
