/*
 * The consumer of perf records, in time order: side-band records (MMAP2,
 * COMM, FORK, EXIT) keep the world of processes current, and each SAMPLE
 * becomes a stack of frame ids (root, user frames outermost first, then
 * kernel frames) added to the session's stack table with its period.
 * Frames are normalized at once, while the mappings are those of the
 * sample's time: a user address becomes (file, file offset) or (process,
 * address) for JIT code; names come after recording (symbolize.c).
 *
 * perf/ is every source of perf records alike: the live rings (record/),
 * perf.data and its pipe mode (perfdata.c).  Invariants:
 *  - records reach rec_events_handle in time order (order.c's rounds), so
 *    a sample never precedes the MMAP2 or COMM it depends on;
 *  - a frame id (frames.c) stands for one (kind, object, address, JIT
 *    load time) for the consumer's life: objects are mapped files (by
 *    device and inode, or build-id), process instances (JIT code) or the
 *    kernel, so a pid or path reused later is another object;
 *  - every new executable mapping bumps its process's map_gen, and the
 *    frame and callchain caches of the process are keyed on it: a cached
 *    frame or stack is never one of an older layout (a mapping in one
 *    process leaves the others' and the kernel's entries alone);
 *  - nothing here reads /proc for a recording read back (replay): what a
 *    perf.data file holds is all there is.
 */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "perf/events.h"
#include "hugemem.h"
#include "perf/interp.h"
#include "symbols/procfs.h"
#include "symbols/jitdump.h"
#include "perf/offcpu.h"
#include "perf/samples.h"

#define MAX_FRAMES 1024

static void chains_free(struct rec_chains *c);

void rec_events_init(struct rec_events *r, struct ember_record_stats *stats)
{
	memset(r, 0, sizeof(*r));
	r->stats = stats;
	rec_world_init(&r->world);
	rec_frames_init(&r->frames);
	ember_intern_init(&r->roots);
	ember_stacks_init(&r->stacks);
	/* user frames, then kernel ones (split_callchain) */
	r->ubuf = ember_xcalloc(2 * MAX_FRAMES, sizeof(*r->ubuf));
	/* root, [truncated], user and kernel frames, an off-CPU state */
	r->ibuf = ember_xcalloc(2 * MAX_FRAMES + 3 + EMBER_INTERP_MAX_FRAMES,
				sizeof(*r->ibuf));
}

void rec_events_release(struct rec_events *r)
{
	rec_world_release(&r->world);
	rec_frames_release(&r->frames);
	ember_intern_release(&r->roots);
	rec_prof_free(r->prof);
	ember_stacks_release(&r->stacks);
	free(r->ubuf);
	free(r->ibuf);
	rec_interp_merge_free(r->interp);
	free(r->fcache);
	chains_free(r->chains);
	free(r->rcache);
	ember_unwinder_free(r->unwinder);
	rec_offcpu_free(r->off);
	memset(r, 0, sizeof(*r));
}

void rec_events_read_done(struct rec_events *r)
{
	chains_free(r->chains);
	r->chains = NULL;
	rec_prof_trim(r);
	/* the stack table's room for more given back */
	struct ember_stacks *st = &r->stacks;
	if (st->aids > st->nids + 1) {
		st->ids = ember_xreallocarray(st->ids, st->nids + 1,
					      sizeof(*st->ids));
		st->aids = st->nids + 1;
	}
	if (st->alloc > st->n && st->n) {
		st->ents =
		    ember_xreallocarray(st->ents, st->n, sizeof(*st->ents));
		st->alloc = st->n;
	}
}

/* ---- decoding --------------------------------------------------------- */

struct rec_sample {
	uint64_t id, ip, time, period;
	uint32_t pid, tid, cpu;
	uint64_t nr;
	const uint64_t *ips;
	const void *raw; /* tracepoint data (RAW) */
	uint32_t raw_size;
	/* REGS_USER and STACK_USER, for a DWARF unwinder */
	uint64_t abi;
	const uint64_t *regs;
	uint64_t stack_size, dyn_size;
	const uint8_t *stack;
	uint64_t room; /* the largest copy this sample could hold */
};

struct cursor {
	const char *p, *end;
	int bad;
};

static uint64_t take64(struct cursor *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = 1;
		c->p = c->end;
		return 0;
	}
	memcpy(&v, c->p, 8);
	c->p += 8;
	return v;
}

static const void *take(struct cursor *c, uint64_t n)
{
	const void *p = c->p;

	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		c->p = c->end;
		return NULL;
	}
	c->p += n;
	return p;
}

