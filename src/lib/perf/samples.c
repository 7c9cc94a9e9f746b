/*
 * The sample-level profile of perf records.  While records are handled,
 * each sample appends its time, thread, CPU, weight and the session's
 * stack id (an entry of ev->stacks) to the profile's columns: a few bytes
 * per sample, nothing per frame.  Once the frames have names, one pass
 * turns each session frame into profile frames (the function named as
 * the folded output names it, then its inlined calls, deeper and deeper
 * at the same address), each session stack into a node of the profile's
 * prefix tree, and the samples' stack ids into those nodes.
 *
 * Mappings: one per (module, process mapping) a frame is in, as the
 * first process seen mapping it had it (runtime addresses are that
 * mapping's); the kernel is one mapping, "[kernel.kallsyms]"; JIT code
 * and frames outside any mapping have none.  The main program is the
 * mapping of a file that is no shared library with the most frames.
 */
#include <stdlib.h>
#include <string.h>

#include "perf/samples.h"
#include "symbols/inline.h"

/* A thread seen recently, by tid (direct-mapped). */
#define TCACHE_SIZE 256

struct tcache {
	const struct rec_thread *t;
	const struct rec_proc *p;
	uint32_t comm, pcomm, id;
};

struct rec_prof {
	struct ember_prof p;
	struct tcache tc[TCACHE_SIZE];
};

void rec_prof_start(struct rec_events *r, const char *type, const char *unit,
		    int64_t period)
{
	struct rec_prof *rp = ember_xcalloc(1, sizeof(*rp));
	struct ember_prof *p = &rp->p;

	ember_prof_init(p);
	ember_prof_add_type(p, "samples", "count", 1);
	size_t t = ember_prof_add_type(p, type, unit, 0);
	p->period_type = p->types[t];
	p->period_type.column = EMBER_PROF_NONE;
	p->period = period;
	p->flags = EMBER_PROF_HAS_TIME | EMBER_PROF_HAS_THREADS |
		   EMBER_PROF_THREAD_ROOTS;
	rec_prof_free(r->prof);
	r->prof = rp;
}

void rec_prof_free(struct rec_prof *rp)
{
	if (!rp)
		return;
	ember_prof_release(&rp->p);
	free(rp);
}

struct ember_prof *rec_prof_detach(struct rec_events *r)
{
	struct rec_prof *rp = r->prof;

	if (!rp)
		return NULL;
	struct ember_prof *p = ember_xmalloc(sizeof(*p));
	*p = rp->p;
	free(rp);
	r->prof = NULL;
	return p;
}

void rec_prof_trim(struct rec_events *r)
{
	if (r->prof)
		ember_prof_trim(&r->prof->p);
}

static uint32_t comm_str(struct rec_events *r, uint32_t comm)
{
	size_t len;

	if (comm == UINT32_MAX)
		return 0;
	const char *s = ember_intern_str(&r->world.comms, comm, &len);
	return ember_prof_str(&r->prof->p, s, len);
}

/* The profile's thread of t, its name the thread's current comm. */
static uint32_t thread_of(struct rec_events *r, struct rec_thread *t)
{
	struct rec_prof *rp = r->prof;
	struct tcache *e = &rp->tc[(uint32_t)t->tid % TCACHE_SIZE];

	if (e->t == t && e->p == t->proc && e->comm == t->comm &&
	    e->pcomm == t->proc->comm)
		return e->id;
	uint32_t id = ember_prof_thread(&rp->p, t->proc->pid, t->tid);
	struct ember_prof_thread *pt = &rp->p.threads[id];
	if (t->comm != UINT32_MAX)
		pt->name = comm_str(r, t->comm);
	if (t->proc->comm != UINT32_MAX)
		rp->p.procs[pt->process].name = comm_str(r, t->proc->comm);
	*e = (struct tcache){t, t->proc, t->comm, t->proc->comm, id};
	return id;
}

