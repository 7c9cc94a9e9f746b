/*
 * CPython 3.11 to 3.13: where the thread states and frames are, and how
 * code objects name a frame and tell its line (co_linetable, at the
 * frame's instruction pointer, as PyFrame_GetLineNumber does).  3.13 publishes
 * the offsets in _Py_DebugOffsets at the start of _PyRuntime; 3.11 and 3.12
 * have them in a table per minor version (x86-64 release builds, which the code
 * type's own basic size confirms).  Symbols come from .dynsym, which
 * stripped distribution builds keep.
 */
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "interp/interp.h"
#include "symbols/elf.h"

enum {
	U_MINOR,
	U_FILENAME,
	U_QUALNAME,
	U_ADAPTIVE,  /* co_code_adaptive: the code type's basic size */
	U_ASCII,     /* data of a compact ASCII string */
	U_COMPACT,   /* data of another compact string */
	U_CODETYPE,  /* &PyCode_Type */
	U_SHIM,	     /* the owner of the eval loop's entry frames, or -1 */
	U_LINETABLE, /* co_linetable */
};

#define NONE EMBER_INTERP_NONE

static int cpython_maybe(const char *base)
{
	return !strncmp(base, "python3", 7) || !strncmp(base, "libpython3", 10);
}

struct syms {
	uint64_t runtime, version, eval, eval_size, codetype;
};

static void find_syms(Elf *elf, struct syms *s)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	memset(s, 0, sizeof(*s));
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    sym.st_shndx == SHN_UNDEF)
				continue;
			const char *name =
			    elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || (name[0] != '_' && name[0] != 'P'))
				continue;
			if (!strcmp(name, "_PyRuntime"))
				s->runtime = sym.st_value;
			else if (!strcmp(name, "Py_Version"))
				s->version = sym.st_value;
			else if (!strcmp(name, "PyCode_Type"))
				s->codetype = sym.st_value;
			else if (!strcmp(name, "_PyEval_EvalFrameDefault")) {
				s->eval = sym.st_value;
				s->eval_size = sym.st_size;
			}
		}
	}
}

static int vaddr_to_off(const struct rec_elf *e, uint64_t v, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct rec_load *l = &e->loads[i];
		if (v >= l->vaddr && v - l->vaddr < l->filesz) {
			*off = v - l->vaddr + l->off;
			return 0;
		}
	}
	return -1;
}

/* 3.11 and 3.12, x86-64 release builds. */
static void table_offsets(struct rec_interp_proc *ip, int minor)
{
	struct ember_interp_cfg *c = &ip->cfg;

	c->interp_head = 40;
	c->ts_next = 8;
	c->ts_frame = 56; /* cframe */
	c->f_instr = 56;
	ip->u[U_FILENAME] = 112;
	ip->u[U_QUALNAME] = 128;
	ip->u[U_LINETABLE] = 136;
	if (minor == 11) {
		c->threads_head = 16;
		c->ts_tid = 160;
		c->cframe_frame = 8;
		c->f_code = 32;
		c->f_previous = 48;
		c->f_owner = 69;
		c->f_entry = 68;
		c->co_firstlineno = 72;
		ip->u[U_ADAPTIVE] = 184;
		ip->u[U_ASCII] = 48;
		ip->u[U_COMPACT] = 72;
		ip->u[U_SHIM] = (uint64_t)-1;
	} else {
		c->threads_head = 72;
		c->ts_tid = 144;
		c->cframe_frame = 0;
		c->f_code = 0;
		c->f_previous = 8;
		c->f_owner = 70;
		c->f_entry = NONE;
		c->co_firstlineno = 68;
		ip->u[U_ADAPTIVE] = 192;
		ip->u[U_ASCII] = 40;
		ip->u[U_COMPACT] = 56;
		ip->u[U_SHIM] = 3;
	}
}

/* 3.13's _Py_DebugOffsets, as 64-bit words after the cookie. */
enum {
	D_VERSION = 0,
	D_FREE_THREADED = 1,
	D_INTERP_HEAD = 4,
	D_THREADS_HEAD = 8,
	D_TS_NEXT = 20,
	D_TS_FRAME = 22,
	D_TS_TID = 24,
	D_F_SIZE = 27,
	D_F_PREVIOUS = 28,
	D_F_EXECUTABLE = 29,
	D_F_INSTR = 30,
	D_F_OWNER = 32,
	D_CO_FILENAME = 34,
	D_CO_QUALNAME = 36,
	D_CO_LINETABLE = 37,
	D_CO_FIRSTLINENO = 38,
	D_CO_ADAPTIVE = 42,
	D_WORDS = 43
};

