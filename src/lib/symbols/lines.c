/*
 * A unit's line program (.debug_line, DWARF 2 to 5) run once for the
 * addresses asked, picking for each the row libdw's dwfl_module_getsrc
 * picks, without the whole table libdw builds and sorts for it.
 *
 * libdw (elfutils 0.188, read_srclines and dwfl_module_getsrc) sorts the
 * unit's rows by (address, normal row after end_sequence, order in the
 * program), marks the last one end_sequence, and gives for an address
 * the last row at or before it, none when that row ends a sequence.  So
 * the row for address a is the greatest by that key among the rows at or
 * before a, and none when it ends a sequence or is at the unit's highest
 * address.  Within a sequence the addresses only grow: the sorted hits
 * are walked along each sequence's rows (a hit takes the row before the
 * first one past it); a hit at or past a sequence's end takes the
 * sequence's last row (its end, or a normal row at that address), the
 * sequences' last rows sorted, a few per unit.  Whatever libdw would
 * refuse or read another way (a sequence going back, a form or opcode
 * not handled here, a value its fields cannot hold) is left to libdw:
 * the caller asks dwfl_module_getsrc.
 */
#include <dwarf.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/elf.h"
#include "symbols/lines.h"

static void section(Elf *elf, const char *name, const unsigned char **p,
		    size_t *n, int *bad)
{
	GElf_Shdr sh;
	Elf_Scn *scn = rec_elf_find_section(elf, name, &sh);
	Elf_Data *d;

	*p = NULL;
	*n = 0;
	if (!scn || sh.sh_type == SHT_NOBITS)
		return;
	if (sh.sh_flags & SHF_COMPRESSED) {
		*bad = 1;
		return;
	}
	d = elf_getdata(scn, NULL);
	if (d && d->d_buf) {
		*p = d->d_buf;
		*n = d->d_size;
	}
}

void rec_lines_init(struct rec_lines *l, Dwarf *dw)
{
	Elf *elf = dw ? dwarf_getelf(dw) : NULL;
	const char *id;
	int bad = 0;

	memset(l, 0, sizeof(*l));
	ember_arena_init(&l->names);
	/* the readers here are little-endian's */
	if (!elf || !(id = elf_getident(elf, NULL)) ||
	    id[EI_DATA] != ELFDATA2LSB)
		return;
	section(elf, ".debug_line", &l->line, &l->nline, &bad);
	section(elf, ".debug_line_str", &l->line_str, &l->nline_str, &bad);
	section(elf, ".debug_str", &l->str, &l->nstr, &bad);
	l->usable = l->line && !bad;
}

/* ---- reading ----------------------------------------------------------- */

struct cur {
	const unsigned char *p, *end;
	int bad;
};

/* As libdw reads them: at most 10 bytes; one not ending there is refused
 * here (libdw makes it UINT64_MAX). */
static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10 && c->p < c->end; i++) {
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	c->bad = 1;
	return 0;
}

static int64_t sleb(struct cur *c)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 10 && c->p < c->end; i++) {
		unsigned char b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if ((b & 0x40) && i < 9)
				v |= -((uint64_t)1 << ((i + 1) * 7));
			return (int64_t)v;
		}
	}
	c->bad = 1;
	return 0;
}

static uint64_t fixed(struct cur *c, unsigned size)
{
	uint64_t v = 0;

	if ((size_t)(c->end - c->p) < size) {
		c->bad = 1;
		return 0;
	}
	/* little-endian only: the caller checked the file is */
	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += size;
	return v;
}

/* A string of the section at off, NUL-terminated there; NULL: none. */
static const char *sec_string(const unsigned char *s, size_t n, uint64_t off)
{
	if (!s || off >= n || !memchr(s + off, '\0', n - off))
		return NULL;
	return (const char *)s + off;
}

/* One entry of a DWARF 5 directory or file table: the path (if this is
 * the path's form), the directory index (if that one's); -1: a form left
 * to libdw. */
