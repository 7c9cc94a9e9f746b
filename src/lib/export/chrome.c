/*
 * Chrome out: trace events (a JSON array, as DevTools' Performance panel
 * saves, which it, Perfetto, the Firefox Profiler and speedscope open)
 * with the CPU samples of each thread as V8 writes them: a "Profile"
 * event, then "ProfileChunk"s of nodes (id, parent, callFrame), samples
 * (node ids) and timeDeltas (µs); thread_name and process_name metadata
 * first, each event with a "cat" (speedscope reads a file as a Chrome
 * timeline only when its first event has one).  Or, for one profile, a
 * .cpuprofile (DevTools protocol's Profiler.Profile: nodes with
 * children, samples, timeDeltas), all threads in one.
 *
 * Nodes are the profile's stack nodes (id + 2; 1 is "(root)"), those a
 * thread's samples use and their parents, in id order (parents first).
 * A sample lasts until the next one (as V8's do), so after a sample
 * followed by a gap longer than twice its weight, an "(idle)" sample at
 * the end of its weight says where the thread stopped; the last sample
 * is followed by one too.  Profiles without times (folded stacks) get
 * one sample per stack, each lasting its weight (a count: 1 ms).
 *
 * Times are microseconds of the profile's clock (CLOCK_MONOTONIC for
 * record and perf.data, as Chrome's own are); a profile whose clock
 * starts before 1 ms (speedscope's, folded stacks) starts at 1 ms:
 * DevTools leaves events at ts 0 out of the trace's bounds, and a
 * .cpuprofile starting at 0 opens empty.  Each thread's profile lies
 * between a CpuProfiler::StartProfiling and a StopProfiling instant
 * event, the events DevTools takes the trace's bounds from.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "stacks.h"

#define CHUNK 50000 /* samples per ProfileChunk */

struct ch {
	const struct ember_prof *p;
	struct ember_buf b;
	ember_write_fn w;
	void *ctx;
	int err;
	uint32_t *stamp;  /* per stack node: the group + 1 that uses it */
	uint32_t *nodes;  /* the group's nodes */
	uint32_t *sorted; /* room for as many, for sorting them */
	size_t nnodes;
	uint32_t *fr;
	size_t afr;
	size_t tt;     /* the time type (SIZE_MAX: none) */
	uint64_t ns;   /* its ns per unit */
	uint64_t base; /* the time written for time zero (ns) */
	struct ember_exp_ids ids;
	uint32_t idle;
	/* each frame's "callFrame":{...} made once, where it is met first
	 * (a frame is in every thread's tree that runs it) */
	struct ember_buf cf;
	size_t *cf_off; /* per frame, into cf; SIZE_MAX: not made yet */
	uint32_t *cf_len;
};

/* The node of stack s in group g's tree: its id, the nearest kept. */
static uint32_t node_id(const struct ch *x, uint32_t s, uint32_t thread)
{
	if (s == EMBER_PROF_NONE)
		return 1;
	if (x->p->stacks[s].parent == EMBER_PROF_NONE &&
	    ember_exp_skip_root(x->p, s, thread))
		return 1;
	return s + 2;
}

/* Sorts v[0..n) (tmp: room for n), a byte at a time from the lowest,
 * up to the highest byte any of them has: a fraction of qsort's
 * comparisons for the tens of thousands of a thread's nodes. */
static void sort_u32(uint32_t *v, uint32_t *tmp, size_t n)
{
	uint32_t max = 0;

	for (size_t i = 0; i < n; i++)
		max |= v[i];
	for (int shift = 0; shift < 32 && max >> shift; shift += 8) {
		size_t count[257] = {0};
		for (size_t i = 0; i < n; i++)
			count[(v[i] >> shift & 255) + 1]++;
		for (int d = 0; d < 256; d++)
			count[d + 1] += count[d];
		for (size_t i = 0; i < n; i++)
			tmp[count[v[i] >> shift & 255]++] = v[i];
		memcpy(v, tmp, n * sizeof(*v));
	}
}

/* The stack nodes of group k's samples and their parents, sorted. */
static void collect(struct ch *x, const struct ember_exp_groups *g, size_t k)
{
	const struct ember_prof *p = x->p;

	x->nnodes = 0;
	for (size_t i = g->off[k]; i < g->off[k + 1]; i++)
		for (uint32_t s = p->stack[g->idx[i]];
		     s != EMBER_PROF_NONE && x->stamp[s] != k + 1;
		     s = p->stacks[s].parent) {
			x->stamp[s] = (uint32_t)k + 1;
			if (node_id(x, s, g->thread[k]) != 1)
				x->nodes[x->nnodes++] = s;
		}
	sort_u32(x->nodes, x->sorted, x->nnodes);
}

