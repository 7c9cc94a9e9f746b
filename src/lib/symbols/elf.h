/*
 * ELF files: load segments, build-id, debuglink and symbols (elf.c), and
 * the separate debug files they point to (debuginfo.c).
 */
#ifndef EMBER_SYMBOLS_ELF_H
#define EMBER_SYMBOLS_ELF_H

#include <elf.h>

#include "symbols/symtab.h"

struct Elf;
struct Elf_Scn;

struct rec_load {
	uint64_t off, filesz, vaddr;
};

struct rec_elf {
	int fd;
	void *elf; /* Elf * */
	void *mem; /* an in-memory image (the vdso), owned */
	int type;  /* ET_EXEC, ET_DYN */
	struct rec_load loads[16];
	size_t nloads;
	uint8_t build_id[64];
	size_t build_id_len;
	char *debuglink;
	uint32_t debuglink_crc;
	int has_symtab, has_dynsym;
};

int rec_elf_open(struct rec_elf *e, const char *path) EMBER_WUR;
/* The file's first section of that name, its header in *sh; or NULL. */
struct Elf_Scn *rec_elf_find_section(struct Elf *elf, const char *name,
				     Elf64_Shdr *sh);
/* The same from an open file, which it takes over (closed on failure). */
int rec_elf_open_fd(struct rec_elf *e, int fd) EMBER_WUR;
/* An image in memory (copied). */
int rec_elf_open_mem(struct rec_elf *e, const void *p, size_t n) EMBER_WUR;
void rec_elf_close(struct rec_elf *e);
/* File offset to the address symbols and CFI use; 0 or EMBER_ENOENT. */
int rec_elf_off_to_vaddr(const struct rec_elf *e, uint64_t off,
			 uint64_t *vaddr);
/* Adds the functions of .symtab (dynsym=0) or .dynsym (dynsym=1); names
 * stay in the ELF file's memory.  Returns how many. */
size_t rec_elf_symbols(struct rec_elf *e, struct rec_symtab *st, int dynsym);
/* Adds "name@plt" for each PLT slot, as perf synthesizes them. */
size_t rec_elf_plt_symbols(struct rec_elf *e, struct rec_symtab *st);

/* ---- separate debug files (debuginfo.c) ------------------------------- */

/* Opens the separate debug file of e (by build-id, then .gnu_debuglink
 * next to path, in its .debug/ and under the debug root), or returns
 * EMBER_ENOENT.  root NULL means /usr/lib/debug. */
int rec_debuginfo_open(const struct rec_elf *e, const char *path,
		       const char *root, struct rec_elf *out,
		       char **found) EMBER_WUR;
/* ---- debug files from debuginfod servers (debuginfod.c) --------------- */

struct rec_debuginfod;
/* Opens in out the debug file of e's build-id from the servers of
 * DEBUGINFOD_URLS (through libdebuginfod's cache), or returns
 * EMBER_ENOENT: none has it, none is set, or libdebuginfod is missing.
 * *dc is made on first use; name (the binary's) is for progress lines. */
int rec_debuginfod_open(struct rec_debuginfod **dc, const struct rec_elf *e,
			const char *name, struct rec_elf *out) EMBER_WUR;
/* Ends the client, with a summary line when fetching took over a second. */
void rec_debuginfod_free(struct rec_debuginfod *dc);

/* The CRC-32 .gnu_debuglink uses, of a whole file. */
int rec_file_crc32(int fd, uint32_t *crc) EMBER_WUR;

#endif