void rec_prof_sample(struct rec_events *r, struct rec_thread *t, uint64_t time,
		     int cpu, uint32_t stack, uint64_t weight)
{
	double v = (double)weight;

	if (cpu >= 0)
		r->prof->p.flags |= EMBER_PROF_HAS_CPU;
	ember_prof_sample(&r->prof->p, time, thread_of(r, t), cpu, stack, &v);
}

void rec_prof_wait(struct rec_events *r, int tid, uint64_t time, uint64_t ns,
		   uint32_t stack)
{
	struct rec_thread *t = rec_world_find_thread(&r->world, tid);
	double v = (double)ns;

	ember_prof_sample(&r->prof->p, time,
			  t ? thread_of(r, t) : EMBER_PROF_NONE, -1, stack, &v);
}

/* ---- after naming: frames, stacks ------------------------------------- */

/* A file frame's source: string ids (system_name + 1), 0 unknown. */
struct src {
	uint32_t file, line, start_line, system_name;
};

struct build {
	struct rec_events *r;
	struct ember_prof *p;
	struct rec_symctx *sc;
	const struct ember_intern *names;
	/* per session frame: its profile frames (outermost first) at
	 * pf[off[f] .. off[f] + len[f]), len UINT32_MAX: not built yet */
	uint32_t *off, *len;
	uint32_t *pf;
	size_t npf, apf;
	/* per name id: its string id in the profile (+1; 0 not yet); names
	 * made while the profile is built (frames the folding left
	 * unnamed) grow it */
	uint32_t *str;
	size_t nstr;
	/* per dso: its profile mappings (+1, one per process mapping) */
	uint32_t **dmaps;
	uint32_t *ndmaps;
	uint32_t kernel_map; /* +1 */
	uint64_t klo, khi;
	/* source lines */
	struct ember_inliner *lines;
	struct src *src; /* per session frame */
	int32_t *lmod;	 /* per dso: module + 1, -1 none */
	struct ember_buf rec;
};

static uint32_t name_str(struct build *b, uint32_t id)
{
	if (id >= b->nstr) {
		size_t n = ember_intern_count(b->names) + 1;
		if (n <= id)
			n = (size_t)id + 1;
		b->str = ember_xreallocarray(b->str, n, sizeof(*b->str));
		memset(b->str + b->nstr, 0, (n - b->nstr) * sizeof(*b->str));
		b->nstr = n;
	}
	if (!b->str[id]) {
		size_t len;
		const char *s = ember_intern_str(b->names, id, &len);
		b->str[id] = ember_prof_str(b->p, s, len) + 1;
	}
	return b->str[id] - 1;
}

static void hex_id(struct ember_buf *out, const uint8_t *id, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		ember_buf_addch(out, digits[id[i] >> 4]);
		ember_buf_addch(out, digits[id[i] & 15]);
	}
}

/* The profile mapping of dso d holding file offset off (+1; 0 none). */
static uint32_t dso_mapping(struct build *b, const struct rec_dso *d,
			    uint64_t off)
{
	const struct rec_world *w = &b->r->world;

	for (uint32_t i = 0; i < b->ndmaps[d->id]; i++) {
		const struct ember_prof_mapping *m =
		    &b->p->maps[b->dmaps[d->id][i] - 1];
		if (off >= m->offset && off - m->offset < m->limit - m->start)
			return b->dmaps[d->id][i];
	}
	for (size_t i = 0; i < w->nprocs; i++) {
		const struct rec_proc *pr = w->procs[i];
		for (size_t j = 0; j < pr->nmaps; j++) {
			const struct ember_unwind_mapping *um = &pr->maps[j].m;
			if (pr->maps[j].dso != d || off < um->pgoff ||
			    off - um->pgoff >= um->end - um->start)
				continue;
			struct ember_prof_mapping m = {0};
			m.start = um->start;
			m.limit = um->end;
			m.offset = um->pgoff;
			m.path = ember_prof_strz(b->p, d->path);
			m.pid = pr->pid;
			const uint8_t *id = d->want_len ? d->want_id
					    : d->loaded ? d->elf.build_id
							: NULL;
			size_t n = d->want_len ? d->want_len
				   : d->loaded ? d->elf.build_id_len
					       : 0;
			struct ember_buf hex = EMBER_BUF_INIT;
			hex_id(&hex, id, id ? n : 0);
			m.build_id = ember_prof_str(b->p, hex.buf, hex.len);
			ember_buf_release(&hex);
			m.has_functions = 1;
			m.has_lines = b->lines != NULL;
			m.has_inline = b->lines != NULL;
			uint32_t mi = ember_prof_mapping(b->p, &m) + 1;
			b->dmaps[d->id] = ember_xreallocarray(
			    b->dmaps[d->id], b->ndmaps[d->id] + 1,
			    sizeof(**b->dmaps));
			b->dmaps[d->id][b->ndmaps[d->id]++] = mi;
			return mi;
		}
	}
	return 0;
}

