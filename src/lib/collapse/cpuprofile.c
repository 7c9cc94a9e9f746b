/*
 * .cpuprofile: V8's CPU profile as Chrome DevTools saves it and
 * `node --cpu-prof` writes it (JSON): a tree of nodes (id, callFrame,
 * children), then the samples (the node each sample hit) and the time
 * from one sample to the next (timeDeltas, microseconds).
 *
 * Nodes and samples are kept as they come (samples may come before the
 * nodes); at the end each sampled node's weight is summed, and its stack
 * is found by walking parent links up to the root, which is left out
 * ("(root)" is V8's, not code).
 *
 * Weights are time in microseconds, as DevTools' flame chart and its
 * bottom-up and call-tree views of it show it: sample i is at startTime +
 * timeDeltas[0] + ... + timeDeltas[i] (so the first delta, from the start
 * to the first sample, is no sample's), the samples are taken in order of
 * time (a delta may be negative), each lasts until the next one, and the
 * last as long as the samples' mean interval (DevTools' extra timestamp;
 * a lone sample: until endTime).  With --samples, or where the profile
 * has no timeDeltas, they are samples (hitCount).
 *
 * When a writer wants the sample-level profile, each sample goes into it
 * at its time (startTime plus the deltas, as microseconds become
 * nanoseconds), of no thread (the file names none), with its duration
 * as its weight (microseconds); a frame per node: its function, url as
 * the file and line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "json.h"
#include "v8prof.h"

struct node {
	struct cl_v8node v; /* url: in urls */
	double hits;	    /* hitCount, or summed from the samples */
};

struct cstate {
	struct collapse_sink *k;
	const struct ember_collapse_options *o;
	struct cl_json *j;
	struct node *nodes;
	size_t nnodes, anodes;
	double *kids;
	size_t nkids, akids;
	double *samples, *deltas;
	size_t nsamples, asamples, ndeltas, adeltas;
	double start_time, end_time;
	int have_start, have_end, have_samples;
	int key1, key2; /* what the keys at depths 1 and 3 name */
	/* the node being read */
	struct ember_buf fn, url;
	double line;
	int have_id;
	struct ember_buf tmp;
	struct ember_intern urls;
};

enum {
	C_OTHER,
	C_NODES,
	C_SAMPLES,
	C_DELTAS,
	C_START,
	C_END,
	C_CALLFRAME,
	C_CHILDREN,
};

static void *state_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct cstate *s = ember_xcalloc(1, sizeof(*s));

	s->k = k;
	s->o = o;
	ember_buf_init(&s->fn, 64);
	ember_buf_init(&s->url, 64);
	ember_buf_init(&s->tmp, 128);
	ember_intern_init(&s->urls);
	return s;
}

static void state_free(void *st)
{
	struct cstate *s = st;

	cl_json_free(s->j);
	free(s->nodes);
	free(s->kids);
	free(s->samples);
	free(s->deltas);
	ember_buf_release(&s->fn);
	ember_buf_release(&s->url);
	ember_buf_release(&s->tmp);
	ember_intern_release(&s->urls);
	free(s);
}

static int fail(struct cstate *s, const char *msg)
{
	cl_json_fail(s->j, "%s", msg);
	return -1;
}

static int number(struct cstate *s, const struct cl_jval *v, double *out)
{
	if (v->type != CJ_NUM || !isfinite(v->num))
		return fail(s, "a node id, sample, time or count is not a "
			       "number");
	*out = v->num;
	return 0;
}

static void node_start(struct cstate *s)
{
	EMBER_GROW(s->nodes, s->nnodes + 1, s->anodes);
	struct node *n = &s->nodes[s->nnodes];
	memset(n, 0, sizeof(*n));
	n->v.child_off = s->nkids;
	ember_buf_reset(&s->fn);
	ember_buf_reset(&s->url);
	s->line = -1;
	s->have_id = 0;
}

