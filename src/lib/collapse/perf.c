/*
 * perf script output, as stackcollapse-perf.pl reads it.
 *
 * A sample is an event line ("comm pid/tid [cpu] time: period event:"),
 * its frame lines, leaf first ("addr sym+off (dso)"), and a blank line.
 * The state is the sample being built: the root frame's name (set by an
 * accepted event line; while it is unset, frame lines are ignored), the
 * period, and the frame ids seen so far, leaf first.  A blank line adds the
 * stack, root first, with the period as its count, and clears the state.
 *
 * The regular expressions of the Perl script are reproduced by hand,
 * backtracking included, so that odd lines come out as they do there.
 * Where the script is plainly wrong ember does better (docs/COMPATIBILITY.md):
 * argument lists are cut only at a '(' outside brackets, "(anonymous
 * namespace)" frames are kept, "->" splits inlined frames only outside
 * brackets, and a one-character or ":-1" process name is read as such.
 */
#include <stdlib.h>

#include "collapse.h"
#include "profile.h"

struct perf_state {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	struct ember_linecache lc; /* frame line -> frame ids */
	int key_addr;		   /* cache keys include the address */
	int flags; /* EMBER_PERF_KERNEL | EMBER_PERF_JIT | EMBER_PERF_ADDRS */
	int pid, tid, srcline;
	const char *const *skip_after;
	size_t nskip_after;
	struct ember_inliner *inliner;
	struct ember_inliner *srcliner; /* perf.data --srcline: file:line */
	/* the event type counted; NULL until the first one is seen */
	char *event;
	size_t event_len;
	int event_defaulted;
	/* the sample being built */
	int open;	/* an accepted event line named its root */
	uint32_t *root; /* ... these frames (';' in a name splits it) */
	size_t nroot, aroot;
	int java;	    /* the root starts with "java" */
	const char *period; /* its count, in digits */
	size_t period_len;
	struct ember_buf period_buf;
	int skipping;	   /* a --skip-after frame was seen: no more frames */
	int want_srcline;  /* --srcline: the next line is the frame's source */
	size_t srcline_at; /* ... of this frame (index in frames), or -1 */
	uint32_t *frames;  /* leaf first */
	size_t n, alloc;
	struct ember_buf tmp, tmp2, rootname, lastroot;
	/* the sample-level profile (options.profile), NULL without: the
	 * event line's time, thread, CPU and period, and per frame id in
	 * frames its profile frame (pf, as long as frames).  Frame lines
	 * repeat: plc holds a line's (address included) profile frames. */
	struct ember_prof *prof;
	int prof_off; /* another reader's profile came first: none */
	int prof_done;
	int prof_period; /* a weight column: the event lines' periods */
	int ev_cpu;
	uint64_t ev_time;
	uint32_t ev_thread;
	uint32_t *pf;
	size_t apf;
	struct ember_linecache plc;
	/* per thread (hashed), its last sample's profile frames, root
	 * first, and stack nodes: a sample shares its callers' nodes with
	 * the one before it on its thread */
	struct last_stack {
		uint32_t *f, *s;
		size_t n, alloc;
	} last[16];
	uint32_t *func_of; /* per name id: its function + 1 */
	size_t afunc;
	uint32_t *root_frame; /* per name id: its root frame + 1 */
	size_t aroot_frame;
	struct ember_intern dsos; /* mappings by module name */
	uint32_t *dso_map;	  /* per dso: mapping + 1, kind << 28 */
	size_t adso_map;
};

static void prof_sample(struct perf_state *st);
static void prof_rename(struct perf_state *st, size_t i);

/* ---- event lines ---- */

struct event_line {
	const char *comm, *pid, *tid, *event, *period;
	size_t comm_len, pid_len, tid_len, event_len, period_len;
};

/* A pid or tid at s[i]: digits, or the -1 that perf prints for exiting
 * tasks.  Returns where it ends (i when there is none). */
static size_t id_token(const char *s, size_t n, size_t i)
{
	size_t j = i;

	while (j < n && cl_digit(s[j]))
		j++;
	if (j == i && i + 1 < n && s[i] == '-' && s[i + 1] == '1' &&
	    (i + 2 == n || !cl_digit(s[i + 2])))
		j = i + 2;
	return j;
}

/*
 * The script's event line expression: the process name is the shortest
 * prefix followed by whitespace, a number, optionally slashes and a
 * second number, and whitespace.  ember takes a one-character name and
 * -1 ids too (the script needs two characters and digits, and so glues
 * the rest of the line to the name).
 */
static int event_ids(const char *s, size_t n, struct event_line *ev)
{
	if (!n || cl_space(s[0]))
		return 0;
	for (size_t i = 1; i < n;) {
		if (!cl_space(s[i])) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && cl_space(s[j]))
			j++;
		size_t a = id_token(s, n, j), b, e;
		if (a == j) {
			i = j;
			continue;
		}
		b = a;
		while (b < n && s[b] == '/')
			b++;
		e = b > a ? id_token(s, n, b) : b;
		if (e >= n || !cl_space(s[e])) {
			i = j;
			continue;
		}
		ev->comm = s;
		ev->comm_len = i;
		if (e > b && !(e - b == 1 && s[b] == '0')) {
			ev->pid = s + j;
			ev->pid_len = a - j;
			ev->tid = s + b;
			ev->tid_len = e - b;
		} else {
			/* no tid (or the tid "0", false to Perl): the number is
			 * the tid and the pid is unknown */
			ev->pid = "?";
			ev->pid_len = 1;
			ev->tid = s + j;
			ev->tid_len = a - j;
		}
		return 1;
	}
	return 0;
}

/*
 * The script's /:\s*(\d+)*\s+(\S+):\s*$/: the line's last word ends with
 * ':' (the event, without it) and follows whitespace, a period maybe,
 * whitespace maybe, and a ':'.
 */
static void event_name(const char *s, size_t n, struct event_line *ev)
{
	size_t e = n, b, w, d;

	ev->event = ev->period = NULL;
	ev->event_len = ev->period_len = 0;
	while (e && cl_space(s[e - 1]))
		e--;
	if (e < 2 || s[e - 1] != ':')
		return;
	b = e - 1;
	while (b && !cl_space(s[b - 1]))
		b--;
	if (b + 1 >= e || !b)
		return;
	w = b;
	while (w && cl_space(s[w - 1]))
		w--;
	d = w;
	while (d && cl_digit(s[d - 1]))
		d--;
	if (d < w) {
		size_t c = d;
		while (c && cl_space(s[c - 1]))
			c--;
		if (!c || s[c - 1] != ':')
			return;
		ev->period = s + d;
		ev->period_len = w - d;
	} else if (!w || s[w - 1] != ':') {
		return;
	}
	ev->event = s + b;
	ev->event_len = e - 1 - b;
}

