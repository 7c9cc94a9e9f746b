/*
 * Trace events (Chrome's Trace Event Format, JSON): `chrome-tracing` as
 * FlameGraph's stackcollapse-chrome-tracing.py folds it, and `chrome`,
 * ember's own reading of the same input.
 *
 * Complete events ("ph":"X", with "dur") are kept per thread; `chrome`
 * also pairs begin/end events ("B"/"E") on a thread into such spans.
 * Once every input is read, each thread's spans are sorted by start and
 * nested: a span lies inside the one below it on the stack until that
 * one ends; each span's self time (its duration less its children's) is
 * added to the stack of names that leads to it.  Weights are
 * microseconds, as the format's timestamps are.
 *
 * chrome-tracing keeps the script's ways: threads in the order the first
 * span of each appears, keyed by the script's Cantor pairing of tid and
 * pid (two threads whose pairing is equal are one); spans that start
 * together in input order (a longer one second has negative self time);
 * names joined by ';' as they are (a ';' in a name splits it); the
 * output in first-seen order with Python's float printing.  `chrome`
 * puts the longer of two spans that start together outside, makes ';'
 * in names ':', and sorts its output as every other format does.
 *
 * `chrome` also reads the CPU profiles that Chrome and Node.js put in
 * traces (Profile and ProfileChunk events: V8's samples of a thread,
 * with time deltas; or one CpuProfile event with the whole profile, the
 * older form), as a .cpuprofile is read (v8prof.c): each sample's stack
 * weighs the time until the next sample, in microseconds.  When a writer
 * wants the sample-level profile, the samples go into it per thread
 * (named by the thread_name and process_name metadata events) at their
 * times, and each span's self time as a sample at the span's start.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "v8prof.h"

enum { F_PH, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, NFIELD };
static const char *const field_names[NFIELD] = {"ph", "name", "pid", "tid",
						"ts", "dur",  "id"};

struct field {
	enum cl_jtype type; /* CJ_END: absent */
	double num;
	size_t off, len; /* a string's or number's text, in ev_text */
};

struct span {
	double ts, dur;
	uint32_t name; /* interned whole name */
	uint32_t seq;
};

struct thread {
	double key; /* chrome-tracing: the Cantor pairing */
	int64_t pid, tid;
	struct span *sp;
	size_t n, alloc;
	size_t *open; /* chrome: "B" spans not ended yet */
	size_t nopen, aopen;
};

/* A node of a CPU profile, as its event gave it (url: in strs). */
struct pnode {
	struct cl_v8node v;
	int has_id;
};

/* A CPU profile: the Profile event and its chunks (pid, id), or a
 * CpuProfile event (id: NO_ID). */
struct cpuprof {
	int64_t pid, tid;
	uint32_t id; /* in strs */
	double start;
	int has_start;
	struct pnode *nodes;
	size_t nnodes, anodes;
	double *kids; /* the nodes' children's ids */
	size_t nkids, akids;
	double *samples, *deltas;
	size_t nsamples, asamples, ndeltas, adeltas;
};

#define NO_ID UINT32_MAX

/* A thread_name (tid >= 0) or process_name (tid -1) metadata event. */
struct tname {
	int64_t pid, tid;
	uint32_t name; /* in strs */
};

struct tstate {
	struct collapse_sink *k;
	int compat; /* chrome-tracing */
	struct cl_json *j;
	int top;      /* the document is an object (1) or array (2) */
	int ev_depth; /* the depth of events, 0: not in the list */
	int in_list;  /* inside the events' array */
	int listed;   /* an object's "traceEvents" was seen */
	int nodes;    /* an object's "nodes": a .cpuprofile, not a trace */
	int in_event; /* the value at ev_depth is an object */
	struct field f[NFIELD];
	struct ember_buf ev_text;
	struct thread *th;
	size_t nth, ath;
	uint32_t *slots; /* thread + 1 by key, open addressing */
	size_t mask;
	uint32_t seq;
	/* names: whole name id -> run of frame ids (compat: split at ';') */
	struct ember_intern whole;
	uint32_t *frames_of; /* per whole id: offset into fids, then count */
	size_t afr;
	uint32_t *fids;
	size_t nfids, afids;
	uint64_t events, unmatched, unended, bad;
	struct ember_buf tmp;
	/* chrome: the event's args (pk: what the containers at each depth
	 * below the event are), the CPU profiles, the names of threads */
	int pk[9];
	struct pnode *en;
	size_t nen, aen;
	double *es, *ed, *ek;
	size_t nes, aes, ned, aed, nek, aek;
	double estart, eline;
	int has_estart, has_ename;
	int ed_from; /* the deltas' place: 0 none, P_DATA, P_CP */
	struct ember_buf efn, eurl, ename;
	struct ember_intern strs;
	struct cpuprof *cp;
	size_t ncp, acp;
	struct tname *tn;
	size_t ntn, atn;
	uint64_t short_chunks, bad_profiles;
	uint32_t *frame_of; /* per name id: the span's profile frame + 1 */
	size_t afo;
};

static void *state_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k, int compat)
{
	struct tstate *s = ember_xcalloc(1, sizeof(*s));

	s->k = k;
	s->compat = compat;
	ember_buf_init(&s->ev_text, 256);
	ember_buf_init(&s->tmp, 256);
	ember_intern_init(&s->whole);
	ember_intern_init(&s->strs);
	ember_buf_init(&s->efn, 64);
	ember_buf_init(&s->eurl, 64);
	ember_buf_init(&s->ename, 64);
	s->mask = 63;
	s->slots = ember_xcalloc(s->mask + 1, sizeof(*s->slots));
	return s;
}

