/*
 * speedscope's file format (JSON; written by py-spy, rbspy, Austin,
 * speedscope itself and ember): frames shared by index, then profiles,
 * "sampled" (samples: frame indices root first, weights) or "evented"
 * (open and close events at times).
 *
 * Keys may come in any order (profiles before the frames they index), so
 * each profile's stacks are kept as runs of frame indices, summed in a
 * table of their own, and named once the whole file is read.  A file of
 * several profiles (threads, processes) gets each profile's name as the
 * root frame of its stacks.
 *
 * With options.profile the samples are kept too, each profile's in its
 * order, into the sample-level profile: a thread per profile, named
 * after it ("name (tid N)", as ember writes it, gives the tid); times
 * when the unit is one: a sampled profile's from startValue and the
 * cumulative weights (as speedscope lays them out), an evented one's
 * from the events' "at"; frames with their file and line.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "json.h"
#include "profile.h"

/* A weight, and the same as an exact integer (NOT_EXACT: none). */
#define NOT_EXACT UINT64_MAX
struct weight {
	double d;
	uint64_t x;
};

/* A sample kept for the profile: its stack (an entry of st), the time
 * it starts and its weight, in the profile's unit. */
struct psample {
	uint32_t e;
	double t, w;
};

struct profile {
	struct ember_stacks st; /* frame indices -> weight */
	uint64_t *exact;	/* per stack, the sum as an integer */
	size_t aexact;
	char *name;
	int evented;
	struct psample *smp; /* with options.profile */
	size_t nsmp, asmp;
	double start, end;
	int has_start, has_end;
	char unit[16];
};

struct event {
	double at;
	uint32_t frame;
	int open;
};

struct sstate {
	struct collapse_sink *k;
	struct cl_json *j;
	uint32_t *frames; /* frame index -> name id */
	size_t nframes, aframes;
	/* with the profile: each frame's file (a string of the profile) and
	 * line */
	struct ember_prof *pp;
	uint32_t *ffile, *fline; /* nffile of them */
	size_t nffile, affile, afline;
	int have_name;
	struct profile *prof;
	size_t nprof, aprof;
	/* the profile being read */
	struct ember_buf name, unit, type;
	uint32_t *idx; /* samples: runs of frame indices */
	size_t nidx, aidx;
	size_t *runs; /* run i: idx[runs[i] .. runs[i + 1]) */
	size_t nruns, aruns;
	struct weight *weights;
	size_t nweights, aweights;
	int have_weights;
	double start, end;
	int has_start, has_end;
	struct event *ev;
	size_t nev, aev;
	struct event cur;
	int ev_has_type, ev_has_frame, ev_has_at;
	char first_unit[32];
	int at[8]; /* what the key at each depth names (K_*) */
	struct ember_buf tmp;
};

static void *state_new(const struct ember_collapse_options *o,
		       struct collapse_sink *k)
{
	struct sstate *s = ember_xcalloc(1, sizeof(*s));

	s->k = k;
	ember_buf_init(&s->name, 64);
	ember_buf_init(&s->unit, 16);
	ember_buf_init(&s->type, 16);
	ember_buf_init(&s->tmp, 64);
	return s;
}

static void drop_profiles(struct sstate *s)
{
	for (size_t i = 0; i < s->nprof; i++) {
		ember_stacks_release(&s->prof[i].st);
		free(s->prof[i].exact);
		free(s->prof[i].name);
		free(s->prof[i].smp);
	}
	s->nprof = 0;
}

static void state_free(void *st)
{
	struct sstate *s = st;

	cl_json_free(s->j);
	drop_profiles(s);
	free(s->prof);
	free(s->frames);
	free(s->ffile);
	free(s->fline);
	free(s->idx);
	free(s->runs);
	free(s->weights);
	free(s->ev);
	ember_buf_release(&s->name);
	ember_buf_release(&s->unit);
	ember_buf_release(&s->type);
	ember_buf_release(&s->tmp);
	free(s);
}

static int fail(struct sstate *s, const char *msg)
{
	cl_json_fail(s->j, "%s", msg);
	return -1;
}