static int debug_offsets(struct rec_interp_proc *ip, uint64_t runtime,
			 uint32_t hex, struct ember_buf *why)
{
	struct ember_interp_cfg *c = &ip->cfg;
	uint64_t w[D_WORDS];
	char cookie[8];

	if (rec_interp_read(ip->pid, runtime, cookie, 8) ||
	    rec_interp_read(ip->pid, runtime + 8, w, sizeof(w)) ||
	    memcmp(cookie, "xdebugpy", 8)) {
		ember_buf_addf(why, "Python %s has no _Py_DebugOffsets",
			       ip->version);
		return EMBER_ENOTSUP;
	}
	if ((w[D_VERSION] >> 16) != hex >> 16 || w[D_FREE_THREADED]) {
		ember_buf_addf(why,
			       "Python %s: its debug offsets are those of "
			       "version %#" PRIx64 "%s",
			       ip->version, w[D_VERSION],
			       w[D_FREE_THREADED] ? " (free-threaded)" : "");
		return EMBER_ENOTSUP;
	}
	static const int need[] = {
	    D_INTERP_HEAD, D_THREADS_HEAD, D_TS_NEXT,	     D_TS_FRAME,
	    D_TS_TID,	   D_F_PREVIOUS,   D_F_INSTR,	     D_F_OWNER,
	    D_CO_FILENAME, D_CO_QUALNAME,  D_CO_FIRSTLINENO, D_CO_ADAPTIVE,
	    D_CO_LINETABLE};
	for (size_t i = 0; i < sizeof(need) / sizeof(*need); i++)
		if (w[need[i]] > 0xfff0) {
			ember_buf_addf(why,
				       "Python %s: implausible debug "
				       "offsets",
				       ip->version);
			return EMBER_ENOTSUP;
		}
	/* the BPF program reads 80 bytes of each frame */
	if (w[D_F_PREVIOUS] > 72 || w[D_F_EXECUTABLE] > 72 ||
	    w[D_F_INSTR] > 72 || w[D_F_OWNER] > 79) {
		ember_buf_addf(why, "Python %s: frames laid out unlike 3.13's",
			       ip->version);
		return EMBER_ENOTSUP;
	}
	c->interp_head = (uint16_t)w[D_INTERP_HEAD];
	c->threads_head = (uint16_t)w[D_THREADS_HEAD];
	c->ts_next = (uint16_t)w[D_TS_NEXT];
	c->ts_frame = (uint16_t)w[D_TS_FRAME];
	c->ts_tid = (uint16_t)w[D_TS_TID];
	c->cframe_frame = NONE;
	c->f_code = (uint16_t)w[D_F_EXECUTABLE];
	c->f_previous = (uint16_t)w[D_F_PREVIOUS];
	c->f_instr = (uint16_t)w[D_F_INSTR];
	c->f_owner = (uint16_t)w[D_F_OWNER];
	c->f_entry = NONE;
	c->co_firstlineno = (uint16_t)w[D_CO_FIRSTLINENO];
	ip->u[U_FILENAME] = w[D_CO_FILENAME];
	ip->u[U_QUALNAME] = w[D_CO_QUALNAME];
	ip->u[U_LINETABLE] = w[D_CO_LINETABLE];
	ip->u[U_ADAPTIVE] = w[D_CO_ADAPTIVE];
	ip->u[U_ASCII] = 40;
	ip->u[U_COMPACT] = 56;
	ip->u[U_SHIM] = 3;
	return 0;
}

static void pid_namespace(struct rec_interp_proc *ip)
{
	char path[64];
	struct stat mine, its;

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", ip->pid);
	if (stat(path, &its) || stat("/proc/self/ns/pid", &mine) ||
	    (its.st_dev == mine.st_dev && its.st_ino == mine.st_ino))
		return;
	ip->cfg.pidns_dev = its.st_dev;
	ip->cfg.pidns_ino = its.st_ino;
}

