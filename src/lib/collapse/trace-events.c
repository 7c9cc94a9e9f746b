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
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"

enum { F_PH, F_NAME, F_PID, F_TID, F_TS, F_DUR, NFIELD };
static const char *const field_names[NFIELD] = {"ph",  "name", "pid",
						"tid", "ts",   "dur"};

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

struct tstate {
	struct collapse_sink *k;
	int compat; /* chrome-tracing */
	struct cl_json *j;
	int top;      /* the document is an object (1) or array (2) */
	int ev_depth; /* the depth of events, 0: not in the list */
	int in_list;  /* inside the events' array */
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
	uint64_t events, unmatched, bad;
	struct ember_buf tmp;
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

/* One event as `chrome` takes it: X and B/E; the rest is left alone. */
static int event_chrome(struct tstate *s)
{
	struct field *f = s->f;
	int64_t tid = 0, pid = 0;
	double ts, dur = 0;
	const char *why;
	int x = is_lit(s, &f[F_PH], "X"), b = is_lit(s, &f[F_PH], "B");
	int e = is_lit(s, &f[F_PH], "E");

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
	if (s->top == 1 && v->depth == 1 && cl_jkey(v, "traceEvents")) {
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
	int rc = cl_json_read(s->j, in, s->k);
	if (!rc && s->compat && s->top != 1) {
		cl_fail(s->k, "the input is not a trace: %s",
			"no object with \"traceEvents\"");
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

static void save(struct tstate *s, const uint32_t *ids,
		 const struct open_span *top)
{
	size_t e = ember_stacks_add(&s->k->stacks, ids, top->nframes, 0, 0);
	cl_count(s->k, e, top->self, 0, 0);
	s->k->n.records++;
}

static void nest(struct tstate *s, struct thread *t)
{
	struct open_span *st = NULL;
	size_t n = 0, a = 0;
	uint32_t *ids = NULL;
	size_t aids = 0;

	if (t->nopen)
		s->unmatched += t->nopen;
	/* a "B" never ended has no duration: left out */
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
			save(s, ids, &st[n - 1]);
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
		save(s, ids, &st[n - 1]);
		n--;
	}
	free(st);
	free(ids);
}

static void finish(void *st)
{
	struct tstate *s = st;

	for (size_t i = 0; i < s->nth; i++)
		nest(s, &s->th[i]);
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
