/*
 * Firefox Profiler out: its processed format at version 66 (the shape
 * samply writes; the profiler upgrades older versions itself, and a newer
 * one than a deployment knows fails there).  Tables are columns: shared
 * stack, frame, function, resource, source and string tables, one thread
 * object per OS thread with its samples (time in ms from meta.startTime,
 * sorted), libraries from the profile's mappings.
 *
 * Rows: a stack per profile stack node (parents first, as the profile's
 * prefix tree keeps them), thread and process roots left out (threads are
 * the profile's own); a frame per (profile frame, whether it calls
 * another), because the profiler wants the address of a caller minus one
 * (inside the call instruction) and library-relative; a function per
 * profile function; a resource per library.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stacks.h"

#define LIBNAME 0x80000000u

enum { CAT_OTHER, CAT_USER, CAT_KERNEL, CAT_JIT, CAT_INTERP, CAT_OFFCPU };

struct ff {
	const struct ember_prof *p;
	struct ember_buf b;
	struct ember_exp_ids ids;
	ember_write_fn w;
	void *ctx;
	int err;
	/* strings: per profile string its index + 1 (0: not yet) */
	uint32_t *sidx;
	uint32_t *strs;
	size_t nstrs;
	/* libraries: per mapping its lib (UINT32_MAX: none); per lib its
	 * first mapping */
	uint32_t *maplib;
	uint32_t *libmap;
	size_t nlibs;
	/* sources: per profile string (a file) its source + 1 */
	uint32_t *srcidx;
	uint32_t *srcs;
	size_t nsrcs;
	/* per function its resource (-1 none) */
	int32_t *fres;
	/* per stack node: its row (UINT32_MAX: left out), whether it calls */
	uint32_t *srow;
	uint8_t *caller;
	uint32_t *sparent; /* its row's parent row (UINT32_MAX: root) */
	uint32_t *sframe;  /* its row's frame row */
	size_t nsrows;
	/* per profile frame: its rows + 1 as leaf, as caller */
	uint32_t *frow[2];
	uint32_t *rframe; /* per frame row: the profile frame */
	uint8_t *rcall;	  /* and whether it is a caller's */
	size_t nfrows;
};

static uint32_t str(struct ff *x, uint32_t id)
{
	if (!x->sidx[id]) {
		x->strs[x->nstrs++] = id;
		x->sidx[id] = (uint32_t)x->nstrs;
	}
	return x->sidx[id] - 1;
}

static void add_ms(struct ember_buf *b, uint64_t ns)
{
	uint64_t us = (ns + 500) / 1000;
	char frac[5] = {'.', 0, 0, 0, 0};

	ember_buf_addu(b, us / 1000);
	if (us % 1000) {
		uint64_t f = us % 1000;
		for (int i = 3; i >= 1; i--, f /= 10)
			frac[i] = (char)('0' + f % 10);
		size_t n = 4;
		while (frac[n - 1] == '0')
			n--;
		ember_buf_add(b, frac, n);
	}
}

static int category(const struct ember_prof_frame *f)
{
	switch (f->kind) {
	case EMBER_PROF_USER:
		return CAT_USER;
	case EMBER_PROF_KERNEL:
		return CAT_KERNEL;
	case EMBER_PROF_JIT:
		return CAT_JIT;
	case EMBER_PROF_INTERP:
		return CAT_INTERP;
	case EMBER_PROF_OFFCPU:
		return CAT_OFFCPU;
	default:
		return CAT_OTHER;
	}
}

/* The libraries: one per distinct (path, build id) of the mappings. */
static void make_libs(struct ff *x)
{
	const struct ember_prof *p = x->p;

	x->maplib = ember_xreallocarray(NULL, p->nmaps + 1, sizeof(uint32_t));
	x->libmap = ember_xreallocarray(NULL, p->nmaps + 1, sizeof(uint32_t));
	for (size_t m = 0; m < p->nmaps; m++) {
		const struct ember_prof_mapping *mm = &p->maps[m];
		size_t l;
		for (l = 0; l < x->nlibs; l++) {
			const struct ember_prof_mapping *o =
			    &p->maps[x->libmap[l]];
			if (o->path == mm->path && o->build_id == mm->build_id)
				break;
		}
		if (l == x->nlibs)
			x->libmap[x->nlibs++] = (uint32_t)m;
		x->maplib[m] = (uint32_t)l;
	}
}