/* The DWARF of dso d for its lines: module + 1, or -1. */
static int32_t line_module(struct build *b, const struct rec_dso *d)
{
	uint32_t mod;

	if (!b->lines)
		return -1;
	if (!b->lmod[d->id]) {
		b->lmod[d->id] = -1;
		if (d->kind == REC_DSO_FILE && d->usable && d->elf.fd >= 0 &&
		    !ember_inliner_module(
			b->lines, (const char *)&d->id, sizeof(d->id), d->path,
			d->elf.fd, d->has_debug ? d->debug.fd : -1, &mod))
			b->lmod[d->id] = (int32_t)mod + 1;
	}
	return b->lmod[d->id];
}

/* The call's address for a caller, whichever walk found it; -1: none. */
static int frame_vaddr(struct build *b, const struct rec_frame *f,
		       const struct rec_dso *d, uint64_t *vaddr)
{
	int32_t m = line_module(b, d);

	if (m <= 0 || rec_elf_off_to_vaddr(&d->elf, f->addr, vaddr))
		return -1;
	if (f->call == REC_CALL_RET && *vaddr)
		(*vaddr)--; /* a return address: the call is before it */
	return m - 1;
}

/* With several names for f (its inlined calls), the "file:line" records
 * of the functions at f (outermost first) into b->rec; how many. */
static int frame_lines(struct build *b, const struct rec_frame *f,
		       const struct rec_dso *d)
{
	uint64_t vaddr;
	int m = frame_vaddr(b, f, d, &vaddr);

	ember_buf_reset(&b->rec);
	if (m < 0)
		return 0;
	return ember_inliner_at(b->lines, (uint32_t)m, vaddr, NULL, 0, &b->rec);
}

/* Whether a and b name one file (the base names where one of them is
 * relative to a directory the other is not). */
static int same_file(const char *a, const char *b)
{
	if (!strcmp(a, b))
		return 1;
	const char *x = strrchr(a, '/'), *y = strrchr(b, '/');
	return !strcmp(x ? x + 1 : a, y ? y + 1 : b);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every file frame's line and function, from the line table and the
 * units' top-level DIEs, module by module: each module's DWARF is closed
 * after its frames, so that memory holds one module's at a time (a
 * system-wide recording has hundreds).  The inlined calls' records,
 * wanted only where a frame has several names, open it again. */
