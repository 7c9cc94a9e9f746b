/*
 * speedscope out: its JSON file format
 * (https://www.speedscope.app/file-format-schema.json).  Frames are
 * shared, numbered in order of first use; each profile is "sampled", one
 * sample per distinct stack (root first) with its weight, the stacks in
 * the byte order of their folded lines.  When the root frames are threads
 * or processes and there are several, each gets its own profile, named
 * after it, and the root frame is left out of its samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "folded.h"

struct order_ctx {
	const struct ember_stacks *s;
	const struct ember_intern *t;
};

/* The byte order of the stacks' folded lines. */
static int cmp_stacks(const void *a, const void *b, void *arg)
{
	const struct order_ctx *x = arg;
	uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b;
	const struct ember_stack_ent *sa = &x->s->ents[ia],
				     *sb = &x->s->ents[ib];
	size_t na = sa->n, nb = sb->n;
	const uint32_t *fa = x->s->ids + sa->off, *fb = x->s->ids + sb->off;

	for (size_t i = 0; i < na && i < nb; i++) {
		if (fa[i] == fb[i])
			continue;
		const struct ember_intern_ent *ea = &x->t->ents[fa[i]];
		const struct ember_intern_ent *eb = &x->t->ents[fb[i]];
		size_t la = ea->len, lb = eb->len;
		int c = memcmp(ea->s, eb->s, la < lb ? la : lb);
		if (c)
			return c;
		return (la > lb) - (la < lb);
	}
	return (na > nb) - (na < nb);
}

static const char *unit_of(const char *u)
{
	static const char *const units[] = {"nanoseconds", "microseconds",
					    "milliseconds", "seconds", "bytes"};

	for (size_t i = 0; u && i < ARRAY_SIZE(units); i++)
		if (!strcmp(u, units[i]))
			return units[i];
	return "none";
}

static void add_weight(struct ember_buf *b, const struct ember_profile *p,
		       size_t e)
{
	uint64_t x = p->exact && e < p->nexact ? p->exact[e] : UINT64_MAX;
	double d = p->stacks->ents[e].count;

	if (x != UINT64_MAX)
		ember_buf_addu(b, x);
	else if (isfinite(d))
		ember_buf_add_pyfloat(b, d);
	else
		ember_buf_addch(b, '0');
}

