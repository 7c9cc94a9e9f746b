/*
 * .eh_frame and .eh_frame_hdr: finds the FDE covering an address, runs its
 * CIE's and its own CFA program up to that address, and turns the row into
 * a compact x86-64 rule (struct ember_cfi_rule).  .debug_frame (what Go
 * and code built without unwind tables carry) is the same format but for
 * its CIE ids and pointers (entry_at) and its absolute addresses.
 *
 * Every read is bounds-checked against the section; malformed CFI gives
 * EMBER_EFORMAT, never a crash.  The search table is the header's (zero
 * cost at load) when it is sound, else one built by scanning .eh_frame.
 * Only the CFA, the return-address column and rbp are tracked; the other
 * registers' instructions are decoded and ignored.  DWARF expressions go
 * to unwind-expr.c.
 */
#include <stdlib.h>
#include <string.h>

#include "unwind/unwind-cfi.h"

/* DWARF register numbers on x86-64 */
#define REG_RBX 3
#define REG_RBP 6
#define REG_RSP 7
#define REG_R12 12
#define REG_R15 15

/* pointer encodings (DW_EH_PE_*) */
#define PE_OMIT	    0xff
#define PE_FMT	    0x0f
#define PE_APP	    0x70
#define PE_INDIRECT 0x80
#define PE_ABSPTR   0x00
#define PE_PCREL    0x10
#define PE_DATAREL  0x30

/*
 * Reads a pointer in encoding enc.  field_addr is the address the field
 * has in the target's address space (for pcrel), data the base of datarel.
 * Indirect pointers are not followed (only personality routines use them,
 * and those are skipped).  Returns 0 or -1 for an unsupported encoding.
 */
static int rd_ptr(struct ember_cur *c, uint8_t enc, uint64_t field_addr,
		  uint64_t data, uint64_t *out)
{
	uint64_t v;

	if (enc == PE_OMIT)
		return -1;
	switch (enc & PE_FMT) {
	case 0x00:
		v = ember_cur_n(c, 8);
		break;
	case 0x01:
		v = ember_cur_uleb(c);
		break;
	case 0x02:
		v = ember_cur_n(c, 2);
		break;
	case 0x03:
		v = ember_cur_n(c, 4);
		break;
	case 0x04:
		v = ember_cur_n(c, 8);
		break;
	case 0x09:
		v = (uint64_t)ember_cur_sleb(c);
		break;
	case 0x0a:
		v = (uint64_t)(int64_t)(int16_t)ember_cur_n(c, 2);
		break;
	case 0x0b:
		v = (uint64_t)(int64_t)(int32_t)ember_cur_n(c, 4);
		break;
	case 0x0c:
		v = ember_cur_n(c, 8);
		break;
	default:
		return -1;
	}
	switch (enc & PE_APP) {
	case PE_ABSPTR:
		break;
	case PE_PCREL:
		v += field_addr;
		break;
	case PE_DATAREL:
		v += data;
		break;
	default:
		return -1;
	}
	*out = v;
	return c->bad ? -1 : 0;
}

/* Size of a fixed-size encoding, 0 for variable or unknown ones. */
static size_t enc_size(uint8_t enc)
{
	switch (enc & PE_FMT) {
	case 0x00:
	case 0x04:
	case 0x0c:
		return 8;
	case 0x02:
	case 0x0a:
		return 2;
	case 0x03:
	case 0x0b:
		return 4;
	}
	return 0;
}

/* ---- CIE and FDE headers ---- */

struct cie {
	uint64_t caf;	 /* code alignment factor */
	int64_t daf;	 /* data alignment factor */
	uint64_t ra_reg; /* return-address column */
	uint8_t fde_enc;
	uint8_t signal; /* 'S' */
	uint8_t has_z;
	const uint8_t *ins, *ins_end; /* initial instructions */
};

struct fde {
	uint64_t start, end;
	const uint8_t *ins, *ins_end;
	struct cie cie;
};

/* Address of byte p of .eh_frame in the target's address space. */
static uint64_t eh_va(const struct ember_cfi *c, const uint8_t *p)
{
	return c->eh_addr + (uint64_t)(p - c->eh);
}

/*
 * The entry (CIE or FDE) at offset off: its body [*body, *end) after the
 * CIE id or pointer field, whether it is a CIE and, for an FDE, the offset
 * of its CIE (UINT64_MAX when the pointer leads nowhere).  .eh_frame marks
 * a CIE by id 0 and points back from the field itself; .debug_frame marks
 * it by an id of all ones and points from the section's start.  Returns
 * 0, 1 for the terminator (length 0), -1 when malformed.
 */
