/*
 * perf.data files and streams (perfdata.c): the header, the event
 * attributes and feature sections, and the records in time order.
 */
#ifndef EMBER_PERF_PERFDATA_H
#define EMBER_PERF_PERFDATA_H

#include <linux/perf_event.h>

#include "internal.h"

struct pd_qent;
struct rec_pd_attr {
	struct perf_event_attr attr;
	char *name; /* from the event descriptions, NULL if not named */
};

struct rec_pd_id {
	uint64_t id;
	uint32_t attr;
};

struct rec_pd_buildid {
	int kernel, pid;
	uint8_t id[20];
	size_t len;
	char *path;
};

/* Hands out records in time order, with the index of their attribute. */
typedef void (*rec_pd_record_fn)(void *ctx, const void *rec, size_t size,
				 uint32_t attr);
/* The next piece of a stream: 1, 0 at its end, or an EMBER_E* code. */
typedef int (*rec_pd_next_fn)(void *ctx, const char **p, size_t *n);

struct rec_pd {
	rec_pd_record_fn fn;
	void *fctx;
	void (*progress)(void *ctx, uint64_t done, uint64_t size);
	void *progress_ctx;
	uint64_t size, last_progress;
	/* what the header and the feature sections tell */
	struct rec_pd_attr *attrs;
	size_t nattrs, aattrs;
	struct rec_pd_id *ids;
	size_t nids, aids;
	int ids_sorted;
	struct rec_pd_buildid *bids;
	size_t nbids, abids;
	char *hostname, *osrelease, *version, *arch, *cmdline;
	uint32_t compression;
	int pipe, truncated, unfinished;
	/* counts */
	uint64_t records, unknown, compressed;
	uint64_t by_type[PERF_RECORD_MAX];
	/* the queue of one round */
	struct pd_qent *q, *qtmp; /* qtmp: aqtmp entries, for sorting */
	size_t nq, aq, aqtmp, queued;
	uint64_t seq, round_max, prev_round_max;
	/* inflating */
	void *zstd;
	uint8_t *zbuf;
	size_t zlen, zalloc;
	/* a file: its data section from win_off to win_end is in win */
	int fd, spooled; /* spooled: fd is a temporary copy, ours to close */
	uint8_t *win;
	size_t win_alloc;
	uint64_t win_off, win_end;
	char err[180];
};

void rec_pd_init(struct rec_pd *pd, rec_pd_record_fn fn, void *ctx);
void rec_pd_release(struct rec_pd *pd);
/* Whether bytes start a perf.data file or stream. */
int rec_pd_is_perfdata(const char *p, size_t n);
/*
 * Reads a perf.data file (fd, a regular file: read, never mapped) or
 * stream (the piece first, then next's), handing each record to the
 * callback in time order.  0, or an EMBER_E* code with pd->err saying
 * what is wrong and where (EMBER_ETRUNC: the file was cut short while
 * read, pd->err saying how many bytes were expected and got).
 */
int rec_pd_read(struct rec_pd *pd, int fd, const char *first, size_t nfirst,
		rec_pd_next_fn next, void *ctx) EMBER_WUR;

#endif