static void *chrome_new(const struct ember_collapse_options *o,
			struct collapse_sink *k)
{
	return state_new(o, k, 0);
}

static void *tracing_new(const struct ember_collapse_options *o,
			 struct collapse_sink *k)
{
	return state_new(o, k, 1);
}

static void state_free(void *st)
{
	struct tstate *s = st;

	cl_json_free(s->j);
	for (size_t i = 0; i < s->nth; i++) {
		free(s->th[i].sp);
		free(s->th[i].open);
	}
	free(s->th);
	free(s->slots);
	ember_intern_release(&s->whole);
	ember_intern_release(&s->strs);
	ember_buf_release(&s->efn);
	ember_buf_release(&s->eurl);
	ember_buf_release(&s->ename);
	free(s->en);
	free(s->es);
	free(s->ed);
	free(s->ek);
	for (size_t i = 0; i < s->ncp; i++) {
		free(s->cp[i].nodes);
		free(s->cp[i].kids);
		free(s->cp[i].samples);
		free(s->cp[i].deltas);
	}
	free(s->cp);
	free(s->tn);
	free(s->frame_of);
	free(s->frames_of);
	free(s->fids);
	ember_buf_release(&s->ev_text);
	ember_buf_release(&s->tmp);
	free(s);
}

static int fail(struct tstate *s, const char *fmt, ...) EMBER_PRINTF(2, 3);
static int fail(struct tstate *s, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cl_json_fail(s->j, "%s", msg);
	return -1;
}

/* ---- threads ---- */

static uint64_t thread_hash(const struct tstate *s, double key, int64_t pid,
			    int64_t tid)
{
	if (s->compat) {
		if (key == 0)
			key = 0; /* -0.0 is 0.0, as for a dict */
		return ember_hash(&key, sizeof(key));
	}
	int64_t v[2] = {pid, tid};
	return ember_hash(v, sizeof(v));
}

static int same_thread(const struct tstate *s, const struct thread *t,
		       double key, int64_t pid, int64_t tid)
{
	return s->compat ? t->key == key : t->pid == pid && t->tid == tid;
}

static struct thread *thread(struct tstate *s, double key, int64_t pid,
			     int64_t tid)
{
	size_t i = thread_hash(s, key, pid, tid) & s->mask;

	for (; s->slots[i]; i = (i + 1) & s->mask) {
		struct thread *t = &s->th[s->slots[i] - 1];
		if (same_thread(s, t, key, pid, tid))
			return t;
	}
	EMBER_GROW(s->th, s->nth + 1, s->ath);
	struct thread *t = &s->th[s->nth];
	memset(t, 0, sizeof(*t));
	t->key = key;
	t->pid = pid;
	t->tid = tid;
	s->slots[i] = (uint32_t)++s->nth;
	if (s->nth * 2 > s->mask) {
		size_t mask = s->mask * 2 + 1;
		uint32_t *slots = ember_xcalloc(mask + 1, sizeof(*slots));
		for (size_t e = 0; e < s->nth; e++) {
			const struct thread *u = &s->th[e];
			size_t h =
			    thread_hash(s, u->key, u->pid, u->tid) & mask;
			while (slots[h])
				h = (h + 1) & mask;
			slots[h] = (uint32_t)e + 1;
		}
		free(s->slots);
		s->slots = slots;
		s->mask = mask;
	}
	return t;
}

/* ---- the fields of one event ---- */

static const char *ftext(const struct tstate *s, const struct field *f)
{
	return s->ev_text.buf + f->off;
}

/* Python's int(x) of a JSON value: 0, or -1 with what is wrong. */
static int py_int(const struct tstate *s, const struct field *f, int64_t *v,
		  const char **why)
{
	const char *p = ftext(s, f);
	char *end;

	if (f->type == CJ_BOOL) {
		*v = (int64_t)f->num;
		return 0;
	}
	if (f->type == CJ_NUM) {
		/* an integer as written, else a float truncated */
		errno = 0;
		long long x = strtoll(p, &end, 10);
		if (end == p + f->len && !errno) {
			*v = x;
			return 0;
		}
		if (isfinite(f->num) && fabs(f->num) < 9.2e18) {
			*v = (int64_t)f->num;
			return 0;
		}
		*why = "is out of range";
		return -1;
	}
	if (f->type == CJ_STR) {
		/* int("7"), int(" 7 "), int("+7"), int("1_000") */
		struct ember_buf *b = (struct ember_buf *)&s->tmp;
		ember_buf_reset(b);
		size_t i = 0, n = f->len;
		while (i < n && cl_space((unsigned char)p[i]))
			i++;
		while (n > i && cl_space((unsigned char)p[n - 1]))
			n--;
		if (i < n && (p[i] == '+' || p[i] == '-'))
			ember_buf_addch(b, p[i++]);
		int digits = 0;
		for (; i < n; i++) {
			if (cl_digit((unsigned char)p[i])) {
				ember_buf_addch(b, p[i]);
				digits++;
			} else if (p[i] == '_' && digits && i + 1 < n &&
				   cl_digit((unsigned char)p[i + 1])) {
				continue;
			} else {
				break;
			}
		}
		if (i == n && digits) {
			errno = 0;
			long long x = strtoll(b->buf, &end, 10);
			if (!errno) {
				*v = x;
				return 0;
			}
			*why = "is out of range";
			return -1;
		}
	}
	*why = "is not an integer";
	return -1;
}