static void make_call_frame(struct ember_buf *b, const struct ember_prof *p,
			    uint32_t frame)
{
	const struct ember_prof_func *f = &p->funcs[p->frames[frame].func];
	size_t len;
	const char *file = ember_prof_s(p, f->file, &len);

	ember_buf_adds(b, "\"callFrame\":{\"functionName\":");
	ember_json_strid(b, p, f->name);
	ember_buf_adds(b, ",\"scriptId\":\"");
	ember_buf_addu(b, f->file);
	ember_buf_adds(b, "\",\"url\":");
	if (len && file[0] == '/') {
		struct ember_buf u = EMBER_BUF_INIT;
		ember_buf_adds(&u, "file://");
		ember_buf_add(&u, file, len);
		ember_json_str(b, u.buf, u.len);
		ember_buf_release(&u);
	} else {
		ember_json_str(b, file, len);
	}
	ember_buf_adds(b, ",\"lineNumber\":");
	if (f->start_line)
		ember_buf_addu(b, f->start_line - 1);
	else
		ember_buf_adds(b, "-1");
	ember_buf_adds(b, ",\"columnNumber\":-1}");
}

static void call_frame(struct ch *x, uint32_t frame)
{
	if (x->cf_off[frame] == SIZE_MAX) {
		size_t at = x->cf.len;
		make_call_frame(&x->cf, x->p, frame);
		x->cf_off[frame] = at;
		x->cf_len[frame] = (uint32_t)(x->cf.len - at);
	}
	ember_buf_add(&x->b, x->cf.buf + x->cf_off[frame], x->cf_len[frame]);
}

/* "," then u, or u alone when first */
static void add_item(struct ember_buf *b, int first, uint32_t u)
{
	if (!first)
		ember_buf_addch(b, ',');
	ember_buf_addu(b, u);
}

static void special_node(struct ch *x, uint32_t id, const char *name,
			 int parent)
{
	ember_buf_addf(&x->b, "{\"id\":%u,", id);
	if (parent)
		ember_buf_addf(&x->b, "\"parent\":1,");
	ember_buf_addf(&x->b,
		       "\"callFrame\":{\"functionName\":\"%s\",\"scriptId\":"
		       "\"0\",\"url\":\"\",\"lineNumber\":-1,"
		       "\"columnNumber\":-1}}",
		       name);
}

/* The nodes as chunks have them (with parent), or with children. */
static void write_nodes(struct ch *x, uint32_t thread, int children)
{
	const struct ember_prof *p = x->p;
	uint32_t *kids = NULL, *nkids = NULL, *koff = NULL;

	if (children) {
		/* a node's children: those whose parent it is */
		nkids = ember_xcalloc(x->nnodes + 1, sizeof(*nkids));
		koff = ember_xcalloc(x->nnodes + 2, sizeof(*koff));
		kids = ember_xcalloc(x->nnodes + 1, sizeof(*kids));
		uint32_t *pos = ember_xcalloc(x->nnodes + 1, sizeof(*pos));
		/* per stack node: its index among the nodes + 1, set for
		 * the nodes only (a node's parent is one, or the root) */
		uint32_t *index =
		    ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*index));
		for (size_t i = 0; i < x->nnodes; i++)
			index[x->nodes[i]] = (uint32_t)i + 1;
		/* index 0: the root; node i at i + 1 */
		for (size_t i = 0; i < x->nnodes; i++) {
			uint32_t par =
			    node_id(x, p->stacks[x->nodes[i]].parent, thread);
			pos[i] = par == 1 ? 0 : index[par - 2];
			nkids[pos[i]]++;
		}
		free(index);
		for (size_t i = 0; i <= x->nnodes; i++)
			koff[i + 1] = koff[i] + nkids[i];
		memset(nkids, 0, (x->nnodes + 1) * sizeof(*nkids));
		for (size_t i = 0; i < x->nnodes; i++)
			kids[koff[pos[i]] + nkids[pos[i]]++] = x->nodes[i] + 2;
		free(pos);
		ember_buf_adds(&x->b,
			       "{\"id\":1,\"callFrame\":{\"functionName\":"
			       "\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
			       "\"lineNumber\":-1,\"columnNumber\":-1},"
			       "\"children\":[");
		for (uint32_t k = 0; k < nkids[0]; k++)
			add_item(&x->b, !k, kids[koff[0] + k]);
		add_item(&x->b, !nkids[0], x->idle);
		ember_buf_adds(&x->b, "]},\n");
		special_node(x, x->idle, "(idle)", 0);
	} else {
		ember_buf_adds(&x->b,
			       "{\"id\":1,\"callFrame\":{\"functionName\":"
			       "\"(root)\",\"scriptId\":\"0\",\"url\":\"\","
			       "\"lineNumber\":-1,\"columnNumber\":-1}},\n");
		special_node(x, x->idle, "(idle)", 1);
	}
	for (size_t i = 0; i < x->nnodes; i++) {
		uint32_t s = x->nodes[i];
		ember_buf_adds(&x->b, ",\n{\"id\":");
		ember_buf_addu(&x->b, s + 2);
		ember_buf_addch(&x->b, ',');
		if (!children) {
			ember_buf_adds(&x->b, "\"parent\":");
			ember_buf_addu(&x->b,
				       node_id(x, p->stacks[s].parent, thread));
			ember_buf_addch(&x->b, ',');
		}
		call_frame(x, p->stacks[s].frame);
		if (children && nkids[i + 1]) {
			ember_buf_adds(&x->b, ",\"children\":[");
			for (uint32_t k = 0; k < nkids[i + 1]; k++)
				add_item(&x->b, !k, kids[koff[i + 1] + k]);
			ember_buf_addch(&x->b, ']');
		}
		ember_buf_addch(&x->b, '}');
		ember_exp_flush(&x->b, x->w, x->ctx, &x->err);
	}
	free(kids);
	free(nkids);
	free(koff);
}

