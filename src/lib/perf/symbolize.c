/*
 * Names for the recorded frames, once per unique frame, after recording:
 * kernel addresses from /proc/kallsyms, file offsets from the file's ELF
 * symbols (or its separate debug file's), JIT addresses from the process's
 * perf map.  Each name is then folded as `perf script | ember collapse
 * perf` would fold it: a frame without a symbol is "[module basename]",
 * "[unknown]" outside any mapping, and --kernel/--jit add "_[k]"/"_[j]".
 * The calls inlined at a file's address, from its DWARF, are frames of
 * their own above it, named as perf script names them ("_[i]" with --all).
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "symbols/inline.h"
#include "symbols/jitdump.h"
#include "symbols/procfs.h"
#include "symbols/names.h"
#include "perf/symbolize.h"
#include "perf/interp.h"
#include "perf/samples.h"

/* ---- folding names as stackcollapse-perf does ------------------------- */

/* The same code as `ember collapse perf`, so that the names are the same. */
int rec_fold_frame(struct ember_buf *out, const char *sym, size_t n,
		   const char *dso, size_t dn, int flags)
{
	struct ember_perf_frame f = {sym, n, dso, dn, NULL, 0};

	return ember_perf_frame_names(
	    &f,
	    ((flags & REC_FOLD_JAVA) ? EMBER_PERF_JAVA : 0) |
		((flags & REC_FOLD_KERNEL) ? EMBER_PERF_KERNEL : 0) |
		((flags & REC_FOLD_JIT) ? EMBER_PERF_JIT : 0),
	    out);
}

/* ---- symbol sources --------------------------------------------------- */

int rec_kernel_syms_load(struct rec_symtab *st, const char *cache, int other,
			 const int *stop, int *cache_err)
{
	*cache_err = 0;
	if (cache && *cache) {
		int err = rec_kallsyms_load_cache(st, cache, stop);
		if (!err || err == EMBER_EINTR)
			return err;
		*cache_err = err;
	}
	if (other)
		return EMBER_ENOTSUP;
	return rec_kallsyms_load_until(st, NULL, stop);
}

void rec_kernel_syms_why(const char *cache, int cache_err)
{
	const char *why = cache_err == EMBER_ETRUNC ? "is cut short"
			  : cache_err == EMBER_EPERM
			      ? "is not readable, or not to be trusted ("
				"another user's, or others may write it)"
			  : cache_err == EMBER_EEMPTY
			      ? "is empty"
			      : "holds no kernel "
				"symbol with an address";

	if (cache_err && cache_err != EMBER_ENOENT)
		ember_log(EMBER_LOG_WARN,
			  "perf's copy of the kernel's symbols '%s' %s: "
			  "ignored",
			  cache, why);
}

static const char *kernel_sym(struct rec_symctx *c, uint64_t addr)
{
	if (!c->kernel_state) {
		int err, cache_err;
		if (c->pre) {
			/* loaded meanwhile by the caller */
			c->kernel = *c->pre;
			err = c->pre_err;
			cache_err = c->pre_cache_err;
			c->pre = NULL;
		} else {
			rec_symtab_init(&c->kernel, REC_SYMTAB_KALLSYMS);
			err = rec_kernel_syms_load(
			    &c->kernel, c->kallsyms_cache,
			    c->no_kallsyms != NULL, NULL, &cache_err);
			rec_symtab_finish(&c->kernel);
		}
		c->kernel_state = err ? -1 : 1;
		rec_kernel_syms_why(c->kallsyms_cache, cache_err);
		if (err == EMBER_ENOTSUP && c->no_kallsyms)
			/* a recording made under another kernel */
			ember_log(EMBER_LOG_WARN, "%s", c->no_kallsyms);
		else if (err == EMBER_EPERM)
			ember_log(EMBER_LOG_WARN,
				  "kernel symbols are hidden by "
				  "kernel.kptr_restrict: set it to 0, or run "
				  "as root, to name kernel frames");
		else if (err)
			ember_log(EMBER_LOG_WARN,
				  "cannot read /proc/kallsyms: kernel frames "
				  "stay unnamed");
	}
	const struct rec_sym *s =
	    c->kernel_state > 0 ? rec_symtab_find(&c->kernel, addr) : NULL;
	return s ? s->name : NULL;
}