static int entry_at(const struct ember_cfi *c, uint64_t off,
		    const uint8_t **body, const uint8_t **end, int *is_cie,
		    uint64_t *cie_off)
{
	struct ember_cur k;
	uint64_t len, id;
	const uint8_t *idp;
	int dw64 = 0;

	if (off >= c->eh_len || c->eh_len - off < 4)
		return -1;
	k.p = c->eh + off;
	k.end = c->eh + c->eh_len;
	k.bad = 0;
	len = ember_cur_n(&k, 4);
	if (len == 0)
		return 1;
	if (len == 0xffffffffu) {
		len = ember_cur_n(&k, 8);
		dw64 = 1;
	}
	if (k.bad || len > (uint64_t)(k.end - k.p) || len < (dw64 ? 8u : 4u))
		return -1;
	*end = k.p + len;
	idp = k.p;
	id = ember_cur_n(&k, dw64 ? 8 : 4);
	*body = k.p;
	if (c->debug) {
		*is_cie = id == (dw64 ? UINT64_MAX : 0xffffffffu);
		*cie_off = id < c->eh_len ? id : UINT64_MAX;
	} else {
		uint64_t at = (uint64_t)(idp - c->eh);
		*is_cie = id == 0;
		*cie_off = id <= at ? at - id : UINT64_MAX;
	}
	return k.bad ? -1 : 0;
}

static int parse_cie(const struct ember_cfi *c, uint64_t off, struct cie *ci)
{
	const uint8_t *body, *end;
	uint64_t dummy_off;
	int is_cie;
	struct ember_cur k;
	const char *aug;
	size_t auglen;

	if (entry_at(c, off, &body, &end, &is_cie, &dummy_off) != 0 || !is_cie)
		return -1;
	k.p = body;
	k.end = end;
	k.bad = 0;
	uint8_t version = (uint8_t)ember_cur_n(&k, 1);
	if (version != 1 && version != 3 && version != 4)
		return -1;
	aug = (const char *)k.p;
	auglen = strnlen(aug, (size_t)(k.end - k.p));
	if (auglen == (size_t)(k.end - k.p))
		return -1;
	k.p += auglen + 1;
	if (version == 4) {
		uint8_t asize = (uint8_t)ember_cur_n(&k, 1);
		uint8_t ssize = (uint8_t)ember_cur_n(&k, 1);
		if (asize != 8 || ssize != 0)
			return -1;
	}
	memset(ci, 0, sizeof(*ci));
	ci->fde_enc = PE_ABSPTR;
	ci->caf = ember_cur_uleb(&k);
	ci->daf = ember_cur_sleb(&k);
	ci->ra_reg = version == 1 ? ember_cur_n(&k, 1) : ember_cur_uleb(&k);
	if (k.bad || ci->caf == 0)
		return -1;
	if (auglen && aug[0] == 'z') {
		uint64_t alen = ember_cur_uleb(&k);
		const uint8_t *aend;
		if (k.bad || alen > (uint64_t)(k.end - k.p))
			return -1;
		aend = k.p + alen;
		ci->has_z = 1;
		for (size_t i = 1; i < auglen; i++) {
			uint64_t dummy;
			uint8_t e;
			switch (aug[i]) {
			case 'R':
				ci->fde_enc = (uint8_t)ember_cur_n(&k, 1);
				break;
			case 'L':
				ember_cur_n(
				    &k, 1); /* LSDA encoding: pointer in FDE */
				break;
			case 'P':
				e = (uint8_t)ember_cur_n(&k, 1);
				if (rd_ptr(&k, e & ~PE_INDIRECT, 0, 0, &dummy))
					return -1;
				break;
			case 'S':
				ci->signal = 1;
				break;
			default:
				/* unknown: the length lets us skip the rest */
				k.p = aend;
				i = auglen;
				break;
			}
			if (k.bad || k.p > aend)
				return -1;
		}
		k.p = aend;
	} else if (auglen) {
		return -1; /* "eh" and other pre-z augmentations */
	}
	ci->ins = k.p;
	ci->ins_end = end;
	return 0;
}

