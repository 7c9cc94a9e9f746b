/*
 * The part of an ELF file the unwinder needs: its PT_LOAD segments (file
 * offset to address), its .eh_frame/.eh_frame_hdr and .debug_frame, and
 * for a Go program the functions its stacks begin in.  The file is mapped
 * read-only and never trusted: every offset is checked.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include "unwind/unwind-cfi.h"

/* p[off .. off + n) lies inside the image */
static int inside(const struct ember_uw_elf *e, uint64_t off, uint64_t n)
{
	return off <= e->len && n <= e->len - off;
}

/* File bytes at address a (n of them), via PT_LOAD; NULL if not there. */
static const uint8_t *at_vaddr(const struct ember_uw_elf *e, uint64_t a,
			       uint64_t *avail)
{
	for (int i = 0; i < e->nload; i++) {
		const struct ember_uw_load *l = &e->load[i];
		if (a >= l->vaddr && a - l->vaddr < l->filesz) {
			uint64_t off = l->off + (a - l->vaddr);
			uint64_t n = l->filesz - (a - l->vaddr);
			if (off > e->len)
				return NULL;
			if (n > e->len - off)
				n = e->len - off;
			*avail = n;
			return e->img + off;
		}
	}
	return NULL;
}

int ember_uw_elf_svma(const struct ember_uw_elf *e, uint64_t file_off,
		      uint64_t *svma)
{
	for (int i = 0; i < e->nload; i++) {
		const struct ember_uw_load *l = &e->load[i];
		if (file_off >= l->off && file_off - l->off < l->filesz) {
			*svma = file_off - l->off + l->vaddr;
			return 0;
		}
	}
	return -1;
}

struct sect {
	uint64_t off, addr, size, flags, link;
	int found;
};

struct sects {
	struct sect eh, hdr, dbg, zdbg, symtab, strtab;
	int go; /* a Go program: .gopclntab or .note.go.buildid */
};

/* Finds the sections the unwinder reads through the section headers. */
static void find_sections(const struct ember_uw_elf *e, const Elf64_Ehdr *h,
			  struct sects *ss)
{
	Elf64_Shdr sh0, strsh;
	uint64_t shnum = h->e_shnum, shstrndx = h->e_shstrndx;

	if (!h->e_shoff || h->e_shentsize < sizeof(Elf64_Shdr) ||
	    !inside(e, h->e_shoff, sizeof(Elf64_Shdr)))
		return;
	memcpy(&sh0, e->img + h->e_shoff, sizeof(sh0));
	if (shnum == 0)
		shnum = sh0.sh_size;
	if (shstrndx == SHN_XINDEX)
		shstrndx = sh0.sh_link;
	if (shnum > (e->len - h->e_shoff) / h->e_shentsize || shstrndx >= shnum)
		return;
	memcpy(&strsh, e->img + h->e_shoff + shstrndx * h->e_shentsize,
	       sizeof(strsh));
	if (strsh.sh_type == SHT_NOBITS ||
	    !inside(e, strsh.sh_offset, strsh.sh_size))
		return;
	const char *names = (const char *)e->img + strsh.sh_offset;
	uint64_t symtab_link = 0;
	for (uint64_t i = 1; i < shnum; i++) {
		Elf64_Shdr sh;
		struct sect *s;
		memcpy(&sh, e->img + h->e_shoff + i * h->e_shentsize,
		       sizeof(sh));
		if (sh.sh_name >= strsh.sh_size)
			continue;
		const char *nm = names + sh.sh_name;
		size_t left = strsh.sh_size - sh.sh_name;
		if (strnlen(nm, left) == left)
			continue;
		if (!strcmp(nm, ".gopclntab") ||
		    !strcmp(nm, ".note.go.buildid"))
			ss->go = 1;
		if (!strcmp(nm, ".eh_frame"))
			s = &ss->eh;
		else if (!strcmp(nm, ".eh_frame_hdr"))
			s = &ss->hdr;
		else if (!strcmp(nm, ".debug_frame"))
			s = &ss->dbg;
		else if (!strcmp(nm, ".zdebug_frame"))
			s = &ss->zdbg;
		else if (sh.sh_type == SHT_SYMTAB)
			s = &ss->symtab;
		else
			continue;
		/* NOBITS: a separate debug file, whose CFI is elsewhere */
		if (sh.sh_type == SHT_NOBITS ||
		    !inside(e, sh.sh_offset, sh.sh_size))
			continue;
		s->off = sh.sh_offset;
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->flags = sh.sh_flags;
		s->link = sh.sh_link;
		s->found = 1;
		if (s == &ss->symtab)
			symtab_link = sh.sh_link;
	}
	if (ss->symtab.found && symtab_link && symtab_link < shnum) {
		Elf64_Shdr sh;
		memcpy(&sh, e->img + h->e_shoff + symtab_link * h->e_shentsize,
		       sizeof(sh));
		if (sh.sh_type == SHT_STRTAB &&
		    inside(e, sh.sh_offset, sh.sh_size)) {
			ss->strtab.off = sh.sh_offset;
			ss->strtab.size = sh.sh_size;
			ss->strtab.found = 1;
		}
	}
}