/* Python's float(x) of a JSON value. */
static int py_float(const struct tstate *s, const struct field *f, double *v)
{
	if (f->type == CJ_NUM || f->type == CJ_BOOL) {
		*v = f->num;
		return 0;
	}
	if (f->type == CJ_STR && f->len && f->len < 64 &&
	    !memchr(ftext(s, f), '\0', f->len)) {
		char buf[64], *end;
		const char *p = ftext(s, f);
		size_t i = 0, n = f->len;
		while (i < n && cl_space((unsigned char)p[i]))
			i++;
		while (n > i && cl_space((unsigned char)p[n - 1]))
			n--;
		memcpy(buf, p + i, n - i);
		buf[n - i] = '\0';
		/* strtod also takes hex and "infinity"'s cousins: Python
		 * takes only decimal, inf, infinity and nan */
		if (n > i && !strpbrk(buf, "xX")) {
			*v = strtod(buf, &end);
			if (end == buf + (n - i))
				return 0;
		}
	}
	return -1;
}

static int is_lit(const struct tstate *s, const struct field *f,
		  const char *lit)
{
	size_t n = strlen(lit);
	return f->type == CJ_STR && f->len == n && !memcmp(ftext(s, f), lit, n);
}

/* The frames of a name: interned once per distinct name. */
static uint32_t name_id(struct tstate *s, const char *p, size_t n)
{
	size_t before = ember_intern_count(&s->whole);
	uint32_t w = ember_intern(&s->whole, p, n);

	if (w < before)
		return w;
	EMBER_GROW(s->frames_of, 2 * ((size_t)w + 1), s->afr);
	s->frames_of[2 * w] = (uint32_t)s->nfids;
	uint32_t count = 0;
	if (s->compat) {
		/* "a;b" is two frames in the script's joined string */
		const char *q = p, *end = p + n;
		for (;;) {
			const char *semi = memchr(q, ';', (size_t)(end - q));
			const char *stop = semi ? semi : end;
			EMBER_GROW(s->fids, s->nfids + 1, s->afids);
			s->fids[s->nfids++] =
			    ember_intern(&s->k->names, q, (size_t)(stop - q));
			count++;
			if (!semi)
				break;
			q = semi + 1;
		}
	} else {
		ember_buf_reset(&s->tmp);
		ember_buf_add(&s->tmp, p, n);
		for (size_t i = 0; i < n; i++)
			if (s->tmp.buf[i] == ';')
				s->tmp.buf[i] = ':';
		EMBER_GROW(s->fids, s->nfids + 1, s->afids);
		s->fids[s->nfids++] = ember_intern(&s->k->names, s->tmp.buf, n);
		count = 1;
	}
	s->frames_of[2 * w + 1] = count;
	return w;
}

static void add_span(struct thread *t, struct tstate *s, double ts, double dur,
		     uint32_t name)
{
	EMBER_GROW(t->sp, t->n + 1, t->alloc);
	t->sp[t->n++] = (struct span){ts, dur, name, s->seq++};
}

/* One event, its fields gathered: as the script takes it. */
static int event_compat(struct tstate *s)
{
	struct field *f = s->f;
	int64_t tid, pid;
	double ts, dur;
	const char *why;

	if (f[F_PH].type == CJ_END)
		return fail(s, "an event has no %s", "\"ph\"");
	if (!is_lit(s, &f[F_PH], "X"))
		return 0;
	if (f[F_TID].type == CJ_END || f[F_PID].type == CJ_END)
		return fail(s, "an \"X\" event has no %s",
			    f[F_TID].type == CJ_END ? "\"tid\"" : "\"pid\"");
	if (py_int(s, &f[F_TID], &tid, &why))
		return fail(s, "an event's \"tid\" %s", why);
	if (py_int(s, &f[F_PID], &pid, &why))
		return fail(s, "an event's \"pid\" %s", why);
	if (f[F_DUR].type == CJ_END)
		return 0;
	if (f[F_NAME].type != CJ_STR)
		return fail(s, "an \"X\" event %s",
			    f[F_NAME].type == CJ_END ? "has no \"name\""
						     : "has a \"name\" that "
						       "is not a string");
	if (f[F_TS].type == CJ_END || py_float(s, &f[F_TS], &ts))
		return fail(s, "an \"X\" event's %s", "\"ts\" is no number");
	if (py_float(s, &f[F_DUR], &dur))
		return fail(s, "an \"X\" event's %s", "\"dur\" is no number");
	/* the script's cantor_pairing(tid, pid): s * (s + 1) / 2 + pid,
	 * the division a float's */
	__int128 sum = (__int128)tid + pid;
	__int128 half = sum * (sum + 1) / 2;
	double key = (double)half + (double)pid;
	struct thread *t = thread(s, key, 0, 0);
	add_span(t, s, ts, dur,
		 name_id(s, ftext(s, &f[F_NAME]), f[F_NAME].len));
	return 0;
}

/* ---- CPU profiles: Profile and ProfileChunk events ---- */

/*
 * Chrome's (and V8's) sampled CPU profile inside a trace: a "Profile"
 * event (ph "P", an id, args.data.startTime) on the profiled thread,
 * then "ProfileChunk" events of the same pid and id, each with more
 * nodes (id, parent, callFrame), samples (the node each hit) and
 * args.data.timeDeltas (microseconds from the sample before).  Or, as
 * Chrome wrote before ProfileChunk (and DevTools makes of a
 * .cpuprofile), one "CpuProfile" event (ph "I", "P" or "X") with the
 * whole profile in args.data.cpuProfile: nodes (with children or
 * parent), samples, startTime, endTime, and timeDeltas there or in
 * args.data.  An event's args are gathered as they come (its ph and
 * name may follow them) and kept once the event turns out to be one of
 * those.
 */
