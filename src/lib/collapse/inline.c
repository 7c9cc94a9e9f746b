/*
 * perf --inline: the calls inlined at an address, from the module's DWARF
 * (libdw), as stackcollapse-perf.pl gets them from `addr2line -i -f -C -s`,
 * in-process and cached.
 *
 * Modules are opened once (a Dwfl each, reported at address 0 so that
 * addresses are the ELF file's own, as perf script prints them for
 * shared objects); results are cached by (module, address).  A result is
 * "name\tfile:line\n" records, the outermost function first.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#undef ARRAY_SIZE /* libiberty's, the same */

#include "collapse.h"

struct module {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: no such file, or no DWARF */
};

struct result {
	uint64_t addr;
	uint32_t module, off, len;
	uint32_t used;
};

struct ember_inliner {
	int context;
	struct module *mods;
	size_t nmods, amods;
	struct ember_intern paths; /* path -> module index */
	struct result *tab;	   /* open addressing on (module, addr) */
	size_t mask, n;
	struct ember_buf store; /* the results' text */
	struct ember_buf tmp;
};

static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct ember_inliner *ember_inliner_new(int context)
{
	struct ember_inliner *in = ember_xcalloc(1, sizeof(*in));

	in->context = context;
	ember_intern_init(&in->paths);
	in->mask = 1023;
	in->tab = ember_xcalloc(in->mask + 1, sizeof(*in->tab));
	ember_buf_init(&in->store, 4096);
	ember_buf_init(&in->tmp, 256);
	return in;
}

void ember_inliner_free(struct ember_inliner *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nmods; i++) {
		if (in->mods[i].dwfl)
			dwfl_end(in->mods[i].dwfl);
		free(in->mods[i].path);
	}
	free(in->mods);
	free(in->tab);
	ember_intern_release(&in->paths);
	ember_buf_release(&in->store);
	ember_buf_release(&in->tmp);
	free(in);
}

static struct module *module(struct ember_inliner *in, const char *path,
			     size_t len, uint32_t *index)
{
	uint32_t id = ember_intern(&in->paths, path, len);

	*index = id;
	if (id < in->nmods)
		return &in->mods[id];
	EMBER_GROW(in->mods, in->nmods + 1, in->amods);
	struct module *m = &in->mods[in->nmods++];
	memset(m, 0, sizeof(*m));
	m->path = ember_xmemdup(path, len);
	m->dwfl = dwfl_begin(&callbacks);
	if (!m->dwfl || memchr(path, '\0', len))
		return m;
	dwfl_report_begin(m->dwfl);
	const char *base = strrchr(m->path, '/');
	Dwfl_Module *mod = dwfl_report_elf(m->dwfl, base ? base + 1 : m->path,
					   m->path, -1, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	Dwarf_Addr bias;
	if (mod && dwfl_module_getdwarf(mod, &bias))
		m->mod = mod;
	return m;
}

/* The function's name as addr2line -C prints it: the demangled linkage
 * name, else the plain name. */
static const char *die_name(Dwarf_Die *die, char **freeme)
{
	Dwarf_Attribute attr;
	const char *link = dwarf_formstring(
	    dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	*freeme = NULL;
	if (!link)
		link = dwarf_formstring(
		    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (link) {
		*freeme = cplus_demangle(link, DMGL_PARAMS | DMGL_ANSI);
		return *freeme ? *freeme : link;
	}
	const char *name = dwarf_diename(die);
	return name ? name : "??";
}

static void add_loc(struct ember_buf *b, const char *file, int line)
{
	const char *base = file ? strrchr(file, '/') : NULL;

	ember_buf_adds(b, file ? (base ? base + 1 : file) : "??");
	ember_buf_addf(b, ":%d", line);
}

static int function_like(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* Records for the functions at addr, outermost first, into b; 0 if none.
 * dwarf_getscopes gives the innermost scope; its chain of containing
 * scopes in the concrete tree (dwarf_getscopes_die) holds the inlined
 * calls, each with its call site in the function around it. */
static int resolve(struct ember_inliner *in, Dwfl_Module *mod, uint64_t addr,
		   struct ember_buf *b)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
	Dwarf_Die *scopes = NULL, inner;
	int n;

	if (!cu)
		return 0;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	if (!dw || !dwarf_offdie(dw, dwarf_dieoffset(&scopes[0]), &inner)) {
		free(scopes);
		return 0;
	}
	free(scopes);
	scopes = NULL;
	n = dwarf_getscopes_die(&inner, &scopes);
	if (n <= 0) {
		free(scopes);
		return 0;
	}
	struct ember_buf recs = EMBER_BUF_INIT;
	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	int nfuncs = 0;
	dwarf_getsrcfiles(cu, &files, &nfiles);
	const char *file = NULL;
	int line = 0;
	Dwfl_Line *l = dwfl_module_getsrc(mod, addr);
	if (l)
		file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (!function_like(tag))
			continue;
		char *freeme;
		const char *name = die_name(&scopes[i], &freeme);
		/* prepend: the result is outermost first */
		ember_buf_reset(&in->tmp);
		ember_buf_adds(&in->tmp, name);
		ember_buf_addch(&in->tmp, '\t');
		if (in->context)
			add_loc(&in->tmp, file, line);
		ember_buf_addch(&in->tmp, '\n');
		ember_buf_grow(&recs, in->tmp.len);
		memmove(recs.buf + in->tmp.len, recs.buf, recs.len);
		memcpy(recs.buf, in->tmp.buf, in->tmp.len);
		ember_buf_setlen(&recs, recs.len + in->tmp.len);
		free(freeme);
		nfuncs++;
		if (tag != DW_TAG_inlined_subroutine)
			break;
		/* the function around this inlined call runs at its site */
		Dwarf_Attribute attr;
		Dwarf_Word cf = 0, cl = 0;
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr),
				&cf);
		dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &attr),
				&cl);
		file = files && cf < nfiles
			   ? dwarf_filesrc(files, cf, NULL, NULL)
			   : NULL;
		line = (int)cl;
	}
	free(scopes);
	ember_buf_add(b, recs.buf, recs.len);
	ember_buf_release(&recs);
	return nfuncs > 0;
}

