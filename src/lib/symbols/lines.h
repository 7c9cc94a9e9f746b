/*
 * A compilation unit's line program read for the addresses asked, the row
 * libdw's dwfl_module_getsrc would give for each (lines.c), without
 * building or sorting the unit's whole line table.
 */
#ifndef EMBER_SYMBOLS_LINES_H
#define EMBER_SYMBOLS_LINES_H

#include <elfutils/libdw.h>

#include "internal.h"

struct rec_lines_unit;

/* The line sections of one Dwarf, and the file names made from them. */
struct rec_lines {
	const unsigned char *line, *line_str, *str;
	size_t nline, nline_str, nstr;
	int usable; /* the sections were found and are not compressed */
	struct ember_arena names;
	struct rec_lines_unit *unit; /* the units' headers, read once */
	size_t nunit, aunit, last;
	size_t units, fallbacks; /* units run here, and left to libdw */
};

/* The row found for an address: file NULL when there is none (libdw's
 * dwfl_module_getsrc returns NULL: line 0, or dwfl_lineinfo does: the
 * row's line). */
struct rec_line {
	const char *file;
	int line;
};

void rec_lines_init(struct rec_lines *l, Dwarf *dw);
void rec_lines_release(struct rec_lines *l);

/* For the n addresses addr (sorted, the DWARF's own: the module's less its
 * bias) in unit cudie, the rows dwfl_module_getsrc gives into out; the
 * file names live until rec_lines_release.  0, or -1 when the unit's
 * program has something this reader leaves to libdw (then out is not
 * filled). */
int rec_lines_find(struct rec_lines *l, Dwarf_Die *cudie, const uint64_t *addr,
		   size_t n, struct rec_line *out);

/* The name of file idx of unit cudie's line table, as dwarf_decl_file
 * gives it (NULL: none such); 0, or -1 when the unit is left to libdw. */
int rec_lines_file(struct rec_lines *l, Dwarf_Die *cudie, uint64_t idx,
		   const char **name);

#endif
