/*
 * Interpreter frames merged into native stacks.  The BPF program reads a
 * thread's interpreter frames in the kernel's overflow handler of a
 * sample, just before (or after) the kernel writes the perf sample: the
 * two share the task and differ in time by the program's run.  So the
 * program's records wait per tid, and a sample takes the record of its
 * tid nearest in time (within MATCH_NS); records older than that by the
 * time a later sample of the thread comes are dropped, since samples come
 * in time order.
 *
 * The merge: interpreter frames come innermost first and fall into runs,
 * one per activation of the eval loop (the runtime's boundary frames end
 * a run); native frames come root first.  The k-th eval loop frame from
 * the leaf gets the k-th run from the innermost, so that an interpreter
 * calling C calling the interpreter keeps its order.  An eval frame left
 * without a run keeps its native name; runs left without an eval frame
 * (a native walk cut short) go on top of the stack's root side.  JIT
 * frames of the process (CPython's perf trampolines) are dropped where
 * the interpreter's frames came: they name the same functions.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "perf/events.h"
#include "perf/interp.h"

#define MATCH_NS 1000000 /* 1 ms */
#define PENDING	 4096	 /* records waiting per thread, at most */

/* A thread's records in time order: a ring of s[(head + i) & (alloc -
 * 1)], i < n. */
struct pending {
	struct ember_interp_sample **s;
	int tid;
	uint32_t head, n, alloc;
};

struct eval_state {
	uint8_t known, yes;
	uint64_t lo, hi;
};

struct rec_interp_merge {
	struct rec_interp_proc **procs; /* by process instance id */
	size_t nprocs;
	struct rec_interp_proc **early; /* by pid, instance not yet seen */
	size_t nearly;
	struct pending *pend; /* open addressing by tid */
	size_t pmask, pused;
	struct eval_state *dsos; /* by dso id */
	size_t ndsos;
	struct ember_intern names;
	struct rec_interp_stats st;
	uint32_t runs[EMBER_INTERP_MAX_FRAMES + 1]; /* run starts */
	uint32_t tmp[2048 + 2 * EMBER_INTERP_MAX_FRAMES];
};

struct rec_interp_merge *rec_interp_merge_new(void)
{
	struct rec_interp_merge *m = ember_xcalloc(1, sizeof(*m));

	ember_intern_init(&m->names);
	m->pmask = 255;
	m->pend = ember_xcalloc(m->pmask + 1, sizeof(*m->pend));
	return m;
}

void rec_interp_merge_free(struct rec_interp_merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nprocs; i++)
		rec_interp_proc_free(m->procs[i]);
	free(m->procs);
	for (size_t i = 0; i < m->nearly; i++)
		rec_interp_proc_free(m->early[i]);
	free(m->early);
	for (size_t i = 0; i <= m->pmask; i++) {
		struct pending *p = &m->pend[i];
		for (uint32_t k = 0; k < p->n; k++)
			free(p->s[(p->head + k) & (p->alloc - 1)]);
		free(p->s);
	}
	free(m->pend);
	free(m->dsos);
	ember_intern_release(&m->names);
	free(m);
}

void rec_interp_merge_add_proc(struct rec_interp_merge *m, uint32_t p_id,
			       struct rec_interp_proc *ip)
{
	if (p_id >= m->nprocs) {
		size_t n = (size_t)p_id + 1;
		m->procs = ember_xrealloc(m->procs, n * sizeof(*m->procs));
		memset(m->procs + m->nprocs, 0,
		       (n - m->nprocs) * sizeof(*m->procs));
		m->nprocs = n;
	}
	rec_interp_proc_free(m->procs[p_id]);
	m->procs[p_id] = ip;
	/* a new file may be some process's eval loop */
	if (m->dsos)
		memset(m->dsos, 0, m->ndsos * sizeof(*m->dsos));
}

void rec_interp_merge_add_pid(struct rec_interp_merge *m, int pid,
			      struct rec_interp_proc *ip)
{
	for (size_t i = 0; i < m->nearly; i++)
		if (m->early[i]->pid == pid) {
			rec_interp_proc_free(m->early[i]);
			m->early[i] = ip;
			return;
		}
	m->early =
	    ember_xrealloc(m->early, (m->nearly + 1) * sizeof(*m->early));
	m->early[m->nearly++] = ip;
}

int rec_interp_merge_has_pid(const struct rec_interp_merge *m, int pid)
{
	for (size_t i = 0; i < m->nearly; i++)
		if (m->early[i]->pid == pid)
			return 1;
	return 0;
}

/* Whether p maps the file of ip's eval loop (not the image its pid ran
 * before an exec). */
static int maps_eval(const struct rec_proc *p, const struct rec_interp_proc *ip)
{
	for (size_t i = 0; ip->eval.path && i < p->nmaps; i++) {
		const struct rec_dso *d = p->maps[i].dso;
		if (d && d->path && !strcmp(d->path, ip->eval.path))
			return 1;
	}
	return 0;
}

