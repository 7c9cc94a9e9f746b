/* Unit tests of ember's reader of line programs (symbols/lines.c) against
 * libdw's dwfl_module_getsrc: every row's address of every unit, and the
 * bytes around it, must give the same file and line.  On the files named
 * as arguments (tests/cli/lines.sh builds C and C++ programs for it), else
 * on this test program.  "units read N, left to libdw N" says how many
 * units each file had and how many the reader left to libdw. */
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

/* The unit's row addresses and their neighbours, those libdwfl finds
 * in this unit, sorted and unique. */
static size_t addresses(Dwfl_Module *mod, Dwarf_Die *cu, Dwarf_Addr bias,
			uint64_t **out)
{
	Dwarf_Lines *lines;
	size_t nl, n = 0, m = 0;
	Dwarf_Addr b2;

	*out = NULL;
	if (dwarf_getsrclines(cu, &lines, &nl) || !nl)
		return 0;
	uint64_t *a = ember_xreallocarray(NULL, nl * 4, sizeof(*a));
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
		if (c && dwarf_dieoffset(c) == dwarf_dieoffset(cu))
			a[m++] = a[i];
	}
	*out = a;
	return m;
}

static void check_file(const char *path)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwarf_Addr bias;
	struct rec_lines l;
	size_t compared = 0, differ = 0;

	dwfl_report_begin(dwfl);
	Dwfl_Module *mod = dwfl_report_elf(dwfl, "m", path, -1, 0, false);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
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
		size_t n = addresses(mod, cu, bias, &a);
		if (!n) {
			free(a);
			continue;
		}
		uint64_t *rel = ember_xreallocarray(NULL, n, sizeof(*rel));
		struct rec_line *r = ember_xreallocarray(NULL, n, sizeof(*r));
		for (size_t i = 0; i < n; i++)
			rel[i] = a[i] - bias;
		if (rec_lines_find(&l, cu, rel, n, r) == 0) {
			for (size_t i = 0; i < n; i++) {
				Dwfl_Line *dl = dwfl_module_getsrc(mod, a[i]);
				int line = 0;
				const char *file =
				    dl ? dwfl_lineinfo(dl, NULL, &line, NULL,
						       NULL, NULL)
				       : NULL;
				if (!file)
					line = 0;
				compared++;
				if ((!file) == (!r[i].file) &&
				    (!file || !strcmp(file, r[i].file)) &&
				    (!file || line == r[i].line))
					continue;
				if (differ++ < 10)
					fprintf(stderr,
						"%s: %#llx: libdw %s:%d, "
						"ember %s:%d\n",
						path, (unsigned long long)a[i],
						file ? file : "(none)", line,
						r[i].file ? r[i].file
							  : "(none)",
						r[i].line);
			}
		}
		free(a);
		free(rel);
		free(r);
	}
	printf("%s: units read %zu, left to libdw %zu; %zu addresses, "
	       "%zu differ\n",
	       path, l.units, l.fallbacks, compared, differ);
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
		check_file("/proc/self/exe");
	for (int i = 1; i < argc; i++)
		check_file(argv[i]);
	DONE();
}
