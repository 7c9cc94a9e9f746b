/*
 * The collapse driver: the table of formats, reading inputs, threads.
 *
 * One thread: the input is read chunk by chunk (whole lines) and fed to
 * one parser, whose state carries from chunk to chunk.
 *
 * Several threads: the reading thread copies the input into jobs of about
 * JOB_SIZE bytes, each cut just after a record boundary (the format's
 * `split`), settles the cross-record state in input order (`settle`) and
 * queues the job with a copy of that state.  Workers take jobs in any
 * order and parse each from a fresh state into their own sink.  Jobs are
 * numbered; their counters are kept by number so that line numbers and
 * "first" reports come out as one thread would give them.  At the end the
 * sinks are merged into the first (frame names re-interned) and sorted:
 * the output does not depend on which thread parsed what.
 *
 * A stretch of input of MAX_RECORD jobs without a record boundary
 * stops the splitting: the jobs in flight are waited for and the rest of
 * that input is parsed on the reading thread, in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "collapse.h"

#define JOB_SIZE    (2u << 20)
#define MAX_RECORD  32 /* jobs' worth of input without a record boundary */
#define MAX_THREADS 64

static const struct ember_collapser *const formats[] = {
    &ember_collapser_perf,
    &ember_collapser_stap,
    &ember_collapser_dtrace,
    &ember_collapser_recursive,
};

struct worker {
	struct ember_collapse *c;
	struct collapse_sink sink;
	void *state;
	pthread_t thread;
};

struct job {
	struct job *next;
	char *buf;
	size_t len, alloc;
	size_t seq;
	int file_start, file_end;
	struct collapse_shared sh;
	struct collapse_counts n;
	int used;
};

/* The counters of a job or an unsplit input, kept in input order. */
struct record {
	size_t input;
	struct collapse_counts n;
	int done;
};

struct ember_collapse {
	struct ember_collapse_options o;
	const struct ember_collapser *fmt;
	struct collapse_shared sh;
	int nthreads; /* threads to use */
	struct worker w[MAX_THREADS];
	int nworkers; /* contexts made */
	/* inputs and the counters of their parts */
	char **inputs;
	size_t ninputs, ainputs;
	struct record *recs;
	size_t nrecs, arecs;
	/* threads */
	pthread_mutex_t lock;
	pthread_cond_t ready_cv, free_cv;
	struct job *ready, **ready_tail, *freel;
	struct job *jobs[2 * MAX_THREADS + 1]; /* all of them, to free */
	int njobs, nfree, idle, spawned, quit;
	size_t job_size;
	int used_threads; /* the most threads that ran at once */
	int merged;
	uint32_t *order; /* the stacks of worker 0, sorted */
	struct ember_collapse_stats st;
};

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

/* The parsing context of thread i, made on first use. */
static struct worker *worker(struct ember_collapse *c, int i)
{
	while (c->nworkers <= i) {
		struct worker *w = &c->w[c->nworkers++];
		w->c = c;
		ember_intern_init(&w->sink.names);
		ember_stacks_init(&w->sink.stacks);
		w->state = c->fmt->state_new(&c->o, &w->sink);
	}
	return &c->w[i];
}

static struct record *new_record(struct ember_collapse *c, size_t input)
{
	EMBER_GROW(c->recs, c->nrecs + 1, c->arecs);
	struct record *r = &c->recs[c->nrecs++];
	memset(r, 0, sizeof(*r));
	r->input = input;
	return r;
}

/*
 * Where input comes from: a reader (gzip, pipes), a plain file read
 * directly (so that threads' jobs are filled without another copy), or a
 * buffer.  src_next hands out pieces that end at line boundaries (but the
 * input's last); src_fill appends to a job whatever comes next.
 */
struct source {
	struct ember_reader *r;
	int fd; /* >= 0: a plain file */
	const char *data;
	size_t len, pos; /* a buffer; pos: bytes consumed, for any source */
	uint64_t size;
	char *buf; /* fd: bytes read, not handed out past keep */
	size_t blen, balloc, keep;
	int eof;
};

#define PIECE	 (1u << 20)
#define MAX_LINE (64u << 20)

