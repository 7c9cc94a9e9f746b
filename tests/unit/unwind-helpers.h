/* Helpers for the unwinder's tests and benchmark: a process's mappings
 * from /proc/PID/maps, a small symbolizer (ELF symbol tables, debug files
 * by build-id, perf maps, jitdumps) and stack snapshots of a live process
 * (its own, or a child stopped with ptrace). */
#ifndef EMBER_UNWIND_HELPERS_H
#define EMBER_UNWIND_HELPERS_H

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <glob.h>
#include <limits.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ember.h"
#include "symbols/jitdump.h"
#include "unwind/unwind.h"

/* The first path matching pattern in the pyenv versions directory (or
 * NULL): the Python builds the live tests and the benchmark run. */
static inline char *find_python(const char *pattern)
{
	static char found[PATH_MAX];
	const char *root = getenv("PYENV_ROOT"), *home = getenv("HOME");
	char pat[PATH_MAX];
	glob_t g;

	if (root)
		snprintf(pat, sizeof(pat), "%s/versions/%s", root, pattern);
	else if (home)
		snprintf(pat, sizeof(pat), "%s/.pyenv/versions/%s", home,
			 pattern);
	else
		return NULL;
	if (glob(pat, 0, NULL, &g) || !g.gl_pathc)
		return NULL;
	snprintf(found, sizeof(found), "%s", g.gl_pathv[0]);
	globfree(&g);
	return found;
}

#pragma GCC diagnostic ignored "-Wunused-function"

/* ---- mappings ---- */

struct maps {
	struct ember_unwind_mapping *v;
	size_t n;
};

static void maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free((char *)m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static int maps_load(int pid, struct maps *m)
{
	char path[64], line[4096];
	FILE *f;
	size_t alloc = 0;

	m->v = NULL;
	m->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off, ino;
		unsigned maj, min;
		char perm[8];
		int pos = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &lo, &hi,
			   perm, &off, &maj, &min, &ino, &pos) < 7)
			continue;
		if (m->n == alloc) {
			alloc = alloc * 2 + 64;
			m->v = realloc(m->v, alloc * sizeof(*m->v));
		}
		char *name = line + pos;
		name[strcspn(name, "\n")] = '\0';
		struct ember_unwind_mapping *e = &m->v[m->n++];
		memset(e, 0, sizeof(*e));
		e->start = lo;
		e->end = hi;
		e->pgoff = off;
		e->dev = makedev(maj, min);
		e->ino = ino;
		e->exec = perm[2] == 'x';
		e->path = *name ? strdup(name) : NULL;
	}
	fclose(f);
	return 0;
}

static const struct ember_unwind_mapping *maps_find(void *ctx, uint64_t a)
{
	struct maps *m = ctx;
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->v[mid].end <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->v[lo].start <= a ? &m->v[lo] : NULL;
}

/* ---- symbols ---- */

struct tsym {
	uint64_t lo, hi;
	char *name;
};

struct tfile {
	char *path;
	struct tsym *s;
	size_t n;
	GElf_Phdr load[16];
	int nload;
};

struct symbolizer {
	struct tfile *f;
	size_t n;
	struct tsym *jit; /* perf map */
	size_t njit, jit_alloc;
	struct ember_jitdump *jd;
};

static int tsym_cmp(const void *a, const void *b)
{
	const struct tsym *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void add_elf_syms(struct tfile *t, Elf *e, size_t *alloc)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t cnt = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < cnt; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
			     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC))
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!nm)
				continue;
			if (t->n == *alloc) {
				*alloc = *alloc * 2 + 256;
				t->s = realloc(t->s, *alloc * sizeof(*t->s));
			}
			t->s[t->n].lo = sym.st_value;
			t->s[t->n].hi = sym.st_value + sym.st_size;
			t->s[t->n].name = strdup(nm);
			t->n++;
		}
	}
}

/* The debug file of e by build-id, if installed. */
static int debug_fd(Elf *e)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *d = elf_getdata_rawchunk(e, ph.p_offset, ph.p_filesz,
						   ELF_T_NHDR);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			const uint8_t *id = (const uint8_t *)d->d_buf + doff;
			char path[256];
			int k =
			    snprintf(path, sizeof(path),
				     "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (size_t j = 1; j < nh.n_descsz; j++)
				k += snprintf(path + k, sizeof(path) - k,
					      "%02x", id[j]);
			snprintf(path + k, sizeof(path) - k, ".debug");
			return open(path, O_RDONLY);
		}
	}
	return -1;
}

