/*
 * ELF files for the symbolizer: loadable segments (file offset to symbol
 * address), build-id, .gnu_debuglink, function symbols of .symtab or
 * .dynsym, and the PLT slots perf names "func@plt".  Read with libelf;
 * every size and index from the file is checked, since files can be
 * truncated or hostile.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/elf.h"

static int libelf_ready(void)
{
	static int ready = -1;

	if (ready < 0)
		ready = elf_version(EV_CURRENT) != EV_NONE;
	return ready;
}

Elf_Scn *rec_elf_find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static void read_notes(struct rec_elf *e, const char *p, size_t n)
{
	size_t off = 0;

	while (off + 12 <= n) {
		uint32_t namesz, descsz, type;
		memcpy(&namesz, p + off, 4);
		memcpy(&descsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		size_t nsz = ((size_t)namesz + 3) & ~(size_t)3;
		size_t dsz = ((size_t)descsz + 3) & ~(size_t)3;
		if (nsz > n - off || dsz > n - off - nsz)
			return;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(p + off, "GNU", 4) && descsz > 0 &&
		    descsz <= sizeof(e->build_id)) {
			memcpy(e->build_id, p + off + nsz, descsz);
			e->build_id_len = descsz;
			return;
		}
		off += nsz + dsz;
	}
}

static void read_build_id(struct rec_elf *e, Elf *elf)
{
	size_t phnum;
	Elf_Scn *scn = NULL;

	/* program headers first: a debug file has the same notes as
	 * sections */
	if (!elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum && !e->build_id_len; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_NOTE)
				continue;
			Elf_Data *d = elf_getdata_rawchunk(
			    elf, ph.p_offset, ph.p_filesz, ELF_T_BYTE);
			if (d && d->d_buf)
				read_notes(e, d->d_buf, d->d_size);
		}
	}
	while (!e->build_id_len && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (d && d->d_buf)
			read_notes(e, d->d_buf, d->d_size);
	}
}

static void read_debuglink(struct rec_elf *e, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = rec_elf_find_section(elf, ".gnu_debuglink", &sh);
	Elf_Data *d;

	if (!scn || sh.sh_type == SHT_NOBITS || !(d = elf_getdata(scn, NULL)) ||
	    !d->d_buf)
		return;
	const char *p = d->d_buf;
	size_t len = strnlen(p, d->d_size);
	size_t crc_off = (len + 4) & ~(size_t)3;
	if (!len || crc_off + 4 > d->d_size || memchr(p, '/', len))
		return;
	e->debuglink = ember_xmemdup(p, len);
	memcpy(&e->debuglink_crc, p + crc_off, 4);
}

static int setup(struct rec_elf *e)
{
	Elf *elf = e->elf;
	GElf_Ehdr eh;
	size_t phnum;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    gelf_getclass(elf) != ELFCLASS64)
		return EMBER_EFORMAT;
	e->type = eh.e_type;
	if (!elf_getphdrnum(elf, &phnum)) {
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph) ||
			    ph.p_type != PT_LOAD)
				continue;
			if (e->nloads == ARRAY_SIZE(e->loads))
				break;
			e->loads[e->nloads].off = ph.p_offset;
			e->loads[e->nloads].filesz = ph.p_filesz;
			e->loads[e->nloads].vaddr = ph.p_vaddr;
			e->nloads++;
		}
	}
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			e->has_symtab = 1;
		else if (sh.sh_type == SHT_DYNSYM)
			e->has_dynsym = 1;
	}
	read_build_id(e, elf);
	read_debuglink(e, elf);
	return 0;
}

int rec_elf_open(struct rec_elf *e, const char *path)
{
	/* non-blocking: a FIFO named by a recording must not hang us */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		memset(e, 0, sizeof(*e));
		e->fd = -1;
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EIO;
	}
	return rec_elf_open_fd(e, fd);
}

int rec_elf_open_fd(struct rec_elf *e, int fd)
{
	struct stat st;

	memset(e, 0, sizeof(*e));
	e->fd = fd;
	if (!libelf_ready()) {
		close(fd);
		e->fd = -1;
		return EMBER_ENOTSUP;
	}
	/* only regular files: a FIFO or a device would block or mislead */
	if (fstat(e->fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 64) {
		close(e->fd);
		e->fd = -1;
		return EMBER_EFORMAT;
	}
	e->elf = elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf) {
		close(e->fd);
		e->fd = -1;
		return EMBER_EFORMAT;
	}
	int err = setup(e);
	if (err)
		rec_elf_close(e);
	return err;
}

int rec_elf_open_mem(struct rec_elf *e, const void *p, size_t n)
{
	memset(e, 0, sizeof(*e));
	e->fd = -1;
	if (!libelf_ready())
		return EMBER_ENOTSUP;
	e->mem = ember_xmalloc(n);
	memcpy(e->mem, p, n);
	e->elf = elf_memory(e->mem, n);
	if (!e->elf) {
		free(e->mem);
		e->mem = NULL;
		return EMBER_EFORMAT;
	}
	int err = setup(e);
	if (err)
		rec_elf_close(e);
	return err;
}