static int load_vdso(struct rec_elf *e)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char line[512];
	size_t size = 0;
	FILE *f;

	if (!base || !(f = fopen("/proc/self/maps", "re")))
		return EMBER_ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2 && lo == base) {
			size = (size_t)(hi - lo);
			break;
		}
	}
	fclose(f);
	if (!size)
		return EMBER_ENOENT;
	return rec_elf_open_mem(e, (const void *)base, size);
}

static void hex(char *out, const uint8_t *id, size_t n)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* The file the recording saw, by its build-id: perf's build-id cache
 * (~/.debug), then the system's debug files. */
static int open_by_build_id(struct rec_dso *d)
{
	char h[64], path[4200];
	const char *home = getenv("HOME");
	const char *tails[] = {"elf", "debug"};

	hex(h, d->want_id, d->want_len);
	for (int i = 0; i < 3; i++) {
		if (i < 2 && !(home && *home))
			continue;
		if (i < 2)
			snprintf(path, sizeof(path),
				 "%s/.debug/.build-id/%.2s/%s/%s", home, h,
				 h + 2, tails[i]);
		else
			snprintf(path, sizeof(path),
				 "/usr/lib/debug/.build-id/%.2s/%s.debug", h,
				 h + 2);
		if (rec_elf_open(&d->elf, path))
			continue;
		if (d->elf.build_id_len == d->want_len &&
		    !memcmp(d->elf.build_id, d->want_id, d->want_len))
			return 0;
		rec_elf_close(&d->elf);
		d->elf.fd = -1;
	}
	return EMBER_ENOENT;
}

/* The file of d as the process that mapped it sees it, while it runs:
 * in a container, its own /usr/lib (procfs.c). */
static int open_dso(struct rec_dso *d)
{
	const struct rec_proc *p = d->proc;
	uint64_t start = 0, end = 0;
	int procfd = -1;

	if (p && (procfd = rec_proc_open_live(p)) >= 0) {
		for (size_t i = 0; i < p->nmaps; i++)
			if (p->maps[i].dso == d) {
				start = p->maps[i].m.start;
				end = p->maps[i].m.end;
				break;
			}
	}
	int fd =
	    rec_procfs_open_mapped(procfd, d->path, start, end, d->dev, d->ino);
	if (procfd >= 0)
		close(procfd);
	if (fd < 0)
		return errno == ENOENT ? EMBER_ENOENT : EMBER_EIO;
	return rec_elf_open_fd(&d->elf, fd);
}

static void load_dso(struct rec_symctx *c, struct rec_dso *d)
{
	int err = EMBER_ENOENT;

	d->loaded = 1;
	d->elf.fd = d->debug.fd = -1;
	rec_symtab_init(&d->syms, REC_SYMTAB_ELF);
	d->syms.demangle = 1;
	if (d->kind == REC_DSO_VDSO)
		err = load_vdso(&d->elf);
	else if (d->kind == REC_DSO_FILE && !d->deleted)
		err = open_dso(d);
	if (d->want_len && d->kind == REC_DSO_FILE &&
	    (err || d->elf.build_id_len != d->want_len ||
	     memcmp(d->elf.build_id, d->want_id, d->want_len))) {
		/* not the file recorded: rebuilt or upgraded since */
		if (!err)
			rec_elf_close(&d->elf);
		d->elf.fd = -1;
		err = open_by_build_id(d);
		if (err)
			ember_log(EMBER_LOG_INFO,
				  "'%s' is not the file recorded (another "
				  "build-id), and the recorded one is not in "
				  "~/.debug: no symbols",
				  d->path);
		else
			d->rebuilt = 1;
	}
	if (err) {
		if (d->kind == REC_DSO_FILE && !d->deleted)
			ember_log(EMBER_LOG_INFO, "no symbols for '%s'",
				  d->path);
		return;
	}
	d->usable = 1;
	if (d->kind == REC_DSO_FILE && !d->rebuilt &&
	    !rec_debuginfo_open(&d->elf, d->path, NULL, &d->debug, NULL)) {
		if (d->debug.has_symtab)
			d->has_debug = 1;
		else
			rec_elf_close(&d->debug);
	}
	/* stripped, and no debug file here: the servers may have one */
	if (d->kind == REC_DSO_FILE && !d->has_debug && !d->elf.has_symtab &&
	    !rec_debuginfod_open(&c->debuginfod, &d->elf, d->path, &d->debug)) {
		if (d->debug.has_symtab)
			d->has_debug = 1;
		else
			rec_elf_close(&d->debug);
	}
	if (d->has_debug)
		rec_elf_symbols(&d->debug, &d->syms, 0);
	else if (!rec_elf_symbols(&d->elf, &d->syms, 0))
		rec_elf_symbols(&d->elf, &d->syms, 1);
	rec_elf_plt_symbols(&d->elf, &d->syms);
	rec_symtab_finish_lazy(&d->syms);
}

