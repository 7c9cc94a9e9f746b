/*
 * Interpreter frames in the native stacks (interp.c): the raw frames the
 * BPF program read at each sample wait here for the perf sample of the
 * same moment, then each run of them replaces the interpreter's eval
 * loop frame it ran in.
 */
#ifndef EMBER_PERF_INTERP_H
#define EMBER_PERF_INTERP_H

#include "interp/interp.h"

struct rec_events;
struct rec_proc;
struct rec_interp_merge;

struct rec_interp_merge *rec_interp_merge_new(void);
void rec_interp_merge_free(struct rec_interp_merge *m);
/* The interpreter of process instance p_id (taken over). */
void rec_interp_merge_add_proc(struct rec_interp_merge *m, uint32_t p_id,
			       struct rec_interp_proc *ip);
struct rec_interp_proc *rec_interp_merge_proc(struct rec_interp_merge *m,
					      uint32_t p_id);
/* The interpreter of pid, found before the consumer knows the process
 * instance: its instance then is the one of pid's next sample. */
void rec_interp_merge_add_pid(struct rec_interp_merge *m, int pid,
			      struct rec_interp_proc *ip);
int rec_interp_merge_has_pid(const struct rec_interp_merge *m, int pid);
/* The frames of one sample, as the BPF program sent them. */
void rec_interp_merge_add(struct rec_interp_merge *m, const void *data,
			  size_t size);
/* The user frames ids[from, n) of a sample of tid at time (root first)
 * with the interpreter frames of that moment merged in; returns the new
 * n (ids has room for EMBER_INTERP_MAX_FRAMES more). */
size_t rec_interp_merge_stack(struct rec_events *ev, struct rec_proc *p,
			      int tid, uint64_t time, uint32_t *ids,
			      size_t from, size_t n);
/* The name of a REC_FRAME_INTERP frame's obj. */
const char *rec_interp_merge_name(const struct rec_interp_merge *m,
				  uint32_t obj, size_t *len);

struct rec_interp_stats {
	uint64_t samples;     /* of processes with an interpreter */
	uint64_t merged;      /* with interpreter frames merged */
	uint64_t eval;	      /* with an eval loop frame */
	uint64_t eval_merged; /* of those, with interpreter frames */
	uint64_t unmatched;   /* no frames of the program for the sample */
	uint64_t mismatched;  /* runs and eval frames did not pair up */
	uint64_t unnamed;     /* frames whose code could not be read */
};
const struct rec_interp_stats *
rec_interp_merge_stats(const struct rec_interp_merge *m);

#endif
