/*
 * The sample-level profile of perf records (samples.c): what the
 * consumer (events.c) keeps per sample when a writer needs more than
 * folded stacks, and the pass that turns its frames into the profile's
 * frames, functions, lines and mappings once they have names.
 *
 * Hooks, each one call where its record is handled:
 *  - rec_prof_start before the first record (the caller: record.c, the
 *    perf.data adapter) makes ev->prof; without it nothing is kept;
 *  - rec_prof_sample per sample (events.c) and rec_prof_wait per off-CPU
 *    wait charged (offcpu.c): its time, thread, CPU, weight and the
 *    session's stack id;
 *  - rec_prof_build once the frames are named (symbolize.c, the perf.data
 *    adapter): frames, stack nodes, the samples remapped to them.
 */
#ifndef EMBER_PERF_SAMPLES_H
#define EMBER_PERF_SAMPLES_H

#include "perf/symbolize.h"
#include "profile.h"

struct rec_prof;

/* The weight's name and unit: ("cpu", "nanoseconds") for cpu-clock,
 * ("wall" or "off-cpu", "nanoseconds"), (event, "count"); period is the
 * sampling period in those units (0: unknown). */
void rec_prof_start(struct rec_events *ev, const char *type, const char *unit,
		    int64_t period);
void rec_prof_free(struct rec_prof *rp);

void rec_prof_sample(struct rec_events *ev, struct rec_thread *t, uint64_t time,
		     int cpu, uint32_t stack, uint64_t weight);
void rec_prof_wait(struct rec_events *ev, int tid, uint64_t time, uint64_t ns,
		   uint32_t stack);

/* The folded names of frame f (stack root's frame: root), outermost
 * first, as ids of names; *n of them. */
typedef const uint32_t *(*rec_prof_names_fn)(void *ctx, uint32_t root,
					     uint32_t f, size_t *n);
/* Builds the profile's frames from ev's, naming them by fn (names: the
 * table their ids are in), with their source lines from DWARF when
 * lines; epoch_offset: realtime - monotonic (seconds) for time_nanos. */
void rec_prof_build(struct rec_events *ev, struct rec_symctx *sc,
		    const struct ember_intern *names, rec_prof_names_fn fn,
		    void *ctx, int lines, double epoch_offset);
/* The same for rec_symbolize's names: frame f is ids[off[f] ..
 * off[f + 1]), with lines, on the recording's clock offset. */
void rec_prof_build_ids(struct rec_events *ev, struct rec_symctx *sc,
			const struct ember_intern *names, const uint32_t *ids,
			const size_t *off);
/* The profile, handed out (the caller frees it); NULL when none. */
struct ember_prof *rec_prof_detach(struct rec_events *ev);
/* No sample comes any more: the columns cut to their samples. */
void rec_prof_trim(struct rec_events *ev);

#endif