/* The stack rows and the frame rows they use. */
static void make_stacks(struct ff *x)
{
	const struct ember_prof *p = x->p;
	size_t ns = p->nstacks;

	x->srow = ember_xreallocarray(NULL, ns + 1, sizeof(uint32_t));
	x->sparent = ember_xreallocarray(NULL, ns + 1, sizeof(uint32_t));
	x->sframe = ember_xreallocarray(NULL, ns + 1, sizeof(uint32_t));
	x->caller = ember_xcalloc(ns + 1, 1);
	for (int k = 0; k < 2; k++)
		x->frow[k] = ember_xcalloc(p->nframes + 1, sizeof(uint32_t));
	x->rframe =
	    ember_xreallocarray(NULL, 2 * p->nframes + 1, sizeof(uint32_t));
	x->rcall = ember_xcalloc(2 * p->nframes + 1, 1);
	/* a node calls when a child is another function's frame (inline
	 * depth 0) or an inlined frame of its own that calls */
	for (size_t s = ns; s--;) {
		uint32_t par = p->stacks[s].parent;
		if (par == EMBER_PROF_NONE)
			continue;
		const struct ember_prof_frame *f =
		    &p->frames[p->stacks[s].frame];
		if (!f->inline_depth || x->caller[s])
			x->caller[par] = 1;
	}
	int roots = !!(p->flags & EMBER_PROF_THREAD_ROOTS);
	for (size_t s = 0; s < ns; s++) {
		uint32_t par = p->stacks[s].parent, fr = p->stacks[s].frame;
		if (par == EMBER_PROF_NONE && roots &&
		    p->frames[fr].kind == EMBER_PROF_SYNTHETIC) {
			x->srow[s] = UINT32_MAX;
			continue;
		}
		int c = x->caller[s];
		if (!x->frow[c][fr]) {
			x->rframe[x->nfrows] = fr;
			x->rcall[x->nfrows] = (uint8_t)c;
			x->frow[c][fr] = (uint32_t)++x->nfrows;
		}
		x->srow[s] = (uint32_t)x->nsrows;
		x->sparent[x->nsrows] =
		    par == EMBER_PROF_NONE ? UINT32_MAX : x->srow[par];
		x->sframe[x->nsrows++] = x->frow[c][fr] - 1;
	}
}

static void make_funcs(struct ff *x)
{
	const struct ember_prof *p = x->p;

	x->fres = ember_xreallocarray(NULL, p->nfuncs + 1, sizeof(int32_t));
	for (size_t f = 0; f < p->nfuncs; f++)
		x->fres[f] = -1;
	for (size_t f = 0; f < p->nframes; f++) {
		const struct ember_prof_frame *fr = &p->frames[f];
		if (fr->mapping != EMBER_PROF_NONE && x->fres[fr->func] < 0)
			x->fres[fr->func] = (int32_t)x->maplib[fr->mapping];
	}
	x->srcidx =
	    ember_xcalloc(ember_intern_count(&p->strs) + 1, sizeof(uint32_t));
	x->srcs = ember_xreallocarray(NULL, p->nfuncs + 1, sizeof(uint32_t));
	for (size_t f = 0; f < p->nfuncs; f++) {
		uint32_t file = p->funcs[f].file;
		if (file && !x->srcidx[file]) {
			x->srcs[x->nsrcs++] = file;
			x->srcidx[file] = (uint32_t)x->nsrcs;
		}
	}
}

/* "name":[...] of n values by fn. */
#define COLUMN(x, name, n, ...)                                                \
	do {                                                                   \
		ember_buf_adds(&(x)->b, ",\"" name "\":[");                    \
		for (size_t i_ = 0; i_ < (n); i_++) {                          \
			if (i_)                                                \
				ember_buf_addch(&(x)->b, ',');                 \
			__VA_ARGS__;                                           \
			ember_exp_flush(&(x)->b, (x)->w, (x)->ctx, &(x)->err); \
		}                                                              \
		ember_buf_addch(&(x)->b, ']');                                 \
	} while (0)

#define NULLS(x, name, n) COLUMN(x, name, n, ember_buf_adds(&(x)->b, "null"))

static void add_i(struct ember_buf *b, int64_t v)
{
	ember_buf_addf(b, "%lld", (long long)v);
}

static const char *basename_of(const char *s)
{
	const char *slash = strrchr(s, '/');
	return slash ? slash + 1 : s;
}

