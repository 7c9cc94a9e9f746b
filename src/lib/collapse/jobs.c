/*
 * Inputs split into jobs for worker threads.
 *
 * The reading thread copies the input into jobs of about JOB_SIZE bytes,
 * each cut just after a record boundary (the format's `split`), settles
 * the cross-record state in input order (`settle`) and queues the job
 * with a copy of that state.  Workers take jobs in any order and parse
 * each from a fresh state into their own sink.  Jobs are numbered; their
 * counters are kept by number so that line numbers and "first" reports
 * come out as one thread would give them.
 *
 * A stretch of input of MAX_RECORD jobs without a record boundary
 * stops the splitting: the jobs in flight are waited for and the rest of
 * that input is parsed on the reading thread, in order.
 */
#include <stdlib.h>

#include "driver.h"

/* Parses job j with worker w's parser, into w's sink.  (The job of an
 * empty input has no buffer: the parsers are given "" rather than NULL.) */
static void run_job(struct ember_collapse *c, struct worker *w, struct job *j)
{
	memset(&w->sink.n, 0, sizeof(w->sink.n));
	c->fmt->begin(w->state, &j->sh, j->file_start);
	c->fmt->parse(w->state, j->buf ? j->buf : "", j->len);
	if (j->file_end)
		c->fmt->end(w->state);
	j->n = w->sink.n;
}

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

		run_job(c, w, j);

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
		c->fmt->settle(&c->sh, j->buf ? j->buf : "", j->len,
			       j->file_start);
	j->sh = c->sh;
	rec = collapse_record(c, input);
	j->seq = (size_t)(rec - c->recs);
	j->used = 1;
	j->next = NULL;
	if (c->inline_jobs) {
		run_job(c,
			collapse_worker(c, (int)(j->seq % (size_t)c->nthreads)),
			j);
		give_back(c, j);
		return;
	}
	if (!c->spawned) {
		struct worker *w = collapse_worker(c, 0);
		if (pthread_create(&w->thread, NULL, worker_main, w)) {
			/* no thread: parse the job here */
			run_job(c, w, j);
			give_back(c, j);
			return;
		}
		c->spawned = first = 1;
	}
	pthread_mutex_lock(&c->lock);
	*c->ready_tail = j;
	c->ready_tail = &j->next;
	if (!first && !c->idle && c->spawned < c->nthreads) {
		struct worker *w = collapse_worker(c, c->spawned);
		if (!pthread_create(&w->thread, NULL, worker_main, w))
			c->spawned++;
	}
	if (c->spawned > c->used_threads)
		c->used_threads = c->spawned;
	pthread_cond_signal(&c->ready_cv);
	pthread_mutex_unlock(&c->lock);
}

int collapse_run_threads(struct ember_collapse *c, struct source *r,
			 size_t input, const char *p, size_t n, int rc)
{
	struct job *j = get_job(c);

	j->len = 0;
	j->file_start = 1;
	j->file_end = 0;
	if (rc == 1)
		job_append(j, p, n, c->job_size);
	for (; rc == 1; rc = src_fill(r, j, c->job_size)) {
		collapse_progress(c, r);
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
			rc = collapse_run_serial(c, r, input, j->file_start,
						 j->buf, whole, p, n, rc);
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

void collapse_stop_threads(struct ember_collapse *c)
{
	drain(c, 0);
	if (!c->spawned)
		return;
	pthread_mutex_lock(&c->lock);
	c->quit = 1;
	pthread_cond_broadcast(&c->ready_cv);
	pthread_mutex_unlock(&c->lock);
	for (int i = 0; i < c->spawned; i++)
		pthread_join(c->w[i]->thread, NULL);
	c->spawned = 0;
	c->quit = 0;
}
