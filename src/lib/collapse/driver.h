/*
 * The collapse driver's insides, shared by collapse.c (the table of
 * formats and the API), source.c (where input comes from) and jobs.c
 * (inputs split into jobs for threads).  Formats do not include it: their
 * interface is collapse.h.
 */
#ifndef EMBER_COLLAPSE_DRIVER_H
#define EMBER_COLLAPSE_DRIVER_H

#include <pthread.h>
#include <sys/types.h>

#include "collapse.h"

#define JOB_SIZE    (2u << 20)
#define MAX_RECORD  32 /* jobs' worth of input without a record boundary */
#define MAX_THREADS 64
#define PIECE	    (1u << 20)

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
	int nthreads;		       /* threads to use */
	struct worker *w[MAX_THREADS]; /* made on first use */
	int nworkers;		       /* contexts made */
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
	/* jobs parsed on the calling thread, by the workers in turn, as
	 * soon as they are cut: the splitting, the workers' sinks and the
	 * merge as with threads, without threads (the fuzz targets) */
	int inline_jobs;
	int merged;
	uint32_t *order; /* the stacks of worker 0, sorted */
	int stream_err;	 /* o.write failed (formats printing as they go) */
	struct ember_collapse_stats st;
	int folded; /* guessing failed on folded stacks */
};

/*
 * Where input comes from: a reader (compressed data, pipes), a plain file read
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
	size_t scanned; /* buf[0, scanned) holds no newline */
	int eof, err;	/* err: what ended the file (0: its end) */
	int raw;	/* not lines: pieces end anywhere */
};

/* An input handed whole to a format's `read` (the source, raw). */
struct collapse_input {
	struct source *src;
	const char *name;
	char *all; /* read into memory */
};

/* ---- collapse.c ---- */
/* The parsing context of thread i, made on first use. */
struct worker *collapse_worker(struct ember_collapse *c, int i);
/* The counters of the next part of input `input`. */
struct record *collapse_record(struct ember_collapse *c, size_t input);
void collapse_progress(struct ember_collapse *c, struct source *s);
/* Parses the rest of an input on the calling thread with worker 0, the
 * chunk at hand first (and, before it, pre bytes read already). */
int collapse_run_serial(struct ember_collapse *c, struct source *r,
			size_t input, int file_start, const char *pre,
			size_t npre, const char *p, size_t n, int rc);

/* ---- source.c ---- */
/* A plain regular file, read directly; else the reader. */
int src_open(struct source *s, const char *path);
/* An input in memory. */
void src_mem(struct source *s, const char *data, size_t len);
void src_close(struct source *s);
/* The first bytes (up to PIECE), left for src_next: to tell the format. */
int src_peek(struct source *s, const char **p, size_t *n);
/* The input is not made of lines: pieces may end anywhere. */
void src_raw(struct source *s);
/* The next piece, ending at a line boundary (but the input's last): 1,
 * 0 at the end, or an EMBER_E* code (EMBER_ETOOLONG: a line longer than
 * EMBER_MAX_LINE, unless raw). */
int src_next(struct source *s, const char **p, size_t *n);
/* Appends what comes next to j: 1, 0 at the end, or an error. */
int src_fill(struct source *s, struct job *j, size_t job_size);
/* Gives back the bytes of p after its last newline (fd sources only:
 * the others hand out whole lines); returns the length kept. */
size_t src_unread(struct source *s, const char *p, size_t n);
uint64_t src_size(const struct source *s);
uint64_t src_pos(const struct source *s);
void job_append(struct job *j, const char *p, size_t n, size_t job_size);
void collapse_input_release(struct collapse_input *in);

/* ---- jobs.c ---- */
/* Parses the rest of an input split into jobs for worker threads. */
int collapse_run_threads(struct ember_collapse *c, struct source *r,
			 size_t input, const char *p, size_t n, int rc);
/* Waits for every job, files their counters and ends the threads. */
void collapse_stop_threads(struct ember_collapse *c);

#endif