/* ---- frame lines ---- */

/*
 * The script's /^\s*(\w+)\s*(.+) \((.*)\)/: the module is between the
 * last " (" that some ')' follows and the last ')'; the address is the
 * word at the start, and the symbol what lies between.  The regular
 * expression backtracks into the address when nothing else fits, and so
 * does this.
 */
static int frame_parts(const char *s, size_t n, struct ember_perf_frame *f)
{
	size_t w0 = 0, w1, q, close, p;
	const char *r;

	while (w0 < n && cl_space(s[w0]))
		w0++;
	w1 = w0;
	while (w1 < n && cl_word(s[w1]))
		w1++;
	if (w1 == w0)
		return 0;
	r = memrchr(s + w1, ')', n - w1);
	if (!r)
		return 0;
	close = (size_t)(r - s);
	/* the last " (" with p + 2 <= close */
	p = close;
	for (;;) {
		r = p > w0 ? memrchr(s + w0, '(', p - w0) : NULL;
		if (!r || r == s + w0)
			return 0;
		p = (size_t)(r - s);
		if (s[p - 1] == ' ') {
			p--;
			break;
		}
	}
	if (p >= w1 + 1) {
		q = w1;
		while (q < n && cl_space(s[q]) && q + 1 <= p - 1)
			q++;
		f->addr = s + w0;
		f->addr_len = w1 - w0;
		f->sym = s + q;
		f->sym_len = p - q;
	} else if (p >= w0 + 2) {
		f->addr = s + w0;
		f->addr_len = p - 1 - w0;
		f->sym = s + p - 1;
		f->sym_len = 1;
	} else {
		return 0;
	}
	f->dso = s + p + 2;
	f->dso_len = close - (p + 2);
	return 1;
}

/* ---- the parser ---- */

static void push(struct perf_state *st, uint32_t id)
{
	if (st->n == st->alloc)
		EMBER_GROW(st->frames, st->n + 1, st->alloc);
	st->frames[st->n++] = id;
}

static void emit_frame(void *ctx, const char *s, size_t n)
{
	struct perf_state *st = ctx;

	push(st, ember_intern(&st->k->names, s, n));
}

struct event_line;
static void prof_event(struct perf_state *st, const struct event_line *e,
		       const char *s, size_t n);

static void reset_sample(struct perf_state *st)
{
	ember_linecache_restart(&st->lc);
	ember_linecache_restart(&st->plc);
	st->open = 0;
	st->skipping = 0;
	st->want_srcline = 0;
	st->n = 0;
}

/* A blank line: the sample is complete. */
static void end_sample(struct perf_state *st)
{
	if (st->open) {
		size_t n = st->n;
		uint32_t *f = st->frames;
		if (st->prof)
			prof_sample(st);
		/* leaf first -> root first, with the root frame in front */
		for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
			uint32_t t = f[i];
			f[i] = f[j];
			f[j] = t;
		}
		if (!st->skipping) {
			size_t r = st->nroot;
			if (st->n + r > st->alloc)
				EMBER_GROW(st->frames, st->n + r, st->alloc);
			f = st->frames;
			memmove(f + r, f, n * sizeof(*f));
			memcpy(f, st->root, r * sizeof(*f));
			n += r;
		}
		cl_add_digits(st->k, st->frames, n, st->period, st->period_len);
	}
	reset_sample(st);
}

static void set_event(struct perf_state *st, const char *e, size_t n,
		      int defaulted)
{
	free(st->event);
	st->event = ember_xmemdup(e, n);
	st->event_len = n;
	st->event_defaulted = defaulted;
	if (!st->k->event) {
		st->k->event = ember_xmemdup(e, n);
		st->k->event_len = n;
		st->k->event_defaulted = defaulted;
	}
}

static void set_root(struct perf_state *st, const struct event_line *e);

/*
 * inferno reads the event from the words after the timestamp's ':' (a
 * period, then "event:"), whatever follows: perf prints a sample of one
 * frame on its event line ("... 1 cycles:u:  ffff81 f ([k])"), and that
 * frame is in *frame (NULL when there is none).
 */
static void inferno_event(const char *s, size_t n, struct event_line *ev,
			  const char **frame, size_t *frame_len)
{
	size_t i = (size_t)(ev->tid + ev->tid_len - s);
	const char *c1 = memchr(s + i, ':', n - i), *c2;

	*frame = NULL;
	if (!c1 || !(c2 = memchr(c1 + 1, ':', (size_t)(s + n - c1 - 1))))
		return;
	const char *b = c2, *w;
	while (b > c1 + 1 && !cl_space(b[-1]))
		b--;
	ev->event = b;
	ev->event_len = (size_t)(c2 - b);
	w = b;
	while (w > c1 + 1 && cl_space(w[-1]))
		w--;
	const char *d = w;
	while (d > c1 + 1 && cl_digit(d[-1]))
		d--;
	if (d < w && (d == c1 + 1 || cl_space(d[-1]))) {
		ev->period = d;
		ev->period_len = (size_t)(w - d);
	}
	/* after the event's ':', the first ':' or space ends its modifiers */
	const char *p = c2 + 1, *end = s + n;
	while (p < end && *p != ':' && *p != ' ')
		p++;
	p = p < end ? p + 1 : c2 + 1;
	while (p < end && cl_space(*p))
		p++;
	while (end > p && cl_space(end[-1]))
		end--;
	if (end > p) {
		*frame = p;
		*frame_len = (size_t)(end - p);
	}
}

static void other_line(struct perf_state *st, const char *s, size_t n);