static int cpython_detect(struct rec_interp_proc *ip, struct rec_elf *e,
			  uint64_t bias, struct ember_buf *why)
{
	struct syms s;
	uint32_t hex;
	uint64_t lo;

	find_syms(e->elf, &s);
	if (!s.runtime || !s.eval || !s.version || !s.codetype ||
	    vaddr_to_off(e, s.eval, &lo))
		return EMBER_ENOENT;
	if (rec_interp_read(ip->pid, bias + s.version, &hex, 4))
		return EMBER_ENOENT;
	int major = (int)(hex >> 24), minor = (int)(hex >> 16 & 0xff);
	snprintf(ip->version, sizeof(ip->version), "%d.%d.%d", major, minor,
		 (int)(hex >> 8 & 0xff));
	if (major != 3 || minor < 11 || minor > 13) {
		ember_buf_addf(why,
			       "Python %s: ember reads the frames of Python "
			       "3.11 to 3.13",
			       ip->version);
		return EMBER_ENOTSUP;
	}
	memset(&ip->cfg, 0, sizeof(ip->cfg));
	ip->cfg.runtime = bias + s.runtime;
	if (minor >= 13) {
		int err = debug_offsets(ip, ip->cfg.runtime, hex, why);
		if (err)
			return err;
	} else {
		table_offsets(ip, minor);
	}
	/* the table's code layout, confirmed by the code type's size */
	int64_t basic = 0;
	if (rec_interp_read(ip->pid, bias + s.codetype + 32, &basic, 8) ||
	    (uint64_t)basic != ip->u[U_ADAPTIVE]) {
		ember_buf_addf(why,
			       "Python %s: code objects are laid out unlike "
			       "a release build's (%lld bytes)",
			       ip->version, (long long)basic);
		return EMBER_ENOTSUP;
	}
	ip->u[U_MINOR] = (uint64_t)minor;
	ip->u[U_CODETYPE] = bias + s.codetype;
	ip->eval.lo = lo;
	ip->eval.hi = lo + (s.eval_size ? s.eval_size : 1);
	pid_namespace(ip);
	return 0;
}

/* Appends the str object at addr, as UTF-8; 0 or -1. */
static int add_str(struct rec_interp_proc *ip, uint64_t addr,
		   struct ember_buf *out)
{
	uint8_t h[64];
	int64_t len;
	uint32_t state;

	if (rec_interp_read(ip->pid, addr, h, 40))
		return -1;
	memcpy(&len, h + 16, 8);
	memcpy(&state, h + 32, 4);
	unsigned kind = state >> 2 & 7, compact = state >> 5 & 1,
		 ascii = state >> 6 & 1;
	if (len < 0 || len > 4096 || !compact ||
	    (kind != 1 && kind != 2 && kind != 4))
		return -1;
	uint64_t data = addr + (ascii ? ip->u[U_ASCII] : ip->u[U_COMPACT]);
	size_t n = (size_t)len * kind;
	uint8_t *b = ember_xmalloc(n + 1);
	int err = rec_interp_read(ip->pid, data, b, n);
	for (size_t i = 0; !err && i < (size_t)len; i++) {
		uint32_t cp =
		    kind == 1 ? b[i]
		    : kind == 2
			? (uint32_t)b[2 * i] | (uint32_t)b[2 * i + 1] << 8
			: (uint32_t)b[4 * i] | (uint32_t)b[4 * i + 1] << 8 |
			      (uint32_t)b[4 * i + 2] << 16 |
			      (uint32_t)b[4 * i + 3] << 24;
		char u[4];
		size_t k;
		if (cp < 0x80) {
			u[0] = (char)cp;
			k = 1;
		} else if (cp < 0x800) {
			u[0] = (char)(0xc0 | cp >> 6);
			u[1] = (char)(0x80 | (cp & 0x3f));
			k = 2;
		} else if (cp < 0x10000) {
			u[0] = (char)(0xe0 | cp >> 12);
			u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
			u[2] = (char)(0x80 | (cp & 0x3f));
			k = 3;
		} else {
			u[0] = (char)(0xf0 | (cp >> 18 & 7));
			u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
			u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
			u[3] = (char)(0x80 | (cp & 0x3f));
			k = 4;
		}
		ember_buf_add(out, u, k);
	}
	free(b);
	return err;
}

