/*
 * The processes, threads and mapped files a recording has seen.
 *
 * A process instance (struct rec_proc) is one pid between fork or exec and
 * exit or the next exec: a pid reused by another program, or an exec, makes
 * a new instance, so addresses are never resolved against another image's
 * mappings.  Each instance holds its executable mappings sorted by start,
 * without overlaps (a new mapping replaces what it covers), those of the
 * parent on fork (and of the image before on exec, until replaced): an
 * array of mappings is shared by the instances that have the same, with a
 * count of them before it, and copied by the first to change it (most
 * forked children exec at once).  Threads point at their process instance.
 * Files are shared by every process mapping them, keyed by device, inode and
 * path. Lookups by pid, tid and file use open-addressing hash tables.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbols/jitdump.h"
#include "symbols/procfs.h"
#include "perf/procmap.h"

/* a container's /tmp kept per process, at most: each is a descriptor */
#define MAX_HELD_ROOTS 512

/* What comes before a process's array of mappings, in the place of one
 * (so the array is allocated, overflow-checked, as one more of them). */
struct maps_head {
	size_t refs; /* the instances sharing it */
};
_Static_assert(sizeof(struct maps_head) <= sizeof(struct rec_map),
	       "a head takes a mapping's place");

static struct maps_head *maps_head(struct rec_map *m)
{
	return (struct maps_head *)(void *)(m - 1);
}

static void maps_drop(struct rec_map *m)
{
	if (m && --maps_head(m)->refs == 0)
		free(m - 1);
}

/* p's mappings its own to change, with room for n. */
static void maps_own(struct rec_proc *p, size_t n)
{
	struct rec_map *m = p->maps, *c;
	int mine = !m || maps_head(m)->refs == 1;

	if (mine && n <= p->amaps)
		return;
	size_t a = p->amaps;
	if (n > a)
		a = n / 2 * 3 + 16;
	if (mine) {
		c = ember_xreallocarray(m ? m - 1 : NULL, a + 1, sizeof(*m));
	} else {
		c = ember_xreallocarray(NULL, a + 1, sizeof(*m));
		memcpy(c + 1, m, p->nmaps * sizeof(*m));
		maps_drop(m);
	}
	((struct maps_head *)(void *)c)->refs = 1;
	p->maps = c + 1;
	p->amaps = a;
}

void rec_world_init(struct rec_world *w)
{
	memset(w, 0, sizeof(*w));
	w->pid_mask = 255;
	w->pid_slots = ember_xcalloc(w->pid_mask + 1, sizeof(*w->pid_slots));
	w->tid_mask = 255;
	w->threads = ember_xcalloc(w->tid_mask + 1, sizeof(*w->threads));
	w->dso_mask = 255;
	w->dso_slots = ember_xcalloc(w->dso_mask + 1, sizeof(*w->dso_slots));
	ember_intern_init(&w->comms);
}

static void dso_free(struct rec_dso *d)
{
	rec_symtab_release(&d->syms);
	if (d->loaded) {
		rec_elf_close(&d->elf);
		if (d->has_debug)
			rec_elf_close(&d->debug);
	}
	free(d->path);
	free(d);
}

void rec_world_release(struct rec_world *w)
{
	for (size_t i = 0; i < w->nprocs; i++) {
		struct rec_proc *p = w->procs[i];
		maps_drop(p->maps);
		if (p->perfmap_state)
			rec_symtab_release(&p->perfmap);
		if (p->code_map) {
			rec_symtab_release(p->code_map);
			free(p->code_map);
		}
		if (p->tmp_fd >= 0)
			close(p->tmp_fd);
		ember_jitdump_free(p->jd);
		free(p);
	}
	for (size_t i = 0; i <= w->tid_mask; i++)
		free(w->threads[i]);
	for (size_t i = 0; i < w->ndsos; i++)
		dso_free(w->dsos[i]);
	free(w->procs);
	free(w->pid_slots);
	free(w->threads);
	free(w->dsos);
	free(w->dso_slots);
	ember_intern_release(&w->comms);
	memset(w, 0, sizeof(*w));
}

static size_t hash_int(uint64_t v, size_t mask)
{
	v *= 0x9e3779b97f4a7c15ull;
	return (size_t)(v >> 32) & mask;
}

/* ---- processes -------------------------------------------------------- */