static const char *dso_sym(struct rec_symctx *c, struct rec_dso *d,
			   uint64_t off)
{
	uint64_t vaddr;

	if (!d->loaded)
		load_dso(c, d);
	if (!d->usable)
		return NULL;
	rec_elf_off_to_vaddr(&d->elf, off, &vaddr);
	const struct rec_sym *s = rec_symtab_find(&d->syms, vaddr);
	return s ? rec_symtab_name(&d->syms, s) : NULL;
}

static void load_perfmap(const char *dir, struct rec_proc *p)
{
	struct ember_buf why = EMBER_BUF_INIT;
	int v = REC_PERFMAP_MISSING;

	rec_symtab_init(&p->perfmap, REC_SYMTAB_PERFMAP);
	v = rec_proc_load_perfmap(p, dir, &p->perfmap, &why);
	p->perfmap_state = v + 1;
	if (why.len)
		ember_log(EMBER_LOG_WARN, "%s", why.buf);
	ember_buf_release(&why);
	rec_symtab_finish(&p->perfmap);
}

/* JIT code's name: from the jitdump, for the code that was at addr when
 * the frame was first sampled, else from the perf map. */
static const char *jit_sym(struct rec_symctx *c, struct rec_proc *p,
			   const struct rec_frame *f)
{
	struct ember_jitdump *jd = rec_proc_jitdump(p);
	uint64_t addr = f->addr;

	if (jd) {
		uint64_t t = f->stamp ? f->stamp : f->seen;
		if (ember_jitdump_info(jd)->flags & 1)
			t = UINT64_MAX; /* TSC times: the latest */
		const struct ember_jit_code *code =
		    ember_jitdump_find(jd, addr, t);
		if (code && code->name && code->name[0])
			return code->name;
	}
	/* a forked child runs its parent's JIT code too */
	for (int depth = 0; p && depth < 16; p = p->parent, depth++) {
		if (!p->perfmap_state)
			load_perfmap(c->perfmap_dir, p);
		const struct rec_sym *s = rec_symtab_find(&p->perfmap, addr);
		if (s)
			return s->name;
	}
	return NULL;
}

/* ---- one frame -------------------------------------------------------- */

const char *rec_frame_symbol(struct rec_symctx *c, const struct rec_frame *f,
			     struct ember_buf *dso, int *java)
{
	struct rec_events *r = c->r;
	const char *sym = NULL;

