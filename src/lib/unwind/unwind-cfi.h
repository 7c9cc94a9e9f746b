/*
 * DWARF call frame information from .eh_frame/.eh_frame_hdr, evaluated to
 * the compact x86-64 rules the unwinder applies (rip, rsp and the
 * callee-saved rbp, rbx, r12-r15 are recovered).  Internal to the
 * unwinder.
 */
#ifndef EMBER_UNWIND_CFI_H
#define EMBER_UNWIND_CFI_H

#include "unwind/unwind.h"

/* How to get from one frame's (ip, sp, bp) to its caller's. */
enum {
	EMBER_RULE_NONE, /* cannot unwind this frame */
	EMBER_RULE_END,	 /* the return address is undefined: outermost frame */
	EMBER_RULE_CFA,	 /* the CFA rule below */
	EMBER_RULE_FP,	 /* CFA = bp + 16, ra = [bp + 8], bp = [bp] */
	EMBER_RULE_LEAF_FP, /* first frame: ra = [sp]; otherwise RULE_FP */
};

/* Where the CFA comes from (rule.cfa): a register plus cfa_off, maybe
 * dereferenced (stack-realigning prologues, signal frames).  rbx as the
 * base: glibc's _dl_runtime_resolve keeps the CFA there while it
 * realigns the stack. */
enum {
	EMBER_CFA_SP = 0,
	EMBER_CFA_BP = 1,
	EMBER_CFA_BX = 2,
	EMBER_CFA_R12 = 3,   /* ... to EMBER_CFA_R15 = 6 */
	EMBER_CFA_REG = 7,   /* mask of the register */
	EMBER_CFA_DEREF = 8, /* flag: CFA = [reg + cfa_off] */
};

/* The callee-saved registers besides rbp, in rule.save order. */
enum { EMBER_SAVE_BX, EMBER_SAVE_R12, EMBER_SAVE_R15 = 4, EMBER_NSAVE };

/* Where a register's caller value is (rule.ra, rule.bp). */
enum {
	EMBER_LOC_SAME,	   /* unchanged (bp only) */
	EMBER_LOC_UNDEF,   /* lost: becomes 0 (bp only) */
	EMBER_LOC_CFA,	   /* saved at [CFA + off] */
	EMBER_LOC_SP,	   /* saved at [sp + off], sp of this frame */
	EMBER_LOC_BP,	   /* saved at [bp + off], bp of this frame */
	EMBER_LOC_VAL_CFA, /* the value CFA + off itself (bp only) */
};

struct ember_cfi_rule {
	uint8_t kind;	/* EMBER_RULE_* */
	uint8_t cfa;	/* EMBER_CFA_* */
	uint8_t ra, bp; /* EMBER_LOC_* */
	uint8_t src;	/* EMBER_SRC_* */
	uint8_t signal; /* signal frame: the caller's ip is exact, not a RA */
	uint16_t pad;
	int32_t cfa_off;
	int16_t ra_off, bp_off;
	/* rbx, r12-r15: EMBER_LOC_* as bp (0: unchanged) */
	uint8_t save[EMBER_NSAVE];
	int16_t save_off[EMBER_NSAVE];
};

/* One .eh_frame section (and its .eh_frame_hdr if any), with the
 * addresses they have in the file's (or JIT code's) address space: the
 * pc-relative and data-relative pointer encodings need them. */
struct ember_cfi_ent {
	uint64_t pc;  /* initial location of the FDE */
	uint64_t fde; /* offset of the FDE in eh */
};
struct ember_cfi {
	const uint8_t *eh, *hdr;
	size_t eh_len, hdr_len;
	uint64_t eh_addr, hdr_addr;
	/* search table: the .eh_frame_hdr's (fixed-size entries, data-
	 * relative to hdr_addr), or own, built by scanning .eh_frame */
	const uint8_t *tab;
	size_t tab_n, tab_esz;
	uint8_t tab_enc;
	struct ember_cfi_ent *own;
	size_t own_n;
	int debug; /* the section is a .debug_frame */
};

/* Sets up lookups in eh (hdr may be NULL).  Uses the header's binary
 * search table when it is sound, else scans .eh_frame once and sorts the
 * FDEs (flags & EMBER_CFI_NOINDEX: scan linearly at each lookup instead,
 * allocating nothing; for tiny JIT sections).  Never fails: corrupt data
 * just finds nothing. */
#define EMBER_CFI_NOINDEX 1
/* eh is a .debug_frame (hdr is then ignored): CIE ids of all ones, CIE
 * pointers from the section's start, addresses in the CIE's encoding
 * (absolute unless its augmentation says otherwise) */
#define EMBER_CFI_DEBUG_FRAME 2
void ember_cfi_init(struct ember_cfi *c, const uint8_t *eh, size_t eh_len,
		    uint64_t eh_addr, const uint8_t *hdr, size_t hdr_len,
		    uint64_t hdr_addr, int flags);
void ember_cfi_release(struct ember_cfi *c);