static struct rec_proc **pid_slot(struct rec_world *w, int pid)
{
	size_t i = hash_int((uint64_t)(uint32_t)pid, w->pid_mask);

	while (w->pid_slots[i] && w->pid_slots[i]->pid != pid)
		i = (i + 1) & w->pid_mask;
	return &w->pid_slots[i];
}

static void pid_rehash(struct rec_world *w)
{
	struct rec_proc **old = w->pid_slots;
	size_t omask = w->pid_mask;

	w->pid_mask = omask * 2 + 1;
	w->pid_slots = ember_xcalloc(w->pid_mask + 1, sizeof(*w->pid_slots));
	for (size_t i = 0; i <= omask; i++)
		if (old[i])
			*pid_slot(w, old[i]->pid) = old[i];
	free(old);
}

struct rec_proc *rec_world_find_proc(struct rec_world *w, int pid)
{
	return *pid_slot(w, pid);
}

struct rec_proc *rec_world_new_proc(struct rec_world *w, int pid,
				    struct rec_proc *parent, int copy_maps)
{
	struct rec_proc *p = ember_xcalloc(1, sizeof(*p));

	p->pid = pid;
	p->id = (uint32_t)w->nprocs;
	p->parent = parent;
	p->comm = UINT32_MAX;
	p->owner.pid = pid;
	p->tmp_fd = -1;
	if (parent) {
		p->comm = parent->comm;
		p->owner.uid = parent->owner.uid;
		p->owner.uid_known = parent->owner.uid_known;
		if (copy_maps && parent->nmaps) {
			p->maps = parent->maps;
			maps_head(p->maps)->refs++;
			p->nmaps = parent->nmaps;
			p->amaps = parent->amaps;
		}
	}
	EMBER_GROW(w->procs, w->nprocs + 1, w->aprocs);
	w->procs[w->nprocs++] = p;
	struct rec_proc **slot = pid_slot(w, pid);
	if (!*slot && ++w->pid_used * 2 > w->pid_mask) {
		pid_rehash(w);
		slot = pid_slot(w, pid);
	}
	*slot = p;
	return p;
}

struct rec_proc *rec_world_proc(struct rec_world *w, int pid)
{
	struct rec_proc *p = rec_world_find_proc(w, pid);

	return p ? p : rec_world_new_proc(w, pid, NULL, 0);
}

/* ---- threads ---------------------------------------------------------- */

static struct rec_thread **tid_slot(struct rec_world *w, int tid)
{
	size_t i = hash_int((uint64_t)(uint32_t)tid, w->tid_mask);

	while (w->threads[i] && w->threads[i]->tid != tid)
		i = (i + 1) & w->tid_mask;
	return &w->threads[i];
}

struct rec_thread *rec_world_find_thread(struct rec_world *w, int tid)
{
	return *tid_slot(w, tid);
}

struct rec_thread *rec_world_thread(struct rec_world *w, int pid, int tid)
{
	struct rec_thread **slot = tid_slot(w, tid);
	struct rec_thread *t = *slot;

	if (!t) {
		if (++w->tid_used * 2 > w->tid_mask) {
			struct rec_thread **old = w->threads;
			size_t omask = w->tid_mask;
			w->tid_mask = omask * 2 + 1;
			w->threads =
			    ember_xcalloc(w->tid_mask + 1, sizeof(*w->threads));
			for (size_t i = 0; i <= omask; i++)
				if (old[i])
					*tid_slot(w, old[i]->tid) = old[i];
			free(old);
			slot = tid_slot(w, tid);
		}
		t = *slot = ember_xcalloc(1, sizeof(*t));
		t->tid = tid;
		t->comm = UINT32_MAX;
	}
	if (!t->proc || t->proc->pid != pid ||
	    t->proc != rec_world_find_proc(w, pid))
		t->proc = rec_world_proc(w, pid);
	if (t->comm == UINT32_MAX)
		t->comm = t->proc->comm;
	return t;
}

void rec_world_set_comm(struct rec_world *w, struct rec_thread *t,
			const char *comm, size_t len)
{
	len = strnlen(comm, len);
	t->comm = ember_intern(&w->comms, comm, len);
	if (t->tid == t->proc->pid || t->proc->comm == UINT32_MAX)
		t->proc->comm = t->comm;
}

/* ---- files ------------------------------------------------------------ */