enum {
	P_NONE,
	P_ARGS,
	P_DATA,
	P_CP,
	P_TD,
	P_NODES,
	P_SAMPLES,
	P_NODE,
	P_CF,
	P_KIDS,
	P_CPTD
};

static void pnode_start(struct tstate *s)
{
	EMBER_GROW(s->en, s->nen + 1, s->aen);
	memset(&s->en[s->nen], 0, sizeof(s->en[0]));
	s->en[s->nen].v.child_off = s->nek;
	ember_buf_reset(&s->efn);
	ember_buf_reset(&s->eurl);
	s->eline = -1;
}

/* The node's name as a .cpuprofile's: "function url:line". */
static void pnode_end(struct tstate *s)
{
	struct pnode *n = &s->en[s->nen];

	if (!n->has_id) {
		s->nek = n->v.child_off; /* its children go with it */
		return;
	}
	cl_v8_name(&n->v, s->k, &s->strs, &s->tmp, s->efn.buf, s->efn.len,
		   s->eurl.buf, s->eurl.len, s->eline);
	n->v.nchild = s->nek - n->v.child_off;
	s->nen++;
}

static int pnum(const struct cl_jval *v, double *x)
{
	if (v->type != CJ_NUM || !isfinite(v->num))
		return 0;
	*x = v->num;
	return 1;
}

/* A value inside an event (rel: its depth below the event's). */
static void prof_value(struct tstate *s, const struct cl_jval *v, int rel)
{
	int code = P_NONE;
	double x;

	if (rel >= (int)(sizeof(s->pk) / sizeof(s->pk[0])))
		return;
	int up = rel > 1 ? s->pk[rel - 1] : P_NONE;
	if (v->type == CJ_END) {
		if (rel == 5 && up == P_NODES && s->pk[rel] == P_NODE)
			pnode_end(s);
		return;
	}
	if (rel == 1 && cl_jkey(v, "args"))
		code = P_ARGS;
	else if (rel == 2 && up == P_ARGS && cl_jkey(v, "data"))
		code = P_DATA;
	else if (rel == 2 && up == P_ARGS && cl_jkey(v, "name") &&
		 v->type == CJ_STR) {
		ember_buf_reset(&s->ename);
		ember_buf_add(&s->ename, v->s, v->n);
		s->has_ename = 1;
	} else if (rel == 3 && up == P_DATA) {
		if (cl_jkey(v, "cpuProfile"))
			code = P_CP;
		else if (cl_jkey(v, "timeDeltas"))
			code = P_TD;
		else if (cl_jkey(v, "startTime") && pnum(v, &s->estart))
			s->has_estart = 1;
	} else if (rel == 4 && up == P_CP) {
		if (cl_jkey(v, "nodes"))
			code = P_NODES;
		else if (cl_jkey(v, "samples"))
			code = P_SAMPLES;
		else if (cl_jkey(v, "timeDeltas"))
			code = P_CPTD;
		else if (cl_jkey(v, "startTime") && !s->has_estart &&
			 pnum(v, &s->estart))
			s->has_estart = 1;
	} else if ((rel == 4 && up == P_TD) || (rel == 5 && up == P_CPTD)) {
		/* deltas in one place only (the first that has them) */
		int from = up == P_TD ? P_DATA : P_CP;
		if (pnum(v, &x) && (!s->ed_from || s->ed_from == from)) {
			s->ed_from = from;
			EMBER_GROW(s->ed, s->ned + 1, s->aed);
			s->ed[s->ned++] = x;
		}
	} else if (rel == 5 && up == P_SAMPLES && pnum(v, &x)) {
		EMBER_GROW(s->es, s->nes + 1, s->aes);
		s->es[s->nes++] = x;
	} else if (rel == 5 && up == P_NODES && v->type == CJ_OBJ) {
		code = P_NODE;
		pnode_start(s);
	} else if (rel == 6 && up == P_NODE) {
		struct pnode *n = &s->en[s->nen];
		if (cl_jkey(v, "callFrame"))
			code = P_CF;
		else if (cl_jkey(v, "children"))
			code = P_KIDS;
		else if (cl_jkey(v, "id") && pnum(v, &n->v.id))
			n->has_id = 1;
		else if (cl_jkey(v, "parent") && pnum(v, &n->v.parent_id))
			n->v.has_parent_id = 1;
	} else if (rel == 7 && up == P_KIDS) {
		if (pnum(v, &x)) {
			EMBER_GROW(s->ek, s->nek + 1, s->aek);
			s->ek[s->nek++] = x;
		}
	} else if (rel == 7 && up == P_CF) {
		if ((cl_jkey(v, "functionName") || cl_jkey(v, "url")) &&
		    v->type == CJ_STR) {
			struct ember_buf *b =
			    cl_jkey(v, "url") ? &s->eurl : &s->efn;
			ember_buf_reset(b);
			ember_buf_add(b, v->s, v->n);
		} else if (cl_jkey(v, "lineNumber")) {
			pnum(v, &s->eline);
		}
	}
	if (v->type == CJ_OBJ || v->type == CJ_ARR)
		s->pk[rel] = code;
}

static void prof_clear(struct tstate *s)
{
	s->nen = s->nes = s->ned = s->nek = 0;
	s->has_estart = s->has_ename = s->ed_from = 0;
	memset(s->pk, 0, sizeof(s->pk));
}