static struct tfile *sym_file(struct symbolizer *z, const char *path)
{
	for (size_t i = 0; i < z->n; i++)
		if (!strcmp(z->f[i].path, path))
			return &z->f[i];
	z->f = realloc(z->f, (z->n + 1) * sizeof(*z->f));
	struct tfile *t = &z->f[z->n++];
	size_t alloc = 0, np;
	memset(t, 0, sizeof(*t));
	t->path = strdup(path);
	elf_version(EV_CURRENT);
	int fd = open(path, O_RDONLY);
	Elf *e = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	if (e && !elf_getphdrnum(e, &np)) {
		for (size_t i = 0; i < np && t->nload < 16; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) &&
			    ph.p_type == PT_LOAD)
				t->load[t->nload++] = ph;
		}
		add_elf_syms(t, e, &alloc);
		int dfd = debug_fd(e);
		Elf *de =
		    dfd >= 0 ? elf_begin(dfd, ELF_C_READ_MMAP, NULL) : NULL;
		if (de) {
			add_elf_syms(t, de, &alloc);
			elf_end(de);
		}
		if (dfd >= 0)
			close(dfd);
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	qsort(t->s, t->n, sizeof(*t->s), tsym_cmp);
	for (size_t i = 0; i < t->n; i++) /* size 0: up to the next one */
		if (t->s[i].hi == t->s[i].lo)
			t->s[i].hi =
			    i + 1 < t->n ? t->s[i + 1].lo : t->s[i].lo + 1;
	return t;
}

static const char *tsym_find(const struct tsym *s, size_t n, uint64_t a)
{
	const char *best = NULL;
	uint64_t best_lo = 0;

	/* last symbol starting at or below a that covers it */
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i < 64;)
		if (a < s[i].hi && (!best || s[i].lo > best_lo)) {
			best = s[i].name;
			best_lo = s[i].lo;
		}
	return best;
}

/* Reads /tmp/perf-PID.map (later lines win). */
static void sym_load_perf_map(struct symbolizer *z, int pid)
{
	char path[64], line[4096];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long a, n;
		int pos = 0;
		if (sscanf(line, "%llx %llx %n", &a, &n, &pos) < 2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		if (z->njit == z->jit_alloc) {
			z->jit_alloc = z->jit_alloc * 2 + 256;
			z->jit =
			    realloc(z->jit, z->jit_alloc * sizeof(*z->jit));
		}
		z->jit[z->njit].lo = a;
		z->jit[z->njit].hi = a + n;
		z->jit[z->njit].name = strdup(line + pos);
		z->njit++;
	}
	if (f)
		fclose(f);
	/* stable sort by address keeps later duplicates after earlier */
	for (size_t i = 1; i < z->njit; i++)
		for (size_t j = i; j > 0 && z->jit[j - 1].lo > z->jit[j].lo;
		     j--) {
			struct tsym t = z->jit[j];
			z->jit[j] = z->jit[j - 1];
			z->jit[j - 1] = t;
		}
}

static void sym_free(struct symbolizer *z)
{
	for (size_t i = 0; i < z->n; i++) {
		for (size_t j = 0; j < z->f[i].n; j++)
			free(z->f[i].s[j].name);
		free(z->f[i].s);
		free(z->f[i].path);
	}
	for (size_t i = 0; i < z->njit; i++)
		free(z->jit[i].name);
	free(z->f);
	free(z->jit);
	memset(z, 0, sizeof(*z));
}