/* Folded stacks: one sample per distinct stack. */
static int write_stacks(const struct ember_profile *p, ember_write_fn w,
			void *ctx)
{
	const struct ember_stacks *s = p->stacks;
	size_t n = s->n, nn = ember_intern_count(p->names);
	uint32_t *order = ember_xreallocarray(NULL, n ? n : 1, sizeof(*order));
	uint32_t *index =
	    ember_xreallocarray(NULL, nn ? nn : 1, sizeof(*index));
	uint32_t *used = ember_xreallocarray(NULL, nn ? nn : 1, sizeof(*used));
	struct ember_buf b = EMBER_BUF_INIT;
	struct order_ctx x = {s, p->names};
	size_t nused = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_stacks, &x);
	/* one profile per root frame when there are several threads */
	int split = 0;
	if (p->thread_roots) {
		for (size_t i = 1; i < n && !split; i++) {
			size_t na, nb;
			const uint32_t *fa =
			    ember_stacks_frames(s, order[0], &na);
			const uint32_t *fb =
			    ember_stacks_frames(s, order[i], &nb);
			split = na && nb && fa[0] != fb[0];
		}
	}
	for (size_t i = 0; i < nn; i++)
		index[i] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t fn;
		const uint32_t *f = ember_stacks_frames(s, order[i], &fn);
		for (size_t k = split ? 1 : 0; k < fn; k++)
			if (index[f[k]] == UINT32_MAX) {
				index[f[k]] = (uint32_t)nused;
				used[nused++] = f[k];
			}
	}
	ember_buf_adds(
	    &b,
	    "{\"$schema\":\"https://www.speedscope.app/"
	    "file-format-schema.json\",\n\"exporter\":\"ember " EMBER_VERSION
	    "\",\n\"name\":");
	const char *name = p->name ? p->name : "ember";
	ember_json_str(&b, name, strlen(name));
	ember_buf_adds(&b, ",\n\"activeProfileIndex\":0,\n"
			   "\"shared\":{\"frames\":[");
	for (size_t i = 0; i < nused; i++) {
		size_t len;
		const char *fname = ember_intern_str(p->names, used[i], &len);
		ember_buf_adds(&b, i ? ",\n{\"name\":" : "\n{\"name\":");
		ember_json_str(&b, fname, len);
		ember_buf_addch(&b, '}');
	}
	ember_buf_adds(&b, "]},\n\"profiles\":[");
	const char *unit = unit_of(p->sample_unit);
	for (size_t i = 0; i < n && !err;) {
		/* the stacks of one profile: all, or one root's */
		size_t j = i + 1, fn;
		const uint32_t *f = ember_stacks_frames(s, order[i], &fn);
		while (j < n && split) {
			size_t gn;
			const uint32_t *g =
			    ember_stacks_frames(s, order[j], &gn);
			if (!gn || !fn || g[0] != f[0])
				break;
			j++;
		}
		if (!split)
			j = n;
		ember_buf_adds(&b, i ? ",\n{" : "\n{");
		ember_buf_adds(&b, "\"type\":\"sampled\",\"name\":");
		if (split && fn) {
			size_t len;
			const char *r = ember_intern_str(p->names, f[0], &len);
			ember_json_str(&b, r, len);
		} else {
			ember_json_str(&b, name, strlen(name));
		}
		ember_buf_addf(&b, ",\"unit\":\"%s\",\"startValue\":0,", unit);
		double total = 0;
		for (size_t k = i; k < j; k++)
			total += s->ents[order[k]].count;
		ember_buf_adds(&b, "\"endValue\":");
		if (p->exact) {
			uint64_t sum = 0;
			int exact = 1;
			for (size_t k = i; k < j && exact; k++) {
				uint64_t v = order[k] < p->nexact
						 ? p->exact[order[k]]
						 : UINT64_MAX;
				exact = v != UINT64_MAX &&
					!__builtin_add_overflow(sum, v, &sum);
			}
			if (exact)
				ember_buf_addu(&b, sum);
			else
				ember_buf_add_pyfloat(&b, total);
		} else {
			ember_buf_add_pyfloat(&b, total);
		}
		ember_buf_adds(&b, ",\n\"samples\":[");
		for (size_t k = i; k < j; k++) {
			size_t gn;
			const uint32_t *g =
			    ember_stacks_frames(s, order[k], &gn);
			ember_buf_adds(&b, k > i ? ",[" : "[");
			for (size_t q = split ? 1 : 0; q < gn; q++)
				ember_buf_addf(&b, "%s%u",
					       q > (split ? 1u : 0u) ? "," : "",
					       index[g[q]]);
			ember_buf_addch(&b, ']');
			if (b.len > (1 << 16)) {
				err = w(ctx, b.buf, b.len);
				ember_buf_reset(&b);
			}
		}
		ember_buf_adds(&b, "],\n\"weights\":[");
		for (size_t k = i; k < j && !err; k++) {
			if (k > i)
				ember_buf_addch(&b, ',');
			add_weight(&b, p, order[k]);
			if (b.len > (1 << 16)) {
				err = w(ctx, b.buf, b.len);
				ember_buf_reset(&b);
			}
		}
		ember_buf_adds(&b, "]}");
		i = j;
	}
	ember_buf_adds(&b, "]}\n");
	if (!err)
		err = w(ctx, b.buf, b.len);
	ember_buf_release(&b);
	free(order);
	free(index);
	free(used);
	return err;
}

/* ---- the sample-level profile ------------------------------------------ */

struct ss {
	const struct ember_prof *p;
	struct ember_buf b;
	/* per func: its index in shared.frames (UINT32_MAX: unused) */
	uint32_t *findex;
	uint32_t *used; /* the funcs of shared.frames, in order */
	size_t nused;
	/* per stack node: its "i,j,k" (root first) at cache[off .. off +
	 * len), len UINT32_MAX: not made yet */
	struct ember_buf cache;
	size_t *coff;
	uint32_t *clen;
	uint32_t *fr;
	size_t afr;
	size_t tt;   /* the time type, SIZE_MAX: none */
	uint64_t ns; /* ns per its unit */
	size_t wt;   /* the type of the weights */
};

static uint32_t frame_index(struct ss *x, uint32_t frame)
{
	uint32_t f = x->p->frames[frame].func;

	if (x->findex[f] == UINT32_MAX) {
		x->findex[f] = (uint32_t)x->nused;
		x->used[x->nused++] = f;
	}
	return x->findex[f];
}

