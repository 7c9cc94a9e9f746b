/*
 * The ring buffers read on a thread of their own (reader.c), so that the
 * kernel always finds room while the session's thread unwinds.
 */
#ifndef EMBER_RECORD_READER_H
#define EMBER_RECORD_READER_H

#include "perf/events.h"
#include "record/ring.h"

/* The records of one pass over the rings, one after another (each
 * starts with its perf_event_header, 8-byte aligned). */
struct rec_batch {
	struct rec_batch *next;
	char *data;
	size_t len, alloc;
	int corrupt; /* rings found corrupt in this pass */
};

struct rec_reader;
/* Starts reading rings (mapped; the reader owns their tails until
 * stopped), copying records out with ev's layout (rec_events_cut).  At
 * most backlog bytes wait to be handled: past that, records stay in the
 * rings, where the kernel counts what it cannot write.  0, or an EMBER_E*
 * code. */
int rec_reader_start(struct rec_reader **rd, struct rec_ring *rings,
		     size_t nrings, const struct rec_events *ev,
		     size_t backlog) EMBER_WUR;
/* Readable when batches are ready (for poll). */
int rec_reader_fd(const struct rec_reader *rd);
/* The batches read since the last call, oldest first; NULL if none. */
struct rec_batch *rec_reader_take(struct rec_reader *rd);
/* Gives a handled batch back. */
void rec_reader_done(struct rec_reader *rd, struct rec_batch *b);
/* Reads what the rings hold one last time and ends the thread; the
 * batches stay to be taken. */
void rec_reader_stop(struct rec_reader *rd);
/* Stops it if need be, and frees it with the batches not given back. */
void rec_reader_free(struct rec_reader *rd);

#endif