/* The interpreter of process instance p, adopting one found early. */
static struct rec_interp_proc *proc_of(struct rec_interp_merge *m,
				       const struct rec_proc *p)
{
	uint32_t p_id = p->id;
	int pid = p->pid;
	struct rec_interp_proc *ip = rec_interp_merge_proc(m, p_id);

	if (ip || !m->nearly)
		return ip;
	for (size_t i = 0; i < m->nearly; i++) {
		if (m->early[i]->pid != pid || !maps_eval(p, m->early[i]))
			continue;
		ip = m->early[i];
		m->early[i] = m->early[--m->nearly];
		rec_interp_merge_add_proc(m, p_id, ip);
		return ip;
	}
	return NULL;
}

struct rec_interp_proc *rec_interp_merge_proc(struct rec_interp_merge *m,
					      uint32_t p_id)
{
	return p_id < m->nprocs ? m->procs[p_id] : NULL;
}

const struct rec_interp_stats *
rec_interp_merge_stats(const struct rec_interp_merge *m)
{
	return &m->st;
}

const char *rec_interp_merge_name(const struct rec_interp_merge *m,
				  uint32_t obj, size_t *len)
{
	return ember_intern_str(&m->names, obj, len);
}

static struct pending *pend_slot(struct rec_interp_merge *m, int tid, int add)
{
	size_t i = ((uint32_t)tid * 0x9e3779b9u) & m->pmask;

	for (; m->pend[i].n || m->pend[i].tid; i = (i + 1) & m->pmask)
		if (m->pend[i].tid == tid)
			return &m->pend[i];
	if (!add)
		return NULL;
	if ((m->pused + 1) * 2 > m->pmask) {
		struct pending *old = m->pend;
		size_t omask = m->pmask;
		m->pmask = omask * 2 + 1;
		m->pend = ember_xcalloc(m->pmask + 1, sizeof(*m->pend));
		for (size_t k = 0; k <= omask; k++) {
			if (!old[k].tid && !old[k].n)
				continue;
			size_t j =
			    ((uint32_t)old[k].tid * 0x9e3779b9u) & m->pmask;
			while (m->pend[j].n || m->pend[j].tid)
				j = (j + 1) & m->pmask;
			m->pend[j] = old[k];
		}
		free(old);
		return pend_slot(m, tid, 1);
	}
	m->pused++;
	m->pend[i].tid = tid;
	return &m->pend[i];
}

void rec_interp_merge_add(struct rec_interp_merge *m, const void *data,
			  size_t size)
{
	const size_t head = offsetof(struct ember_interp_sample, frames);
	struct ember_interp_sample s;

	if (size < head)
		return;
	memcpy(&s, data, head);
	if ((s.flags & EMBER_INTERP_ASK) ||
	    s.nframes > EMBER_INTERP_MAX_FRAMES ||
	    size < head + s.nframes * sizeof(struct ember_interp_frame) ||
	    !s.tid)
		return;
	size = head + s.nframes * sizeof(struct ember_interp_frame);
	struct pending *p = pend_slot(m, (int)s.tid, 1);
	if (p->n == PENDING) {
		free(p->s[p->head]);
		p->head = (p->head + 1) & (p->alloc - 1);
		p->n--;
	}
	if (p->n == p->alloc) {
		uint32_t na = p->alloc ? p->alloc * 2 : 16;
		struct ember_interp_sample **v = ember_xcalloc(na, sizeof(*v));
		for (uint32_t k = 0; k < p->n; k++)
			v[k] = p->s[(p->head + k) & (p->alloc - 1)];
		free(p->s);
		p->s = v;
		p->head = 0;
		p->alloc = na;
	}
	void *c = ember_xmalloc(size);
	memcpy(c, data, size);
	p->s[(p->head + p->n++) & (p->alloc - 1)] = c;
}

/* The record of tid's sample at time t, taken out (free it), or NULL.
 * Older records had no sample (it was lost, or not of this event). */
static struct ember_interp_sample *take(struct rec_interp_merge *m, int tid,
					uint64_t t)
{
	struct pending *p = pend_slot(m, tid, 0);

	while (p && p->n) {
		struct ember_interp_sample *s = p->s[p->head];
		if (s->time > t + MATCH_NS)
			return NULL; /* a later sample's */
		p->head = (p->head + 1) & (p->alloc - 1);
		p->n--;
		if (s->time + MATCH_NS >= t)
			return s;
		free(s);
	}
	return NULL;
}