	*java = 0;
	ember_buf_reset(dso);
	switch (f->kind) {
	case REC_FRAME_KERNEL:
		sym = kernel_sym(c, f->addr);
		ember_buf_adds(dso, "[kernel.kallsyms]");
		break;
	case REC_FRAME_DSO: {
		struct rec_dso *d = r->world.dsos[f->obj];
		sym = dso_sym(c, d, f->addr);
		ember_buf_adds(dso, d->path);
		if (d->deleted && r->replay)
			ember_buf_adds(dso,
				       " (deleted)"); /* as perf names it */
		break;
	}
	case REC_FRAME_JIT: {
		struct rec_proc *p = r->world.procs[f->obj];
		sym = jit_sym(c, p, f);
		ember_buf_addf(dso, "/tmp/perf-%d.map", p->pid);
		if (p->comm != UINT32_MAX &&
		    !strncmp(ember_intern_str(&r->world.comms, p->comm, NULL),
			     "java", 4))
			*java = 1;
		break;
	}
	case REC_FRAME_TRUNCATED:
		sym = "[truncated]";
		break;
	case REC_FRAME_INTERP: {
		size_t len;
		sym = rec_interp_merge_name(r->interp, f->obj, &len);
		ember_buf_adds(dso, "[interpreter]");
		break;
	}
	default:
		ember_buf_adds(dso, "[unknown]");
		break;
	}
	return sym;
}

/* Adds "_[i]" to each folded name in out from mark on (after the ';'
 * there, if any), unless it ends so already (a "->" part of the name). */
static void mark_inlined(struct ember_buf *out, size_t mark)
{
	struct ember_buf t = EMBER_BUF_INIT;
	const char *p = out->buf + mark, *end = out->buf + out->len;

	if (p < end && *p == ';') {
		ember_buf_addch(&t, ';');
		p++;
	}
	while (p <= end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		const char *e = semi ? semi : end;
		ember_buf_add(&t, p, (size_t)(e - p));
		if (e - p < 4 || memcmp(e - 4, "_[i]", 4))
			ember_buf_adds(&t, "_[i]");
		if (!semi)
			break;
		ember_buf_addch(&t, ';');
		p = semi + 1;
	}
	ember_buf_setlen(out, mark);
	ember_buf_add(out, t.buf, t.len);
	ember_buf_release(&t);
}

/* Module d's DWARF for its inlined calls, opened once: its index + 1 in
 * the inliner, or -1 when it has none. */
static int32_t inline_module(struct rec_symctx *c, struct rec_dso *d)
{
	uint32_t mod;

	if (!d->loaded)
		load_dso(c, d);
	if (d->kind != REC_DSO_FILE || !d->usable || d->elf.fd < 0)
		return -1;
	if (d->id >= c->ninline_mod) {
		size_t old = c->ninline_mod;
		EMBER_GROW(c->inline_mod, (size_t)d->id + 1, c->ninline_mod);
		memset(c->inline_mod + old, 0,
		       (c->ninline_mod - old) * sizeof(*c->inline_mod));
	}
	int32_t *m = &c->inline_mod[d->id];
	if (!*m) {
		if (!c->inliner)
			c->inliner = ember_inliner_new(EMBER_INLINE_PERF);
		/* the file read for symbols, found by its path, and its
		 * debug file (from debuginfod too) */
		*m = ember_inliner_module(c->inliner, (const char *)&d->id,
					  sizeof(d->id), d->path, d->elf.fd,
					  d->has_debug ? d->debug.fd : -1, &mod)
			 ? -1
			 : (int32_t)mod + 1;
	}
	return *m;
}

/* The calls inlined at frame f of module d, from its DWARF, appended to
 * c->out as folded names, outermost first (each after a ';' when n names
 * are there already); returns how many. */
