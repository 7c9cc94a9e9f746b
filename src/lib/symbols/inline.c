/*
 * The calls inlined at an address, from the module's DWARF (libdw): for
 * `collapse perf --inline` as stackcollapse-perf.pl gets them from
 * `addr2line -i -f -C -s`, for `record` as perf script names them; in
 * process and cached.
 *
 * Modules are opened once (a Dwfl each, reported at address 0 so that
 * addresses are the ELF file's own); results are cached by (module,
 * address).  A result is "name\tfile:line\n" records, the outermost
 * function first.
 *
 * A compilation unit's DIE tree is walked once, on the first address in
 * it: its functions (subprograms and inlined calls with code), each with
 * the function around it, and their address ranges, sorted by start (the
 * bigger first), each linked to the smallest range around it.  Ranges of
 * one unit nest, so every range holding an address is around the last
 * range starting at or before it: the innermost function at an address is
 * a binary search and a short walk up, and its callers are the chain of
 * functions around it.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#undef ARRAY_SIZE /* libiberty's, the same */

#include "intern.h"
#include "symbols/elf.h"
#include "symbols/inline.h"
#include "symbols/lines.h"

/* A function-like DIE with code: a subprogram or an inlined call. */
struct fn {
	Dwarf_Off die;
	int32_t parent;	  /* the function-like DIE around it, or -1 */
	uint32_t name;	  /* offset in the inliner's names + 1; 0: not yet */
	uint16_t inlined; /* a DW_TAG_inlined_subroutine */
	uint16_t depth;	  /* functions around it */
};

/* One address range of a function; the ranges of a unit nest, so the
 * smallest one around a piece (up) is around every address the piece
 * covers that a bigger one does. */
struct piece {
	uint64_t lo, hi;
	uint32_t fn, depth;
	int32_t up; /* or -1 */
};

/* A compilation unit's functions, read once, on its first address. */
struct unit {
	Dwarf_Off off;
	struct fn *fns;
	size_t nfns;
	struct piece *pieces; /* sorted by lo, the bigger first */
	size_t npieces;
	uint32_t line_asks; /* lines asked of lines.c one at a time */
};

/* An out-of-line function of a unit (a subprogram with code at the
 * unit's top level or in its namespaces): where it is declared, its
 * linkage name.  Read without walking the functions' own DIEs. */
struct lfn {
	uint64_t lo, hi;
	const char *decl_file; /* libdw's, NULL: unknown */
	uint32_t decl_line;
	uint32_t link; /* offset in the inliner's names + 1; 0: none */
};

struct lunit {
	Dwarf_Off off;
	struct lfn *fns; /* sorted by lo */
	size_t n;
};

struct module {
	char *path;
	Dwfl *dwfl;
	Dwfl_Module *mod; /* NULL: no such file, or no DWARF */
	struct rec_dwarfsec secs;
	/* the binary's loadable segments, for file offsets (the DWARF can
	 * be a separate debug file's) */
	struct rec_load loads[16];
	size_t nloads;
	struct unit *units;
	size_t nunits, aunits, last;
	struct lunit *lunits;
	size_t nlunits, alunits, llast;
	/* the units' address ranges, read from the units themselves where
	 * libdw's lookup, which needs .debug_aranges, finds none (clang
	 * writes no .debug_aranges) */
	struct cu_range *cur;
	size_t ncur;
	int cur_read;
	int closed; /* by ember_inliner_close: opened again when asked */
	struct rec_lines lines; /* the line programs, read here */
	int lines_ready;
};

struct cu_range {
	uint64_t lo, hi;
	Dwarf_Off off;
};

struct result {
	uint64_t addr;
	uint32_t module, off, len;
	uint16_t nrec; /* records */
	uint16_t used;
};

struct ember_inliner {
	int flags; /* EMBER_INLINE_* */
	struct module *mods;
	size_t nmods, amods;
	struct ember_intern paths; /* path -> module index */
	struct result *tab;	   /* open addressing on (module, addr) */
	size_t mask, n;
	struct ember_buf store; /* the results' text */
	struct ember_buf names; /* functions' names, NUL-terminated */
	struct ember_buf tmp;
};

/* The module reported is the file with the DWARF, the separate debug file
 * found here (by build-id, .gnu_debuglink) or by the caller (debuginfod,
 * with its progress lines); libdwfl only looks for a dwz file by build-id.
 * Its standard search would also ask debuginfod servers itself, silently,
 * and load libdebuginfod to find that it need not. */