/* The CPU profile of (pid, id), made on first use; a CpuProfile
 * event's (whole) is always a new one. */
static struct cpuprof *cpuprof(struct tstate *s, int64_t pid, const char *id,
			       size_t n, int64_t tid, int whole)
{
	uint32_t name = whole ? NO_ID : ember_intern(&s->strs, id, n);

	for (size_t i = 0; i < s->ncp && !whole; i++)
		if (s->cp[i].pid == pid && s->cp[i].id == name)
			return &s->cp[i];
	EMBER_GROW(s->cp, s->ncp + 1, s->acp);
	struct cpuprof *c = &s->cp[s->ncp++];
	memset(c, 0, sizeof(*c));
	c->pid = pid;
	c->tid = tid;
	c->id = name;
	return c;
}

/* A Profile, ProfileChunk or CpuProfile (whole) event, its args
 * gathered. */
static void profile_event(struct tstate *s, int64_t pid, int64_t tid, int chunk,
			  int whole)
{
	struct field *f = &s->f[F_ID];
	const char *id =
	    f->type == CJ_STR || f->type == CJ_NUM ? ftext(s, f) : "";

	if (whole && (!s->nen || !s->nes)) {
		s->bad_profiles++;
		return;
	}
	struct cpuprof *c = cpuprof(s, pid, id, strlen(id), tid, whole);

	if (!chunk)
		c->tid =
		    tid; /* the profiled thread's, where chunks may not be */
	if (s->has_estart && (!chunk || !c->has_start)) {
		c->start = s->estart;
		c->has_start = 1;
	}
	if (s->nen) {
		EMBER_GROW(c->nodes, c->nnodes + s->nen, c->anodes);
		memcpy(c->nodes + c->nnodes, s->en, s->nen * sizeof(*s->en));
		for (size_t i = 0; i < s->nen; i++)
			c->nodes[c->nnodes + i].v.child_off += c->nkids;
		c->nnodes += s->nen;
	}
	if (s->nek) {
		EMBER_GROW(c->kids, c->nkids + s->nek, c->akids);
		memcpy(c->kids + c->nkids, s->ek, s->nek * sizeof(*s->ek));
		c->nkids += s->nek;
	}
	if (s->nes) {
		EMBER_GROW(c->samples, c->nsamples + s->nes, c->asamples);
		memcpy(c->samples + c->nsamples, s->es,
		       s->nes * sizeof(*s->es));
		c->nsamples += s->nes;
	}
	if (s->ned) {
		EMBER_GROW(c->deltas, c->ndeltas + s->ned, c->adeltas);
		memcpy(c->deltas + c->ndeltas, s->ed, s->ned * sizeof(*s->ed));
		c->ndeltas += s->ned;
	}
}

/* A thread_name or process_name metadata event. */
static void name_event(struct tstate *s, int64_t pid, int64_t tid, int thread)
{
	if (!s->has_ename)
		return;
	EMBER_GROW(s->tn, s->ntn + 1, s->atn);
	s->tn[s->ntn++] =
	    (struct tname){pid, thread ? tid : -1,
			   ember_intern(&s->strs, s->ename.buf, s->ename.len)};
}

static ptrdiff_t find_node(const struct cpuprof *c, double id)
{
	return cl_v8_find(c->nodes, c->nnodes, sizeof(*c->nodes), id);
}

/* The profile's thread of (pid, tid), named by the metadata events. */
static uint32_t prof_thread(struct tstate *s, struct ember_prof *p, int64_t pid,
			    int64_t tid)
{
	int ipid = pid >= INT32_MIN && pid <= INT32_MAX ? (int)pid : -1;
	int itid = tid >= INT32_MIN && tid <= INT32_MAX ? (int)tid : -1;
	uint32_t t = ember_prof_thread(p, ipid, itid);

	for (size_t i = 0; i < s->ntn; i++) {
		const struct tname *n = &s->tn[i];
		if (n->pid != pid || (n->tid >= 0 && n->tid != tid))
			continue;
		size_t len;
		const char *name = ember_intern_str(&s->strs, n->name, &len);
		uint32_t id = ember_prof_str(p, name, len);
		if (n->tid >= 0)
			p->threads[t].name = id;
		else
			p->procs[p->threads[t].process].name = id;
	}
	p->flags |= EMBER_PROF_HAS_THREADS;
	return t;
}

/* The samples' profile types, once. */
static struct ember_prof *trace_prof(struct tstate *s)
{
	struct ember_prof *p = cl_prof(s->k);

	if (p && !p->ntypes) {
		ember_prof_add_type(p, "samples", "count", 1);
		ember_prof_add_type(p, "cpu", "microseconds", 0);
		p->flags |= EMBER_PROF_HAS_TIME;
	}
	return p && p->ncols == 1 ? p : NULL;
}

/*
 * A CPU profile's samples: each at startTime plus the deltas up to it,
 * lasting until the next one (the last: the mean interval), as
 * .cpuprofile's are read (cpuprofile.c); its stack the nodes up to the
 * root, which is left out.  Into the folded stacks (microseconds) and
 * the sample-level profile.
 */
