/*
 * The collapse driver: the table of formats and the API.
 *
 * One thread: the input is read chunk by chunk (whole lines) and fed to
 * one parser, whose state carries from chunk to chunk.  Several threads:
 * the input is split into jobs at record boundaries (jobs.c).  A format
 * not made of lines reads each input whole (`read`).  At the end the
 * sinks are merged into the first (frame names re-interned) and sorted:
 * the output does not depend on which thread parsed what.  Input comes
 * from files, pipes or memory (source.c).
 */
#include <stdlib.h>
#include <unistd.h>

#include "driver.h"
#include "profile.h"

/* The formats: one row each. */
/* clang-format off */
static const struct ember_collapser *const formats[] = {
	&ember_collapser_perf,
	&ember_collapser_stap,
	&ember_collapser_dtrace,
	&ember_collapser_recursive,
	/* guess asks these in order: the stricter first */
	&ember_collapser_jstack,
	&ember_collapser_gdb,
	&ember_collapser_elfutils,
	&ember_collapser_bpftrace,
	&ember_collapser_go,
	&ember_collapser_faulthandler,
	&ember_collapser_java_exceptions,
	&ember_collapser_perf_sched,
	&ember_collapser_sample,
	&ember_collapser_ibmjava,
	&ember_collapser_ljp,
	&ember_collapser_wcp,
	&ember_collapser_aix,
	&ember_collapser_pmc,
	&ember_collapser_instruments,
	&ember_collapser_vtune,
	&ember_collapser_vtune_mc,
	&ember_collapser_vsprof,
	&ember_collapser_xdebug,
	&ember_collapser_ghcprof,
	&ember_collapser_xctrace,
	&ember_collapser_files,
	&ember_collapser_pkgsplit_perf,
	&ember_collapser_range_perf,
	/* whole inputs: protobuf and JSON */
	&ember_collapser_pprof,
	&ember_collapser_cpuprofile,
	&ember_collapser_chrome,
	&ember_collapser_chrome_tracing,
	&ember_collapser_speedscope,
	&ember_collapser_folded,
};
/* clang-format on */

void ember_collapse_options_init(struct ember_collapse_options *o)
{
	memset(o, 0, sizeof(*o));
}

const char *ember_collapse_format(size_t i, const char **summary)
{
	if (i >= ARRAY_SIZE(formats))
		return NULL;
	if (summary)
		*summary = formats[i]->summary;
	return formats[i]->name;
}

const char *ember_collapse_guess(const char *p, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (formats[i]->detect && formats[i]->detect(p, len))
			return formats[i]->name;
	return NULL;
}

/* Lines such as "a;b;c 12", the first ones all of that shape. */
int ember_collapse_is_folded(const char *p, size_t len)
{
	const char *end = p + len;
	int good = 0;

	for (int lines = 0; p < end && lines < 50; lines++) {
		const char *s;
		size_t n = cl_line(&p, end, &s), sl;
		double count;
		if (!n || s[0] == '#')
			continue;
		if (ember_folded_split(s, n, &sl, &count) || !sl)
			return 0;
		good++;
	}
	return good > 0;
}

static const struct ember_collapser *find_format(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}

int ember_collapse_new(struct ember_collapse **cp,
		       const struct ember_collapse_options *o)
{
	struct ember_collapse *c;
	const struct ember_collapser *fmt = NULL;

	*cp = NULL;
	if (o->format && strcmp(o->format, "guess")) {
		fmt = find_format(o->format);
		if (!fmt)
			return EMBER_EINVAL;
	}
	if (o->threads < 0)
		return EMBER_EINVAL;
	c = ember_xcalloc(1, sizeof(*c));
	c->o = *o;
	c->fmt = fmt;
	if (o->event_filter && *o->event_filter) {
		c->sh.event = ember_xstrdup(o->event_filter);
		c->sh.event_len = strlen(o->event_filter);
	}
	c->nthreads = o->threads;
	if (!c->nthreads) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		c->nthreads = n > 0 ? (int)n : 1;
	}
	if (c->nthreads > MAX_THREADS)
		c->nthreads = MAX_THREADS;
	c->job_size = o->job_size ? o->job_size : JOB_SIZE;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->ready_cv, NULL);
	pthread_cond_init(&c->free_cv, NULL);
	c->ready_tail = &c->ready;
	*cp = c;
	return 0;
}