/* The script's fallback when addr2line knows nothing of the address (an
 * absolute address from an old perf): the symbol's value from the symbol
 * table plus the +0x offset perf printed. */
static int symbol_address(Dwfl_Module *mod, const char *sym, size_t n,
			  uint64_t *addr)
{
	const char *plus = memrchr(sym, '+', n);
	char *end, name[512];
	GElf_Sym s;
	GElf_Addr value;

	if (!plus || plus + 3 > sym + n || plus[1] != '0' || plus[2] != 'x' ||
	    (size_t)(plus - sym) >= sizeof(name))
		return 0;
	memcpy(name, sym, (size_t)(plus - sym));
	name[plus - sym] = '\0';
	char off[24];
	size_t on = (size_t)(sym + n - (plus + 3));
	if (!on || on >= sizeof(off))
		return 0;
	memcpy(off, plus + 3, on);
	off[on] = '\0';
	uint64_t o = strtoull(off, &end, 16);
	if (*end)
		return 0;
	int nsyms = dwfl_module_getsymtab(mod);
	for (int i = 1; i < nsyms; i++) {
		const char *sn = dwfl_module_getsym_info(mod, i, &s, &value,
							 NULL, NULL, NULL);
		if (sn && !strcmp(sn, name)) {
			*addr = value + o;
			return 1;
		}
	}
	return 0;
}

int ember_inliner_lookup(struct ember_inliner *in, const char *path,
			 size_t path_len, uint64_t addr, const char *sym,
			 size_t sym_len, struct ember_buf *out)
{
	uint32_t mi;
	struct module *m = module(in, path, path_len, &mi);
	uint64_t h =
	    ember_hash(&addr, sizeof(addr)) ^ (mi * 0x9e3779b97f4a7c15ull);
	size_t i;

	if (!m->mod)
		return -1;
	for (i = h & in->mask; in->tab[i].used; i = (i + 1) & in->mask) {
		struct result *r = &in->tab[i];
		if (r->addr == addr && r->module == mi) {
			ember_buf_add(out, in->store.buf + r->off, r->len);
			return 0;
		}
	}
	size_t start = in->store.len;
	uint64_t a2;
	if (!resolve(in, m->mod, addr, &in->store) &&
	    symbol_address(m->mod, sym, sym_len, &a2))
		resolve(in, m->mod, a2, &in->store);
	struct result *r = &in->tab[i];
	r->addr = addr;
	r->module = mi;
	r->off = (uint32_t)start;
	r->len = (uint32_t)(in->store.len - start);
	r->used = 1;
	if (++in->n * 2 > in->mask) {
		size_t mask = in->mask * 2 + 1;
		struct result *tab = ember_xcalloc(mask + 1, sizeof(*tab));
		for (size_t k = 0; k <= in->mask; k++) {
			if (!in->tab[k].used)
				continue;
			uint64_t hk =
			    ember_hash(&in->tab[k].addr, 8) ^
			    (in->tab[k].module * 0x9e3779b97f4a7c15ull);
			size_t j = hk & mask;
			while (tab[j].used)
				j = (j + 1) & mask;
			tab[j] = in->tab[k];
		}
		free(in->tab);
		in->tab = tab;
		in->mask = mask;
	}
	ember_buf_add(out, in->store.buf + start, in->store.len - start);
	return 0;
}