void rec_elf_close(struct rec_elf *e)
{
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e->debuglink);
	memset(e, 0, sizeof(*e));
	e->fd = -1;
}

int rec_elf_off_to_vaddr(const struct rec_elf *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct rec_load *l = &e->loads[i];
		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return 0;
		}
	}
	/* past the file-backed part (or no program headers): assume the
	 * first segment's bias */
	if (e->nloads) {
		*vaddr = off - e->loads[0].off + e->loads[0].vaddr;
		return 0;
	}
	*vaddr = off;
	return EMBER_ENOENT;
}

static int is_function(const Elf64_Sym *s)
{
	int t = ELF64_ST_TYPE(s->st_info);

	return (t == STT_FUNC || t == STT_GNU_IFUNC) && s->st_name &&
	       s->st_shndx != SHN_UNDEF && s->st_value;
}

/* A label (STT_NOTYPE, like ld.so's _dl_start_user) in a section named
 * "*text*": perf names code by those too. */
static int is_text_label(Elf *elf, const Elf64_Sym *s, signed char *text_scn,
			 size_t nscn)
{
	if (ELF64_ST_TYPE(s->st_info) != STT_NOTYPE || !s->st_name ||
	    !s->st_value || s->st_shndx == SHN_UNDEF ||
	    s->st_shndx >= SHN_LORESERVE || s->st_shndx >= nscn)
		return 0;
	if (text_scn[s->st_shndx] < 0) {
		size_t shstrndx;
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
		const char *name = NULL;
		if (scn && gelf_getshdr(scn, &sh) &&
		    !elf_getshdrstrndx(elf, &shstrndx))
			name = elf_strptr(elf, shstrndx, sh.sh_name);
		text_scn[s->st_shndx] = name && strstr(name, "text") &&
					(sh.sh_flags & SHF_EXECINSTR);
	}
	return text_scn[s->st_shndx];
}

/* The .gnu.version section of the symbol table sym: a version index per
 * symbol, bit 15 set when hidden (not the default version). */
static Elf_Data *versym_data(Elf *elf, const GElf_Shdr *sym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym &&
		    sh.sh_entsize == 2 &&
		    sh.sh_size / 2 == sym->sh_size / sym->sh_entsize)
			return elf_getdata(scn, NULL);
	return NULL;
}

size_t rec_elf_symbols(struct rec_elf *e, struct rec_symtab *st, int dynsym)
{
	Elf *elf = e->elf;
	Elf_Scn *scn = NULL;
	size_t added = 0, nscn = 0;
	GElf_Word want = dynsym ? SHT_DYNSYM : SHT_SYMTAB;
	signed char *text_scn;

	if (!elf || elf_getshdrnum(elf, &nscn) || nscn > 65536)
		return 0;
	text_scn = ember_xmalloc(nscn + 1);
	memset(text_scn, -1, nscn + 1);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != want ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		size_t n = d->d_size / sh.sh_entsize;
		rec_symtab_reserve(st, n);
		/* .dynsym: versions hidden (compat) in .gnu.version */
		Elf_Data *vd = dynsym ? versym_data(elf, &sh) : NULL;
		/* the names read straight from their table when it ends in a
		 * NUL, as nearly every one does; elf_strptr checks each */
		Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
		GElf_Shdr strsh;
		Elf_Data *sd = strscn && gelf_getshdr(strscn, &strsh) &&
				       strsh.sh_type == SHT_STRTAB &&
				       !(strsh.sh_flags & SHF_COMPRESSED)
				   ? elf_getdata(strscn, NULL)
				   : NULL;
		if (sd && (!sd->d_buf || !sd->d_size || sd->d_off ||
			   ((const char *)sd->d_buf)[sd->d_size - 1]))
			sd = NULL;
		/* libelf gives the table in memory form: an array of
		 * Elf64_Sym (setup takes 64-bit files only), read in place
		 * rather than copied out one by one */
		const Elf64_Sym *syms = d->d_buf;
		if (!syms || d->d_type != ELF_T_SYM ||
		    (uintptr_t)syms % _Alignof(Elf64_Sym))
			break;
		n = d->d_size / sizeof(*syms);
		for (size_t i = 0; i < n; i++) {
			const Elf64_Sym *sp = &syms[i];
			/* most are neither: objects, sections, files */
			int type = ELF64_ST_TYPE(sp->st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC &&
			    type != STT_NOTYPE)
				continue;
			if (!is_function(sp) &&
			    !is_text_label(elf, sp, text_scn, nscn))
				continue;
			Elf64_Sym s = *sp;
			const char *name =
			    !sd ? elf_strptr(elf, sh.sh_link, s.st_name)
			    : s.st_name < sd->d_size
				? (const char *)sd->d_buf + s.st_name
				: NULL;
			/* an empty name is dropped when the table is finished
			 * (rec_symtab_finish, a bucket of a lazy one): reading
			 * each name here would touch every page of the
			 * string table, most of them for symbols never hit */
			if (!name)
				continue;
			uint16_t ver = 0;
			if (vd && (i + 1) * 2 <= vd->d_size)
				memcpy(&ver, (const char *)vd->d_buf + i * 2,
				       2);
			rec_symtab_add_elf(st, s.st_value, s.st_size, name,
					   ELF64_ST_BIND(s.st_info),
					   (ver & 0x8000) &&
					       (ver & 0x7fff) > 1);
			added++;
		}
		break;
	}
	free(text_scn);
	return added;
}