struct worker *collapse_worker(struct ember_collapse *c, int i)
{
	while (c->nworkers <= i) {
		struct worker *w = ember_xcalloc(1, sizeof(*w));
		c->w[c->nworkers++] = w;
		w->c = c;
		ember_intern_init(&w->sink.names);
		ember_stacks_init(&w->sink.stacks);
		ember_buf_init(&w->sink.out, 0);
		w->sink.want_prof = c->o.profile;
		w->state = c->fmt->state_new(&c->o, &w->sink);
	}
	return c->w[i];
}

struct ember_prof *cl_prof(struct collapse_sink *k)
{
	if (!k->want_prof || k->no_prof)
		return NULL;
	if (!k->prof)
		k->prof = ember_prof_new();
	return k->prof;
}

struct record *collapse_record(struct ember_collapse *c, size_t input)
{
	EMBER_GROW(c->recs, c->nrecs + 1, c->arecs);
	struct record *r = &c->recs[c->nrecs++];
	memset(r, 0, sizeof(*r));
	r->input = input;
	return r;
}

void collapse_progress(struct ember_collapse *c, struct source *s)
{
	if (c->o.progress)
		c->o.progress(c->o.progress_ctx, src_pos(s), src_size(s));
}

/* The lines a format printing as it reads has made so far, to o.write. */
static void stream(struct ember_collapse *c, struct worker *w, size_t above)
{
	struct ember_buf *out = &w->sink.out;

	if (c->fmt->order != CL_INPUT || !c->o.write || out->len <= above)
		return;
	if (!c->stream_err)
		c->stream_err = c->o.write(c->o.write_ctx, out->buf, out->len);
	ember_buf_reset(out);
}

int collapse_run_serial(struct ember_collapse *c, struct source *r,
			size_t input, int file_start, const char *pre,
			size_t npre, const char *p, size_t n, int rc)
{
	struct worker *w = collapse_worker(c, 0);
	struct record *rec;

	memset(&w->sink.n, 0, sizeof(w->sink.n));
	if (c->fmt->begin)
		c->fmt->begin(w->state, &c->sh, file_start);
	if (npre)
		c->fmt->parse(w->state, pre, npre);
	for (; rc == 1; rc = src_next(r, &p, &n)) {
		c->fmt->parse(w->state, p, n);
		collapse_progress(c, r);
		stream(c, w, 1 << 16);
	}
	/* what crosses records, as this parser settled it, for the jobs of
	 * later inputs split for threads */
	if (!c->sh.event && w->sink.event) {
		c->sh.event = ember_xmemdup(w->sink.event, w->sink.event_len);
		c->sh.event_len = w->sink.event_len;
		c->sh.event_defaulted = w->sink.event_defaulted;
	}
	if (c->fmt->end)
		c->fmt->end(w->state);
	stream(c, w, 1 << 16);
	rec = collapse_record(c, input);
	rec->n = w->sink.n;
	rec->done = 1;
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	if (!rc && rec->n.error[0])
		rc = EMBER_EFORMAT; /* the format refused it (inferno's) */
	return rc;
}

/* An input read whole by the format (`read`), into worker 0's sink. */
static int run_whole(struct ember_collapse *c, struct source *src,
		     const char *name, size_t input, int rc)
{
	struct worker *w = collapse_worker(c, 0);
	struct collapse_input in = {.src = src, .name = name};
	struct record *rec;

	memset(&w->sink.n, 0, sizeof(w->sink.n));
	if (c->fmt->begin)
		c->fmt->begin(w->state, &c->sh, 1);
	if (rc >= 0)
		rc = c->fmt->read(w->state, &in);
	if (rc == EMBER_ETRUNC && !w->sink.n.error[0] && src_size(src))
		snprintf(w->sink.n.error, sizeof(w->sink.n.error),
			 "expected %llu bytes, got %llu",
			 (unsigned long long)src_size(src),
			 (unsigned long long)src_pos(src));
	if (c->fmt->end)
		c->fmt->end(w->state);
	collapse_input_release(&in);
	collapse_progress(c, src);
	rec = collapse_record(c, input);
	rec->n = w->sink.n;
	rec->done = 1;
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	if (!rc && rec->n.error[0])
		rc = EMBER_EFORMAT; /* the format says why, in the stats */
	return rc;
}