static int entry_form(struct rec_lines *l, struct cur *c, unsigned form,
		      unsigned osize, const char **str, uint64_t *num)
{
	switch (form) {
	case DW_FORM_string: {
		const unsigned char *z = memchr(c->p, '\0', c->end - c->p);
		if (!z)
			return -1;
		*str = (const char *)c->p;
		c->p = z + 1;
		return 0;
	}
	case DW_FORM_line_strp:
		*str = sec_string(l->line_str, l->nline_str, fixed(c, osize));
		return *str && !c->bad ? 0 : -1;
	case DW_FORM_strp:
		*str = sec_string(l->str, l->nstr, fixed(c, osize));
		return *str && !c->bad ? 0 : -1;
	case DW_FORM_udata:
		*num = uleb(c);
		break;
	case DW_FORM_data1:
		*num = fixed(c, 1);
		break;
	case DW_FORM_data2:
		*num = fixed(c, 2);
		break;
	case DW_FORM_data4:
		*num = fixed(c, 4);
		break;
	case DW_FORM_data8:
		*num = fixed(c, 8);
		break;
	case DW_FORM_data16:
		fixed(c, 8);
		fixed(c, 8);
		break;
	case DW_FORM_block: {
		uint64_t len = uleb(c);
		if (c->bad || len > (uint64_t)(c->end - c->p))
			return -1;
		c->p += len;
		break;
	}
	default:
		return -1;
	}
	return c->bad ? -1 : 0;
}

struct file {
	const char *name; /* as the table has it */
	size_t dir;
	const char *full; /* made when first asked */
};

struct dir {
	const char *s; /* NULL: no DW_AT_comp_dir (DWARF < 5) */
	size_t len;
};

struct table {
	struct file *files;
	size_t nfiles;
	struct dir *dirs;
	size_t ndirs;
};

/* The file's name as libdw makes it: absolute as it is, else after its
 * directory. */
static const char *file_name(struct rec_lines *l, struct table *t, size_t i)
{
	struct file *f = &t->files[i];

	if (f->full)
		return f->full;
	if (!f->name)
		return f->full = "???";
	const struct dir *d = &t->dirs[f->dir];
	if (f->name[0] == '/' || !d->s)
		return f->full = f->name;
	size_t n = strlen(f->name);
	char *s = ember_arena_alloc(&l->names, d->len + 1 + n + 1);
	memcpy(s, d->s, d->len);
	s[d->len] = '/';
	memcpy(s + d->len + 1, f->name, n + 1);
	return f->full = s;
}

/* The directories and files of a DWARF 5 table; 0 or -1. */
static int v5_table(struct rec_lines *l, struct cur *c, unsigned osize,
		    int files, struct table *t)
{
	unsigned forms[256], nforms, path = 256, idx = 256;

	if (c->p >= c->end)
		return -1;
	nforms = *c->p++;
	for (unsigned i = 0; i < nforms; i++) {
		uint64_t desc = uleb(c), form = uleb(c);
		if (c->bad)
			return -1;
		forms[i] = (unsigned)(form & 0xffff); /* libdw's uint16_t */
		if ((desc & 0xffff) == DW_LNCT_path)
			path = i;
		else if (files && (desc & 0xffff) == DW_LNCT_directory_index)
			idx = i;
	}
	if (nforms && (path == 256 || (files && idx == 256)))
		return -1;
	uint64_t n = uleb(c);
	if (c->bad || (!nforms && n) ||
	    (nforms && n > (uint64_t)(c->end - c->p) / nforms))
		return -1;
	if (files) {
		t->nfiles = n ? n : 1;
		t->files = ember_xcalloc(t->nfiles, sizeof(*t->files));
	} else {
		t->ndirs = n;
		t->dirs = ember_xcalloc(n ? n : 1, sizeof(*t->dirs));
	}
	for (uint64_t e = 0; e < n; e++) {
		const char *s = NULL;
		uint64_t dir = UINT64_MAX;
		for (unsigned m = 0; m < nforms; m++) {
			const char *str = NULL;
			uint64_t num = UINT64_MAX;
			if (entry_form(l, c, forms[m], osize, &str, &num))
				return -1;
			if (m == path)
				s = str;
			else if (m == idx)
				dir = num;
		}
		if (!s)
			return -1;
		if (!files) {
			t->dirs[e] = (struct dir){s, strlen(s)};
			continue;
		}
		if (dir == UINT64_MAX || dir >= t->ndirs)
			return -1;
		t->files[e] = (struct file){s, (size_t)dir, NULL};
	}
	return 0;
}