/* A frame index as JSON gives it. */
static int index_of(struct sstate *s, const struct cl_jval *v, uint32_t *out)
{
	if (v->type != CJ_NUM || !(v->num >= 0) || v->num >= 4294967295.0 ||
	    v->num != floor(v->num))
		return fail(s, "a frame index is not a whole number");
	*out = (uint32_t)v->num;
	return 0;
}

static void profile_start(struct sstate *s)
{
	ember_buf_reset(&s->name);
	ember_buf_reset(&s->unit);
	ember_buf_reset(&s->type);
	s->nidx = s->nruns = s->nweights = s->nev = 0;
	s->have_weights = 0;
	s->has_start = s->has_end = 0;
	EMBER_GROW(s->runs, 1, s->aruns);
	s->runs[0] = 0;
}

/* An integral double, exactly (NOT_EXACT: it is not). */
static uint64_t exact_of(double d)
{
	return d >= 0 && d < 9007199254740992.0 && d == floor(d) ? (uint64_t)d
								 : NOT_EXACT;
}

/* A sample: its stack's weight summed, and with the profile the
 * sample kept (at time t). */
static void add_run(struct sstate *s, struct profile *p, const uint32_t *f,
		    size_t n, struct weight w, double t)
{
	size_t before = p->st.n;
	size_t e = ember_stacks_add(&p->st, f, n, w.d, 0);

	if (s->pp) {
		EMBER_GROW(p->smp, p->nsmp + 1, p->asmp);
		p->smp[p->nsmp++] = (struct psample){(uint32_t)e, t, w.d};
	}

	EMBER_GROW(p->exact, e + 1, p->aexact);
	if (e == before)
		p->exact[e] = 0;
	if (p->exact[e] == NOT_EXACT || w.x == NOT_EXACT ||
	    __builtin_add_overflow(p->exact[e], w.x, &p->exact[e]) ||
	    p->exact[e] == NOT_EXACT)
		p->exact[e] = NOT_EXACT;
}

static int profile_end(struct sstate *s)
{
	EMBER_GROW(s->prof, s->nprof + 1, s->aprof);
	struct profile *p = &s->prof[s->nprof++];
	memset(p, 0, sizeof(*p));
	ember_stacks_init(&p->st);
	p->name = ember_xmemdup(s->name.buf, s->name.len);
	p->start = s->start;
	p->end = s->end;
	p->has_start = s->has_start;
	p->has_end = s->has_end;
	if (s->unit.len < sizeof(p->unit))
		memcpy(p->unit, s->unit.buf, s->unit.len + 1);
	if (!s->first_unit[0] && s->unit.len && s->unit.len < 32)
		memcpy(s->first_unit, s->unit.buf, s->unit.len + 1);
	if (!strcmp(s->type.buf, "sampled")) {
		if (s->have_weights && s->nweights != s->nruns)
			return fail(s, "a sampled profile has not as many "
				       "weights as samples");
		/* speedscope lays the samples out one after the other from
		 * startValue: their times */
		double t = s->has_start ? s->start : 0;
		for (size_t i = 0; i < s->nruns; i++) {
			struct weight w = s->have_weights
					      ? s->weights[i]
					      : (struct weight){1, 1};
			add_run(s, p, s->idx + s->runs[i],
				s->runs[i + 1] - s->runs[i], w, t);
			t += w.d;
		}
		return 0;
	}
	if (strcmp(s->type.buf, "evented"))
		return fail(s, "a profile's type is neither \"sampled\" nor "
			       "\"evented\"");
	/* the time between two events goes to the frames open then */
	size_t n = 0;
	double last = 0;
	for (size_t i = 0; i < s->nev; i++) {
		const struct event *e = &s->ev[i];
		if (n && e->at > last) {
			struct weight w = {e->at - last, 0};
			w.x = exact_of(w.d);
			add_run(s, p, s->idx, n, w, last);
		}
		if (e->open) {
			EMBER_GROW(s->idx, n + 1, s->aidx);
			s->idx[n++] = e->frame;
		} else {
			if (!n || s->idx[n - 1] != e->frame)
				return fail(s, "an evented profile closes a "
					       "frame that is not the last "
					       "one opened");
			n--;
		}
		last = e->at;
	}
	if (n)
		return fail(s, "an evented profile ends with frames open");
	return 0;
}

/* What the keys on the way down name. */
enum {
	K_OTHER,
	K_SHARED,
	K_FRAMES,
	K_PROFILES,
	K_SAMPLES,
	K_WEIGHTS,
	K_EVENTS,
};