/* Reads up to n bytes: how many (0 at the end), or EMBER_EIO. */
static ssize_t fd_read(struct source *s, char *p, size_t n)
{
	for (;;) {
		ssize_t got = read(s->fd, p, n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return EMBER_EIO;
		if (!got)
			s->eof = 1;
		s->pos += (size_t)got;
		return got;
	}
}

static int src_next(struct source *s, const char **p, size_t *n)
{
	if (s->r)
		return ember_reader_next(s->r, p, n);
	if (s->fd < 0) {
		if (s->pos >= s->len)
			return 0;
		size_t take = s->len - s->pos;
		if (take > PIECE) {
			const char *nl = memrchr(s->data + s->pos, '\n', PIECE);
			take =
			    nl ? (size_t)(nl - (s->data + s->pos)) + 1 : PIECE;
		}
		*p = s->data + s->pos;
		*n = take;
		s->pos += take;
		return 1;
	}
	if (s->keep) {
		memmove(s->buf, s->buf + s->keep, s->blen - s->keep);
		s->blen -= s->keep;
		s->keep = 0;
	}
	for (;;) {
		const char *nl =
		    s->blen ? memrchr(s->buf, '\n', s->blen) : NULL;
		if (nl && (s->blen >= PIECE || s->eof))
			s->keep = (size_t)(nl - s->buf) + 1;
		else if (s->eof || s->blen >= MAX_LINE)
			s->keep =
			    s->blen; /* the end, or an absurd line: as is */
		if (s->keep) {
			*p = s->buf;
			*n = s->keep;
			return 1;
		}
		if (s->eof)
			return 0;
		if (s->balloc - s->blen < PIECE) {
			s->balloc = s->balloc ? s->balloc * 2 : 2 * PIECE;
			s->buf = ember_xrealloc(s->buf, s->balloc);
		}
		ssize_t got = fd_read(s, s->buf + s->blen, s->balloc - s->blen);
		if (got < 0)
			return (int)got;
		s->blen += (size_t)got;
	}
}

static void job_reserve(struct job *j, size_t n, size_t job_size)
{
	if (j->len + n + 1 > j->alloc) {
		size_t a = j->alloc ? j->alloc : job_size + PIECE + 4096;
		while (a < j->len + n + 1)
			a *= 2;
		j->buf = ember_xrealloc(j->buf, a);
		j->alloc = a;
	}
}

static void job_append(struct job *j, const char *p, size_t n, size_t job_size)
{
	job_reserve(j, n, job_size);
	memcpy(j->buf + j->len, p, n);
	j->len += n;
}

/* Appends what comes next to j: 1, 0 at the end, or an error. */
static int src_fill(struct source *s, struct job *j, size_t job_size)
{
	const char *p;
	size_t n;

	if (s->fd >= 0) {
		if (s->blen > s->keep) {
			/* bytes read before (to guess the format) */
			job_append(j, s->buf + s->keep, s->blen - s->keep,
				   job_size);
			s->blen = s->keep = 0;
			return 1;
		}
		if (s->eof)
			return 0;
		/* into the room there is, which job_size + PIECE leaves */
		job_reserve(j, 4096, job_size);
		size_t room = j->alloc - j->len - 1;
		ssize_t got =
		    fd_read(s, j->buf + j->len, room < PIECE ? room : PIECE);
		if (got < 0)
			return (int)got;
		j->len += (size_t)got;
		return got > 0;
	}
	int rc = src_next(s, &p, &n);
	if (rc == 1)
		job_append(j, p, n, job_size);
	return rc;
}

/* Gives back the bytes of p after its last newline (fd sources only:
 * the others hand out whole lines). */
static size_t src_unread(struct source *s, const char *p, size_t n)
{
	const char *nl = memrchr(p, '\n', n);
	size_t whole = nl ? (size_t)(nl - p) + 1 : 0;

	if (s->fd < 0 || whole == n)
		return n;
	size_t tail = n - whole;
	if (s->keep) {
		memmove(s->buf, s->buf + s->keep, s->blen - s->keep);
		s->blen -= s->keep;
		s->keep = 0;
	}
	if (s->balloc < s->blen + tail) {
		s->balloc = s->blen + tail + PIECE;
		s->buf = ember_xrealloc(s->buf, s->balloc);
	}
	memmove(s->buf + tail, s->buf, s->blen);
	memcpy(s->buf, p + whole, tail);
	s->blen += tail;
	return whole;
}

static uint64_t src_size(const struct source *s)
{
	return s->r ? ember_reader_size(s->r) : s->size;
}

static uint64_t src_pos(const struct source *s)
{
	return s->r ? ember_reader_pos(s->r) : s->pos;
}

static void progress(struct ember_collapse *c, struct source *s)
{
	if (c->o.progress)
		c->o.progress(c->o.progress_ctx, src_pos(s), src_size(s));
}

/* ---- one thread ---- */

/* Parses the rest of an input on the calling thread with worker 0, the
 * chunk at hand first (and, before it, pre bytes read already). */
static int run_serial(struct ember_collapse *c, struct source *r, size_t input,
		      int file_start, const char *pre, size_t npre,
		      const char *p, size_t n, int rc)
{
	struct worker *w = worker(c, 0);
	struct record *rec;

	memset(&w->sink.n, 0, sizeof(w->sink.n));
	c->fmt->begin(w->state, &c->sh, file_start);
	if (npre)
		c->fmt->parse(w->state, pre, npre);
	for (; rc == 1; rc = src_next(r, &p, &n)) {
		c->fmt->parse(w->state, p, n);
		progress(c, r);
	}
	/* what crosses records, as this parser settled it, for the jobs of
	 * later inputs split for threads */
	if (!c->sh.event && w->sink.event) {
		c->sh.event = ember_xmemdup(w->sink.event, w->sink.event_len);
		c->sh.event_len = w->sink.event_len;
		c->sh.event_defaulted = w->sink.event_defaulted;
	}
	c->fmt->end(w->state);
	rec = new_record(c, input);
	rec->n = w->sink.n;
	rec->done = 1;
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	return rc;
}

/* ---- threads ---- */

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct ember_collapse *c = w->c;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->ready && !c->quit) {
			c->idle++;
			pthread_cond_wait(&c->ready_cv, &c->lock);
			c->idle--;
		}
		if (!c->ready)
			break;
		struct job *j = c->ready;
		c->ready = j->next;
		if (!c->ready)
			c->ready_tail = &c->ready;
		pthread_mutex_unlock(&c->lock);

		memset(&w->sink.n, 0, sizeof(w->sink.n));
		c->fmt->begin(w->state, &j->sh, j->file_start);
		c->fmt->parse(w->state, j->buf, j->len);
		if (j->file_end)
			c->fmt->end(w->state);
		j->n = w->sink.n;

		pthread_mutex_lock(&c->lock);
		j->next = c->freel;
		c->freel = j;
		c->nfree++;
		pthread_cond_signal(&c->free_cv);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* Files a finished job's counters.  Called with the lock held. */