static int inlined_frames(struct rec_symctx *c, const struct rec_frame *f,
			  struct rec_dso *d, int n)
{
	uint64_t vaddr;
	int32_t m = inline_module(c, d);
	if (m <= 0 || rec_elf_off_to_vaddr(&d->elf, f->addr, &vaddr))
		return 0;
	/* a return address: the call is the instruction before it */
	if (f->call == REC_CALL_RET && vaddr)
		vaddr--;
	ember_buf_reset(&c->inl);
	int k = ember_inliner_at(c->inliner, (uint32_t)(m - 1), vaddr, NULL, 0,
				 &c->inl);
	int added = 0;
	const char *p = c->inl.buf, *end = p + c->inl.len;
	for (int i = 0; i < k && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *tab = memchr(p, '\t', (size_t)(end - p));
		if (!nl)
			break;
		if (!tab || tab > nl)
			tab = nl;
		/* named as perf script prints an inlined frame: "NAME
		 * (inlined)", without _[k] or _[j] */
		size_t mark = c->out.len;
		if (n + added)
			ember_buf_addch(&c->out, ';');
		int got = rec_fold_frame(&c->out, p, (size_t)(tab - p),
					 "inlined", 7, 0);
		if (!got) {
			ember_buf_setlen(&c->out, mark);
		} else {
			if (c->flags & REC_FOLD_INLINE_MARK)
				mark_inlined(&c->out, mark);
			added += got;
		}
		p = nl + 1;
	}
	c->inlined += (uint64_t)added;
	return added;
}

/* Appends the folded names of frame f (';'-joined); returns how many. */
static int name_frame(struct rec_symctx *c, const struct rec_frame *f)
{
	struct ember_buf *dso = &c->raw;
	int java, flags = c->flags;

	/* the symbol and module as perf script prints them */
	const char *sym = rec_frame_symbol(c, f, dso, &java);
	/* a JVM's methods named as perf-map-agent names them, which is what
	 * flame graphs of Java (--colors java) expect */
	if (sym && f->kind == REC_FRAME_JIT &&
	    rec_proc_is_jvm(c->r->world.procs[f->obj])) {
		java = 1;
		ember_buf_reset(&c->java);
		if (rec_java_agent_name(&c->java, sym, strlen(sym)))
			sym = c->java.buf;
	}
	if (java)
		flags |= REC_FOLD_JAVA;
	if (!sym) {
		sym = "[unknown]";
		flags &= ~REC_FOLD_INLINE;
	}
	int n = rec_fold_frame(&c->out, sym, strlen(sym), dso->buf, dso->len,
			       flags);
	if (n && (flags & REC_FOLD_INLINE) && f->kind == REC_FRAME_DSO)
		n += inlined_frames(c, f, c->r->world.dsos[f->obj], n);
	return n;
}

void rec_clean_name(char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
}

/* Frame i becomes the folded frames (*ids)[off[i] .. off[i + 1])
 * (malloc'd; off has frames.n + 1 slots). */
static void name_frames(struct rec_symctx *c, struct ember_intern *names,
			uint32_t **ids, size_t *off, struct rec_nameloc **locs,
			size_t *nlocs)
{
	size_t alocs = 0;

	struct rec_events *r = c->r;
	size_t n = 0, alloc = 0;
	uint32_t *v = NULL;

	for (size_t i = 0; i < r->frames.n; i++) {
		const struct rec_frame *f = &r->frames.v[i];
		off[i] = n;
		if (f->kind == REC_FRAME_ROOT) {
			size_t len;
			const char *s =
			    ember_intern_str(&r->roots, f->obj, &len);
			ember_buf_reset(&c->out);
			ember_buf_add(&c->out, s, len);
			rec_clean_name(c->out.buf, c->out.len);
			EMBER_GROW(v, n + 1, alloc);
			v[n++] = ember_intern(names, c->out.buf, c->out.len);
			continue;
		}
		ember_buf_reset(&c->out);
		int k = name_frame(c, f);
		rec_clean_name(c->out.buf, c->out.len);
		/* one name per folded frame: inlined parts are frames too */
		const char *p = c->out.buf, *end = p + c->out.len;
		for (int j = 0; j < k; j++) {
			const char *semi = memchr(p, ';', (size_t)(end - p));
			const char *e = semi ? semi : end;
			EMBER_GROW(v, n + 1, alloc);
			v[n++] = ember_intern(names, p, (size_t)(e - p));
			p = e + 1;
			if (!locs)
				continue;
			uint32_t id = v[n - 1];
			if (id >= *nlocs) {
				EMBER_GROW(*locs, (size_t)id + 1, alocs);
				memset(*locs + *nlocs, 0,
				       ((size_t)id + 1 - *nlocs) *
					   sizeof(**locs));
				*nlocs = (size_t)id + 1;
			}
			if (f->kind == REC_FRAME_DSO && !(*locs)[id].dso)
				(*locs)[id] =
				    (struct rec_nameloc){f->obj + 1, f->addr};
		}
	}
	off[r->frames.n] = n;
	*ids = v;
}

