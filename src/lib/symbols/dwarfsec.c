/*
 * An ELF file's DWARF sections made ready for libdw, which reads every one
 * of them when it opens a file and decompresses each compressed one with
 * zlib (libc6-dbg's debug files are compressed): most of the time inlined
 * frames take.  The sections inlined calls do not need are hidden from it,
 * and those they need are decompressed here with libdeflate, about twice
 * as fast, where Debian's libdeflate0 is installed (loaded with dlopen:
 * ember does not need it).
 *
 * Both act on one Elf handle's copies of the section headers and data
 * descriptors, never on the file: a hidden section is marked SHT_NOBITS
 * (libdw skips those), a decompressed one loses SHF_COMPRESSED and its data
 * descriptor, the one elf_getdata returns every time, gets the buffer.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "libdeflate.h"
#include "symbols/inline.h"

/* What the inlined calls do not read: variable locations, CFI, macros,
 * name indexes, type units; and the line table, unless asked for. */
static int unneeded(const char *name, int lines)
{
	static const char *const names[] = {
	    "loc",   "loclists",     "frame",	     "macinfo",
	    "macro", "pubnames",     "pubtypes",     "types",
	    "names", "gnu_pubnames", "gnu_pubtypes",
	};

	if (!strncmp(name, ".debug_", 7))
		name += 7;
	else if (!strncmp(name, ".zdebug_", 8))
		name += 8;
	else
		return 0;
	if (!lines && !strcmp(name, "line"))
		return 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (!strcmp(name, names[i]))
			return 1;
	return 0;
}

/* deflate expands at most 1032 times: a bigger size in the header is a
 * broken file, left to libdw */
#define MAX_RATIO 1032

/* Decompresses a zlib-compressed (SHF_COMPRESSED) section in place of
 * its data; the buffer goes to s.  0, or -1: left as it was. */
static int inflate_section(struct rec_dwarfsec *s, Elf *elf, Elf_Scn *scn,
			   GElf_Shdr *sh, const struct ember_libdeflate *lib,
			   struct libdeflate_decompressor *d)
{
	GElf_Chdr ch;
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t hdr = gelf_getclass(elf) == ELFCLASS32 ? sizeof(Elf32_Chdr)
						      : sizeof(Elf64_Chdr);
	size_t got;

	if (!data || !data->d_buf || data->d_size <= hdr ||
	    !gelf_getchdr(scn, &ch) || ch.ch_type != ELFCOMPRESS_ZLIB ||
	    !ch.ch_size || ch.ch_size / MAX_RATIO > data->d_size)
		return -1;
	/* not ember_xmalloc: a size that cannot be had is libdw's to refuse */
	void *buf = malloc(ch.ch_size);
	if (!buf)
		return -1;
	if (lib->zlib_decompress(d, (const char *)data->d_buf + hdr,
				 data->d_size - hdr, buf, ch.ch_size, &got) ||
	    got != ch.ch_size) {
		free(buf);
		return -1;
	}
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch.ch_size;
	if (!gelf_update_shdr(scn, sh)) {
		free(buf);
		return -1;
	}
	data->d_buf = buf;
	data->d_size = ch.ch_size;
	data->d_type = ELF_T_BYTE;
	data->d_align = ch.ch_addralign ? ch.ch_addralign : 1;
	EMBER_GROW(s->bufs, s->n + 1, s->alloc);
	s->bufs[s->n++] = buf;
	return 0;
}

void rec_dwarfsec_prepare(struct rec_dwarfsec *s, struct Elf *elf, int lines)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	struct libdeflate_decompressor *d = NULL;
	const struct ember_libdeflate *lib = NULL;

	memset(s, 0, sizeof(*s));
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (unneeded(name, lines)) {
			sh.sh_type = SHT_NOBITS;
			gelf_update_shdr(scn, &sh);
			continue;
		}
		if (!(sh.sh_flags & SHF_COMPRESSED) ||
		    strncmp(name, ".debug_", 7))
			continue;
		if (!d) {
			lib = ember_libdeflate();
			if (!lib || !(d = lib->alloc_decompressor()))
				continue;
		}
		inflate_section(s, elf, scn, &sh, lib, d);
	}
	if (d)
		lib->free_decompressor(d);
}

void rec_dwarfsec_release(struct rec_dwarfsec *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->bufs[i]);
	free(s->bufs);
	memset(s, 0, sizeof(*s));
}
