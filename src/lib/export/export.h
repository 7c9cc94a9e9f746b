/*
 * What the writers of the sample-level profile share (export.c): JSON
 * strings, the samples grouped by thread in time order, the weight that
 * is a time, and the thread roots the per-thread formats leave out.
 */
#ifndef EMBER_EXPORT_H
#define EMBER_EXPORT_H

#include "profile.h"

/* A JSON string: UTF-8 kept, bytes that are not UTF-8 become U+FFFD. */
void ember_json_str(struct ember_buf *b, const char *s, size_t n);
static inline void ember_json_strid(struct ember_buf *b,
				    const struct ember_prof *p, uint32_t id)
{
	size_t len;
	const char *s = ember_prof_s(p, id, &len);
	ember_json_str(b, s, len);
}

/* The samples of each thread, in time order: group g is thread[g]
 * (EMBER_PROF_NONE: samples without one, last), its samples idx[off[g]
 * .. off[g + 1]).  Groups follow the thread table (first seen first). */
struct ember_exp_groups {
	size_t n;
	uint32_t *thread;
	size_t *off;
	uint32_t *idx;
};
void ember_exp_groups_init(struct ember_exp_groups *g,
			   const struct ember_prof *p);
void ember_exp_groups_release(struct ember_exp_groups *g);

/* The sample type that is a time (the last one in nanoseconds or
 * microseconds), with ns per unit; SIZE_MAX (and 0) when none is. */
size_t ember_exp_time_type(const struct ember_prof *p, uint64_t *ns);

/* Whether stack s's root frame is a thread's or process's name that a
 * writer with threads of its own leaves out (the sample has a thread). */
int ember_exp_skip_root(const struct ember_prof *p, uint32_t s,
			uint32_t thread);

/* The profile a writer writes: p's own, else one made of its folded
 * stacks in *tmp; the caller releases *tmp (ember_prof_release) either
 * way. */
const struct ember_prof *ember_exp_profile(const struct ember_profile *p,
					   struct ember_prof *tmp);

/* The frames of stack s root first, without a skipped root, into *out
 * (grown as needed, *max its room); returns how many. */
size_t ember_exp_frames(const struct ember_prof *p, uint32_t s, uint32_t thread,
			uint32_t **out, size_t *max);

/* The pid and tid each thread is written with (pid[t], tid[t]): its own,
 * or where the profile knows none (below 0: a thread that speedscope or
 * pprof name only), ids above every real one: one pid for all unknown
 * processes, a tid per unknown thread, in the threads' order.  For the
 * formats that need numbers (trace events, the Firefox Profiler's, perf
 * script); pprof leaves its pid and tid labels out instead. */
struct ember_exp_ids {
	int *pid, *tid;
};
void ember_exp_ids_init(struct ember_exp_ids *x, const struct ember_prof *p);
void ember_exp_ids_release(struct ember_exp_ids *x);

/* A thread's name for a title: "comm (tid N)" ("comm" without a tid) */
void ember_exp_thread_title(struct ember_buf *b, const struct ember_prof *p,
			    uint32_t thread);

/* Writes b out when it holds more than 64 KiB (err set on failure). */
static inline void ember_exp_flush(struct ember_buf *b, ember_write_fn w,
				   void *ctx, int *err)
{
	if (b->len > (1u << 16) && !*err) {
		*err = w(ctx, b->buf, b->len);
		ember_buf_reset(b);
	}
}

#endif