/* Reads one input from src: guesses the format if needed, then parses,
 * split for threads when that is allowed and worth it. */
static int run(struct ember_collapse *c, struct source *src, const char *name)
{
	const char *p = NULL;
	size_t n = 0;
	int rc;

	if (c->o.profile && c->o.profile_only && c->ninputs)
		return EMBER_EINVAL; /* its first input made no folded stacks */
	c->merged = 0;
	EMBER_GROW(c->inputs, c->ninputs + 1, c->ainputs);
	c->inputs[c->ninputs] = name ? ember_xstrdup(name) : NULL;
	size_t input = c->ninputs++;

	rc = src_peek(src, &p, &n);
	if (!c->fmt) {
		if (rc < 0)
			return rc;
		c->fmt = rc == 1 ? find_format(ember_collapse_guess(p, n) ?: "")
				 : NULL;
		if (!c->fmt &&
		    rc == 1) /* said now: the input may not come back */
			c->folded = ember_collapse_is_folded(p, n);
		if (!c->fmt)
			return rc == 1 ? EMBER_EFORMAT : EMBER_EEMPTY;
	}
	if (c->fmt->read && (!c->fmt->parse || (rc == 1 && c->fmt->whole &&
						c->fmt->whole(p, n)))) {
		src_raw(src);
		rc = run_whole(c, src, name, input, rc);
		return rc < 0 ? rc : 0;
	}
	rc = src_next(src, &p, &n);
	uint64_t size = src_size(src);
	int threads = c->nthreads > 1 && c->fmt->parallel &&
		      c->fmt->parallel(&c->o) &&
		      (!size || size > 2 * c->job_size);
	if (threads)
		rc = collapse_run_threads(c, src, input, p, n, rc);
	else
		rc = collapse_run_serial(c, src, input, 1, NULL, 0, p, n, rc);
	return rc < 0 ? rc : 0;
}

static void tally(struct ember_collapse *c);

/* After an input that failed the caller reports from the stats: they are
 * brought up to date. */
static int input_done(struct ember_collapse *c, int err)
{
	if (err) {
		collapse_stop_threads(c);
		tally(c);
	}
	if (err == EMBER_ETOOLONG) {
		/* every line before it was parsed: it is the next one */
		c->st.long_line = 1;
		for (size_t i = 0; i < c->nrecs; i++)
			if (c->recs[i].input + 1 == c->ninputs)
				c->st.long_line += c->recs[i].n.lines;
	}
	return err;
}

/* An input that the format walks itself (files: a folder tree). */
static int run_path(struct ember_collapse *c, const char *path)
{
	struct worker *w = collapse_worker(c, 0);
	struct record *rec;
	int err;

	c->merged = 0;
	EMBER_GROW(c->inputs, c->ninputs + 1, c->ainputs);
	c->inputs[c->ninputs] = ember_xstrdup(path);
	size_t input = c->ninputs++;
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	err = c->fmt->path(w->state, path);
	stream(c, w, 0);
	rec = collapse_record(c, input);
	rec->n = w->sink.n;
	rec->done = 1;
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	return err;
}

int ember_collapse_input(struct ember_collapse *c, const char *path)
{
	struct source src;
	int err;

	if (c->fmt && c->fmt->path && path && strcmp(path, "-"))
		return input_done(c, run_path(c, path));
	err = src_open(&src, path);

	if (err)
		return input_done(c, err);
	err = run(c, &src, path && strcmp(path, "-") ? path : NULL);
	src_close(&src);
	return input_done(c, err);
}

int ember_collapse_mem(struct ember_collapse *c, const char *name,
		       const char *data, size_t len)
{
	struct source src;

	src_mem(&src, data, len);
	return input_done(c, run(c, &src, name));
}