static void frame_sources(struct build *b)
{
	const struct rec_frames *fr = &b->r->frames;
	uint64_t *key = ember_xreallocarray(NULL, fr->n + 1, sizeof(*key));
	size_t n = 0;

	b->src = ember_xcalloc(fr->n + 1, sizeof(*b->src));
	if (!b->lines)
		goto out;
	for (size_t i = 0; i < fr->n; i++)
		if (fr->v[i].kind == REC_FRAME_DSO)
			key[n++] = (uint64_t)fr->v[i].obj << 32 | i;
	qsort(key, n, sizeof(*key), cmp_u64);
	uint64_t *addr = ember_xreallocarray(NULL, n + 1, sizeof(*addr));
	uint32_t *at = ember_xreallocarray(NULL, n + 1, sizeof(*at));
	struct ember_inliner_src *s =
	    ember_xreallocarray(NULL, n + 1, sizeof(*s));
	for (size_t k = 0, e; k < n; k = e) {
		const struct rec_dso *d =
		    b->r->world.dsos[fr->v[(uint32_t)key[k]].obj];
		size_t na = 0;
		int m = -1;
		/* one module's frames, their lines asked at once */
		for (e = k; e < n && key[e] >> 32 == key[k] >> 32; e++) {
			uint32_t fi = (uint32_t)key[e];
			uint64_t vaddr;
			int mm = frame_vaddr(b, &fr->v[fi], d, &vaddr);
			if (mm < 0)
				continue;
			m = mm;
			addr[na] = vaddr;
			at[na++] = fi;
		}
		if (m >= 0)
			ember_inliner_lines(b->lines, (uint32_t)m, addr, na, s);
		for (size_t j = 0; m >= 0 && j < na; j++) {
			struct src *o = &b->src[at[j]];
			if (s[j].file) {
				o->file = ember_prof_strz(b->p, s[j].file);
				o->line = s[j].line;
			}
			if (s[j].file && s[j].decl_line && s[j].decl_file &&
			    same_file(s[j].decl_file, s[j].file))
				o->start_line = s[j].decl_line;
			if (s[j].linkage_name)
				o->system_name =
				    ember_prof_strz(b->p, s[j].linkage_name) +
				    1;
		}
		if (b->lmod[d->id] > 0)
			ember_inliner_close(b->lines,
					    (uint32_t)(b->lmod[d->id] - 1));
		b->lmod[d->id] = 0;
	}
	free(addr);
	free(at);
	free(s);
out:
	free(key);
}