/* Name of code address a (already "ip - 1" for callers), or "?". */
static const char *sym_name(struct symbolizer *z, struct maps *m, uint64_t a)
{
	const struct ember_unwind_mapping *mp = maps_find(m, a);
	const char *s = NULL;

	if (mp && mp->path && mp->path[0] == '/') {
		struct tfile *t = sym_file(z, mp->path);
		uint64_t off = a - mp->start + mp->pgoff;
		for (int i = 0; i < t->nload; i++)
			if (off >= t->load[i].p_offset &&
			    off < t->load[i].p_offset + t->load[i].p_filesz)
				s = tsym_find(t->s, t->n,
					      off - t->load[i].p_offset +
						  t->load[i].p_vaddr);
		return s ? s : "?";
	}
	if (z->njit && (s = tsym_find(z->jit, z->njit, a)))
		return s;
	if (z->jd) {
		const struct ember_jit_code *c =
		    ember_jitdump_find(z->jd, a, UINT64_MAX);
		if (c)
			return c->name;
	}
	return mp && mp->path && !strcmp(mp->path, "[vdso]") ? "[vdso]" : "?";
}

/* ---- building CFI and jitdumps ---- */

struct bytes {
	uint8_t *b;
	size_t n, alloc;
};

static void put(struct bytes *o, const void *p, size_t n)
{
	if (!n)
		return;
	if (o->n + n > o->alloc) {
		o->alloc = (o->n + n) * 2 + 256;
		o->b = realloc(o->b, o->alloc);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void put8(struct bytes *o, uint8_t v)
{
	put(o, &v, 1);
}
static void put32(struct bytes *o, uint32_t v)
{
	put(o, &v, 4);
}
static void put64(struct bytes *o, uint64_t v)
{
	put(o, &v, 8);
}

static void set32(struct bytes *o, size_t at, uint32_t v)
{
	memcpy(o->b + at, &v, 4);
}

/*
 * Appends to o (which is placed at address base) a CIE with augmentation
 * aug ("zR" or "zRS": pcrel|sdata4 pointers, code alignment 1, data
 * alignment -8, return address r16, initial rules CFA = rsp + 8 and ra at
 * CFA - 8) and one FDE for [start, start + size) with instructions ins.
 * Returns the FDE's offset.
 */
static size_t eh_add(struct bytes *o, uint64_t base, const char *aug,
		     uint64_t start, uint64_t size, const uint8_t *ins,
		     size_t nins)
{
	static const uint8_t init[] = {0x0c, 0x07, 0x08, 0x90, 0x01};
	size_t cie = o->n, fde;

	put32(o, 0);
	put32(o, 0);
	put8(o, 1);
	put(o, aug, strlen(aug) + 1);
	put8(o, 1);    /* code alignment */
	put8(o, 0x78); /* data alignment -8 */
	put8(o, 16);   /* return address column */
	put8(o, 1);    /* augmentation data length */
	put8(o, 0x1b); /* FDE pointers: pcrel | sdata4 */
	put(o, init, sizeof(init));
	while ((o->n - cie) % 8)
		put8(o, 0);
	set32(o, cie, (uint32_t)(o->n - cie - 4));
	fde = o->n;
	put32(o, 0);
	put32(o, (uint32_t)(o->n - cie));
	put32(o, (uint32_t)(start - (base + o->n)));
	put32(o, (uint32_t)size);
	put8(o, 0);
	put(o, ins, nins);
	while ((o->n - fde) % 8)
		put8(o, 0);
	set32(o, fde, (uint32_t)(o->n - fde - 4));
	return fde;
}

static void jd_header(struct bytes *o, uint32_t pid)
{
	put32(o, 0x4A695444);
	put32(o, 1);
	put32(o, 40);
	put32(o, 62);
	put32(o, 0);
	put32(o, pid);
	put64(o, 1000);
	put64(o, 0);
}

static void jd_rec(struct bytes *o, uint32_t id, uint32_t size, uint64_t ts)
{
	put32(o, id);
	put32(o, size);
	put64(o, ts);
}

/* A JIT_CODE_LOAD of size bytes of code (zeros if code is NULL). */
static void jd_load(struct bytes *o, uint64_t ts, uint64_t addr, uint64_t size,
		    uint64_t index, const char *name, const void *code)
{
	size_t nl = strlen(name) + 1;
	jd_rec(o, 0, (uint32_t)(16 + 40 + nl + size), ts);
	put32(o, 42);
	put32(o, 43);
	put64(o, addr);
	put64(o, addr);
	put64(o, size);
	put64(o, index);
	put(o, name, nl);
	for (uint64_t i = 0; i < size; i++)
		put8(o, code ? ((const uint8_t *)code)[i] : 0);
}

/* A JIT_CODE_UNWINDING_INFO with the .eh_frame eh (no header). */
static void jd_unwind(struct bytes *o, uint64_t ts, const struct bytes *eh)
{
	size_t pad = (8 - eh->n % 8) % 8;
	jd_rec(o, 4, (uint32_t)(16 + 24 + eh->n + pad), ts);
	put64(o, eh->n);
	put64(o, 0);
	put64(o, eh->n);
	put(o, eh->b, eh->n);
	for (size_t i = 0; i < pad; i++)
		put8(o, 0);
}

/* An eh_frame for code [addr, addr + size) as a jitdump places it. */
static void jd_eh_for(struct bytes *eh, uint64_t addr, uint64_t size,
		      const char *aug, const uint8_t *ins, size_t nins)
{
	eh->n = 0;
	eh_add(eh, addr + ((size + 7) & ~7ull), aug, addr, size, ins, nins);
}

/* ---- snapshots ---- */

struct snap {
	struct ember_unwind_regs regs;
	uint8_t *stack;
	size_t len;
};

static size_t read_vm(int pid, uint64_t a, void *buf, size_t n)
{
	struct iovec l = {buf, n}, r = {(void *)(uintptr_t)a, n};
	ssize_t k = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (k > 0)
		return (size_t)k;
	/* across the end of the stack: read what is mapped */
	size_t got = 0;
	while (got < n) {
		size_t chunk = 4096 - ((a + got) & 4095);
		if (chunk > n - got)
			chunk = n - got;
		l.iov_base = (char *)buf + got;
		l.iov_len = chunk;
		r.iov_base = (void *)(uintptr_t)(a + got);
		r.iov_len = chunk;
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)chunk)
			break;
		got += chunk;
	}
	return got;
}