static int parse_sample(const struct rec_events *r, const void *rec,
			size_t size, struct rec_sample *s)
{
	uint64_t t = r->sample_type;
	struct cursor c = {(const char *)rec + 8, (const char *)rec + size, 0};
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (t & PERF_SAMPLE_IDENTIFIER)
		s->id = take64(&c);
	if (t & PERF_SAMPLE_IP)
		s->ip = take64(&c);
	if (t & PERF_SAMPLE_TID) {
		v = take64(&c);
		s->pid = (uint32_t)v;
		s->tid = (uint32_t)(v >> 32);
	}
	if (t & PERF_SAMPLE_TIME)
		s->time = take64(&c);
	if (t & PERF_SAMPLE_ADDR)
		take64(&c);
	if (t & PERF_SAMPLE_ID)
		take64(&c);
	if (t & PERF_SAMPLE_STREAM_ID)
		take64(&c);
	if (t & PERF_SAMPLE_CPU)
		s->cpu = (uint32_t)take64(&c);
	s->period = 1;
	if (t & PERF_SAMPLE_PERIOD)
		s->period = take64(&c);
	if (t & PERF_SAMPLE_READ) {
		uint64_t f = r->read_format, one = 8;
		one += (f & PERF_FORMAT_ID) ? 8 : 0;
		one += (f & PERF_FORMAT_LOST) ? 8 : 0;
		if (f & PERF_FORMAT_GROUP) {
			uint64_t nr = take64(&c);
			if (nr > size / 8)
				return -1;
			take(&c, nr * one);
		} else {
			take(&c, one);
		}
		if (f & PERF_FORMAT_TOTAL_TIME_ENABLED)
			take64(&c);
		if (f & PERF_FORMAT_TOTAL_TIME_RUNNING)
			take64(&c);
	}
	if (t & PERF_SAMPLE_CALLCHAIN) {
		s->nr = take64(&c);
		if (s->nr > (size / 8))
			return -1;
		s->ips = take(&c, s->nr * 8);
	}
	if (t & PERF_SAMPLE_RAW) {
		uint32_t n = 0;
		const void *p = take(&c, 4);
		if (p)
			memcpy(&n, p, 4);
		s->raw = take(&c, n);
		s->raw_size = s->raw ? n : 0;
	}
	if (t & PERF_SAMPLE_BRANCH_STACK) {
		uint64_t bnr = take64(&c);
		if (bnr > size / 24)
			return -1;
		if (r->branch_hw_index)
			take64(&c);
		take(&c, bnr * 24);
	}
	if (t & PERF_SAMPLE_REGS_USER) {
		s->abi = take64(&c);
		if (s->abi) {
			uint64_t nregs =
			    (uint64_t)__builtin_popcountll(r->regs_mask);
			s->regs = take(&c, nregs * 8);
		}
	}
	if (t & PERF_SAMPLE_STACK_USER) {
		s->stack_size = take64(&c);
		if (s->stack_size) {
			s->stack = take(&c, s->stack_size);
			s->dyn_size = take64(&c);
			if (s->dyn_size > s->stack_size)
				s->dyn_size = s->stack_size;
			/* the record's other bytes and the copy's two sizes */
			uint64_t other = size - s->stack_size - 16;
			s->room = other + 24 < 0xffff
				      ? (0xffff - other - 24 + 7) & ~7ull
				      : 0;
		}
	}
	return c.bad ? -1 : 0;
}

size_t rec_events_cut(const struct rec_events *r, const void *rec, size_t size,
		      void *dst)
{
	const struct perf_event_header *h = rec;
	struct rec_sample s;
	char *out = dst;

	/* the kernel reserves the whole stack copy in every sample; only
	 * dyn_size bytes of it hold the stack, often a small part */
	if (h->type != PERF_RECORD_SAMPLE || parse_sample(r, rec, size, &s) ||
	    !s.stack ||
	    (const char *)s.stack + s.stack_size + 8 !=
		(const char *)rec + size) {
		memcpy(out, rec, size);
		return size;
	}
	uint64_t keep = (s.dyn_size + 7) & ~(uint64_t)7;
	size_t head = (size_t)((const char *)s.stack - (const char *)rec);
	size_t n = head + (size_t)keep + 8;
	memcpy(out, rec, head + (size_t)keep);
	memcpy(out + head - 8, &keep, 8);
	memcpy(out + head + keep, &s.dyn_size, 8);
	((struct perf_event_header *)out)->size = (uint16_t)n;
	return n;
}

/* Bytes of the sample_id trailer that follow its time field. */
static size_t trailer_after_time(uint64_t t)
{
	size_t n = 0;

	if (t & PERF_SAMPLE_ID)
		n += 8;
	if (t & PERF_SAMPLE_STREAM_ID)
		n += 8;
	if (t & PERF_SAMPLE_CPU)
		n += 8;
	if (t & PERF_SAMPLE_IDENTIFIER)
		n += 8;
	return n;
}

uint64_t rec_events_time(const struct rec_events *r, const void *rec,
			 size_t size)
{
	const struct perf_event_header *h = rec;
	uint64_t t = r->sample_type, v = 0;
	size_t off;

	if (!(t & PERF_SAMPLE_TIME))
		return 0;
	if (h->type == PERF_RECORD_SAMPLE) {
		off = 8;
		if (t & PERF_SAMPLE_IDENTIFIER)
			off += 8;
		if (t & PERF_SAMPLE_IP)
			off += 8;
		if (t & PERF_SAMPLE_TID)
			off += 8;
	} else {
		size_t back = trailer_after_time(t) + 8;
		if (size < 8 + back)
			return 0;
		off = size - back;
	}
	if (off + 8 > size)
		return 0;
	memcpy(&v, (const char *)rec + off, 8);
	return v;
}

/* The thread id of a side-band record's sample_id (0 when it has none). */
static int rec_tid(const struct rec_events *r, const void *rec, size_t size)
{
	uint64_t t = r->sample_type;
	size_t back = trailer_after_time(t) + 8 * !!(t & PERF_SAMPLE_TIME) + 8;
	uint32_t v[2];

	if (!(t & PERF_SAMPLE_TID) || size < 8 + back)
		return 0;
	memcpy(v, (const char *)rec + size - back, 8);
	return (int)v[1];
}

/* ---- processes -------------------------------------------------------- */

static double realtime_of(const struct rec_events *r, uint64_t ns)
{
	return (double)ns / 1e9 + r->world.clock_offset;
}

static void read_comm(struct rec_world *w, struct rec_thread *t)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", t->proc->pid,
		 t->tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	rec_world_set_comm(w, t, buf, (size_t)n);
}

/* ---- jitdumps ---------------------------------------------------------- */

int rec_is_jitdump_name(const char *path, size_t len)
{
	const char *b = memrchr(path, '/', len);
	size_t i, n;

	b = b ? b + 1 : path;
	n = (size_t)(path + len - b);
	if (n < 10 || memcmp(b, "jit-", 4) || memcmp(b + n - 5, ".dump", 5))
		return 0;
	for (i = 4; i < n - 5; i++)
		if (b[i] < '0' || b[i] > '9')
			return 0;
	return 1;
}

struct ember_jitdump *rec_proc_jitdump(const struct rec_proc *p)
{
	/* a forked child runs its parent's JIT code */
	for (int depth = 0; p && depth < 16; p = p->parent, depth++)
		if (p->jd)
			return p->jd;
	return NULL;
}

/* Opens the jitdump p mapped at [start, end): through /proc (the very
 * file mapped, in the process's mount namespace) while it runs, else by
 * its name if it is the process owner's file. */