static int keyword(const struct cl_jval *v)
{
	return cl_jkey(v, "shared")	? K_SHARED
	       : cl_jkey(v, "frames")	? K_FRAMES
	       : cl_jkey(v, "profiles") ? K_PROFILES
	       : cl_jkey(v, "samples")	? K_SAMPLES
	       : cl_jkey(v, "weights")	? K_WEIGHTS
	       : cl_jkey(v, "events")	? K_EVENTS
					: K_OTHER;
}

static int on_json(void *ctx, const struct cl_jval *v)
{
	struct sstate *s = ctx;
	int d = v->depth;
	int *at = s->at;

	if (d == 0) {
		if (v->type != CJ_OBJ && v->type != CJ_END)
			return fail(s, "not a speedscope file: no object");
		return 0;
	}
	if (d < 8 && v->type != CJ_END)
		at[d] = v->key ? keyword(v) : K_OTHER;
	if (d == 1 && v->type != CJ_END &&
	    ((at[1] == K_SHARED && v->type != CJ_OBJ) ||
	     (at[1] == K_PROFILES && v->type != CJ_ARR)))
		return fail(s, "not a speedscope file: \"shared\" or "
			       "\"profiles\" of the wrong type");
	if (d == 2 && at[1] == K_SHARED && at[2] == K_FRAMES &&
	    v->type != CJ_ARR && v->type != CJ_END)
		return fail(s, "\"frames\" is not an array");
	/* shared.frames[i] (depth 3), its "name" (depth 4) */
	if (d >= 3 && at[1] == K_SHARED && at[2] == K_FRAMES) {
		if (d == 3 && v->type == CJ_OBJ)
			s->have_name = 0;
		if (d == 3 && v->type == CJ_END) {
			if (!s->have_name)
				return fail(s, "a frame has no name");
		}
		if (d == 3 && v->type != CJ_OBJ && v->type != CJ_END)
			return fail(s, "a frame is not an object");
		if (d == 4 && cl_jkey(v, "name")) {
			if (v->type != CJ_STR)
				return fail(s, "a frame's name is not a "
					       "string");
			ember_buf_reset(&s->tmp);
			ember_buf_add(&s->tmp, v->s, v->n);
			for (size_t i = 0; i < s->tmp.len; i++)
				if (s->tmp.buf[i] == ';')
					s->tmp.buf[i] = ':';
				else if (s->tmp.buf[i] == '\n')
					s->tmp.buf[i] = ' ';
			EMBER_GROW(s->frames, s->nframes + 1, s->aframes);
			s->frames[s->nframes++] =
			    ember_intern(&s->k->names, s->tmp.buf, s->tmp.len);
			s->have_name = 1;
		}
		if (d == 3 && v->type == CJ_OBJ && s->pp) {
			/* the frame's file and line, wherever they come */
			size_t i = s->nframes;
			EMBER_GROW(s->ffile, i + 1, s->affile);
			EMBER_GROW(s->fline, i + 1, s->afline);
			s->ffile[i] = s->fline[i] = 0;
			s->nffile = i + 1;
		}
		/* this frame's (a second "name" made another frame: none) */
		size_t fi = s->nframes - (size_t)s->have_name;
		if (d == 4 && s->pp && fi < s->nffile && cl_jkey(v, "file") &&
		    v->type == CJ_STR)
			s->ffile[fi] = ember_prof_str(s->pp, v->s, v->n);
		if (d == 4 && s->pp && fi < s->nffile && cl_jkey(v, "line") &&
		    v->type == CJ_NUM && v->num >= 1 && v->num < 4294967295.0)
			s->fline[fi] = (uint32_t)v->num;
		return 0;
	}
	if (d < 2 || at[1] != K_PROFILES)
		return 0;
	if (d == 2) {
		if (v->type == CJ_OBJ)
			profile_start(s);
		else if (v->type == CJ_END)
			return profile_end(s);
		else
			return fail(s, "a profile is not an object");
		return 0;
	}
	if (d == 3) {
		struct ember_buf *b = cl_jkey(v, "name")   ? &s->name
				      : cl_jkey(v, "unit") ? &s->unit
				      : cl_jkey(v, "type") ? &s->type
							   : NULL;
		if (b && v->type == CJ_STR) {
			ember_buf_reset(b);
			ember_buf_add(b, v->s, v->n);
		} else if (b && b != &s->name) {
			return fail(s, "a profile's type or unit is not a "
				       "string");
		}
		if (cl_jkey(v, "weights") && v->type == CJ_ARR)
			s->have_weights = 1;
		if (cl_jkey(v, "startValue") && v->type == CJ_NUM &&
		    isfinite(v->num)) {
			s->start = v->num;
			s->has_start = 1;
		}
		if (cl_jkey(v, "endValue") && v->type == CJ_NUM &&
		    isfinite(v->num)) {
			s->end = v->num;
			s->has_end = 1;
		}
		if ((at[3] == K_SAMPLES || at[3] == K_WEIGHTS ||
		     at[3] == K_EVENTS) &&
		    v->type != CJ_ARR && v->type != CJ_END)
			return fail(s, "a profile's samples, weights or "
				       "events are not an array");
		return 0;
	}
	if (at[3] == K_WEIGHTS && d == 4) {
		if (v->type != CJ_NUM || !isfinite(v->num))
			return fail(s, "a weight is not a number");
		struct weight w = {v->num, exact_of(v->num)};
		/* digits only: exact beyond a double's 53 bits */
		size_t digits = 0;
		while (digits < v->n && cl_digit((unsigned char)v->s[digits]))
			digits++;
		if (v->n && v->n < 21 && digits == v->n) {
			char t[24], *end;
			memcpy(t, v->s, v->n);
			t[v->n] = '\0';
			errno = 0;
			unsigned long long x = strtoull(t, &end, 10);
			if (!errno && x != NOT_EXACT)
				w.x = x;
		}
		EMBER_GROW(s->weights, s->nweights + 1, s->aweights);
		s->weights[s->nweights++] = w;
		return 0;
	}
	if (at[3] == K_SAMPLES) {
		if (d == 4 && v->type == CJ_END) {
			EMBER_GROW(s->runs, s->nruns + 2, s->aruns);
			s->runs[++s->nruns] = s->nidx;
		} else if (d == 4 && v->type != CJ_ARR) {
			return fail(s, "a sample is not an array");
		} else if (d == 5) {
			uint32_t i;
			if (index_of(s, v, &i))
				return -1;
			EMBER_GROW(s->idx, s->nidx + 1, s->aidx);
			s->idx[s->nidx++] = i;
		}
		return 0;
	}
	if (at[3] == K_EVENTS) {
		if (d == 4 && v->type == CJ_OBJ) {
			s->ev_has_type = s->ev_has_frame = s->ev_has_at = 0;
		} else if (d == 4 && v->type == CJ_END) {
			if (!s->ev_has_type || !s->ev_has_frame ||
			    !s->ev_has_at)
				return fail(s, "an event lacks its type, "
					       "frame or time");
			if (s->nev && s->cur.at < s->ev[s->nev - 1].at)
				return fail(s, "an evented profile's events "
					       "go back in time");
			EMBER_GROW(s->ev, s->nev + 1, s->aev);
			s->ev[s->nev++] = s->cur;
		} else if (d == 4) {
			return fail(s, "an event is not an object");
		} else if (d == 5 && cl_jkey(v, "type")) {
			if (v->type != CJ_STR || v->n != 1 ||
			    (v->s[0] != 'O' && v->s[0] != 'C'))
				return fail(s, "an event's type is not "
					       "\"O\" or \"C\"");
			s->cur.open = v->s[0] == 'O';
			s->ev_has_type = 1;
		} else if (d == 5 && cl_jkey(v, "frame")) {
			if (index_of(s, v, &s->cur.frame))
				return -1;
			s->ev_has_frame = 1;
		} else if (d == 5 && cl_jkey(v, "at")) {
			if (v->type != CJ_NUM || !isfinite(v->num))
				return fail(s, "an event's time is not a "
					       "number");
			s->cur.at = v->num;
			s->ev_has_at = 1;
		}
	}
	return 0;
}