/* The FDE at offset off, with its CIE.  Returns 0 or -1. */
static int parse_fde(const struct ember_cfi *c, uint64_t off, struct fde *f)
{
	const uint8_t *body, *end;
	uint64_t cie_off, range;
	int is_cie;
	struct ember_cur k;

	if (entry_at(c, off, &body, &end, &is_cie, &cie_off) != 0 || is_cie ||
	    cie_off == UINT64_MAX)
		return -1;
	if (parse_cie(c, cie_off, &f->cie))
		return -1;
	k.p = body;
	k.end = end;
	k.bad = 0;
	if (rd_ptr(&k, f->cie.fde_enc, eh_va(c, k.p), c->hdr_addr, &f->start))
		return -1;
	if (rd_ptr(&k, f->cie.fde_enc & PE_FMT, 0, 0, &range))
		return -1;
	f->end = f->start + range;
	if (f->end < f->start)
		return -1;
	if (f->cie.has_z) {
		uint64_t alen = ember_cur_uleb(&k);
		if (k.bad || alen > (uint64_t)(k.end - k.p))
			return -1;
		k.p += alen;
	}
	f->ins = k.p;
	f->ins_end = end;
	return 0;
}

/* ---- the search table ---- */

static int ent_cmp(const void *a, const void *b)
{
	const struct ember_cfi_ent *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Walks .eh_frame calling fn(ctx, fde_off, start, end) per FDE. */
static size_t scan(const struct ember_cfi *c,
		   int (*fn)(void *, uint64_t, uint64_t, uint64_t), void *ctx)
{
	uint64_t off = 0, cie_off = UINT64_MAX;
	struct cie ci;
	size_t n = 0;
	int cie_ok = 0;

	while (off < c->eh_len) {
		const uint8_t *body, *end;
		uint64_t co;
		int is_cie;
		int r = entry_at(c, off, &body, &end, &is_cie, &co);
		if (r != 0)
			break;
		if (!is_cie && co != UINT64_MAX) {
			if (co != cie_off) {
				cie_off = co;
				cie_ok = !parse_cie(c, co, &ci);
			}
			struct ember_cur k = {body, end, 0};
			uint64_t start, range;
			if (cie_ok &&
			    !rd_ptr(&k, ci.fde_enc, eh_va(c, k.p), c->hdr_addr,
				    &start) &&
			    !rd_ptr(&k, ci.fde_enc & PE_FMT, 0, 0, &range) &&
			    start + range >= start) {
				n++;
				if (fn && fn(ctx, off, start, start + range))
					break;
			}
		}
		off = (uint64_t)(end - c->eh);
	}
	return n;
}

struct build_ctx {
	struct ember_cfi_ent *v;
	size_t n, alloc;
};

static int build_one(void *ctx, uint64_t off, uint64_t start, uint64_t end)
{
	struct build_ctx *b = ctx;

	if (end == start)
		return 0;
	EMBER_GROW(b->v, b->n + 1, b->alloc);
	b->v[b->n].pc = start;
	b->v[b->n].fde = off;
	b->n++;
	return 0;
}

/* Accepts the header's table if it is complete and its entries are
 * fixed-size, data-relative to the header. */
static void use_hdr(struct ember_cfi *c)
{
	struct ember_cur k;
	uint64_t dummy, count;
	uint8_t ptr_enc, cnt_enc, tab_enc;

	if (!c->hdr || c->hdr_len < 4)
		return;
	k.p = c->hdr;
	k.end = c->hdr + c->hdr_len;
	k.bad = 0;
	if (ember_cur_n(&k, 1) != 1)
		return;
	ptr_enc = (uint8_t)ember_cur_n(&k, 1);
	cnt_enc = (uint8_t)ember_cur_n(&k, 1);
	tab_enc = (uint8_t)ember_cur_n(&k, 1);
	if (rd_ptr(&k, ptr_enc, c->hdr_addr + 4, c->hdr_addr, &dummy))
		return;
	if (cnt_enc == PE_OMIT || tab_enc == PE_OMIT)
		return;
	if (rd_ptr(&k, cnt_enc, c->hdr_addr + (uint64_t)(k.p - c->hdr),
		   c->hdr_addr, &count))
		return;
	size_t esz = enc_size(tab_enc);
	if ((tab_enc & PE_APP) != PE_DATAREL || !esz || count == 0)
		return;
	if (count > (uint64_t)(k.end - k.p) / (2 * esz))
		return;
	c->tab = k.p;
	c->tab_n = (size_t)count;
	c->tab_esz = esz;
	c->tab_enc = tab_enc;
}

void ember_cfi_init(struct ember_cfi *c, const uint8_t *eh, size_t eh_len,
		    uint64_t eh_addr, const uint8_t *hdr, size_t hdr_len,
		    uint64_t hdr_addr, int flags)
{
	memset(c, 0, sizeof(*c));
	c->debug = (flags & EMBER_CFI_DEBUG_FRAME) != 0;
	if (c->debug)
		hdr = NULL; /* .debug_frame has no search table */
	c->eh = eh;
	c->eh_len = eh ? eh_len : 0;
	c->eh_addr = eh_addr;
	c->hdr = hdr;
	c->hdr_len = hdr ? hdr_len : 0;
	c->hdr_addr = hdr_addr;
	use_hdr(c);
	if (c->tab || (flags & EMBER_CFI_NOINDEX) || !c->eh_len)
		return;
	struct build_ctx b = {NULL, 0, 0};
	scan(c, build_one, &b);
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), ent_cmp);
	c->own = b.v;
	c->own_n = b.n;
}