static void open_jitdump(struct rec_events *r, struct rec_proc *p,
			 const char *path, uint64_t start, uint64_t end)
{
	char alt[4200];
	struct ember_jitdump *jd = NULL;
	struct stat st;

	if (p->jd || !path[0])
		return;
	if (r->replay) {
		/* the process is gone: the file by its name, if it is the
		 * reader's own or root's, as perf maps are */
		if (stat(path, &st) || !S_ISREG(st.st_mode) ||
		    (st.st_uid != geteuid() && st.st_uid != 0) ||
		    ember_jitdump_open(path, &jd))
			return;
		goto found;
	}
	snprintf(alt, sizeof(alt), "/proc/%d/map_files/%llx-%llx", p->pid,
		 (unsigned long long)start, (unsigned long long)end);
	if (ember_jitdump_open(alt, &jd)) {
		/* by its name in the process's root, as a perf map */
		int procfd = rec_procfs_open(p->pid, 0);
		int fd =
		    procfd < 0 || path[0] != '/'
			? -1
			: rec_procfs_open_in_root(
			      procfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
		if (procfd >= 0)
			close(procfd);
		if (fd >= 0 &&
		    (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		     (p->owner.uid_known && st.st_uid != p->owner.uid &&
		      st.st_uid != 0))) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0
			? ember_jitdump_open_fd(fd, &jd)
			: stat(path, &st) || !S_ISREG(st.st_mode) ||
			      (p->owner.uid_known &&
			       st.st_uid != p->owner.uid && st.st_uid != 0) ||
			      ember_jitdump_open(path, &jd))
			return;
	}
found:
	p->jd = jd;
	r->stats->jitdumps++;
	if (r->unwinder)
		ember_unwinder_set_jitdump(r->unwinder, p->pid, jd);
}

/* The jitdumps among the mappings of a process found running. */
static void find_jitdumps(struct rec_events *r, struct rec_proc *p)
{
	for (size_t i = 0; i < p->nmaps && !p->jd; i++) {
		const struct rec_map *m = &p->maps[i];
		if (m->dso->kind == REC_DSO_FILE &&
		    rec_is_jitdump_name(m->dso->path, strlen(m->dso->path)))
			open_jitdump(r, p, m->dso->path, m->m.start, m->m.end);
	}
}

void rec_events_synthesize_pid(struct rec_events *r, int pid)
{
	struct rec_world *w = &r->world;
	struct rec_proc *p = rec_world_find_proc(w, pid);
	int *tids;

	if (!p)
		p = rec_world_new_proc(w, pid, NULL, 0);
	rec_world_read_owner(w, p);
	rec_world_hold_root(w, p);
	if (rec_world_read_maps(w, p, NULL))
		return;
	find_jitdumps(r, p);
	size_t n = rec_list_tasks(pid, &tids);
	for (size_t i = 0; i < n; i++) {
		struct rec_thread *t = rec_world_thread(w, pid, tids[i]);
		read_comm(w, t);
	}
	free(tids);
}

int rec_events_synthesize_new(struct rec_events *r, int pid)
{
	struct rec_world *w = &r->world;
	struct rec_proc *p = rec_world_find_proc(w, pid);
	char path[64], buf[64];
	size_t len;

	if (p && p->comm != UINT32_MAX) {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		while (n > 0 && buf[n - 1] == '\n')
			n--;
		const char *s = ember_intern_str(&w->comms, p->comm, &len);
		if (n <= 0 || ((size_t)n == len && !memcmp(s, buf, len)))
			return 0;
		p = NULL;
	} else if (p) {
		return 0;
	}
	/* a new instance: the old one's mappings are another image's */
	rec_world_new_proc(w, pid, NULL, 0);
	rec_events_synthesize_pid(r, pid);
	return 1;
}

static void on_comm(struct rec_events *r, const struct perf_event_header *h,
		    const char *body, size_t n, uint64_t time)
{
	struct rec_world *w = &r->world;
	uint32_t pid, tid;

	if (n < 8)
		return;
	memcpy(&pid, body, 4);
	memcpy(&tid, body + 4, 4);
	if ((int)pid <= 0 && !r->system_wide)
		return;
	if (h->misc & PERF_RECORD_MISC_COMM_EXEC) {
		/* a new image: new mappings, perf map and identity */
		struct rec_proc *old = rec_world_find_proc(w, (int)pid);
		if (old)
			old->owner.end = realtime_of(r, time);
		/* read back, the old image's mappings stay until the new
		 * ones replace them, as perf keeps them */
		struct rec_proc *p =
		    r->replay && old ? rec_world_new_proc(w, (int)pid, old, 1)
				     : rec_world_new_proc(w, (int)pid, NULL, 0);
		p->owner.start = realtime_of(r, time);
		if (r->unwinder)
			ember_unwinder_forget(r->unwinder, (int)pid);
		if (old) {
			p->owner.uid = old->owner.uid;
			p->owner.uid_known = old->owner.uid_known;
		}
		if (!r->replay) {
			rec_world_read_owner(w, p);
			rec_world_hold_root(w, p);
		}
	}
	struct rec_thread *t = rec_world_thread(w, (int)pid, (int)tid);
	rec_world_set_comm(w, t, body + 8, n - 8);
}

static void on_fork(struct rec_events *r, const char *body, size_t n,
		    uint64_t time)
{
	struct rec_world *w = &r->world;
	uint32_t v[4]; /* pid, ppid, tid, ptid */

	if (n < 16)
		return;
	memcpy(v, body, 16);
	if (r->off)
		rec_offcpu_fork(r, (int)v[2]);
	struct rec_thread *parent = rec_world_find_thread(w, (int)v[3]);
	if (v[0] != v[1]) {
		struct rec_proc *pp = rec_world_find_proc(w, (int)v[1]);
		struct rec_proc *p =
		    rec_world_new_proc(w, (int)v[0], pp, pp != NULL);
		p->owner.start = realtime_of(r, time);
		if (!r->replay)
			rec_world_hold_root(w, p);
		if (r->unwinder) {
			/* a pid seen before is another process now */
			ember_unwinder_forget(r->unwinder, (int)v[0]);
			if (rec_proc_jitdump(p))
				ember_unwinder_set_jitdump(r->unwinder,
							   (int)v[0],
							   rec_proc_jitdump(p));
		}
	}
	struct rec_thread *t = rec_world_thread(w, (int)v[0], (int)v[2]);
	/* a new thread (or process) starts with its creator's name */
	t->comm = parent ? parent->comm : t->proc->comm;
	if (t->tid == t->proc->pid && t->comm != UINT32_MAX)
		t->proc->comm = t->comm;
}