static void harvest(struct ember_collapse *c, struct job *j)
{
	if (j->used) {
		c->recs[j->seq].n = j->n;
		c->recs[j->seq].done = 1;
		j->used = 0;
	}
}

static struct job *get_job(struct ember_collapse *c)
{
	struct job *j;

	pthread_mutex_lock(&c->lock);
	if (!c->freel && c->njobs < 2 * c->nthreads + 1) {
		j = ember_xcalloc(1, sizeof(*j));
		c->jobs[c->njobs++] = j;
		pthread_mutex_unlock(&c->lock);
		return j;
	}
	while (!c->freel)
		pthread_cond_wait(&c->free_cv, &c->lock);
	j = c->freel;
	c->freel = j->next;
	c->nfree--;
	harvest(c, j);
	pthread_mutex_unlock(&c->lock);
	return j;
}

/* Waits until every job but the `held` ones the caller has is back, and
 * files their counters. */
static void drain(struct ember_collapse *c, int held)
{
	pthread_mutex_lock(&c->lock);
	while (c->nfree < c->njobs - held)
		pthread_cond_wait(&c->free_cv, &c->lock);
	for (struct job *j = c->freel; j; j = j->next)
		harvest(c, j);
	pthread_mutex_unlock(&c->lock);
}

static void give_back(struct ember_collapse *c, struct job *j)
{
	pthread_mutex_lock(&c->lock);
	j->next = c->freel;
	c->freel = j;
	c->nfree++;
	pthread_cond_signal(&c->free_cv);
	pthread_mutex_unlock(&c->lock);
}

/* Settles the cross-record state with the job and queues it, starting a
 * worker thread if none is idle. */