void rec_symctx_init(struct rec_symctx *c, struct rec_events *r, int flags,
		     const char *perfmap_dir)
{
	memset(c, 0, sizeof(*c));
	c->r = r;
	c->flags = flags;
	c->perfmap_dir = perfmap_dir;
	ember_buf_init(&c->raw, 256);
	ember_buf_init(&c->out, 256);
	ember_buf_init(&c->inl, 256);
	ember_buf_init(&c->java, 256);
}

void rec_symctx_release(struct rec_symctx *c)
{
	if (c->pre)
		rec_symtab_release(c->pre);
	if (c->kernel_state)
		rec_symtab_release(&c->kernel);
	rec_debuginfod_free(c->debuginfod);
	ember_buf_release(&c->raw);
	ember_buf_release(&c->out);
	ember_buf_release(&c->java);
	ember_buf_release(&c->inl);
	ember_inliner_free(c->inliner);
	free(c->inline_mod);
}

/* /proc/kallsyms takes tens of milliseconds of the kernel's time to
 * read: on another core while the modules' symbols and DWARF are read. */
struct kpre {
	pthread_t thread;
	struct rec_symtab st;
	const char *cache;
	int other, err, cache_err, started;
};

static void *kallsyms_thread(void *arg)
{
	struct kpre *k = arg;

	k->err = rec_kernel_syms_load(&k->st, k->cache, k->other, NULL,
				      &k->cache_err);
	rec_symtab_finish(&k->st);
	return NULL;
}

/* Everything the frames need, read up front: kallsyms on another thread
 * while each module's symbols (and, for inlined calls, its DWARF) are
 * read here. */
static void preload(struct rec_symctx *c, struct kpre *kp)
{
	struct rec_events *r = c->r;
	int kernel = 0;
	uint8_t *want = ember_xcalloc(r->world.ndsos + 1, 1);

	for (size_t i = 0; i < r->frames.n; i++) {
		const struct rec_frame *f = &r->frames.v[i];
		if (f->kind == REC_FRAME_KERNEL)
			kernel = 1;
		else if (f->kind == REC_FRAME_DSO && f->obj < r->world.ndsos)
			want[f->obj] = 1;
	}
	if (kernel && (!c->no_kallsyms || c->kallsyms_cache) && !c->pre) {
		rec_symtab_init(&kp->st, REC_SYMTAB_KALLSYMS);
		kp->cache = c->kallsyms_cache;
		kp->other = c->no_kallsyms != NULL;
		kp->started =
		    !pthread_create(&kp->thread, NULL, kallsyms_thread, kp);
		if (!kp->started)
			rec_symtab_release(&kp->st);
	}
	for (size_t i = 0; i < r->world.ndsos; i++) {
		if (!want[i])
			continue;
		struct rec_dso *d = r->world.dsos[i];
		if (c->flags & REC_FOLD_INLINE)
			inline_module(c, d);
		else if (!d->loaded)
			load_dso(c, d);
	}
	free(want);
	if (kp->started) {
		pthread_join(kp->thread, NULL);
		c->pre = &kp->st;
		c->pre_err = kp->err;
		c->pre_cache_err = kp->cache_err;
	}
}

/* Where a thread's stack begins: a frame-pointer chain that ends in one
 * of these is whole. */
static int is_root_name(const char *s, size_t n)
{
	static const char *const names[] = {
	    "_start",
	    "__libc_start_call_main",
	    "__libc_start_main",
	    "start_thread",
	    "clone",
	    "clone3",
	    "__clone",
	    "__clone3",
	    "thread_start",
	    "runtime.goexit",
	    "runtime.mstart",
	    "runtime.rt0_go",
	    "_dl_start_user",
	    "__GI___clone3",
	};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		size_t k = strlen(names[i]);
		/* versioned (@@GLIBC_2.34) or suffixed (.abi0) too */
		if (n >= k && !memcmp(s, names[i], k) &&
		    (n == k || s[k] == '@' || s[k] == '.'))
			return 1;
	}
	return 0;
}