static void fold_cpuprof(struct tstate *s, struct cpuprof *c)
{
	size_t n = c->nsamples < c->ndeltas ? c->nsamples : c->ndeltas;
	struct ember_prof *p = trace_prof(s);
	uint32_t *ids = NULL, *memo = NULL, thread = EMBER_PROF_NONE;
	size_t aids = 0;

	if (c->nsamples != c->ndeltas)
		s->short_chunks++;
	if (!n)
		return;
	/* a node whose parent is itself: a root */
	for (size_t i = 0; i < c->nnodes; i++)
		if (c->nodes[i].v.parent_id == c->nodes[i].v.id)
			c->nodes[i].v.has_parent_id = 0;
	cl_v8_sort(c->nodes, c->nnodes, sizeof(*c->nodes));
	double bad_parent, bad;
	if (cl_v8_link(c->nodes, c->nnodes, sizeof(*c->nodes), c->kids,
		       &bad_parent, &bad)) {
		s->bad_profiles++;
		return;
	}
	struct cl_v8stamp *st = cl_v8_stamps(c->start, c->deltas, n, NULL);
	double mean = n > 1 ? (st[n - 1].t - st[0].t) / (double)(n - 1) : 0;
	if (p) {
		memo = ember_xcalloc(c->nnodes ? c->nnodes : 1, sizeof(*memo));
		thread = prof_thread(s, p, c->pid, c->tid);
	}
	for (size_t j = 0; j < n; j++) {
		double d = j + 1 < n ? st[j + 1].t - st[j].t : mean;
		ptrdiff_t k = find_node(c, c->samples[st[j].i]);
		if (d < 0)
			d = 0;
		if (k < 0) {
			s->bad++;
			continue;
		}
		size_t depth =
		    cl_v8_names(c->nodes, c->nnodes, sizeof(*c->nodes),
				(size_t)k, &ids, &aids);
		if (!depth || depth == SIZE_MAX)
			continue; /* the root itself, or parents in a loop */
		size_t e = ember_stacks_add(&s->k->stacks, ids, depth, 0, 0);
		cl_count(s->k, e, d, 0, 0);
		s->k->n.records++;
		if (p) {
			uint32_t sn =
			    cl_v8_stack(p, s->k, &s->strs, c->nodes, c->nnodes,
					sizeof(*c->nodes), memo, (size_t)k);
			double ns = st[j].t > 0 ? st[j].t * 1000 : 0;
			if (sn != EMBER_PROF_NONE)
				ember_prof_sample(p, (uint64_t)ns, thread, -1,
						  sn, &d);
		}
	}
	free(st);
	free(memo);
	free(ids);
}

/* One event as `chrome` takes it: X and B/E, the CPU profiles and the
 * names of threads; the rest is left alone. */
static int event_chrome(struct tstate *s)
{
	struct field *f = s->f;
	int64_t tid = 0, pid = 0;
	double ts, dur = 0;
	const char *why;
	int x = is_lit(s, &f[F_PH], "X"), b = is_lit(s, &f[F_PH], "B");
	int e = is_lit(s, &f[F_PH], "E");

	int whole = is_lit(s, &f[F_NAME], "CpuProfile") &&
		    (x || is_lit(s, &f[F_PH], "I") || is_lit(s, &f[F_PH], "P"));

	if (whole || is_lit(s, &f[F_PH], "P") || is_lit(s, &f[F_PH], "M")) {
		int chunk = is_lit(s, &f[F_NAME], "ProfileChunk");
		int thread = is_lit(s, &f[F_NAME], "thread_name");
		if ((f[F_PID].type != CJ_END &&
		     py_int(s, &f[F_PID], &pid, &why)) ||
		    (f[F_TID].type != CJ_END &&
		     py_int(s, &f[F_TID], &tid, &why)))
			return 0;
		if (whole || (is_lit(s, &f[F_PH], "P") &&
			      (chunk || is_lit(s, &f[F_NAME], "Profile"))))
			profile_event(s, pid, tid, chunk, whole);
		else if (is_lit(s, &f[F_PH], "M") &&
			 (thread || is_lit(s, &f[F_NAME], "process_name")))
			name_event(s, pid, tid, thread);
		return 0;
	}
	if (!x && !b && !e)
		return 0;
	if ((f[F_PID].type != CJ_END && py_int(s, &f[F_PID], &pid, &why)) ||
	    (f[F_TID].type != CJ_END && py_int(s, &f[F_TID], &tid, &why)) ||
	    f[F_TS].type == CJ_END || py_float(s, &f[F_TS], &ts) ||
	    (x && f[F_DUR].type != CJ_END && py_float(s, &f[F_DUR], &dur)) ||
	    ((x || b) && f[F_NAME].type != CJ_STR)) {
		s->bad++;
		return 0;
	}
	struct thread *t = thread(s, 0, pid, tid);
	if (e) {
		if (!t->nopen) {
			s->unmatched++;
			return 0;
		}
		struct span *sp = &t->sp[t->open[--t->nopen]];
		sp->dur = ts - sp->ts;
		return 0;
	}
	if (x && f[F_DUR].type == CJ_END) {
		s->bad++; /* an instant: no time to count */
		return 0;
	}
	add_span(t, s, ts, x ? dur : NAN,
		 name_id(s, ftext(s, &f[F_NAME]), f[F_NAME].len));
	if (b) {
		EMBER_GROW(t->open, t->nopen + 1, t->aopen);
		t->open[t->nopen++] = t->n - 1;
	}
	return 0;
}

static void clear_fields(struct tstate *s)
{
	for (int i = 0; i < NFIELD; i++)
		s->f[i].type = CJ_END;
	ember_buf_reset(&s->ev_text);
}

