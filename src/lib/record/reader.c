/*
 * The ring buffers read on their own thread.  At a hundred thousand
 * context switches a second, each with a stack copy, a ring fills in
 * tens of milliseconds; the thread that unwinds cannot also be the one
 * that empties the rings without the kernel dropping records whenever
 * unwinding, a round of sorting, or the scheduler keeps it away.  This
 * thread only waits for the kernel's wakeup and copies the records out
 * (stack copies cut to what the kernel filled, rec_events_cut), one batch
 * per pass over the rings, handed to the session's thread in order.
 *
 * Invariants: batches are handed over in the order they were read;
 * `backlog` is the memory of the batches handed over and not yet given
 * back; past the limit the thread waits, leaving the records in the
 * rings (the kernel then counts what it could not write, as before).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "record/reader.h"

#define POLL_MS	    100
#define HUP_POLL_MS 10
#define MIN_BATCH   (1u << 20)
#define MAX_SPARES  2

struct rec_reader {
	pthread_t thread;
	int running;
	struct rec_ring *rings;
	size_t nrings;
	const struct rec_events *ev;
	size_t backlog_max;
	int ready_fd;		       /* batches are ready */
	int wake_fd;		       /* stop */
	struct rec_batch *cur;	       /* being filled (reader thread only) */
	size_t last_len;	       /* of the last batch handed over */
	pthread_mutex_t lock;	       /* guards what follows */
	pthread_cond_t room;	       /* backlog went down, or stop */
	struct rec_batch *head, *tail; /* ready, oldest first */
	struct rec_batch *spares;      /* given back, for reuse */
	size_t nspares;
	size_t backlog; /* bytes of batches handed over */
	int stop;
};