/* breakpad's id: the build id's first 16 bytes as a GUID (its first
 * three fields byte-swapped), uppercase, then the age 0. */
static void add_breakpad(struct ember_buf *b, const char *hex, size_t len)
{
	static const int order[16] = {3, 2, 1,	0,  5,	4,  7,	6,
				      8, 9, 10, 11, 12, 13, 14, 15};

	ember_buf_addch(b, '"');
	for (int i = 0; i < 16; i++) {
		size_t at = (size_t)order[i] * 2;
		for (int k = 0; k < 2; k++) {
			char c =
			    at + (size_t)k < len ? hex[at + (size_t)k] : '0';
			if (c >= 'a' && c <= 'f')
				c = (char)(c - 'a' + 'A');
			ember_buf_addch(b, c);
		}
	}
	ember_buf_adds(b, "0\"");
}

static void write_meta(struct ff *x, const char *title, size_t active)
{
	const struct ember_prof *p = x->p;
	uint64_t interval = 1000000;

	if (p->period > 0 &&
	    !strcmp(ember_prof_s(p, p->period_type.unit, NULL), "nanoseconds"))
		interval = (uint64_t)p->period;
	ember_buf_adds(
	    &x->b, "{\"meta\":{\"version\":24,\"preprocessedProfileVersion\":"
		   "66,\"processType\":0,\"stackwalk\":1,\"interval\":");
	add_ms(&x->b, interval);
	ember_buf_adds(&x->b, ",\"startTime\":");
	add_ms(&x->b, p->start_ns > 0 ? (uint64_t)p->start_ns : 0);
	ember_buf_adds(&x->b,
		       ",\"profilingStartTime\":0,\"profilingEndTime\":");
	add_ms(&x->b, p->duration_ns);
	ember_buf_adds(&x->b, ",\"product\":");
	ember_json_str(&x->b, title, strlen(title));
	ember_buf_addf(
	    &x->b,
	    ",\"symbolicated\":true,\"usesOnlyOneStackType\":true,"
	    "\"sourceCodeIsNotOnSearchfox\":true,\"markerSchema\":[],"
	    "\"initialSelectedThreads\":[%zu],"
	    "\"sampleUnits\":{\"time\":\"ms\",\"eventDelay\":\"ms\","
	    "\"threadCPUDelta\":\"ns\"},\n\"categories\":["
	    "{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":"
	    "[\"Other\"]},"
	    "{\"name\":\"User\",\"color\":\"yellow\",\"subcategories\":"
	    "[\"Other\"]},"
	    "{\"name\":\"Kernel\",\"color\":\"orange\",\"subcategories\":"
	    "[\"Other\"]},"
	    "{\"name\":\"JIT\",\"color\":\"green\",\"subcategories\":"
	    "[\"Other\"]},"
	    "{\"name\":\"Interpreted\",\"color\":\"blue\",\"subcategories\":"
	    "[\"Other\"]},"
	    "{\"name\":\"Off-CPU\",\"color\":\"lightblue\",\"subcategories\":"
	    "[\"Other\"]}]},\n",
	    active);
}

static void write_libs(struct ff *x)
{
	const struct ember_prof *p = x->p;
	const char *arch =
#if defined(__x86_64__)
	    "x86_64";
#elif defined(__aarch64__)
	    "arm64";
#else
	    "";
#endif

	ember_buf_adds(&x->b, "\"libs\":[");
	for (size_t l = 0; l < x->nlibs; l++) {
		const struct ember_prof_mapping *m = &p->maps[x->libmap[l]];
		size_t len, blen;
		const char *path = ember_prof_s(p, m->path, &len);
		const char *bid = ember_prof_s(p, m->build_id, &blen);
		const char *name = basename_of(path);
		ember_buf_adds(&x->b, l ? ",\n{\"name\":" : "\n{\"name\":");
		ember_json_str(&x->b, name, len - (size_t)(name - path));
		ember_buf_adds(&x->b, ",\"path\":");
		ember_json_str(&x->b, path, len);
		ember_buf_adds(&x->b, ",\"debugName\":");
		ember_json_str(&x->b, name, len - (size_t)(name - path));
		ember_buf_adds(&x->b, ",\"debugPath\":");
		ember_json_str(&x->b, path, len);
		ember_buf_adds(&x->b, ",\"breakpadId\":");
		if (blen)
			add_breakpad(&x->b, bid, blen);
		else
			ember_buf_adds(&x->b, "\"\"");
		ember_buf_adds(&x->b, ",\"codeId\":");
		if (blen)
			ember_json_str(&x->b, bid, blen);
		else
			ember_buf_adds(&x->b, "null");
		ember_buf_addf(&x->b, ",\"arch\":\"%s\"}", arch);
	}
	ember_buf_adds(&x->b, "],\n");
}