/* Frame pointers: whether the user frames of stack f (root first) are a
 * chain that broke off in code without them. */
static int fp_broken(const struct rec_events *r, const uint32_t *f, size_t n,
		     const struct ember_intern *names, const uint32_t *ids,
		     const size_t *off, int *user)
{
	size_t nu = 0;

	while (1 + nu < n) {
		int k = r->frames.v[f[1 + nu]].kind;
		if (k != REC_FRAME_DSO && k != REC_FRAME_JIT &&
		    k != REC_FRAME_UNKNOWN && k != REC_FRAME_TRUNCATED)
			break;
		nu++;
	}
	*user = nu > 0;
	if (!nu)
		return 0;
	size_t o = 1; /* the outermost frame, below a [truncated] */
	if (r->frames.v[f[o]].kind == REC_FRAME_TRUNCATED && nu > 1)
		o++;
	const struct rec_frame *out = &r->frames.v[f[o]];
	if (out->kind == REC_FRAME_UNKNOWN)
		return 1;
	if (nu > 3 || out->kind == REC_FRAME_TRUNCATED ||
	    off[f[o]] == off[f[o] + 1])
		return 0;
	size_t len;
	const char *s = ember_intern_str(names, ids[off[f[o]]], &len);
	return !is_root_name(s, len);
}

int rec_symbolize(struct rec_events *r, int flags, const char *perfmap_dir,
		  struct ember_intern *names, struct ember_stacks *stacks,
		  struct rec_nameloc **locs, size_t *nlocs, uint64_t *inlined)
{
	struct rec_symctx c;
	size_t *off = ember_xcalloc(r->frames.n + 1, sizeof(*off));
	uint32_t *ids = NULL, *tmp = NULL;
	size_t atmp = 0;

	rec_symctx_init(&c, r, flags, perfmap_dir);
	/* what the runtimes wrote since, or at exit (CPython buffers) */
	for (size_t i = 0; i < r->world.nprocs; i++)
		if (r->world.procs[i]->jd &&
		    ember_jitdump_update(r->world.procs[i]->jd) < 0)
			ember_log(EMBER_LOG_INFO,
				  "cannot read the jitdump of "
				  "process %d",
				  r->world.procs[i]->pid);
	if (locs) {
		*locs = NULL;
		*nlocs = 0;
	}
	struct kpre kp = {0};
	preload(&c, &kp);
	name_frames(&c, names, &ids, off, locs, nlocs);
	if (r->prof)
		rec_prof_build_ids(r, &c, names, ids, off);
	for (size_t i = 0; i < r->stacks.n; i++) {
		size_t n, m = 0;
		const uint32_t *f = ember_stacks_frames(&r->stacks, i, &n);
		if (r->stacks.ents[i].count <= 0)
			continue; /* waits all shorter than --min-block */
		int user = 0;
		if (!r->dwarf && !r->replay && r->stats &&
		    fp_broken(r, f, n, names, ids, off, &user))
			r->stats->fp_broken_weight += r->stacks.ents[i].count;
		if (user && !r->dwarf && r->stats)
			r->stats->fp_user_weight += r->stacks.ents[i].count;
		for (size_t j = 0; j < n; j++) {
			size_t a = off[f[j]], b = off[f[j] + 1];
			EMBER_GROW(tmp, m + (b - a), atmp);
			for (size_t k = a; k < b; k++)
				tmp[m++] = ids[k];
		}
		ember_stacks_add(stacks, tmp, m, r->stacks.ents[i].count, 0);
	}
	if (inlined)
		*inlined = c.inlined;
	rec_symctx_release(&c);
	free(off);
	free(tmp);
	free(ids);
	return stacks->n ? 0 : EMBER_EEMPTY;
}