static const Dwfl_Callbacks callbacks = {
    .find_debuginfo = dwfl_build_id_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

struct ember_inliner *ember_inliner_new(int flags)
{
	struct ember_inliner *in = ember_xcalloc(1, sizeof(*in));

	in->flags = flags;
	ember_intern_init(&in->paths);
	in->mask = 1023;
	in->tab = ember_xcalloc(in->mask + 1, sizeof(*in->tab));
	ember_buf_init(&in->store, 4096);
	ember_buf_init(&in->names, 4096);
	ember_buf_init(&in->tmp, 256);
	return in;
}

static void module_release(struct module *m)
{
	for (size_t u = 0; u < m->nunits; u++) {
		free(m->units[u].fns);
		free(m->units[u].pieces);
	}
	free(m->units);
	for (size_t u = 0; u < m->nlunits; u++)
		free(m->lunits[u].fns);
	free(m->lunits);
	free(m->cur);
	if (m->lines_ready)
		rec_lines_release(&m->lines);
	if (m->dwfl)
		dwfl_end(m->dwfl);
	rec_dwarfsec_release(&m->secs);
	free(m->path);
	memset(m, 0, sizeof(*m));
}

void ember_inliner_close(struct ember_inliner *in, uint32_t id)
{
	if (id < in->nmods && !in->mods[id].closed) {
		module_release(&in->mods[id]);
		in->mods[id].closed = 1;
	}
}

void ember_inliner_free(struct ember_inliner *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->nmods; i++)
		module_release(&in->mods[i]);
	free(in->mods);
	free(in->tab);
	ember_intern_release(&in->paths);
	ember_buf_release(&in->store);
	ember_buf_release(&in->names);
	ember_buf_release(&in->tmp);
	free(in);
}

/* Whether the file has DWARF of its own (not a stripped binary's). */
static int has_dwarf(Elf *elf)
{
	GElf_Shdr sh;

	if (!elf)
		return 0;
	return (rec_elf_find_section(elf, ".debug_info", &sh) &&
		sh.sh_type != SHT_NOBITS) ||
	       (rec_elf_find_section(elf, ".zdebug_info", &sh) &&
		sh.sh_type != SHT_NOBITS);
}

/* The file to read DWARF from: the binary (fd) when it has its own,
 * else debug_fd, else its separate debug file, found as perf and gdb
 * find it; -1 when there is none.  The binary's segments go to m. */
static int dwarf_file(struct module *m, int fd, int debug_fd)
{
	struct rec_elf e, dbg;
	struct stat st;
	int dup_fd, out = -1;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return -1;
	dup_fd = dup(fd);
	if (dup_fd < 0)
		return -1;
	if (rec_elf_open_fd(&e, dup_fd))
		/* not an ELF file ember reads (32-bit): libdwfl's to try */
		return dup(fd);
	m->nloads = e.nloads < 16 ? e.nloads : 16;
	memcpy(m->loads, e.loads, m->nloads * sizeof(*m->loads));
	if (has_dwarf(e.elf))
		out = dup(fd);
	else if (debug_fd >= 0)
		out = dup(debug_fd);
	else if (!rec_debuginfo_open(&e, m->path, NULL, &dbg, NULL)) {
		out = dup(dbg.fd);
		rec_elf_close(&dbg);
	}
	rec_elf_close(&e);
	return out;
}

int ember_inliner_module(struct ember_inliner *in, const char *key,
			 size_t key_len, const char *path, int fd, int debug_fd,
			 uint32_t *id)
{
	uint32_t i = ember_intern(&in->paths, key, key_len);

	*id = i;
	if (i < in->nmods && !in->mods[i].closed)
		return in->mods[i].mod ? 0 : -1;
	struct module *m;
	if (i < in->nmods) {
		m = &in->mods[i];
	} else {
		EMBER_GROW(in->mods, in->nmods + 1, in->amods);
		m = &in->mods[in->nmods++];
	}
	memset(m, 0, sizeof(*m));
	m->path = ember_xstrdup(path);
	/* non-blocking: a FIFO named in perf script's output must not hang */
	int own = fd < 0 && *path
		      ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
		      : -1;
	int dfd = dwarf_file(m, fd >= 0 ? fd : own, debug_fd);
	if (own >= 0)
		close(own);
	if (dfd < 0 || !(m->dwfl = dwfl_begin(&callbacks))) {
		if (dfd >= 0)
			close(dfd);
		return -1;
	}
	dwfl_report_begin(m->dwfl);
	const char *base = strrchr(m->path, '/');
	/* the descriptor is the library's from here, used or not */
	Dwfl_Module *mod = dwfl_report_elf(m->dwfl, base ? base + 1 : m->path,
					   m->path, dfd, 0, false);
	dwfl_report_end(m->dwfl, NULL, NULL);
	Dwarf_Addr bias;
	Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
	if (elf)
		rec_dwarfsec_prepare(&m->secs, elf,
				     in->flags & EMBER_INLINE_CONTEXT);
	if (elf && dwfl_module_getdwarf(mod, &bias))
		m->mod = mod;
	return m->mod ? 0 : -1;
}

