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
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '\n' || c == '\t' ||
		    (dso && (c == ' ' || c == '(' || c == ')')))
			c = '_';
		ember_buf_addch(b, c);
	}
}

static void add_comm(struct ember_buf *b, const char *s, size_t n)
{
	if (!n) {
		ember_buf_adds(b, ":-1");
		return;
	}
	for (size_t i = 0; i < n; i++)
		ember_buf_addch(b, s[i] == '\n' || s[i] == '\t' ? ' ' : s[i]);
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

static int write_prof(const struct ember_prof *p, const char *title,
		      ember_write_fn w, void *ctx)
{
	struct ember_buf b = EMBER_BUF_INIT;
	size_t max = 64, wt;
	uint32_t *fr = ember_xreallocarray(NULL, max, sizeof(*fr));
	uint64_t ns = 0;
	int err = 0, timed = p->flags & EMBER_PROF_HAS_TIME;

	if (!p->ntypes)
		return EMBER_EINVAL;
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
		add_comm(&b, comm, clen);
		ember_buf_addf(&b, " %d/%d", pid, tid);
		if (p->flags & EMBER_PROF_HAS_CPU && p->cpu[i] != UINT16_MAX)
			ember_buf_addf(&b, " [%03u]", p->cpu[i]);
		uint64_t t = timed ? p->time[i] : 0;
		ember_buf_addf(
		    &b, " %llu.%06llu: ", (unsigned long long)(t / 1000000000),
		    (unsigned long long)(t % 1000000000 / 1000));
		uint64_t v;
		if (ember_prof_value_u64(p, wt, i, &v))
			v = (uint64_t)(ember_prof_value(p, wt, i) + 0.5);
		ember_buf_addf(&b, "%10llu ", (unsigned long long)v);
		add_field(&b, event, elen, 1);
		ember_buf_adds(&b, ":\n");
		while (n-- > skip) {
			const struct ember_prof_frame *f = &p->frames[fr[n]];
			size_t len;
			const char *name =
			    ember_prof_s(p, p->funcs[f->func].name, &len);
			add_hex16(&b, f->address);
			add_field(&b, name, len, 0);
			ember_buf_adds(&b, "+0x0 (");
			if (f->mapping != EMBER_PROF_NONE) {
				const char *path = ember_prof_s(
				    p, p->maps[f->mapping].path, &len);
				add_field(&b, path, len, 1);
			} else {
				ember_buf_adds(&b, "[unknown]");
			}
			ember_buf_adds(&b, ")\n");
		}
		ember_buf_addch(&b, '\n');
		ember_exp_flush(&b, w, ctx, &err);
	}
	if (!err)
		err = w(ctx, b.buf, b.len);
	ember_buf_release(&b);
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