/* Every profile's stacks, named, into the sink. */
static int name_stacks(struct sstate *s)
{
	struct ember_buf *b = &s->tmp;
	uint32_t *ids = NULL;
	size_t aids = 0;
	int root = s->nprof > 1;

	for (size_t i = 0; i < s->nprof; i++) {
		struct profile *p = &s->prof[i];
		uint32_t r = 0;
		if (root) {
			ember_buf_reset(b);
			ember_buf_adds(b, p->name);
			for (size_t q = 0; q < b->len; q++)
				if (b->buf[q] == ';' || b->buf[q] == '\n')
					b->buf[q] = ':';
			r = ember_intern(&s->k->names, b->buf, b->len);
		}
		for (size_t e = 0; e < p->st.n; e++) {
			size_t n;
			const uint32_t *f = ember_stacks_frames(&p->st, e, &n);
			EMBER_GROW(ids, n + 1, aids);
			ids[0] = r;
			for (size_t q = 0; q < n; q++) {
				if (f[q] >= s->nframes) {
					free(ids);
					cl_fail(s->k,
						"a sample names frame %u, but "
						"there are %zu frames",
						f[q], s->nframes);
					return -1;
				}
				ids[q + root] = s->frames[f[q]];
			}
			double w = p->st.ents[e].count;
			size_t x = ember_stacks_add(&s->k->stacks, ids,
						    n + (size_t)root, 0, 0);
			if (p->exact[e] != NOT_EXACT)
				cl_count(s->k, x, w, p->exact[e], 1);
			else
				cl_count(s->k, x, w, 0, 0);
			s->k->n.records++;
		}
	}
	free(ids);
	s->k->thread_roots = root;
	if (strcmp(s->first_unit, "none"))
		memcpy(s->k->sample_unit, s->first_unit, sizeof(s->first_unit));
	return 0;
}