static void event_line(struct perf_state *st, const struct event_line *ev,
		       const char *s, size_t n)
{
	struct event_line e = *ev;
	const char *frame = NULL;
	size_t frame_len = 0;

	event_name(s, n, &e);
	if (!e.event && st->o->inferno)
		inferno_event(s, n, &e, &frame, &frame_len);
	if (e.event) {
		if (!st->event) {
			set_event(st, e.event, e.event_len, 1);
		} else if (e.event_len != st->event_len ||
			   memcmp(e.event, st->event, e.event_len)) {
			struct collapse_counts *c = &st->k->n;
			if (!c->filtered++) {
				size_t m =
				    e.event_len < sizeof(c->filtered_event) - 1
					? e.event_len
					: sizeof(c->filtered_event) - 1;
				memcpy(c->filtered_event, e.event, m);
				c->filtered_event[m] = '\0';
			}
			return; /* the sample, if one is open, goes on */
		}
	}
	/* an accepted sample with no frame line before the next one: perf
	 * recorded no call chains */
	if (st->open && !st->n)
		st->k->n.bare++;
	if (!e.period || (e.period_len == 1 && e.period[0] == '0')) {
		st->period = "1";
		st->period_len = 1;
	} else {
		/* digits, kept for the sample's end (the line goes) */
		ember_buf_reset(&st->period_buf);
		ember_buf_add(&st->period_buf, e.period, e.period_len);
		st->period = st->period_buf.buf;
		st->period_len = e.period_len;
	}

	set_root(st, &e);
	if (st->k->want_prof)
		prof_event(st, &e, s, n);
	if (frame) { /* a sample of one frame, ended by its line */
		other_line(st, frame, frame_len);
		end_sample(st);
	}
}

/* The root frame of the sample: "comm", "comm-pid" or "comm-pid/tid". */
static void set_root(struct perf_state *st, const struct event_line *e)
{
	struct ember_buf *r = &st->rootname;
	ember_buf_reset(r);
	ember_buf_add(r, e->comm, e->comm_len);
	if (st->tid || st->pid) {
		ember_buf_addch(r, '-');
		ember_buf_add(r, e->pid, e->pid_len);
		if (st->tid) {
			ember_buf_addch(r, '/');
			ember_buf_add(r, e->tid, e->tid_len);
		}
	}
	for (size_t i = 0; i < r->len; i++)
		if (r->buf[i] == ' ')
			r->buf[i] = '_';
	st->java = r->len >= 4 && !memcmp(r->buf, "java", 4);
	st->open = 1;
	/* most samples have the root of the one before */
	if (st->nroot && r->len == st->lastroot.len &&
	    !memcmp(r->buf, st->lastroot.buf, r->len))
		return;
	ember_buf_reset(&st->lastroot);
	ember_buf_add(&st->lastroot, r->buf, r->len);
	/* the script joins frames with ';': a ';' in the process name makes
	 * frames of its parts, and so it does here */
	st->nroot = 0;
	for (const char *a = r->buf, *z = r->buf + r->len;;) {
		const char *sc = memchr(a, ';', (size_t)(z - a));
		const char *b = sc ? sc : z;
		EMBER_GROW(st->root, st->nroot + 1, st->aroot);
		st->root[st->nroot++] =
		    ember_intern(&st->k->names, a, (size_t)(b - a));
		if (!sc)
			break;
		a = sc + 1;
	}
}

/* --srcline: the line after a frame is its source location ("file:line",
 * or "dso[offset]"): "[...]" parts dropped, appended to the frame's name
 * after a ':'. */
static void srcline(struct perf_state *st, const char *s, size_t n)
{
	struct ember_buf *t = &st->tmp2;
	size_t o = 0, len;

	st->want_srcline = 0;
	if (st->srcline_at >= st->n)
		return;
	ember_buf_reset(t);
	for (size_t i = 0; i < n; i++) {
		const char *c = s[i] == '[' ? memchr(s + i, ']', n - i) : NULL;
		if (c)
			i = (size_t)(c - s);
		else
			ember_buf_addch(t, s[i] == ';' ? ':' : s[i]);
	}
	len = t->len;
	while (o < len && cl_space(t->buf[o]))
		o++;
	while (len > o && cl_space(t->buf[len - 1]))
		len--;
	if (len == o || (len - o >= 2 && !memcmp(t->buf + o, "??", 2)))
		return;
	size_t nl;
	const char *name =
	    ember_intern_str(&st->k->names, st->frames[st->srcline_at], &nl);
	ember_buf_reset(&st->tmp);
	ember_buf_add(&st->tmp, name, nl);
	ember_buf_addch(&st->tmp, ':');
	ember_buf_add(&st->tmp, t->buf + o, len - o);
	st->frames[st->srcline_at] =
	    ember_intern(&st->k->names, st->tmp.buf, st->tmp.len);
	if (st->prof)
		prof_rename(st, st->srcline_at);
}

static int skip_after(struct perf_state *st, const struct ember_perf_frame *f,
		      size_t first)
{
	size_t sn = rec_strip_offset(f->sym, f->sym_len);

	for (size_t i = 0; i < st->nskip_after; i++) {
		const char *want = st->skip_after[i];
		size_t wn = strlen(want);
		if (wn == sn && !memcmp(want, f->sym, sn))
			return 1;
		for (size_t j = first; j < st->n; j++) {
			size_t len;
			const char *name = ember_intern_str(
			    &st->k->names, st->frames[j], &len);
			if (len == wn && !memcmp(name, want, wn))
				return 1;
		}
	}
	return 0;
}

/* The script's un-inlining skips perf maps, the kernel and [pseudo]
 * modules: m/(perf-\d+.map|kernel\.|\[[^\]]+\])/. */
static int inline_candidate(const char *m, size_t n)
{
	if (cl_has(m, n, "kernel."))
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (m[i] == '[') {
			const char *c = memchr(m + i + 1, ']', n - i - 1);
			if (c && c > m + i + 1)
				return 0;
		}
		if (m[i] == 'p' && cl_starts(m + i, n - i, "perf-")) {
			size_t j = i + 5, d = j;
			while (d < n && cl_digit(m[d]))
				d++;
			if (d > j && d + 4 <= n && !memcmp(m + d + 1, "map", 3))
				return 0;
		}
	}
	return 1;
}

/* A frame line's address, hex digits; 0 if it is not one. */
static int frame_addr(const struct ember_perf_frame *f, uint64_t *addr)
{
	*addr = 0;
	if (!f->addr_len || f->addr_len > 16)
		return 0;
	for (size_t i = 0; i < f->addr_len; i++) {
		char c = f->addr[i];
		int v = c >= '0' && c <= '9'   ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10
					       : -1;
		if (v < 0)
			return 0;
		*addr = *addr << 4 | (uint64_t)v;
	}
	return 1;
}