struct plt_rel {
	uint64_t got; /* r_offset: slots are in GOT order */
	uint32_t sym;
};

static int cmp_rel(const void *pa, const void *pb)
{
	const struct plt_rel *a = pa, *b = pb;

	return a->got < b->got ? -1 : a->got > b->got;
}

size_t rec_elf_plt_symbols(struct rec_elf *e, struct rec_symtab *st)
{
	Elf *elf = e->elf;
	GElf_Shdr plt, sec, rel, dyn;
	Elf_Scn *rel_scn, *dyn_scn;
	Elf_Data *rd, *dd;
	size_t added = 0;
	int has_sec;
	const uint64_t entry = 16; /* x86-64 */

	if (!elf || !rec_elf_find_section(elf, ".plt", &plt) ||
	    plt.sh_type == SHT_NOBITS)
		return 0;
	has_sec = rec_elf_find_section(elf, ".plt.sec", &sec) != NULL;
	rel_scn = rec_elf_find_section(elf, ".rela.plt", &rel);
	if (!rel_scn || rel.sh_type != SHT_RELA || !rel.sh_entsize ||
	    !(dyn_scn = elf_getscn(elf, rel.sh_link)) ||
	    !gelf_getshdr(dyn_scn, &dyn) || !dyn.sh_entsize ||
	    (dyn.sh_type != SHT_DYNSYM && dyn.sh_type != SHT_SYMTAB))
		return 0;
	rd = elf_getdata(rel_scn, NULL);
	dd = elf_getdata(dyn_scn, NULL);
	if (!rd || !dd)
		return 0;
	size_t n = rd->d_size / rel.sh_entsize;
	if (!n || n > 1000000)
		return 0;
	struct plt_rel *rels = ember_xcalloc(n, sizeof(*rels));
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		rels[m].got = r.r_offset;
		rels[m].sym = (uint32_t)GELF_R_SYM(r.r_info);
		m++;
	}
	/* nearly always in GOT order already */
	size_t sorted = 1;
	while (sorted < m && rels[sorted - 1].got <= rels[sorted].got)
		sorted++;
	if (sorted < m)
		qsort(rels, m, sizeof(*rels), cmp_rel);
	/* the names read straight from their table when it ends in a NUL,
	 * as in rec_elf_symbols */
	Elf_Scn *strscn = elf_getscn(elf, dyn.sh_link);
	GElf_Shdr strsh;
	Elf_Data *sd = strscn && gelf_getshdr(strscn, &strsh) &&
			       strsh.sh_type == SHT_STRTAB &&
			       !(strsh.sh_flags & SHF_COMPRESSED)
			   ? elf_getdata(strscn, NULL)
			   : NULL;
	if (sd && (!sd->d_buf || !sd->d_size || sd->d_off ||
		   ((const char *)sd->d_buf)[sd->d_size - 1]))
		sd = NULL;

	uint64_t addr;
	if (has_sec) {
		/* the lazy-binding stubs stay in .plt: one symbol for all */
		rec_symtab_add(st, plt.sh_addr, plt.sh_size, ".plt", 4,
			       STB_GLOBAL, 0);
		addr = sec.sh_addr;
	} else {
		/* a lazy .plt has a header slot first, unless it holds
		 * exactly one slot per relocation */
		addr = plt.sh_addr;
		if (m * entry != plt.sh_size) {
			rec_symtab_add(st, addr, entry, ".plt", 4, STB_GLOBAL,
				       0);
			addr += entry;
		}
	}
	struct ember_buf b = EMBER_BUF_INIT;
	for (size_t i = 0; i < m; i++, addr += entry) {
		GElf_Sym s;
		const char *name = NULL;
		if (gelf_getsym(dd, (int)rels[i].sym, &s))
			name = !sd ? elf_strptr(elf, dyn.sh_link, s.st_name)
			       : s.st_name < sd->d_size
				   ? (const char *)sd->d_buf + s.st_name
				   : NULL;
		if (name && *name) {
			/* "NAME@plt", NAME demangled, when it is asked for
			 * (not copied: its length is not needed) */
			size_t k = st->n;
			rec_symtab_add(st, addr, entry, name, 0, STB_GLOBAL, 0);
			if (st->n > k)
				st->syms[k].plt = 1;
		} else {
			ember_buf_reset(&b);
			ember_buf_addf(&b, "offset_%#llx@plt",
				       (unsigned long long)addr);
			rec_symtab_add(st, addr, entry, b.buf, b.len,
				       STB_GLOBAL, 1);
		}
		added++;
	}
	ember_buf_release(&b);
	free(rels);
	return added;
}