static void append(void *ctx, const void *rec, size_t size)
{
	struct rec_reader *rd = ctx;
	struct rec_batch *b = rd->cur;

	EMBER_GROW(b->data, b->len + size, b->alloc);
	b->len += rec_events_cut(rd->ev, rec, size, b->data + b->len);
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	while (write(fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* One pass over the rings; the batch is handed over if it holds any. */
static void pass(struct rec_reader *rd)
{
	struct rec_batch *b;

	if (!rd->cur) {
		pthread_mutex_lock(&rd->lock);
		b = rd->spares;
		if (b) {
			rd->spares = b->next;
			rd->nspares--;
		}
		pthread_mutex_unlock(&rd->lock);
		if (!b) {
			b = ember_xcalloc(1, sizeof(*b));
			EMBER_GROW(b->data, MIN_BATCH, b->alloc);
		}
		b->next = NULL;
		b->len = 0;
		b->corrupt = 0;
		rd->cur = b;
	}
	b = rd->cur;
	for (size_t i = 0; i < rd->nrings; i++)
		if (rd->rings[i].base)
			b->corrupt += rec_ring_drain(&rd->rings[i], append, rd);
	/* an empty pass still ends a round, letting the last records be
	 * handled while their process runs (its code is read for JIT
	 * frames); once is enough */
	if (!b->len && !b->corrupt && !rd->last_len)
		return;
	rd->last_len = b->len;
	rd->cur = NULL;
	pthread_mutex_lock(&rd->lock);
	if (rd->tail)
		rd->tail->next = b;
	else
		rd->head = b;
	rd->tail = b;
	rd->backlog += b->alloc;
	pthread_mutex_unlock(&rd->lock);
	signal_fd(rd->ready_fd);
}

static void *run(void *arg)
{
	struct rec_reader *rd = arg;
	struct pollfd *pf = ember_xcalloc(rd->nrings + 1, sizeof(*pf));
	size_t *ring_of = ember_xcalloc(rd->nrings + 1, sizeof(*ring_of));
	/* an event whose threads are gone polls POLLHUP for ever: its ring
	 * (which other events may still write) is then read on a timer */
	char *hup = ember_xcalloc(rd->nrings + 1, 1);
	int any_hup = 0;

	/* the lowest real-time priority where permitted (root,
	 * CAP_SYS_NICE), as perf record -r 1: on a busy machine a woken
	 * thread may otherwise wait longer than a ring lasts; the work
	 * between two waits is bounded by what the rings hold */
	struct sched_param sp = {.sched_priority = 1};
	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

	for (;;) {
		pthread_mutex_lock(&rd->lock);
		while (!rd->stop && rd->backlog > rd->backlog_max)
			pthread_cond_wait(&rd->room, &rd->lock);
		int stop = rd->stop;
		pthread_mutex_unlock(&rd->lock);
		if (!stop) {
			size_t k = 0;
			for (size_t i = 0; i < rd->nrings; i++) {
				if (!rd->rings[i].base || hup[i])
					continue;
				ring_of[k] = i;
				pf[k++] =
				    (struct pollfd){rd->rings[i].fd, POLLIN, 0};
			}
			ring_of[k] = rd->nrings;
			pf[k++] = (struct pollfd){rd->wake_fd, POLLIN, 0};
			if (poll(pf, k, any_hup ? HUP_POLL_MS : POLL_MS) > 0)
				for (size_t i = 0; i + 1 < k; i++)
					if (pf[i].revents &
					    (POLLHUP | POLLERR | POLLNVAL))
						hup[ring_of[i]] = any_hup = 1;
		}
		/* stopping: what the rings still hold, once */
		pass(rd);
		if (stop)
			break;
	}
	free(hup);
	free(ring_of);
	free(pf);
	return NULL;
}

int rec_reader_start(struct rec_reader **out, struct rec_ring *rings,
		     size_t nrings, const struct rec_events *ev, size_t backlog)
{
	struct rec_reader *rd = ember_xcalloc(1, sizeof(*rd));
	sigset_t all, old;
	int err;

	*out = NULL;
	rd->rings = rings;
	rd->nrings = nrings;
	rd->ev = ev;
	rd->backlog_max = backlog;
	rd->ready_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rd->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	pthread_mutex_init(&rd->lock, NULL);
	pthread_cond_init(&rd->room, NULL);
	if (rd->ready_fd < 0 || rd->wake_fd < 0) {
		rec_reader_free(rd);
		return EMBER_EIO;
	}
	/* signals (^C) go to the session's thread */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&rd->thread, NULL, run, rd);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		rec_reader_free(rd);
		errno = err;
		return err == ENOMEM || err == EAGAIN ? EMBER_ENOMEM
						      : EMBER_EIO;
	}
	rd->running = 1;
	*out = rd;
	return 0;
}

int rec_reader_fd(const struct rec_reader *rd)
{
	return rd->ready_fd;
}

struct rec_batch *rec_reader_take(struct rec_reader *rd)
{
	uint64_t n;
	struct rec_batch *b;

	/* before taking: a batch handed over meanwhile signals again */
	while (read(rd->ready_fd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&rd->lock);
	b = rd->head;
	rd->head = rd->tail = NULL;
	pthread_mutex_unlock(&rd->lock);
	return b;
}

static void free_batch(struct rec_batch *b)
{
	free(b->data);
	free(b);
}

void rec_reader_done(struct rec_reader *rd, struct rec_batch *b)
{
	pthread_mutex_lock(&rd->lock);
	rd->backlog -= b->alloc;
	if (rd->nspares < MAX_SPARES) {
		b->next = rd->spares;
		rd->spares = b;
		rd->nspares++;
		b = NULL;
	}
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
	if (b)
		free_batch(b);
}

void rec_reader_stop(struct rec_reader *rd)
{
	if (!rd->running)
		return;
	pthread_mutex_lock(&rd->lock);
	rd->stop = 1;
	pthread_cond_signal(&rd->room);
	pthread_mutex_unlock(&rd->lock);
	signal_fd(rd->wake_fd);
	pthread_join(rd->thread, NULL);
	rd->running = 0;
}

void rec_reader_free(struct rec_reader *rd)
{
	struct rec_batch *b, *next;

	if (!rd)
		return;
	rec_reader_stop(rd);
	for (b = rd->head; b; b = next) {
		next = b->next;
		free_batch(b);
	}
	for (b = rd->spares; b; b = next) {
		next = b->next;
		free_batch(b);
	}
	if (rd->cur)
		free_batch(rd->cur);
	if (rd->ready_fd >= 0)
		close(rd->ready_fd);
	if (rd->wake_fd >= 0)
		close(rd->wake_fd);
	pthread_cond_destroy(&rd->room);
	pthread_mutex_destroy(&rd->lock);
	free(rd);
}