/* Everything into worker 0's sink, sorted. */
static void merge(struct ember_collapse *c)
{
	struct collapse_sink *dst;
	uint32_t *map = NULL, *ids = NULL;
	size_t aids = 0;

	collapse_stop_threads(c);
	if (c->merged)
		return;
	c->merged = 1;
	if (!c->fmt)
		c->fmt = &ember_collapser_perf;
	dst = &collapse_worker(c, 0)->sink;
	if (c->fmt->finish)
		c->fmt->finish(collapse_worker(c, 0)->state);
	for (int i = 1; i < c->nworkers; i++) {
		struct collapse_sink *src = &c->w[i]->sink;
		size_t nn = ember_intern_count(&src->names);
		map = ember_xreallocarray(map, nn ? nn : 1, sizeof(*map));
		for (size_t id = 0; id < nn; id++) {
			size_t len;
			const char *s =
			    ember_intern_str(&src->names, (uint32_t)id, &len);
			map[id] = ember_intern(&dst->names, s, len);
		}
		for (size_t e = 0; e < src->stacks.n; e++) {
			size_t fn;
			const uint32_t *f =
			    ember_stacks_frames(&src->stacks, e, &fn);
			EMBER_GROW(ids, fn, aids);
			for (size_t k = 0; k < fn; k++)
				ids[k] = map[f[k]];
			size_t d =
			    ember_stacks_add(&dst->stacks, ids, fn, 0, 0);
			uint64_t x = src->exact[e];
			cl_count(dst, d, src->stacks.ents[e].count,
				 x == CL_INEXACT ? 0 : x, x != CL_INEXACT);
		}
		ember_stacks_release(&src->stacks);
		ember_stacks_init(&src->stacks);
		free(src->exact);
		src->exact = NULL;
		src->aexact = 0;
	}
	free(map);
	free(ids);
	free(c->order);
	c->order = NULL;
	if (c->fmt->order == CL_SORTED)
		c->order = ember_stacks_order(&dst->stacks, &dst->names);
	tally(c);
}

int ember_collapse_write(struct ember_collapse *c, ember_write_fn w, void *ctx)
{
	struct collapse_sink *k;

	merge(c);
	k = &collapse_worker(c, 0)->sink;
	if (c->fmt->order == CL_INPUT) {
		if (c->stream_err)
			return c->stream_err;
		return k->out.len ? w(ctx, k->out.buf, k->out.len) : 0;
	}
	if (c->fmt->order == CL_FIRST_SEEN) {
		/* the table's entries are in the order first added */
		free(c->order);
		c->order = ember_xreallocarray(NULL, k->stacks.n ?: 1,
					       sizeof(*c->order));
		for (size_t i = 0; i < k->stacks.n; i++)
			c->order[i] = (uint32_t)i;
	}
	return ember_collapse_write_order(k, c->order, c->fmt->number, w, ctx);
}

/* A format printing as it reads, for the writers of other formats: its
 * lines read back into the table, as flamegraph.pl reads them. */
static void lines_to_stacks(struct collapse_sink *k)
{
	const char *p = k->out.buf, *end = p + k->out.len;
	struct cl_frames v = {0};

	while (p < end) {
		const char *s;
		size_t n = cl_line(&p, end, &s), sl;
		double count;
		if (ember_folded_split(s, n, &sl, &count))
			continue;
		v.n = 0;
		cl_frames_push(k, &v, s, sl);
		const char *d = s + sl + 1;
		size_t nd = n - sl - 1;
		if (memchr(d, '.', nd))
			cl_add_nv(k, v.f, v.n, count);
		else
			cl_add_digits(k, v.f, v.n, d, nd);
	}
	free(v.f);
	ember_buf_reset(&k->out);
}