static void dispatch(struct ember_collapse *c, struct job *j, size_t input)
{
	struct record *rec;
	int first = 0;

	if (c->fmt->settle)
		c->fmt->settle(&c->sh, j->buf, j->len, j->file_start);
	j->sh = c->sh;
	rec = new_record(c, input);
	j->seq = (size_t)(rec - c->recs);
	j->used = 1;
	j->next = NULL;
	if (!c->spawned) {
		struct worker *w = worker(c, 0);
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			/* no thread: parse the job here */
			memset(&w->sink.n, 0, sizeof(w->sink.n));
			c->fmt->begin(w->state, &j->sh, j->file_start);
			c->fmt->parse(w->state, j->buf, j->len);
			if (j->file_end)
				c->fmt->end(w->state);
			j->n = w->sink.n;
			give_back(c, j);
			return;
		}
		c->spawned = first = 1;
	}
	pthread_mutex_lock(&c->lock);
	*c->ready_tail = j;
	c->ready_tail = &j->next;
	if (!first && !c->idle && c->spawned < c->nthreads) {
		struct worker *w = worker(c, c->spawned);
		if (!pthread_create(&w->thread, NULL, worker_main, w))
			c->spawned++;
	}
	if (c->spawned > c->used_threads)
		c->used_threads = c->spawned;
	pthread_cond_signal(&c->ready_cv);
	pthread_mutex_unlock(&c->lock);
}

static int run_threads(struct ember_collapse *c, struct source *r, size_t input,
		       const char *p, size_t n, int rc)
{
	struct job *j = get_job(c);

	j->len = 0;
	j->file_start = 1;
	j->file_end = 0;
	if (rc == 1)
		job_append(j, p, n, c->job_size);
	for (; rc == 1; rc = src_fill(r, j, c->job_size)) {
		progress(c, r);
		if (j->len < c->job_size)
			continue;
		size_t cut = c->fmt->split(j->buf, j->len, j->file_start);
		if (!cut) {
			if (j->len < MAX_RECORD * c->job_size)
				continue;
			/* no record boundary in sight: go on in order */
			drain(c, 1);
			size_t whole = src_unread(r, j->buf, j->len);
			rc = src_next(r, &p, &n);
			rc = run_serial(c, r, input, j->file_start, j->buf,
					whole, p, n, rc);
			free(j->buf);
			j->buf = NULL;
			j->len = j->alloc = 0;
			give_back(c, j);
			return rc;
		}
		struct job *next = get_job(c);
		next->len = 0;
		next->file_start = 0;
		next->file_end = 0;
		job_append(next, j->buf + cut, j->len - cut, c->job_size);
		j->len = cut;
		dispatch(c, j, input);
		j = next;
	}
	j->file_end = 1;
	dispatch(c, j, input);
	return rc;
}

/* Reads one input from src: guesses the format if needed, then parses,
 * split for threads when that is allowed and worth it. */
static int run(struct ember_collapse *c, struct source *src, const char *name)
{
	const char *p = NULL;
	size_t n = 0;
	int rc;

	c->merged = 0;
	EMBER_GROW(c->inputs, c->ninputs + 1, c->ainputs);
	c->inputs[c->ninputs] = name ? ember_xstrdup(name) : NULL;
	size_t input = c->ninputs++;

	rc = src_next(src, &p, &n);
	if (!c->fmt) {
		if (rc < 0)
			return rc;
		c->fmt = rc == 1 ? find_format(ember_collapse_guess(p, n) ?: "")
				 : NULL;
		if (!c->fmt)
			return rc == 1 ? EMBER_EFORMAT : EMBER_EEMPTY;
	}
	uint64_t size = src_size(src);
	int threads = c->nthreads > 1 && c->fmt->parallel(&c->o) &&
		      (!size || size > 2 * c->job_size);
	if (threads)
		rc = run_threads(c, src, input, p, n, rc);
	else
		rc = run_serial(c, src, input, 1, NULL, 0, p, n, rc);
	return rc < 0 ? rc : 0;
}

/* A plain regular file, read directly; else the reader. */
static int src_open(struct source *s, const char *path)
{
	struct stat st;
	unsigned char magic[2];

	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (path && strcmp(path, "-")) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    !(pread(fd, magic, 2, 0) == 2 && magic[0] == 0x1f &&
		      magic[1] == 0x8b)) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
			s->fd = fd;
			s->size = (uint64_t)st.st_size;
			return 0;
		}
		if (fd >= 0)
			close(fd);
	}
	return ember_reader_open(&s->r, path);
}