/* The address of frame row r, library-relative (-1: none). */
static int64_t rel_address(const struct ff *x, size_t r)
{
	const struct ember_prof *p = x->p;
	const struct ember_prof_frame *f = &p->frames[x->rframe[r]];

	if (f->mapping == EMBER_PROF_NONE || !f->address ||
	    f->kind == EMBER_PROF_INTERP || f->kind == EMBER_PROF_SYNTHETIC)
		return -1;
	const struct ember_prof_mapping *m = &p->maps[f->mapping];
	uint64_t base = m->start - m->offset;
	if (f->address < base)
		return -1;
	uint64_t a = f->address - base;
	if (x->rcall[r] && a)
		a--;
	return a > INT64_MAX ? -1 : (int64_t)a;
}

static void write_shared(struct ff *x)
{
	const struct ember_prof *p = x->p;

	ember_buf_addf(&x->b, "\"shared\":{\"stackTable\":{\"length\":%zu",
		       x->nsrows);
	COLUMN(x, "frame", x->nsrows, ember_buf_addu(&x->b, x->sframe[i_]));
	COLUMN(x, "prefixOffset", x->nsrows,
	       ember_buf_addu(&x->b, x->sparent[i_] == UINT32_MAX
					 ? 0
					 : i_ - x->sparent[i_]));
	ember_buf_addf(&x->b, "},\n\"frameTable\":{\"length\":%zu", x->nfrows);
	COLUMN(x, "func", x->nfrows,
	       ember_buf_addu(&x->b, p->frames[x->rframe[i_]].func));
	COLUMN(x, "address", x->nfrows, add_i(&x->b, rel_address(x, i_)));
	COLUMN(x, "inlineDepth", x->nfrows,
	       ember_buf_addu(&x->b, p->frames[x->rframe[i_]].inline_depth));
	COLUMN(x, "category", x->nfrows,
	       ember_buf_addu(&x->b,
			      (uint64_t)category(&p->frames[x->rframe[i_]])));
	COLUMN(x, "subcategory", x->nfrows, ember_buf_addch(&x->b, '0'));
	NULLS(x, "nativeSymbol", x->nfrows);
	COLUMN(x, "innerWindowID", x->nfrows, ember_buf_addch(&x->b, '0'));
	COLUMN(x, "line", x->nfrows, {
		uint32_t l = p->frames[x->rframe[i_]].line;
		if (l)
			ember_buf_addu(&x->b, l);
		else
			ember_buf_adds(&x->b, "null");
	});
	NULLS(x, "column", x->nfrows);
	NULLS(x, "originalLocation", x->nfrows);
	ember_buf_addf(&x->b, "},\n\"funcTable\":{\"length\":%zu", p->nfuncs);
	COLUMN(x, "name", p->nfuncs,
	       ember_buf_addu(&x->b, str(x, p->funcs[i_].name)));
	COLUMN(x, "isJS", p->nfuncs, ember_buf_adds(&x->b, "false"));
	COLUMN(x, "relevantForJS", p->nfuncs, ember_buf_adds(&x->b, "false"));
	COLUMN(x, "resource", p->nfuncs, add_i(&x->b, x->fres[i_]));
	COLUMN(x, "source", p->nfuncs, {
		uint32_t f = p->funcs[i_].file;
		if (f)
			ember_buf_addu(&x->b, x->srcidx[f] - 1);
		else
			ember_buf_adds(&x->b, "null");
	});
	COLUMN(x, "lineNumber", p->nfuncs, {
		uint32_t l = p->funcs[i_].start_line;
		if (l)
			ember_buf_addu(&x->b, l);
		else
			ember_buf_adds(&x->b, "null");
	});
	NULLS(x, "columnNumber", p->nfuncs);
	NULLS(x, "originalLocation", p->nfuncs);
	ember_buf_addf(&x->b, "},\n\"resourceTable\":{\"length\":%zu",
		       x->nlibs);
	COLUMN(x, "lib", x->nlibs, ember_buf_addu(&x->b, i_));
	/* a library's name: an entry of its own (LIBNAME | lib) */
	COLUMN(x, "name", x->nlibs, {
		x->strs[x->nstrs] = LIBNAME | (uint32_t)i_;
		ember_buf_addu(&x->b, x->nstrs++);
	});
	NULLS(x, "host", x->nlibs);
	COLUMN(x, "type", x->nlibs, ember_buf_addch(&x->b, '1'));
	ember_buf_adds(&x->b,
		       "},\n\"nativeSymbols\":{\"length\":0,\"libIndex\":[],"
		       "\"address\":[],\"name\":[],\"functionSize\":[]},\n");
	ember_buf_addf(&x->b, "\"sources\":{\"length\":%zu", x->nsrcs);
	NULLS(x, "id", x->nsrcs);
	COLUMN(x, "filename", x->nsrcs,
	       ember_buf_addu(&x->b, str(x, x->srcs[i_])));
	COLUMN(x, "startLine", x->nsrcs, ember_buf_addch(&x->b, '1'));
	COLUMN(x, "startColumn", x->nsrcs, ember_buf_addch(&x->b, '1'));
	NULLS(x, "sourceMapURL", x->nsrcs);
	NULLS(x, "content", x->nsrcs);
	ember_buf_adds(&x->b, "},\n\"sourceLocationTable\":{\"length\":0,"
			      "\"source\":[],\"line\":[],\"column\":[]}");
	/* the string array last: the columns above named its strings */
	ember_buf_adds(&x->b, ",\n\"stringArray\":[");
	for (size_t i = 0; i < x->nstrs; i++) {
		if (i)
			ember_buf_addch(&x->b, ',');
		if (x->strs[i] & LIBNAME) {
			size_t len;
			const char *path = ember_prof_s(
			    p, p->maps[x->libmap[x->strs[i] & ~LIBNAME]].path,
			    &len);
			const char *name = basename_of(path);
			ember_json_str(&x->b, name,
				       len - (size_t)(name - path));
		} else {
			ember_json_strid(&x->b, p, x->strs[i]);
		}
		ember_exp_flush(&x->b, x->w, x->ctx, &x->err);
	}
	ember_buf_adds(&x->b, "]},\n");
}