static int on_value(void *ctx, const struct cl_jval *v)
{
	struct tstate *s = ctx;

	if (v->depth == 0) {
		if (v->type == CJ_OBJ) {
			s->top = 1;
		} else if (v->type == CJ_ARR && !s->compat) {
			s->top = 2; /* a bare array of events */
			s->ev_depth = 1;
			s->in_list = 1;
		} else if (v->type != CJ_END) {
			return fail(s, "the input is not a trace: %s",
				    s->compat ? "no object with \"traceEvents\""
					      : "no object or array of events");
		}
		return 0;
	}
	if (s->top == 1 && v->depth == 1 && cl_jkey(v, "nodes"))
		s->nodes = 1;
	if (s->top == 1 && v->depth == 1 && cl_jkey(v, "traceEvents")) {
		s->listed = 1;
		if (v->type == CJ_ARR) {
			s->ev_depth = 2;
			s->in_list = 1;
		} else if (v->type == CJ_END) {
			s->in_list = 0;
		} else {
			return fail(s, "%s is not an array", "\"traceEvents\"");
		}
		return 0;
	}
	if (!s->in_list || v->depth < s->ev_depth)
		return 0;
	if (v->depth == s->ev_depth) {
		if (v->type == CJ_OBJ) {
			clear_fields(s);
			if (!s->compat)
				prof_clear(s);
			s->in_event = 1;
			return 0;
		}
		if (v->type == CJ_END && s->in_event) {
			s->in_event = 0;
			s->events++;
			s->k->n.lines++;
			return s->compat ? event_compat(s) : event_chrome(s);
		}
		if (v->type == CJ_END)
			return 0;
		if (s->compat)
			return fail(s, "an event is %s", "not an object");
		s->bad++;
		return 0;
	}
	if (!s->compat && s->in_event)
		prof_value(s, v, v->depth - s->ev_depth);
	if (v->depth != s->ev_depth + 1 || !s->in_event || !v->key ||
	    v->type == CJ_END)
		return 0;
	for (int i = 0; i < NFIELD; i++) {
		if (!cl_jkey(v, field_names[i]))
			continue;
		struct field *f = &s->f[i];
		f->type = v->type;
		f->num = v->num;
		f->off = s->ev_text.len;
		f->len = v->n;
		if (v->type == CJ_STR || v->type == CJ_NUM) {
			ember_buf_add(&s->ev_text, v->s, v->n);
			ember_buf_addch(&s->ev_text, '\0');
		}
		break;
	}
	return 0;
}

static int read_trace(void *st, struct collapse_input *in)
{
	struct tstate *s = st;

	cl_json_free(s->j);
	s->j = cl_json_new(on_value, s);
	s->top = s->ev_depth = s->in_list = s->in_event = 0;
	s->listed = s->nodes = 0;
	int rc = cl_json_read(s->j, in, s->k);
	/* an object is a trace by its "traceEvents" (a bare array is one
	 * too, but not for chrome-tracing); anything else, a .cpuprofile
	 * above all, would come out as nothing */
	if (!rc && !s->listed && (s->compat || s->top == 1)) {
		cl_fail(s->k, "the input is not a trace: %s",
			s->nodes
			    ? "no \"traceEvents\", but \"nodes\": a CPU "
			      "profile ('ember collapse cpuprofile' reads it)"
			    : "no object with \"traceEvents\"");
		rc = EMBER_EFORMAT;
	}
	return rc;
}

/* ---- nesting ---- */