/* Record k's file and line (from "name\tfile:line\n" records). */
static void record_loc(struct build *b, int k, uint32_t *file, uint32_t *line)
{
	const char *p = b->rec.buf, *end = p + b->rec.len;

	*file = 0;
	*line = 0;
	for (int i = 0; i < k && p < end; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *tab = memchr(p, '\t', (size_t)(end - p));
	if (!nl || !tab || tab > nl)
		return;
	const char *colon = memrchr(tab + 1, ':', (size_t)(nl - tab - 1));
	if (!colon)
		return;
	char *e;
	unsigned long l = strtoul(colon + 1, &e, 10);
	if (e != nl || colon == tab + 1 || !strncmp(tab + 1, "??", 2))
		return;
	*file = ember_prof_str(b->p, tab + 1, (size_t)(colon - tab - 1));
	*line = (uint32_t)l;
}

static uint8_t kind_of(const struct rec_frame *f, const char *name)
{
	switch (f->kind) {
	case REC_FRAME_KERNEL:
		return EMBER_PROF_KERNEL;
	case REC_FRAME_JIT:
		return EMBER_PROF_JIT;
	case REC_FRAME_ROOT:
		return strncmp(name, "[off-cpu", 8) ? EMBER_PROF_SYNTHETIC
						    : EMBER_PROF_OFFCPU;
	case REC_FRAME_TRUNCATED:
		return EMBER_PROF_SYNTHETIC;
	case REC_FRAME_INTERP:
		return EMBER_PROF_INTERP;
	default:
		return EMBER_PROF_USER;
	}
}

/* An interpreter frame's file (its name's part after the function,
 * "py::function:file"), first line and line. */
static void interp_loc(struct build *b, const struct rec_frame *f,
		       uint32_t name, struct ember_prof_func *fn,
		       uint32_t *line)
{
	size_t len;
	const char *s = ember_prof_s(b->p, name, &len);
	const char *sep = len > 4 ? memchr(s + 4, ':', len - 4) : NULL;

	if (sep && sep + 1 < s + len) {
		/* copied out: interning may move the strings */
		struct ember_buf file = EMBER_BUF_INIT;
		ember_buf_add(&file, sep + 1, (size_t)(s + len - sep - 1));
		fn->file = ember_prof_str(b->p, file.buf, file.len);
		ember_buf_release(&file);
	}
	fn->start_line = (uint32_t)(f->addr >> 32);
	*line = (uint32_t)f->addr;
}

/* The profile frames of session frame fi, named by ids (n of them). */
static void build_frame(struct build *b, uint32_t fi, const uint32_t *ids,
			size_t n)
{
	const struct rec_frame *f = &b->r->frames.v[fi];
	struct ember_prof_frame pf = {0};
	const struct rec_dso *d = NULL;
	const struct src *src = &b->src[fi];
	int nrec = 0;

	pf.mapping = EMBER_PROF_NONE;
	if (f->kind == REC_FRAME_DSO) {
		d = b->r->world.dsos[f->obj];
		uint32_t m = dso_mapping(b, d, f->addr);
		if (m) {
			const struct ember_prof_mapping *pm =
			    &b->p->maps[m - 1];
			pf.mapping = m - 1;
			pf.address = pm->start + (f->addr - pm->offset);
			/* a caller's address is its return address in
			 * every walk (pprof's Locations, Firefox's minus
			 * one) */
			if (f->call == REC_CALL_AT)
				pf.address++;
			pf.call = f->call != 0;
		}
		if (n > 1)
			nrec = frame_lines(b, f, d);
	} else if (f->kind == REC_FRAME_KERNEL) {
		if (!b->kernel_map) {
			struct ember_prof_mapping m = {0};
			m.path = ember_prof_strz(b->p, "[kernel.kallsyms]");
			m.pid = -1;
			m.kernel = 1;
			m.has_functions = 1;
			m.start = b->klo;
			m.limit = b->khi;
			b->kernel_map = ember_prof_mapping(b->p, &m) + 1;
		}
		pf.mapping = b->kernel_map - 1;
		pf.address = f->addr;
		pf.call = f->call != 0;
	} else if (f->kind == REC_FRAME_JIT) {
		pf.address = f->addr + (f->call == REC_CALL_AT);
		pf.call = f->call != 0;
	}
	b->off[fi] = (uint32_t)b->npf;
	b->len[fi] = (uint32_t)n;
	EMBER_GROW(b->pf, b->npf + n, b->apf);
	for (size_t j = 0; j < n; j++) {
		uint32_t name = name_str(b, ids[j]);
		struct ember_prof_func fn = {name, name, 0, 0};
		uint32_t line = 0;
		/* the records end with the innermost function, as the
		 * names do */
		int k = nrec - (int)(n - j);
		if (k >= 0) {
			record_loc(b, k, &fn.file, &line);
		} else if (n == 1) {
			fn.file = src->file;
			line = src->line;
		}
		/* the out-of-line function: its declaration, its mangled
		 * name (C's names are their own) */
		if (j == 0 && fn.file && fn.file == src->file)
			fn.start_line = src->start_line;
		if (j == 0 && src->system_name)
			fn.system_name = src->system_name - 1;
		if (f->kind == REC_FRAME_INTERP)
			interp_loc(b, f, name, &fn, &line);
		pf.func = ember_prof_func(b->p, &fn);
		pf.line = line;
		pf.inline_depth = (uint16_t)(j > UINT16_MAX ? UINT16_MAX : j);
		pf.kind = kind_of(f, ember_prof_s(b->p, name, NULL));
		if (line)
			b->p->flags |= EMBER_PROF_HAS_LINES;
		b->pf[b->npf++] = ember_prof_frame(b->p, &pf);
	}
}

/* Marks the main program: the mapping of a file that is not a shared
 * library (nor "[...]") with the most frames. */
static void mark_main(struct ember_prof *p)
{
	size_t *hits = ember_xcalloc(p->nmaps + 1, sizeof(*hits)), best = 0;
	uint32_t main = EMBER_PROF_NONE;

	for (size_t i = 0; i < p->nframes; i++)
		if (p->frames[i].mapping != EMBER_PROF_NONE)
			hits[p->frames[i].mapping]++;
	for (size_t i = 0; i < p->nmaps; i++) {
		const char *s = ember_prof_s(p, p->maps[i].path, NULL);
		const char *base = strrchr(s, '/');
		base = base ? base + 1 : s;
		if (p->maps[i].kernel || s[0] == '[' || strstr(base, ".so"))
			continue;
		if (hits[i] > best) {
			best = hits[i];
			main = (uint32_t)i;
		}
	}
	if (main != EMBER_PROF_NONE)
		p->maps[main].is_main = 1;
	free(hits);
}

void rec_prof_build(struct rec_events *r, struct rec_symctx *sc,
		    const struct ember_intern *names, rec_prof_names_fn fn,
		    void *ctx, int lines, double epoch_offset)
{
	struct build b;
	size_t nf = r->frames.n;

	if (!r->prof)
		return;
	memset(&b, 0, sizeof(b));
	b.r = r;
	b.p = &r->prof->p;
	b.sc = sc;
	b.names = names;
	b.off = ember_xcalloc(nf ? nf : 1, sizeof(*b.off));
	b.len = ember_xcalloc(nf ? nf : 1, sizeof(*b.len));
	for (size_t i = 0; i < nf; i++)
		b.len[i] = UINT32_MAX;
	b.nstr = ember_intern_count(names) + 1;
	b.str = ember_xcalloc(b.nstr, sizeof(*b.str));
	b.dmaps = ember_xcalloc(r->world.ndsos + 1, sizeof(*b.dmaps));
	b.ndmaps = ember_xcalloc(r->world.ndsos + 1, sizeof(*b.ndmaps));
	b.lmod = ember_xcalloc(r->world.ndsos + 1, sizeof(*b.lmod));
	ember_buf_init(&b.rec, 256);
	if (lines)
		b.lines = ember_inliner_new(EMBER_INLINE_CONTEXT |
					    EMBER_INLINE_PATHS);
	b.klo = UINT64_MAX;
	for (size_t i = 0; i < nf; i++) {
		const struct rec_frame *f = &r->frames.v[i];
		if (f->kind != REC_FRAME_KERNEL)
			continue;
		if (f->addr < b.klo)
			b.klo = f->addr;
		if (f->addr >= b.khi)
			b.khi = f->addr + 1;
	}
	frame_sources(&b);
	size_t ns = r->stacks.n;
	uint32_t *map = ember_xcalloc(ns ? ns : 1, sizeof(*map));
	for (size_t i = 0; i < ns; i++) {
		size_t n;
		const uint32_t *f = ember_stacks_frames(&r->stacks, i, &n);
		uint32_t s = EMBER_PROF_NONE;
		for (size_t j = 0; j < n; j++) {
			if (b.len[f[j]] == UINT32_MAX) {
				size_t nn;
				const uint32_t *ids = fn(ctx, f[0], f[j], &nn);
				build_frame(&b, f[j], ids, ids ? nn : 0);
			}
			for (uint32_t k = 0; k < b.len[f[j]]; k++)
				s = ember_prof_stack(b.p, s,
						     b.pf[b.off[f[j]] + k]);
		}
		map[i] = s;
	}
	ember_prof_remap(b.p, map, ns);
	if (nf)
		b.p->flags |= EMBER_PROF_HAS_ADDRESSES;
	mark_main(b.p);
	ember_prof_finish(b.p);
	if (epoch_offset > 0 && b.p->n)
		b.p->start_ns =
		    (int64_t)((double)b.p->time_zero + epoch_offset * 1e9);
	free(map);
	for (size_t i = 0; i <= r->world.ndsos; i++)
		free(b.dmaps[i]);
	free(b.dmaps);
	free(b.ndmaps);
	free(b.lmod);
	free(b.off);
	free(b.len);
	free(b.pf);
	free(b.src);
	free(b.str);
	ember_buf_release(&b.rec);
	ember_inliner_free(b.lines);
}

struct named {
	const uint32_t *ids;
	const size_t *off;
};

static const uint32_t *named_frame(void *ctx, uint32_t root, uint32_t f,
				   size_t *n)
{
	const struct named *nm = ctx;

	(void)root;
	*n = nm->off[f + 1] - nm->off[f];
	return nm->ids + nm->off[f];
}

void rec_prof_build_ids(struct rec_events *r, struct rec_symctx *sc,
			const struct ember_intern *names, const uint32_t *ids,
			const size_t *off)
{
	struct named nm = {ids, off};

	rec_prof_build(r, sc, names, named_frame, &nm, 1,
		       r->world.clock_offset);
}
