/*
 * The consumer of perf_event records (events.c), whatever their source
 * (the ring buffers of a recording): side-band records keep the world of
 * processes current, samples become stacks of frame ids with a weight.
 */
#ifndef EMBER_PERF_EVENTS_H
#define EMBER_PERF_EVENTS_H

#include "perf/frames.h"
#include "perf/procmap.h"
#include "stacks.h"

struct rec_events {
	/* how the records are laid out and what to keep: set before the
	 * first record */
	uint64_t sample_type, regs_mask;
	int dwarf; /* samples carry REGS_USER and STACK_USER ... */
	struct ember_unwinder *unwinder; /* ... unwound by this (owned) */
	struct rec_offcpu *off; /* --off-cpu, --wall: switches (owned) */
	int system_wide, idle;	/* -a; keep the idle task's samples */
	int root_pid, root_tid; /* root frame comm-PID[/TID] */
	/* a recording read back (perf.data): nothing of the processes is
	 * read from /proc, roots are "comm\0pid\0tid", an exec keeps the
	 * old mappings until replaced and unknown frames their address, as
	 * perf script has them */
	int replay;
	uint64_t read_format; /* of PERF_SAMPLE_READ */
	int branch_hw_index;  /* PERF_SAMPLE_BRANCH_STACK has hw_idx */
	uint64_t max_stack;   /* the kernel's callchain limit (FP mode) */
	struct ember_record_stats *stats; /* counters added to */
	/* what the records built */
	struct rec_world world;
	struct rec_frames frames;
	struct ember_intern roots;  /* root frames' names */
	struct ember_stacks stacks; /* of frame ids, root first */
	int corrupt;		    /* malformed records skipped */
	uint64_t *ubuf;		    /* scratch */
	uint32_t *ibuf;
	struct rec_fcache *fcache; /* recent frames */
	struct rec_chains *chains; /* callchains seen (events.c) */
	struct rec_rcache *rcache; /* threads' root frames */
	/* interpreter frames read at each sample (perf/interp.h), merged
	 * into the processes' stacks (owned) */
	struct rec_interp_merge *interp;
	int reader_set;		 /* the unwinder reads code through us */
	const char *perfmap_dir; /* perf maps' directory (NULL: /tmp) */
	/* the sample-level profile, when a writer needs it (samples.c;
	 * owned); NULL: none kept */
	struct rec_prof *prof;
};

void rec_events_init(struct rec_events *ev, struct ember_record_stats *stats);
void rec_events_release(struct rec_events *ev);
/* No record comes any more: what only decoding them needs (the callchain
 * table, up to tens of megabytes) is freed before the frames are named. */
void rec_events_read_done(struct rec_events *ev);
/* Handles one perf record, in time order. */
void rec_events_handle(struct rec_events *ev, const void *rec, size_t size);
/* The record's time from its sample_id (0 when it has none). */
uint64_t rec_events_time(const struct rec_events *ev, const void *rec,
			 size_t size);
/* Copies a record to dst (room for size bytes), a sample's stack copy
 * cut to the bytes the kernel filled; returns the copy's size.  Reads
 * only the layout fields: safe on another thread while records are
 * handled. */
size_t rec_events_cut(const struct rec_events *ev, const void *rec, size_t size,
		      void *dst);
/* Fills what /proc tells of a running process (-p and -a). */
void rec_events_synthesize_pid(struct rec_events *ev, int pid);
/* The same for a process the world does not know, or knows running
 * another program (another name: it exec'd since); 1 if it was read. */
int rec_events_synthesize_new(struct rec_events *ev, int pid);

/* The unwinder's view of code memory (an ember_unwind_read_fn; ctx the
 * consumer): the process's own while it runs; once it is gone (its last
 * samples are handled after it exited) or read back, CPython's
 * trampolines rebuilt from its perf map, the rest unknown. */
size_t rec_events_read_code(void *ctx, int pid, uint64_t addr, void *buf,
			    size_t n);

/* The jitdump of p's JIT code: its own, or a forked parent's. */
struct ember_jitdump *rec_proc_jitdump(const struct rec_proc *p);
/* Whether a mapped file's name is a jitdump's: "jit-PID.dump" in any
 * directory. */
int rec_is_jitdump_name(const char *path, size_t len);

#endif