/* ---- the sample-level profile ---- */

/* a[i] for i < n: zero until set (ids +1) */
static void grow_ids(uint32_t **a, size_t *alloc, size_t n)
{
	size_t old = *alloc;

	if (n <= old)
		return;
	EMBER_GROW(*a, n, *alloc);
	memset(*a + old, 0, (*alloc - old) * sizeof(**a));
}

/* The profile while it is this reader's: a perf.data input read into the
 * sink meanwhile ends it (cl_perfdata_read frees both). */
static struct ember_prof *prof_active(const struct perf_state *st)
{
	return st->prof && st->k->prof == st->prof ? st->prof : NULL;
}

static int clock_event(const char *e, size_t n)
{
	return cl_starts(e, n, "cpu-clock") || cl_starts(e, n, "task-clock");
}

/* Made at the first sample, its types named by that sample's event:
 * cpu-clock and task-clock periods are nanoseconds. */
static struct ember_prof *prof_start(struct perf_state *st,
				     const struct event_line *e)
{
	struct collapse_sink *k = st->k;

	if (st->prof || st->prof_off || !k->want_prof)
		return prof_active(st);
	if (k->prof || k->no_prof) { /* a perf.data input came first */
		ember_prof_free(k->prof);
		k->prof = NULL;
		k->no_prof = 1;
		st->prof_off = 1;
		return NULL;
	}
	struct ember_prof *p = cl_prof(k);
	if (!p)
		return NULL;
	st->prof = p;
	ember_prof_add_type(p, "samples", "count", 1);
	if (e->period) {
		size_t n = e->event_len;
		const char *c = e->event ? memchr(e->event, ':', n) : NULL;
		int clock = e->event && clock_event(e->event, n);
		uint64_t v = 0;
		if (c)
			n = (size_t)(c - e->event);
		ember_buf_reset(&st->tmp);
		if (e->event)
			ember_buf_add(&st->tmp, e->event, n);
		else
			ember_buf_adds(&st->tmp, "events");
		size_t t =
		    ember_prof_add_type(p, clock ? "cpu" : st->tmp.buf,
					clock ? "nanoseconds" : "count", 0);
		p->period_type = p->types[t];
		p->period_type.column = EMBER_PROF_NONE;
		/* the first sample's: perf script does not print the
		 * recording's, and a clock's is the same in every sample */
		if (ember_parse_u64(e->period, e->period_len, &v) &&
		    v <= INT64_MAX)
			p->period = (int64_t)v;
		st->prof_period = 1;
	}
	if (k->thread_roots)
		p->flags |= EMBER_PROF_THREAD_ROOTS;
	return p;
}

static int parse_id(const char *s, size_t n)
{
	uint64_t v = 0;

	if (n == 2 && s[0] == '-' && s[1] == '1')
		return -1;
	if (ember_parse_u64(s, n, &v) && v <= INT32_MAX)
		return (int)v;
	return -1;
}

/*
 * What the event line says after the ids, as perf script prints it with
 * or without -F's cpu and time: "[001]" and "12.345678:" (seconds,
 * microseconds or, with --ns, nanoseconds).  The time into *ns (1), or 0
 * when there is none; the CPU into *cpu, else -1.
 */
static int event_time(const char *s, size_t n, size_t i, int *cpu, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t j, nd = 0;

	*cpu = -1;
	while (i < n && cl_space(s[i]))
		i++;
	if (i < n && s[i] == '[') {
		unsigned v = 0;
		for (j = i + 1; j < n && cl_digit(s[j]) && v < 65535; j++)
			v = v * 10 + (unsigned)(s[j] - '0');
		if (j > i + 1 && j < n && s[j] == ']') {
			*cpu = (int)v;
			i = j + 1;
		}
		while (i < n && cl_space(s[i]))
			i++;
	}
	for (j = i; j < n && cl_digit(s[j]) && j - i < 12; j++)
		sec = sec * 10 + (uint64_t)(s[j] - '0');
	if (j == i || j >= n)
		return 0;
	if (s[j] == '.')
		for (j++; j < n && cl_digit(s[j]); j++)
			if (nd < 9) {
				frac = frac * 10 + (uint64_t)(s[j] - '0');
				nd++;
			}
	if (j >= n || s[j] != ':')
		return 0;
	for (; nd < 9; nd++)
		frac *= 10;
	*ns = sec * 1000000000u + frac;
	return 1;
}

/* An accepted event line: the sample's time, thread and CPU. */
static void prof_event(struct perf_state *st, const struct event_line *e,
		       const char *s, size_t n)
{
	struct ember_prof *p = prof_start(st, e);

	if (!p)
		return;
	int tid = parse_id(e->tid, e->tid_len);
	/* perf script prints the pid only when asked (-F pid): a thread of
	 * its own process then, as the main thread's is */
	int pid = e->pid_len == 1 && e->pid[0] == '?'
		      ? tid
		      : parse_id(e->pid, e->pid_len);
	size_t after = (size_t)(e->tid + e->tid_len - s);
	st->ev_time = 0;
	if (event_time(s, n, after, &st->ev_cpu, &st->ev_time))
		p->flags |= EMBER_PROF_HAS_TIME;
	if (st->ev_cpu >= 0)
		p->flags |= EMBER_PROF_HAS_CPU;
	p->flags |= EMBER_PROF_HAS_THREADS;
	st->ev_thread = ember_prof_thread(p, pid, tid);
	struct ember_prof_thread *t = &p->threads[st->ev_thread];
	size_t len;
	const char *name = ember_prof_s(p, t->name, &len);
	if (len != e->comm_len || memcmp(name, e->comm, len)) {
		t->name = ember_prof_str(p, e->comm, e->comm_len);
		if (pid == tid)
			p->procs[t->process].name = t->name;
	}
}

/* Where frames of module d are: a mapping per module (runtime addresses
 * as perf script prints them; the range is the frames' own, at the end),
 * none for JIT code and [unknown]. */