/* Sample i's frames as "i,j,k" into b (when out), numbering the frames
 * first seen. */
static void add_stack(struct ss *x, size_t i, uint32_t thread, int out)
{
	uint32_t s = x->p->stack[i];

	if (thread != EMBER_PROF_NONE && x->clen[s] != UINT32_MAX) {
		if (out)
			ember_buf_add(&x->b, x->cache.buf + x->coff[s],
				      x->clen[s]);
		return;
	}
	size_t n = ember_exp_frames(x->p, s, thread, &x->fr, &x->afr);
	size_t at = x->cache.len;
	for (size_t k = 0; k < n; k++) {
		if (k)
			ember_buf_addch(&x->cache, ',');
		ember_buf_addu(&x->cache, frame_index(x, x->fr[k]));
	}
	if (out)
		ember_buf_add(&x->b, x->cache.buf + at, x->cache.len - at);
	if (thread != EMBER_PROF_NONE) {
		x->coff[s] = at;
		x->clen[s] = (uint32_t)(x->cache.len - at);
	} else {
		ember_buf_setlen(&x->cache, at);
	}
}

static void add_value(struct ember_buf *b, const struct ember_prof *p, size_t t,
		      size_t i)
{
	uint64_t v;
	double d;

	if (!ember_prof_value_u64(p, t, i, &v))
		ember_buf_addu(b, v);
	else if (isfinite(d = ember_prof_value(p, t, i)) && d > 0)
		ember_buf_add_pyfloat(b, d);
	else
		ember_buf_addch(b, '0');
}

/* One sampled profile: the samples of group g. */
static void write_group(struct ss *x, const struct ember_exp_groups *g,
			size_t k, const char *name, ember_write_fn w, void *ctx,
			int *err)
{
	const struct ember_prof *p = x->p;
	uint32_t thread = g->thread[k];
	const uint32_t *idx = g->idx + g->off[k];
	size_t n = g->off[k + 1] - g->off[k];
	const char *unit =
	    x->tt != SIZE_MAX
		? unit_of(ember_prof_s(p, p->types[x->tt].unit, NULL))
		: unit_of(ember_prof_s(p, p->types[x->wt].unit, NULL));

	ember_buf_adds(&x->b, k ? ",\n{" : "\n{");
	ember_buf_adds(&x->b, "\"type\":\"sampled\",\"name\":");
	if (thread != EMBER_PROF_NONE) {
		struct ember_buf t = EMBER_BUF_INIT;
		ember_exp_thread_title(&t, p, thread);
		ember_json_str(&x->b, t.buf, t.len);
		ember_buf_release(&t);
	} else {
		ember_json_str(&x->b, name, strlen(name));
	}
	/* the sum of the weights, and the span of the times */
	double sum = 0, start = 0, end = 0;
	for (size_t i = 0; i < n; i++)
		sum += ember_prof_value(p, x->wt, idx[i]);
	if (x->tt != SIZE_MAX && p->flags & EMBER_PROF_HAS_TIME && n) {
		double ns = (double)x->ns;
		start = (double)(p->time[idx[0]] - p->time_zero) / ns;
		start = floor(start);
		end = floor((double)(p->time[idx[n - 1]] - p->time_zero) / ns) +
		      ember_prof_value(p, x->wt, idx[n - 1]);
	}
	if (end < start + sum)
		end = start + sum;
	ember_buf_addf(&x->b, ",\"unit\":\"%s\",\"startValue\":", unit);
	ember_buf_add_pyfloat(&x->b, start);
	ember_buf_adds(&x->b, ",\"endValue\":");
	ember_buf_add_pyfloat(&x->b, end);
	ember_buf_adds(&x->b, ",\n\"samples\":[");
	for (size_t i = 0; i < n; i++) {
		ember_buf_adds(&x->b, i ? ",[" : "[");
		add_stack(x, idx[i], thread, 1);
		ember_buf_addch(&x->b, ']');
		ember_exp_flush(&x->b, w, ctx, err);
	}
	ember_buf_adds(&x->b, "],\n\"weights\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			ember_buf_addch(&x->b, ',');
		add_value(&x->b, p, x->wt, idx[i]);
		ember_exp_flush(&x->b, w, ctx, err);
	}
	ember_buf_adds(&x->b, "]}");
}

