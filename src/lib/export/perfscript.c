/*
 * perf script out: the text `perf script` prints for sampling events, in
 * the shape every importer of it reads (stackcollapse-perf.pl, ember
 * collapse perf, speedscope, the Firefox Profiler, Perfetto):
 *
 *	comm pid/tid [cpu] seconds.micros: period event:
 *	\t<address in hex> <symbol>+0x0 (<dso>)	(leaf first)
 *	<blank line>
 *
 * in time order.  The period is the sample's time weight (what FlameGraph
 * counts), the event the time type's name.  Thread and process roots are
 * left out (the first line names the thread).  Folded stacks (no times,
 * no threads) become one sample per stack, its count as the period, at
 * time 0, its root frame the comm (which perf's importers make the root
 * again).
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stacks.h"

/* A name or path as a field: no spaces or parentheses, which split
 * fields in the importers' patterns. */
static void add_field(struct ember_buf *b, const char *s, size_t n, int dso)
{
	size_t i = 0;

	for (;;) {
		size_t k = i;
		while (k < n && s[k] != '\n' && s[k] != '\t' &&
		       (!dso || (s[k] != ' ' && s[k] != '(' && s[k] != ')')))
			k++;
		ember_buf_add(b, s + i, k - i);
		if (k == n)
			return;
		ember_buf_addch(b, '_');
		i = k + 1;
	}
}

/* "\t%16llx " without printf's cost (it is most of the output). */
static void add_hex16(struct ember_buf *b, uint64_t a)
{
	char s[18];
	int i = 16;

	s[0] = '\t';
	s[17] = ' ';
	do {
		s[i--] = "0123456789abcdef"[a & 15];
		a >>= 4;
	} while (a && i > 0);
	while (i > 0)
		s[i--] = ' ';
	ember_buf_add(b, s, sizeof(s));
}

/* u in decimal, at least width digits wide, padded on the left with pad
 * (printf's "%0*llu" or "%*llu"). */