static uint32_t dso_mapping(struct perf_state *st, struct ember_prof *p,
			    const char *d, size_t n, uint8_t *kind)
{
	uint32_t id = ember_intern(&st->dsos, d, n);

	grow_ids(&st->dso_map, &st->adso_map, (size_t)id + 1);
	if (!st->dso_map[id]) {
		struct ember_prof_mapping m = {0};
		uint32_t mi = EMBER_PROF_NONE;
		uint8_t kd = EMBER_PROF_USER;
		if (cl_starts(d, n, "[kernel") || cl_starts(d, n, "[guest.")) {
			kd = EMBER_PROF_KERNEL;
			m.kernel = 1;
		} else if (cl_has(d, n, "/perf-") || cl_starts(d, n, "perf-") ||
			   cl_has(d, n, "jitted-") || cl_starts(d, n, "[JIT")) {
			kd = EMBER_PROF_JIT;
		}
		if (kd != EMBER_PROF_JIT &&
		    !(n == 9 && !memcmp(d, "[unknown]", 9))) {
			m.path = ember_prof_str(p, d, n);
			m.pid = -1;
			m.has_functions = 1;
			mi = ember_prof_mapping(p, &m);
		}
		st->dso_map[id] = (mi + 1) | (uint32_t)kd << 28;
	}
	*kind = (uint8_t)(st->dso_map[id] >> 28);
	return (st->dso_map[id] & 0x0fffffffu) - 1;
}

static uint32_t name_func(struct perf_state *st, struct ember_prof *p,
			  uint32_t id)
{
	grow_ids(&st->func_of, &st->afunc, (size_t)id + 1);
	if (!st->func_of[id]) {
		size_t len;
		const char *s = ember_intern_str(&st->k->names, id, &len);
		uint32_t name = ember_prof_str(p, s, len);
		struct ember_prof_func fn = {name, name, 0, 0};
		st->func_of[id] = ember_prof_func(p, &fn) + 1;
	}
	return st->func_of[id] - 1;
}

/*
 * A frame line seen before, from its address on (key), with the same
 * java flag: its names and profile frames appended (1), or 0 and
 * prof_line adds it.  plc's records hold the line's profile frames, then
 * its names, so that a hit costs one look-up for both.
 */
static int prof_hit(struct perf_state *st, const char *key, size_t kn)
{
	struct lc_hit e;
	size_t half;

	if (!ember_linecache_find(&st->plc, key, kn, st->java ? LC_JAVA : 0,
				  &e))
		return 0;
	half = e.nids / 2;
	if (st->n + half > st->alloc)
		EMBER_GROW(st->frames, st->n + half, st->alloc);
	EMBER_GROW(st->pf, st->n + half, st->apf);
	memcpy(st->pf + st->n, e.ids, half * sizeof(*st->pf));
	memcpy(st->frames + st->n, e.ids + half, half * sizeof(*st->frames));
	st->n += half;
	if (e.flags & LC_SKIP)
		st->skipping = 1;
	return 1;
}

/* A frame line's frames, frames[first, n), as profile frames: address,
 * mapping, kind, and how deep each is inlined (the line's names come
 * innermost first).  key: the line from its address on, after a
 * prof_hit that missed, to cache them (NULL: not cached, its names may
 * change: --srcline). */
static void prof_line(struct perf_state *st, const char *s, size_t n,
		      size_t first, const struct ember_perf_frame *f,
		      const char *key, size_t kn)
{
	struct ember_prof *p = prof_active(st);
	struct ember_perf_frame parts;
	struct ember_prof_frame fr = {0};

	if (!p || st->n <= first)
		return;
	EMBER_GROW(st->pf, st->n, st->apf);
	fr.mapping = EMBER_PROF_NONE;
	fr.kind = EMBER_PROF_USER;
	if (!f && frame_parts(s, n, &parts))
		f = &parts;
	if (f) {
		if (frame_addr(f, &fr.address))
			p->flags |= EMBER_PROF_HAS_ADDRESSES;
		fr.mapping = dso_mapping(st, p, f->dso, f->dso_len, &fr.kind);
		if (fr.kind == EMBER_PROF_USER &&
		    fr.mapping == EMBER_PROF_NONE &&
		    fr.address >= 0xffff800000000000u)
			fr.kind = EMBER_PROF_KERNEL;
	}
	for (size_t i = first; i < st->n; i++) {
		size_t d = st->n - 1 - i;
		fr.func = name_func(st, p, st->frames[i]);
		fr.inline_depth = (uint16_t)(d > UINT16_MAX ? UINT16_MAX : d);
		st->pf[i] = ember_prof_frame(p, &fr);
	}
	if (key) {
		size_t m = st->n - first;
		EMBER_GROW(st->pf, st->n + m, st->apf);
		memcpy(st->pf + st->n, st->frames + first, m * sizeof(*st->pf));
		ember_linecache_add(&st->plc, key, kn,
				    (st->java ? LC_JAVA : 0) |
					(st->skipping ? LC_SKIP : 0),
				    st->pf + first, 2 * m);
	}
}

/* --srcline renamed frames[i]: its profile frame follows. */
static void prof_rename(struct perf_state *st, size_t i)
{
	struct ember_prof *p = prof_active(st);

	if (!p || i >= st->n)
		return;
	struct ember_prof_frame fr = p->frames[st->pf[i]];
	fr.func = name_func(st, p, st->frames[i]);
	st->pf[i] = ember_prof_frame(p, &fr);
}

/* The sample, its frames leaf first in frames[0, n) (before the root
 * goes in front): a stack of the root's frames, then the frames. */
static void prof_sample(struct perf_state *st)
{
	struct ember_prof *p = prof_active(st);
	size_t nr = st->skipping ? 0 : st->nroot, m = nr + st->n, same = 0;
	uint32_t s = EMBER_PROF_NONE, *f;
	struct last_stack *last = &st->last[st->ev_thread % 16];
	double v = 1;

	if (!p || !m)
		return;
	if (m > last->alloc) {
		size_t a = last->alloc;
		EMBER_GROW(last->f, m, a);
		last->s = ember_xreallocarray(last->s, a, sizeof(*last->s));
		last->alloc = a;
	}
	f = last->f;
	/* root first, the callers the last sample's where they are */
	for (size_t r = 0; r < m; r++) {
		uint32_t id;
		if (r < nr) {
			uint32_t name = st->root[r];
			grow_ids(&st->root_frame, &st->aroot_frame,
				 (size_t)name + 1);
			if (!st->root_frame[name]) {
				struct ember_prof_frame fr = {0};
				fr.mapping = EMBER_PROF_NONE;
				fr.func = name_func(st, p, name);
				fr.kind = EMBER_PROF_SYNTHETIC;
				st->root_frame[name] =
				    ember_prof_frame(p, &fr) + 1;
			}
			id = st->root_frame[name] - 1;
		} else {
			id = st->pf[st->n - 1 - (r - nr)];
		}
		if (r == same && r < last->n && f[r] == id) {
			same++;
			s = last->s[r];
			continue;
		}
		f[r] = id;
		s = ember_prof_stack(p, s, id);
		last->s[r] = s;
	}
	last->n = m;
	if (st->prof_period) {
		uint64_t x;
		int integer = ember_parse_u64(st->period, st->period_len, &x);
		v = integer ? (double)x
			    : ember_perl_number(st->period, st->period_len);
	}
	ember_prof_sample(p, st->ev_time, st->ev_thread, st->ev_cpu, s, &v);
}