/* The function's name as addr2line -C prints it (the demangled linkage
 * name, else the plain name), or as perf script names inlined functions
 * (the linkage name demangled as symbols are, without argument lists). */
static const char *die_name(Dwarf_Die *die, int perf, char **freeme)
{
	Dwarf_Attribute attr;
	const char *link = dwarf_formstring(
	    dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));

	*freeme = NULL;
	if (!link)
		link = dwarf_formstring(
		    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
	if (link) {
		*freeme = perf ? rec_demangle(link)
			       : cplus_demangle(link, DMGL_PARAMS | DMGL_ANSI);
		return *freeme ? *freeme : link;
	}
	const char *name = dwarf_diename(die);
	return name ? name : "??";
}

static void add_loc(struct ember_buf *b, const char *file, int line, int flags)
{
	const char *base =
	    file && !(flags & EMBER_INLINE_PATHS) ? strrchr(file, '/') : NULL;

	ember_buf_adds(b, file ? (base ? base + 1 : file) : "??");
	ember_buf_addf(b, ":%d", line);
}

static int function_like(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* ---- a unit's functions ---------------------------------------------- */

/* DIEs whose children may hold code: the rest (types, variables ...)
 * are stepped over whole. */
static int may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_compile_unit:
	case DW_TAG_partial_unit:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_entry_point:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		return 1;
	default:
		return 0;
	}
}

static int cmp_piece(const void *pa, const void *pb)
{
	const struct piece *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	if (a->hi != b->hi)
		return a->hi > b->hi ? -1 : 1;
	/* the same range: the function inside after the one around it; of
	 * two functions at one place (aliases), the first one's last, so
	 * that it is found, as dwarf_getscopes finds it */
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return a->fn > b->fn ? -1 : a->fn < b->fn;
}

#define MAX_DEPTH 256

/* Walks the unit's DIE tree once, depth first, for its functions and
 * their ranges; then sorts the ranges and links each to the smallest one
 * around it. */
static void read_unit(struct unit *u, Dwarf_Die *cudie)
{
	Dwarf_Die stack[MAX_DEPTH];
	int32_t fnof[MAX_DEPTH]; /* the function around stack[i]'s DIEs */
	size_t afns = 0, apieces = 0;
	int depth = 0;

	if (dwarf_child(cudie, &stack[0]) != 0)
		return;
	fnof[0] = -1;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		int tag = dwarf_tag(d), descend = may_hold_code(tag);
		int32_t fn = fnof[depth];
		if (function_like(tag)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t off = 0;
			uint32_t id = (uint32_t)u->nfns;
			uint32_t fdepth = fn >= 0 ? u->fns[fn].depth + 1u : 0;
			size_t before = u->npieces;
			while ((off = dwarf_ranges(d, off, &base, &lo, &hi)) >
			       0) {
				if (hi <= lo)
					continue;
				EMBER_GROW(u->pieces, u->npieces + 1, apieces);
				u->pieces[u->npieces++] =
				    (struct piece){lo, hi, id, fdepth, -1};
			}
			if (u->npieces > before) {
				EMBER_GROW(u->fns, u->nfns + 1, afns);
				u->fns[u->nfns++] = (struct fn){
				    dwarf_dieoffset(d), fn, 0,
				    tag == DW_TAG_inlined_subroutine,
				    (uint16_t)fdepth};
				fn = (int32_t)id;
			} else {
				/* a declaration or abstract instance: no
				 * code inside */
				descend = 0;
			}
		}
		if (descend && depth + 1 < MAX_DEPTH &&
		    dwarf_child(d, &stack[depth + 1]) == 0) {
			fnof[++depth] = fn;
			continue;
		}
		/* the next sibling here, or of the nearest parent */
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0)
			if (--depth < 0)
				goto done;
	}