static void on_exit_rec(struct rec_events *r, const char *body, size_t n,
			uint64_t time)
{
	uint32_t v[4];

	if (n < 16)
		return;
	memcpy(v, body, 16);
	if (r->off)
		rec_offcpu_exit(r, (int)v[2]);
	if (v[0] != v[2])
		return; /* a thread, not the process */
	struct rec_proc *p = rec_world_find_proc(&r->world, (int)v[0]);
	if (p && !p->exited) {
		p->exited = 1;
		p->owner.end = realtime_of(r, time);
		if (r->unwinder)
			ember_unwinder_forget(r->unwinder, (int)v[0]);
	}
}

static void on_mmap(struct rec_events *r, const struct perf_event_header *h,
		    const char *body, size_t n)
{
	uint32_t pid, maj = 0, min = 0, prot = PROT_EXEC;
	uint64_t addr, len, pgoff, ino = 0;
	const char *name;

	if (h->type == PERF_RECORD_MMAP) {
		if (n < 32)
			return;
		name = body + 32;
	} else {
		if (n < 64)
			return;
		if (!(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
			memcpy(&maj, body + 32, 4);
			memcpy(&min, body + 36, 4);
			memcpy(&ino, body + 40, 8);
		}
		memcpy(&prot, body + 56, 4);
		name = body + 64;
	}
	memcpy(&pid, body, 4);
	memcpy(&addr, body + 8, 8);
	memcpy(&len, body + 16, 8);
	memcpy(&pgoff, body + 24, 8);
	if ((int)pid <= 0 || !(prot & PROT_EXEC))
		return; /* the kernel's own maps come from kallsyms */
	size_t namelen = strnlen(name, (size_t)((body + n) - name));
	struct rec_proc *p = rec_world_proc(&r->world, (int)pid);
	if (!r->replay && !p->root_seen)
		rec_world_hold_root(&r->world, p);
	if (rec_world_mmap(&r->world, p, addr, len, pgoff, makedev(maj, min),
			   ino, name, namelen, (int)pid) &&
	    r->unwinder)
		ember_unwinder_invalidate(r->unwinder, (int)pid);
	/* a jitdump removed since is still readable through /proc */
	if (namelen > 10 && !memcmp(name + namelen - 10, " (deleted)", 10))
		namelen -= 10;
	if (rec_is_jitdump_name(name, namelen) && namelen < 4096) {
		char path[4096];
		memcpy(path, name, namelen);
		path[namelen] = '\0';
		open_jitdump(r, p, path, addr, addr + len);
	}
}

/* ---- code bytes for the unwinder -------------------------------------- */

/* a perf map read again for code bytes at most this often (seconds) */
#define CODE_MAP_REREAD 0.05

static double mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* p's perf map for code bytes: read once the process is gone (it is
 * complete then), again on a miss while it runs. */
static struct rec_symtab *code_map(struct rec_events *r, struct rec_proc *p,
				   int miss)
{
	int live = !r->replay && !p->exited;

	if (p->code_map &&
	    !(miss && live &&
	      mono_seconds() - p->code_map_read >= CODE_MAP_REREAD))
		return p->code_map;
	if (p->code_map)
		rec_symtab_release(p->code_map);
	else
		p->code_map = ember_xcalloc(1, sizeof(*p->code_map));
	struct ember_buf why = EMBER_BUF_INIT; /* said when naming frames */
	rec_symtab_init(p->code_map, REC_SYMTAB_PERFMAP);
	rec_proc_load_perfmap(p, r->perfmap_dir, p->code_map, &why);
	rec_symtab_finish(p->code_map);
	ember_buf_release(&why);
	p->code_map_read = mono_seconds();
	return p->code_map;
}

/* CPython's trampolines ("py::" entries of the size of its template)
 * rebuilt from p's perf map, int3 around them; how many bytes it knew. */
static size_t rebuild_code(struct rec_events *r, struct rec_proc *p,
			   uint64_t addr, uint8_t *out, size_t n)
{
	size_t known = 0;

	for (int pass = 0; pass < 2 && !known; pass++) {
		struct rec_symtab *st = code_map(r, p, pass);
		memset(out, 0xcc, n);
		for (size_t i = 0; i < n; i++) {
			const struct rec_sym *s = rec_symtab_find(st, addr + i);
			if (!s || strncmp(s->name, "py::", 4) ||
			    s->end - s->start != sizeof(ember_py_trampoline))
				continue;
			out[i] = ember_py_trampoline[addr + i - s->start];
			known++;
		}
		if (p->exited || r->replay)
			break; /* the map is complete */
	}
	return known;
}

size_t rec_events_read_code(void *ctx, int pid, uint64_t addr, void *buf,
			    size_t n)
{
	struct rec_events *r = ctx;

	if (!r->replay && pid > 0) {
		struct iovec local = {buf, n};
		struct iovec remote = {(void *)(uintptr_t)addr, n};
		ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (got > 0)
			return (size_t)got;
	}
	/* gone (its samples handled after it exited) or read back: what
	 * its perf map tells of its code, or its forked parent's */
	struct rec_proc *p = rec_world_find_proc(&r->world, pid);
	for (int depth = 0; p && depth < 16; p = p->parent, depth++)
		if (rebuild_code(r, p, addr, buf, n))
			return n;
	return 0;
}

/* ---- samples ---------------------------------------------------------- */

/*
 * The user frames of a sample, leaf first, into out; returns how many.
 * Frame-pointer mode takes the kernel's walk from the callchain, whose
 * return addresses perf symbolizes as they are.  DWARF mode unwinds the
 * sample's copy of the user stack now, while the process and its
 * mappings are those of the sample (regs_mask 0xf001c2: bx, bp, sp, ip,
 * r12-r15 in that order, or 0x1c0: bp, sp, ip); its caller frames are keyed at
 * out[i] - 1, the call (unwind.h). *truncated is set when the walk stopped
 * short of the stack's root.
 */
/* A frame-pointer callchain in one walk: its user frames and its kernel
 * frames (each up to max, in the callchain's order), its depth (frames of
 * both) and whether every context marker is one perf knows. */