/* Once every input is read: the mappings' ranges are their frames', the
 * main program the module (not a library) with the most frames. */
static void perf_finish(void *arg)
{
	struct perf_state *st = arg;
	struct ember_prof *p = prof_active(st);

	if (!p || st->prof_done)
		return;
	st->prof_done = 1;
	size_t *hits = ember_xcalloc(p->nmaps + 1, sizeof(*hits)), best = 0;
	for (size_t i = 0; i < p->nmaps; i++)
		p->maps[i].start = UINT64_MAX;
	for (size_t i = 0; i < p->nframes; i++) {
		const struct ember_prof_frame *f = &p->frames[i];
		if (f->mapping == EMBER_PROF_NONE)
			continue;
		struct ember_prof_mapping *m = &p->maps[f->mapping];
		hits[f->mapping]++;
		if (f->address < m->start)
			m->start = f->address;
		if (f->address >= m->limit)
			m->limit = f->address + 1;
	}
	uint32_t main = EMBER_PROF_NONE;
	for (size_t i = 0; i < p->nmaps; i++) {
		struct ember_prof_mapping *m = &p->maps[i];
		const char *path = ember_prof_s(p, m->path, NULL);
		const char *base = strrchr(path, '/');
		if (m->start == UINT64_MAX)
			m->start = 0;
		base = base ? base + 1 : path;
		if (m->kernel || path[0] == '[' || strstr(base, ".so"))
			continue;
		if (hits[i] > best) {
			best = hits[i];
			main = (uint32_t)i;
		}
	}
	if (main != EMBER_PROF_NONE)
		p->maps[main].is_main = 1;
	free(hits);
	ember_prof_finish(p);
}

static int inlined_frames(struct perf_state *st,
			  const struct ember_perf_frame *f)
{
	uint64_t addr;

	if (!inline_candidate(f->dso, f->dso_len) || !frame_addr(f, &addr))
		return 0;
	if (!st->inliner)
		return 0;
	ember_buf_reset(&st->tmp);
	if (ember_inliner_lookup(st->inliner, f->dso, f->dso_len, addr, f->sym,
				 f->sym_len, &st->tmp) < 0) {
		struct collapse_counts *c = &st->k->n;
		if (!c->inline_missing++) {
			size_t m =
			    f->dso_len < sizeof(c->inline_missing_module) - 1
				? f->dso_len
				: sizeof(c->inline_missing_module) - 1;
			memcpy(c->inline_missing_module, f->dso, m);
			c->inline_missing_module[m] = '\0';
		}
		return 0;
	}
	if (!st->tmp.len)
		return 0;
	/* "name\tfile:line\n" records, outermost first: pushed innermost
	 * first, each name cleaned as perf's are */
	const char *b = st->tmp.buf, *e = b + st->tmp.len;
	struct ember_buf *t = &st->tmp2;
	while (e > b) {
		const char *rec_end = e - 1; /* at its '\n' */
		const char *nl = memrchr(b, '\n', (size_t)(rec_end - b));
		const char *r = nl ? nl + 1 : b;
		const char *tab = memchr(r, '\t', (size_t)(rec_end - r));
		const char *name;
		size_t len;
		struct ember_buf name_buf = EMBER_BUF_INIT;
		if (!tab)
			tab = rec_end;
		rec_clean_part(r, (size_t)(tab - r), f, 0, &name_buf, &name,
			       &len);
		ember_buf_reset(t);
		ember_buf_add(t, name, len);
		if (tab + 1 < rec_end) {
			ember_buf_addch(t, ':');
			ember_buf_add(t, tab + 1, (size_t)(rec_end - tab - 1));
		}
		ember_buf_release(&name_buf);
		push(st, ember_intern(&st->k->names, t->buf, t->len));
		e = r;
	}
	return 1;
}

static void frame_line(struct perf_state *st, const struct ember_perf_frame *f)
{
	size_t first = st->n;
	int flags =
	    (st->flags & ~EMBER_PERF_JAVA) | (st->java ? EMBER_PERF_JAVA : 0);

	if (st->skipping)
		return;
	if (!(st->inliner && inlined_frames(st, f)))
		rec_perf_names(f, flags, &st->tmp, &st->tmp2, emit_frame, st);
	if (st->srcline &&
	    !(f->sym_len == 9 && !memcmp(f->sym, "[unknown]", 9))) {
		st->want_srcline = 1;
		st->srcline_at = st->n > first ? first : (size_t)-1;
	}
	if (st->nskip_after && skip_after(st, f, first))
		st->skipping = 1;
}

/* A line that is not an event line: a frame line (through the cache when
 * it can), else a line in no known shape. */
/* A line outside any sample that is an event line once its leading
 * blanks go: perf script of a recording without call chains aligns the
 * process name right and puts the sampled address on the same line.
 * Ignored, as the script ignores it, but counted so that it can be said. */
static void count_bare(struct perf_state *st, const char *s, size_t n,
		       size_t w0)
{
	struct event_line ev;

	if (w0 && w0 < n && event_ids(s + w0, n - w0, &ev))
		st->k->n.bare++;
}