/* Nanoseconds per unit of time, 0: not a time. */
static double ns_per(const char *u)
{
	return !strcmp(u, "nanoseconds")    ? 1
	       : !strcmp(u, "microseconds") ? 1e3
	       : !strcmp(u, "milliseconds") ? 1e6
	       : !strcmp(u, "seconds")	    ? 1e9
					    : 0;
}

/* "name (tid N)": the tid, and the name's length before it. */
static int title_tid(const char *t, size_t *n, int *tid)
{
	size_t len = strlen(t), i = len;
	long x = 0, mul = 1;

	if (len < 8 || t[len - 1] != ')')
		return 0;
	for (i = len - 1; i > 0 && cl_digit((unsigned char)t[i - 1]); i--) {
		x += (t[i - 1] - '0') * mul;
		mul *= 10;
		if (mul > 1000000000)
			return 0;
	}
	if (i == len - 1 || i < 7 || memcmp(t + i - 6, " (tid ", 6))
		return 0;
	*n = i - 6;
	*tid = (int)x;
	return 1;
}

/* Every profile's samples, in order, into the sample-level profile: a
 * thread per profile, a frame per speedscope frame (the profile's name
 * as the root when there are several, as the folded stacks have it). */
static void fill_profile(struct sstate *s)
{
	struct ember_prof *p = s->pp;
	const char *unit = s->nprof ? s->prof[0].unit : "";
	double ns = ns_per(unit), base = 0, end = 0, conv = 1;
	int sampled = 1, root = s->nprof > 1;

	for (size_t i = 0; i < s->nprof; i++)
		sampled &= !s->prof[i].evented;
	/* times in ns or microseconds as they are (the writers' units),
	 * coarser ones as ns */
	if (ns >= 1e6) {
		conv = ns;
		unit = "nanoseconds";
	}
	if (ns && sampled)
		ember_prof_add_type(p, "samples", "count", 1);
	ember_prof_add_type(p,
			    ns			     ? "time"
			    : !strcmp(unit, "bytes") ? "space"
						     : "samples",
			    ns || !strcmp(unit, "bytes") ? unit : "count", 0);
	/* times from 0 unless some are before it */
	for (size_t i = 0; i < s->nprof; i++) {
		const struct profile *q = &s->prof[i];
		if (q->has_start && q->start < base)
			base = q->start;
		for (size_t j = 0; j < q->nsmp; j++)
			if (q->smp[j].t < base)
				base = q->smp[j].t;
	}
	uint32_t *node = NULL;
	size_t anode = 0;
	for (size_t i = 0; i < s->nprof; i++) {
		const struct profile *q = &s->prof[i];
		size_t tn = 0;
		int tid = -1 - (int)i;
		if (!title_tid(q->name, &tn, &tid))
			tn = strlen(q->name);
		uint32_t thread = ember_prof_thread(p, -1, tid);
		p->threads[thread].name = ember_prof_str(p, q->name, tn);
		uint32_t r = EMBER_PROF_NONE;
		if (root) {
			struct ember_prof_func fn = {0};
			struct ember_prof_frame fr = {0};
			fn.name = fn.system_name = ember_prof_strz(p, q->name);
			fr.func = ember_prof_func(p, &fn);
			fr.mapping = EMBER_PROF_NONE;
			fr.kind = EMBER_PROF_SYNTHETIC;
			r = ember_prof_stack(p, r, ember_prof_frame(p, &fr));
		}
		EMBER_GROW(node, q->st.n + 1, anode);
		for (size_t e = 0; e < q->st.n; e++) {
			size_t n;
			const uint32_t *f = ember_stacks_frames(&q->st, e, &n);
			uint32_t st = r;
			for (size_t k = 0; k < n; k++) {
				size_t len;
				const char *nm = ember_intern_str(
				    &s->k->names, s->frames[f[k]], &len);
				struct ember_prof_func fn = {0};
				struct ember_prof_frame fr = {0};
				fn.name = fn.system_name =
				    ember_prof_str(p, nm, len);
				if (f[k] < s->nffile) {
					fn.file = s->ffile[f[k]];
					fn.start_line = s->fline[f[k]];
				}
				fr.func = ember_prof_func(p, &fn);
				fr.mapping = EMBER_PROF_NONE;
				st = ember_prof_stack(p, st,
						      ember_prof_frame(p, &fr));
			}
			node[e] = st;
		}
		for (size_t j = 0; j < q->nsmp; j++) {
			const struct psample *x = &q->smp[j];
			double v = x->w * conv;
			uint64_t t =
			    ns ? (uint64_t)llround((x->t - base) * ns) : 0;
			if (node[x->e] != EMBER_PROF_NONE)
				ember_prof_sample(p, t, thread, -1, node[x->e],
						  &v);
			if (ns && (x->t + x->w - base) * ns > end)
				end = (x->t + x->w - base) * ns;
		}
		if (ns && q->has_end && (q->end - base) * ns > end)
			end = (q->end - base) * ns;
	}
	free(node);
	p->flags |= EMBER_PROF_HAS_THREADS;
	if (root)
		p->flags |= EMBER_PROF_THREAD_ROOTS;
	if (ns && p->n) {
		p->flags |= EMBER_PROF_HAS_TIME;
		p->duration_ns = (uint64_t)llround(end);
	}
	ember_prof_finish(p);
}