done:
	qsort(u->pieces, u->npieces, sizeof(*u->pieces), cmp_piece);
	int32_t *open = ember_xmalloc((u->npieces + 1) * sizeof(*open));
	size_t nopen = 0;
	for (size_t i = 0; i < u->npieces; i++) {
		struct piece *p = &u->pieces[i];
		while (nopen && u->pieces[open[nopen - 1]].hi <= p->lo)
			nopen--;
		p->up = nopen ? open[nopen - 1] : -1;
		open[nopen++] = (int32_t)i;
	}
	free(open);
}

static struct unit *unit_of(struct module *m, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);

	if (m->last < m->nunits && m->units[m->last].off == off)
		return &m->units[m->last];
	for (size_t i = 0; i < m->nunits; i++)
		if (m->units[i].off == off) {
			m->last = i;
			return &m->units[i];
		}
	EMBER_GROW(m->units, m->nunits + 1, m->aunits);
	struct unit *u = &m->units[m->nunits];
	memset(u, 0, sizeof(*u));
	u->off = off;
	read_unit(u, cudie);
	m->last = m->nunits++;
	return u;
}

/* The innermost function at addr: the last range starting at or before
 * it, or the nearest range around that one holding addr. */
static int32_t innermost(const struct unit *u, uint64_t addr)
{
	size_t lo = 0, hi = u->npieces;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->pieces[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int32_t i = (int32_t)lo - 1, k = 0; i >= 0 && k < MAX_DEPTH;
	     i = u->pieces[i].up, k++)
		if (addr < u->pieces[i].hi)
			return (int32_t)u->pieces[i].fn;
	return -1;
}

/* The function's name, read once. */
static const char *fn_name(struct ember_inliner *in, Dwarf *dw, struct fn *f)
{
	if (!f->name) {
		Dwarf_Die die;
		char *freeme = NULL;
		const char *name = "??";
		if (dwarf_offdie(dw, f->die, &die))
			name = die_name(&die, in->flags & EMBER_INLINE_PERF,
					&freeme);
		f->name = (uint32_t)in->names.len + 1;
		ember_buf_add(&in->names, name, strlen(name) + 1);
		free(freeme);
	}
	return in->names.buf + f->name - 1;
}