/* Per thread a sampled profile, its samples in time order, each weighing
 * its time (the period of a CPU sample, the length of a wait); shared
 * frames, one per function (its start line, so that speedscope keeps a
 * box per function). */
static int write_prof(const struct ember_profile *pr, ember_write_fn w,
		      void *ctx)
{
	const struct ember_prof *p = pr->prof;
	struct ss x = {.p = p, .b = EMBER_BUF_INIT, .cache = EMBER_BUF_INIT};
	struct ember_exp_groups g;
	struct ember_buf head = EMBER_BUF_INIT;
	const char *name = pr->name ? pr->name : "ember";
	int err = 0;

	x.findex = ember_xreallocarray(NULL, p->nfuncs + 1, sizeof(uint32_t));
	x.used = ember_xreallocarray(NULL, p->nfuncs + 1, sizeof(uint32_t));
	memset(x.findex, 0xff, (p->nfuncs + 1) * sizeof(uint32_t));
	x.coff = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(size_t));
	x.clen = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(uint32_t));
	memset(x.clen, 0xff, (p->nstacks + 1) * sizeof(uint32_t));
	x.afr = 64;
	x.fr = ember_xreallocarray(NULL, x.afr, sizeof(uint32_t));
	x.tt = ember_exp_time_type(p, &x.ns);
	x.wt = x.tt != SIZE_MAX ? x.tt : p->ntypes ? p->ntypes - 1 : 0;
	ember_exp_groups_init(&g, p);

	/* the busiest thread is shown first */
	size_t active = 0;
	double best = -1;
	for (size_t k = 0; k < g.n && p->ntypes; k++) {
		double s = 0;
		for (size_t i = g.off[k]; i < g.off[k + 1]; i++)
			s += ember_prof_value(p, x.wt, g.idx[i]);
		if (s > best) {
			best = s;
			active = k;
		}
	}
	/* the frames, numbered in order of first use */
	for (size_t k = 0; k < g.n; k++)
		for (size_t i = g.off[k]; i < g.off[k + 1]; i++)
			add_stack(&x, g.idx[i], g.thread[k], 0);
	ember_buf_adds(
	    &head,
	    "{\"$schema\":\"https://www.speedscope.app/"
	    "file-format-schema.json\",\n\"exporter\":\"ember " EMBER_VERSION
	    "\",\n\"name\":");
	ember_json_str(&head, name, strlen(name));
	ember_buf_addf(&head,
		       ",\n\"activeProfileIndex\":%zu,\n"
		       "\"shared\":{\"frames\":[",
		       active);
	for (size_t i = 0; i < x.nused; i++) {
		const struct ember_prof_func *f = &p->funcs[x.used[i]];
		ember_buf_adds(&head, i ? ",\n{\"name\":" : "\n{\"name\":");
		ember_json_strid(&head, p, f->name);
		if (f->file) {
			ember_buf_adds(&head, ",\"file\":");
			ember_json_strid(&head, p, f->file);
		}
		if (f->start_line)
			ember_buf_addf(&head, ",\"line\":%u", f->start_line);
		ember_buf_addch(&head, '}');
	}
	ember_buf_adds(&head, "]},\n\"profiles\":[");
	err = w(ctx, head.buf, head.len);
	for (size_t k = 0; k < g.n && p->ntypes && !err; k++)
		write_group(&x, &g, k, name, w, ctx, &err);
	ember_buf_adds(&x.b, "]}\n");
	if (!err)
		err = w(ctx, x.b.buf, x.b.len);
	ember_buf_release(&head);
	ember_buf_release(&x.b);
	ember_buf_release(&x.cache);
	ember_exp_groups_release(&g);
	free(x.findex);
	free(x.used);
	free(x.coff);
	free(x.clen);
	free(x.fr);
	return err;
}

int ember_speedscope_write(const struct ember_profile *p, ember_write_fn w,
			   void *ctx)
{
	/* folded stacks, and profiles that know no more than them */
	if (!p->prof ||
	    !(p->prof->flags & (EMBER_PROF_HAS_TIME | EMBER_PROF_HAS_THREADS |
				EMBER_PROF_HAS_LINES)))
		return write_stacks(p, w, ctx);
	return write_prof(p, w, ctx);
}