/*
 * The rule for code address pc (callers look up RA - 1 for caller frames).
 * rip is the value of the instruction pointer in that frame, which only
 * DWARF expressions (the .plt's) use.  *start and *end (may be NULL)
 * receive the FDE's range.  Returns 0, EMBER_ENOENT when no FDE covers pc,
 * EMBER_EFORMAT for malformed CFI, EMBER_ENOTSUP when the row needs
 * registers the compact rules cannot express.
 */
int ember_cfi_rule(const struct ember_cfi *c, uint64_t pc, uint64_t rip,
		   struct ember_cfi_rule *r, uint64_t *start, uint64_t *end);

/* Calls fn for each FDE (start, end) in .eh_frame order, until fn
 * returns nonzero; returns the number of FDEs seen (for symbolizing
 * stripped code by FDE ranges). */
size_t ember_cfi_each_fde(const struct ember_cfi *c,
			  int (*fn)(void *ctx, uint64_t start, uint64_t end),
			  void *ctx);

/* ---- reading DWARF data ---- */

/* A byte cursor that fails sticky: once off the end, every read gives 0
 * and c->bad stays set. */
struct ember_cur {
	const uint8_t *p, *end;
	int bad;
};

static inline uint64_t ember_cur_n(struct ember_cur *c, size_t n)
{
	uint64_t v = 0;

	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static inline uint64_t ember_cur_uleb(struct ember_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (!c->bad) {
		if (c->p >= c->end) {
			c->bad = 1;
			break;
		}
		uint8_t b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static inline int64_t ember_cur_sleb(struct ember_cur *c)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;

	while (!c->bad) {
		if (c->p >= c->end) {
			c->bad = 1;
			return 0;
		}
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* ---- unwind-expr.c: DWARF expressions ---- */

/* A value of a symbolic evaluation: base register (or none) plus off,
 * maybe loaded from that address. */
enum { EMBER_DW_CONST, EMBER_DW_SP, EMBER_DW_BP, EMBER_DW_CFA };
struct ember_dwval {
	uint8_t base;  /* EMBER_DW_* */
	uint8_t deref; /* the value is [base + off] */
	int64_t off;
};

/*
 * Evaluates a DWARF expression with rip known and rsp, rbp (and, with
 * initial, the CFA pushed first) symbolic.  The result must be "register
 * + constant", possibly dereferenced once as the last step: enough for
 * the .plt, signal trampolines and stack-realigning prologues.  Returns 0
 * or -1 for anything else.
 */
int ember_dwarf_expr(const uint8_t *expr, size_t len, uint64_t rip,
		     const struct ember_dwval *initial,
		     struct ember_dwval *out);

/* ---- unwind-elf.c: the CFI of an ELF image ---- */

struct ember_uw_load {
	uint64_t off, vaddr, filesz;
};
struct ember_uw_elf {
	const uint8_t *img;
	size_t len;
	int mapped; /* img is an mmap of the file */
	struct ember_uw_load load[16];
	int nload;
	struct ember_cfi cfi;
	int has_cfi; /* it has an .eh_frame */
	struct ember_cfi dcfi;
	int has_dcfi;	/* it has a .debug_frame (maybe decompressed) */
	uint8_t *dbuf;	/* the decompressed .debug_frame, owned */
	uint64_t entry; /* e_entry: the program's first instruction */
	/* where a Go program's stacks begin (runtime.goexit, mstart,
	 * rt0_go) or switch to another stack (morestack, systemstack,
	 * mcall): [lo, hi) in the file's addresses */
	struct {
		uint64_t lo, hi;
		int start; /* a stack's first function, not a switch */
	} roots[10];
	int nroots;
};

/* Maps an x86-64 ELF file (fd may be closed afterwards) or takes an image
 * in memory (the vdso), and finds its .eh_frame and .eh_frame_hdr, its
 * .debug_frame (decompressed: SHF_COMPRESSED or .zdebug_frame) and, in a
 * Go program, the functions where its stacks end.
 * Returns 0, EMBER_EIO, EMBER_EFORMAT or EMBER_ENOTSUP (other machine). */
int ember_uw_elf_open(struct ember_uw_elf *e, int fd) EMBER_WUR;
int ember_uw_elf_mem(struct ember_uw_elf *e, const void *img,
		     size_t len) EMBER_WUR;
void ember_uw_elf_release(struct ember_uw_elf *e);
/* File offset to the address the ELF's own tables use (via PT_LOAD; the
 * two differ in general).  Returns 0 or -1 if no segment holds it. */
int ember_uw_elf_svma(const struct ember_uw_elf *e, uint64_t file_off,
		      uint64_t *svma);
/* Whether svma lies in a function where a Go stack ends: 2 a stack's
 * first function (also where a sample's ip is), 1 a stack switch (only
 * as a caller), 0 none. */
int ember_uw_elf_is_root(const struct ember_uw_elf *e, uint64_t svma);
/* The rule for svma from the .eh_frame, else the .debug_frame (as
 * ember_cfi_rule; EMBER_ENOENT when neither covers it, or has none). */
int ember_uw_elf_rule(const struct ember_uw_elf *e, uint64_t svma, uint64_t rip,
		      struct ember_cfi_rule *r);

#endif