/* The samples of group k as (node, time in µs) pairs, with the (idle)
 * ones; times are from the profile's time zero. */
struct tick {
	uint32_t node;
	uint64_t us;
};

static size_t ticks(struct ch *x, const struct ember_exp_groups *g, size_t k,
		    struct tick **out)
{
	const struct ember_prof *p = x->p;
	size_t n = g->off[k + 1] - g->off[k], m = 0;
	const uint32_t *idx = g->idx + g->off[k];
	struct tick *t = ember_xreallocarray(NULL, 2 * n + 1, sizeof(*t));
	int timed = p->flags & EMBER_PROF_HAS_TIME;
	size_t wt = x->tt != SIZE_MAX ? x->tt : p->ntypes - 1;
	/* a sample's weight in ns: the time type's; else 1 ms a count
	 * (folded stacks), or a sample (counts of events say no time) */
	double ns = x->tt != SIZE_MAX ? (double)x->ns : 1e6;
	int one = x->tt == SIZE_MAX && timed;
	uint64_t at = 0; /* without times: the sum of the weights so far */

	for (size_t i = 0; i < n; i++) {
		uint64_t tn = timed ? p->time[idx[i]] - p->time_zero : at;
		double wd = one ? 1e6 : ember_prof_value(p, wt, idx[i]) * ns;
		uint64_t w = isfinite(wd) && wd > 0 ? (uint64_t)wd : 0;
		t[m++] =
		    (struct tick){node_id(x, p->stack[idx[i]], g->thread[k]),
				  (x->base + tn + 500) / 1000};
		uint64_t next = i + 1 < n && timed
				    ? p->time[idx[i + 1]] - p->time_zero
				    : tn + w;
		if (!timed)
			at += w;
		if (i + 1 == n || (timed && next - tn > 2 * w))
			t[m++] = (struct tick){x->idle,
					       (x->base + tn + w + 500) / 1000};
	}
	*out = t;
	return m;
}

static void write_ticks(struct ch *x, const struct tick *t, size_t from,
			size_t to)
{
	ember_buf_adds(&x->b, "\"samples\":[");
	for (size_t i = from; i < to; i++) {
		if (i > from)
			ember_buf_addch(&x->b, ',');
		ember_buf_addu(&x->b, t[i].node);
		ember_exp_flush(&x->b, x->w, x->ctx, &x->err);
	}
	ember_buf_addch(&x->b, ']');
}

static void write_deltas(struct ch *x, const struct tick *t, size_t from,
			 size_t to, uint64_t before)
{
	ember_buf_adds(&x->b, "\"timeDeltas\":[");
	for (size_t i = from; i < to; i++) {
		uint64_t prev = i ? t[i - 1].us : before;
		if (i > from)
			ember_buf_addch(&x->b, ',');
		ember_buf_addu(&x->b, t[i].us >= prev ? t[i].us - prev : 0);
		ember_exp_flush(&x->b, x->w, x->ctx, &x->err);
	}
	ember_buf_addch(&x->b, ']');
}