static int name_is_anon(const char *n, size_t len)
{
	static const char *const prefixes[] = {
	    "//anon", "/dev/zero", "/anon_hugepage", "[heap]",
	    "[stack", "/SYSV",	   "[anon:",
	};

	if (!len)
		return 1;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t pl = strlen(prefixes[i]);
		if (len >= pl && !memcmp(n, prefixes[i], pl))
			return 1;
	}
	return 0;
}

static struct rec_dso *find_dso(struct rec_world *w, int kind, const char *path,
				size_t len, uint64_t dev, uint64_t ino)
{
	uint64_t h = ember_hash(path, len) ^ (dev * 31 + ino) ^ (uint64_t)kind;
	size_t i = hash_int(h, w->dso_mask);
	struct rec_dso *d;

	while ((d = w->dso_slots[i])) {
		if (d->kind == kind && d->dev == dev && d->ino == ino &&
		    !strncmp(d->path, path, len) && !d->path[len])
			return d;
		i = (i + 1) & w->dso_mask;
	}
	d = ember_xcalloc(1, sizeof(*d));
	d->path = ember_xmemdup(path, len);
	const char *slash = strrchr(d->path, '/');
	d->base = slash ? slash + 1 : d->path;
	d->dev = dev;
	d->ino = ino;
	d->kind = kind;
	d->id = (uint32_t)w->ndsos;
	EMBER_GROW(w->dsos, w->ndsos + 1, w->adsos);
	w->dsos[w->ndsos++] = d;
	w->dso_slots[i] = d;
	if (w->ndsos * 2 > w->dso_mask) {
		free(w->dso_slots);
		w->dso_mask = w->dso_mask * 2 + 1;
		w->dso_slots =
		    ember_xcalloc(w->dso_mask + 1, sizeof(*w->dso_slots));
		for (size_t k = 0; k < w->ndsos; k++) {
			struct rec_dso *e = w->dsos[k];
			uint64_t eh = ember_hash(e->path, strlen(e->path)) ^
				      (e->dev * 31 + e->ino) ^
				      (uint64_t)e->kind;
			size_t j = hash_int(eh, w->dso_mask);
			while (w->dso_slots[j])
				j = (j + 1) & w->dso_mask;
			w->dso_slots[j] = e;
		}
	}
	return d;
}

/* ---- mappings --------------------------------------------------------- */

/* Index of the first mapping ending after addr. */
static size_t first_after(const struct rec_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].m.end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct rec_map *rec_proc_find_map(const struct rec_proc *p, uint64_t addr)
{
	size_t i = first_after(p, addr);

	if (i < p->nmaps && p->maps[i].m.start <= addr)
		return &p->maps[i];
	return NULL;
}

const struct ember_unwind_mapping *rec_proc_unwind_find(void *ctx,
							uint64_t addr)
{
	const struct rec_map *m = rec_proc_find_map(ctx, addr);

	return m ? &m->m : NULL;
}

/* Returns 1 when the new mapping covers part of an older one. */
static int insert_map(struct rec_proc *p, const struct rec_map *nm)
{
	uint64_t start = nm->m.start, end = nm->m.end;
	size_t i = first_after(p, start);
	int replaced = i < p->nmaps && p->maps[i].m.start < end;

	/* a split and the new one: two more at most */
	maps_own(p, p->nmaps + 2);
	/* cut what the new mapping covers: trim, split or drop */
	while (i < p->nmaps && p->maps[i].m.start < end) {
		struct rec_map *o = &p->maps[i];
		if (o->m.start < start && o->m.end > end) {
			memmove(o + 1, o, (p->nmaps - i) * sizeof(*o));
			p->nmaps++;
			o[0].m.end = start;
			o[1].m.pgoff += end - o[1].m.start;
			o[1].m.start = end;
			i++;
			break;
		}
		if (o->m.start < start) {
			o->m.end = start;
			i++;
			continue;
		}
		if (o->m.end > end) {
			o->m.pgoff += end - o->m.start;
			o->m.start = end;
			break;
		}
		memmove(o, o + 1, (p->nmaps - i - 1) * sizeof(*o));
		p->nmaps--;
	}
	memmove(&p->maps[i + 1], &p->maps[i],
		(p->nmaps - i) * sizeof(*p->maps));
	p->maps[i] = *nm;
	p->nmaps++;
	return replaced;
}

