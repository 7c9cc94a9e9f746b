/*
 * The BPF program that reads interpreters' frames at each sample
 * (interp.c, program in interp.bpf.c): loaded, attached to the sampling
 * events, told which processes run which interpreter, and its records
 * handed to the consumer's merge (perf/interp.h).
 */
#ifndef EMBER_RECORD_INTERP_H
#define EMBER_RECORD_INTERP_H

#include "internal.h"

struct rec_interp_bpf;
struct rec_events;

/* Loads the program: 0, or EMBER_ENOTSUP / EMBER_EPERM with why (built
 * without BPF, not allowed, an old kernel). */
int rec_interp_bpf_new(struct rec_interp_bpf **out, struct ember_buf *why);
/* libbpf, loaded on first use (libbpf-dl.c): 1, or 0 with *why. */
int rec_libbpf_ready(const char **why);
void rec_interp_bpf_free(struct rec_interp_bpf *b);
/* Runs the program at each sample of a sampling event's fd. */
int rec_interp_bpf_attach(struct rec_interp_bpf *b, int fd,
			  struct ember_buf *why);
/* Finds the interpreters of the processes the consumer knows that are
 * not yet looked at (and of the command child, > 0, directly), tells the
 * program, and hands the consumer the records the program wrote so far
 * (call before handling the perf records read since the last call). */
void rec_interp_bpf_update(struct rec_interp_bpf *b, struct rec_events *ev,
			   int child);
/* Only the program's records so far, and the processes it told of
 * looked at (between batches of a long backlog: an interpreter that
 * started is configured soon). */
void rec_interp_bpf_poll(struct rec_interp_bpf *b, struct rec_events *ev);
/* The session's counters of interpreter frames into st; where none was
 * read but a process ran an interpreter, tells why once (off: why the
 * program was not loaded, 256 bytes, or "").  b may be NULL. */
void rec_interp_finish(struct rec_interp_bpf *b, struct rec_events *ev,
		       struct ember_record_stats *st, char *off);
/* Counters: samples seen, without a thread state, read faults, records
 * lost to a full ring. */
void rec_interp_bpf_counts(struct rec_interp_bpf *b, uint64_t out[4]);
/* The processes found running an interpreter, and the first reason one
 * was not read (or NULL). */
size_t rec_interp_bpf_procs(const struct rec_interp_bpf *b, const char **why);

#endif