static int cu_range_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int cmp_off(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* The units .debug_aranges lists, sorted (*n of them; NULL: none). */
static Dwarf_Off *aranges_units(Dwarf *dw, size_t *n)
{
	Dwarf_Aranges *ar;
	size_t na, k = 0;

	*n = 0;
	if (dwarf_getaranges(dw, &ar, &na) || !na)
		return NULL;
	Dwarf_Off *v = ember_xreallocarray(NULL, na, sizeof(*v));
	for (size_t i = 0; i < na; i++) {
		Dwarf_Off off;
		if (!dwarf_getarangeinfo(dwarf_onearange(ar, i), NULL, NULL,
					 &off))
			v[k++] = off;
	}
	qsort(v, k, sizeof(*v), cmp_off);
	*n = k;
	return v;
}

/* The unit holding addr (in the DWARF's addresses) by the ranges of
 * every unit .debug_aranges leaves out (all of them without it: clang
 * writes none), read once.  A unit it lists is not read again: its
 * ranges there are the unit's own (the compiler writes both from the
 * same list), and libdw's lookup has found nothing in them. */
static Dwarf_Die *unit_by_ranges(struct module *m, Dwarf *dw, uint64_t addr,
				 Dwarf_Die *out)
{
	if (!m->cur_read) {
		Dwarf_CU *cu = NULL, *next;
		Dwarf_Die cudie;
		uint8_t type;
		size_t alloc = 0, nlisted;
		Dwarf_Off *listed = aranges_units(dw, &nlisted);
		m->cur_read = 1;
		while (dwarf_get_units(dw, cu, &next, NULL, &type, &cudie,
				       NULL) == 0) {
			cu = next;
			if (type != DW_UT_compile && type != DW_UT_partial &&
			    type != DW_UT_skeleton)
				continue;
			Dwarf_Off off = dwarf_dieoffset(&cudie);
			if (nlisted && bsearch(&off, listed, nlisted,
					       sizeof(*listed), cmp_off))
				continue;
			Dwarf_Addr base, lo, hi;
			ptrdiff_t o = 0;
			while ((o = dwarf_ranges(&cudie, o, &base, &lo, &hi)) >
			       0) {
				if (lo >= hi)
					continue;
				EMBER_GROW(m->cur, m->ncur + 1, alloc);
				m->cur[m->ncur++] =
				    (struct cu_range){lo, hi, off};
			}
		}
		free(listed);
		if (m->ncur)
			qsort(m->cur, m->ncur, sizeof(*m->cur), cu_range_cmp);
	}
	size_t lo = 0, hi = m->ncur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->cur[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* ranges of units do not nest: the last one starting at or before
	 * addr, or one just before it where two overlap */
	for (size_t i = lo; i-- > 0 && lo - i <= 4;)
		if (addr < m->cur[i].hi)
			return dwarf_offdie(dw, m->cur[i].off, out);
	return NULL;
}

static void module_lines(struct module *m, Dwarf *dw)
{
	if (!m->lines_ready) {
		rec_lines_init(&m->lines, dw);
		m->lines_ready = 1;
	}
}

/* A unit's line program run for one address at a time costs a tenth of
 * libdw's sorted table of it: so for the first few of a unit, libdw's
 * table after them. */
#define LINE_ASKS 8

/* dwfl_module_getsrc's file and line at addr; cu is libdwfl's unit for
 * it (NULL: none, and so no line), u ember's. */
static const char *line_at(struct module *m, Dwarf *dw, Dwarf_Die *cu,
			   struct unit *u, uint64_t addr, Dwarf_Addr bias,
			   int *line)
{
	uint64_t a = addr - bias;
	struct rec_line r;

	*line = 0;
	if (!cu)
		return NULL;
	if (u->line_asks < LINE_ASKS) {
		u->line_asks++;
		module_lines(m, dw);
		if (!rec_lines_find(&m->lines, cu, &a, 1, &r)) {
			*line = r.line;
			return r.file;
		}
	}
	Dwfl_Line *l = dwfl_module_getsrc(m->mod, addr);
	return l ? dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL) : NULL;
}

/* File idx of the unit's table (dwarf_getsrcfiles and dwarf_filesrc),
 * NULL: none. */
static const char *unit_file(struct module *m, Dwarf *dw, Dwarf_Die *cu,
			     uint64_t idx)
{
	Dwarf_Files *files;
	size_t nfiles;
	const char *name;

	module_lines(m, dw);
	if (!rec_lines_file(&m->lines, cu, idx, &name))
		return name;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) || idx >= nfiles)
		return NULL;
	return dwarf_filesrc(files, idx, NULL, NULL);
}

/* Records for the functions at addr, outermost first, into b; returns
 * how many, or -1 when no function is there.  The innermost function's
 * chain of functions around it holds the inlined calls, each with its
 * call site in the function around it. */
static int resolve(struct ember_inliner *in, struct module *m, uint64_t addr,
		   struct ember_buf *b)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &bias), found;
	Dwarf_Die *dwfl_cu = cu; /* dwfl_module_getsrc's */
	Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
	int perf = in->flags & EMBER_INLINE_PERF;
	int context = in->flags & EMBER_INLINE_CONTEXT;

	if (!dw)
		return -1;
	if (!cu)
		cu = unit_by_ranges(m, dw, addr - bias, &found);
	if (!cu)
		return -1;
	struct unit *u = unit_of(m, cu);
	int32_t f = innermost(u, addr - bias);
	if (f < 0)
		return -1;
	size_t start = b->len;
	int nfuncs = 0;
	const char *file = NULL;
	int line = 0;
	if (context)
		file = line_at(m, dw, dwfl_cu, u, addr, bias, &line);
	for (int k = 0; f >= 0 && k < MAX_DEPTH; f = u->fns[f].parent, k++) {
		struct fn *fn = &u->fns[f];
		/* perf: the function the calls are inlined into is the
		 * symbol's frame */
		if (perf && !fn->inlined)
			break;
		const char *name = fn_name(in, dw, fn);
		/* prepend: the result is outermost first */
		ember_buf_reset(&in->tmp);
		ember_buf_adds(&in->tmp, name);
		ember_buf_addch(&in->tmp, '\t');
		if (context)
			add_loc(&in->tmp, file, line, in->flags);
		ember_buf_addch(&in->tmp, '\n');
		ember_buf_grow(b, in->tmp.len);
		memmove(b->buf + start + in->tmp.len, b->buf + start,
			b->len - start);
		memcpy(b->buf + start, in->tmp.buf, in->tmp.len);
		ember_buf_setlen(b, b->len + in->tmp.len);
		nfuncs++;
		if (!fn->inlined)
			break;
		if (!context)
			continue;
		/* the function around this inlined call runs at its site */
		Dwarf_Die die;
		Dwarf_Attribute attr;
		Dwarf_Word cf = 0, cl = 0;
		if (dwarf_offdie(dw, fn->die, &die)) {
			dwarf_formudata(
			    dwarf_attr(&die, DW_AT_call_file, &attr), &cf);
			dwarf_formudata(
			    dwarf_attr(&die, DW_AT_call_line, &attr), &cl);
		}
		file = unit_file(m, dw, cu, cf);
		line = (int)cl;
	}
	return nfuncs;
}

