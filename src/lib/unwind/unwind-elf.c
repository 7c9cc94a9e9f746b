/*
 * The part of an ELF file the unwinder needs: its PT_LOAD segments (file
 * offset to address) and its .eh_frame/.eh_frame_hdr.  The file is
 * mapped read-only and never trusted: every offset is checked.
 */
#include <elf.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

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
	uint64_t off, addr, size;
	int found;
};

/* Finds .eh_frame and .eh_frame_hdr through the section headers. */
static void find_sections(const struct ember_uw_elf *e, const Elf64_Ehdr *h,
			  struct sect *eh, struct sect *hdr)
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
		if (!strcmp(nm, ".eh_frame"))
			s = eh;
		else if (!strcmp(nm, ".eh_frame_hdr"))
			s = hdr;
		else
			continue;
		/* NOBITS: a separate debug file, whose CFI is elsewhere */
		if (sh.sh_type == SHT_NOBITS ||
		    !inside(e, sh.sh_offset, sh.sh_size))
			continue;
		s->off = sh.sh_offset;
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->found = 1;
	}
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
	struct sect eh = {0}, hdr = {0};

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
			hdr.off = ph.p_offset;
			hdr.addr = ph.p_vaddr;
			hdr.size = ph.p_filesz;
			hdr.found = 1;
		}
	}
	find_sections(e, &h, &eh, &hdr);
	if (!eh.found && hdr.found) {
		/* no section headers: the header says where .eh_frame is,
		 * and it runs at most to the end of its segment */
		uint64_t a, avail;
		const uint8_t *p;
		if (!hdr_eh_ptr(e->img + hdr.off, hdr.size, hdr.addr, &a) &&
		    (p = at_vaddr(e, a, &avail))) {
			eh.off = (uint64_t)(p - e->img);
			eh.addr = a;
			eh.size = avail;
			eh.found = 1;
		}
	}
	if (!eh.found || !eh.size)
		return 0;
	ember_cfi_init(&e->cfi, e->img + eh.off, eh.size, eh.addr,
		       hdr.found ? e->img + hdr.off : NULL, hdr.size, hdr.addr,
		       0);
	e->has_cfi = 1;
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
	if (e->mapped && e->img)
		munmap((void *)e->img, e->len);
	memset(e, 0, sizeof(*e));
}