int rec_world_mmap(struct rec_world *w, struct rec_proc *p, uint64_t start,
		   uint64_t len, uint64_t pgoff, uint64_t dev, uint64_t ino,
		   const char *name, size_t namelen, int owner_pid)
{
	struct rec_map m;
	int kind;
	static const char deleted[] = " (deleted)";

	p->map_gen++;
	size_t dl = sizeof(deleted) - 1;
	int is_deleted = 0;

	if (!len || start + len < start)
		return 0;
	namelen = strnlen(name, namelen);
	if (namelen > dl && !memcmp(name + namelen - dl, deleted, dl)) {
		namelen -= dl;
		is_deleted = 1;
	}
	if (name_is_anon(name, namelen)) {
		kind = REC_DSO_ANON;
		name = "//anon";
		namelen = 6;
		dev = ino = 0;
	} else if (namelen == 6 && !memcmp(name, "[vdso]", 6)) {
		kind = REC_DSO_VDSO;
		dev = ino = 0;
	} else if (name[0] == '[') {
		kind = REC_DSO_SPECIAL;
		dev = ino = 0;
	} else {
		kind = REC_DSO_FILE;
	}
	memset(&m, 0, sizeof(m));
	m.dso = find_dso(w, kind, name, namelen, dev, ino);
	m.dso->deleted |= is_deleted;
	m.dso->proc = p;
	m.owner_pid = owner_pid;
	m.m.start = start;
	m.m.end = start + len;
	m.m.pgoff = kind == REC_DSO_ANON ? 0 : pgoff;
	m.m.dev = dev;
	m.m.ino = ino;
	m.m.path = m.dso->path;
	m.m.exec = 1;
	return insert_map(p, &m);
}

/* "start-end perms offset maj:min inode path" */
static void parse_maps_line(struct rec_world *w, struct rec_proc *p,
			    const char *s, const char *e)
{
	char line[4096 + 256];
	size_t n = (size_t)(e - s);
	unsigned long long start, end, off, ino;
	unsigned maj, min;
	char perms[8];
	int pos = 0;

	if (n >= sizeof(line))
		return;
	memcpy(line, s, n);
	line[n] = '\0';
	if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
		   perms, &off, &maj, &min, &ino, &pos) < 7 ||
	    strlen(perms) < 3 || perms[2] != 'x' || end <= start)
		return;
	const char *name = pos > 0 && (size_t)pos <= n ? line + pos : "";
	rec_world_mmap(w, p, start, end - start, off, makedev(maj, min), ino,
		       name, strlen(name), p->pid);
}

void rec_world_parse_maps(struct rec_world *w, struct rec_proc *p,
			  const char *text, size_t n)
{
	const char *end = text + n;

	while (text < end) {
		const char *eol = memchr(text, '\n', (size_t)(end - text));
		if (!eol)
			eol = end;
		parse_maps_line(w, p, text, eol);
		text = eol + 1;
	}
}