static int read_speedscope(void *st, struct collapse_input *in)
{
	struct sstate *s = st;

	cl_json_free(s->j);
	s->j = cl_json_new(on_json, s);
	drop_profiles(s);
	s->nframes = s->nffile = 0;
	s->first_unit[0] = '\0';
	if (s->k->prof) { /* several inputs: no profile */
		ember_prof_free(s->k->prof);
		s->k->prof = NULL;
		s->k->no_prof = 1;
	}
	s->pp = cl_prof(s->k);
	memset(s->at, 0, sizeof(s->at));
	int rc = cl_json_read(s->j, in, s->k);
	if (!rc && !s->nprof) {
		cl_fail(s->k, "not a speedscope file: no profiles");
		rc = EMBER_EFORMAT;
	}
	if (!rc && name_stacks(s))
		rc = EMBER_EFORMAT;
	if (!rc && s->pp)
		fill_profile(s);
	drop_profiles(s);
	return rc;
}

static int detect(const char *p, size_t len)
{
	size_t i = 0;

	while (i < len && cl_space((unsigned char)p[i]))
		i++;
	return i < len && p[i] == '{' &&
	       memmem(p, len < 65536 ? len : 65536,
		      "speedscope.app/file-format-schema", 33);
}

const struct ember_collapser ember_collapser_speedscope = {
    .name = "speedscope",
    .summary = "speedscope JSON (py-spy, rbspy, Austin): sampled and evented",
    .detect = detect,
    .state_new = state_new,
    .state_free = state_free,
    .read = read_speedscope,
};