static void other_line(struct perf_state *st, const char *s, size_t n)
{
	struct ember_perf_frame f;
	size_t w0 = 0, w1, kb;
	int java = st->java ? LC_JAVA : 0, cache = !st->inliner;

	while (w0 < n && cl_space(s[w0]))
		w0++;
	w1 = w0;
	while (w1 < n && cl_word(s[w1]))
		w1++;
	kb = st->key_addr ? w0 : w1;
	/* " (" right after the address: the name depends on the address */
	if (w1 + 1 < n && s[w1] == ' ' && s[w1 + 1] == '(')
		cache = 0;
	struct lc_hit e;
	/* the profile's cache of whole lines first: it has the names too */
	int pkey = st->prof && cache && w1 > w0 && !st->srcline && st->open &&
		   !st->skipping && prof_active(st);
	if (pkey && prof_hit(st, s + w0, n - w0))
		return;
	if (cache && w1 > w0 &&
	    ember_linecache_find(&st->lc, s + kb, n - kb, java, &e)) {
		if (!st->open)
			count_bare(st, s, n, w0);
		if (!st->open || st->skipping)
			return;
		size_t first = st->n;
		if (st->n + e.nids > st->alloc)
			EMBER_GROW(st->frames, st->n + e.nids, st->alloc);
		if (e.nids)
			memcpy(st->frames + st->n, e.ids,
			       e.nids * sizeof(*st->frames));
		st->n += e.nids;
		if (st->prof)
			prof_line(st, s, n, first, NULL, pkey ? s + w0 : NULL,
				  n - w0);
		if (st->srcline && !(e.flags & LC_UNKNOWN)) {
			st->want_srcline = 1;
			st->srcline_at = st->n > first ? first : (size_t)-1;
		}
		if (e.flags & LC_SKIP)
			st->skipping = 1;
		return;
	}
	if (!frame_parts(s, n, &f)) {
		cl_bad(st->k, s, n);
		return;
	}
	if (!st->open)
		count_bare(st, s, n, w0);
	if (!st->open || st->skipping)
		return;
	size_t first = st->n;
	frame_line(st, &f);
	if (st->prof)
		prof_line(st, s, n, first, &f, pkey ? s + w0 : NULL, n - w0);
	if (cache && w1 > w0) {
		int flags = java | (st->skipping ? LC_SKIP : 0) |
			    (f.sym_len == 9 && !memcmp(f.sym, "[unknown]", 9)
				 ? LC_UNKNOWN
				 : 0);
		ember_linecache_add(&st->lc, s + kb, n - kb, flags,
				    st->n > first ? st->frames + first : NULL,
				    st->n - first);
	}
}

static void perf_parse(void *arg, const char *p, size_t len)
{
	struct perf_state *st = arg;
	struct collapse_sink *k = st->k;
	const char *end = p + len;

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		struct event_line ev;

		k->n.lines++;
		if (n && s[0] == '#')
			continue;
		if (!n) {
			end_sample(st);
			continue;
		}
		if (st->want_srcline) {
			srcline(st, s, n);
			continue;
		}
		if (!cl_space(s[0]) && event_ids(s, n, &ev)) {
			event_line(st, &ev, s, n);
		} else if (st->o->inferno && !st->open) {
			/* inferno takes indented event lines between samples */
			size_t i = 0;
			while (i < n && cl_space(s[i]))
				i++;
			if (i < n && event_ids(s + i, n - i, &ev))
				event_line(st, &ev, s + i, n - i);
			else
				other_line(st, s, n);
		} else {
			other_line(st, s, n);
		}
	}
}

static void perf_end(void *arg)
{
	struct perf_state *st = arg;

	/* inferno counts a last sample that no blank line ends */
	if (st->open && st->o->inferno)
		end_sample(st);
	else if (st->open)
		st->k->n.truncated++;
	reset_sample(st);
}

static void perf_begin(void *arg, const struct collapse_shared *sh,
		       int file_start)
{
	struct perf_state *st = arg;

	(void)file_start;
	if (sh->event && !st->event)
		set_event(st, sh->event, sh->event_len, sh->event_defaulted);
	reset_sample(st);
}

static void *perf_new(const struct ember_collapse_options *o,
		      struct collapse_sink *k)
{
	struct perf_state *st = ember_xcalloc(1, sizeof(*st));

	st->k = k;
	st->o = o;
	/* the root frame is the process (comm, comm-PID, comm-PID/TID)
	 * unless --skip-after makes another frame the root */
	k->thread_roots = !o->nskip_after;
	st->flags = (o->kernel ? EMBER_PERF_KERNEL : 0) |
		    (o->jit ? EMBER_PERF_JIT : 0) |
		    (o->addrs ? EMBER_PERF_ADDRS : 0) |
		    (o->inferno ? EMBER_PERF_INFERNO : 0);
	st->pid = o->pid;
	st->tid = o->tid;
	st->srcline = o->srcline;
	st->skip_after = o->skip_after;
	st->nskip_after = o->nskip_after;
	st->key_addr = o->addrs;
	ember_linecache_init(&st->lc);
	ember_intern_init(&st->dsos);
	ember_linecache_init(&st->plc);
	if (o->inline_frames)
		st->inliner =
		    ember_inliner_new(o->context ? EMBER_INLINE_CONTEXT : 0);
	ember_buf_init(&st->tmp, 256);
	ember_buf_init(&st->tmp2, 256);
	ember_buf_init(&st->rootname, 64);
	ember_buf_init(&st->lastroot, 64);
	ember_buf_init(&st->period_buf, 32);
	return st;
}

static void perf_free(void *arg)
{
	struct perf_state *st = arg;

	if (!st)
		return;
	if (st->event && !st->k->event) {
		st->k->event = st->event;
		st->k->event_defaulted = st->event_defaulted;
		st->event = NULL;
	}
	free(st->event);
	free(st->frames);
	free(st->root);
	ember_linecache_release(&st->lc);
	ember_intern_release(&st->dsos);
	ember_linecache_release(&st->plc);
	free(st->pf);
	for (size_t i = 0; i < 16; i++) {
		free(st->last[i].f);
		free(st->last[i].s);
	}
	free(st->func_of);
	free(st->root_frame);
	free(st->dso_map);
	if (st->inliner)
		ember_inliner_free(st->inliner);
	if (st->srcliner)
		ember_inliner_free(st->srcliner);
	ember_buf_release(&st->tmp);
	ember_buf_release(&st->tmp2);
	ember_buf_release(&st->rootname);
	ember_buf_release(&st->lastroot);
	ember_buf_release(&st->period_buf);
	free(st);
}