/* "py::qualname:filename", as CPython's perf maps name its functions. */
static int cpython_name(struct rec_interp_proc *ip,
			const struct ember_interp_frame *f,
			struct ember_buf *out)
{
	uint64_t type, file, qual;

	if (rec_interp_read(ip->pid, f->code + 8, &type, 8) ||
	    type != ip->u[U_CODETYPE] ||
	    rec_interp_read(ip->pid, f->code + ip->u[U_FILENAME], &file, 8) ||
	    rec_interp_read(ip->pid, f->code + ip->u[U_QUALNAME], &qual, 8))
		return -1;
	ember_buf_adds(out, "py::");
	if (add_str(ip, qual, out))
		return -1;
	ember_buf_adds(out, ":");
	return add_str(ip, file, out);
}

/* co_linetable (3.11+, CPython's Objects/locations.md): entries of a
 * first byte 1CCCCLLL (code C, L + 1 code units) and C's data, in
 * 6-bit chunks of varints (bit 6: another follows); a signed varint
 * keeps its sign in bit 0.  Codes 0-9: the line of the last entry and
 * one byte of columns; 10-12: that line + C - 10 and two bytes; 13: a
 * line delta only; 14: a line delta, the end line's, and two columns;
 * 15: no location. */
struct ltab {
	const uint8_t *p, *end;
};

static uint32_t lt_varint(struct ltab *t)
{
	uint32_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		if (t->p >= t->end || shift > 28)
			return 0;
		b = *t->p++;
		v |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return v;
}

static int32_t lt_svarint(struct ltab *t)
{
	uint32_t v = lt_varint(t);

	return v & 1 ? -(int32_t)(v >> 1) : (int32_t)(v >> 1);
}

#define MAX_LINETABLE (1 << 20)

static int cpython_lines(struct rec_interp_proc *ip,
			 const struct ember_interp_frame *f,
			 struct ember_buf *out)
{
	uint64_t lt;
	int64_t size;

	if (rec_interp_read(ip->pid, f->code + ip->u[U_LINETABLE], &lt, 8) ||
	    rec_interp_read(ip->pid, lt + 16, &size, 8) || size < 0 ||
	    size > MAX_LINETABLE)
		return -1;
	uint8_t *b = ember_xmalloc((size_t)size + 1);
	if (rec_interp_read(ip->pid, lt + 32, b, (size_t)size)) {
		free(b);
		return -1;
	}
	struct ltab t = {b, b + size};
	/* 64 bits: no overflow from a table read while it changed */
	int64_t line = f->firstlineno;
	uint32_t unit = 0;
	while (t.p < t.end) {
		uint8_t h = *t.p++;
		if (!(h & 0x80))
			break; /* not an entry's first byte */
		unsigned code = h >> 3 & 15, len = (h & 7) + 1;
		int64_t at = line;
		if (code == 15) {
			at = 0;
		} else if (code == 14) {
			line += lt_svarint(&t);
			at = line;
			lt_varint(&t);
			lt_varint(&t);
			lt_varint(&t);
		} else if (code == 13) {
			line += lt_svarint(&t);
			at = line;
		} else if (code >= 10) {
			line += (int64_t)code - 10;
			at = line;
			t.p += 2;
		} else {
			t.p++;
		}
		if (line < INT32_MIN || line > INT32_MAX)
			break;
		struct rec_interp_line e = {unit, at > 0 ? (uint32_t)at : 0};
		ember_buf_add(out, &e, sizeof(e));
		unit += len;
	}
	free(b);
	return 0;
}

static uint64_t cpython_unit(const struct rec_interp_proc *ip,
			     const struct ember_interp_frame *f)
{
	uint64_t start = f->code + ip->u[U_ADAPTIVE];

	return f->instr >= start ? (f->instr - start) / 2 : UINT64_MAX;
}

static int cpython_boundary(const struct rec_interp_proc *ip,
			    const struct ember_interp_frame *f)
{
	if (ip->u[U_SHIM] != (uint64_t)-1)
		return f->owner == ip->u[U_SHIM];
	return f->entry ? 2 : 0;
}

const struct rec_interp_ops rec_interp_cpython = {
    "CPython",	      cpython_maybe, cpython_detect, cpython_name,
    cpython_boundary, cpython_lines, cpython_unit,
};