struct split {
	size_t nu, nk;
	uint64_t depth;
	int valid;
};

static void split_callchain(const struct rec_sample *s, uint64_t *u,
			    uint64_t *k, size_t max, struct split *sp)
{
	size_t nu = 0, nk = 0;
	uint64_t depth = 0;
	int ctx = 0, valid = 1; /* ctx: 1 user, 2 kernel, 0 other */

	for (uint64_t i = 0; i < s->nr; i++) {
		uint64_t ip = s->ips[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			ctx = ip == (uint64_t)PERF_CONTEXT_USER	    ? 1
			      : ip == (uint64_t)PERF_CONTEXT_KERNEL ? 2
								    : 0;
			if (!ctx && ip != (uint64_t)PERF_CONTEXT_HV &&
			    ip != (uint64_t)PERF_CONTEXT_GUEST &&
			    ip != (uint64_t)PERF_CONTEXT_GUEST_KERNEL &&
			    ip != (uint64_t)PERF_CONTEXT_GUEST_USER)
				valid = 0;
			continue;
		}
		depth++;
		if (ctx == 1 && nu < max)
			u[nu++] = ip;
		else if (ctx == 2 && nk < max)
			k[nk++] = ip;
	}
	sp->nu = nu;
	sp->nk = nk;
	sp->depth = depth;
	sp->valid = valid;
}

/* The user frames: unwound from the stack copy (DWARF), or those of the
 * callchain, split already (sp). */
