/* Unit tests of ember's reader of line programs (symbols/lines.c) against
 * libdw's dwfl_module_getsrc: every row's address of every unit, and the
 * bytes around it, must give the same file and line.  On the files named
 * as arguments (tests/cli/lines.sh builds C and C++ programs for it), else
 * on this test program.  "units read N, left to libdw N" says how many
 * units each file had and how many the reader left to libdw. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>

#include "harness.h"
#include "symbols/lines.h"

static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The unit's row addresses and their neighbours, sorted and unique;
 * mine[i]: libdwfl finds address i in this unit (clang writes no
 * .debug_aranges, libdwfl then finds none). */
static size_t addresses(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr bias,
			uint64_t **out, uint8_t **mine)
{
	Dwarf_Lines *lines;
	size_t nl, n = 0, m = 0;
	Dwarf_Addr b2;

	*out = NULL;
	*mine = NULL;
	if (dwarf_getsrclines(cu, &lines, &nl) || !nl)
		return 0;
	uint64_t *a = ember_xreallocarray(NULL, nl * 4, sizeof(*a));
	uint8_t *in = ember_xcalloc(nl * 4, 1);
	for (size_t i = 0; i < nl; i++) {
		Dwarf_Addr at;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &at))
			continue;
		for (int d = -1; d <= 2; d++)
			a[n++] = at + bias + (uint64_t)(int64_t)d;
	}
	qsort(a, n, sizeof(*a), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		if (m && a[m - 1] == a[i])
			continue;
		Dwarf_Die *c = dwfl_module_addrdie(mod, a[i], &b2);
		in[m] = c && dwarf_dieoffset(c) == dwarf_dieoffset(cu);
		a[m++] = a[i];
	}
	*out = a;
	*mine = in;
	return m;
}

/* Whether ember's row is libdw's line (file NULL: none). */
static int same(const struct rec_line *r, const char *file, int line)
{
	if (!file)
		return !r->file;
	return r->file && !strcmp(file, r->file) && line == r->line;
}

/* Every DIE of the unit naming a DW_AT_decl_file: rec_lines_file against
 * dwarf_decl_file.  Returns how many differ; *n counts them. */
static size_t check_decl(struct rec_lines *l, Dwarf_Die *die, int depth,
			 size_t *n)
{
	Dwarf_Die child;
	size_t differ = 0;

	do {
		Dwarf_Attribute attr;
		Dwarf_Word idx;
		Dwarf_Die cudie;
		const char *mine, *theirs = dwarf_decl_file(die);
		if (!dwarf_formudata(
			dwarf_attr_integrate(die, DW_AT_decl_file, &attr),
			&idx) &&
		    idx &&
		    dwarf_cu_die(attr.cu, &cudie, NULL, NULL, NULL, NULL, NULL,
				 NULL) &&
		    !rec_lines_file(l, &cudie, idx, &mine)) {
			(*n)++;
			if ((!mine) != (!theirs) ||
			    (mine && strcmp(mine, theirs))) {
				if (differ++ < 5)
					fprintf(
					    stderr,
					    "DIE %#llx: decl_file libdw %s, "
					    "ember %s\n",
					    (unsigned long long)dwarf_dieoffset(
						die),
					    theirs ? theirs : "(none)",
					    mine ? mine : "(none)");
			}
		}
		if (depth < 64 && dwarf_child(die, &child) == 0)
			differ += check_decl(l, &child, depth + 1, n);
	} while (dwarf_siblingof(die, die) == 0);
	return differ;
}

static void check_file(const char *path, int need_dwarf)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwarf_Addr bias;
	struct rec_lines l;
	size_t compared = 0, differ = 0, ndecl = 0, ddecl = 0;

	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "m", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	/* this program built without -g: nothing to compare */
	if (need_dwarf)
		CHECK(dw != NULL);
	if (!dw) {
		fprintf(stderr, "%s: no DWARF\n", path);
		dwfl_end(dwfl);
		return;
	}
	rec_lines_init(&l, dw);
	Dwarf_Die *cu = NULL;
	while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
		uint64_t *a;
		uint8_t *mine;
		size_t n = addresses(mod, cu, bias, &a, &mine);
		uint64_t *rel = ember_xreallocarray(NULL, n + 1, sizeof(*rel));
		struct rec_line *r =
		    ember_xreallocarray(NULL, n + 1, sizeof(*r));
		for (size_t i = 0; i < n; i++)
			rel[i] = a[i] - bias;
		size_t todo = n && !rec_lines_find(&l, cu, rel, n, r) ? n : 0;
		for (size_t i = 0; i < todo; i++) {
			/* the unit's table, as dwarf_getsrc_die finds it */
			Dwarf_Line *dl = dwarf_getsrc_die(cu, rel[i]);
			int line = 0;
			const char *file =
			    dl ? dwarf_linesrc(dl, NULL, NULL) : NULL;
			if (dl)
				dwarf_lineno(dl, &line);
			int ok = same(&r[i], file, line);
			/* and the module's, as the profile asks it */
			if (mine[i]) {
				Dwfl_Line *ml = dwfl_module_getsrc(mod, a[i]);
				line = 0;
				file = ml ? dwfl_lineinfo(ml, NULL, &line, NULL,
							  NULL, NULL)
					  : NULL;
				ok = ok && same(&r[i], file, line);
			}
			compared++;
			if (!ok && differ++ < 10)
				fprintf(stderr,
					"%s: %#llx: libdw %s:%d, ember %s:%d\n",
					path, (unsigned long long)a[i],
					file ? file : "(none)", line,
					r[i].file ? r[i].file : "(none)",
					r[i].line);
		}
		free(a);
		free(mine);
		free(rel);
		free(r);
		Dwarf_Die child;
		if (dwarf_child(cu, &child) == 0)
			ddecl += check_decl(&l, &child, 0, &ndecl);
	}
	printf("%s: units read %zu, left to libdw %zu; %zu addresses, "
	       "%zu differ; %zu declaration files, %zu differ\n",
	       path, l.units, l.fallbacks, compared, differ, ndecl, ddecl);
	CHECK(ndecl > 0);
	CHECK(ddecl == 0);
	CHECK(l.units > 0);
	CHECK(compared > 0);
	CHECK(differ == 0);
	if (!getenv("LINES_ALLOW_FALLBACK"))
		CHECK(l.fallbacks == 0);
	rec_lines_release(&l);
	dwfl_end(dwfl);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		check_file("/proc/self/exe", 0);
	for (int i = 1; i < argc; i++)
		check_file(argv[i], 1);
	DONE();
}