/* deflate expands at most 1032 times; and no CFI section is a GiB */
#define MAX_RATIO    1032
#define MAX_INFLATED (1ull << 30)

/* Inflates n bytes of zlib data at p into a new buffer of exactly size
 * bytes; NULL if it is not that. */
static uint8_t *inflate_to(const uint8_t *p, uint64_t n, uint64_t size)
{
	uLongf got = (uLongf)size;
	uint8_t *buf;

	if (!size || size > MAX_INFLATED || size / MAX_RATIO > n ||
	    n > (uint64_t)(uLong)-1)
		return NULL;
	buf = malloc((size_t)size);
	if (!buf)
		return NULL;
	if (uncompress(buf, &got, p, (uLong)n) != Z_OK || got != size) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The .debug_frame's bytes: in the file, or inflated into e->dbuf
 * (SHF_COMPRESSED with an ELF compression header, or the older
 * .zdebug_frame: "ZLIB" and the size, big-endian). */
static const uint8_t *debug_frame(struct ember_uw_elf *e,
				  const struct sects *ss, uint64_t *len)
{
	const struct sect *d = &ss->dbg;
	const uint8_t *p;

	if (d->found && !(d->flags & SHF_COMPRESSED)) {
		*len = d->size;
		return e->img + d->off;
	}
	if (d->found) {
		Elf64_Chdr ch;
		if (d->size < sizeof(ch))
			return NULL;
		memcpy(&ch, e->img + d->off, sizeof(ch));
		if (ch.ch_type != ELFCOMPRESS_ZLIB)
			return NULL;
		e->dbuf = inflate_to(e->img + d->off + sizeof(ch),
				     d->size - sizeof(ch), ch.ch_size);
		*len = ch.ch_size;
		return e->dbuf;
	}
	d = &ss->zdbg;
	if (!d->found || d->size < 12 || memcmp(e->img + d->off, "ZLIB", 4))
		return NULL;
	p = e->img + d->off;
	uint64_t size = 0;
	for (int i = 0; i < 8; i++)
		size = size << 8 | p[4 + i];
	e->dbuf = inflate_to(p + 12, d->size - 12, size);
	*len = size;
	return e->dbuf;
}

/* Where a Go program's stacks end: a goroutine's at goexit (its first
 * caller), a thread's at mstart (rt0_go's for the first thread); and the
 * functions that switch to the thread's own stack and call on it, whose
 * callers are on the goroutine's stack, out of the copy's reach. */
static void go_roots(struct ember_uw_elf *e, const struct sects *ss)
{
	/* the first NSTART begin stacks, the others switch stacks */
	enum { NSTART = 8 };
	static const char *const names[] = {
	    "runtime.goexit.abi0",
	    "runtime.goexit",
	    "runtime.mstart.abi0",
	    "runtime.mstart",
	    "runtime.rt0_go.abi0",
	    "runtime.rt0_go",
	    "_rt0_amd64",
	    "_rt0_amd64_linux",
	    "runtime.morestack.abi0",
	    "runtime.morestack",
	    "runtime.systemstack.abi0",
	    "runtime.systemstack",
	    "runtime.mcall.abi0",
	    "runtime.mcall",
	};
	const struct sect *st = &ss->symtab, *str = &ss->strtab;

	if (!ss->go || !st->found || !str->found)
		return;
	const char *strs = (const char *)e->img + str->off;
	for (uint64_t i = 0; i + 1 <= st->size / sizeof(Elf64_Sym); i++) {
		Elf64_Sym sym;
		memcpy(&sym, e->img + st->off + i * sizeof(sym), sizeof(sym));
		if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    sym.st_name >= str->size)
			continue;
		const char *nm = strs + sym.st_name;
		size_t left = str->size - sym.st_name;
		if (left < 8 ||
		    (memcmp(nm, "runtime.", 8) && memcmp(nm, "_rt0_", 5)) ||
		    strnlen(nm, left) == left)
			continue;
		for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
			if (strcmp(nm, names[k]) ||
			    e->nroots == (int)ARRAY_SIZE(e->roots))
				continue;
			e->roots[e->nroots].lo = sym.st_value;
			e->roots[e->nroots].hi = sym.st_value + sym.st_size;
			e->roots[e->nroots].start = k < NSTART;
			e->nroots++;
		}
	}
}

int ember_uw_elf_is_root(const struct ember_uw_elf *e, uint64_t svma)
{
	for (int i = 0; i < e->nroots; i++)
		if (svma >= e->roots[i].lo && svma < e->roots[i].hi)
			return e->roots[i].start ? 2 : 1;
	return 0;
}

int ember_uw_elf_rule(const struct ember_uw_elf *e, uint64_t svma, uint64_t rip,
		      struct ember_cfi_rule *r)
{
	int err = EMBER_ENOENT;

	if (e->has_cfi)
		err = ember_cfi_rule(&e->cfi, svma, rip, r, NULL, NULL);
	if (err == EMBER_ENOENT && e->has_dcfi)
		err = ember_cfi_rule(&e->dcfi, svma, rip, r, NULL, NULL);
	return err;
}

