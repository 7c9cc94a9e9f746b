/*
 * Off-CPU time (offcpu.c): the sched_switch tracepoint and switch records
 * turned into waits, charged to the stack at which a thread stopped.
 */
#ifndef EMBER_PERF_OFFCPU_H
#define EMBER_PERF_OFFCPU_H

#include "internal.h"

struct rec_events;
struct perf_event_attr;
struct rec_offcpu;
/* Finds the sched:sched_switch tracepoint (mounting tracefs if need be);
 * 0, or an EMBER_E* code with the reason in why. */
int rec_offcpu_new(struct rec_offcpu **o, uint64_t min_block_us,
		   struct ember_buf *why) EMBER_WUR;
/* The same from the texts of the tracepoint's id and format files;
 * EMBER_EINVAL when they do not describe sched_switch's prev_pid and
 * prev_state. */
int rec_offcpu_new_from(struct rec_offcpu **o, const char *id,
			const char *format, uint64_t min_block_us) EMBER_WUR;
/* The context-switches software event instead, where the tracepoint is
 * not available: no sleeping and uninterruptible states told apart. */
int rec_offcpu_new_cs(struct rec_offcpu **o, uint64_t min_block_us) EMBER_WUR;
/* Whether the waits' states are told (the tracepoint). */
int rec_offcpu_states(const struct rec_offcpu *o);
void rec_offcpu_free(struct rec_offcpu *o);
/* Makes a's event the switch tracepoint (or the context-switches event),
 * with switch records. */
void rec_offcpu_attr(const struct rec_offcpu *o, struct perf_event_attr *a);
/* Context switches: the id of an event opened with that attr. */
void rec_offcpu_add_id(struct rec_offcpu *o, uint64_t id);
/* Whether a sample is a switch (not a CPU sample): by its raw data for
 * the tracepoint, by its event id for context switches. */
int rec_offcpu_is_switch(struct rec_offcpu *o, const void *raw, size_t n,
			 uint64_t id);

enum { REC_EV_SAMPLE, REC_EV_SWITCH };

/* A thread left the CPU at time: ids (room for one more) is its stack,
 * raw the tracepoint's data (offcpu.c). */
void rec_offcpu_out(struct rec_events *r, int tid, uint64_t time,
		    const void *raw, size_t rawlen, uint32_t *ids, size_t n);
/* The switch-out record of a thread (context switches: the sample
 * before it is held until then, to tell preemption). */
void rec_offcpu_switch_out(struct rec_events *r, int tid, int preempted);
/* A thread exits (its last switch is no wait), or one starts. */
void rec_offcpu_exit(struct rec_events *r, int tid);
void rec_offcpu_fork(struct rec_events *r, int tid);
/* A thread runs again at time: its wait is charged. */
void rec_offcpu_in(struct rec_events *r, int tid, uint64_t time);
/* A CPU sample of tid at time, of period ns: its weight, the time the
 * thread ran since its previous one (the period where not known). */
double rec_offcpu_ran(struct rec_events *r, int tid, uint64_t time,
		      uint64_t period);
/* Records were lost: the waits going on are left out. */
void rec_offcpu_lost(struct rec_events *r);
/* Charges the waits still going on at end. */
void rec_offcpu_finish(struct rec_events *r, uint64_t end);

#endif