static void write_thread(struct ff *x, const struct ember_exp_groups *g,
			 size_t k, const char *title, size_t wt, int tracing)
{
	const struct ember_prof *p = x->p;
	uint32_t th = g->thread[k];
	const uint32_t *idx = g->idx + g->off[k];
	size_t n = g->off[k + 1] - g->off[k];
	int pid = 0, tid = 0;
	size_t len = strlen(title), plen = len;
	const char *name = title, *pname = title;
	int timed = p->flags & EMBER_PROF_HAS_TIME;

	if (th != EMBER_PROF_NONE) {
		const struct ember_prof_thread *t = &p->threads[th];
		pid = x->ids.pid[th];
		tid = x->ids.tid[th];
		name = ember_prof_s(p, t->name, &len);
		pname = ember_prof_s(p, p->procs[t->process].name, &plen);
		if (!len) {
			name = pname;
			len = plen;
		}
	}
	ember_buf_adds(&x->b, k ? ",\n{\"name\":" : "\n{\"name\":");
	ember_json_str(&x->b, name, len);
	ember_buf_addf(&x->b,
		       ",\"isMainThread\":%s,\"processType\":\"default\","
		       "\"processName\":",
		       pid == tid ? "true" : "false");
	ember_json_str(&x->b, pname, plen);
	ember_buf_addf(
	    &x->b, ",\"pid\":\"%d\",\"tid\":%d,\"registerTime\":", pid, tid);
	add_ms(&x->b, n && timed ? p->time[idx[0]] - p->time_zero : 0);
	ember_buf_adds(&x->b,
		       ",\"unregisterTime\":null,\"processStartupTime\":0,"
		       "\"processShutdownTime\":null,\"pausedRanges\":[],"
		       "\"showMarkersInTimeline\":false,\n\"samples\":{");
	ember_buf_addf(&x->b, "\"length\":%zu,\"weightType\":\"%s\"", n,
		       tracing ? "tracing-ms" : "samples");
	COLUMN(x, "stack", n, {
		uint32_t s = p->stack[idx[i_]];
		while (s != EMBER_PROF_NONE && x->srow[s] == UINT32_MAX)
			s = p->stacks[s].parent;
		if (s == EMBER_PROF_NONE)
			ember_buf_adds(&x->b, "null");
		else
			ember_buf_addu(&x->b, x->srow[s]);
	});
	uint64_t at = 0;
	COLUMN(x, "time", n, {
		if (timed) {
			add_ms(&x->b, p->time[idx[i_]] - p->time_zero);
		} else {
			ember_buf_addu(&x->b, at);
			at += (uint64_t)ember_prof_value(p, wt, idx[i_]);
		}
	});
	if (tracing) {
		uint64_t ns;
		size_t tt = ember_exp_time_type(p, &ns);
		COLUMN(
		    x, "weight", n,
		    add_ms(&x->b, (uint64_t)(ember_prof_value(p, tt, idx[i_]) *
					     (double)ns)));
	} else if (!timed) {
		COLUMN(x, "weight", n, {
			uint64_t v;
			if (ember_prof_value_u64(p, wt, idx[i_], &v))
				v = 0;
			ember_buf_addu(&x->b, v);
		});
	} else {
		ember_buf_adds(&x->b, ",\"weight\":null");
	}
	ember_buf_adds(
	    &x->b, "},\n\"markers\":{\"length\":0,\"name\":[],\"startTime\":"
		   "[],\"endTime\":[],\"phase\":[],\"category\":[],"
		   "\"data\":[]}}");
}