/* The directories and files of a DWARF 2-4 table; 0 or -1. */
static int v4_table(struct cur *c, const char *comp_dir, struct table *t)
{
	size_t ndirs = 1, nfiles = 1, a = 0;
	const unsigned char *z;

	for (const unsigned char *p = c->p; p < c->end && *p; p = z + 1) {
		if (!(z = memchr(p, '\0', c->end - p)))
			return -1;
		ndirs++;
	}
	t->dirs = ember_xcalloc(ndirs, sizeof(*t->dirs));
	t->ndirs = ndirs;
	t->dirs[0] = (struct dir){comp_dir, comp_dir ? strlen(comp_dir) : 0};
	for (size_t i = 1; i < ndirs; i++) {
		z = memchr(c->p, '\0', c->end - c->p);
		t->dirs[i] =
		    (struct dir){(const char *)c->p, (size_t)(z - c->p)};
		c->p = z + 1;
	}
	if (c->p >= c->end || *c->p)
		return -1;
	c->p++;
	EMBER_GROW(t->files, 1, a);
	t->files[0] = (struct file){NULL, 0, NULL};
	while (c->p < c->end && *c->p) {
		if (!(z = memchr(c->p, '\0', c->end - c->p)))
			return -1;
		const char *name = (const char *)c->p;
		c->p = z + 1;
		if (c->p >= c->end)
			return -1;
		uint64_t dir = uleb(c);
		if (c->bad || dir >= ndirs || c->p >= c->end)
			return -1;
		uleb(c); /* mtime */
		if (c->bad || c->p >= c->end)
			return -1;
		uleb(c); /* length */
		if (c->bad)
			return -1;
		EMBER_GROW(t->files, nfiles + 1, a);
		t->files[nfiles++] = (struct file){name, (size_t)dir, NULL};
	}
	if (c->p >= c->end)
		return -1;
	c->p++;
	t->nfiles = nfiles;
	return 0;
}

/* ---- the rows for the hits --------------------------------------------- */

/* A row, ordered as libdw sorts them: address, then end_sequence before
 * a normal row, then the order of the program. */
struct row {
	uint64_t addr;
	size_t seq;
	uint32_t file;
	int32_t line;
	uint8_t normal;
};

static int row_after(const struct row *a, const struct row *b)
{
	if (a->addr != b->addr)
		return a->addr > b->addr;
	if (a->normal != b->normal)
		return a->normal > b->normal;
	return a->seq > b->seq;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	return row_after(a, b) ? 1 : row_after(b, a) ? -1 : 0;
}

struct pick {
	const uint64_t *addr;
	size_t n, ptr;
	struct row *best;
	uint8_t *set;
	struct row *tails;
	size_t ntails, atails;
	struct row prev;
	int inseq;
	size_t nrows;
	uint64_t amax;
};

static void offer(struct pick *k, size_t i, const struct row *r)
{
	if (!k->set[i] || row_after(r, &k->best[i])) {
		k->best[i] = *r;
		k->set[i] = 1;
	}
}