void ember_collapse_profile(struct ember_collapse *c, struct ember_profile *p)
{
	struct collapse_sink *k;

	merge(c);
	k = &collapse_worker(c, 0)->sink;
	if (c->fmt && c->fmt->order == CL_INPUT && k->out.len)
		lines_to_stacks(k);
	memset(p, 0, sizeof(*p));
	p->names = &k->names;
	p->stacks = &k->stacks;
	p->exact = k->exact;
	p->nexact = k->aexact < k->stacks.n ? k->aexact : k->stacks.n;
	p->sample_type = k->sample_type[0] ? k->sample_type : NULL;
	p->sample_unit = k->sample_unit[0] ? k->sample_unit : NULL;
	p->thread_roots = k->thread_roots;
	p->prof = k->prof;
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* The stats from the counters filed so far (every one, once the threads
 * are stopped). */
static void tally(struct ember_collapse *c)
{
	struct ember_collapse_stats *st = &c->st;
	uint64_t base = 0;

	memset(st, 0, sizeof(*st));
	st->format = c->fmt ? c->fmt->name : NULL;
	st->folded = c->folded;
	st->threads = c->used_threads ? c->used_threads : 1;
	for (size_t i = 0; i < c->nrecs; i++) {
		const struct record *r = &c->recs[i];
		const struct collapse_counts *n = &r->n;
		if (i && r->input != c->recs[i - 1].input)
			base = 0;
		if (n->bad && !st->bad.count) {
			st->bad.first_line = base + n->first_bad;
			st->bad.first_input = c->inputs[r->input];
			copy_str(st->bad.first_text, sizeof(st->bad.first_text),
				 n->first_bad_text);
		}
		if (n->filtered && !st->filtered)
			copy_str(st->filtered_event, sizeof(st->filtered_event),
				 n->filtered_event);
		if (n->error[0] && !st->error[0])
			copy_str(st->error, sizeof(st->error), n->error);
		if (n->truncated && !st->truncated)
			st->truncated_input = c->inputs[r->input];
		if (n->inline_missing && !st->inline_missing)
			copy_str(st->inline_missing_module,
				 sizeof(st->inline_missing_module),
				 n->inline_missing_module);
		st->lines += n->lines;
		st->records += n->records;
		st->bad.count += n->bad;
		st->filtered += n->filtered;
		st->truncated += n->truncated;
		st->no_callchain += n->bare;
		st->inline_missing += n->inline_missing;
		st->perfdata |= n->perfdata;
		st->pd_samples += n->pd_samples;
		st->pd_lost += n->pd_lost;
		st->pd_user_stacks += n->pd_user_stacks;
		st->pd_truncated += n->pd_truncated;
		st->pd_unknown += n->pd_unknown;
		st->pd_corrupt += n->pd_corrupt;
		base += n->lines;
	}
	const char *ev = c->sh.event;
	int defaulted = c->sh.event_defaulted;
	for (int i = 0; !ev && i < c->nworkers; i++) {
		ev = c->w[i]->sink.event;
		defaulted = c->w[i]->sink.event_defaulted;
	}
	if (ev) {
		copy_str(st->event, sizeof(st->event), ev);
		st->event_defaulted = defaulted;
	}
	if (c->nworkers) {
		const struct collapse_sink *k = &c->w[0]->sink;
		st->stacks = c->fmt->order == CL_INPUT ? (size_t)st->records
						       : k->stacks.n;
		copy_str(st->sample_type, sizeof(st->sample_type),
			 k->sample_type);
		copy_str(st->sample_unit, sizeof(st->sample_unit),
			 k->sample_unit);
		st->thread_roots = k->thread_roots;
	}
}

const struct ember_collapse_stats *
ember_collapse_stats(const struct ember_collapse *c)
{
	return &c->st;
}

void ember_collapse_free(struct ember_collapse *c)
{
	if (!c)
		return;
	collapse_stop_threads(c);
	for (int i = 0; i < c->nworkers; i++) {
		struct worker *w = c->w[i];
		c->fmt->state_free(w->state);
		ember_intern_release(&w->sink.names);
		ember_stacks_release(&w->sink.stacks);
		ember_prof_free(w->sink.prof);
		ember_buf_release(&w->sink.out);
		free(w->sink.exact);
		free(w->sink.event);
		free(w);
	}
	for (int i = 0; i < c->njobs; i++) {
		free(c->jobs[i]->buf);
		free(c->jobs[i]);
	}
	for (size_t i = 0; i < c->ninputs; i++)
		free(c->inputs[i]);
	free(c->inputs);
	free(c->recs);
	free(c->order);
	free(c->sh.event);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->ready_cv);
	pthread_cond_destroy(&c->free_cv);
	free(c);
}