static int write_prof(const struct ember_prof *p, const char *title,
		      ember_write_fn w, void *ctx)
{
	struct ff x = {.p = p, .b = EMBER_BUF_INIT, .w = w, .ctx = ctx};
	struct ember_exp_groups g;
	size_t ns = ember_intern_count(&p->strs) + 1;

	if (!p->ntypes)
		return EMBER_EINVAL;
	/* room for every string and the libraries' names */
	x.sidx = ember_xcalloc(ns + p->nmaps, sizeof(uint32_t));
	x.strs = ember_xreallocarray(NULL, ns + p->nmaps, sizeof(uint32_t));
	make_libs(&x);
	make_stacks(&x);
	make_funcs(&x);
	ember_exp_groups_init(&g, p);
	/* the weights: the samples as such, or the time waited */
	uint64_t unit;
	size_t tt = ember_exp_time_type(p, &unit);
	const char *tname =
	    tt != SIZE_MAX ? ember_prof_s(p, p->types[tt].type, NULL) : "";
	int tracing = p->flags & EMBER_PROF_HAS_TIME && tt != SIZE_MAX &&
		      (!strcmp(tname, "off-cpu") || !strcmp(tname, "wall"));
	size_t wt = p->ntypes - 1, active = 0, most = 0;
	for (size_t k = 0; k < g.n; k++)
		if (g.off[k + 1] - g.off[k] > most) {
			most = g.off[k + 1] - g.off[k];
			active = k;
		}
	write_meta(&x, title, active);
	write_libs(&x);
	write_shared(&x);
	ember_buf_adds(&x.b, "\"threads\":[");
	ember_exp_ids_init(&x.ids, p);
	for (size_t k = 0; k < g.n; k++)
		write_thread(&x, &g, k, title, wt, tracing);
	ember_exp_ids_release(&x.ids);
	ember_buf_adds(
	    &x.b,
	    "],\n\"pages\":[],\"counters\":[],\"profilerOverhead\":[]}\n");
	if (!x.err)
		x.err = w(ctx, x.b.buf, x.b.len);
	ember_exp_groups_release(&g);
	ember_buf_release(&x.b);
	free(x.sidx);
	free(x.strs);
	free(x.maplib);
	free(x.libmap);
	free(x.srcidx);
	free(x.srcs);
	free(x.fres);
	free(x.srow);
	free(x.caller);
	free(x.sparent);
	free(x.sframe);
	free(x.frow[0]);
	free(x.frow[1]);
	free(x.rframe);
	free(x.rcall);
	return x.err;
}

int ember_firefox_write(const struct ember_profile *p, ember_write_fn w,
			void *ctx)
{
	const char *title = p->name ? p->name : "ember";

	struct ember_prof tmp;
	int err = write_prof(ember_exp_profile(p, &tmp), title, w, ctx);
	ember_prof_release(&tmp);
	return err;
}