static int read_small_file(const char *path, struct ember_buf *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? EMBER_ENOENT
							 : EMBER_EPERM;
	ember_buf_reset(b);
	for (;;) {
		ember_buf_grow(b, 16384);
		ssize_t r = read(fd, b->buf + b->len, b->alloc - b->len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		ember_buf_setlen(b, b->len + (size_t)r);
		if (b->len > (64u << 20))
			break;
	}
	close(fd);
	return 0;
}

int rec_world_read_maps(struct rec_world *w, struct rec_proc *p,
			const char *dir)
{
	struct ember_buf b = EMBER_BUF_INIT;
	char path[64];

	snprintf(path, sizeof(path), "%s/%d/maps", dir ? dir : "/proc", p->pid);
	int err = read_small_file(path, &b);
	if (!err)
		rec_world_parse_maps(w, p, b.buf, b.len);
	ember_buf_release(&b);
	return err;
}

void rec_world_read_owner(struct rec_world *w, struct rec_proc *p)
{
	struct ember_buf b = EMBER_BUF_INIT;
	char path[64];

	(void)w;
	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	if (!read_small_file(path, &b)) {
		const char *u = strstr(b.buf, "\nUid:");
		unsigned ruid, euid;
		if (u && sscanf(u + 5, "%u %u", &ruid, &euid) == 2) {
			p->owner.uid = euid;
			p->owner.uid_known = 1;
		}
	}
	if (p->owner.start <= 0) {
		snprintf(path, sizeof(path), "/proc/%d/stat", p->pid);
		unsigned long long ticks = 0, btime = 0;
		if (!read_small_file(path, &b)) {
			/* the 22nd field, counted after the ")" of comm */
			const char *q = strrchr(b.buf, ')');
			for (int f = 2; q && f < 22; f++) {
				q = strchr(q + 1, ' ');
			}
			if (q)
				ticks = strtoull(q + 1, NULL, 10);
		}
		if (ticks && !read_small_file("/proc/stat", &b)) {
			const char *q = strstr(b.buf, "\nbtime ");
			if (q)
				btime = strtoull(q + 7, NULL, 10);
		}
		long hz = sysconf(_SC_CLK_TCK);
		if (ticks && btime && hz > 0)
			p->owner.start = (double)btime + (double)ticks / hz;
	}
	ember_buf_release(&b);
}

int rec_proc_is_jvm(const struct rec_proc *p)
{
	for (size_t i = 0; i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		if (d && d->base && !strcmp(d->base, "libjvm.so"))
			return 1;
	}
	return 0;
}

/* ---- a process's perf map -------------------------------------------- */

int rec_proc_open_live(const struct rec_proc *p)
{
	if (p->exited)
		return -1;
	if (p->owner.start > 0)
		return rec_procfs_open(p->pid, p->owner.start);
	if (p->owner.before <= 0)
		return -1;
	int fd = rec_procfs_open(p->pid, 0);
	if (fd >= 0 && !(rec_procfs_start(fd) <= p->owner.before)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

void rec_world_hold_root(struct rec_world *w, struct rec_proc *p)
{
	if (p->root_seen)
		return;
	p->root_seen = 1;
	int procfd = rec_proc_open_live(p);
	if (procfd < 0)
		return;
	int nspid = rec_procfs_nspid(procfd, p->pid);
	if (rec_procfs_other_root(procfd) == 1 &&
	    w->held_roots < MAX_HELD_ROOTS) {
		/* the directory itself: its mount (a container's tmpfs) lives
		 * as long as the descriptor, the namespace's tree does not */
		p->tmp_fd = rec_procfs_open_in_root(procfd, "/tmp",
						    O_PATH | O_DIRECTORY);
		if (p->tmp_fd >= 0)
			w->held_roots++;
	}
	p->nspid = nspid;
	close(procfd);
}

/* The perf map of a process in a container: in its own /tmp, named by
 * its pid there.  REC_PERFMAP_MISSING when the process is gone and no /tmp
 * was kept, or sees ember's /tmp under the same pid. */
static int load_in_root(struct rec_proc *p, struct rec_symtab *st,
			struct ember_buf *why)
{
	char shown[64];
	int v = REC_PERFMAP_MISSING;

	snprintf(shown, sizeof(shown), "/proc/%d/root/tmp", p->pid);
	if (p->tmp_fd >= 0)
		return rec_perfmap_load_at(st, p->tmp_fd, shown,
					   p->nspid > 0 ? p->nspid : p->pid,
					   &p->owner, why);
	int procfd = rec_proc_open_live(p);
	if (procfd < 0) {
		/* gone, in ember's root but another PID namespace */
		if (p->nspid > 0 && p->nspid != p->pid) {
			int dirfd =
			    open("/tmp", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (dirfd >= 0) {
				v = rec_perfmap_load_at(st, dirfd, "/tmp",
							p->nspid, &p->owner,
							why);
				close(dirfd);
			}
		}
		return v;
	}
	int nspid = rec_procfs_nspid(procfd, p->pid);
	if (nspid != p->pid || rec_procfs_other_root(procfd) == 1) {
		int dirfd = rec_procfs_open_in_root(procfd, "/tmp",
						    O_PATH | O_DIRECTORY);
		if (dirfd >= 0) {
			v = rec_perfmap_load_at(st, dirfd, shown, nspid,
						&p->owner, why);
			close(dirfd);
		}
	}
	close(procfd);
	return v;
}

int rec_proc_load_perfmap(struct rec_proc *p, const char *dir,
			  struct rec_symtab *st, struct ember_buf *why)
{
	int v = REC_PERFMAP_MISSING;

	if (!dir)
		v = load_in_root(p, st, why);
	if (v == REC_PERFMAP_MISSING)
		v = rec_perfmap_load(st, dir, &p->owner, why);
	return v;
}