/* The script's fallback when addr2line knows nothing of the address (an
 * absolute address from an old perf): the symbol's value from the symbol
 * table plus the +0x offset perf printed. */
static int symbol_address(Dwfl_Module *mod, const char *sym, size_t n,
			  uint64_t *addr)
{
	const char *plus = sym ? memrchr(sym, '+', n) : NULL;
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

static uint64_t result_hash(uint64_t addr, uint32_t module)
{
	return ember_hash(&addr, sizeof(addr)) ^
	       (module * 0x9e3779b97f4a7c15ull);
}

static void grow_results(struct ember_inliner *in)
{
	size_t mask = in->mask * 2 + 1;
	struct result *tab = ember_xcalloc(mask + 1, sizeof(*tab));

	for (size_t k = 0; k <= in->mask; k++) {
		if (!in->tab[k].used)
			continue;
		size_t j =
		    result_hash(in->tab[k].addr, in->tab[k].module) & mask;
		while (tab[j].used)
			j = (j + 1) & mask;
		tab[j] = in->tab[k];
	}
	free(in->tab);
	in->tab = tab;
	in->mask = mask;
}

int ember_inliner_at(struct ember_inliner *in, uint32_t id, uint64_t addr,
		     const char *sym, size_t sym_len, struct ember_buf *out)
{
	size_t i;

	if (id >= in->nmods || !in->mods[id].mod)
		return 0;
	for (i = result_hash(addr, id) & in->mask; in->tab[i].used;
	     i = (i + 1) & in->mask) {
		struct result *r = &in->tab[i];
		if (r->addr == addr && r->module == id) {
			ember_buf_add(out, in->store.buf + r->off, r->len);
			return (int)r->nrec;
		}
	}
	struct module *m = &in->mods[id];
	size_t start = in->store.len;
	uint64_t a2;
	int n = resolve(in, m, addr, &in->store);
	if (n < 0 && !(in->flags & EMBER_INLINE_PERF) &&
	    symbol_address(m->mod, sym, sym_len, &a2))
		n = resolve(in, m, a2, &in->store);
	if (n < 0)
		n = 0;
	struct result *r = &in->tab[i];
	r->addr = addr;
	r->module = id;
	r->off = (uint32_t)start;
	r->len = (uint32_t)(in->store.len - start);
	r->nrec = (uint16_t)(n > UINT16_MAX ? UINT16_MAX : n);
	r->used = 1;
	if (++in->n * 2 > in->mask)
		grow_results(in);
	ember_buf_add(out, in->store.buf + start, in->store.len - start);
	return n;
}

/* ---- a line and its function, without the inlined calls -------------- */

static int cmp_lfn(const void *pa, const void *pb)
{
	const struct lfn *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

#define LUNIT_DEPTH 16

/* The unit's out-of-line functions: its top-level DIEs and those of its
 * namespaces, each stepped over whole (by DW_AT_sibling where the
 * compiler wrote one), a small part of what read_unit walks. */
/* dwarf_decl_file's answer, the file table from lines.c: libdw's would
 * build and sort the unit's whole line table for it. */
static const char *decl_file(struct module *m, Dwarf_Die *d)
{
	Dwarf_Attribute attr;
	Dwarf_Word idx;
	Dwarf_Die cudie;
	const char *name;

	if (dwarf_formudata(dwarf_attr_integrate(d, DW_AT_decl_file, &attr),
			    &idx) ||
	    !idx)
		return NULL;
	/* the attribute's unit: a declaration's may be another one */
	if (m->lines_ready &&
	    dwarf_cu_die(attr.cu, &cudie, NULL, NULL, NULL, NULL, NULL, NULL) &&
	    !rec_lines_file(&m->lines, &cudie, idx, &name))
		return name;
	return dwarf_decl_file(d);
}

static void read_lunit(struct ember_inliner *in, struct module *m,
		       struct lunit *u, Dwarf_Die *cudie)
{
	Dwarf_Die stack[LUNIT_DEPTH];
	size_t alloc = 0;
	int depth = 0;

	if (dwarf_child(cudie, &stack[0]) != 0)
		return;
	for (;;) {
		Dwarf_Die *d = &stack[depth];
		int tag = dwarf_tag(d), line = 0, named = 0;
		uint32_t link = 0;
		const char *file = NULL;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while (tag == DW_TAG_subprogram &&
		       (off = dwarf_ranges(d, off, &base, &lo, &hi)) > 0) {
			if (hi <= lo)
				continue;
			if (!named) {
				Dwarf_Attribute attr;
				const char *ln =
				    dwarf_formstring(dwarf_attr_integrate(
					d, DW_AT_linkage_name, &attr));
				if (!ln)
					ln = dwarf_formstring(
					    dwarf_attr_integrate(
						d, DW_AT_MIPS_linkage_name,
						&attr));
				if (ln) {
					link = (uint32_t)in->names.len + 1;
					ember_buf_add(&in->names, ln,
						      strlen(ln) + 1);
				}
				if (dwarf_decl_line(d, &line) || line < 0)
					line = 0;
				file = decl_file(m, d);
				named = 1;
			}
			EMBER_GROW(u->fns, u->n + 1, alloc);
			u->fns[u->n++] =
			    (struct lfn){lo, hi, file, (uint32_t)line, link};
		}
		if ((tag == DW_TAG_namespace || tag == DW_TAG_module) &&
		    depth + 1 < LUNIT_DEPTH &&
		    dwarf_child(d, &stack[depth + 1]) == 0) {
			depth++;
			continue;
		}
		while (dwarf_siblingof(&stack[depth], &stack[depth]) != 0)
			if (--depth < 0)
				goto done;
	}
done:
	if (u->n)
		qsort(u->fns, u->n, sizeof(*u->fns), cmp_lfn);
}

/* The out-of-line function of unit cu at addr, or NULL. */
static const struct lfn *lfn_at(struct ember_inliner *in, struct module *m,
				Dwarf_Die *cu, uint64_t addr)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	struct lunit *u = NULL;

	if (m->llast < m->nlunits && m->lunits[m->llast].off == off)
		u = &m->lunits[m->llast];
	for (size_t i = 0; !u && i < m->nlunits; i++)
		if (m->lunits[i].off == off) {
			m->llast = i;
			u = &m->lunits[i];
		}
	if (!u) {
		EMBER_GROW(m->lunits, m->nlunits + 1, m->alunits);
		u = &m->lunits[m->nlunits];
		memset(u, 0, sizeof(*u));
		u->off = off;
		read_lunit(in, m, u, cu);
		m->llast = m->nlunits++;
	}
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (u->fns[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* functions do not nest: the last one starting at or before addr,
	 * or one just before it where two overlap (aliases) */
	for (size_t i = lo; i-- > 0 && lo - i <= 4;)
		if (addr < u->fns[i].hi)
			return &u->fns[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

struct line_ask {
	Dwarf_Off cu;
	size_t i;
	uint64_t addr;
};

static int line_ask_cmp(const void *pa, const void *pb)
{
	const struct line_ask *a = pa, *b = pb;

	if (a->cu != b->cu)
		return a->cu < b->cu ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* The lines of the addresses of one unit (asks[0..n), sorted), read by
 * ember where it can, else by libdw. */
static void unit_lines(struct ember_inliner *in, struct module *m,
		       Dwarf_Die *cu, Dwarf_Addr bias,
		       const struct line_ask *asks, size_t n,
		       struct ember_inliner_src *out)
{
	uint64_t *a = ember_xreallocarray(NULL, n, sizeof(*a));
	struct rec_line *r = ember_xreallocarray(NULL, n, sizeof(*r));

	for (size_t j = 0; j < n; j++)
		a[j] = asks[j].addr - bias;
	if (rec_lines_find(&m->lines, cu, a, n, r)) {
		for (size_t j = 0; j < n; j++) {
			Dwfl_Line *l = dwfl_module_getsrc(m->mod, asks[j].addr);
			r[j].line = 0;
			r[j].file = l ? dwfl_lineinfo(l, NULL, &r[j].line, NULL,
						      NULL, NULL)
				      : NULL;
		}
	}
	for (size_t j = 0; j < n; j++) {
		struct ember_inliner_src *o = &out[asks[j].i];
		if (r[j].file && r[j].line > 0) {
			o->file = in->flags & EMBER_INLINE_PATHS
				      ? r[j].file
				      : base_name(r[j].file);
			o->line = (uint32_t)r[j].line;
		}
	}
	free(a);
	free(r);
}

void ember_inliner_lines(struct ember_inliner *in, uint32_t id,
			 const uint64_t *addr, size_t n,
			 struct ember_inliner_src *out)
{
	Dwarf_Addr bias;

	memset(out, 0, n * sizeof(*out));
	if (id >= in->nmods || !in->mods[id].mod || !n)
		return;
	struct module *m = &in->mods[id];
	Dwarf *dw = dwfl_module_getdwarf(m->mod, &bias);
	if (!dw)
		return;
	module_lines(m, dw);
	struct line_ask *asks = ember_xreallocarray(NULL, n, sizeof(*asks));
	const struct lfn **fns = ember_xcalloc(n, sizeof(*fns));
	for (size_t i = 0; i < n; i++) {
		Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr[i], &bias);
		asks[i] = (struct line_ask){
		    cu ? dwarf_dieoffset(cu) : (Dwarf_Off)-1, i, addr[i]};
	}
	qsort(asks, n, sizeof(*asks), line_ask_cmp);
	/* a unit's addresses together, each unit's program run once */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && asks[j].cu == asks[i].cu; j++)
			;
		Dwarf_Die cu;
		if (asks[i].cu != (Dwarf_Off)-1 &&
		    dwarf_offdie(dw, asks[i].cu, &cu))
			unit_lines(in, m, &cu, bias, asks + i, j - i, out);
	}
	/* each address's unit as libdwfl found it above, not asked again */
	for (size_t k = 0; k < n; k++) {
		size_t i = asks[k].i;
		Dwarf_Die found, *cu = NULL;
		if (asks[k].cu != (Dwarf_Off)-1)
			cu = dwarf_offdie(dw, asks[k].cu, &found);
		else
			cu = unit_by_ranges(m, dw, addr[i] - bias, &found);
		fns[i] = cu ? lfn_at(in, m, cu, addr[i] - bias) : NULL;
	}
	/* the names' buffer moves while units are read: pointers last */
	for (size_t i = 0; i < n; i++) {
		const struct lfn *f = fns[i];
		if (!f)
			continue;
		out[i].linkage_name =
		    f->link ? in->names.buf + f->link - 1 : NULL;
		out[i].decl_line = f->decl_line;
		out[i].decl_file =
		    f->decl_file && !(in->flags & EMBER_INLINE_PATHS)
			? base_name(f->decl_file)
			: f->decl_file;
	}
	free(fns);
	free(asks);
}

/* perf script prints an address of a file as its offset in the file:
 * the address in the ELF file's terms is in the loadable segment holding
 * that offset (the same where, as GNU ld lays files out, the executable
 * segment's address is its offset; not so with lld).  Kept as it is
 * outside every segment (an absolute address from an old perf). */
static uint64_t file_address(struct module *m, uint64_t off)
{
	GElf_Addr bias;
	Elf *elf;
	size_t n;

	for (size_t i = 0; i < m->nloads; i++) {
		const struct rec_load *l = &m->loads[i];
		if (off >= l->off && off - l->off < l->filesz)
			return off - l->off + l->vaddr;
	}
	/* a file the segments were not read from (32-bit) is the module */
	if (m->nloads || !m->mod ||
	    !(elf = dwfl_module_getelf(m->mod, &bias)) ||
	    elf_getphdrnum(elf, &n))
		return off;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    off >= ph.p_offset && off - ph.p_offset < ph.p_filesz)
			return off - ph.p_offset + ph.p_vaddr;
	}
	return off;
}

int ember_inliner_lookup(struct ember_inliner *in, const char *path,
			 size_t path_len, uint64_t addr, const char *sym,
			 size_t sym_len, struct ember_buf *out)
{
	uint32_t id;

	if (memchr(path, '\0', path_len)) {
		/* no such file: a module none can open */
		if (ember_inliner_module(in, path, path_len, "", -1, -1, &id))
			return -1;
	} else {
		char *p = ember_xmemdup(path, path_len);
		int err =
		    ember_inliner_module(in, path, path_len, p, -1, -1, &id);
		free(p);
		if (err)
			return -1;
	}
	ember_inliner_at(in, id, file_address(&in->mods[id], addr), sym,
			 sym_len, out);
	return 0;
}