static void thread_ids(const struct ch *x, uint32_t thread, int *pid, int *tid)
{
	*pid = thread != EMBER_PROF_NONE ? x->ids.pid[thread] : 0;
	*tid = thread != EMBER_PROF_NONE ? x->ids.tid[thread] : 0;
}

static void write_trace(struct ch *x, const struct ember_exp_groups *g,
			const char *title)
{
	const struct ember_prof *p = x->p;
	int pid, tid;

	ember_buf_addch(&x->b, '[');
	/* the names first: the first event must have a cat */
	int first = 1;
	for (size_t k = 0; k < g->n; k++) {
		uint32_t th = g->thread[k];
		thread_ids(x, th, &pid, &tid);
		size_t len;
		const char *pname =
		    th != EMBER_PROF_NONE
			? ember_prof_s(p, p->procs[p->threads[th].process].name,
				       &len)
			: title;
		if (th == EMBER_PROF_NONE)
			len = strlen(title);
		ember_buf_addf(&x->b,
			       "%s{\"ph\":\"M\",\"name\":\"process_name\","
			       "\"cat\":\"__metadata\",\"pid\":%d,\"tid\":%d,"
			       "\"ts\":0,\"args\":{\"name\":",
			       first ? "\n" : ",\n", pid, tid);
		first = 0;
		ember_json_str(&x->b, pname, len);
		ember_buf_adds(&x->b, "}}");
		struct ember_buf tn = EMBER_BUF_INIT;
		if (th != EMBER_PROF_NONE)
			ember_exp_thread_title(&tn, p, th);
		else
			ember_buf_adds(&tn, title);
		ember_buf_addf(&x->b,
			       ",\n{\"ph\":\"M\",\"name\":\"thread_name\","
			       "\"cat\":\"__metadata\",\"pid\":%d,\"tid\":%d,"
			       "\"ts\":0,\"args\":{\"name\":",
			       pid, tid);
		ember_json_str(&x->b, tn.buf, tn.len);
		ember_buf_adds(&x->b, "}}");
		ember_buf_release(&tn);
	}
	for (size_t k = 0; k < g->n && !x->err; k++) {
		struct tick *t;
		size_t m = ticks(x, g, k, &t);
		uint64_t start = m ? t[0].us : 0, end = m ? t[m - 1].us : 0;
		thread_ids(x, g->thread[k], &pid, &tid);
		collect(x, g, k);
		ember_buf_addf(
		    &x->b,
		    ",\n{\"ph\":\"I\",\"name\":\"CpuProfiler::"
		    "StartProfiling\",\"cat\":\"disabled-by-default-"
		    "v8\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%llu,"
		    "\"args\":{\"data\":{\"startTime\":%llu}}}",
		    pid, tid, (unsigned long long)start,
		    (unsigned long long)start);
		ember_buf_addf(
		    &x->b,
		    ",\n{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x%zx\","
		    "\"cat\":\"disabled-by-default-v8.cpu_profiler\","
		    "\"pid\":%d,\"tid\":%d,\"ts\":%llu,\"args\":{\"data\":{"
		    "\"startTime\":%llu}}}",
		    k + 1, pid, tid, (unsigned long long)start,
		    (unsigned long long)start);
		for (size_t c = 0; c < m || c == 0; c += CHUNK) {
			size_t to = c + CHUNK < m ? c + CHUNK : m;
			ember_buf_addf(
			    &x->b,
			    ",\n{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":"
			    "\"0x%zx\",\"cat\":\"disabled-by-default-v8.cpu_"
			    "profiler\",\"pid\":%d,\"tid\":%d,\"ts\":%llu,"
			    "\"args\":{\"data\":{\"cpuProfile\":{",
			    k + 1, pid, tid,
			    (unsigned long long)(to ? t[to - 1].us : start));
			if (!c) {
				ember_buf_adds(&x->b, "\"nodes\":[\n");
				write_nodes(x, g->thread[k], 0);
				ember_buf_adds(&x->b, "],\n");
			}
			write_ticks(x, t, c, to);
			ember_buf_adds(&x->b, "},\n");
			write_deltas(x, t, c, to, start);
			if (to == m)
				ember_buf_addf(&x->b, ",\"endTime\":%llu",
					       (unsigned long long)end);
			ember_buf_adds(&x->b, "}}}");
			if (to == m)
				break;
		}
		ember_buf_addf(
		    &x->b,
		    ",\n{\"ph\":\"I\",\"name\":\"CpuProfiler::"
		    "StopProfiling\",\"cat\":\"disabled-by-default-"
		    "v8\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%llu,"
		    "\"args\":{\"data\":{\"endTime\":%llu}}}",
		    pid, tid, (unsigned long long)end, (unsigned long long)end);
		free(t);
	}
	ember_buf_adds(&x->b, "\n]\n");
}