static size_t user_frames(struct rec_events *r, struct rec_proc *p,
			  const struct rec_sample *s, size_t copy,
			  uint64_t *out, size_t max, int *truncated,
			  const struct split *sp)
{
	size_t n = 0;

	*truncated = 0;
	if (r->dwarf) {
		if (s->abi == PERF_SAMPLE_REGS_ABI_32 && s->ip < (1ull << 47)) {
			/* a 32-bit program: its ip, no unwinding */
			out[0] = s->ip;
			*truncated = 1;
			r->stats->user_stacks++;
			r->stats->truncated++;
			return max ? 1 : 0;
		}
		if (s->abi != PERF_SAMPLE_REGS_ABI_64 || !s->regs)
			return 0; /* a kernel thread: no user stack */
		/* the registers come in the order of the mask's bits
		 * (x86-64 perf_regs: bx 1, bp 6, sp 7, ip 8, r12-r15 20-23):
		 * ember's own mask or perf's */
		uint64_t m = r->regs_mask;
		if ((m & 0x1c0) != 0x1c0)
			return 0;
#define REG(bit)                                                               \
	((m >> (bit)) & 1                                                      \
	     ? s->regs[__builtin_popcountll(m & ((1ull << (bit)) - 1))]        \
	     : 0)
		struct ember_unwind_regs regs = {0, 0, 0, 0, 0, 0, 0, 0};
		regs.ip = REG(8);
		regs.sp = REG(7);
		regs.bp = REG(6);
		regs.bx = REG(1);
		regs.r12 = REG(20);
		regs.r13 = REG(21);
		regs.r14 = REG(22);
		regs.r15 = REG(23);
#undef REG
		if (!r->reader_set) {
			ember_unwinder_set_reader(r->unwinder,
						  rec_events_read_code, r);
			r->reader_set = 1;
		}
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		n = ember_unwind(r->unwinder, p->pid, &regs, s->stack,
				 (size_t)s->dyn_size, rec_proc_unwind_find, p,
				 out, max, truncated);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		r->stats->unwind_seconds +=
		    (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		r->stats->user_stacks++;
		r->stats->truncated += *truncated != 0;
		/* cut because the stack goes on past a full copy: the size
		 * asked for, or what the kernel could fit in the sample's 64
		 * KiB with its other fields (perf_sample_ustack_size) */
		uint64_t room = s->room < copy ? s->room : copy;
		if (*truncated == EMBER_UNWIND_PAST_COPY &&
		    s->dyn_size + 8 >= room)
			r->stats->truncated_copy++;
		for (size_t i = 1; i < n; i++)
			out[i]--;
		return n;
	}
	uint64_t depth = sp->depth;
	n = sp->nu;
	/* the kernel stops its walk at kernel.perf_event_max_stack frames
	 * (kernel and user together), silently: the stack is cut */
	if (n && r->max_stack && depth >= r->max_stack) {
		*truncated = 1;
		/* a deep stack, or a chain read from garbage (code without
		 * frame pointers), which the summary tells apart */
		const struct rec_map *m = rec_proc_find_map(p, out[n - 1]);
		if (m && m->m.exec)
			r->stats->fp_truncated++;
	}
	return n;
}

static size_t kernel_frames(const struct rec_sample *s, uint64_t *out,
			    size_t max)
{
	size_t n = 0;
	int kernel = 0;

	for (uint64_t i = 0; i < s->nr; i++) {
		uint64_t ip = s->ips[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (kernel && n < max)
			out[n++] = ip;
	}
	return n;
}

/* A recording read back: the root is "comm\0pid\0tid", named later
 * as the reader's options say. */
static uint32_t replay_root(struct rec_events *r, struct rec_thread *t)
{
	char small[128];
	size_t len = 0;
	/* tid -1 (a task being reaped): perf names it after its process */
	uint32_t comm = t->tid == -1 ? t->proc->comm : t->comm;

	if (comm != UINT32_MAX) {
		const char *c = ember_intern_str(&r->world.comms, comm, &len);
		if (len > 64)
			len = 64;
		memcpy(small, c, len);
	} else if (!t->tid) {
		len = 7; /* perf's name for the idle task */
		memcpy(small, "swapper", len);
	} else {
		len = (size_t)snprintf(small, sizeof(small), ":%d", t->tid);
	}
	len += (size_t)snprintf(small + len, sizeof(small) - len, "%c%d%c%d", 0,
				t->proc->pid, 0, t->tid);
	uint32_t id = ember_intern(&r->roots, small, len);
	return rec_frames_id(&r->frames, REC_FRAME_ROOT, id, 0);
}

static uint32_t root_frame(struct rec_events *r, struct rec_thread *t)
{
	char small[128];

	if (t->comm == UINT32_MAX && !r->replay)
		read_comm(&r->world, t);
	if (r->replay)
		return replay_root(r, t);
	if (t->comm == UINT32_MAX) {
		snprintf(small, sizeof(small), ":%d", t->tid);
	} else {
		size_t len;
		const char *c =
		    ember_intern_str(&r->world.comms, t->comm, &len);
		if (len > 64)
			len = 64;
		memcpy(small, c, len);
		small[len] = '\0';
		/* as stackcollapse-perf.pl: spaces become '_' */
		for (size_t i = 0; i < len; i++)
			if (small[i] == ' ')
				small[i] = '_';
			else if (small[i] == ';')
				small[i] = ':';
	}
	size_t l = strlen(small);
	if (!t->tid && (r->root_tid || r->root_pid))
		/* the idle task (--idle): as stackcollapse-perf.pl names it
		 * from perf script's "swapper 0/0" */
		snprintf(small + l, sizeof(small) - l, "%s",
			 r->root_tid ? "-?/0" : "-?");
	else if (r->root_tid)
		snprintf(small + l, sizeof(small) - l, "-%d/%d", t->proc->pid,
			 t->tid);
	else if (r->root_pid)
		snprintf(small + l, sizeof(small) - l, "-%d", t->proc->pid);
	uint32_t id = ember_intern(&r->roots, small, strlen(small));
	return rec_frames_id(&r->frames, REC_FRAME_ROOT, id, 0);
}

/* The load time of the JIT code at addr by the process's jitdump, at
 * sample time t; 0 when the dump does not hold it (yet). */
static uint64_t jit_stamp(struct rec_proc *p, uint64_t addr, uint64_t t)
{
	struct ember_jitdump *jd = rec_proc_jitdump(p);
	const struct ember_jit_code *c;

	if (!jd || (ember_jitdump_info(jd)->flags & 1))
		return 0; /* none, or TSC times: not comparable */
	c = ember_jitdump_find(jd, addr, t);
	if (!c && t - p->jd_checked > 20000000) {
		/* the runtime may have written it since: look again, at most
		 * every 20 ms */
		p->jd_checked = t;
		if (ember_jitdump_update(jd) > 0)
			c = ember_jitdump_find(jd, addr, t);
	}
	return c && c->time <= t && c->end_time > t ? c->time : 0;
}

/*
 * Most samples repeat most of the frames of the one before: a small
 * direct-mapped cache of (process instance, address) -> frame id saves
 * the mapping search and the frame table's hashing.  A new mapping
 * invalidates its process's entries (their generation); kernel frames do
 * not depend on mappings; JIT frames, whose key has a time, are not
 * cached.
 */
#define FCACHE_BITS 14
#define FCACHE_SIZE (1u << FCACHE_BITS)

struct rec_fcache {
	uint64_t addr;
	uint32_t proc, gen, id;
};

static struct rec_fcache *fcache_slot(struct rec_events *r, uint32_t proc,
				      uint64_t addr)
{
	if (!r->fcache)
		r->fcache = ember_xcalloc(FCACHE_SIZE, sizeof(*r->fcache));
	uint64_t h = (addr ^ ((uint64_t)proc << 40)) * 0x9e3779b97f4a7c15ull;
	return &r->fcache[h >> (64 - FCACHE_BITS)];
}

static uint32_t user_frame_slow(struct rec_events *r, struct rec_proc *p,
				uint64_t addr, uint64_t t, int *cacheable)
{
	const struct rec_map *m = rec_proc_find_map(p, addr);

	*cacheable = 1;
	if (!m)
		return rec_frames_id(&r->frames, REC_FRAME_UNKNOWN, 0,
				     r->replay ? addr : 0);
	*cacheable = m->dso->kind != REC_DSO_ANON;
	if (m->dso->kind == REC_DSO_ANON)
		return rec_frames_id_at(&r->frames, REC_FRAME_JIT, p->id, addr,
					jit_stamp(p, addr, t), t);
	return rec_frames_id(&r->frames, REC_FRAME_DSO, m->dso->id,
			     addr - m->m.start + m->m.pgoff);
}

/* Whether every context marker of the callchain is one perf knows. */
static int valid_callchain(const struct rec_sample *s)
{
	for (uint64_t i = 0; i < s->nr; i++) {
		uint64_t ip = s->ips[i];
		if (ip >= (uint64_t)PERF_CONTEXT_MAX &&
		    ip != (uint64_t)PERF_CONTEXT_HV &&
		    ip != (uint64_t)PERF_CONTEXT_KERNEL &&
		    ip != (uint64_t)PERF_CONTEXT_USER &&
		    ip != (uint64_t)PERF_CONTEXT_GUEST &&
		    ip != (uint64_t)PERF_CONTEXT_GUEST_KERNEL &&
		    ip != (uint64_t)PERF_CONTEXT_GUEST_USER)
			return 0;
	}
	return 1;
}

/* The frame of a user address; *stable is cleared when its id depends on
 * the sample's time (JIT code). */
static uint32_t user_frame(struct rec_events *r, struct rec_proc *p,
			   uint64_t addr, uint64_t t, int *stable)
{
	struct rec_fcache *e = fcache_slot(r, p->id, addr);
	int cacheable;

	if (e->gen == p->map_gen + 1 && e->addr == addr && e->proc == p->id)
		return e->id;
	uint32_t id = user_frame_slow(r, p, addr, t, &cacheable);
	if (cacheable) {
		e->addr = addr;
		e->proc = p->id;
		e->gen = p->map_gen + 1;
		e->id = id;
	} else {
		*stable = 0;
	}
	return id;
}

static uint32_t kernel_frame(struct rec_events *r, uint64_t addr)
{
	struct rec_fcache *e = fcache_slot(r, UINT32_MAX, addr);

	if (e->gen && e->addr == addr && e->proc == UINT32_MAX)
		return e->id;
	e->addr = addr;
	e->proc = UINT32_MAX;
	e->gen = 1;
	e->id = rec_frames_id(&r->frames, REC_FRAME_KERNEL, 0, addr);
	return e->id;
}

/*
 * Frame-pointer samples repeat whole callchains: a table of the
 * callchains seen, by root frame, process instance and the callchain's
 * words, gives the stack each became, and saves a repeat the lookup of
 * each frame and the stack table's hashing.  An entry holds while the
 * mappings are those it was made under (map_gen); a callchain through
 * JIT code, whose frames depend on the sample's time, is not kept.  The
 * table keeps one copy of each distinct callchain, up to CHAINS_WORDS
 * words; later ones are decoded each time.
 */
#define CHAINS_WORDS (1u << 20)

struct rec_chain {
	uint64_t hash;
	const uint64_t *ips; /* its words, in the arena */
	uint32_t nr, root, proc, gen, stack;
	uint8_t truncated, bad; /* counted again at each repeat */
};

struct rec_chains {
	struct rec_chain *v;
	size_t n, alloc;
	uint32_t *slots; /* entry index + 1, open addressing */
	size_t mask;
	struct ember_arena words; /* never moved: no copy as it grows */
	size_t nwords;
};

static void chains_free(struct rec_chains *c)
{
	if (!c)
		return;
	ember_huge_free(c->v, c->alloc * sizeof(*c->v));
	ember_huge_free(c->slots, (c->mask + 1) * sizeof(*c->slots));
	ember_arena_release(&c->words);
	free(c);
}

static uint64_t chain_hash(const struct rec_sample *s, uint32_t root,
			   uint32_t proc)
{
	uint64_t h = ember_hash(s->ips, (size_t)s->nr * 8);

	return (h ^ ((uint64_t)root << 32 | proc)) * 0x9e3779b97f4a7c15ull;
}

/* The entry of the sample's callchain, or NULL with *slot where it goes
 * (SIZE_MAX: the table is full). */
static struct rec_chain *chain_find(struct rec_events *r,
				    const struct rec_sample *s, uint32_t root,
				    uint32_t proc, uint64_t h, size_t *slot)
{
	struct rec_chains *c = r->chains;

	if (!c) {
		c = r->chains = ember_xcalloc(1, sizeof(*c));
		ember_arena_init(&c->words);
		c->mask = 1023;
		c->slots = ember_huge_alloc((c->mask + 1) * sizeof(*c->slots));
	}
	size_t i = (size_t)(h >> 32) & c->mask;
	for (; c->slots[i]; i = (i + 1) & c->mask) {
		struct rec_chain *e = &c->v[c->slots[i] - 1];
		if (e->hash == h && e->nr == s->nr && e->root == root &&
		    e->proc == proc &&
		    !memcmp(e->ips, s->ips, (size_t)s->nr * 8))
			return e;
	}
	*slot = c->nwords + s->nr > CHAINS_WORDS ? SIZE_MAX : i;
	return NULL;
}

static struct rec_chain *chain_add(struct rec_events *r,
				   const struct rec_sample *s, uint32_t root,
				   uint32_t proc, uint64_t h, size_t slot)
{
	struct rec_chains *c = r->chains;
	uint64_t *ips = ember_arena_alloc(&c->words, (size_t)s->nr * 8);
	struct rec_chain *e;

	memcpy(ips, s->ips, (size_t)s->nr * 8);
	if (c->n + 1 > c->alloc) { /* in huge pages once large */
		size_t a = c->alloc / 2 * 3 + 16;
		c->v = ember_huge_grow(c->v, c->alloc * sizeof(*c->v),
				       a * sizeof(*c->v));
		c->alloc = a;
	}
	e = &c->v[c->n];
	memset(e, 0, sizeof(*e));
	e->hash = h;
	e->ips = ips;
	e->nr = (uint32_t)s->nr;
	e->root = root;
	e->proc = proc;
	c->nwords += s->nr;
	c->slots[slot] = (uint32_t)++c->n;
	if (c->n * 2 > c->mask) {
		ember_huge_free(c->slots, (c->mask + 1) * sizeof(*c->slots));
		c->mask = c->mask * 2 + 1;
		c->slots = ember_huge_alloc((c->mask + 1) * sizeof(*c->slots));
		for (size_t k = 0; k < c->n; k++) {
			size_t i = (size_t)(c->v[k].hash >> 32) & c->mask;
			while (c->slots[i])
				i = (i + 1) & c->mask;
			c->slots[i] = (uint32_t)k + 1;
		}
	}
	return e;
}

/*
 * The root frame of a thread, remembered while its name and process
 * stay (naming it takes formatting and interning); direct-mapped by tid.
 * A thread whose name is still unknown is asked again each time (a live
 * session reads it from /proc).
 */
#define RCACHE_SIZE 256

struct rec_rcache {
	const struct rec_thread *t;
	const struct rec_proc *p;
	uint32_t comm, pcomm, id;
};

static uint32_t thread_root(struct rec_events *r, struct rec_thread *t)
{
	struct rec_rcache *e;

	if (!r->rcache)
		r->rcache = ember_xcalloc(RCACHE_SIZE, sizeof(*r->rcache));
	e = &r->rcache[(uint32_t)t->tid % RCACHE_SIZE];
	if (e->t == t && e->p == t->proc && e->comm == t->comm &&
	    e->pcomm == t->proc->comm)
		return e->id;
	uint32_t id = root_frame(r, t);
	if (t->comm != UINT32_MAX || r->replay) {
		e->t = t;
		e->p = t->proc;
		e->comm = t->comm;
		e->pcomm = t->proc->comm;
		e->id = id;
	}
	return id;
}

/* The sample in the sample-level profile (samples.c). */
static void prof_sample(struct rec_events *r, const struct rec_sample *s,
			struct rec_thread *t, uint32_t stack, double weight)
{
	int cpu = r->sample_type & PERF_SAMPLE_CPU ? (int)s->cpu : -1;

	rec_prof_sample(r, t, s->time, cpu, stack, (uint64_t)(weight + 0.5));
}

static void on_sample(struct rec_events *r, const void *rec, size_t size)
{
	struct rec_sample s;

	if (parse_sample(r, rec, size, &s)) {
		r->corrupt++;
		return;
	}
	uint64_t one[2];
	/* a callchain to remember: frame pointers, and no off-CPU state */
	int chain = !r->dwarf && !r->off && !r->interp &&
		    (r->sample_type & PERF_SAMPLE_CALLCHAIN);
	if (!(r->sample_type & PERF_SAMPLE_CALLCHAIN)) {
		/* no callchain recorded: the sampled address alone */
		const struct perf_event_header *h = rec;
		int cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
		one[0] = cpumode == PERF_RECORD_MISC_KERNEL
			     ? (uint64_t)PERF_CONTEXT_KERNEL
			     : (uint64_t)PERF_CONTEXT_USER;
		one[1] = s.ip;
		s.ips = one;
		s.nr = 2;
	}
	if (s.pid == 0 && s.tid == 0 && !r->idle) {
		r->stats->idle++;
		return;
	}
	struct rec_thread *t =
	    rec_world_thread(&r->world, (int)s.pid, (int)s.tid);
	struct rec_proc *p = t->proc;
	uint64_t *ub = r->ubuf;
	uint32_t *ids = r->ibuf;
	size_t n = 0, slot = SIZE_MAX;
	uint32_t root = thread_root(r, t);
	uint64_t h = 0;
	struct rec_chain *e = NULL;

	if (chain) {
		h = chain_hash(&s, root, p->id);
		e = chain_find(r, &s, root, p->id, h, &slot);
		if (e && e->gen == p->map_gen) {
			/* a callchain seen before, under these mappings */
			r->stats->bad_callchains += e->bad;
			r->stats->fp_truncated += e->truncated;
			r->stacks.ents[e->stack].count += (double)s.period;
			if (r->prof)
				prof_sample(r, &s, t, e->stack,
					    (double)s.period);
			r->stats->samples++;
			r->stats->weight += (double)s.period;
			return;
		}
	}
	const uint64_t *ips = s.ips;
	uint64_t nr = s.nr;
	struct split sp = {0, 0, 0, 1};
	if (!r->dwarf)
		split_callchain(&s, ub, ub + MAX_FRAMES, MAX_FRAMES, &sp);
	int bad = r->replay && (r->dwarf ? !valid_callchain(&s) : !sp.valid);
	if (bad) {
		r->stats->bad_callchains++;
		s.nr = 0; /* as perf: a corrupt callchain is dropped whole */
		sp = (struct split){0, 0, 0, 0};
	}
	int truncated, stable = 1;
	uint64_t fp_truncated = r->stats->fp_truncated;
	int sw = rec_offcpu_is_switch(r->off, s.raw, s.raw_size, s.id);
	ids[n++] = root;
	size_t nu = user_frames(
	    r, p, &s, sw ? r->stats->switch_stack_size : r->stats->stack_size,
	    ub, MAX_FRAMES, &truncated, &sp);
	if (truncated)
		ids[n++] = rec_frames_id(&r->frames, REC_FRAME_TRUNCATED, 0, 0);
	for (size_t i = nu; i-- > 0;) {
		ids[n] = user_frame(r, p, ub[i], s.time, &stable);
		if (i)
			r->frames.v[ids[n]].call =
			    r->dwarf ? REC_CALL_AT : REC_CALL_RET;
		n++;
	}
	if (r->interp)
		n = rec_interp_merge_stack(r, p, (int)s.tid, s.time, ids, 1, n);
	const uint64_t *kb = ub + MAX_FRAMES;
	size_t nk = sp.nk;
	if (r->dwarf) {
		kb = ub;
		nk = kernel_frames(&s, ub, MAX_FRAMES);
	}
	for (size_t i = nk; i-- > 0;)
		ids[n++] = kernel_frame(r, kb[i]);
	if (sw) {
		rec_offcpu_out(r, (int)s.tid, s.time, s.raw, s.raw_size, ids,
			       n);
		return;
	}
	double w = r->off ? rec_offcpu_ran(r, (int)s.tid, s.time, s.period)
			  : (double)s.period;
	size_t stack = ember_stacks_add(&r->stacks, ids, n, w, 0);
	if (r->prof)
		prof_sample(r, &s, t, (uint32_t)stack, w);
	r->stats->samples++;
	r->stats->weight += w;
	if (chain && stable && (e || slot != SIZE_MAX)) {
		s.ips = ips; /* the callchain as it came */
		s.nr = nr;
		if (!e)
			e = chain_add(r, &s, root, p->id, h, slot);
		e->gen = p->map_gen;
		e->stack = (uint32_t)stack;
		e->bad = (uint8_t)bad;
		e->truncated = r->stats->fp_truncated != fp_truncated;
	}
}

void rec_events_handle(struct rec_events *r, const void *rec, size_t size)
{
	const struct perf_event_header *h = rec;
	const char *body = (const char *)rec + sizeof(*h);
	size_t n = size - sizeof(*h);
	uint64_t time = rec_events_time(r, rec, size);
	uint64_t v;

	/* side-band bodies end with the sample_id trailer */
	size_t trailer = trailer_after_time(r->sample_type);
	if (r->sample_type & PERF_SAMPLE_TID)
		trailer += 8;
	if (r->sample_type & PERF_SAMPLE_TIME)
		trailer += 8;
	if (h->type != PERF_RECORD_SAMPLE)
		n = n > trailer ? n - trailer : 0;
	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		on_sample(r, rec, size);
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		on_mmap(r, h, body, n);
		break;
	case PERF_RECORD_COMM:
		on_comm(r, h, body, n, time);
		break;
	case PERF_RECORD_FORK:
		on_fork(r, body, n, time);
		break;
	case PERF_RECORD_EXIT:
		on_exit_rec(r, body, n, time);
		break;
	case PERF_RECORD_LOST:
		if (n >= 16) {
			memcpy(&v, body + 8, 8);
			r->stats->lost += v;
		}
		if (r->off)
			rec_offcpu_lost(r);
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (n >= 8) {
			memcpy(&v, body, 8);
			r->stats->lost += v;
		}
		if (r->off)
			rec_offcpu_lost(r);
		break;
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
		/* in a CPU-wide record, the sample_id is the incoming task's
		 * on a switch-in */
		if (r->off && !(h->misc & PERF_RECORD_MISC_SWITCH_OUT))
			rec_offcpu_in(r, rec_tid(r, rec, size), time);
		else if (r->off)
			rec_offcpu_switch_out(
			    r, rec_tid(r, rec, size),
			    !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
		break;
	case PERF_RECORD_THROTTLE:
		r->stats->throttled++;
		break;
	default:
		break;
	}
}