/* The .eh_frame address an .eh_frame_hdr points to. */
static int hdr_eh_ptr(const uint8_t *p, uint64_t n, uint64_t addr,
		      uint64_t *out)
{
	uint8_t enc;
	int64_t v;

	if (n < 8 || p[0] != 1)
		return -1;
	enc = p[1];
	/* linkers always write pcrel|sdata4 or an absolute udata8 */
	if (enc == 0x1b) {
		int32_t d;
		memcpy(&d, p + 4, 4);
		v = d;
		*out = addr + 4 + (uint64_t)v;
		return 0;
	}
	if (enc == 0x03 || enc == 0x0b) {
		uint32_t d;
		memcpy(&d, p + 4, 4);
		*out = enc == 0x03 ? d : (uint64_t)(int64_t)(int32_t)d;
		return 0;
	}
	if ((enc == 0x00 || enc == 0x04) && n >= 12) {
		memcpy(out, p + 4, 8);
		return 0;
	}
	return -1;
}

static int parse(struct ember_uw_elf *e)
{
	Elf64_Ehdr h;
	struct sects ss;
	struct sect *eh = &ss.eh, *hdr = &ss.hdr;
	uint64_t dlen = 0;
	const uint8_t *dbg;

	memset(&ss, 0, sizeof(ss));
	if (e->len < sizeof(h) || memcmp(e->img, ELFMAG, SELFMAG))
		return EMBER_EFORMAT;
	memcpy(&h, e->img, sizeof(h));
	if (h.e_ident[EI_CLASS] != ELFCLASS64 ||
	    h.e_ident[EI_DATA] != ELFDATA2LSB || h.e_machine != EM_X86_64)
		return EMBER_ENOTSUP;
	e->entry = h.e_entry;
	if (h.e_phentsize < sizeof(Elf64_Phdr) ||
	    !inside(e, h.e_phoff, (uint64_t)h.e_phnum * h.e_phentsize))
		return EMBER_EFORMAT;
	for (unsigned i = 0; i < h.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, e->img + h.e_phoff + (uint64_t)i * h.e_phentsize,
		       sizeof(ph));
		if (ph.p_type == PT_LOAD &&
		    e->nload < (int)ARRAY_SIZE(e->load)) {
			e->load[e->nload].off = ph.p_offset;
			e->load[e->nload].vaddr = ph.p_vaddr;
			e->load[e->nload].filesz = ph.p_filesz;
			e->nload++;
		} else if (ph.p_type == PT_GNU_EH_FRAME &&
			   inside(e, ph.p_offset, ph.p_filesz)) {
			hdr->off = ph.p_offset;
			hdr->addr = ph.p_vaddr;
			hdr->size = ph.p_filesz;
			hdr->found = 1;
		}
	}
	find_sections(e, &h, &ss);
	if (!eh->found && hdr->found) {
		/* no section headers: the header says where .eh_frame is,
		 * and it runs at most to the end of its segment */
		uint64_t a, avail;
		const uint8_t *p;
		if (!hdr_eh_ptr(e->img + hdr->off, hdr->size, hdr->addr, &a) &&
		    (p = at_vaddr(e, a, &avail))) {
			eh->off = (uint64_t)(p - e->img);
			eh->addr = a;
			eh->size = avail;
			eh->found = 1;
		}
	}
	if (eh->found && eh->size) {
		ember_cfi_init(&e->cfi, e->img + eh->off, eh->size, eh->addr,
			       hdr->found ? e->img + hdr->off : NULL, hdr->size,
			       hdr->addr, 0);
		e->has_cfi = 1;
	}
	dbg = debug_frame(e, &ss, &dlen);
	if (dbg && dlen) {
		ember_cfi_init(&e->dcfi, dbg, (size_t)dlen, 0, NULL, 0, 0,
			       EMBER_CFI_DEBUG_FRAME);
		e->has_dcfi = 1;
	}
	go_roots(e, &ss);
	return 0;
}

int ember_uw_elf_open(struct ember_uw_elf *e, int fd)
{
	struct stat st;
	void *p;
	int err;

	memset(e, 0, sizeof(*e));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return EMBER_EIO;
	if (st.st_size < (off_t)sizeof(Elf64_Ehdr))
		return EMBER_EFORMAT;
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return EMBER_EIO;
	e->img = p;
	e->len = (size_t)st.st_size;
	e->mapped = 1;
	err = parse(e);
	if (err)
		ember_uw_elf_release(e);
	return err;
}

int ember_uw_elf_mem(struct ember_uw_elf *e, const void *img, size_t len)
{
	int err;

	memset(e, 0, sizeof(*e));
	e->img = img;
	e->len = len;
	err = parse(e);
	if (err)
		ember_uw_elf_release(e);
	return err;
}

void ember_uw_elf_release(struct ember_uw_elf *e)
{
	if (e->has_cfi)
		ember_cfi_release(&e->cfi);
	if (e->has_dcfi)
		ember_cfi_release(&e->dcfi);
	free(e->dbuf);
	if (e->mapped && e->img)
		munmap((void *)e->img, e->len);
	memset(e, 0, sizeof(*e));
}