void ember_cfi_release(struct ember_cfi *c)
{
	free(c->own);
	c->own = NULL;
	c->own_n = 0;
}

/* Entry i of the header's table. */
static void tab_ent(const struct ember_cfi *c, size_t i, uint64_t *pc,
		    uint64_t *fde)
{
	struct ember_cur k;

	k.p = c->tab + i * 2 * c->tab_esz;
	k.end = k.p + 2 * c->tab_esz;
	k.bad = 0;
	rd_ptr(&k, c->tab_enc, 0, c->hdr_addr, pc);
	rd_ptr(&k, c->tab_enc, 0, c->hdr_addr, fde);
}

struct find_ctx {
	uint64_t pc, off;
	int found;
};

static int find_one(void *ctx, uint64_t off, uint64_t start, uint64_t end)
{
	struct find_ctx *f = ctx;

	if (f->pc >= start && f->pc < end) {
		f->off = off;
		f->found = 1;
		return 1;
	}
	return 0;
}

/* Offset in .eh_frame of the FDE that may cover pc, or -1. */
static int find_fde(const struct ember_cfi *c, uint64_t pc, uint64_t *off)
{
	size_t lo = 0, hi;

	if (c->tab) {
		uint64_t epc, fde;
		hi = c->tab_n;
		while (lo < hi) { /* first entry with pc > target */
			size_t mid = lo + (hi - lo) / 2;
			tab_ent(c, mid, &epc, &fde);
			if (epc <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return -1;
		tab_ent(c, lo - 1, &epc, &fde);
		if (fde < c->eh_addr || fde - c->eh_addr >= c->eh_len)
			return -1;
		*off = fde - c->eh_addr;
		return 0;
	}
	if (c->own) {
		hi = c->own_n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (c->own[mid].pc <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == 0)
			return -1;
		*off = c->own[lo - 1].fde;
		return 0;
	}
	struct find_ctx f = {pc, 0, 0};
	scan(c, find_one, &f);
	if (!f.found)
		return -1;
	*off = f.off;
	return 0;
}

/* ---- the CFA program ---- */

enum {
	R_UNSPEC,
	R_UNDEF,
	R_SAME,
	R_OFFSET,
	R_VAL_OFFSET,
	R_REG,
	R_EXPR,
	R_VAL_EXPR
};

struct reg_rule {
	uint8_t how;
	int64_t off;
	const uint8_t *expr;
	size_t elen;
};

struct row {
	uint64_t cfa_reg;
	int64_t cfa_off;
	const uint8_t *cfa_expr; /* non-NULL: CFA is this expression */
	size_t cfa_elen;
	struct reg_rule ra, bp;
	struct reg_rule save[EMBER_NSAVE]; /* rbx, r12-r15 */
};

#define STATE_DEPTH 16

struct prog {
	const struct ember_cfi *c;
	const struct cie *cie;
	struct row row, init;
	struct row stack[STATE_DEPTH];
	int depth;
	uint64_t loc, pc; /* current location, target */
};

/* The rule slot for register reg, or NULL for one we do not track. */
static struct reg_rule *slot(struct prog *p, struct row *r, uint64_t reg)
{
	if (reg == p->cie->ra_reg)
		return &r->ra;
	if (reg == REG_RBP)
		return &r->bp;
	if (reg == REG_RBX)
		return &r->save[EMBER_SAVE_BX];
	if (reg >= REG_R12 && reg <= REG_R15)
		return &r->save[EMBER_SAVE_R12 + (reg - REG_R12)];
	return NULL;
}

/* The rule's CFA base for DWARF register reg, or -1. */
static int cfa_base(uint64_t reg)
{
	return reg == REG_RSP	? EMBER_CFA_SP
	       : reg == REG_RBP ? EMBER_CFA_BP
	       : reg == REG_RBX ? EMBER_CFA_BX
	       : reg >= REG_R12 && reg <= REG_R15
		   ? EMBER_CFA_R12 + (int)(reg - REG_R12)
		   : -1;
}

/* An operand times the data alignment factor, wrapping as the hardware
 * does: malformed CFI makes a wrong rule, never undefined behaviour. */
static int64_t scaled(uint64_t v, int64_t factor)
{
	return (int64_t)(v * (uint64_t)factor);
}

static void set_rule(struct prog *p, uint64_t reg, uint8_t how, int64_t off)
{
	struct reg_rule *s = slot(p, &p->row, reg);
	if (s) {
		s->how = how;
		s->off = off;
		s->expr = NULL;
		s->elen = 0;
	}
}

/* Runs instructions [ins, end) until the location passes p->pc.
 * Returns 1 when it stopped there, 0 at the end, -1 if malformed. */
static int run(struct prog *p, const uint8_t *ins, const uint8_t *end,
	       int is_cie)
{
	struct ember_cur k = {ins, end, 0};
	const struct cie *ci = p->cie;

	while (k.p < k.end && !k.bad) {
		uint8_t op = *k.p++;
		uint64_t delta = 0, reg, u;
		int64_t s;
		int advance = 0;

		switch (op >> 6) {
		case 1:
			delta = op & 0x3f;
			advance = 1;
			break;
		case 2:
			u = ember_cur_uleb(&k);
			set_rule(p, op & 0x3f, R_OFFSET, scaled(u, ci->daf));
			continue;
		case 3: {
			struct reg_rule *d = slot(p, &p->row, op & 0x3f);
			if (d)
				*d = *slot(p, &p->init, op & 0x3f);
			continue;
		}
		}
		switch (advance ? 0 : op) {
		case 0x00: /* nop, or advance_loc handled above */
			break;
		case 0x01: { /* set_loc */
			uint64_t loc;
			if (is_cie || rd_ptr(&k, ci->fde_enc, eh_va(p->c, k.p),
					     p->c->hdr_addr, &loc))
				return -1;
			if (loc > p->pc)
				return 1;
			p->loc = loc;
			break;
		}
		case 0x02:
			delta = ember_cur_n(&k, 1);
			advance = 1;
			break;
		case 0x03:
			delta = ember_cur_n(&k, 2);
			advance = 1;
			break;
		case 0x04:
			delta = ember_cur_n(&k, 4);
			advance = 1;
			break;
		case 0x05: /* offset_extended */
			reg = ember_cur_uleb(&k);
			u = ember_cur_uleb(&k);
			set_rule(p, reg, R_OFFSET, scaled(u, ci->daf));
			break;
		case 0x06: { /* restore_extended */
			reg = ember_cur_uleb(&k);
			struct reg_rule *d = slot(p, &p->row, reg);
			if (d)
				*d = *slot(p, &p->init, reg);
			break;
		}
		case 0x07:
			set_rule(p, ember_cur_uleb(&k), R_UNDEF, 0);
			break;
		case 0x08:
			set_rule(p, ember_cur_uleb(&k), R_SAME, 0);
			break;
		case 0x09: /* register */
			reg = ember_cur_uleb(&k);
			u = ember_cur_uleb(&k);
			set_rule(p, reg, R_REG, (int64_t)u);
			break;
		case 0x0a: /* remember_state */
			if (p->depth == STATE_DEPTH)
				return -1;
			p->stack[p->depth++] = p->row;
			break;
		case 0x0b: /* restore_state: the whole row, CFA included, as
			    * libgcc does and compilers rely on */
			if (p->depth == 0)
				return -1;
			p->row = p->stack[--p->depth];
			break;
		case 0x0c: /* def_cfa */
			p->row.cfa_reg = ember_cur_uleb(&k);
			p->row.cfa_off = (int64_t)ember_cur_uleb(&k);
			p->row.cfa_expr = NULL;
			break;
		case 0x0d: /* def_cfa_register */
			p->row.cfa_reg = ember_cur_uleb(&k);
			p->row.cfa_expr = NULL;
			break;
		case 0x0e: /* def_cfa_offset */
			p->row.cfa_off = (int64_t)ember_cur_uleb(&k);
			break;
		case 0x0f: /* def_cfa_expression */
			u = ember_cur_uleb(&k);
			if (k.bad || u > (uint64_t)(k.end - k.p))
				return -1;
			p->row.cfa_expr = k.p;
			p->row.cfa_elen = (size_t)u;
			k.p += u;
			break;
		case 0x10:   /* expression */
		case 0x16: { /* val_expression */
			reg = ember_cur_uleb(&k);
			u = ember_cur_uleb(&k);
			if (k.bad || u > (uint64_t)(k.end - k.p))
				return -1;
			struct reg_rule *d = slot(p, &p->row, reg);
			if (d) {
				d->how = op == 0x10 ? R_EXPR : R_VAL_EXPR;
				d->expr = k.p;
				d->elen = (size_t)u;
			}
			k.p += u;
			break;
		}
		case 0x11: /* offset_extended_sf */
			reg = ember_cur_uleb(&k);
			s = ember_cur_sleb(&k);
			set_rule(p, reg, R_OFFSET,
				 scaled((uint64_t)s, ci->daf));
			break;
		case 0x12: /* def_cfa_sf */
			p->row.cfa_reg = ember_cur_uleb(&k);
			p->row.cfa_off =
			    scaled((uint64_t)ember_cur_sleb(&k), ci->daf);
			p->row.cfa_expr = NULL;
			break;
		case 0x13: /* def_cfa_offset_sf */
			p->row.cfa_off =
			    scaled((uint64_t)ember_cur_sleb(&k), ci->daf);
			break;
		case 0x14: /* val_offset */
			reg = ember_cur_uleb(&k);
			u = ember_cur_uleb(&k);
			set_rule(p, reg, R_VAL_OFFSET, scaled(u, ci->daf));
			break;
		case 0x15: /* val_offset_sf */
			reg = ember_cur_uleb(&k);
			s = ember_cur_sleb(&k);
			set_rule(p, reg, R_VAL_OFFSET,
				 scaled((uint64_t)s, ci->daf));
			break;
		case 0x2e: /* GNU_args_size */
			ember_cur_uleb(&k);
			break;
		case 0x2f: /* GNU_negative_offset_extended */
			reg = ember_cur_uleb(&k);
			u = ember_cur_uleb(&k);
			set_rule(p, reg, R_OFFSET, scaled(0 - u, ci->daf));
			break;
		default:
			return -1;
		}
		if (advance) {
			if (is_cie)
				return -1;
			if (delta > (p->pc - p->loc) / ci->caf)
				return 1; /* the next row starts past pc */
			p->loc += delta * ci->caf;
		}
	}
	return k.bad ? -1 : 0;
}

static int fits16(int64_t v)
{
	return v >= INT16_MIN && v <= INT16_MAX;
}

/* A register-location rule (RA or rbp) as a compact location. */
static int loc_of(const struct reg_rule *rr, uint64_t rip, uint8_t *loc,
		  int16_t *off)
{
	struct ember_dwval init = {EMBER_DW_CFA, 0, 0}, v;

	switch (rr->how) {
	case R_OFFSET:
		if (!fits16(rr->off))
			return -1;
		*loc = EMBER_LOC_CFA;
		*off = (int16_t)rr->off;
		return 0;
	case R_VAL_OFFSET:
		if (!fits16(rr->off))
			return -1;
		*loc = EMBER_LOC_VAL_CFA;
		*off = (int16_t)rr->off;
		return 0;
	case R_EXPR:
		if (ember_dwarf_expr(rr->expr, rr->elen, rip, &init, &v) ||
		    v.deref || !fits16(v.off))
			return -1;
		*loc = v.base == EMBER_DW_CFA  ? EMBER_LOC_CFA
		       : v.base == EMBER_DW_SP ? EMBER_LOC_SP
		       : v.base == EMBER_DW_BP ? EMBER_LOC_BP
					       : 0;
		if (v.base == EMBER_DW_CONST)
			return -1;
		*off = (int16_t)v.off;
		return 0;
	}
	return -1;
}

/* Turns the row into a compact rule. */
static int compact(const struct prog *p, uint64_t rip, struct ember_cfi_rule *r)
{
	const struct row *row = &p->row;

	memset(r, 0, sizeof(*r));
	r->src = EMBER_SRC_CFI;
	r->signal = p->cie->signal;
	if (row->ra.how == R_UNDEF) {
		r->kind = EMBER_RULE_END;
		return 0;
	}
	r->kind = EMBER_RULE_CFA;
	if (row->cfa_expr) {
		struct ember_dwval v;
		if (ember_dwarf_expr(row->cfa_expr, row->cfa_elen, rip, NULL,
				     &v))
			return EMBER_ENOTSUP;
		if (v.base != EMBER_DW_SP && v.base != EMBER_DW_BP)
			return EMBER_ENOTSUP;
		if (v.off < INT32_MIN || v.off > INT32_MAX)
			return EMBER_ENOTSUP;
		r->cfa = (v.base == EMBER_DW_SP ? EMBER_CFA_SP : EMBER_CFA_BP) |
			 (v.deref ? EMBER_CFA_DEREF : 0);
		r->cfa_off = (int32_t)v.off;
	} else {
		int base = cfa_base(row->cfa_reg);
		if (base < 0)
			return EMBER_ENOTSUP;
		if (row->cfa_off < INT32_MIN || row->cfa_off > INT32_MAX)
			return EMBER_ENOTSUP;
		r->cfa = (uint8_t)base;
		r->cfa_off = (int32_t)row->cfa_off;
	}
	if (loc_of(&row->ra, rip, &r->ra, &r->ra_off) ||
	    r->ra == EMBER_LOC_VAL_CFA)
		return EMBER_ENOTSUP;
	switch (row->bp.how) {
	case R_UNSPEC:
	case R_SAME:
		r->bp = EMBER_LOC_SAME;
		break;
	case R_UNDEF:
		r->bp = EMBER_LOC_UNDEF;
		break;
	default:
		/* a bp we cannot follow is lost, but the frame still unwinds */
		if (loc_of(&row->bp, rip, &r->bp, &r->bp_off))
			r->bp = EMBER_LOC_UNDEF;
		break;
	}
	for (int i = 0; i < EMBER_NSAVE; i++) {
		const struct reg_rule *g = &row->save[i];
		if (g->how == R_UNSPEC || g->how == R_SAME)
			r->save[i] = EMBER_LOC_SAME;
		else if (g->how == R_UNDEF ||
			 loc_of(g, rip, &r->save[i], &r->save_off[i]))
			r->save[i] = EMBER_LOC_UNDEF;
	}
	return 0;
}

int ember_cfi_rule(const struct ember_cfi *c, uint64_t pc, uint64_t rip,
		   struct ember_cfi_rule *r, uint64_t *start, uint64_t *end)
{
	struct fde f;
	struct prog p;
	uint64_t off;
	int ret;

	if (find_fde(c, pc, &off))
		return EMBER_ENOENT;
	if (parse_fde(c, off, &f))
		return EMBER_EFORMAT;
	if (pc < f.start || pc >= f.end)
		return EMBER_ENOENT;
	if (start)
		*start = f.start;
	if (end)
		*end = f.end;
	memset(&p, 0, sizeof(p));
	p.c = c;
	p.cie = &f.cie;
	p.pc = pc;
	p.loc = f.start;
	p.row.cfa_reg = REG_RSP;
	p.row.cfa_off = 8;
	if (run(&p, f.cie.ins, f.cie.ins_end, 1) != 0)
		return EMBER_EFORMAT;
	p.init = p.row;
	p.depth = 0;
	ret = run(&p, f.ins, f.ins_end, 0);
	if (ret < 0)
		return EMBER_EFORMAT;
	return compact(&p, rip, r);
}

struct each_ctx {
	int (*fn)(void *, uint64_t, uint64_t);
	void *ctx;
};

static int each_one(void *ctx, uint64_t off, uint64_t start, uint64_t end)
{
	struct each_ctx *e = ctx;
	(void)off;
	return e->fn(e->ctx, start, end);
}

size_t ember_cfi_each_fde(const struct ember_cfi *c,
			  int (*fn)(void *ctx, uint64_t start, uint64_t end),
			  void *ctx)
{
	struct each_ctx e = {fn, ctx};
	return scan(c, fn ? each_one : NULL, &e);
}