/* All samples in one profile (the groups' order is the time order only
 * with one thread: samples of several are merged back in time order). */
static void write_cpuprofile(struct ch *x, const struct ember_exp_groups *g0)
{
	const struct ember_prof *p = x->p;
	struct ember_exp_groups g = {0};
	size_t n = p->n;

	/* one group of every sample, in the profile's (time) order; thread
	 * roots are kept when there are several threads */
	g.n = 1;
	g.thread = ember_xcalloc(1, sizeof(*g.thread));
	g.thread[0] = g0->n == 1 ? g0->thread[0] : EMBER_PROF_NONE;
	g.off = ember_xcalloc(2, sizeof(*g.off));
	g.off[1] = n;
	g.idx = ember_xreallocarray(NULL, n ? n : 1, sizeof(*g.idx));
	for (size_t i = 0; i < n; i++)
		g.idx[i] = (uint32_t)i;
	struct tick *t;
	size_t m = ticks(x, &g, 0, &t);
	collect(x, &g, 0);
	ember_buf_adds(&x->b, "{\"nodes\":[\n");
	write_nodes(x, g.thread[0], 1);
	ember_buf_addf(&x->b, "],\n\"startTime\":%llu,\"endTime\":%llu,\n",
		       (unsigned long long)(m ? t[0].us : 0),
		       (unsigned long long)(m ? t[m - 1].us : 0));
	write_ticks(x, t, 0, m);
	ember_buf_adds(&x->b, ",\n");
	write_deltas(x, t, 0, m, m ? t[0].us : 0);
	ember_buf_adds(&x->b, "}\n");
	free(t);
	ember_exp_groups_release(&g);
}

static int write_prof(const struct ember_prof *p, const char *title,
		      int cpuprofile, ember_write_fn w, void *ctx)
{
	struct ch x = {.p = p,
		       .b = EMBER_BUF_INIT,
		       .cf = EMBER_BUF_INIT,
		       .w = w,
		       .ctx = ctx};
	struct ember_exp_groups g;

	if (!p->ntypes)
		return EMBER_EINVAL;
	x.stamp = ember_xcalloc(p->nstacks + 1, sizeof(*x.stamp));
	x.cf_off = ember_xreallocarray(NULL, p->nframes + 1, sizeof(*x.cf_off));
	x.cf_len = ember_xreallocarray(NULL, p->nframes + 1, sizeof(*x.cf_len));
	for (size_t i = 0; i < p->nframes; i++)
		x.cf_off[i] = SIZE_MAX;
	x.nodes = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*x.nodes));
	x.sorted = ember_xreallocarray(NULL, p->nstacks + 1, sizeof(*x.sorted));
	x.tt = ember_exp_time_type(p, &x.ns);
	x.idle = (uint32_t)p->nstacks + 2;
	x.base = p->flags & EMBER_PROF_HAS_TIME && p->time_zero >= 1000000
		     ? p->time_zero
		     : 1000000;
	ember_exp_groups_init(&g, p);
	ember_exp_ids_init(&x.ids, p);
	if (cpuprofile)
		write_cpuprofile(&x, &g);
	else
		write_trace(&x, &g, title);
	if (!x.err)
		x.err = w(ctx, x.b.buf, x.b.len);
	ember_exp_groups_release(&g);
	ember_exp_ids_release(&x.ids);
	ember_buf_release(&x.b);
	free(x.stamp);
	ember_buf_release(&x.cf);
	free(x.cf_off);
	free(x.cf_len);
	free(x.nodes);
	free(x.sorted);
	free(x.fr);
	return x.err;
}

int ember_chrome_write(const struct ember_profile *p, int cpuprofile,
		       ember_write_fn w, void *ctx)
{
	const char *title = p->name ? p->name : "ember";

	struct ember_prof tmp;
	int err =
	    write_prof(ember_exp_profile(p, &tmp), title, cpuprofile, w, ctx);
	ember_prof_release(&tmp);
	return err;
}
