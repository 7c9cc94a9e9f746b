/*
 * The stack walk: rule lookup through a set-associative cache, validation at
 * every step, and the fallbacks for code without CFI.
 *
 * Data structures:
 *  - the rule cache: 4096 slots in sets of 4, keyed by (lookup address,
 *    first-frame bit) and the process's generation.  A generation is unique
 * over the unwinder's life; invalidating a process gives it a new one, which
 *    makes all its slots stale at once.  A slot is filled only for an
 *    address inside an executable mapping, so a hit also stands for the
 *    "return address is executable" check.
 *  - files: ELF images keyed by (dev, ino), or by path when the inode is
 *    unknown; shared by all processes mapping them, never evicted.
 *  - processes: pid -> generation and registered jitdump.
 * A walk allocates nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "symbols/elf.h"
#include "symbols/jitdump.h"
#include "symbols/procfs.h"
#include "unwind/unwind-cfi.h"
#include "unwind/unwind.h"

#define CACHE_WAYS 4
#define SET_BITS   10 /* 1024 sets of 4: 4096 rules */
#define CACHE_SIZE (CACHE_WAYS << SET_BITS)
#define FIRST_BIT  (1ull << 63)

struct slot {
	uint64_t key;
	uint32_t gen, pad;
	struct ember_cfi_rule rule;
};

struct file {
	uint64_t dev, ino, hash;
	char *path; /* key when ino is 0 */
	int ok;
	struct ember_uw_elf elf;
	/* its separate debug file's .debug_frame, looked for the first time
	 * the file's own CFI misses: 0 not yet, 1 found, -1 none */
	int dbg_state;
	struct ember_uw_elf dbg;
	struct file *next;
};

struct proc {
	int pid;
	uint32_t gen;
	struct ember_jitdump *jd;
	struct proc *next;
};

struct ember_unwinder {
	struct slot *cache;
	struct file **files;
	size_t nfiles, files_mask;
	struct proc **procs;
	size_t nprocs, procs_mask;
	struct proc *last;
	uint32_t next_gen;
	unsigned flags;
	ember_unwind_read_fn read;
	void *read_ctx;
	struct file vdso;
	int vdso_tried;
	struct ember_unwind_stats st;
};

/* ---- processes ---- */

static size_t pid_hash(int pid, size_t mask)
{
	return ((uint32_t)pid * 2654435761u) & mask;
}

static void procs_grow(struct ember_unwinder *u)
{
	size_t nmask = u->procs_mask ? u->procs_mask * 2 + 1 : 63;
	struct proc **nv = ember_xcalloc(nmask + 1, sizeof(*nv));

	for (size_t i = 0; u->procs && i <= u->procs_mask; i++) {
		struct proc *p = u->procs[i], *next;
		for (; p; p = next) {
			next = p->next;
			size_t h = pid_hash(p->pid, nmask);
			p->next = nv[h];
			nv[h] = p;
		}
	}
	free(u->procs);
	u->procs = nv;
	u->procs_mask = nmask;
}

static struct proc *find_proc(struct ember_unwinder *u, int pid, int create)
{
	struct proc *p;

	if (u->last && u->last->pid == pid)
		return u->last;
	if (u->procs) {
		for (p = u->procs[pid_hash(pid, u->procs_mask)]; p; p = p->next)
			if (p->pid == pid)
				return u->last = p;
	}
	if (!create)
		return NULL;
	if (u->nprocs + 1 > (u->procs_mask + 1) / 2 || !u->procs)
		procs_grow(u);
	p = ember_xcalloc(1, sizeof(*p));
	p->pid = pid;
	p->gen = ++u->next_gen;
	size_t h = pid_hash(pid, u->procs_mask);
	p->next = u->procs[h];
	u->procs[h] = p;
	u->nprocs++;
	return u->last = p;
}

void ember_unwinder_invalidate(struct ember_unwinder *u, int pid)
{
	struct proc *p = find_proc(u, pid, 0);
	if (p)
		p->gen = ++u->next_gen;
}

void ember_unwinder_forget(struct ember_unwinder *u, int pid)
{
	struct proc **pp, *p;

	if (!u->procs)
		return;
	for (pp = &u->procs[pid_hash(pid, u->procs_mask)]; (p = *pp);
	     pp = &p->next) {
		if (p->pid == pid) {
			*pp = p->next;
			if (u->last == p)
				u->last = NULL;
			free(p);
			u->nprocs--;
			return;
		}
	}
}