static size_t lower_bound(const uint64_t *a, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (a[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void push_tail(struct pick *k, const struct row *r)
{
	EMBER_GROW(k->tails, k->ntails + 1, k->atails);
	k->tails[k->ntails++] = *r;
}

/* A row of the program; -1 when a sequence goes back. */
static inline int add_row(struct pick *k, uint64_t addr, uint32_t file,
			  int32_t line, int end)
{
	struct row r = {addr, k->nrows++, file, line, (uint8_t)!end};

	if (r.seq == 0 || addr > k->amax)
		k->amax = addr;
	if (!k->inseq) {
		k->ptr = lower_bound(k->addr, k->n, addr);
		if (end) {
			push_tail(k, &r);
		} else {
			k->inseq = 1;
			k->prev = r;
		}
		return 0;
	}
	if (addr < k->prev.addr)
		return -1;
	for (; k->ptr < k->n && k->addr[k->ptr] < addr; k->ptr++)
		offer(k, k->ptr, &k->prev);
	if (!end) {
		k->prev = r;
		return 0;
	}
	push_tail(k, k->prev.addr == addr ? &k->prev : &r);
	k->inseq = 0;
	return 0;
}

/* ---- the program --------------------------------------------------------- */

struct header {
	unsigned version, osize, min_len, max_ops, line_range, opcode_base;
	int line_base, default_stmt;
	const unsigned char *std_len; /* [opcode], 1 <= opcode < opcode_base */
};

static int read_header(struct rec_lines *l, struct cur *c, unsigned asize,
		       const char *comp_dir, struct header *h, struct table *t)
{
	uint64_t len = fixed(c, 4), hlen;

	h->osize = 4;
	if (len == 0xffffffff) {
		len = fixed(c, 8);
		h->osize = 8;
	}
	if (c->bad || len > (uint64_t)(c->end - c->p))
		return -1;
	c->end = c->p + len;
	h->version = (unsigned)fixed(c, 2);
	if (c->bad || h->version < 2 || h->version > 5)
		return -1;
	if (h->version >= 5 &&
	    (fixed(c, 1) != asize || fixed(c, 1) != 0 || c->bad))
		return -1;
	hlen = fixed(c, h->osize);
	if (c->bad || hlen > (uint64_t)(c->end - c->p))
		return -1;
	const unsigned char *hend = c->p + hlen;
	h->min_len = (unsigned)fixed(c, 1);
	h->max_ops = h->version >= 4 ? (unsigned)fixed(c, 1) : 1;
	if (c->bad || !h->max_ops || (size_t)(c->end - c->p) < 4)
		return -1;
	h->default_stmt = *c->p++;
	h->line_base = (int8_t)*c->p++;
	h->line_range = *c->p++;
	h->opcode_base = *c->p++;
	/* libdw checks DW_LNE_set_discriminator's length at [4] */
	if (h->default_stmt > 1 || h->opcode_base < 5 ||
	    (size_t)(c->end - c->p) < h->opcode_base - 1u)
		return -1;
	h->std_len = c->p - 1;
	c->p += h->opcode_base - 1;
	if (h->version < 5) {
		if (v4_table(c, comp_dir, t))
			return -1;
	} else if (v5_table(l, c, h->osize, 0, t) ||
		   v5_table(l, c, h->osize, 1, t)) {
		return -1;
	}
	/* libdw reads a CUBIN's 4 bytes more here: left to it */
	return c->p == hend ? 0 : -1;
}

struct state {
	uint64_t addr;
	uint32_t op_index, file, column, isa, discriminator;
	int64_t line;
	int is_stmt;
};

static void reset(struct state *s, const struct header *h)
{
	memset(s, 0, sizeof(*s));
	s->file = 1;
	s->line = 1;
	s->is_stmt = h->default_stmt;
}

/* libdw's arithmetic: 32-bit operation advance */
static void advance(struct state *s, const struct header *h, uint32_t adv)
{
	uint32_t ops = s->op_index + adv;

	s->addr += (uint32_t)(h->min_len * (ops / h->max_ops));
	s->op_index = ops % h->max_ops;
}

/* A row as libdw stores it, or -1 where its fields cannot hold it. */
static inline int emit(struct pick *k, const struct state *s, int end)
{
	if (s->line < INT_MIN || s->line > INT_MAX || s->column > 0xffff ||
	    s->isa > 0xff || s->discriminator > 0xffffff)
		return -1;
	return add_row(k, s->addr, s->file, (int32_t)s->line, end);
}

static int run(struct cur *c, const struct header *h, unsigned asize,
	       struct pick *k)
{
	struct state s;

	reset(&s, h);
	while (c->p < c->end) {
		unsigned op = *c->p++;
		if (op >= h->opcode_base) {
			if (!h->line_range)
				return -1;
			op -= h->opcode_base;
			s.line += h->line_base + (int)(op % h->line_range);
			advance(&s, h, op / h->line_range);
			if (emit(k, &s, 0))
				return -1;
			s.discriminator = 0;
			continue;
		}
		if (op == 0) {
			if (c->end - c->p < 2)
				return -1;
			unsigned len = *c->p++; /* as libdw reads it */
			if ((size_t)(c->end - c->p) < len || !len)
				return -1;
			unsigned sub = *c->p++;
			switch (sub) {
			case DW_LNE_end_sequence:
				if (emit(k, &s, 1))
					return -1;
				reset(&s, h);
				break;
			case DW_LNE_set_address:
				s.op_index = 0;
				if (asize != 4 && asize != 8)
					return -1;
				s.addr = fixed(c, asize);
				break;
			case DW_LNE_set_discriminator:
				if (h->std_len[4] != 1 || c->p >= c->end)
					return -1;
				s.discriminator = (uint32_t)uleb(c);
				break;
			case DW_LNE_define_file:
			case DW_LNE_NVIDIA_inlined_call:
			case DW_LNE_NVIDIA_set_function_name:
				return -1; /* left to libdw */
			default:
				c->p += len - 1;
				break;
			}
			if (c->bad)
				return -1;
			continue;
		}
		if (op > DW_LNS_set_isa) {
			for (unsigned n = h->std_len[op]; n > 0; n--) {
				if (c->p >= c->end)
					return -1;
				uleb(c);
			}
			if (c->bad)
				return -1;
			continue;
		}
		unsigned want =
		    op == DW_LNS_advance_pc || op == DW_LNS_advance_line ||
		    op == DW_LNS_set_file || op == DW_LNS_set_column ||
		    op == DW_LNS_fixed_advance_pc || op == DW_LNS_set_isa;
		if (h->std_len[op] != want)
			return -1;
		if (want && op != DW_LNS_fixed_advance_pc && c->p >= c->end)
			return -1;
		switch (op) {
		case DW_LNS_copy:
			if (emit(k, &s, 0))
				return -1;
			s.discriminator = 0;
			break;
		case DW_LNS_advance_pc:
			advance(&s, h, (uint32_t)uleb(c));
			break;
		case DW_LNS_advance_line:
			s.line += (int32_t)sleb(c);
			break;
		case DW_LNS_set_file:
			s.file = (uint32_t)uleb(c);
			break;
		case DW_LNS_set_column:
			s.column = (uint32_t)uleb(c);
			break;
		case DW_LNS_negate_stmt:
			s.is_stmt = !s.is_stmt;
			break;
		case DW_LNS_const_add_pc:
			if (!h->line_range)
				return -1;
			advance(&s, h, (255 - h->opcode_base) / h->line_range);
			break;
		case DW_LNS_fixed_advance_pc:
			s.addr += fixed(c, 2);
			s.op_index = 0;
			break;
		case DW_LNS_set_isa:
			s.isa = (uint32_t)uleb(c);
			break;
		default: /* basic_block, prologue_end, epilogue_begin */
			break;
		}
		if (c->bad)
			return -1;
	}
	return 0;
}

/* A unit's header read once: its file table, where its program starts,
 * and whether the program was run to its end (1), not yet (0), or is
 * left to libdw (-1). */
struct rec_lines_unit {
	Dwarf_Off off;
	int state;
	uint8_t asize;
	struct header h;
	struct cur prog;
	struct table t;
};

static void unit_release(struct rec_lines_unit *u)
{
	free(u->t.files);
	free(u->t.dirs);
}

static struct rec_lines_unit *unit_read(struct rec_lines *l, Dwarf_Die *cudie)
{
	Dwarf_Off off = dwarf_dieoffset(cudie);
	struct rec_lines_unit *u;

	if (l->last < l->nunit && l->unit[l->last].off == off)
		return &l->unit[l->last];
	for (size_t i = 0; i < l->nunit; i++)
		if (l->unit[i].off == off) {
			l->last = i;
			return &l->unit[i];
		}
	EMBER_GROW(l->unit, l->nunit + 1, l->aunit);
	l->last = l->nunit;
	u = &l->unit[l->nunit++];
	memset(u, 0, sizeof(*u));
	u->off = off;
	u->state = -1;

	Dwarf_Attribute attr;
	Dwarf_Word at;
	Dwarf_Half version;
	uint8_t type, osize;
	if (!l->usable ||
	    dwarf_cu_info(cudie->cu, &version, &type, NULL, NULL, NULL,
			  &u->asize, &osize) ||
	    (type != DW_UT_compile && type != DW_UT_partial &&
	     type != DW_UT_skeleton))
		return u;
	Dwarf_Attribute *a = dwarf_attr(cudie, DW_AT_stmt_list, &attr);
	if (!a ||
	    (dwarf_whatform(a) != DW_FORM_sec_offset &&
	     dwarf_whatform(a) != DW_FORM_data4 &&
	     dwarf_whatform(a) != DW_FORM_data8) ||
	    dwarf_formudata(a, &at) || at >= l->nline)
		return u;
	const char *comp_dir =
	    dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &attr));
	u->prog = (struct cur){l->line + at, l->line + l->nline, 0};
	if (!read_header(l, &u->prog, u->asize, comp_dir, &u->h, &u->t))
		u->state = 0;
	return u;
}

/* Runs u's program for the hits of k; 0, or -1 (u left to libdw). */
static int unit_run(struct rec_lines_unit *u, struct pick *k)
{
	struct cur c = u->prog;

	if (u->state < 0)
		return -1;
	if (run(&c, &u->h, u->asize, k)) {
		u->state = -1;
		return -1;
	}
	u->state = 1;
	return 0;
}

int rec_lines_file(struct rec_lines *l, Dwarf_Die *cudie, uint64_t idx,
		   const char **name)
{
	struct rec_lines_unit *u = unit_read(l, cudie);

	*name = NULL;
	if (u->state == 0) {
		/* libdw has no files where the program is refused */
		struct pick k = {0};
		unit_run(u, &k);
		free(k.tails);
	}
	if (u->state < 0)
		return -1;
	if (idx < u->t.nfiles)
		*name = file_name(l, &u->t, (size_t)idx);
	return 0;
}

int rec_lines_find(struct rec_lines *l, Dwarf_Die *cudie, const uint64_t *addr,
		   size_t n, struct rec_line *out)
{
	struct rec_lines_unit *u = unit_read(l, cudie);
	struct pick k = {0};
	int ret = -1;

	if (!n)
		goto out;
	k.addr = addr;
	k.n = n;
	k.best = ember_xmalloc(n * sizeof(*k.best));
	k.set = ember_xcalloc(n, 1);
	if (unit_run(u, &k))
		goto out;
	if (k.inseq)
		push_tail(&k, &k.prev);
	if (k.ntails > 1)
		qsort(k.tails, k.ntails, sizeof(*k.tails), row_cmp);
	for (size_t i = 0, j = 0; i < n; i++) {
		while (j < k.ntails && k.tails[j].addr <= addr[i])
			j++;
		if (j)
			offer(&k, i, &k.tails[j - 1]);
		const struct row *r = &k.best[i];
		out[i] = (struct rec_line){NULL, 0};
		/* the highest row is marked end_sequence by libdw; a file not
		 * in the table is none, the line kept (dwfl_lineinfo's) */
		if (k.set[i] && r->normal && r->addr != k.amax)
			out[i] = (struct rec_line){
			    r->file < u->t.nfiles ? file_name(l, &u->t, r->file)
						  : NULL,
			    r->line};
	}
	ret = 0;
out:
	if (ret)
		l->fallbacks++;
	else
		l->units++;
	free(k.best);
	free(k.set);
	free(k.tails);
	return ret;
}

void rec_lines_release(struct rec_lines *l)
{
	for (size_t i = 0; i < l->nunit; i++)
		unit_release(&l->unit[i]);
	free(l->unit);
	ember_arena_release(&l->names);
	memset(l, 0, sizeof(*l));
}