static int node_end(struct cstate *s)
{
	struct cl_v8node *n = &s->nodes[s->nnodes].v;

	if (!s->have_id)
		return fail(s, "a node has no id");
	cl_v8_name(n, s->k, &s->urls, &s->tmp, s->fn.buf, s->fn.len, s->url.buf,
		   s->url.len, s->line);
	n->nchild = s->nkids - n->child_off;
	s->nnodes++;
	return 0;
}

static int on_json(void *ctx, const struct cl_jval *v)
{
	struct cstate *s = ctx;
	int d = v->depth;

	if (d == 0) {
		if (v->type != CJ_OBJ && v->type != CJ_END)
			return fail(s, "not a CPU profile: no object");
		return 0;
	}
	if (d == 1 && v->type != CJ_END) {
		s->key1 = cl_jkey(v, "nodes")	     ? C_NODES
			  : cl_jkey(v, "samples")    ? C_SAMPLES
			  : cl_jkey(v, "timeDeltas") ? C_DELTAS
			  : cl_jkey(v, "startTime")  ? C_START
			  : cl_jkey(v, "endTime")    ? C_END
						     : C_OTHER;
		if (s->key1 == C_START) {
			s->have_start = v->type == CJ_NUM;
			s->start_time = v->num;
		}
		if (s->key1 == C_END) {
			s->have_end = v->type == CJ_NUM;
			s->end_time = v->num;
		}
		if ((s->key1 == C_NODES || s->key1 == C_SAMPLES ||
		     s->key1 == C_DELTAS) &&
		    v->type != CJ_ARR)
			return fail(s, "not a CPU profile: \"nodes\", "
				       "\"samples\" or \"timeDeltas\" is not "
				       "an array");
		if (s->key1 == C_SAMPLES)
			s->have_samples = 1;
		return 0;
	}
	if (s->key1 == C_SAMPLES || s->key1 == C_DELTAS) {
		double x;
		if (d != 2)
			return 0;
		if (number(s, v, &x))
			return -1;
		if (s->key1 == C_SAMPLES) {
			EMBER_GROW(s->samples, s->nsamples + 1, s->asamples);
			s->samples[s->nsamples++] = x;
		} else {
			EMBER_GROW(s->deltas, s->ndeltas + 1, s->adeltas);
			s->deltas[s->ndeltas++] = x;
		}
		return 0;
	}
	if (s->key1 != C_NODES || d < 2)
		return 0;
	if (d == 2) {
		if (v->type == CJ_OBJ)
			node_start(s);
		else if (v->type == CJ_END)
			return node_end(s);
		else
			return fail(s, "a node is not an object");
		return 0;
	}
	struct node *n = &s->nodes[s->nnodes];
	if (d == 3) {
		if (v->type == CJ_END)
			return 0;
		s->key2 = cl_jkey(v, "callFrame")  ? C_CALLFRAME
			  : cl_jkey(v, "children") ? C_CHILDREN
						   : C_OTHER;
		if (s->key2 == C_CALLFRAME && v->type != CJ_OBJ)
			return fail(s, "a node's callFrame is not an object");
		if (s->key2 == C_CHILDREN && v->type != CJ_ARR)
			return fail(s, "a node's children are not an array");
		if (cl_jkey(v, "id")) {
			s->have_id = 1;
			return number(s, v, &n->v.id);
		}
		if (cl_jkey(v, "hitCount"))
			return number(s, v, &n->hits);
		if (cl_jkey(v, "parent")) {
			n->v.has_parent_id = 1;
			return number(s, v, &n->v.parent_id);
		}
		return 0;
	}
	if (d == 4 && s->key2 == C_CHILDREN) {
		double x;
		if (number(s, v, &x))
			return -1;
		EMBER_GROW(s->kids, s->nkids + 1, s->akids);
		s->kids[s->nkids++] = x;
		return 0;
	}
	if (d == 4 && s->key2 == C_CALLFRAME) {
		if (cl_jkey(v, "functionName") || cl_jkey(v, "url")) {
			if (v->type != CJ_STR)
				return fail(s, "a callFrame's functionName or "
					       "url is not a string");
			struct ember_buf *b =
			    cl_jkey(v, "url") ? &s->url : &s->fn;
			ember_buf_reset(b);
			ember_buf_add(b, v->s, v->n);
		} else if (cl_jkey(v, "lineNumber") && v->type == CJ_NUM) {
			s->line = v->num;
		}
	}
	return 0;
}