static void add_dec(struct ember_buf *b, uint64_t u, int width, char pad)
{
	char s[24];
	int i = sizeof(s);

	do {
		s[--i] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while ((int)sizeof(s) - i < width)
		s[--i] = pad;
	ember_buf_add(b, s + i, sizeof(s) - (size_t)i);
}

static void add_int(struct ember_buf *b, int v)
{
	if (v < 0) {
		ember_buf_addch(b, '-');
		add_dec(b, -(uint64_t)v, 0, ' ');
	} else {
		add_dec(b, (uint64_t)v, 0, ' ');
	}
}

/* A comm: a nameless thread's is ":TID", as perf names a thread it has
 * seen no comm for. */
static void add_comm(struct ember_buf *b, const char *s, size_t n, int tid)
{
	if (!n) {
		ember_buf_addch(b, ':');
		add_int(b, tid);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ember_buf_addch(b, s[i] == '\n' || s[i] == '\t' ? ' ' : s[i]);
}

/* A frame's line, "\t<address> <symbol>+0x0 (<dso>)\n". */
static void add_frame(struct ember_buf *b, const struct ember_prof *p,
		      const struct ember_prof_frame *f)
{
	size_t len;
	const char *name = ember_prof_s(p, p->funcs[f->func].name, &len);

	add_hex16(b, f->address);
	add_field(b, name, len, 0);
	ember_buf_add(b, "+0x0 (", 6);
	if (f->mapping != EMBER_PROF_NONE) {
		const char *path =
		    ember_prof_s(p, p->maps[f->mapping].path, &len);
		add_field(b, path, len, 1);
	} else {
		ember_buf_add(b, "[unknown]", 9);
	}
	ember_buf_add(b, ")\n", 2);
}

/* The frames' lines, each made once, where a frame is met first: most
 * samples' frames have been met before. */
struct lines {
	struct ember_buf text;
	size_t *off; /* per frame, into text; SIZE_MAX: not made yet */
	uint32_t *len;
};

static void add_frame_line(struct ember_buf *b, struct lines *l,
			   const struct ember_prof *p, uint32_t fi)
{
	if (l->off[fi] == SIZE_MAX) {
		size_t at = l->text.len;
		add_frame(&l->text, p, &p->frames[fi]);
		l->off[fi] = at;
		l->len[fi] = (uint32_t)(l->text.len - at);
	}
	ember_buf_add(b, l->text.buf + l->off[fi], l->len[fi]);
}

static int write_prof(const struct ember_prof *p, const char *title,
		      ember_write_fn w, void *ctx)
{
	struct ember_buf b = EMBER_BUF_INIT, ev = EMBER_BUF_INIT;
	struct lines l = {EMBER_BUF_INIT, NULL, NULL};
	size_t max = 64, wt;
	uint32_t *fr = ember_xreallocarray(NULL, max, sizeof(*fr));
	uint64_t ns = 0;
	int err = 0, timed = p->flags & EMBER_PROF_HAS_TIME;

	if (!p->ntypes) {
		free(fr);
		return EMBER_EINVAL;
	}
	size_t tt = ember_exp_time_type(p, &ns);
	struct ember_exp_ids ids;
	wt = tt != SIZE_MAX ? tt : p->ntypes - 1;
	ember_exp_ids_init(&ids, p);
	size_t elen;
	const char *event = ember_prof_s(p, p->types[wt].type, &elen);
	if (!elen || !strcmp(event, "samples")) {
		event = "cpu-clock";
		elen = strlen(event);
	}
	/* " event:\n", the same for every sample */
	ember_buf_addch(&ev, ' ');
	add_field(&ev, event, elen, 1);
	ember_buf_add(&ev, ":\n", 2);
	l.off = ember_xreallocarray(NULL, p->nframes + 1, sizeof(*l.off));
	l.len = ember_xreallocarray(NULL, p->nframes + 1, sizeof(*l.len));
	for (size_t i = 0; i < p->nframes; i++)
		l.off[i] = SIZE_MAX;
	for (size_t i = 0; i < p->n && !err; i++) {
		uint32_t th = p->thread[i];
		const char *comm = title;
		size_t clen = strlen(title), skip = 0;
		int pid = 0, tid = 0;
		size_t n = ember_exp_frames(p, p->stack[i], th, &fr, &max);
		if (th != EMBER_PROF_NONE) {
			const struct ember_prof_thread *t = &p->threads[th];
			comm = ember_prof_s(p, t->name, &clen);
			if (!clen)
				comm = ember_prof_s(
				    p, p->procs[t->process].name, &clen);
			pid = ids.pid[th];
			tid = ids.tid[th];
		} else if (n) {
			/* no thread: the root frame, as perf's importers make
			 * the comm the root (when it can be one) */
			size_t len;
			const char *r = ember_prof_s(
			    p, p->funcs[p->frames[fr[0]].func].name, &len);
			if (len && r[0] != ' ' && r[0] != '\t') {
				comm = r;
				clen = len;
				skip = 1;
			}
		}
		/* "comm pid/tid [cpu] seconds.micros: period event:" */
		add_comm(&b, comm, clen, tid);
		ember_buf_addch(&b, ' ');
		add_int(&b, pid);
		ember_buf_addch(&b, '/');
		add_int(&b, tid);
		if (p->flags & EMBER_PROF_HAS_CPU && p->cpu[i] != UINT16_MAX) {
			ember_buf_add(&b, " [", 2);
			add_dec(&b, p->cpu[i], 3, '0');
			ember_buf_addch(&b, ']');
		}
		uint64_t t = timed ? p->time[i] : 0;
		ember_buf_addch(&b, ' ');
		add_dec(&b, t / 1000000000, 0, ' ');
		ember_buf_addch(&b, '.');
		add_dec(&b, t % 1000000000 / 1000, 6, '0');
		ember_buf_add(&b, ": ", 2);
		uint64_t v;
		if (ember_prof_value_u64(p, wt, i, &v))
			v = (uint64_t)(ember_prof_value(p, wt, i) + 0.5);
		add_dec(&b, v, 10, ' ');
		ember_buf_add(&b, ev.buf, ev.len);
		while (n-- > skip)
			add_frame_line(&b, &l, p, fr[n]);
		ember_buf_addch(&b, '\n');
		ember_exp_flush(&b, w, ctx, &err);
	}
	if (!err)
		err = w(ctx, b.buf, b.len);
	ember_buf_release(&b);
	ember_buf_release(&ev);
	ember_buf_release(&l.text);
	free(l.off);
	free(l.len);
	ember_exp_ids_release(&ids);
	free(fr);
	return err;
}

int ember_perfscript_write(const struct ember_profile *p, ember_write_fn w,
			   void *ctx)
{
	const char *title = p->name ? p->name : "ember";

	struct ember_prof tmp;
	int err = write_prof(ember_exp_profile(p, &tmp), title, w, ctx);
	ember_prof_release(&tmp);
	return err;
}