/* A perf.data file or stream, read whole (perfdata.c). */
static int perf_read(void *arg, struct collapse_input *in)
{
	struct perf_state *st = arg;

	return cl_perfdata_read(st->o, st->k, st, in);
}

/* After the last blank line of p. */
/* A record ends at an empty line. */
static int perf_boundary(const char *s, size_t n)
{
	(void)s;
	return !n;
}

static size_t perf_split(const char *p, size_t len, int file_start)
{
	(void)file_start;
	return cl_split_after(p, 0, len, perf_boundary);
}

/* The first event type a run would see in p, if none is known yet. */
static void perf_settle(struct collapse_shared *sh, const char *p, size_t len,
			int file_start)
{
	const char *end = p + len;

	(void)file_start;
	while (!sh->event && p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		struct event_line ev;
		if (!n || s[0] == '#' || cl_space(s[0]) ||
		    !event_ids(s, n, &ev))
			continue;
		event_name(s, n, &ev);
		if (ev.event) {
			sh->event = ember_xmemdup(ev.event, ev.event_len);
			sh->event_len = ev.event_len;
			sh->event_defaulted = 1;
		}
	}
}

static int perf_parallel(const struct ember_collapse_options *o)
{
	/* --srcline reads ahead across lines; --inline keeps a cache of
	 * debugging information that is not shared between threads */
	return !o->srcline && !o->inline_frames &&
	       /* the sample-level profile: one thread, the samples in
		* input order (jobs would make a profile each to merge) */
	       !o->profile;
}

/* An event line, then a frame line (or the event names an event). */
static int perf_detect(const char *p, size_t len)
{
	const char *end = p + len;
	int seen_event = 0;

	if (cl_perfdata_detect(p, len))
		return 1;
	for (int lines = 0; p < end && lines < 200; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s);
		struct event_line ev;
		struct ember_perf_frame f;
		if (n && s[0] == '#')
			continue;
		if (!n) {
			if (seen_event)
				return 0; /* a sample needs a frame line */
			continue;
		}
		if (seen_event)
			return frame_parts(s, n, &f) && cl_space(s[0]);
		if (cl_space(s[0]) || !event_ids(s, n, &ev))
			return 0;
		seen_event = 1;
	}
	return 0;
}

const struct ember_collapser ember_collapser_perf = {
    .name = "perf",
    .summary = "perf script output (stackcollapse-perf.pl)",
    .detect = perf_detect,
    .parallel = perf_parallel,
    .state_new = perf_new,
    .state_free = perf_free,
    .begin = perf_begin,
    .parse = perf_parse,
    .end = perf_end,
    .split = perf_split,
    .settle = perf_settle,
    .read = perf_read,
    .whole = cl_perfdata_detect,
    .finish = perf_finish,
};

/* ---- samples decoded by a reader (perf.data) ---- */

size_t cl_perf_root(void *arg, const char *comm, size_t n, int pid, int tid,
		    const uint32_t **ids, int *java)
{
	struct perf_state *st = arg;
	char p[16], t[16];
	struct event_line e = {comm, p, t, NULL, NULL, n, 0, 0, 0, 0};

	e.pid_len = (size_t)snprintf(p, sizeof(p), "%d", pid);
	e.tid_len = (size_t)snprintf(t, sizeof(t), "%d", tid);
	if (!tid) {
		/* the idle task, as the text of the same samples reads:
		 * perf script's "swapper 0/0" has the tid 0, false to Perl,
		 * so the pid is unknown ("swapper-?", "swapper-?/0") */
		e.tid_len = (size_t)snprintf(t, sizeof(t), "%d", pid);
		e.pid = "?";
		e.pid_len = 1;
	}
	set_root(st, &e);
	st->open = 0; /* no sample of the text is open */
	*ids = st->root;
	*java = st->java;
	return st->nroot;
}

/* --srcline on perf.data: the line perf script -F+srcline prints after
 * the frame, from the module's DWARF at the frame's address: "file:line"
 * of the innermost function there; without one, perf's "module[address]"
 * (the module's base name).  Read as srcline() reads the text's line. */
static void data_srcline(struct perf_state *st,
			 const struct ember_perf_frame *f)
{
	struct ember_buf buf = EMBER_BUF_INIT, *b = &buf;
	const char *base = memrchr(f->dso, '/', f->dso_len);
	uint64_t addr;

	if (!st->srcliner)
		st->srcliner = ember_inliner_new(EMBER_INLINE_CONTEXT);
	if (inline_candidate(f->dso, f->dso_len) && frame_addr(f, &addr) &&
	    !ember_inliner_lookup(st->srcliner, f->dso, f->dso_len, addr,
				  f->sym, f->sym_len, b) &&
	    b->len) {
		/* "name\tfile:line\n" records, the innermost last */
		const char *e = b->buf + b->len - 1;
		const char *nl = memrchr(b->buf, '\n', (size_t)(e - b->buf));
		const char *r = nl ? nl + 1 : b->buf;
		const char *tab = memchr(r, '\t', (size_t)(e - r));
		if (tab) {
			srcline(st, tab + 1, (size_t)(e - tab - 1));
			ember_buf_release(b);
			return;
		}
	}
	ember_buf_release(b);
	base = base ? base + 1 : f->dso;
	srcline(st, base, (size_t)(f->dso + f->dso_len - base));
}

int cl_perf_frame(void *arg, const struct ember_perf_frame *f, int java,
		  const uint32_t **ids, size_t *n)
{
	struct perf_state *st = arg;

	struct ember_perf_frame parts;
	struct ember_buf *line = &st->period_buf;

	st->n = 0;
	st->skipping = 0;
	st->java = java;
	/* the line perf script prints, read back as the text is read: a
	 * " (" in a symbol or a module splits it there as well */
	ember_buf_reset(line);
	ember_buf_addch(line, '\t');
	ember_buf_add(line, f->addr, f->addr_len);
	ember_buf_addch(line, ' ');
	ember_buf_add(line, f->sym, f->sym_len);
	ember_buf_adds(line, " (");
	ember_buf_add(line, f->dso, f->dso_len);
	ember_buf_addch(line, ')');
	if (frame_parts(line->buf, line->len, &parts)) {
		frame_line(st, &parts);
		if (st->want_srcline)
			data_srcline(st, &parts);
	}
	*ids = st->frames;
	*n = st->n;
	return st->skipping;
}