/* Whether frame id is an eval loop frame of the process's interpreter. */
static int is_eval(struct rec_interp_merge *m, struct rec_events *ev,
		   const struct rec_interp_proc *ip, uint32_t id)
{
	const struct rec_frame *f = &ev->frames.v[id];

	if (f->kind != REC_FRAME_DSO)
		return 0;
	if (f->obj >= m->ndsos) {
		size_t n = ev->world.ndsos > f->obj ? ev->world.ndsos
						    : (size_t)f->obj + 1;
		m->dsos = ember_xrealloc(m->dsos, n * sizeof(*m->dsos));
		memset(m->dsos + m->ndsos, 0,
		       (n - m->ndsos) * sizeof(*m->dsos));
		m->ndsos = n;
	}
	struct eval_state *e = &m->dsos[f->obj];
	if (!e->known) {
		const struct rec_dso *d = ev->world.dsos[f->obj];
		e->known = 1;
		e->yes = ip->eval.path && !strcmp(d->path, ip->eval.path);
		e->lo = ip->eval.lo;
		e->hi = ip->eval.hi;
	}
	return e->yes && f->addr >= e->lo && f->addr < e->hi;
}

static uint32_t frame_id(struct rec_interp_merge *m, struct rec_events *ev,
			 struct rec_interp_proc *ip,
			 const struct ember_interp_frame *f)
{
	size_t len;
	uint32_t line;
	const char *s = rec_interp_frame_name(ip, f, &len, &line);

	if (!s) {
		m->st.unnamed++;
		s = ip->ops == &rec_interp_cpython ? "py::[unknown]"
						   : "[unknown]";
		len = strlen(s);
	}
	uint32_t name = ember_intern(&m->names, s, len);
	/* one frame per line executed (the folded name is the same) */
	uint64_t at =
	    line | (uint64_t)(uint32_t)(f->firstlineno > 0 ? f->firstlineno : 0)
		       << 32;
	return rec_frames_id(&ev->frames, REC_FRAME_INTERP, name, at);
}

size_t rec_interp_merge_stack(struct rec_events *ev, struct rec_proc *p,
			      int tid, uint64_t time, uint32_t *ids,
			      size_t from, size_t n)
{
	struct rec_interp_merge *m = ev->interp;
	struct rec_interp_proc *ip = proc_of(m, p);

	if (!ip)
		return n;
	m->st.samples++;
	size_t nev = 0;
	for (size_t i = from; i < n; i++)
		nev += is_eval(m, ev, ip, ids[i]);
	m->st.eval += nev != 0;
	struct ember_interp_sample *s = take(m, tid, time);
	if (!s) {
		m->st.unmatched++;
		return n;
	}
	/* runs of frames, innermost first: run r is frames
	 * [runs[r], runs[r + 1]) minus boundary markers */
	size_t nruns = 0;
	m->runs[nruns++] = 0;
	for (uint32_t i = 0; i < s->nframes; i++) {
		int b = ip->ops->boundary(ip, &s->frames[i]);
		if (b == 2 && i + 1 < s->nframes) /* the run ends after it */
			m->runs[nruns++] = i + 1;
		else if (b == 1 && i + 1 < s->nframes)
			m->runs[nruns++] = i + 1; /* the marker ends it */
	}
	m->runs[nruns] = s->nframes;
	if (nruns != nev)
		m->st.mismatched++;
	/* rebuild ids[from, n): root first; eval frame j (from the root)
	 * is run nev - 1 - j */
	size_t k = 0, j = 0, max = sizeof(m->tmp) / sizeof(*m->tmp);
	int any = 0;
#define PUT_RUN(r)                                                             \
	do {                                                                   \
		for (uint32_t q = m->runs[(r) + 1]; q-- > m->runs[r];) {       \
			if (ip->ops->boundary(ip, &s->frames[q]) == 1)         \
				continue;                                      \
			if (k < max)                                           \
				m->tmp[k++] =                                  \
				    frame_id(m, ev, ip, &s->frames[q]);        \
			any = 1;                                               \
		}                                                              \
	} while (0)
	size_t i = from;
	/* leftover outer runs: after a truncation marker or the root */
	if (i < n && ev->frames.v[ids[i]].kind == REC_FRAME_TRUNCATED)
		m->tmp[k++] = ids[i++];
	for (size_t r = nruns; r-- > nev;)
		PUT_RUN(r);
	for (; i < n; i++) {
		const struct rec_frame *f = &ev->frames.v[ids[i]];
		if (is_eval(m, ev, ip, ids[i])) {
			size_t r = nev - 1 - j++;
			size_t before = k;
			if (r < nruns)
				PUT_RUN(r);
			if (k == before && k < max)
				m->tmp[k++] = ids[i];
			continue;
		}
		if (f->kind == REC_FRAME_JIT && s->nframes)
			continue;
		if (k < max)
			m->tmp[k++] = ids[i];
	}
#undef PUT_RUN
	free(s);
	if (!any)
		return n;
	m->st.merged++;
	m->st.eval_merged += nev != 0;
	if (k > n - from + EMBER_INTERP_MAX_FRAMES)
		k = n - from + EMBER_INTERP_MAX_FRAMES;
	memcpy(ids + from, m->tmp, k * sizeof(*ids));
	return from + k;
}