/* The index of the node with this id, or -1. */
static ptrdiff_t find(const struct cstate *s, double id)
{
	return cl_v8_find(s->nodes, s->nnodes, sizeof(*s->nodes), id);
}

/* Each sample's duration in place of its time delta (the file's comment
 * says how DevTools sees it); its time into times[i] when given. */
static void durations(struct cstate *s, double *times)
{
	size_t n = s->nsamples;
	struct cl_v8stamp *st;
	double mean;

	if (!n)
		return;
	st = cl_v8_stamps(s->start_time, s->deltas, n, times);
	if (n > 1)
		mean = (st[n - 1].t - st[0].t) / (double)(n - 1);
	else
		mean = s->have_start && s->have_end ? s->end_time - st[0].t : 0;
	for (size_t j = 0; j < n; j++) {
		double d = j + 1 < n ? st[j + 1].t - st[j].t : mean;
		s->deltas[st[j].i] = d > 0 ? d : 0;
	}
	free(st);
}

/* The samples into the sink's profile: at their times (microseconds
 * since the clock's start, NULL: none), weighing their durations. */
static void to_profile(struct cstate *s, const double *times, int time)
{
	struct ember_prof *p = cl_prof(s->k);

	if (!p || !s->have_samples || !s->nsamples)
		return;
	if (!p->ntypes) {
		ember_prof_add_type(p, "samples", "count", 1);
		if (time)
			ember_prof_add_type(p, "cpu", "microseconds", 0);
	}
	int col = p->ncols > 0 && times;
	if (times)
		p->flags |= EMBER_PROF_HAS_TIME;
	uint32_t *memo =
	    ember_xcalloc(s->nnodes ? s->nnodes : 1, sizeof(*memo));
	for (size_t i = 0; i < s->nsamples; i++) {
		ptrdiff_t k = find(s, s->samples[i]);
		uint32_t st =
		    k < 0 ? EMBER_PROF_NONE
			  : cl_v8_stack(p, s->k, &s->urls, s->nodes, s->nnodes,
					sizeof(*s->nodes), memo, (size_t)k);
		if (st == EMBER_PROF_NONE)
			continue; /* the root itself: no code */
		double t = times && times[i] > 0 ? times[i] * 1000 : 0;
		double v = col ? s->deltas[i] : 1;
		double vals[1] = {v};
		ember_prof_sample(p, (uint64_t)t, EMBER_PROF_NONE, -1, st,
				  p->ncols ? vals : NULL);
	}
	free(memo);
	if (times && s->have_start && s->start_time > 0 &&
	    (!p->time_zero || p->time_zero > s->start_time * 1000))
		p->time_zero = (uint64_t)(s->start_time * 1000);
	ember_prof_finish(p);
}