void ember_unwinder_set_jitdump(struct ember_unwinder *u, int pid,
				struct ember_jitdump *jd)
{
	struct proc *p = find_proc(u, pid, 1);
	p->jd = jd;
	p->gen = ++u->next_gen; /* rules from before may be fallbacks */
}

/* ---- the unwinder ---- */

struct ember_unwinder *ember_unwinder_new(void)
{
	struct ember_unwinder *u = ember_xcalloc(1, sizeof(*u));
	u->cache = ember_xcalloc(CACHE_SIZE, sizeof(*u->cache));
	return u;
}

static void free_file(struct file *f)
{
	if (f->ok)
		ember_uw_elf_release(&f->elf);
	if (f->dbg_state > 0)
		ember_uw_elf_release(&f->dbg);
	free(f->path);
}

void ember_unwinder_free(struct ember_unwinder *u)
{
	if (!u)
		return;
	for (size_t i = 0; u->files && i <= u->files_mask; i++) {
		struct file *f = u->files[i], *next;
		for (; f; f = next) {
			next = f->next;
			free_file(f);
			free(f);
		}
	}
	for (size_t i = 0; u->procs && i <= u->procs_mask; i++) {
		struct proc *p = u->procs[i], *next;
		for (; p; p = next) {
			next = p->next;
			free(p);
		}
	}
	free_file(&u->vdso);
	free(u->files);
	free(u->procs);
	free(u->cache);
	free(u);
}

void ember_unwinder_set_flags(struct ember_unwinder *u, unsigned flags)
{
	u->flags = flags;
	u->next_gen++;
	for (size_t i = 0; i < CACHE_SIZE; i++)
		u->cache[i].gen = 0;
}

void ember_unwinder_set_reader(struct ember_unwinder *u,
			       ember_unwind_read_fn fn, void *ctx)
{
	u->read = fn;
	u->read_ctx = ctx;
}

const struct ember_unwind_stats *
ember_unwinder_stats(const struct ember_unwinder *u)
{
	return &u->st;
}

/* ---- files ---- */

static uint64_t file_hash(const struct ember_unwind_mapping *m)
{
	if (m->ino) {
		uint64_t k[2] = {m->dev, m->ino};
		return ember_hash(k, sizeof(k));
	}
	return ember_hash(m->path, strlen(m->path));
}

/* Opens the file behind m: by its path if that is still the mapped
 * file, else through /proc (deleted or replaced files, other mount
 * namespaces), else by its path anyway (overlay filesystems report other
 * device numbers). */