static int by_start(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* chrome: of two spans that start together the longer is outside */
static int by_start_longer(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

struct open_span {
	const struct span *sp;
	double self;
	size_t nframes; /* frames below and including it */
};

/* A span's self time, also into the profile (p) as a sample of thread
 * at its start. */
static void save(struct tstate *s, const uint32_t *ids,
		 const struct open_span *top, struct ember_prof *p,
		 uint32_t thread)
{
	size_t e = ember_stacks_add(&s->k->stacks, ids, top->nframes, 0, 0);
	cl_count(s->k, e, top->self, 0, 0);
	s->k->n.records++;
	if (!p || !(top->self > 0))
		return;
	uint32_t sn = EMBER_PROF_NONE;
	for (size_t i = 0; i < top->nframes; i++) {
		uint32_t id = ids[i];
		if (id >= s->afo) {
			size_t old = s->afo;
			EMBER_GROW(s->frame_of, (size_t)id + 1, s->afo);
			memset(s->frame_of + old, 0,
			       (s->afo - old) * sizeof(*s->frame_of));
		}
		if (!s->frame_of[id]) {
			size_t len;
			const char *name =
			    ember_intern_str(&s->k->names, id, &len);
			struct ember_prof_func fn = {0};
			fn.name = fn.system_name = ember_prof_str(p, name, len);
			struct ember_prof_frame fr = {0};
			fr.mapping = EMBER_PROF_NONE;
			fr.func = ember_prof_func(p, &fn);
			fr.kind = EMBER_PROF_USER;
			s->frame_of[id] = ember_prof_frame(p, &fr) + 1;
		}
		sn = ember_prof_stack(p, sn, s->frame_of[id] - 1);
	}
	double ts = top->sp->ts > 0 ? top->sp->ts * 1000 : 0;
	double self = top->self;
	ember_prof_sample(p, (uint64_t)ts, thread, -1, sn, &self);
}

static void nest(struct tstate *s, struct thread *t)
{
	struct open_span *st = NULL;
	size_t n = 0, a = 0;
	uint32_t *ids = NULL;
	size_t aids = 0;
	struct ember_prof *p = s->compat ? NULL : trace_prof(s);
	uint32_t thread = p ? prof_thread(s, p, t->pid, t->tid) : 0;

	/* a "B" never ended lasts until the thread's last event, as
	 * speedscope and DevTools draw it (a trace stopped while a run
	 * loop ran: the spans inside it keep it as their caller) */
	if (t->nopen) {
		double last = -INFINITY;
		for (size_t i = 0; i < t->n; i++) {
			const struct span *sp = &t->sp[i];
			double end = isnan(sp->dur) ? sp->ts : sp->ts + sp->dur;
			if (end > last)
				last = end;
		}
		for (size_t i = 0; i < t->nopen; i++) {
			struct span *sp = &t->sp[t->open[i]];
			if (last > sp->ts) { /* else no time: left out */
				sp->dur = last - sp->ts;
				s->unended++;
			} else {
				s->unmatched++;
			}
		}
		t->nopen = 0;
	}
	size_t m = 0;
	for (size_t i = 0; i < t->n; i++)
		if (!isnan(t->sp[i].dur))
			t->sp[m++] = t->sp[i];
	t->n = m;
	if (t->n)
		qsort(t->sp, t->n, sizeof(*t->sp),
		      s->compat ? by_start : by_start_longer);
	for (size_t i = 0; i < t->n; i++) {
		const struct span *e = &t->sp[i];
		while (n && st[n - 1].sp->ts + st[n - 1].sp->dur <= e->ts) {
			save(s, ids, &st[n - 1], p, thread);
			n--;
		}
		if (n)
			st[n - 1].self -= e->dur;
		size_t base = n ? st[n - 1].nframes : 0;
		uint32_t off = s->frames_of[2 * e->name];
		uint32_t cnt = s->frames_of[2 * e->name + 1];
		EMBER_GROW(ids, base + cnt, aids);
		memcpy(ids + base, s->fids + off, cnt * sizeof(*ids));
		EMBER_GROW(st, n + 1, a);
		st[n++] = (struct open_span){e, e->dur, base + cnt};
	}
	while (n) {
		save(s, ids, &st[n - 1], p, thread);
		n--;
	}
	free(st);
	free(ids);
}

static void finish(void *st)
{
	struct tstate *s = st;

	for (size_t i = 0; i < s->ncp; i++) {
		fold_cpuprof(s, &s->cp[i]);
		free(s->cp[i].nodes);
		free(s->cp[i].kids);
		free(s->cp[i].samples);
		free(s->cp[i].deltas);
	}
	s->ncp = 0;
	for (size_t i = 0; i < s->nth; i++)
		nest(s, &s->th[i]);
	if (!s->compat && trace_prof(s))
		ember_prof_finish(trace_prof(s));
	/* counted; a second call finds nothing */
	for (size_t i = 0; i < s->nth; i++) {
		free(s->th[i].sp);
		free(s->th[i].open);
	}
	s->nth = 0;
	memset(s->slots, 0, (s->mask + 1) * sizeof(*s->slots));
	if (s->unmatched)
		ember_log(EMBER_LOG_WARN,
			  "%llu begin or end event%s without a partner: left "
			  "out",
			  (unsigned long long)s->unmatched,
			  s->unmatched == 1 ? "" : "s");
	if (s->unended)
		ember_log(EMBER_LOG_WARN,
			  "%llu begin event%s never ended: closed at the "
			  "thread's last event",
			  (unsigned long long)s->unended,
			  s->unended == 1 ? "" : "s");
	s->unended = 0;
	if (s->short_chunks)
		ember_log(EMBER_LOG_WARN,
			  "%llu CPU profile%s with fewer time deltas than "
			  "samples: the samples past the last delta left out",
			  (unsigned long long)s->short_chunks,
			  s->short_chunks == 1 ? "" : "s");
	s->short_chunks = 0;
	if (s->bad_profiles)
		ember_log(
		    EMBER_LOG_WARN,
		    "%llu CPU profile%s without nodes or samples, or with "
		    "a child that is not a node: left out",
		    (unsigned long long)s->bad_profiles,
		    s->bad_profiles == 1 ? "" : "s");
	s->bad_profiles = 0;
	if (s->bad)
		ember_log(EMBER_LOG_WARN,
			  "%llu event%s without a usable pid, tid, ts, dur or "
			  "name: left out",
			  (unsigned long long)s->bad, s->bad == 1 ? "" : "s");
	s->unmatched = s->bad = 0;
	strcpy(s->k->sample_unit, "microseconds");
}

static int detect(const char *p, size_t len)
{
	static const char *const keys[] = {"traceEvents", NULL};
	static const char *const ev[] = {"pid",	 "tid", "ph",	"ts",
					 "name", "cat", "args", NULL};

	if (cl_json_sniff(p, len, keys, 0) || cl_json_sniff(p, len, ev, 1))
		return 1;
	/* {"metadata": {...}, "traceEvents": [...]} */
	size_t i = 0;
	while (i < len && cl_space((unsigned char)p[i]))
		i++;
	return i < len && p[i] == '{' &&
	       memmem(p, len < 65536 ? len : 65536, "\"traceEvents\"", 13);
}

const struct ember_collapser ember_collapser_chrome = {
    .name = "chrome",
    .summary = "Chrome trace events (JSON): X and B/E spans, microseconds",
    .detect = detect,
    .state_new = chrome_new,
    .state_free = state_free,
    .read = read_trace,
    .finish = finish,
};

const struct ember_collapser ember_collapser_chrome_tracing = {
    .name = "chrome-tracing",
    .summary = "trace events as stackcollapse-chrome-tracing.py folds them",
    .state_new = tracing_new,
    .state_free = state_free,
    .read = read_trace,
    .finish = finish,
    .order = CL_FIRST_SEEN,
    .number = cl_add_python_float,
};