static int fold(struct cstate *s)
{
	uint32_t *ids = NULL;
	size_t aids = 0;
	double *times = NULL;
	int rc = -1;
	/* time, unless asked for samples or the profile has no time */
	int time = s->o->time || (!s->o->cpuprofile_samples &&
				  s->ndeltas == s->nsamples && s->ndeltas);

	double bad_parent, bad;

	cl_v8_sort(s->nodes, s->nnodes, sizeof(*s->nodes));
	for (size_t i = 1; i < s->nnodes; i++)
		if (s->nodes[i].v.id == s->nodes[i - 1].v.id) {
			cl_fail(s->k, "two nodes have id %.0f",
				s->nodes[i].v.id);
			return -1;
		}
	/* parent links, from children lists or parent ids */
	if (cl_v8_link(s->nodes, s->nnodes, sizeof(*s->nodes), s->kids,
		       &bad_parent, &bad)) {
		cl_fail(s->k, "node %.0f has a child %.0f that is not a node",
			bad_parent, bad);
		return -1;
	}
	/* the weights: from the samples when there are, else hitCount */
	if (s->have_samples) {
		for (size_t i = 0; i < s->nnodes; i++)
			s->nodes[i].hits = 0;
		if (time && s->ndeltas != s->nsamples) {
			cl_fail(s->k,
				"--time needs a time delta per sample: "
				"%zu samples, %zu timeDeltas",
				s->nsamples, s->ndeltas);
			return -1;
		}
		if (time) {
			times = cl_prof(s->k)
				    ? ember_xreallocarray(
					  NULL, s->nsamples ? s->nsamples : 1,
					  sizeof(*times))
				    : NULL;
			durations(s, times);
		}
		for (size_t i = 0; i < s->nsamples; i++) {
			ptrdiff_t k = find(s, s->samples[i]);
			if (k < 0) {
				cl_fail(s->k,
					"a sample hit node %.0f, which "
					"is not in the profile",
					s->samples[i]);
				goto out;
			}
			s->nodes[k].hits += time ? s->deltas[i] : 1;
		}
	} else if (s->o->time) { /* asked for */
		cl_fail(s->k, "--time needs samples and timeDeltas, which "
			      "this profile lacks");
		return -1;
	}
	for (size_t i = 0; i < s->nnodes; i++) {
		const struct node *n = &s->nodes[i];
		if (!(n->hits > 0))
			continue;
		/* the root (no parent) is V8's "(root)": left out */
		size_t n_ids = cl_v8_names(s->nodes, s->nnodes,
					   sizeof(*s->nodes), i, &ids, &aids);
		if (n_ids == SIZE_MAX) {
			cl_fail(s->k, "the nodes' parents form a cycle");
			goto out;
		}
		if (!n_ids)
			continue; /* time in the root itself: no code */
		size_t e = ember_stacks_add(&s->k->stacks, ids, n_ids, 0, 0);
		double w = n->hits;
		if (w < 9007199254740992.0 && w == floor(w))
			cl_count(s->k, e, w, (uint64_t)w, 1);
		else
			cl_count(s->k, e, w, 0, 0);
		s->k->n.records++;
	}
	if (time)
		strcpy(s->k->sample_unit, "microseconds");
	to_profile(s, times, time);
	rc = 0;
out:
	free(ids);
	free(times);
	return rc;
}

static int read_cpuprofile(void *st, struct collapse_input *in)
{
	struct cstate *s = st;

	cl_json_free(s->j);
	s->j = cl_json_new(on_json, s);
	s->nnodes = s->nkids = s->nsamples = s->ndeltas = 0;
	s->have_start = s->have_end = s->have_samples = 0;
	s->key1 = s->key2 = 0;
	int rc = cl_json_read(s->j, in, s->k);
	if (!rc && !s->nnodes) {
		cl_fail(s->k, "not a CPU profile: no \"nodes\"");
		rc = EMBER_EFORMAT;
	}
	if (!rc && fold(s))
		rc = EMBER_EFORMAT;
	return rc;
}

static int detect(const char *p, size_t len)
{
	static const char *const keys[] = {"nodes", NULL};
	size_t n = len < 65536 ? len : 65536;

	return cl_json_sniff(p, len, keys, 0) &&
	       memmem(p, n, "\"callFrame\"", 11);
}

const struct ember_collapser ember_collapser_cpuprofile = {
    .name = "cpuprofile",
    .summary = "V8 CPU profiles: Chrome DevTools, node --cpu-prof (JSON)",
    .detect = detect,
    .state_new = state_new,
    .state_free = state_free,
    .read = read_cpuprofile,
};