static int open_mapped(int pid, const struct ember_unwind_mapping *m)
{
	char dir[32];
	int procfd = -1, fd;

	if (pid > 0) {
		snprintf(dir, sizeof(dir), "/proc/%d", pid);
		procfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	fd = rec_procfs_open_mapped(procfd, m->path, m->start, m->end, m->dev,
				    m->ino);
	if (procfd >= 0)
		close(procfd);
	return fd;
}

static void files_grow(struct ember_unwinder *u)
{
	size_t nmask = u->files_mask ? u->files_mask * 2 + 1 : 63;
	struct file **nv = ember_xcalloc(nmask + 1, sizeof(*nv));

	for (size_t i = 0; u->files && i <= u->files_mask; i++) {
		struct file *f = u->files[i], *next;
		for (; f; f = next) {
			next = f->next;
			f->next = nv[f->hash & nmask];
			nv[f->hash & nmask] = f;
		}
	}
	free(u->files);
	u->files = nv;
	u->files_mask = nmask;
}

/* This process's own vdso image: the same in every process on a kernel. */
static struct file *vdso_file(struct ember_unwinder *u)
{
	if (!u->vdso_tried) {
		uint64_t base = getauxval(AT_SYSINFO_EHDR), lo, hi;
		char line[512];
		FILE *f = fopen("/proc/self/maps", "re");
		u->vdso_tried = 1;
		while (base && f && fgets(line, sizeof(line), f)) {
			if (!strstr(line, "[vdso]") ||
			    sscanf(line, "%llx-%llx", (unsigned long long *)&lo,
				   (unsigned long long *)&hi) != 2 ||
			    lo != base)
				continue;
			if (!ember_uw_elf_mem(&u->vdso.elf,
					      (const void *)(uintptr_t)lo,
					      (size_t)(hi - lo)))
				u->vdso.ok = 1;
			break;
		}
		if (f)
			fclose(f);
	}
	return u->vdso.ok ? &u->vdso : NULL;
}

static struct file *get_file(struct ember_unwinder *u, int pid,
			     const struct ember_unwind_mapping *m)
{
	uint64_t h;
	struct file *f;
	int fd;

	if (!strcmp(m->path, "[vdso]"))
		return vdso_file(u);
	h = file_hash(m);
	if (u->files) {
		for (f = u->files[h & u->files_mask]; f; f = f->next) {
			if (f->hash != h)
				continue;
			if (m->ino ? f->dev == m->dev && f->ino == m->ino
				   : !f->ino && !strcmp(f->path, m->path))
				return f->ok ? f : NULL;
		}
	}
	if (u->nfiles + 1 > (u->files_mask + 1) / 2 || !u->files)
		files_grow(u);
	f = ember_xcalloc(1, sizeof(*f));
	f->dev = m->dev;
	f->ino = m->ino;
	f->hash = h;
	f->path = ember_xstrdup(m->path);
	f->next = u->files[h & u->files_mask];
	u->files[h & u->files_mask] = f;
	u->nfiles++;
	fd = open_mapped(pid, m);
	if (fd >= 0) {
		f->ok = !ember_uw_elf_open(&f->elf, fd);
		close(fd);
	}
	if (f->ok)
		u->st.files++;
	else
		u->st.files_failed++;
	return f->ok ? f : NULL;
}

/* The .debug_frame of f's separate debug file (by build-id or
 * .gnu_debuglink, as symbols are found), where f has none itself: a
 * stripped Go program, code built without unwind tables. */
static struct ember_uw_elf *debug_cfi(int pid, struct file *f,
				      const struct ember_unwind_mapping *m)
{
	struct rec_elf re, de;
	int fd;

	if (f->dbg_state)
		return f->dbg_state > 0 ? &f->dbg : NULL;
	f->dbg_state = -1;
	if (f->elf.has_dcfi || !m->path || m->path[0] != '/')
		return NULL;
	fd = open_mapped(pid, m);
	if (fd < 0 || rec_elf_open_fd(&re, fd))
		return NULL;
	if (!rec_debuginfo_open(&re, m->path, NULL, &de, NULL)) {
		if (de.fd >= 0 && !ember_uw_elf_open(&f->dbg, de.fd)) {
			if (f->dbg.has_dcfi)
				f->dbg_state = 1;
			else
				ember_uw_elf_release(&f->dbg);
		}
		rec_elf_close(&de);
	}
	rec_elf_close(&re);
	return f->dbg_state > 0 ? &f->dbg : NULL;
}

/* ---- rules for code without CFI ---- */

static size_t read_mem(struct ember_unwinder *u, int pid, uint64_t addr,
		       void *buf, size_t n)
{
	if (u->read)
		return u->read(u->read_ctx, pid, addr, buf, n);
	if (pid <= 0)
		return 0;
	struct iovec local = {buf, n};
	struct iovec remote = {(void *)(uintptr_t)addr, n};
	ssize_t r = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	return r > 0 ? (size_t)r : 0;
}

/* Code bytes around rip (up to 16 before, 16 from it) into w[32]: from
 * the jitdump if it holds the code at rip (the part of the window inside
 * that code), else from the live process (inside the mapping).  Sets
 * *base to the window's address; returns its length. */
static size_t read_code(struct ember_unwinder *u, struct proc *p,
			const struct ember_unwind_mapping *m, uint64_t rip,
			uint8_t *w, uint64_t *base)
{
	uint64_t lo = m->start, hi = m->end, a, b;

	if (p->jd) {
		const struct ember_jit_code *c =
		    ember_jitdump_find(p->jd, rip, UINT64_MAX);
		if (c && c->code_off != UINT64_MAX) {
			a = rip - c->addr >= 16 ? rip - 16 : c->addr;
			b = c->addr + c->size - rip > 16 ? rip + 16
							 : c->addr + c->size;
			*base = a;
			return ember_jitdump_read_code(p->jd, c, a, w,
						       (size_t)(b - a));
		}
	}
	a = rip - lo >= 16 ? rip - 16 : lo;
	b = hi - rip > 16 ? rip + 16 : hi;
	*base = a;
	return read_mem(u, p->pid, a, w, (size_t)(b - a));
}

static void sp_rule(struct ember_cfi_rule *r, int32_t cfa_off, int bp_saved)
{
	memset(r, 0, sizeof(*r));
	r->kind = EMBER_RULE_CFA;
	r->cfa = EMBER_CFA_SP;
	r->cfa_off = cfa_off;
	r->ra = EMBER_LOC_CFA;
	r->ra_off = -8;
	r->bp = bp_saved ? EMBER_LOC_CFA : EMBER_LOC_SAME;
	r->bp_off = bp_saved ? -16 : 0;
	r->src = EMBER_SRC_PATTERN;
}

/* CPython's perf trampoline (Python/asm_trampoline.S, 3.12 and 3.13):
 * sub $8,%rsp; call *%rcx; add $8,%rsp; ret */
const uint8_t ember_py_trampoline[11] = {0x48, 0x83, 0xec, 0x08, 0xff, 0xd1,
					 0x48, 0x83, 0xc4, 0x08, 0xc3};
#define py_tramp ember_py_trampoline

/*
 * Rules from the code bytes around rip: inside CPython's trampoline (at
 * any instruction when it is the first frame, at its return address
 * otherwise), and for a first frame at a push %rbp; mov %rsp,%rbp
 * prologue or at a ret.  Returns 0 with *r set, or -1.
 */
static int pattern_rule(struct ember_unwinder *u, struct proc *p,
			const struct ember_unwind_mapping *m, uint64_t rip,
			int first, struct ember_cfi_rule *r)
{
	uint8_t w[32];
	uint64_t base;
	size_t n, pos;

	if (rip < m->start || rip >= m->end)
		return -1;
	n = read_code(u, p, m, rip, w, &base);
	pos = (size_t)(rip - base);
	if (pos > n)
		return -1;
	for (size_t o = 0; o < sizeof(py_tramp) && o <= pos; o++) {
		size_t t = pos - o;
		if (t + sizeof(py_tramp) > n ||
		    memcmp(w + t, py_tramp, sizeof(py_tramp)))
			continue;
		if (!first && o != 6)
			return -1;
		/* the sub has run and the add not yet: one extra slot */
		sp_rule(r, o >= 4 && o < 10 ? 16 : 8, 0);
		return 0;
	}
	if (!first || pos >= n)
		return -1;
	if (n - pos >= 4 && !memcmp(w + pos, "\x55\x48\x89\xe5", 4)) {
		sp_rule(r, 8, 0); /* at the push %rbp */
		return 0;
	}
	if (pos >= 1 && n - pos >= 3 && w[pos - 1] == 0x55 &&
	    !memcmp(w + pos, "\x48\x89\xe5", 3)) {
		sp_rule(r, 16, 1); /* %rbp pushed, not yet the frame pointer */
		return 0;
	}
	if (w[pos] == 0xc3) {
		sp_rule(r, 8, 0); /* at a ret */
		return 0;
	}
	return -1;
}

/* Drops cached rules of pid that did not come from file CFI: after the
 * jitdump grew they may have better ones. */
static void drop_jit_rules(struct ember_unwinder *u, struct proc *p)
{
	for (size_t i = 0; i < CACHE_SIZE; i++)
		if (u->cache[i].gen == p->gen &&
		    u->cache[i].rule.src != EMBER_SRC_CFI)
			u->cache[i].gen = 0;
}

static int jit_rule(struct ember_unwinder *u, struct proc *p, uint64_t pc,
		    uint64_t rip, struct ember_cfi_rule *r)
{
	const struct ember_jit_code *c =
	    ember_jitdump_find(p->jd, pc, UINT64_MAX);
	struct ember_cfi cfi;
	int err;

	if (!c) {
		/* the runtime may have written it since the last read */
		u->st.jit_updates++;
		if (ember_jitdump_update(p->jd) <= 0)
			return -1;
		drop_jit_rules(u, p);
		c = ember_jitdump_find(p->jd, pc, UINT64_MAX);
	}
	if (!c || !c->eh_frame)
		return -1;
	ember_cfi_init(&cfi, c->eh_frame, c->eh_frame_len, c->eh_frame_addr,
		       c->eh_frame_hdr, c->eh_frame_hdr_len,
		       c->eh_frame_hdr_addr, EMBER_CFI_NOINDEX);
	err = ember_cfi_rule(&cfi, pc, rip, r, NULL, NULL);
	ember_cfi_release(&cfi);
	if (err)
		return -1;
	r->src = EMBER_SRC_JIT;
	return 0;
}

/* A file the CFI can come from: a path ("//anon" is not one) or the vdso. */
static int is_file(const char *path)
{
	return path &&
	       ((path[0] == '/' && path[1] != '/') || !strcmp(path, "[vdso]"));
}

/*
 * The rule for the frame at lookup address pc (rip: the frame's ip).
 * Returns -1 when pc is not in an executable mapping.  Order: the file's
 * CFI (.eh_frame, then .debug_frame); for code without it, jitdump CFI,
 * code patterns, frame pointers.
 */
static int compute(struct ember_unwinder *u, struct proc *p, uint64_t pc,
		   uint64_t rip, int first, ember_unwind_find_fn find,
		   void *ctx, struct ember_cfi_rule *r)
{
	const struct ember_unwind_mapping *m = find(ctx, pc);
	struct file *f;

	if (!m || !m->exec || pc < m->start || pc >= m->end)
		return -1;
	memset(r, 0, sizeof(*r));
	if (is_file(m->path) && (f = get_file(u, p->pid, m))) {
		uint64_t svma;
		if (ember_uw_elf_svma(&f->elf, pc - m->start + m->pgoff,
				      &svma)) {
			r->kind = EMBER_RULE_LEAF_FP;
			r->src = EMBER_SRC_FP;
			return 0;
		}
		/* a Go stack's first function, or (as a caller) one that
		 * switched stacks: the walk is complete there */
		if (ember_uw_elf_is_root(&f->elf, svma) > first) {
			r->kind = EMBER_RULE_END;
			r->src = EMBER_SRC_CFI;
			return 0;
		}
		int err =
		    ember_uw_elf_rule(&f->elf, svma, svma + (rip - pc), r);
		struct ember_uw_elf *dbg;
		if (err == EMBER_ENOENT && (dbg = debug_cfi(p->pid, f, m))) {
			if (ember_uw_elf_is_root(dbg, svma) > first) {
				memset(r, 0, sizeof(*r));
				r->kind = EMBER_RULE_END;
				r->src = EMBER_SRC_CFI;
				return 0;
			}
			err = ember_cfi_rule(&dbg->dcfi, svma,
					     svma + (rip - pc), r, NULL, NULL);
		}
		if (!err)
			return 0;
		memset(r, 0, sizeof(*r));
		/* the entry point's code without CFI, or a call from it
		 * (ld.so's _start calling _dl_start, Go's _rt0_amd64_linux):
		 * the stack's root */
		if (err == EMBER_ENOENT && f->elf.entry &&
		    svma - f->elf.entry < 64) {
			r->kind = EMBER_RULE_END;
			r->src = EMBER_SRC_CFI;
			return 0;
		}
		/* no FDE: a stub without CFI, a leaf or frame-pointer code;
		 * unusable CFI: frame pointers */
		r->kind =
		    err == EMBER_ENOENT ? EMBER_RULE_LEAF_FP : EMBER_RULE_FP;
		r->src = EMBER_SRC_FP;
		return 0;
	}
	if (p->jd && !jit_rule(u, p, pc, rip, r))
		return 0;
	if (!(u->flags & EMBER_UNWIND_NO_PATTERNS) &&
	    !pattern_rule(u, p, m, rip, first, r))
		return 0;
	memset(r, 0, sizeof(*r));
	r->kind = EMBER_RULE_FP;
	r->src = EMBER_SRC_FP;
	return 0;
}

/* ---- the walk ---- */

struct stack {
	const uint8_t *p;
	uint64_t lo;
	size_t len;
	int past_end; /* a read went beyond the copy's end */
};

static inline int rd(struct stack *s, uint64_t a, uint64_t *v)
{
	uint64_t off = a - s->lo;
	if (a < s->lo || off > s->len || s->len - off < 8) {
		if (a >= s->lo && off <= (uint64_t)1 << 32)
			s->past_end = 1;
		return -1;
	}
	memcpy(v, s->p + off, 8);
	return 0;
}

enum { STEP_OK, STEP_END, STEP_STACK, STEP_NORULE };

/* Whether addr is in executable memory of the process. */
static int is_code(ember_unwind_find_fn find, void *ctx, uint64_t addr)
{
	const struct ember_unwind_mapping *m = find(ctx, addr);

	return m && m->exec && addr >= m->start && addr < m->end;
}

/* A frame's registers: what the rules read and recover. */
enum { RG_IP, RG_SP, RG_BP, RG_BX, RG_R12, RG_NREGS = RG_R12 + 4 };

/* Where a saved register is: its slot's address, or 0 for the rules that
 * give a value (SAME, UNDEF, VAL_CFA). */
static uint64_t slot_at(const uint64_t *g, uint64_t cfa, uint8_t loc,
			int16_t off)
{
	uint64_t base = loc == EMBER_LOC_SP   ? g[RG_SP]
			: loc == EMBER_LOC_BP ? g[RG_BP]
					      : cfa;
	return base + (uint64_t)(int64_t)off;
}

/* The caller's value of a callee-saved register (rbp, rbx, r12-r15). */
static int restore(struct stack *s, const uint64_t *g, uint64_t cfa,
		   uint8_t loc, int16_t off, uint64_t cur, uint64_t *out)
{
	switch (loc) {
	case EMBER_LOC_SAME:
		*out = cur;
		return 0;
	case EMBER_LOC_UNDEF:
		*out = 0;
		return 0;
	case EMBER_LOC_VAL_CFA:
		*out = cfa + (uint64_t)(int64_t)off;
		return 0;
	}
	uint64_t at = slot_at(g, cfa, loc, off);
	/* below sp: an epilogue has popped it back already (the CFI keeps
	 * the old slot), so the register holds the caller's value */
	if (at < g[RG_SP]) {
		*out = cur;
		return 0;
	}
	return rd(s, at, out);
}

/* Applies rule r to the frame's registers g, which become the caller's. */
static int step(const struct ember_cfi_rule *r, struct stack *s, int first,
		unsigned flags, uint64_t *g)
{
	uint64_t cfa, ra, nbp, saved[EMBER_NSAVE];
	int kind = r->kind;

	if (kind == EMBER_RULE_LEAF_FP && first) {
		if (rd(s, g[RG_SP], &ra))
			return STEP_STACK;
		g[RG_IP] = ra;
		g[RG_SP] += 8;
		return STEP_OK;
	}
	if (kind == EMBER_RULE_LEAF_FP)
		kind = EMBER_RULE_FP;
	switch (kind) {
	case EMBER_RULE_END:
		return STEP_END;
	case EMBER_RULE_FP:
		if (flags & EMBER_UNWIND_NO_FP)
			return STEP_NORULE;
		/* the frame pointer must point into this frame or above */
		if (g[RG_BP] < g[RG_SP] || rd(s, g[RG_BP] + 8, &ra) ||
		    rd(s, g[RG_BP], &nbp))
			return STEP_STACK;
		g[RG_IP] = ra;
		g[RG_SP] = g[RG_BP] + 16;
		g[RG_BP] = nbp;
		return STEP_OK;
	case EMBER_RULE_CFA:
		break;
	default:
		return STEP_NORULE;
	}
	static const uint8_t cfa_reg[] = {
	    RG_SP, RG_BP, RG_BX, RG_R12, RG_R12 + 1, RG_R12 + 2, RG_R12 + 3};
	int base = r->cfa & EMBER_CFA_REG;
	if (base >= (int)sizeof(cfa_reg))
		return STEP_NORULE;
	cfa = g[cfa_reg[base]] + (uint64_t)(int64_t)r->cfa_off;
	if ((r->cfa & EMBER_CFA_DEREF) && rd(s, cfa, &cfa))
		return STEP_STACK;
	if (rd(s, slot_at(g, cfa, r->ra, r->ra_off), &ra))
		return STEP_STACK;
	if (restore(s, g, cfa, r->bp, r->bp_off, g[RG_BP], &nbp))
		return STEP_STACK;
	for (int i = 0; i < EMBER_NSAVE; i++)
		if (restore(s, g, cfa, r->save[i], r->save_off[i], g[RG_BX + i],
			    &saved[i]))
			return STEP_STACK;
	g[RG_IP] = ra;
	g[RG_SP] = cfa;
	g[RG_BP] = nbp;
	memcpy(&g[RG_BX], saved, sizeof(saved));
	return STEP_OK;
}

/* The set of 4 slots for key, most recently used first. */
static inline struct slot *set_of(struct ember_unwinder *u, uint64_t key,
				  uint32_t gen)
{
	uint64_t h = (key ^ ((uint64_t)gen << 47)) * 0x9E3779B97F4A7C15ull;
	return &u->cache[(h >> (64 - SET_BITS)) * CACHE_WAYS];
}

/* The cached rule for key: 1 with *r set, or 0.  A hit moves its slot one
 * place forward, so that the ways of a set stay in rough LRU order. */
static inline int cache_get(struct slot *set, uint64_t key, uint32_t gen,
			    struct ember_cfi_rule *r)
{
	for (int w = 0; w < CACHE_WAYS; w++) {
		if (set[w].key != key || set[w].gen != gen)
			continue;
		*r = set[w].rule;
		if (w > 0) {
			struct slot t = set[w - 1];
			set[w - 1] = set[w];
			set[w] = t;
		}
		return 1;
	}
	return 0;
}

/* Puts a rule first in its set, dropping the least recently used one. */
static inline void cache_put(struct slot *set, uint64_t key, uint32_t gen,
			     const struct ember_cfi_rule *r)
{
	memmove(&set[1], &set[0], (CACHE_WAYS - 1) * sizeof(*set));
	set[0].key = key;
	set[0].gen = gen;
	set[0].rule = *r;
}

size_t ember_unwind(struct ember_unwinder *u, int pid,
		    const struct ember_unwind_regs *regs, const uint8_t *stack,
		    size_t stack_len, ember_unwind_find_fn find, void *ctx,
		    uint64_t *ips, size_t max, int *truncated)
{
	struct stack s = {stack, regs->sp, stack ? stack_len : 0, 0};
	struct proc *p = find_proc(u, pid, 1);
	uint64_t g[RG_NREGS] = {regs->ip,  regs->sp,  regs->bp,	 regs->bx,
				regs->r12, regs->r13, regs->r14, regs->r15};
	int first = 1, exact = 1, stop = 0;
	size_t n = 0;

	*truncated = 0;
	u->st.samples++;
	if (!max)
		return 0;
	for (;;) {
		uint64_t ip = g[RG_IP], pc = exact ? ip : ip - 1;
		uint64_t key = pc | (first ? FIRST_BIT : 0);
		struct slot *set = set_of(u, key, p->gen);
		struct ember_cfi_rule r;

		if (!(u->flags & EMBER_UNWIND_NO_CACHE) &&
		    cache_get(set, key, p->gen, &r)) {
			u->st.cache_hits++;
		} else {
			u->st.cache_misses++;
			if (compute(u, p, pc, ip, first, find, ctx, &r)) {
				/* the sampled ip is real, a return address
				 * outside executable memory is not */
				if (n == 0)
					ips[n++] = ip;
				u->st.stop_no_exec++;
				stop = 1;
				break;
			}
			cache_put(set, key, p->gen, &r);
		}
		if (n == max) {
			u->st.stop_max++;
			stop = 1;
			break;
		}
		/* after a signal frame, ip is exact: keep "ips[i] - 1" true */
		ips[n] = exact && n > 0 ? ip + 1 : ip;
		n++;
		uint64_t osp = g[RG_SP], top;
		/* code without an FDE, interrupted: a leaf whose return address
		 * is at sp, or code with a frame (V8's builtins keep frame
		 * pointers), whose [sp] is no return address */
		if (r.kind == EMBER_RULE_LEAF_FP && first &&
		    !(u->flags & EMBER_UNWIND_NO_FP) &&
		    !rd(&s, g[RG_SP], &top) && !is_code(find, ctx, top))
			r.kind = EMBER_RULE_FP;
		int ret = step(&r, &s, first, u->flags, g);
		if (ret == STEP_END)
			break;
		if (ret == STEP_STACK) {
			u->st.stop_stack++;
			stop = 1;
			break;
		}
		if (ret == STEP_NORULE) {
			u->st.stop_no_rule++;
			stop = 1;
			break;
		}
		if (g[RG_SP] <= osp || g[RG_SP] - s.lo > s.len) {
			u->st.stop_sp++;
			stop = 1;
			break;
		}
		u->st.by_src[r.src < EMBER_SRC_COUNT ? r.src : EMBER_SRC_FP]++;
		if (g[RG_IP] == 0)
			break; /* outermost frame without CFI saying so */
		first = exact = r.signal;
	}
	u->st.frames += n;
	if (stop) {
		u->st.truncated++;
		*truncated = s.past_end ? EMBER_UNWIND_PAST_COPY : 1;
	}
	return n;
}