static void src_close(struct source *s)
{
	if (s->r)
		ember_reader_close(s->r);
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
}

int ember_collapse_input(struct ember_collapse *c, const char *path)
{
	struct source src;
	int err = src_open(&src, path);

	if (err)
		return err;
	err = run(c, &src, path && strcmp(path, "-") ? path : NULL);
	src_close(&src);
	return err;
}

int ember_collapse_mem(struct ember_collapse *c, const char *name,
		       const char *data, size_t len)
{
	struct source src;

	memset(&src, 0, sizeof(src));
	src.fd = -1;
	src.data = data;
	src.len = src.size = len;
	return run(c, &src, name);
}

static void stop_threads(struct ember_collapse *c)
{
	drain(c, 0);
	if (!c->spawned)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->ready_cv);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->spawned; i++)
		pthread_join(c->w[i].thread, NULL);
	c->spawned = 0;
	c->quit = 0;
}

/* Everything into worker 0's sink, sorted. */
static void merge(struct ember_collapse *c)
{
	struct collapse_sink *dst;
	uint32_t *map = NULL, *ids = NULL;
	size_t aids = 0;

	stop_threads(c);
	if (c->merged)
		return;
	c->merged = 1;
	if (!c->fmt)
		c->fmt = &ember_collapser_perf;
	dst = &worker(c, 0)->sink;
	for (int i = 1; i < c->nworkers; i++) {
		struct collapse_sink *src = &c->w[i].sink;
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
	c->order = ember_stacks_order(&dst->stacks, &dst->names, c->nthreads);
}

int ember_collapse_write(struct ember_collapse *c, ember_write_fn w, void *ctx)
{
	struct collapse_sink *k;

	merge(c);
	k = &worker(c, 0)->sink;
	return ember_collapse_write_order(k, c->order, w, ctx);
}

static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

const struct ember_collapse_stats *
ember_collapse_stats(const struct ember_collapse *cc)
{
	struct ember_collapse *c = (struct ember_collapse *)cc;
	struct ember_collapse_stats *st = &c->st;
	uint64_t base = 0;

	stop_threads(c);
	memset(st, 0, sizeof(*st));
	st->format = c->fmt ? c->fmt->name : NULL;
	st->threads = c->used_threads ? c->used_threads : 1;
	for (size_t i = 0; i < c->nrecs; i++) {
		const struct record *r = &c->recs[i];
		const struct collapse_counts *n = &r->n;
		if (i && r->input != c->recs[i - 1].input)
			base = 0;
		if (n->bad && !st->bad_lines) {
			st->first_bad_line = base + n->first_bad;
			st->first_bad_input = c->inputs[r->input];
			copy_str(st->first_bad_text, sizeof(st->first_bad_text),
				 n->first_bad_text);
		}
		if (n->filtered && !st->filtered)
			copy_str(st->filtered_event, sizeof(st->filtered_event),
				 n->filtered_event);
		if (n->truncated && !st->truncated)
			st->truncated_input = c->inputs[r->input];
		if (n->inline_missing && !st->inline_missing)
			copy_str(st->inline_missing_module,
				 sizeof(st->inline_missing_module),
				 n->inline_missing_module);
		st->lines += n->lines;
		st->records += n->records;
		st->bad_lines += n->bad;
		st->filtered += n->filtered;
		st->truncated += n->truncated;
		st->inline_missing += n->inline_missing;
		base += n->lines;
	}
	const char *ev = c->sh.event;
	int defaulted = c->sh.event_defaulted;
	for (int i = 0; !ev && i < c->nworkers; i++) {
		ev = c->w[i].sink.event;
		defaulted = c->w[i].sink.event_defaulted;
	}
	if (ev) {
		copy_str(st->event, sizeof(st->event), ev);
		st->event_defaulted = defaulted;
	}
	if (c->nworkers)
		st->stacks = c->w[0].sink.stacks.n;
	return st;
}

void ember_collapse_free(struct ember_collapse *c)
{
	if (!c)
		return;
	stop_threads(c);
	for (int i = 0; i < c->nworkers; i++) {
		struct worker *w = &c->w[i];
		c->fmt->state_free(w->state);
		ember_intern_release(&w->sink.names);
		ember_stacks_release(&w->sink.stacks);
		free(w->sink.exact);
		free(w->sink.event);
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