/* Copies [sp, sp + want) of pid's memory, as the kernel's
 * PERF_SAMPLE_STACK_USER would (shorter at the stack's top). */
static void snap_copy(int pid, struct snap *s, size_t want)
{
	s->stack = malloc(want);
	s->len = read_vm(pid, s->regs.sp, s->stack, want);
}

/* Stops a child seized with PTRACE_SEIZE and takes a snapshot of its
 * main thread; resumes it.  Returns 0 or -1 (child gone). */
static int snap_ptrace(int pid, struct snap *s, size_t want)
{
	struct user_regs_struct r;
	int st;

	if (ptrace(PTRACE_INTERRUPT, pid, 0, 0))
		return -1;
	for (;;) {
		if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st))
			return -1;
		if ((st >> 16) == PTRACE_EVENT_STOP)
			break;
		/* a signal for the child: deliver it and wait again */
		int sig = WSTOPSIG(st);
		if (ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig))
			return -1;
	}
	if (ptrace(PTRACE_GETREGS, pid, 0, &r))
		return -1;
	s->regs.ip = r.rip;
	s->regs.sp = r.rsp;
	s->regs.bp = r.rbp;
	snap_copy(pid, s, want);
	return 0;
}

static void snap_resume(int pid)
{
	ptrace(PTRACE_CONT, pid, 0, 0);
}

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Starts argv[0] (searched in PATH) with stdout and stderr to /dev/null,
 * in directory dir if not NULL, seized with ptrace.  Returns the pid or
 * -1 (ptrace not permitted, program missing). */
static int spawn_seized(char *const argv[], const char *dir)
{
	int pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (dir && chdir(dir))
			_exit(127);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0)
		return -1;
	if (ptrace(PTRACE_SEIZE, pid, 0, 0)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	return pid;
}

/* Lets a seized child run to its end (10 s at most); 0 if it exited. */
static int finish(int pid)
{
	double end = now_us() + 10e6;
	int st;

	ptrace(PTRACE_CONT, pid, 0, 0);
	while (now_us() < end) {
		int r = waitpid(pid, &st, WNOHANG | __WALL);
		if (r == pid && (WIFEXITED(st) || WIFSIGNALED(st)))
			return WIFEXITED(st) ? 0 : -1;
		if (r == pid && WIFSTOPPED(st)) {
			int sig = (st >> 16) ? 0 : WSTOPSIG(st);
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)sig);
			continue;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		usleep(5000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, __WALL);
	return -1;
}

static void reap(int pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, __WALL) < 0 && errno == EINTR)
		;
}

#endif
